// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-monitor.h"

#include "fabric-switch.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricMonitor");
NS_OBJECT_ENSURE_REGISTERED(FabricWatchdog);

std::vector<FabricPortReport>
CollectFabricCounters(const NodeContainer& nodes)
{
    std::vector<FabricPortReport> out;
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Ptr<Node> n = *it;
        bool sw = DynamicCast<FabricSwitch>(n) != nullptr;
        for (uint32_t i = 0; i < n->GetNDevices(); ++i)
        {
            Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>(n->GetDevice(i));
            if (!d)
            {
                continue;
            }
            FabricPortReport r;
            r.nodeId = n->GetId();
            r.deviceIndex = i;
            r.isSwitch = sw;
            r.address = d->GetFabricAddress();
            Ptr<FabricNetDevice> peer = d->GetPeer();
            r.peerNodeId = peer && peer->GetNode() ? peer->GetNode()->GetId() : r.nodeId;
            r.counters = d->GetCounters();
            r.queuedBytes = d->GetTotalQueueBytes();
            out.push_back(r);
        }
    }
    return out;
}

FabricPortCounters
SumFabricCounters(const std::vector<FabricPortReport>& reports)
{
    FabricPortCounters s;
    for (const auto& r : reports)
    {
        const FabricPortCounters& c = r.counters;
        s.txPackets += c.txPackets;
        s.txBytes += c.txBytes;
        s.txWireBytes += c.txWireBytes;
        s.rxPackets += c.rxPackets;
        s.rxBytes += c.rxBytes;
        s.drops += c.drops;
        s.dropBytes += c.dropBytes;
        s.corruptDrops += c.corruptDrops;
        s.corruptDropBytes += c.corruptDropBytes;
        s.controlTx += c.controlTx;
        s.controlRx += c.controlRx;
        s.pausesSent += c.pausesSent;
        s.resumesSent += c.resumesSent;
        s.pausesReceived += c.pausesReceived;
        s.pausedTime += c.pausedTime;
        s.ecnMarks += c.ecnMarks;
        s.maxQueueBytes = std::max(s.maxQueueBytes, c.maxQueueBytes);
        s.busyTime += c.busyTime;
    }
    return s;
}

FabricConservation
CheckFabricConservation(const NodeContainer& nodes)
{
    FabricConservation r;
    uint64_t wire = 0;
    uint64_t queued = 0;
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Ptr<Node> n = *it;
        bool sw = DynamicCast<FabricSwitch>(n) != nullptr;
        for (uint32_t i = 0; i < n->GetNDevices(); ++i)
        {
            Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>(n->GetDevice(i));
            if (!d)
            {
                continue;
            }
            FabricPortCounters c = d->GetCounters();
            if (!sw)
            {
                r.injected += c.txBytes;
                // A corrupted packet arrived (rxBytes) but was dropped.
                r.delivered += c.rxBytes - c.corruptDropBytes;
            }
            else
            {
                queued += d->GetTotalQueueBytes();
                r.injected += c.intBytes; // telemetry the switch wrote into packets
            }
            r.dropped += c.dropBytes;
            r.corrupted += c.corruptDropBytes;
            Ptr<FabricNetDevice> peer = d->GetPeer();
            if (peer)
            {
                // Sent by this port and not yet received by its peer: on the wire.
                uint64_t rx = peer->GetCounters().rxBytes;
                wire += c.txBytes >= rx ? c.txBytes - rx : 0;
            }
            for (uint8_t k = 0; k < kFabricClasses; ++k)
            {
                r.lossless = r.lossless && d->GetFlowControl()->IsLossless(k);
            }
        }
    }
    r.inFlight = wire + queued;
    r.balanced = r.injected == r.delivered + r.dropped + r.inFlight;
    // A lossless fabric may lose packets on a lossy wire, never in a buffer.
    const bool bufferDrops = r.dropped > r.corrupted;
    r.ok = r.balanced && !(r.lossless && bufferDrops);
    std::ostringstream os;
    os << "fabric conservation: injected " << r.injected << " B, delivered " << r.delivered
       << " B, dropped " << r.dropped << " B";
    if (r.corrupted > 0)
    {
        os << " (" << r.corrupted << " B corrupt on the wire)";
    }
    os << ", in flight " << r.inFlight << " B";
    if (!r.balanced)
    {
        os << "; ERROR: unbalanced by "
           << int64_t(r.injected) - int64_t(r.delivered + r.dropped + r.inFlight) << " B";
    }
    if (r.lossless && bufferDrops)
    {
        os << "; ERROR: drops on a lossless fabric";
    }
    r.message = os.str();
    return r;
}

TypeId
FabricWatchdog::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricWatchdog")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricWatchdog>()
                            .AddAttribute("StallTime",
                                          "Simulated time without any DATA packet moving, "
                                          "while packets are queued, that stops the run.",
                                          TimeValue(MicroSeconds(100)),
                                          MakeTimeAccessor(&FabricWatchdog::m_stallTime),
                                          MakeTimeChecker(PicoSeconds(1)));
    return tid;
}

FabricWatchdog::FabricWatchdog() = default;
FabricWatchdog::~FabricWatchdog() = default;

void
FabricWatchdog::DoDispose()
{
    m_event.Cancel();
    m_nodes = NodeContainer();
    Object::DoDispose();
}

void
FabricWatchdog::Install(const NodeContainer& nodes)
{
    m_nodes = nodes;
    m_lastMoves = 0;
    m_event.Cancel();
    m_event = Simulator::Schedule(m_stallTime, &FabricWatchdog::Check, this);
}

void
FabricWatchdog::Check()
{
    uint64_t moves = 0;
    uint64_t queued = 0;
    std::ostringstream blocked;
    for (auto it = m_nodes.Begin(); it != m_nodes.End(); ++it)
    {
        Ptr<Node> n = *it;
        for (uint32_t i = 0; i < n->GetNDevices(); ++i)
        {
            Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>(n->GetDevice(i));
            if (!d)
            {
                continue;
            }
            FabricPortCounters c = d->GetCounters();
            moves += c.txPackets + c.rxPackets;
            uint64_t q = d->GetTotalQueueBytes();
            queued += q;
            uint8_t b = d->GetBlockedClasses();
            if (q > 0 && b)
            {
                blocked << " node " << n->GetId() << " dev " << i << " (classes";
                for (uint8_t k = 0; k < kFabricClasses; ++k)
                {
                    if ((b >> k) & 1u && d->GetQueuePackets(k) > 0)
                    {
                        blocked << " " << unsigned(k);
                    }
                }
                blocked << ", " << q << " B queued);";
            }
        }
    }
    if (moves == m_lastMoves && queued > 0)
    {
        std::ostringstream os;
        os << "fabric watchdog: no packet moved for " << m_stallTime.As(Time::US) << " while "
           << queued << " B were queued (at " << Simulator::Now().As(Time::US)
           << "); blocked ports:" << blocked.str();
        m_message = os.str();
        m_fired = true;
        NS_LOG_WARN(m_message);
        Simulator::Stop();
        return;
    }
    m_lastMoves = moves;
    if (queued == 0 && Simulator::IsFinished())
    {
        return; // idle and nothing else to happen: let the run end
    }
    m_event = Simulator::Schedule(m_stallTime, &FabricWatchdog::Check, this);
}

} // namespace ns3
