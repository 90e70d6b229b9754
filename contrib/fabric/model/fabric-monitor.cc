// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-monitor.h"
#include "credit-flow-control.h"
#include "fast-simulator-impl.h"

#include "fabric-switch.h"
#include "pfc-flow-control.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <sstream>
#include <tuple>

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
        for (uint8_t k = 0; k < kFabricDropCauses; ++k)
        {
            s.dropsBy[k] += c.dropsBy[k];
            s.dropBytesBy[k] += c.dropBytesBy[k];
        }
        s.lostOnLinkBytes += c.lostOnLinkBytes;
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

namespace
{
/// CheckFabricConservation's sums over the ports of the nodes \p own takes.
/// \p perLink: on the wires, each port's sent minus its peer's received
/// (one process); else what these ports sent and what they received or
/// lost, apart (the two ends of a link may be on two ranks).
struct ConservationSums
{
    FabricConservation r;
    uint64_t wire{0};
    uint64_t queued{0};
    uint64_t sent{0};
    uint64_t arrived{0};
};

/// Per credit link (a port and its peer, both with credit flow control)
/// and class, what the port's sender side spent and what its peer's
/// ingress freed, each read on the rank that owns that end (\p own; every
/// end when null) and added over the ranks by \p sum (none: one process);
/// the gap, either way, summed into r.creditUnfreed, the first such link
/// named in r.creditLink. Every rank holds every node (the others' as idle
/// copies), so the links come in the same order on each and \p sum adds
/// like with like; a link's two ends may be on two ranks.
void
CountCreditGaps(const NodeContainer& nodes, const std::function<bool(const Node&)>& own,
                const FabricSumOverRanks& sum, FabricConservation& r)
{
    struct CreditLink
    {
        uint32_t node;
        uint32_t device;
        uint32_t peerNode;
    };
    std::vector<CreditLink> links;
    // Per link: kFabricClasses credits spent, then kFabricClasses freed.
    std::vector<uint64_t> credit;
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        const Node& n = **it;
        for (uint32_t i = 0; i < n.GetNDevices(); ++i)
        {
            const auto* d = dynamic_cast<const FabricNetDevice*>(PeekPointer(n.GetDevice(i)));
            const FabricNetDevice* peer = d ? PeekPointer(d->GetPeer()) : nullptr;
            if (!peer)
            {
                continue;
            }
            const auto* tx = dynamic_cast<const FabricCreditFlowControl*>(PeekPointer(d->GetFlowControl()));
            const auto* rx = dynamic_cast<const FabricCreditFlowControl*>(PeekPointer(peer->GetFlowControl()));
            if (!tx || !rx)
            {
                continue;
            }
            const Node* pn = PeekPointer(peer->GetNode());
            links.push_back({n.GetId(), i, pn ? pn->GetId() : 0});
            const bool ownTx = !own || own(n);
            const bool ownRx = !own || (pn && own(*pn));
            for (uint8_t k = 0; k < kFabricClasses; ++k)
            {
                credit.push_back(ownTx ? tx->GetCreditSpent(k) : 0);
            }
            for (uint8_t k = 0; k < kFabricClasses; ++k)
            {
                credit.push_back(ownRx ? rx->GetCreditFreed(k) : 0);
            }
        }
    }
    if (sum && !credit.empty())
    {
        sum(credit);
    }
    for (size_t j = 0; j < links.size(); ++j)
    {
        for (uint8_t k = 0; k < kFabricClasses; ++k)
        {
            const uint64_t spent = credit[j * 2 * kFabricClasses + k];
            const uint64_t freed = credit[j * 2 * kFabricClasses + kFabricClasses + k];
            const uint64_t gap = spent > freed ? spent - freed : freed - spent;
            if (gap > 0 && r.creditLink.empty())
            {
                std::ostringstream os;
                os << "node " << links[j].node << " dev " << links[j].device << " -> node " << links[j].peerNode
                   << " class " << unsigned(k) << ": spent " << spent << " B, freed " << freed << " B";
                r.creditLink = os.str();
            }
            r.creditUnfreed += gap;
        }
    }
}

