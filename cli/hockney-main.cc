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

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

namespace
{
// A packet run's per-hop objects (ports, queues, route tables, packets,
// events, queue pairs) are spread over the whole heap, 130 MB at 256 GPUs:
// with 4 KB pages nearly every object a hop touches is on its own page, past
// the TLB's reach, and every function of the hop got 3-6x dearer from 64 to
// 256 GPUs for the same instructions (issue 9). Transparent huge pages (2 MB)
// cut the CPU time per hop at 256 GPUs by about 40 % (benchmarks/README.md,
// "Memory traffic per hop"); the simulation is the same. glibc (2.35 and
// later) backs malloc's heap with them when GLIBC_TUNABLES asks for it, which
// it reads only as a process starts: so the commands that run packet
// simulations start again, once, with it set. Not when GLIBC_TUNABLES is set
// already (the user's choice, or this start-again), nor when
// HOCKNEY_HUGE_PAGES=0, nor under valgrind (it would profile the first start
// only). If the exec fails, the run goes on as it is.
void
StartWithHugePages(int argc, char** argv)
{
    if (argc < 2 || std::getenv("GLIBC_TUNABLES") != nullptr)
    {
        return;
    }
    const char* opt = std::getenv("HOCKNEY_HUGE_PAGES");
    if (opt != nullptr && std::strcmp(opt, "0") == 0)
    {
        return;
    }
    const std::string cmd = argv[1];
    if (cmd != "compare" && cmd != "sweep" && cmd != "validate")
    {
        return;
    }
#ifdef RUNNING_ON_VALGRIND
    if (RUNNING_ON_VALGRIND)
    {
        return;
    }
#endif
    if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) != 0)
    {
        return;
    }
    execv("/proc/self/exe", argv);
    unsetenv("GLIBC_TUNABLES"); // exec failed: as before
}
} // namespace

int
main(int argc, char** argv)
{
    StartWithHugePages(argc, argv);
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
