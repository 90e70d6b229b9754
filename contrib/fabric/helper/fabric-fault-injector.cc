// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-fault-injector.h"

#include "fabric-channel.h"
#include "fabric-switch.h"
#include "pfc-flow-control.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <deque>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricFaultInjector");
NS_OBJECT_ENSURE_REGISTERED(FabricFaultInjector);

TypeId
FabricFaultInjector::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricFaultInjector")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricFaultInjector>()
                            .AddTraceSource("Fault",
                                            "A fault started or ended (its label and what happened).",
                                            MakeTraceSourceAccessor(&FabricFaultInjector::m_faultTrace),
                                            "ns3::FabricFaultInjector::FaultCallback");
    return tid;
}

FabricFaultInjector::FabricFaultInjector() = default;
FabricFaultInjector::~FabricFaultInjector() = default;

void
FabricFaultInjector::DoDispose()
{
    m_network = nullptr;
    Object::DoDispose();
}

void
FabricFaultInjector::SetNetwork(Ptr<FabricNetwork> network)
{
    m_network = network;
}

void
FabricFaultInjector::Check(const FabricFault& f) const
{
    const TopologyGraph& g = m_network->GetTopology();
    if ((f.kind == FabricFault::LINK_DOWN || f.kind == FabricFault::SLOW_LINK) && f.link >= g.LinkCount())
    {
        throw std::invalid_argument(f.label + ": expected a link id below " + std::to_string(g.LinkCount()) +
                                    ", got " + std::to_string(f.link));
    }
    if (f.kind == FabricFault::SLOW_LINK && f.rate.GetBitRate() == 0)
    {
        throw std::invalid_argument(f.label + ": expected a rate > 0");
    }
    if (f.kind == FabricFault::PFC_STORM)
    {
        if (f.node >= g.NodeCount() || g.RankOf(f.node) < 0)
        {
            throw std::invalid_argument(f.label + ": expected an endpoint (gpu or host) node");
        }
        bool pfc = false;
        for (uint32_t l : g.PortsOf(f.node))
        {
            pfc = pfc || g.LinkTier(l).flowControl == TopologyFlowControl::PFC;
        }
        if (!pfc)
        {
            throw std::invalid_argument(f.label + ": expected an endpoint with a PFC link, '" + g.Node(f.node).name +
                                        "' has none");
        }
    }
    if (f.until <= f.at)
    {
        throw std::invalid_argument(f.label + ": expected its end after its start");
    }
}

void
FabricFaultInjector::Schedule(const std::vector<FabricFault>& faults)
{
    NS_LOG_FUNCTION(this << faults.size());
    if (!m_network)
    {
        throw std::logic_error("FabricFaultInjector: SetNetwork first");
    }
    for (const auto& f : faults)
    {
        Check(f);
    }
    if (!faults.empty())
    {
        // A packet taken in early is routed when it is sent; a fault may
        // reroute (or corrupt, lossy_link) before it arrives: take packets in
        // at their arrival (FabricSwitch::SetEarlyTakeIn).
        const NodeContainer switches = m_network->GetSwitches();
        for (uint32_t i = 0; i < switches.GetN(); ++i)
        {
            if (Ptr<FabricSwitch> sw = DynamicCast<FabricSwitch>(switches.Get(i)))
            {
                sw->SetEarlyTakeIn(false);
            }
        }
    }
    // The events hold a reference: the injector lives until its last fault acts.
    Ptr<FabricFaultInjector> self(this);
    const TopologyPartition& partition = m_network->GetPartition();
    const uint32_t systemId = m_network->GetLocalSystemId();
    for (const auto& f : faults)
    {
        if (f.kind == FabricFault::PFC_STORM && partition.ranks > 1 && partition.owner[f.node] != systemId)
        {
            // The storming NIC's pauses are sent by the rank that owns it
            // (another rank's copy of the NIC would pause its idle copy of
            // the switch port: pauses counted twice).
            continue;
        }
        // A link's faults act on every rank: each applies them to its copy
        // of the channel, of both ports and of every switch's routes, at the
        // same simulated time. That copy is what its own ports and switches
        // use: a crossing carries the token its sender's copy gave it
        // (FabricChannel::Token, the down count or lost) and the receiving
        // rank's copy, down as often by then, compares it as one process
        // would; what a port sends is serialised at its own rank's rate
        // (slow_link) and the crossing carries its arrival time; a rank
        // recomputes every switch's routes (reroute) alike. The fault's
        // events are untied (after the arrivals of their picosecond) and
        // scheduled before the run, first among the untied events of their
        // time on every rank as in one process. One process runs each once:
        // the other ranks' copies are replicas (GetReplicaEvents).
        const bool replica = f.kind != FabricFault::PFC_STORM && partition.ranks > 1 && systemId != 0;
        const Time now = Simulator::Now();
        if (f.at <= now)
        {
            Apply(f, true);
        }
        else
        {
            Simulator::Schedule(f.at - now, &FabricFaultInjector::ApplyEvent, self, f, true, replica);
        }
        if (f.until != Time::Max() && f.kind != FabricFault::SLOW_LINK)
        {
            Simulator::Schedule(f.until - now, &FabricFaultInjector::ApplyEvent, self, f, false, replica);
        }
    }
}

