// SPDX-License-Identifier: GPL-2.0-only
#include "flags.h"

#include "attribute-defaults.h"
#include "collective-comparison.h"
#include "input-error.h"
#include "result-row.h"
#include "units.h"

#include <cmath>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace hockney
{

namespace
{

void
OnInterrupt(int signal)
{
    if (ns3::PacketRunInterrupted())
    {
        // The second Ctrl-C: the user does not want to wait for the rows.
        std::signal(signal, SIG_DFL);
        std::raise(signal);
        return;
    }
    ns3::RequestPacketRunInterrupt();
}

} // namespace

struct InterruptGuard::Saved
{
    struct sigaction interrupt = {};
    struct sigaction terminate = {};
};

InterruptGuard::InterruptGuard()
    : m_saved(new Saved)
{
    struct sigaction sa = {};
    sa.sa_handler = OnInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &m_saved->interrupt);
    sigaction(SIGTERM, &sa, &m_saved->terminate);
}

InterruptGuard::~InterruptGuard()
{
    sigaction(SIGINT, &m_saved->interrupt, nullptr);
    sigaction(SIGTERM, &m_saved->terminate, nullptr);
    delete m_saved;
}

Flags&
Flags::Add(const std::string& name, const std::string& defaultValue, const std::string& help)
{
    m_specs[name] = Spec{defaultValue, help, false, false};
    m_order.push_back(name);
    return *this;
}

Flags&
Flags::AddSwitch(const std::string& name, const std::string& help)
{
    m_specs[name] = Spec{"false", help, true, false};
    m_order.push_back(name);
    return *this;
}

bool
Flags::Parse(const std::vector<std::string>& args, std::ostream& out)
{
    for (const auto& a : args)
    {
        if (a == "--help" || a == "-h")
        {
            PrintHelp(out);
            return false;
        }
    }
    for (size_t i = 0; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        if (a.rfind("--", 0) != 0 || a.size() == 2)
        {
            throw ns3::InputError(a, "expected a flag of the form --name=value");
        }
        size_t eq = a.find('=');
        std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        auto it = m_specs.find(name);
        if (it == m_specs.end())
        {
            throw ns3::InputError("--" + name, "unknown flag (see --help)");
        }
        Spec& s = it->second;
        if (s.given)
        {
            throw ns3::InputError("--" + name, "given twice; expected it once");
        }
        s.given = true;
        if (eq != std::string::npos)
        {
            s.value = a.substr(eq + 1);
            if (s.isSwitch && s.value != "true" && s.value != "false")
            {
                throw ns3::InputError("--" + name, "expected true or false, got '" + s.value + "'");
            }
        }
        else if (s.isSwitch)
        {
            s.value = "true";
        }
        else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
        {
            s.value = args[++i];
        }
        else
        {
            throw ns3::InputError("--" + name, "expected a value (--" + name + "=VALUE)");
        }
    }
    return true;
}

bool
Flags::IsSet(const std::string& name) const
{
    return m_specs.at(name).given;
}

std::string
Flags::Get(const std::string& name) const
{
    return m_specs.at(name).value;
}

bool
Flags::GetSwitch(const std::string& name) const
{
    return m_specs.at(name).value == "true";
}

void
Flags::PrintHelp(std::ostream& os) const
{
    for (const auto& n : m_order)
    {
        const Spec& s = m_specs.at(n);
        os << "  --" << n;
        if (!s.isSwitch)
        {
            os << "=" << (s.value.empty() ? "VALUE" : s.value);
        }
        os << "\n      " << s.help << "\n";
    }
}

std::map<std::string, CommandInfo>&
Commands()
{
    static std::map<std::string, CommandInfo> commands;
    return commands;
}

CommandRegistrar::CommandRegistrar(const std::string& name, const std::string& summary, CommandFn fn)
{
    Commands()[name] = CommandInfo{summary, fn};
}

std::vector<uint64_t>
ParseSizeList(const Flags& f, const std::string& name, bool positive)
{
    std::vector<uint64_t> sizes;
    for (const auto& item : ns3::units::SplitList(f.Get(name), "--" + name))
    {
        const uint64_t n = ns3::units::ParseBytes(item, "--" + name);
        if (positive && n == 0)
        {
            throw ns3::InputError("--" + name, "expected sizes > 0, got '" + item + "'");
        }
        sizes.push_back(n);
    }
    return sizes;
}

ns3::DataRate
ToDataRate(double bytesPerSecond)
{
    return ns3::DataRate(static_cast<uint64_t>(std::llround(bytesPerSecond * 8)));
}

void
CreateOutputDirectory(const std::string& dir, bool sayWhy, const std::string& flag)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
    {
        throw ns3::InputError(flag, "expected a directory that can be created, got '" + dir + "'" +
                                        (sayWhy && ec ? " (" + ec.message() + ")" : ""));
    }
}

void
CheckWritableFile(const std::string& path, const std::string& flag)
{
    // Appending creates the file without touching an earlier one.
    std::ofstream f(path, std::ios::app);
    if (!f)
    {
        throw ns3::InputError(flag, "expected a writable file, cannot write '" + path + "' (" +
                                        std::strerror(errno) + ")");
    }
}

namespace
{

std::vector<std::string>&
AppliedAttributeFlags()
{
    static std::vector<std::string> flags;
    return flags;
}

} // namespace

const std::vector<std::string>&
AttributeFlags()
{
    return AppliedAttributeFlags();
}

std::vector<std::string>
ApplyAttributeFlags(const std::vector<std::string>& args)
{
    const std::string prefix = "--ns3::";
    std::vector<std::string> rest;
    for (const auto& a : args)
    {
        if (a.rfind(prefix, 0) != 0)
        {
            rest.push_back(a);
            continue;
        }
        const size_t eq = a.find('=');
        if (eq == std::string::npos)
        {
            throw ns3::InputError(a, "expected " + a + "=VALUE");
        }
        ns3::SetAttributeDefault(a.substr(2, eq - 2), a.substr(eq + 1), a.substr(0, eq), true);
        AppliedAttributeFlags().push_back(a);
    }
    return rest;
}

std::vector<std::string>
ApplyReproducibleFlag(const std::vector<std::string>& args)
{
    const std::string name = "--reproducible";
    std::vector<std::string> rest;
    bool given = false;
    for (const auto& a : args)
    {
        if (a != name && a.rfind(name + "=", 0) != 0)
        {
            rest.push_back(a);
            continue;
        }
        if (given)
        {
            throw ns3::InputError(name, "given twice; expected it once");
        }
        given = true;
        const std::string value = a == name ? "true" : a.substr(name.size() + 1);
        if (value != "true" && value != "false")
        {
            throw ns3::InputError(name, "expected true or false, got '" + value + "'");
        }
        ns3::OutputProvenance().reproducible = value == "true";
    }
    return rest;
}

std::string
Join(const std::vector<std::string>& items, const std::string& separator)
{
    std::string s;
    for (const auto& item : items)
    {
        s += (s.empty() ? "" : separator) + item;
    }
    return s;
}

} // namespace hockney
