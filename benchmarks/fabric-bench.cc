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
RunChain(benchmark::State& state, const std::function<bench::ChainRun(uint32_t, uint32_t)>& run)
{
    const uint32_t nodes = state.range(0);
    const uint32_t packets = state.range(1);
    uint64_t hops = 0;
    uint64_t events = 0;
    double seconds = 0;
    for (auto _ : state)
    {
        const bench::ChainRun r = run(nodes, packets);
        if (!r.complete)
        {
            state.SkipWithError("the chain lost packets");
            break;
        }
        state.SetIterationTime(r.runSeconds);
        hops += r.hops;
        events += r.events;
        seconds += r.runSeconds;
    }
    if (hops > 0 && seconds > 0)
    {
        state.counters["hops_per_s"] = double(hops) / seconds;
        state.counters["ns_per_hop"] = seconds * 1e9 / double(hops);
        state.counters["events_per_hop"] = double(events) / double(hops);
    }
}

void
BM_FabricChain(benchmark::State& state)
{
    RunChain(state, bench::RunFabricChain);
}

void
BM_PointToPointChain(benchmark::State& state)
{
    RunChain(state, bench::RunPointToPointChain);
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
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
    {
        return 2;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
