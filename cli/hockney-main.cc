// SPDX-License-Identifier: GPL-2.0-only
//
// build/bin/hockney: the command line (README.md; each module's doc page). Exit status 0 on
// success, 2 on bad input (one line on stderr naming the flag or field), 1 on an
// internal failure. Subcommands live in cli/*-command.cc and register themselves.
#include "flags.h"

#include "ns3/nstime.h"

#include <exception>
#include <iostream>

int
main(int argc, char** argv)
{
    // Picoseconds: serialization of small packets at Tb/s rates needs them.
    ns3::Time::SetResolution(ns3::Time::PS);
    auto& commands = hockney::Commands();
    std::string cmd = argc > 1 ? argv[1] : "help";
    if (cmd == "help" || cmd == "--help" || cmd == "-h")
    {
        std::cout << "usage: hockney COMMAND [--flag=value ...]   (COMMAND --help for its flags)\n"
                  << "  every command also takes --ns3::TypeName::AttributeName=VALUE (hockney attributes)\n";
        for (const auto& [name, info] : commands)
        {
            std::cout << "  " << name << "  " << info.summary << "\n";
        }
        return 0;
    }
    auto it = commands.find(cmd);
    if (it == commands.end())
    {
        std::cerr << "hockney: unknown command '" << cmd << "'; expected one of:";
        for (const auto& [name, info] : commands)
        {
            std::cerr << " " << name;
        }
        std::cerr << "\n";
        return 2;
    }
    try
    {
        const auto args = hockney::ApplyAttributeFlags(std::vector<std::string>(argv + 2, argv + argc));
        return it->second.fn(args, std::cout);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "hockney " << cmd << ": " << e.what() << "\n";
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "hockney " << cmd << ": internal error: " << e.what() << "\n";
        return 1;
    }
}
