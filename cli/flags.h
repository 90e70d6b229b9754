// SPDX-License-Identifier: GPL-2.0-only
//
// Flags of one hockney subcommand: --name=value or --name value, each declared
// with a default and a one-line help. An undeclared flag, a repeated flag or a
// missing value is an InputError naming the flag (exit 2).
#ifndef HOCKNEY_CLI_FLAGS_H
#define HOCKNEY_CLI_FLAGS_H

#include "ns3/data-rate.h"

#include <cstdint>
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

/// Exit statuses (README.md, "Exit status"): 0 success, 1 an internal
/// failure (or a sweep point that failed), 2 bad input or a refused run,
/// kExitStopped (3) a packet run stopped at --wall-limit, kExitUnfinished (4)
/// one that did not finish by fabric.time_limit or stalled, kExitInterrupted
/// (130, as a shell reports SIGINT) interrupted by SIGINT or SIGTERM; in the
/// last three every row is still printed (ns3::ExitStatusOf).
constexpr int kExitStopped = 3;
constexpr int kExitUnfinished = 4;
constexpr int kExitInterrupted = 130;

/// While it lives, SIGINT and SIGTERM only call ns3::RequestPacketRunInterrupt
/// (a packet run stops at its next check, compare runs no other size, sweep
/// starts no other point) and interrupt a blocking call (no SA_RESTART). A
/// second one of them ends the process at once, as without the guard.
class InterruptGuard
{
  public:
    InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;
    ~InterruptGuard();

  private:
    struct Saved;
    Saved* m_saved;
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

// Helpers that several subcommands share, so that a flag means the same and
// fails with the same message in each.

/// The sizes of the list in flag --\p name ("1KB,64KB,1MB"); with \p positive,
/// a size of 0 is an InputError naming the flag.
std::vector<uint64_t> ParseSizeList(const Flags& f, const std::string& name, bool positive);

/// A rate in bytes per second as the ns-3 DataRate of the nearest whole bit rate.
ns3::DataRate ToDataRate(double bytesPerSecond);

/// Creates the output directory \p dir of flag \p flag with its parents,
/// before a long run, so that a typo fails at once as bad input (exit 2
/// naming the flag and the path); \p sayWhy appends the system's reason.
void CreateOutputDirectory(const std::string& dir, bool sayWhy, const std::string& flag = "--output");
/// Checks, before a long run, that the output file \p path of flag \p flag
/// can be written (creating it empty if it did not exist); an InputError
/// naming the flag and the path otherwise.
void CheckWritableFile(const std::string& path, const std::string& flag);

/// Applies every --ns3::TypeName::AttributeName=VALUE among \p args as that
/// attribute's default (SetAttributeDefault: a wrong type, attribute or value
/// is an InputError naming the flag) and returns the other arguments, in order,
/// for the command's own flags. Runs before every command, so any ns-3
/// attribute reaches the objects the command creates.
std::vector<std::string> ApplyAttributeFlags(const std::vector<std::string>& args);

/// Takes --reproducible (alone, =true or =false), a flag of every command,
/// out of \p args: it sets the output provenance's reproducible (the host
/// measurements wall_s and peak_rss_bytes left out of every row written,
/// result-row.h). Returns the other arguments, in order. Any other value,
/// or the flag given twice, is an InputError naming --reproducible.
std::vector<std::string> ApplyReproducibleFlag(const std::vector<std::string>& args);

/// The --ns3:: flags ApplyAttributeFlags applied, as given, for a command
/// that runs hockney again in a child process (sweep) to pass on.
const std::vector<std::string>& AttributeFlags();

/// The items joined with \p separator ("a, b, c").
std::string Join(const std::vector<std::string>& items, const std::string& separator);

} // namespace hockney

#endif
