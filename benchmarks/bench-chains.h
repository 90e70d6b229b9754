// SPDX-License-Identifier: GPL-2.0-only
//
// The two packet chains every speed figure of the packet level is measured
// against: hockney's fabric (PFC and ECN on, store-and-forward switches) and
// ns-3's PointToPointNetDevice chain whose middle nodes hand each packet to the
// next device (the cheapest forwarding ns-3's own devices allow: no IP stack).
// Same link rate, delay and on-wire packet size, so a hop costs the same
// simulated work in both; the ratio of their wall time per hop is what the
// fabric's features cost. fabric-bench reports both chains; scale-bench uses
// the point-to-point chain as the same-run baseline of its collectives.
//
// A hop is one packet crossing one link. Only Simulator::Run() is timed:
// building the chain and Simulator::Destroy() are not forwarding work.
#ifndef HOCKNEY_BENCH_CHAINS_H
#define HOCKNEY_BENCH_CHAINS_H

#include "fabric-helper.h"

#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <functional>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace bench
{

/// Payload after the FabricHeader; with the 70 B RoCEv2 framing 4166 B on the wire.
constexpr uint32_t kChainPayload = 4096;

/// One run of a chain.
struct ChainRun
{
    uint64_t hops = 0;      ///< packets delivered x links crossed
    uint64_t events = 0;    ///< simulator events executed
    double runSeconds = 0;  ///< wall time of Simulator::Run()
    bool complete = false;  ///< every packet arrived
};

/// Time::SetResolution may be called once per process, before any Time
/// exists: picoseconds because a 4 KB packet at 100 Gb/s is not a whole
/// number of nanoseconds at higher rates.
inline void
EnsurePicoseconds()
{
    static bool done = false;
    if (!done)
    {
        Time::SetResolution(Time::PS);
        done = true;
    }
}

inline double
SecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Runs the simulation built so far, timing Simulator::Run() alone, then
/// destroys it: `delivered()` packets, each across `links` links, of `packets`.
inline ChainRun
RunAndDestroy(const std::function<uint64_t()>& delivered, size_t links, uint32_t packets)
{
    ChainRun r;
    const auto start = std::chrono::steady_clock::now();
    Simulator::Run();
    r.runSeconds = SecondsSince(start);
    const uint64_t got = delivered();
    r.complete = got == packets;
    r.hops = got * links;
    r.events = Simulator::GetEventCount();
    Simulator::Destroy();
    return r;
}

/// src host - \p switches fabric switches - dst host; the source pulls
/// \p packets packets at line rate.
inline ChainRun
RunFabricChain(uint32_t switches, uint32_t packets)
{
    EnsurePicoseconds();
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
            Ptr<Packet> p = Create<Packet>(kChainPayload);
            p->AddHeader(FabricHeader(0, 1, *n, 0, FabricHeader::ECT0));
            return p;
        }).Bind(&sent, packets));
    Ptr<FabricNetDevice> last = links.back().devB;
    return RunAndDestroy([last]() { return last->GetCounters().rxPackets; }, links.size(), packets);
}

/// \p middles forwarding nodes between two end nodes, all joined by ns-3
/// point-to-point links of the fabric chain's rate and delay; every packet is
/// queued at the source at t = 0. With \p chains > 1, that many such chains
/// side by side, the packets dealt to their sources in turn: every chain
/// forwards at once, so a hop's device is one of 2 x (middles + 1) x chains
/// devices and the working set grows with them as a fabric's ports do (the
/// same-size baseline of a large topology: RunPointToPointChains).
inline ChainRun
RunPointToPointChains(uint32_t chains, uint32_t middles, uint32_t packets)
{
    EnsurePicoseconds();
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    // Room for every packet: the source enqueues them all at once.
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                 QueueSizeValue(QueueSize(std::to_string((packets + chains - 1) / chains + 1) + "p")));
    uint64_t got = 0;
    std::vector<Ptr<NetDevice>> sources;
    std::vector<Address> sinks;
    for (uint32_t c = 0; c < chains; ++c)
    {
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
            links[i].Get(1)->SetReceiveCallback(MakeCallback(
                +[](Ptr<NetDevice> out, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t proto, const Address&) {
                    out->Send(p->Copy(), out->GetBroadcast(), proto);
                    return true;
                }).Bind(links[i + 1].Get(0)));
        }
        links.back().Get(1)->SetReceiveCallback(MakeCallback(
            +[](uint64_t* n, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&) {
                ++*n;
                return true;
            }).Bind(&got));
        sources.push_back(links.front().Get(0));
        sinks.push_back(links.front().Get(1)->GetAddress());
    }
    // Same on-wire size as the fabric's packets: 4096 + 70 = 4166 B, of which
    // the PPP header is 2.
    for (uint32_t k = 0; k < packets; ++k)
    {
        sources[k % chains]->Send(Create<Packet>(kChainPayload + 68), sinks[k % chains], 0x0800);
    }
    return RunAndDestroy([&got]() { return got; }, size_t(middles) + 1, packets);
}

/// One chain (RunPointToPointChains).
inline ChainRun
RunPointToPointChain(uint32_t middles, uint32_t packets)
{
    return RunPointToPointChains(1, middles, packets);
}

/// Times `run(nodes, packets)` once per benchmark iteration (manual time:
/// Simulator::Run() only) and reports hops_per_s, ns_per_hop and
/// events_per_hop; a chain that lost packets is an error.
inline void
TimeChainRuns(benchmark::State& state,
              uint32_t nodes,
              uint32_t packets,
              const std::function<ChainRun(uint32_t, uint32_t)>& run)
{
    uint64_t hops = 0;
    uint64_t events = 0;
    double seconds = 0;
    for (auto _ : state)
    {
        const ChainRun r = run(nodes, packets);
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

} // namespace bench
} // namespace ns3

#endif