ConservationSums
SumConservation(const NodeContainer& nodes, const std::function<bool(const Node&)>& own, bool perLink)
{
    ConservationSums s;
    FabricConservation& r = s.r;
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Ptr<Node> n = *it;
        if (own && !own(*n))
        {
            continue;
        }
        Ptr<FabricSwitch> fs = DynamicCast<FabricSwitch>(n);
        bool sw = fs != nullptr;
        if (fs && fs->GetReduction())
        {
            // In-switch reduction: contributions end here, sums start here;
            // contributions waiting for their reduction unit are in the switch.
            FabricReductionCounters rc = fs->GetReduction()->GetCounters();
            r.consumed += rc.consumedBytes;
            r.replicated += rc.replicatedBytes;
            s.queued += rc.heldBytes;
        }
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
                r.delivered += c.rxBytes - c.dropBytesBy[kDropCorrupt];
            }
            else
            {
                s.queued += d->GetTotalQueueBytes();
                r.injected += c.intBytes; // telemetry the switch wrote into packets
            }
            r.dropped += c.dropBytes;
            for (uint8_t k = 0; k < kFabricDropCauses; ++k)
            {
                r.droppedBy[k] += c.dropBytesBy[k];
                r.faultDropped += IsFaultDropCause(k) ? c.dropBytesBy[k] : 0;
            }
            Ptr<FabricNetDevice> peer = d->GetPeer();
            if (peer && perLink)
            {
                // Sent by this port and neither received by its peer nor lost
                // on the link: on the wire.
                const FabricPortCounters pc = peer->GetCounters();
                uint64_t rx = pc.rxBytes + pc.lostOnLinkBytes;
                s.wire += c.txBytes >= rx ? c.txBytes - rx : 0;
            }
            else if (peer)
            {
                s.sent += c.txBytes;
                s.arrived += c.rxBytes + c.lostOnLinkBytes;
            }
            for (uint8_t k = 0; k < kFabricClasses; ++k)
            {
                r.lossless = r.lossless && d->GetFlowControl()->IsLossless(k);
            }
        }
    }
    return s;
}

/// The verdict and the message over the sums.
FabricConservation
Judge(FabricConservation r)
{
    r.balanced = r.injected + r.replicated == r.delivered + r.consumed + r.dropped + r.inFlight;
    const bool lossyDrops = r.dropped > r.faultDropped;
    // Only a drained fabric has freed all the credit it spent.
    const bool creditLeak = r.inFlight == 0 && r.creditUnfreed > 0;
    r.ok = r.balanced && !(r.lossless && lossyDrops) && !creditLeak;
    std::ostringstream os;
    os << "fabric conservation: injected " << r.injected << " B, delivered " << r.delivered
       << " B, dropped " << r.dropped << " B";
    if (r.faultDropped > 0)
    {
        // Attributed: every cause with its bytes, those of faults included.
        os << " (";
        const char* sep = "";
        for (uint8_t k = 0; k < kFabricDropCauses; ++k)
        {
            if (r.droppedBy[k] > 0)
            {
                os << sep << FabricDropCauseName(k) << " " << r.droppedBy[k] << " B";
                sep = ", ";
            }
        }
        os << ")";
    }
    os << ", in flight " << r.inFlight << " B";
    if (r.consumed > 0 || r.replicated > 0)
    {
        os << ", reduced in switches " << r.consumed << " B, multicast copies " << r.replicated << " B";
    }
    if (!r.balanced)
    {
        os << "; ERROR: unbalanced by "
           << int64_t(r.injected + r.replicated) - int64_t(r.delivered + r.consumed + r.dropped + r.inFlight)
           << " B";
    }
    if (r.lossless && lossyDrops)
    {
        os << "; ERROR: drops on a lossless fabric";
    }
    if (creditLeak)
    {
        os << "; ERROR: credit spent and freed differ on a drained fabric, " << r.creditUnfreed
           << " B in all (first: " << r.creditLink << ")";
    }
    r.message = os.str();
    return r;
}
} // namespace

FabricConservation
CheckFabricConservation(const NodeContainer& nodes)
{
    ConservationSums s = SumConservation(nodes, nullptr, true);
    s.r.inFlight = s.wire + s.queued;
    CountCreditGaps(nodes, nullptr, {}, s.r);
    return Judge(s.r);
}

