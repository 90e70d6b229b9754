// SPDX-License-Identifier: GPL-2.0-only
//
// The smoke switch of the benchmark programs. `./hockney bench --smoke` and
// the ctest smoke tests run every bench-* program with
// HOCKNEY_BENCH_SMOKE=1 (an environment variable, because BENCHMARK_MAIN
// programs reject flags they do not know); a program may also take --smoke
// directly. Smoke means "check that it works": the smallest cases only.
#ifndef HOCKNEY_BENCH_SMOKE_H
#define HOCKNEY_BENCH_SMOKE_H

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>

namespace ns3
{
namespace bench
{

/// True when HOCKNEY_BENCH_SMOKE is set to anything but "" or "0", or
/// --smoke is among the arguments; --smoke is removed from argv so that
/// Google Benchmark does not see it.
inline bool
TakeSmokeFlag(int& argc, char** argv)
{
    bool smoke = false;
    const char* env = std::getenv("HOCKNEY_BENCH_SMOKE");
    if (env && *env && std::strcmp(env, "0") != 0)
    {
        smoke = true;
    }
    int out = 1;
    for (int i = 1; i < argc; ++i)
    {
        if (std::strcmp(argv[i], "--smoke") == 0)
        {
            smoke = true;
        }
        else
        {
            argv[out++] = argv[i];
        }
    }
    argc = out;
    return smoke;
}

/// Google Benchmark's own flags, then every registered benchmark; an
/// unknown flag is exit status 2, as everywhere in hockney.
inline int
RunRegistered(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
    {
        return 2;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

} // namespace bench
} // namespace ns3

#endif
