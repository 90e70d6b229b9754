// SPDX-License-Identifier: GPL-2.0-only
//
// build/bin/hockney: the command line (README.md; each module's doc page). Exit status 0 on
// success, 2 on bad input or a refused run (one line on stderr naming the flag or field), 3 when a
// packet run stopped at --wall-limit, 4 when one did not finish by fabric.time_limit or stalled,
// 130 when interrupted (SIGINT, SIGTERM; in these three the rows are still printed), 1 on an
// internal failure (flags.h). Subcommands live in cli/*-command.cc and register themselves.
#include "flags.h"
#include "input-error.h"
#include "mpi-world.h"
#include "result-row.h"

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
                  << "  exit status: 0 success, 1 internal error, 2 bad input or a refused run (the flag or "
                     "field named on stderr; --force-memory starts a run whose memory estimate exceeds the "
                     "memory available), 3 a packet run stopped at --wall-limit, 4 a packet run not finished by "
                     "fabric.time_limit or stalled, 130 interrupted (Ctrl-C or SIGTERM); with 3, 4 and 130 the "
                     "rows done are still printed; sweep: 1 when a point failed\n"
                  << "  every command also takes --ns3::TypeName::AttributeName=VALUE (hockney attributes)\n"
                  << "  and --reproducible: no host measurements (wall_s, peak_rss_bytes) in the output, so the "
                     "same command and seed write the same bytes\n";
        for (const auto& [name, info] : commands)
        {
            std::cout << "  " << name << "  " << info.summary << "\n";
        }
        return 0;
    }
    // The provenance of every CSV and JSON output (result-row.h): the whole
    // command line, as a shell would take it back.
    std::string line = "hockney";
    for (int i = 1; i < argc; ++i)
    {
        line += " " + ns3::ShellQuote(argv[i]);
    }
    ns3::OutputProvenance().commandLine = line;
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
        // Under mpirun: one rank of the job (mpi-world.h). Sweep spreads
        // over ranks and compare its packet run (compare-command.cc);
        // any other command would run N times.
        hockney::MpiWorld mpi(&argc, &argv);
        if (hockney::MpiWorld::Size() > 1 && cmd != "sweep" && cmd != "compare")
        {
            throw ns3::InputError("mpirun", "expected 1 rank for '" + cmd + "' (sweep spreads its points over "
                                            "ranks, compare its packet run), got " +
                                                std::to_string(hockney::MpiWorld::Size()));
        }
        try
        {
            const auto args = hockney::ApplyAttributeFlags(
                hockney::ApplyReproducibleFlag(std::vector<std::string>(argv + 2, argv + argc)));
            return it->second.fn(args, std::cout);
        }
        catch (const std::invalid_argument& e)
        {
            if (cmd != "compare" || hockney::MpiWorld::Size() == 1)
            {
                throw;
            }
            // Under mpirun every rank of compare finds the same bad input:
            // one line, rank 0's, written before any rank exits (mpirun
            // ends the job at the first rank that exits with an error).
            if (hockney::MpiWorld::Rank() == 0)
            {
                std::cerr << "hockney " << cmd << ": " << e.what() << std::endl;
            }
            hockney::MpiWorld::Barrier();
            return 2;
        }
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
