// SPDX-License-Identifier: GPL-2.0-only
//
// Packet-hops per second through a chain of switches: hockney's fabric (PFC
// and ECN on, store-and-forward) against ns-3's PointToPointNetDevice chain
// (bench-chains.h), same packets, same run. BM_PointToPointChain is the
// baseline of BM_FabricChain with the same arguments (switches, packets).
//
//   build/bin/bench-fabric-bench [--smoke] [--benchmark_filter=...]
// Time is manual: the wall time of Simulator::Run() only. Counters:
//   hops_per_s      packet-hops per second of that time (hop = one link crossed)
//   ns_per_hop      its inverse, in nanoseconds
//   events_per_hop  simulator events executed per hop
#include "bench-chains.h"
#include "bench-smoke.h"

#include <benchmark/benchmark.h>

#include <functional>

using namespace ns3;

namespace
{

void
BM_FabricChain(benchmark::State& state)
{
    bench::TimeChainRuns(state, state.range(0), state.range(1), bench::RunFabricChain);
}

void
BM_PointToPointChain(benchmark::State& state)
{
    bench::TimeChainRuns(state, state.range(0), state.range(1), bench::RunPointToPointChain);
}

} // namespace

int
main(int argc, char** argv)
{
    bench::EnsurePicoseconds();
    // Smoke: one small chain, enough packets to pass the start-up transient.
    const bool smoke = bench::TakeSmokeFlag(argc, argv);
    const std::vector<std::vector<int64_t>> args =
        smoke ? std::vector<std::vector<int64_t>>{{4, 2000}}
              : std::vector<std::vector<int64_t>>{{4, 20000}, {8, 20000}};
    // Each chain next to its baseline, so that both see the same machine load.
    for (const auto& a : args)
    {
        benchmark::RegisterBenchmark("BM_FabricChain", BM_FabricChain)
            ->Args(a)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark("BM_PointToPointChain", BM_PointToPointChain)
            ->Args(a)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
    }
    return bench::RunRegistered(argc, argv);
}