void
SumOverRanks(const FabricSumOverRanks& sum, const std::vector<uint64_t*>& fields)
{
    std::vector<uint64_t> v;
    v.reserve(fields.size());
    for (const uint64_t* f : fields)
    {
        v.push_back(*f);
    }
    sum(v);
    for (size_t i = 0; i < fields.size(); ++i)
    {
        *fields[i] = v[i];
    }
}

FabricConservation
CheckFabricConservation(const NodeContainer& nodes, uint32_t systemId, const FabricSumOverRanks& sum)
{
    return CheckFabricConservation(
        nodes, [systemId](const Node& n) { return n.GetSystemId() == systemId; }, sum);
}

FabricConservation
CheckFabricConservation(const NodeContainer& nodes, const std::function<bool(const Node&)>& own,
                        const FabricSumOverRanks& sum)
{
    ConservationSums s = SumConservation(nodes, own, false);
    FabricConservation& r = s.r;
    uint64_t lossyPorts = r.lossless ? 0 : 1;
    std::vector<uint64_t*> fields = {&r.injected, &r.delivered, &r.dropped, &r.faultDropped, &r.consumed,
                                     &r.replicated, &s.queued, &s.sent, &s.arrived, &lossyPorts};
    for (auto& b : r.droppedBy)
    {
        fields.push_back(&b);
    }
    SumOverRanks(sum, fields);
    r.inFlight = s.queued + (s.sent >= s.arrived ? s.sent - s.arrived : 0);
    r.lossless = lossyPorts == 0;
    CountCreditGaps(nodes, own, sum, r);
    return Judge(r);
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

namespace
{
/// The storms' order: detection time, then node, port and class.
bool
DetectedBefore(const FabricPfcStorm& a, const FabricPfcStorm& b)
{
    return std::tie(a.detectedAt, a.nodeId, a.deviceIndex, a.cls) <
           std::tie(b.detectedAt, b.nodeId, b.deviceIndex, b.cls);
}
} // namespace

FabricWatchdog::FabricWatchdog() = default;
FabricWatchdog::~FabricWatchdog() = default;

void
FabricWatchdog::DoDispose()
{
    m_event.Cancel();
    // The ports outlive a replaced watchdog: leave none of them calling it.
    for (auto& [pfc, cb] : m_stormSinks)
    {
        pfc->TraceDisconnectWithoutContext("PfcStorm", cb);
    }
    m_stormSinks.clear();
    m_nodes = NodeContainer();
    Object::DoDispose();
}

void
FabricWatchdog::Install(const NodeContainer& nodes)
{
    m_nodes = nodes;
    m_lastMoves = 0;
    m_storms.clear();
    for (auto& [pfc, cb] : m_stormSinks)
    {
        pfc->TraceDisconnectWithoutContext("PfcStorm", cb);
    }
    m_stormSinks.clear();
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        for (uint32_t i = 0; i < (*it)->GetNDevices(); ++i)
        {
            Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>((*it)->GetDevice(i));
            Ptr<FabricPfcFlowControl> pfc = d ? DynamicCast<FabricPfcFlowControl>(d->GetFlowControl()) : nullptr;
            if (pfc)
            {
                auto cb = MakeBoundCallback(&FabricWatchdog::StormSink, this, PeekPointer(d));
                pfc->TraceConnectWithoutContext("PfcStorm", cb);
                m_stormSinks.emplace_back(pfc, cb);
            }
        }
    }
    m_event.Cancel();
    m_event = hotsim::Schedule(m_stallTime, &FabricWatchdog::Check, this);
}

std::string
FabricWatchdog::Name(uint32_t nodeId) const
{
    return m_namer ? m_namer(nodeId) : "node " + std::to_string(nodeId);
}

void
FabricWatchdog::StormSink(FabricWatchdog* w, FabricNetDevice* d, uint8_t cls, Time pausedFor, bool detected)
{
    const uint32_t node = d->GetNode()->GetId();
    if (detected)
    {
        FabricPfcStorm s;
        s.nodeId = node;
        s.deviceIndex = d->GetIfIndex();
        Ptr<FabricNetDevice> peer = d->GetPeer();
        s.peerNodeId = peer && peer->GetNode() ? peer->GetNode()->GetId() : node;
        s.cls = cls;
        s.detectedAt = hotsim::Now();
        s.pausedFor = pausedFor;
        w->m_storms.insert(std::upper_bound(w->m_storms.begin(), w->m_storms.end(), s, DetectedBefore), s);
        NS_LOG_WARN("PFC storm detected: " << w->GetPfcStormReport());
        return;
    }
    for (auto it = w->m_storms.rbegin(); it != w->m_storms.rend(); ++it)
    {
        if (it->nodeId == node && it->deviceIndex == d->GetIfIndex() && it->cls == cls && !it->restored)
        {
            it->restored = true;
            it->restoredAt = hotsim::Now();
            break;
        }
    }
}