void
FabricFaultInjector::ApplyEvent(FabricFault f, bool start, bool replica)
{
    m_replicaEvents += replica ? 1 : 0;
    Apply(f, start);
}

void
FabricFaultInjector::Apply(const FabricFault& f, bool start)
{
    NS_LOG_FUNCTION(this << f.label << start);
    switch (f.kind)
    {
    case FabricFault::LINK_DOWN:
        SetLinkUp(f.link, !start, f.reroute);
        break;
    case FabricFault::SLOW_LINK:
        SetLinkRate(f.link, f.rate);
        break;
    case FabricFault::PFC_STORM:
        SetPfcStorm(f.node, f.classMask, start);
        break;
    }
    NS_LOG_INFO(Simulator::Now().As(Time::US) << " " << f.label << (start ? " starts" : " ends"));
    m_faultTrace(f.label + (start ? " starts" : " ends"));
}

void
FabricFaultInjector::SetLinkUp(uint32_t link, bool up, bool reroute)
{
    NS_LOG_FUNCTION(this << link << up << reroute);
    m_network->GetLinkChannel(link)->SetLinkUp(up);
    if (reroute)
    {
        up ? (void)m_avoid.erase(link) : (void)m_avoid.insert(link);
        Reroute();
    }
}

void
FabricFaultInjector::SetLinkRate(uint32_t link, DataRate rate)
{
    NS_LOG_FUNCTION(this << link << rate);
    m_network->GetLinkDevice(link, true)->SetDataRate(rate);
    m_network->GetLinkDevice(link, false)->SetDataRate(rate);
}

void
FabricFaultInjector::SetPfcStorm(uint32_t node, uint8_t classMask, bool on)
{
    NS_LOG_FUNCTION(this << node << unsigned(classMask) << on);
    const TopologyGraph& g = m_network->GetTopology();
    for (uint32_t l : g.PortsOf(node))
    {
        Ptr<FabricPfcFlowControl> pfc =
            DynamicCast<FabricPfcFlowControl>(m_network->GetLinkDevice(l, g.LinkA(l) == node)->GetFlowControl());
        if (!pfc)
        {
            continue;
        }
        for (uint8_t c = 0; c < kFabricClasses; ++c)
        {
            if ((classMask >> c) & 1u)
            {
                // The NIC's own ingress "congested" without end: XOFF and its
                // refreshes, as a stuck receive pipeline asserts them.
                on ? pfc->IngressCongested(c) : pfc->IngressUncongested(c);
            }
        }
    }
}

void
FabricFaultInjector::Reroute()
{
    NS_LOG_FUNCTION(this);
    const TopologyGraph& g = m_network->GetTopology();
    const uint32_t n = g.NodeCount();
    constexpr uint32_t kFar = ~0u;
    std::vector<uint32_t> dist(n);
    std::vector<uint32_t> ports;
    for (uint32_t r = 0; r < g.EndpointCount(); ++r)
    {
        // Breadth-first from the destination over the live links; only
        // forwarding nodes (and the destination) pass distances on.
        const uint32_t dst = g.EndpointNode(r);
        std::fill(dist.begin(), dist.end(), kFar);
        dist[dst] = 0;
        std::deque<uint32_t> queue{dst};
        while (!queue.empty())
        {
            const uint32_t v = queue.front();
            queue.pop_front();
            if (v != dst && g.RankOf(v) >= 0)
            {
                continue; // endpoints do not transit
            }
            for (uint32_t l : g.PortsOf(v))
            {
                const uint32_t w = g.Peer(l, v);
                if (!m_avoid.count(l) && dist[w] == kFar)
                {
                    dist[w] = dist[v] + 1;
                    queue.push_back(w);
                }
            }
        }
        for (uint32_t v = 0; v < n; ++v)
        {
            Ptr<FabricSwitch> sw = m_network->GetSwitch(v);
            if (!sw || v == dst)
            {
                continue;
            }
            ports.clear();
            if (dist[v] != kFar)
            {
                for (uint32_t l : g.PortsOf(v))
                {
                    const uint32_t w = g.Peer(l, v);
                    const bool transit = w == dst || g.RankOf(w) < 0;
                    if (!m_avoid.count(l) && transit && dist[w] != kFar && dist[w] + 1 == dist[v])
                    {
                        ports.push_back(g.PortIndex(v, l));
                    }
                }
            }
            if (ports.empty())
            {
                // Cut off: the original route, onto the dead link.
                for (const auto& h : g.NextHops(v, r))
                {
                    ports.push_back(h.port);
                }
            }
            if (!ports.empty())
            {
                sw->AddRoute(r, ports);
            }
        }
    }
}

} // namespace ns3
