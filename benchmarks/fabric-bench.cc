// SPDX-License-Identifier: GPL-2.0-only
//
// Packet-hops per second through a chain of switches: hockney's fabric (PFC
// and ECN on, store-and-forward) against ns-3's PointToPointNetDevice chain
// whose middle nodes forward each packet to the next device (the cheapest
// forwarding ns-3's own devices allow: no IP stack), same packets, same run.
//
//   build/bin/bench-fabric-bench [--benchmark_filter=...]
// Counters: hops_per_s, packet-hops per second of CPU time (hop = one link
// crossed); events_per_hop, simulator events executed per hop.
#include "fabric-helper.h"

#include "ns3/config.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <benchmark/benchmark.h>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kPayload = 4096;

void
EnsurePicoseconds()
{
    static bool done = false;
    if (!done)
    {
        Time::SetResolution(Time::PS);
        done = true;
    }
}

// src host - K switches - dst host; `packets` packets pulled by the source at line rate.
void
BM_FabricChain(benchmark::State& state)
{
    EnsurePicoseconds();
    const uint32_t switches = state.range(0);
    const uint32_t packets = state.range(1);
    uint64_t hops = 0;
    uint64_t events = 0;
    for (auto _ : state)
    {
        state.PauseTiming();
        FabricHelper h;
        FabricLinkConfig cfg; // 100 Gb/s, 1 us, RoCEv2 framing, PFC
        std::vector<Ptr<Node>> chain;
        chain.push_back(CreateObject<Node>());
        for (uint32_t i = 0; i < switches; ++i)
        {
            chain.push_back(h.CreateSwitch());
        }
        chain.push_back(CreateObject<Node>());
        std::vector<FabricLink> links;
        for (size_t i = 0; i + 1 < chain.size(); ++i)
        {
            links.push_back(h.Connect(chain[i], chain[i + 1], cfg));
        }
        links.front().devA->SetFabricAddress(0);
        links.back().devB->SetFabricAddress(1);
        for (size_t i = 0; i < switches; ++i)
        {
            auto sw = DynamicCast<FabricSwitch>(chain[i + 1]);
            sw->AddRoute(1, {links[i + 1].portA});
            sw->AddRoute(0, {links[i].portB});
            sw->AssignStreams(i);
        }
        uint32_t sent = 0;
        links.front().devA->SetTxSource(MakeCallback(
            +[](uint32_t* n, uint32_t total, uint8_t cls, uint32_t) {
                if (cls != 0 || *n >= total)
                {
                    return Ptr<Packet>();
                }
                ++*n;
                Ptr<Packet> p = Create<Packet>(kPayload);
                p->AddHeader(FabricHeader(0, 1, *n, 0, FabricHeader::ECT0));
                return p;
            }).Bind(&sent, packets));
        state.ResumeTiming();
        Simulator::Run();
        state.PauseTiming();
        uint64_t got = links.back().devB->GetCounters().rxPackets;
        if (got != packets)
        {
            state.SkipWithError("fabric chain lost packets");
        }
        hops += got * links.size();
        events += Simulator::GetEventCount();
        Simulator::Destroy();
        state.ResumeTiming();
    }
    state.counters["hops_per_s"] = benchmark::Counter(double(hops), benchmark::Counter::kIsRate);
    state.counters["events_per_hop"] = double(events) / double(hops);
}

bool
ForwardTo(Ptr<NetDevice> out, Ptr<NetDevice> in, Ptr<const Packet> p, uint16_t proto,
          const Address&)
{
    out->Send(p->Copy(), out->GetBroadcast(), proto);
    return true;
}

bool
Count(uint64_t* n, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&)
{
    ++*n;
    return true;
}

void
BM_PointToPointChain(benchmark::State& state)
{
    EnsurePicoseconds();
    const uint32_t middles = state.range(0);
    const uint32_t packets = state.range(1);
    uint64_t hops = 0;
    uint64_t events = 0;
    for (auto _ : state)
    {
        state.PauseTiming();
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("1us"));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                     QueueSizeValue(QueueSize(std::to_string(packets + 1) + "p")));
        std::vector<Ptr<Node>> chain;
        for (uint32_t i = 0; i < middles + 2; ++i)
        {
            chain.push_back(CreateObject<Node>());
        }
        std::vector<NetDeviceContainer> links;
        for (size_t i = 0; i + 1 < chain.size(); ++i)
        {
            links.push_back(p2p.Install(chain[i], chain[i + 1]));
        }
        for (size_t i = 0; i + 1 < links.size(); ++i)
        {
            links[i].Get(1)->SetReceiveCallback(MakeBoundCallback(&ForwardTo, links[i + 1].Get(0)));
        }
        uint64_t got = 0;
        links.back().Get(1)->SetReceiveCallback(MakeBoundCallback(&Count, &got));
        // Same on-wire size as the fabric's packets: 4096 + 70 = 4166 B,
        // of which the PPP header is 2.
        for (uint32_t k = 0; k < packets; ++k)
        {
            links.front().Get(0)->Send(Create<Packet>(kPayload + 68),
                                       links.front().Get(1)->GetAddress(), 0x0800);
        }
        state.ResumeTiming();
        Simulator::Run();
        state.PauseTiming();
        if (got != packets)
        {
            state.SkipWithError("point-to-point chain lost packets");
        }
        hops += got * links.size();
        events += Simulator::GetEventCount();
        Simulator::Destroy();
        state.ResumeTiming();
    }
    state.counters["hops_per_s"] = benchmark::Counter(double(hops), benchmark::Counter::kIsRate);
    state.counters["events_per_hop"] = double(events) / double(hops);
}

} // namespace

BENCHMARK(BM_FabricChain)->Args({4, 20000})->Args({8, 20000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PointToPointChain)->Args({4, 20000})->Args({8, 20000})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