void
FabricWatchdog::GatherPfcStorms(const std::function<std::vector<uint64_t>(const std::vector<uint64_t>&)>& gather)
{
    constexpr size_t kFields = 8;
    std::vector<uint64_t> mine;
    for (const auto& s : m_storms)
    {
        mine.insert(mine.end(), {s.nodeId, s.deviceIndex, s.peerNodeId, s.cls, uint64_t(s.detectedAt.GetTimeStep()),
                                 uint64_t(s.pausedFor.GetTimeStep()), s.restored ? 1u : 0u,
                                 uint64_t(s.restoredAt.GetTimeStep())});
    }
    const std::vector<uint64_t> all = gather(mine);
    m_storms.clear();
    for (size_t i = 0; i + kFields <= all.size(); i += kFields)
    {
        FabricPfcStorm s;
        s.nodeId = static_cast<uint32_t>(all[i]);
        s.deviceIndex = static_cast<uint32_t>(all[i + 1]);
        s.peerNodeId = static_cast<uint32_t>(all[i + 2]);
        s.cls = static_cast<uint8_t>(all[i + 3]);
        s.detectedAt = TimeStep(static_cast<int64_t>(all[i + 4]));
        s.pausedFor = TimeStep(static_cast<int64_t>(all[i + 5]));
        s.restored = all[i + 6] != 0;
        s.restoredAt = TimeStep(static_cast<int64_t>(all[i + 7]));
        m_storms.push_back(s);
    }
    std::stable_sort(m_storms.begin(), m_storms.end(), DetectedBefore);
}

std::string
FabricWatchdog::GetPfcStormReport() const
{
    std::ostringstream os;
    const char* sep = "";
    for (const auto& s : m_storms)
    {
        os << sep << "PFC storm from " << Name(s.peerNodeId) << ": " << Name(s.nodeId) << " dev " << s.deviceIndex
           << " class " << unsigned(s.cls) << " paused for " << s.pausedFor.As(Time::US) << ", detected at "
           << s.detectedAt.As(Time::US);
        if (s.restored)
        {
            os << ", restored at " << s.restoredAt.As(Time::US);
        }
        sep = "; ";
    }
    return os.str();
}

std::string
FabricWatchdog::GetPfcStormNodes() const
{
    std::vector<std::string> names;
    for (const auto& s : m_storms)
    {
        const std::string n = Name(s.peerNodeId);
        if (std::find(names.begin(), names.end(), n) == names.end())
        {
            names.push_back(n);
        }
    }
    std::string out;
    for (const auto& n : names)
    {
        out += (out.empty() ? "" : ",") + n;
    }
    return out;
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
                blocked << ", " << q << " B queued";
                if (m_namer)
                {
                    // Where it is and who holds it: a paused port names the
                    // peer that pauses it (a storming NIC among them).
                    Ptr<FabricNetDevice> peer = d->GetPeer();
                    blocked << ", " << Name(n->GetId()) << " towards "
                            << (peer && peer->GetNode() ? Name(peer->GetNode()->GetId()) : "nothing");
                    const FabricPortCounters pc = d->GetCounters();
                    if (pc.pausedTime.IsStrictlyPositive())
                    {
                        blocked << ", paused by it for " << pc.pausedTime.As(Time::US) << " in all";
                    }
                }
                blocked << ");";
            }
        }
    }
    if (moves == m_lastMoves && queued > 0)
    {
        std::ostringstream os;
        os << "fabric watchdog: no packet moved for " << m_stallTime.As(Time::US) << " while "
           << queued << " B were queued (at " << hotsim::Now().As(Time::US)
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
    m_event = hotsim::Schedule(m_stallTime, &FabricWatchdog::Check, this);
}

} // namespace ns3
