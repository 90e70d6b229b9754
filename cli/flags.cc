// SPDX-License-Identifier: GPL-2.0-only
#include "flags.h"

#include "input-error.h"

namespace hockney
{

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

} // namespace hockney
