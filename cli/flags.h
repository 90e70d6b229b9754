// SPDX-License-Identifier: GPL-2.0-only
//
// Flags of one hockney subcommand: --name=value or --name value, each declared
// with a default and a one-line help. An undeclared flag, a repeated flag or a
// missing value is an InputError naming the flag (exit 2).
#ifndef HOCKNEY_CLI_FLAGS_H
#define HOCKNEY_CLI_FLAGS_H

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace hockney
{

class Flags
{
  public:
    /// Declares --name with its default ("" means unset) and help text.
    Flags& Add(const std::string& name, const std::string& defaultValue, const std::string& help);
    /// Declares a boolean --name (given alone means true).
    Flags& AddSwitch(const std::string& name, const std::string& help);
    /// Parses args (without the program and command names). Returns false after
    /// printing the flags to \p out when --help is among them.
    bool Parse(const std::vector<std::string>& args, std::ostream& out);

    bool IsSet(const std::string& name) const; ///< given on the command line
    std::string Get(const std::string& name) const;
    bool GetSwitch(const std::string& name) const;
    void PrintHelp(std::ostream& os) const;

  private:
    struct Spec
    {
        std::string value;
        std::string help;
        bool isSwitch = false;
        bool given = false;
    };

    std::map<std::string, Spec> m_specs;
    std::vector<std::string> m_order;
};

/// A subcommand: takes its arguments, writes to out, returns the exit status.
/// Throws InputError (or std::invalid_argument) on bad input.
using CommandFn = int (*)(const std::vector<std::string>& args, std::ostream& out);

/// Registers a subcommand at static-initialisation time.
struct CommandRegistrar
{
    CommandRegistrar(const std::string& name, const std::string& summary, CommandFn fn);
};

struct CommandInfo
{
    std::string summary;
    CommandFn fn;
};

std::map<std::string, CommandInfo>& Commands();

} // namespace hockney

#endif
