// SPDX-License-Identifier: GPL-2.0-only
//
// Speed of the analytic module (issue 2's goals, measured, never asserted):
// AlphaBetaModel evaluations per second (goal >= 1e8 on one core) and
// AnalyticChannel delivered messages per second with policy none (goal >= 5e6).
#include "alpha-beta-model.h"
#include "analytic-channel.h"
#include "analytic-net-device.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/node-container.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

#include <benchmark/benchmark.h>

#include <vector>

using namespace ns3;

namespace
{

// Sizes spread over the protocol bands, so no branch is always taken.
std::vector<uint64_t>
Sizes()
{
    std::vector<uint64_t> s;
    uint64_t x = 12345;
    for (int i = 0; i < 1024; ++i)
    {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        s.push_back(1 + (x >> 40) % 4000000);
    }
    return s;
}

void
EvaluateModel(benchmark::State& state, bool relaxed)
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    if (relaxed)
    {
        m->SetAttribute("ProtocolSwitch", BooleanValue(true));
        m->SetAttribute("SCurve", BooleanValue(true));
    }
    const std::vector<uint64_t> sizes = Sizes();
    for (auto _ : state)
    {
        double sum = 0;
        for (uint64_t n : sizes)
        {
            sum += m->TimeSeconds(n);
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * sizes.size());
}

void
BM_AlphaBetaTimeSeconds(benchmark::State& state)
{
    EvaluateModel(state, false);
}

void
BM_AlphaBetaTimeSecondsProtocolSCurve(benchmark::State& state)
{
    EvaluateModel(state, true);
}

void
BM_AlphaBetaGetTime(benchmark::State& state)
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    const std::vector<uint64_t> sizes = Sizes();
    for (auto _ : state)
    {
        int64_t sum = 0;
        for (uint64_t n : sizes)
        {
            sum += m->GetTime(n).GetTimeStep();
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * sizes.size());
}

void
BM_AnalyticModelVirtual(benchmark::State& state)
{
    Ptr<AnalyticModel> m = CreateObject<AlphaBetaModel>();
    const std::vector<uint64_t> sizes = Sizes();
    for (auto _ : state)
    {
        double sum = 0;
        for (uint64_t n : sizes)
        {
            sum += m->GetMessageSeconds(n);
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * sizes.size());
}

// range(0): messages in flight at once (all sent at t = 0, then Run()).
void
BM_AnalyticChannelNone(benchmark::State& state)
{
    const uint32_t devicesN = 8;
    const uint64_t batch = static_cast<uint64_t>(state.range(0));
    const std::vector<uint64_t> sizes = Sizes();
    NodeContainer nodes;
    nodes.Create(devicesN);
    Ptr<AnalyticChannel> ch = CreateObject<AnalyticChannel>();
    ch->SetAttribute("Model", PointerValue(CreateObject<AlphaBetaModel>()));
    ch->SetAttribute("ContentionPolicy", EnumValue(AnalyticChannel::NONE));
    ch->Install(nodes);
    uint64_t bytes = 0;
    ch->SetDeliveryCallback([&bytes](const AnalyticMessage& m) { bytes += m.bytes; });
    uint64_t k = 0;
    for (auto _ : state)
    {
        for (uint64_t i = 0; i < batch; ++i, ++k)
        {
            const uint32_t src = k % devicesN;
            ch->SendMessage(src, (src + 1 + (k / devicesN) % (devicesN - 1)) % devicesN, sizes[k % sizes.size()]);
        }
        Simulator::Run();
    }
    benchmark::DoNotOptimize(bytes);
    state.SetItemsProcessed(ch->GetMessagesDelivered());
    state.counters["delivered"] = static_cast<double>(ch->GetMessagesDelivered());
    Simulator::Destroy();
}

} // namespace

BENCHMARK(BM_AlphaBetaTimeSeconds);
BENCHMARK(BM_AlphaBetaTimeSecondsProtocolSCurve);
BENCHMARK(BM_AlphaBetaGetTime);
BENCHMARK(BM_AnalyticModelVirtual);
BENCHMARK(BM_AnalyticChannelNone)->Arg(1)->Arg(1000)->Arg(100000);

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
