// SPDX-License-Identifier: GPL-2.0-only
//
// Speed of the analytic module (its goals, measured, never asserted):
// AlphaBetaModel evaluations per second (goal >= 1e8 on one core) and
// AnalyticChannel delivered messages per second with policy none (goal >= 5e6).
//
// Machines are shared and absolute rates drift from run to run, so each group
// has a baseline measured in the same run, to be read as a ratio:
//   BM_BareFormula            alpha + n / beta on the same sizes (evals_per_s);
//                             the closed forms' cost relative to the formula.
//   BM_SimpleChannelBaseline  ns-3's own SimpleNetDevice / SimpleChannel
//                             delivering as many messages, as many in flight
//                             (msgs_per_s); the analytic channel's speed-up.
// Every benchmark reports its rate as evals_per_s or msgs_per_s (CPU time).
#include "alpha-beta-model.h"
#include "analytic-channel.h"
#include "analytic-net-device.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simple-net-device-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

using namespace ns3;

namespace
{

// Sizes spread over the protocol bands, so no branch is always taken.
/// Sets the rate counter every benchmark reports (per second of CPU time).
void
SetRate(benchmark::State& state, const char* name, double count)
{
    state.counters[name] = benchmark::Counter(count, benchmark::Counter::kIsRate);
}

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
    SetRate(state, "evals_per_s", static_cast<double>(state.iterations() * sizes.size()));
}

// The baseline: Hockney's T = alpha + n / beta written out, with the
// model's default alpha and beta read at run time, over the same sizes.
void
BM_BareFormula(benchmark::State& state)
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    const double alpha = m->AlphaSeconds(0);
    const double beta = m->MaxBandwidth();
    const std::vector<uint64_t> sizes = Sizes();
    for (auto _ : state)
    {
        double sum = 0;
        for (uint64_t n : sizes)
        {
            sum += alpha + static_cast<double>(n) / beta;
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * sizes.size());
    SetRate(state, "evals_per_s", static_cast<double>(state.iterations() * sizes.size()));
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
    SetRate(state, "evals_per_s", static_cast<double>(state.iterations() * sizes.size()));
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
    SetRate(state, "evals_per_s", static_cast<double>(state.iterations() * sizes.size()));
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
    SetRate(state, "msgs_per_s", static_cast<double>(ch->GetMessagesDelivered()));
    Simulator::Destroy();
}

// The baseline: the same number of messages, as many in flight, through ns-3's
// SimpleNetDevice on point-to-point SimpleChannels (8 nodes in 4 pairs, 5 us
// delay, no serialization), one Packet per message of its size capped at the
// device's 65535-B MTU (a packet model would send n / MTU packets: this is
// ns-3's cost per message at its most favourable). ns-3 pays a Packet, a tag,
// a copy and two events per message (queue drain, delivery); the analytic
// channel none of these.
void
BM_SimpleChannelBaseline(benchmark::State& state)
{
    const uint32_t devicesN = 8;
    const uint64_t batch = static_cast<uint64_t>(state.range(0));
    const std::vector<uint64_t> sizes = Sizes();
    NodeContainer nodes;
    nodes.Create(devicesN);
    SimpleNetDeviceHelper helper;
    helper.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1000000p"));
    helper.SetChannelAttribute("Delay", TimeValue(MicroSeconds(5)));
    helper.SetNetDevicePointToPointMode(true);
    std::vector<Ptr<NetDevice>> devices;
    for (uint32_t i = 0; i < devicesN; i += 2)
    {
        NetDeviceContainer pair = helper.Install(NodeContainer(nodes.Get(i), nodes.Get(i + 1)));
        devices.push_back(pair.Get(0));
        devices.push_back(pair.Get(1));
    }
    uint64_t delivered = 0;
    uint64_t bytes = 0;
    for (const Ptr<NetDevice>& d : devices)
    {
        d->SetReceiveCallback([&delivered, &bytes](Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&) {
            ++delivered;
            bytes += p->GetSize();
            return true;
        });
    }
    const uint64_t mtu = devices[0]->GetMtu();
    uint64_t k = 0;
    uint64_t refused = 0;
    for (auto _ : state)
    {
        for (uint64_t i = 0; i < batch; ++i, ++k)
        {
            const uint32_t src = k % devicesN;
            const uint32_t dst = src ^ 1; // the other end of its pair
            const uint64_t n = std::min(sizes[k % sizes.size()], mtu);
            refused += !devices[src]->Send(Create<Packet>(static_cast<uint32_t>(n)),
                                           devices[dst]->GetAddress(),
                                           0x0800);
        }
        Simulator::Run();
    }
    if (refused > 0 || delivered != k)
    {
        state.SkipWithError("SimpleNetDevice refused or lost messages");
    }
    benchmark::DoNotOptimize(bytes);
    state.SetItemsProcessed(static_cast<int64_t>(delivered));
    state.counters["delivered"] = static_cast<double>(delivered);
    SetRate(state, "msgs_per_s", static_cast<double>(delivered));
    Simulator::Destroy();
}

} // namespace

BENCHMARK(BM_BareFormula);
BENCHMARK(BM_AlphaBetaTimeSeconds);
BENCHMARK(BM_AlphaBetaTimeSecondsProtocolSCurve);
BENCHMARK(BM_AlphaBetaGetTime);
BENCHMARK(BM_AnalyticModelVirtual);
BENCHMARK(BM_AnalyticChannelNone)->Arg(1)->Arg(1000)->Arg(100000);
BENCHMARK(BM_SimpleChannelBaseline)->Arg(1)->Arg(1000)->Arg(100000);

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
