// SPDX-License-Identifier: GPL-2.0-only
//
// Over 600 lines on purpose: a sixth is the TypeId (attributes and trace
// sources), and the rest is one transmit/receive state machine whose
// per-packet functions (Enqueue, TryTransmit, TakeFromClass,
// StartTransmission, Receive) share the port's private state and stay in one
// translation unit so that the compiler inlines between them; the parts that
// are not per-port state live in their own files (egress scheduling in
// fabric-egress-scheduler.h, flow control in fabric-flow-control.h, pcap in
// fabric-pcap-helper.h).
#include "fabric-net-device.h"
#include "fast-simulator-impl.h"

#include "ecn-marker.h"
#include "fabric-channel.h"
#include "fabric-log.h"
#include "fabric-pooled-event.h"
#include "fabric-switch.h"
#include "int-header.h"
#include "tie-keyed-events.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

const char*
FabricDropCauseName(uint8_t cause)
{
    switch (cause)
    {
    case kDropBuffer:
        return "buffer";
    case kDropNoRoute:
        return "no_route";
    case kDropLinkDown:
        return "link_down";
    case kDropCorrupt:
        return "corrupt";
    default:
        return "unknown";
    }
}

bool
IsFaultDropCause(uint8_t cause)
{
    return cause == kDropLinkDown || cause == kDropCorrupt;
}

namespace
{
constexpr uint32_t kNoPort = 0xFFFFFFFFu;
constexpr uint32_t kHdr = FabricHeader::kSerializedSize;
} // namespace

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricNetDevice>()
            .AddAttribute("DataRate",
                          "Line rate of the transmitter.",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&FabricNetDevice::SetDataRate,
                                               &FabricNetDevice::GetDataRate),
                          MakeDataRateChecker())
            .AddAttribute("HeaderBytes",
                          "On-wire framing bytes per packet in place of the FabricHeader "
                          "(RoCEv2 Ethernet 70, IB 14 + ...; see fabric.md).",
                          UintegerValue(70),
                          MakeUintegerAccessor(&FabricNetDevice::m_headerBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HeaderGranuleBytes",
                          "0: one HeaderBytes of framing per packet. N > 0: one per N "
                          "payload bytes (at least one): a packet then stands for "
                          "ceil(payload / N) link packets of N bytes (the transfer unit, "
                          "doc/fabric.md), with their framing, in one event.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetDevice::m_headerGranule),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MinWireBytes",
                          "Smallest frame on the wire in bytes (Ethernet 64 + 20 preamble/IFG "
                          "= 84; 0 = no floor).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetDevice::m_minWireBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ControlFrameBytes",
                          "On-wire bytes of a link-local frame (PFC pause: 64 + 20 = 84).",
                          UintegerValue(84),
                          MakeUintegerAccessor(&FabricNetDevice::m_controlFrameBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("FlowControl",
                          "Link-level flow control of this port: a FabricFlowControl (none: "
                          "lossy tail drop), FabricPfcFlowControl (IEEE 802.1Qbb pause) or "
                          "FabricCreditFlowControl (IB/NVLink credits). Null means none.",
                          PointerValue(),
                          MakePointerAccessor(&FabricNetDevice::SetFlowControl,
                                              &FabricNetDevice::GetFlowControl),
                          MakePointerChecker<FabricFlowControl>())
            .AddAttribute("Mtu",
                          "Largest packet in bytes after the FabricHeader (transport "
                          "headers + payload).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&FabricNetDevice::SetMtu,
                                               &FabricNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("UnitLinkPackets",
                          "The most link packets one packet on this port stands for: 1, or "
                          "for a network transfer unit (FabricNetwork::NetworkTransferUnitBytes) "
                          "the MTU packets of a unit. A packet's own count (FabricHeader link "
                          "packets) frames it; this one sizes the largest frame the PFC "
                          "headroom and the credit update threshold allow for (MaxFrameWireBytes).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&FabricNetDevice::m_unitLinkPackets),
                          MakeUintegerChecker<uint32_t>(1, 256))
            .AddAttribute("FabricAddress",
                          "Endpoint id of this port (0xFFFFFFFF on switch ports).",
                          UintegerValue(kFabricNoAddress),
                          MakeUintegerAccessor(&FabricNetDevice::m_address),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MaxQueueBytes",
                          "Per-class limit of the Send() queues in bytes (0 = unlimited); "
                          "switch egress queues are bounded by the switch buffer instead.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetDevice::m_maxQueueBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CutThrough",
                          "Receive side: hand packets up once their header has arrived.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricNetDevice::m_cutThrough),
                          MakeBooleanChecker())
            .AddAttribute("Scheduler",
                          "Egress scheduler among the classes (fabric-egress-scheduler.h); "
                          "setting it installs a new one with its default attributes.",
                          EnumValue(ROUND_ROBIN),
                          MakeEnumAccessor(&FabricNetDevice::SetSchedulerType,
                                           &FabricNetDevice::GetSchedulerType),
                          MakeEnumChecker(ROUND_ROBIN, "RoundRobin", DWRR, "Dwrr",
                                          STRICT_PRIORITY, "StrictPriority"))
            .AddAttribute("ReceiveErrorModel",
                          "Loss on the wire into this port (e.g. ns3::RateErrorModel, ErrorUnit "
                          "packet or bit; bits are the simulated packet's: FabricHeader, "
                          "transport headers, payload): a DATA packet it corrupts (ACK, NAK "
                          "and CNP included) is dropped and counted as a corrupt drop. "
                          "Link-local pause and credit frames are exempt. Null: lossless wire.",
                          PointerValue(),
                          MakePointerAccessor(&FabricNetDevice::SetReceiveErrorModel,
                                              &FabricNetDevice::GetReceiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("PhyTxBegin",
                            "A packet (data or link-local) starts serialization.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_phyTxBeginTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxEnd",
                            "A packet's last bit left the transmitter.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_phyTxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxEnd",
                            "A packet was received (at its header on cut-through ports, a "
                            "network transfer unit at its first link packet on pipelining ones).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_phyRxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacTxDrop",
                            "A packet was dropped at this port (queue full, switch ingress "
                            "admission, no route).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_macTxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxDrop",
                            "A packet was lost on the link into this port: corrupted on "
                            "the wire (ReceiveErrorModel, fault lossy_link), or a DATA "
                            "packet the peer sent lost before it arrived (the link went "
                            "down, fault link_down).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_phyRxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A DATA packet is handed up at an endpoint.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Sniffer",
                            "Every packet this port sends (at its first bit) or receives, "
                            "data and link-local frames, FabricHeader at the front: what "
                            "its pcap file shows (fabric-pcap-helper.h).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcPause",
                            "The peer paused a class of this transmitter (class).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcPauseTrace),
                            "ns3::TracedValueCallback::Uint8")
            .AddTraceSource("PfcResume",
                            "A paused class of this transmitter resumed (class).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_pfcResumeTrace),
                            "ns3::TracedValueCallback::Uint8")
            .AddTraceSource("EcnMark",
                            "This egress set CE on a packet (packet, the class queue bytes the marker read).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_ecnMarkTrace),
                            "ns3::FabricNetDevice::EcnMarkCallback")
            .AddTraceSource("QueueLength",
                            "Bytes queued in a class changed (class, bytes).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_queueLengthTrace),
                            "ns3::FabricNetDevice::QueueLengthCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
{
    NS_LOG_FUNCTION(this);
    m_fc = CreateObject<FabricFlowControl>();
    m_fc->Attach(this);
}

FabricNetDevice::~FabricNetDevice() = default;

void
FabricNetDevice::DoInitialize()
{
    NS_LOG_FUNCTION(this);
    NetDevice::DoInitialize();
}

void
FabricNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_txPending)
    {
        Simulator::Cancel(m_txEvent.Id());
    }
    m_txEvent = hotsim::ScheduledEvent();
    m_txPending = false;
    m_lateOffered = false;
    m_lateOffers.clear();
    m_deferred = 0;
    for (auto& q : m_queues)
    {
        q.items.clear();
        q.bytes = 0;
        q.wireBytes = 0;
    }
    m_incoming.clear();
    m_foldedRx.clear();
    m_folder = nullptr;
    m_queuedBytes = 0;
    m_queuedPackets = 0;
    m_node = nullptr;
    m_channel = nullptr;
    m_peer = nullptr;
    m_switch = nullptr;
    if (m_fc)
    {
        m_fc->Dispose();
    }
    m_fc = nullptr;
    m_scheduler = nullptr;
    m_pickInto = nullptr;
    m_ecn = nullptr;
    m_receiveErrorModel = nullptr;
    // Drops the Sniffer's sinks: a pcap file closes with its port.
    m_snifferTrace = TracedCallback<Ptr<const Packet>>();
    m_source = TxSource();
    m_fabricRx = FabricRxCallback();
    m_rxCallback = NetDevice::ReceiveCallback();
    NetDevice::DoDispose();
}

// ---------------------------------------------------------------- config

void
FabricNetDevice::SetSchedulerType(SchedulerType type)
{
    NS_LOG_FUNCTION(this << type);
    Ptr<FabricEgressScheduler> s;
    switch (type)
    {
    case ROUND_ROBIN:
        s = CreateObject<FabricRoundRobinScheduler>();
        break;
    case DWRR:
        s = CreateObject<FabricDwrrScheduler>();
        break;
    case STRICT_PRIORITY:
        s = CreateObject<FabricStrictPriorityScheduler>();
        break;
    }
    SetEgressScheduler(s);
    m_schedulerType = type;
}

void
FabricNetDevice::SetEgressScheduler(Ptr<FabricEgressScheduler> scheduler)
{
    NS_LOG_FUNCTION(this << scheduler);
    if (!scheduler)
    {
        throw std::invalid_argument("scheduler: expected an egress scheduler");
    }
    m_scheduler = scheduler;
    m_schedulerVisitsLeaveState = scheduler->VisitsLeaveState();
}

void
FabricNetDevice::SetDataRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    if (rate.GetBitRate() == 0)
    {
        throw std::invalid_argument("rate: expected a data rate > 0");
    }
    m_rate = rate;
    m_bps = rate.GetBitRate();
    m_serBytes = ~uint64_t(0); // SerializationTime's kept answer was at the old rate
}

void
FabricNetDevice::SetFabricAddress(uint32_t address)
{
    NS_LOG_FUNCTION(this << address);
    m_address = address;
}

void
FabricNetDevice::SetFlowControl(Ptr<FabricFlowControl> fc)
{
    NS_LOG_FUNCTION(this << fc);
    if (m_fc)
    {
        m_fc->Dispose();
    }
    m_fc = fc ? fc : CreateObject<FabricFlowControl>();
    m_fc->Attach(this);
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    if (!channel->Attach(this))
    {
        throw std::invalid_argument("channel: expected a channel with a free end");
    }
    m_channel = channel;
    // Cache the peer on both ends once the second joins.
    Ptr<FabricNetDevice> peer = channel->GetPeer(this);
    if (peer)
    {
        m_peer = PeekPointer(peer);
        peer->m_peer = this;
    }
}

Ptr<FabricNetDevice>
FabricNetDevice::GetPeer() const
{
    return m_peer;
}

void
FabricNetDevice::SetSwitch(FabricSwitch* sw, uint32_t portIndex)
{
    NS_LOG_FUNCTION(this << sw << portIndex);
    m_switch = sw;
    m_portIndex = portIndex;
}

// ---------------------------------------------------------------- timing

Time
FabricNetDevice::ComputeSerializationTime(uint64_t wireBytes) const
{
    // Integer picoseconds, rounded to nearest: bytes * 8e12 / bps. A double
    // would drift by a picosecond at some sizes and rates.
    unsigned __int128 bps = m_bps;
    unsigned __int128 num = (unsigned __int128)wireBytes * 8u * 1000000000000ull;
    uint64_t ps = uint64_t((num + bps / 2) / bps);
    return PicoSeconds(ps);
}

// ---------------------------------------------------------------- sending

bool
FabricNetDevice::SendFabric(Ptr<Packet> packet)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << packet);
    FabricHeader h;
    if (packet->GetSize() < kHdr)
    {
        throw std::invalid_argument("packet: expected a FabricHeader at the front");
    }
    packet->PeekHeader(h);
    return SendFabricWritten(std::move(packet), h);
}

bool
FabricNetDevice::SendFabricWritten(Ptr<Packet> packet, const FabricHeaderFields& h)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << packet);
    NS_ASSERT(packet->GetSize() >= kHdr);
    uint32_t payload = packet->GetSize() - kHdr;
    uint8_t c = h.GetPriority();
    if (payload > m_mtu || (m_maxQueueBytes && m_queues[c].bytes + payload > m_maxQueueBytes))
    {
        m_macTxDropTrace(packet);
        return false;
    }
    Enqueue(Item(packet, h, payload, kNoPort, 0, Time(), Time()), false, hotsim::Now());
    return true;
}

bool
FabricNetDevice::SendFabric(Ptr<Packet> packet, const FabricHeader& header)
{
    FabricHeader h = header;
    if (h.GetSource() == kFabricNoAddress)
    {
        h.SetSource(m_address);
    }
    packet->AddHeader(h);
    return SendFabric(packet);
}

void
FabricNetDevice::SetTxSource(TxSource source, uint8_t classMask)
{
    NS_LOG_FUNCTION(this << unsigned(classMask));
    m_source = source;
    m_sourceMask = source.IsNull() ? 0 : classMask;
    if (!m_source.IsNull())
    {
        TryTransmit();
    }
}

void
FabricNetDevice::NotifyTxReady()
{
    TryTransmit();
}

uint64_t
FabricNetDevice::RunningTie()
{
    return tie_keys::g_running;
}

void
FabricNetDevice::Queue(Item&& newItem, bool markAtEnqueue)
{
    uint8_t c = newItem.header.GetPriority();
    ClassQueue& q = m_queues[c];
    Item* slot;
    if (newItem.ingressPort != kNoPort && newItem.ingressPort != kFabricReductionIngress && !q.items.empty() &&
        q.items.back().After(newItem))
    {
        // A packet taken in after the switch's ingress pipeline behind one
        // that was queued at its arrival (a port whose receive side is
        // observed, a reduction group's packet, PFC ports under AllPorts):
        // in the order of their arrivals, as if both had been queued then
        // (their ready times are arrival + latency; at equal times in the
        // order of the arrival events, their tie keys).
        auto at = q.items.end();
        while (at != q.items.begin() && std::prev(at)->After(newItem))
        {
            --at;
        }
        slot = &*q.items.emplace(at, std::move(newItem));
    }
    else
    {
        slot = &q.items.emplace_back(std::move(newItem));
    }
    Item& item = *slot;
    if (markAtEnqueue)
    {
        MarkIfCongested(item, q); // reads the queue ahead of the packet: before the counts below
    }
    q.bytes += item.payloadBytes;
    q.wireBytes += WireBytes(item.payloadBytes + kHdr, item.header);
    m_queuedBytes += item.payloadBytes;
    ++m_queuedPackets;
    m_nonEmptyMask |= uint8_t(1u << c);
    if (m_queuedBytes > m_counters.maxQueueBytes)
    {
        m_counters.maxQueueBytes = m_queuedBytes;
    }
    m_queueLengthTrace(c, q.bytes);
}

void
FabricNetDevice::EnqueueForwarded(Ptr<Packet> packet, const FabricHeaderFields& header,
                                  uint32_t ingressPort, uint32_t ingressWireBytes, Time ready,
                                  Time rxEnd, Time now, Time arrival, uint64_t tie)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << packet << ingressPort);
    // An INT packet leaves with one more hop record (StartTransmission
    // writes it): its bytes count in the queue and the budget from here on.
    const uint32_t intBytes = m_switch && m_switch->StampsInt() ? IntHeader::GrowthBytes(header) : 0;
    m_counters.intBytes += intBytes;
    uint32_t payload = packet->GetSize() - kHdr + intBytes;
    if (arrival > now)
    {
        // Taken in early (ReceiveEarly): aside until its arrival, in
        // arrival order (a link delivers in order; packets from different
        // links are sent in any order).
        auto at = m_incoming.end();
        while (at != m_incoming.begin() &&
               (std::prev(at)->arrival > arrival || (std::prev(at)->arrival == arrival && std::prev(at)->tie > tie)))
        {
            --at;
        }
        m_incoming.emplace(at, std::move(packet), header, payload, ingressPort, ingressWireBytes, ready, rxEnd,
                           arrival, tie);
        return;
    }
    if (!m_incoming.empty())
    {
        TakeInArrived(now); // those that arrived before this one
    }
    const bool markAtEnqueue = m_ecn && m_ecn->MarksAtEnqueue();
    // Fast path of an idle port (the common case in an uncongested fabric):
    // nothing queued, nothing to signal, the class may send -> start now,
    // with exactly the decision the scheduler would take. The ECN mark at
    // enqueue does not change the decision (it reads the queue, changes
    // neither size nor class), so it is drawn after it, on the Item where it
    // is built.
    if (m_nonEmptyMask == 0 && m_sourceMask == 0 && !m_txPending && now >= m_txFreeAt &&
        ready <= now && m_channel && m_peer && !m_fc->HasControlFrame() &&
        m_fc->GetSendBudget(header.GetPriority()) >= WireBytes(payload + kHdr, header))
    {
        Item item(std::move(packet), header, payload, ingressPort, ingressWireBytes, ready, rxEnd, arrival, tie);
        if (markAtEnqueue)
        {
            MarkIfCongested(item, m_queues[header.GetPriority()]);
        }
        StartTransmission(item, now);
        return;
    }
    Enqueue(Item(std::move(packet), header, payload, ingressPort, ingressWireBytes, ready, rxEnd, arrival, tie),
            markAtEnqueue, now);
}

FabricNetDevice*
FabricNetDevice::ReceiveEarly(Ptr<Packet> packet, const FabricHeaderFields& header, Time rxEnd, Time arrival,
                              uint64_t tie, Time now)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << packet);
    // rxPackets and rxBytes count it at its arrival (TakeInArrived). Its
    // wire bytes as the sender's credit counted them (a network transfer
    // unit framed as its link packets, Receive's count): with one framing
    // for a 16-packet unit, every unit leaked 15 framings of credit here
    // until the link's credit fell below a unit and the run stalled.
    const uint32_t wire = WireBytes(packet->GetSize(), header);
    return m_switch->Receive(m_portIndex, std::move(packet), header, wire, rxEnd, arrival, now, tie);
}

void
FabricNetDevice::ReleaseArrived()
{
    const Time now = hotsim::Now();
    if (!m_incoming.empty())
    {
        TakeInArrived(now);
    }
    // Busy with nothing to send after this transmission: the packet has
    // started (in an earlier event, or one of this picosecond); a start at
    // the end would find nothing, and whatever gives the port something to
    // send before then calls TryTransmit itself (a packet taken in early,
    // its own ReleaseArrived).
    if (now < m_txFreeAt && m_queuedPackets == 0 && !SourceMayHaveWork() && !m_fc->HasControlFrame())
    {
        return;
    }
    TryTransmit(now);
}

void
FabricNetDevice::TakeInArrived(Time now)
{
    // Arrived: before now, or at now by an arrival event that would have
    // run before the running one (the keyed events of a picosecond run
    // first, in key order; an unkeyed running event, g_running = kNoKey,
    // comes after all of them).
    const uint64_t running = tie_keys::g_running;
    const bool markAtEnqueue = m_ecn && m_ecn->MarksAtEnqueue();
    while (!m_incoming.empty())
    {
        Item& f = m_incoming.front();
        if (f.arrival > now || (f.arrival == now && running <= f.tie))
        {
            break;
        }
        m_switch->GetPort(f.ingressPort)->CountArrived(f.packet->GetSize() - kHdr);
        Queue(std::move(f), markAtEnqueue);
        m_incoming.pop_front();
    }
}

void
FabricNetDevice::LoseIncoming(uint32_t ingressPort, Time now)
{
    for (auto it = m_incoming.begin(); it != m_incoming.end();)
    {
        // At its arrival's picosecond the packet has arrived: the fault's
        // unkeyed event runs after the keyed arrivals of its time.
        if (it->ingressPort != ingressPort || it->arrival <= now)
        {
            ++it;
            continue;
        }
        m_counters.intBytes -= it->payloadBytes - (it->packet->GetSize() - kHdr);
        m_switch->ReleaseEarly(ingressPort, it->header.GetPriority(), it->ingressWireBytes);
        // Lost at its arrival, in the place of its arrival event, as a
        // packet on the wire of a dead link (FabricChannel::Deliver).
        FabricNetDevice* ingress = PeekPointer(m_switch->GetPort(ingressPort));
        tie_keys::g_tie = it->tie;
        hotsim::ScheduleWithContext(m_nodeId, it->arrival - now, &FabricNetDevice::LoseOnLink, ingress,
                                       it->packet, FabricHeaderFields(it->header), true);
        tie_keys::g_tie = KeyedEvent::kNoKey;
        it = m_incoming.erase(it);
    }
}

bool
FabricNetDevice::IsBusy() const
{
    return hotsim::Now() < m_txFreeAt;
}

EventImpl*
FabricNetDevice::MakeReadyEvent()
{
    // One per packet a busy port queues: recycled (fabric-pooled-event.h).
    return FabricMemberEvent<FabricNetDevice, &FabricNetDevice::TransmitReadyEvent>::Make(this);
}

void
FabricNetDevice::TransmitReadyEvent()
{
    // The event runs at m_txWakeAt: every schedule of m_txEvent sets it to
    // the event's time (no clock read).
    m_txPending = false;
    TryTransmit(m_txWakeAt);
}

void
FabricNetDevice::TryTransmit(Time now)
{
    if (!m_channel || !m_peer)
    {
        return;
    }
    if (!m_incoming.empty())
    {
        TakeInArrived(now);
    }
    if (now < m_txFreeAt)
    {
        // Something changed (a packet, a frame, credit, source work): the
        // next start is where NextStartAt now puts it. A pending start at
        // that time stays: a packet queued behind heads that are still in
        // their forwarding latency leaves a deferred start where it was;
        // moving it back to the end would only run an event that finds
        // nothing ready and defers again (0.05-0.10 per data hop on fat
        // trees and rail clusters). Not with a scheduler whose visit of a
        // class that cannot send changes its state (DWRR's deficit): that
        // visit at the end stays, as before.
        if (m_txPending && m_txWakeAt == m_txFreeAt)
        {
            return; // the start at the end looks at everything anyway
        }
        const Time at = m_schedulerVisitsLeaveState ? m_txFreeAt : NextStartAt(m_txFreeAt);
        if (m_txPending && m_txWakeAt != at)
        {
            m_txPending = false;
            hotsim::RemovePending(m_txEvent);
        }
        if (!m_txPending)
        {
            m_txPending = true;
            m_txWakeAt = at;
            m_txEvent = hotsim::ScheduleKept(at - now, MakeReadyEvent());
            if (m_lateOffered)
            {
                FoldLateControl();
            }
        }
        return;
    }
    // Frames kept without an event until this start (TakeControlEarly) are
    // folded, kept for the next start or scheduled on the way out.
    struct ResolveOnExit
    {
        FabricNetDevice* port;
        Time now;
        ~ResolveOnExit()
        {
            if (port->m_deferred)
            {
                port->ResolveDeferred(now);
            }
        }
    } resolve{this, now};
    if (m_txPending)
    {
        // Only a wait for a forwarding-latency deadline can be pending here.
        // Removed, not cancelled: a cancelled event stays in the event queue
        // until its time (it is popped and counted as executed), and this
        // happens for a good share of the switch hops; the events left run in
        // the same order either way.
        m_txPending = false;
        hotsim::RemovePending(m_txEvent);
    }
    bool control = m_fc->HasControlFrame();
    FabricControlFrame frame;
    if (control && !m_fc->CanPiggyback())
    {
        if (m_fc->TakeControlFrame(frame))
        {
            StartControl(frame);
        }
        return;
    }
    // Only classes with a queued packet or a source can send.
    const uint8_t candidates = m_nonEmptyMask | (m_sourceMask & m_sourceClasses);
    m_notBefore = Time::Max();
    // TakeFromClass fills this call's own item: the transmission below may
    // re-enter TryTransmit, which then picks into its own.
    std::optional<Item> item; // built only when a packet is taken
    m_pickInto = &item;
    m_pickNow = now;
    if (candidates && m_scheduler->Dequeue(*this, candidates))
    {
        StartTransmission(*item, now); // carries a piggybacked frame, if any
        return;
    }
    const Time notBefore = m_notBefore;
    if (control)
    {
        if (m_fc->TakeControlFrame(frame))
        {
            StartControl(frame);
        }
        return;
    }
    if (notBefore != Time::Max())
    {
        m_txPending = true;
        m_txWakeAt = notBefore;
        m_txEvent = hotsim::ScheduleKept(notBefore - now, MakeReadyEvent());
    }
}

bool
FabricNetDevice::TakeFromClass(uint8_t c, uint32_t& payloadBytes)
{
    // A port whose link is down answers to no flow control: nobody grants
    // credit or sends pauses there, and what it sends is lost anyway.
    const uint64_t budget = m_linkUp ? m_fc->GetSendBudget(c) : FabricFlowControl::kUnlimited;
    if (budget == 0)
    {
        return false;
    }
    ClassQueue& q = m_queues[c];
    if (!q.items.empty())
    {
        Item& head = q.items.front();
        if (WireBytes(head.payloadBytes + kHdr, head.header) > budget)
        {
            return false; // out of credit for the head: wait for an update
        }
        if (head.ready > m_pickNow)
        {
            m_notBefore = std::min(m_notBefore, head.ready);
            return false;
        }
        Item& out = m_pickInto->emplace(std::move(head));
        q.items.pop_front();
        if (q.items.empty())
        {
            m_nonEmptyMask &= uint8_t(~(1u << c));
        }
        q.bytes -= out.payloadBytes;
        q.wireBytes -= WireBytes(out.payloadBytes + kHdr, out.header);
        m_queuedBytes -= out.payloadBytes;
        --m_queuedPackets;
        m_queueLengthTrace(c, q.bytes);
        payloadBytes = out.payloadBytes;
        return true;
    }
    if (!((m_sourceMask >> c) & 1u))
    {
        return false;
    }
    // In bytes of a packet of one link header: a unit of n link packets
    // counts its n - 1 further headers on top of its size (RdmaNic::Pull),
    // so the MTU bound allows for a full unit's.
    uint64_t maxSize = uint64_t(m_mtu) + kHdr + uint64_t(m_unitLinkPackets - 1) * m_headerBytes;
    if (budget != FabricFlowControl::kUnlimited)
    {
        if (budget < m_minWireBytes || budget < m_headerBytes)
        {
            return false;
        }
        maxSize = std::min<uint64_t>(maxSize, budget - m_headerBytes + kHdr);
    }
    m_hasPulledHeader = false;
    Ptr<Packet> p = m_source(c, uint32_t(maxSize));
    if (!p)
    {
        return false;
    }
    // The NIC's own fields (RdmaNic::Pull: SetPulledHeader) are queued as
    // given; any other source's header is read back from the bytes.
    if (!m_hasPulledHeader)
    {
        FabricHeader read;
        p->PeekHeader(read);
        m_pulledHeader = read;
    }
    payloadBytes =
        m_pickInto->emplace(p, m_pulledHeader, p->GetSize() - kHdr, kNoPort, 0, Time(), Time()).payloadBytes;
    return true;
}

Time
FabricNetDevice::NextStartAt(Time end) const
{
    if (SourceMayHaveWork() || m_fc->HasControlFrame())
    {
        return end;
    }
    // Only queued packets: if every head is still in its forwarding latency
    // at the end, a start then would find nothing and wait for the first of
    // them; wait for it at once (one event a forwarded packet fewer:
    // 0.03-0.13 per data hop on fat trees and rail clusters). Anything that
    // could send before then (a frame to send, source work) calls
    // TryTransmit, which brings the start back to the end (a packet queued
    // or credit returned meanwhile changes no head's deadline); no
    // late frame is folded into a deferred start (FoldLateControl). The start
    // then runs at the same time as the wait it replaces but was scheduled
    // earlier (a smaller uid): with the tie keys the outputs are identical
    // (arrivals, keyed, run first at equal times whatever the uids;
    // regression and the 32 MB RoCE incast checked), without them
    // (TieKeys=false) some congested runs tie differently (that incast: 1025
    // CNPs for 1024).
    Time first = Time::Max();
    for (uint8_t mask = m_nonEmptyMask; mask; mask &= uint8_t(mask - 1))
    {
        first = std::min(first, m_queues[__builtin_ctz(mask)].items.front().ready);
    }
    return first > end && first != Time::Max() ? first : end;
}

void
FabricNetDevice::ScheduleNext(Time end, Time now)
{
    // Count packets, not bytes: a queue of zero-payload packets (ACKs) still
    // waits. A source without work now is not polled: it calls
    // NotifyTxReady when it gets some (SetTxSourceClasses).
    bool more = m_queuedPackets > 0 || SourceMayHaveWork() || m_fc->HasControlFrame();
    if (more && !m_txPending)
    {
        const Time at = NextStartAt(end);
        m_txPending = true;
        m_txWakeAt = at;
        m_txEvent = hotsim::ScheduleKept(at - now, MakeReadyEvent());
    }
}

void
FabricNetDevice::StartControl(const FabricControlFrame& frame)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(frame.kind));
    uint32_t wire = m_controlFrameBytes;
    Time tx = SerializationTime(wire);
    Time now = hotsim::Now();
    m_txFreeAt = now + tx;
    ++m_counters.controlTx;
    m_counters.busyTime += tx;
    // The frame becomes a packet only for whoever looks at packets.
    if (!m_snifferTrace.IsEmpty() || !m_phyTxBeginTrace.IsEmpty() || !m_phyTxEndTrace.IsEmpty())
    {
        Ptr<Packet> p = ShowControlFrame(frame, m_phyTxBeginTrace);
        if (!m_phyTxEndTrace.IsEmpty())
        {
            hotsim::Schedule(tx, &FabricNetDevice::TransmitComplete, this, ConstCast<const Packet>(p));
        }
    }
    m_channel->TransmitControl(frame, this, tx);
    ScheduleNext(m_txFreeAt, now);
    if (m_lateOffered)
    {
        FoldLateControl();
    }
}

void
FabricNetDevice::StartTransmission(Item& item, Time now)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << item.packet);
    uint8_t c = item.header.GetPriority();
    uint32_t wire = WireBytes(item.payloadBytes + kHdr, item.header);
    Time tx = SerializationTime(wire);
    Time end = now + tx;
    if (item.rxEnd > end)
    {
        // Cut-through: the last bit cannot leave before it has arrived.
        end = item.rxEnd;
    }
    // A network transfer unit's n link packets: one's serialization here
    // (0 for a packet that is not a unit).
    const uint32_t linkPackets = item.header.GetLinkPackets();
    const Time linkTime = linkPackets > 1 ? TimeStep(tx.GetTimeStep() / linkPackets) : Time();
    if (linkPackets > 1 && item.ingressPort != kNoPort && item.ingressPort != kFabricReductionIngress &&
        m_switch->GetPort(item.ingressPort)->PipelinesUnit(item.header))
    {
        // A unit taken in at its first link packet (PipelinesUnit): its last
        // link packet is stored before it is forwarded, so the last bit
        // leaves one link packet's serialization here after it came in.
        const Time last = item.rxEnd + linkTime;
        if (last > end)
        {
            end = last;
        }
    }
    // Busy from here on: the calls below may re-enter TryTransmit (a hairpin
    // port's own XON).
    m_txFreeAt = end;
    if (item.header.IsIntRequested() && m_switch && m_switch->StampsInt() && IntHeader::GrowthBytes(item.header) > 0)
    {
        // HPCC's INT at the egress (the HPCC simulator's SwitchNotifyDequeue):
        // departure time, the port's tx bytes with this packet (on the wire),
        // the queue it leaves behind, the port's rate.
        IntHeader::PushHop(item.packet, item.header, now, m_counters.txWireBytes + wire,
                           m_queuedBytes, m_rate);
    }
    if (m_ecn && !m_ecn->MarksAtEnqueue())
    {
        MarkIfCongested(item, m_queues[c]);
    }
    if (item.ingressPort != kNoPort)
    {
        m_switch->NotifyDequeued(item.ingressPort, c, item.ingressWireBytes);
    }
    if (m_linkUp)
    {
        m_fc->NotifyTransmit(c, wire); // into the void it takes no credit
    }
    ++m_counters.txPackets;
    m_counters.txTransportControl += item.header.IsTransportControl() ? 1 : 0;
    m_counters.txBytes += item.payloadBytes;
    m_counters.txWireBytes += wire;
    m_counters.busyTime += end - now;
    if (!m_phyTxBeginTrace.IsEmpty())
    {
        m_phyTxBeginTrace(item.packet); // a Ptr copy and a call: only if connected
    }
    Sniff(item.packet);
    // The channel times the arrival by headerTime only at a receiver that
    // takes a packet before its last bit (FabricChannel::Transmit asks the
    // same peer); elsewhere it is never read, so it is not computed (a
    // 128-bit division). A cut-through port takes the packet at its header;
    // a pipelining store-and-forward port takes a unit at the end of its
    // first link packet (its n link packets are of one size but a message's
    // last, whose shorter tail this spreads over the n).
    const Time headerTime = m_peer->IsCutThrough()      ? SerializationTime(std::min(wire, m_headerBytes))
                            : m_peer->PipelinesUnit(item.header) ? linkTime
                                                                : Time();
    FabricControlFrame frame;
    // A pending frame rides in this packet's framing: no transmitter time,
    // arrives with its last bit (the channel delivers it); in a unit, with
    // its first link packet (below).
    const bool ride =
        m_fc->CanPiggyback() && m_fc->HasControlFrame() && m_fc->TakeControlFrame(frame);
    if (ride)
    {
        ++m_counters.controlTx;
    }
    if (ride && linkPackets > 1)
    {
        // A unit stands for its link packets, and a flow-control frame goes
        // between packets (IB's flow-control packets, NVLink's flit
        // headers): it arrives with the unit's first link packet, not with
        // its last bit a whole unit later. Still at no wire cost (Piggyback).
        m_channel->TransmitControl(frame, this, linkTime);
        m_channel->Transmit(item.packet, item.header, this, end - now, headerTime, now, nullptr);
    }
    else
    {
        m_channel->Transmit(item.packet, item.header, this, end - now, headerTime, now, ride ? &frame : nullptr);
    }
    if (!m_phyTxEndTrace.IsEmpty())
    {
        hotsim::Schedule(end - now, &FabricNetDevice::TransmitComplete, this,
                            ConstCast<const Packet>(item.packet));
    }
    ScheduleNext(end, now);
    if (m_lateOffered)
    {
        FoldLateControl();
    }
}

void
FabricNetDevice::MarkIfCongested(Item& item, const ClassQueue& q)
{
    const uint64_t queued = m_ecn->QueueBytes(q.bytes, q.wireBytes);
    if (item.header.IsEctCapable() && m_ecn->ShouldMark(queued, item.header.GetLinkPackets()))
    {
        // Copy on write: the sender may still hold this packet for retransmission.
        Ptr<Packet> p = item.packet->Copy();
        FabricHeader old;
        p->RemoveHeader(old);
        item.header.SetEcn(FabricHeader::CE);
        p->AddHeader(FabricHeader(item.header));
        item.packet = p;
        ++m_counters.ecnMarks;
        m_ecnMarkTrace(p, queued);
    }
}

void
FabricNetDevice::TransmitComplete(Ptr<const Packet> packet)
{
    m_phyTxEndTrace(packet);
}

// ---------------------------------------------------------------- receiving

Time
FabricNetDevice::IngressPipelineLatency(const FabricHeaderFields& header) const
{
    if (!m_switch || !m_switch->PipelinesIngress(m_portIndex) || m_receiveErrorModel ||
        !m_phyRxEndTrace.IsEmpty() || !m_snifferTrace.IsEmpty() ||
        (m_switch->GetReduction() && FabricSwitchReduction::IsGroupAddress(header.GetDestination())))
    {
        return Time(0);
    }
    return m_switch->GetForwardingLatency();
}

void
FabricNetDevice::Receive(Ptr<Packet> packet, const FabricHeaderFields& header, Time rxEnd, Time arrival,
                         Time now)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << packet);
    SettleFoldedRx(now); // the silent arrivals before this one (endpoint ports only)
    if (!m_phyRxEndTrace.IsEmpty())
    {
        m_phyRxEndTrace(packet);
    }
    Sniff(packet);
    uint32_t payload = packet->GetSize() - kHdr;
    ++m_counters.rxPackets;
    m_counters.rxBytes += payload;
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(packet))
    {
        DropCorrupt(packet, header, payload);
        return;
    }
    if (m_switch)
    {
        const uint32_t wire = WireBytes(packet->GetSize(), header);
        m_switch->Receive(m_portIndex, std::move(packet), header, wire, rxEnd, arrival, now);
        return;
    }
    // An endpoint consumes at line rate: its buffer drains at once.
    m_fc->IngressFreed(header.GetPriority(), WireBytes(packet->GetSize(), header));
    if (!m_macRxTrace.IsEmpty())
    {
        m_macRxTrace(packet);
    }
    if (!m_fabricRx.IsNull())
    {
        m_fabricRx(this, packet, FabricHeader(header));
    }
    else if (!m_rxCallback.IsNull())
    {
        Ptr<Packet> q = packet->Copy();
        FabricHeader h;
        q->RemoveHeader(h);
        m_rxCallback(this, q, 0, AddressToMac(header.GetSource()));
    }
}

// ---------------------------------------------------------------- silent arrivals

void
FabricNetDevice::SetArrivalFolder(FabricArrivalFolder* folder)
{
    NS_LOG_FUNCTION(this << folder);
    if (!folder)
    {
        // The receiver is going away (its DoDispose): what it kept is gone with it.
        m_foldedRx.clear();
    }
    m_folder = folder;
    m_foldOff = false;
}

void
FabricNetDevice::SetFabricReceiveCallback(FabricRxCallback cb)
{
    if (m_folder && !cb.IsEqual(m_fabricRx))
    {
        // Another receiver in front (FabricReductionEndpoint): the folder
        // would no longer see every arrival.
        StopFolding();
    }
    m_fabricRx = cb;
}

void
FabricNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    if (em && m_folder)
    {
        // The packets on the wire meet it at their arrival.
        StopFolding();
    }
    m_receiveErrorModel = em;
}

bool
FabricNetDevice::FoldArrival(Ptr<Packet>& packet, const FabricHeaderFields& header, Time at, Time rxEnd,
                             uint64_t tie, uint64_t token, bool eligible, Time now)
{
    // What the port's Receive does besides the counters and handing the
    // packet up, none of it time-dependent only while nothing watches it:
    // no trace sink, no error model on the wire, no credit to return.
    if (!m_phyRxEndTrace.IsEmpty() || !m_snifferTrace.IsEmpty() || !m_macRxTrace.IsEmpty() ||
        m_receiveErrorModel || m_fc->CountsIngressFreed())
    {
        StopFolding();
        return false;
    }
    // Those that have arrived are applied now (the list stays short).
    SettleFoldedRx(now);
    uint32_t qp = 0;
    uint32_t len = 0;
    uint64_t psn = 0;
    if (!m_folder->JudgeArrival(packet, header, eligible, &qp, &len, &psn))
    {
        return false;
    }
    m_foldedRx.push_back(FoldedArrival{std::move(packet), header, at, rxEnd, tie, token, psn, qp, len});
    return true;
}

void
FabricNetDevice::ApplyFoldedRx(Time now)
{
    // Arrived: before now, or at now under a tie key before the running
    // event's (as TakeInArrived: keyed events of a picosecond run first,
    // in key order; an unkeyed running event comes after all of them).
    const uint64_t running = tie_keys::g_running;
    while (!m_foldedRx.empty())
    {
        FoldedArrival& f = m_foldedRx.front();
        if (f.at > now || (f.at == now && running <= f.tie))
        {
            break;
        }
        // FabricNetDevice::Receive's counters; its traces have no sink, the
        // flow control's IngressFreed does nothing (FoldArrival).
        ++m_counters.rxPackets;
        m_counters.rxBytes += f.packet->GetSize() - kHdr;
        m_folder->ApplyFolded(f.qp, f.len, f.psn, f.at);
        m_foldedRx.pop_front();
    }
}

void
FabricNetDevice::UnfoldRx()
{
    if (m_foldedRx.empty())
    {
        return;
    }
    const Time now = hotsim::Now();
    SettleFoldedRx(now);
    for (FoldedArrival& f : m_foldedRx)
    {
        m_channel->ScheduleUnfolded(this, std::move(f.packet), f.header, f.at, f.rxEnd, f.token, f.tie, now);
    }
    m_foldedRx.clear();
}

void
FabricNetDevice::StopFolding()
{
    m_foldOff = true;
    UnfoldRx();
}

void
FabricNetDevice::DropCorrupt(Ptr<Packet> packet, const FabricHeaderFields& header, uint32_t payload)
{
    NS_LOG_FUNCTION(this << packet);
    // The receiver's FCS/ICRC check fails: the packet is gone before any
    // buffer accounting. It counts as received (it left the wire, so the
    // conservation check does not see it in flight) and as a corrupt drop
    // (so it is not delivered). On a credit link its buffer space is
    // returned, as IB's flow-control packets resynchronise the blocks a
    // dropped packet consumed (FCTBS); without that a lost packet would
    // leak its credit for good.
    ++m_counters.drops;
    m_counters.dropBytes += payload;
    ++m_counters.dropsBy[kDropCorrupt];
    m_counters.dropBytesBy[kDropCorrupt] += payload;
    m_fc->IngressFreed(header.GetPriority(), WireBytes(packet->GetSize(), header));
    m_phyRxDropTrace(packet);
}

int64_t
FabricNetDevice::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    Ptr<RateErrorModel> rem = DynamicCast<RateErrorModel>(m_receiveErrorModel);
    if (!rem)
    {
        return 0;
    }
    return rem->AssignStreams(stream);
}

Ptr<Packet>
FabricNetDevice::ShowControlFrame(const FabricControlFrame& frame, TracedCallback<Ptr<const Packet>>& trace)
{
    Ptr<Packet> p = frame.ToPacket();
    trace(p);
    Sniff(p);
    return p;
}

void
FabricNetDevice::ReceiveControl(FabricControlFrame frame)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(frame.kind));
    if (m_lateOffered)
    {
        DropDueOffers(hotsim::Now()); // offered frames that were not folded: their events run
    }
    if (!m_snifferTrace.IsEmpty() || !m_phyRxEndTrace.IsEmpty())
    {
        ShowControlFrame(frame, m_phyRxEndTrace);
    }
    ++m_counters.controlRx;
    m_fc->ReceiveControl(frame);
}

void
FabricNetDevice::OfferLateControl(const FabricControlFrame& frame, Time at, uint64_t tie,
                                  const hotsim::ScheduledEvent& frameEvent, bool check)
{
    if (at <= hotsim::Now() || !MayFoldControl(frame))
    {
        return; // traces see it arrive
    }
    KeepOffer(LateOffer{frame, FabricFoldedArrival{at, tie}, frameEvent});
    if (check)
    {
        FoldLateControl();
    }
}

void
FabricNetDevice::KeepOffer(LateOffer&& offer)
{
    m_lateOffered = true;
    InsertInArrivalOrder(m_lateOffers, std::move(offer), [](const LateOffer& o) { return o.arrival; });
}

bool
FabricNetDevice::TakeControlEarly(FabricChannel* channel, const FabricControlFrame& frame, Time at, uint64_t token)
{
    const Time now = hotsim::Now();
    if (at <= now || !m_txPending || m_txWakeAt != m_txFreeAt || m_txFreeAt <= now)
    {
        return false;
    }
    if (m_txFreeAt > at)
    {
        // Busy past it (FoldLateControl's condition): counted from its
        // arrival on (FabricFlowControl::ReceiveControlAt, GetFoldedArrived).
        return m_fc->ReceiveControlAt(frame, FabricFoldedArrival{at, tie_keys::g_tie});
    }
    // The pending start at m_txFreeAt (< at) is sure to come (nothing
    // removes it while the port is busy) and ends in TryTransmit's idle
    // path, either in its own event or in an earlier one of that
    // picosecond that finds the port idle: ResolveDeferred runs there,
    // before the frame's arrival, where its event would have been scheduled
    // under the same key (a keyed event's uid orders nothing).
    // Not at m_txFreeAt == at: the frame's keyed event would run before
    // that unkeyed start, which then finds the credit the frame brings.
    if (m_txFreeAt == at || !tie_keys::g_ordered || tie_keys::g_lineage || tie_keys::g_tie == KeyedEvent::kNoKey)
    {
        return false;
    }
    LateOffer offer{frame, FabricFoldedArrival{at, tie_keys::g_tie}, hotsim::ScheduledEvent()};
    offer.channel = channel;
    offer.token = token;
    KeepOffer(std::move(offer));
    ++m_deferred;
    return true;
}

void
FabricNetDevice::ResolveDeferred(Time now)
{
    FoldLateControl(); // busy past them now: folded, without an event to remove
    const bool waits = m_txPending && m_txWakeAt == m_txFreeAt && m_txFreeAt > now;
    for (LateOffer& o : m_lateOffers)
    {
        if (!o.channel || (waits && m_txFreeAt < o.arrival.at))
        {
            continue; // has its event, or waits for the next start
        }
        const uint64_t outer = tie_keys::g_tie;
        tie_keys::g_tie = o.arrival.tie;
        o.event = o.channel->ScheduleFrameArrival(this, o.frame, o.arrival.at, o.token, now);
        tie_keys::g_tie = outer;
        o.channel = nullptr;
        --m_deferred;
    }
}

void
FabricNetDevice::DropDueOffers(Time now)
{
    if (m_lateOffers.empty() || m_lateOffers.front().arrival.at > now)
    {
        return;
    }
    size_t due = 0;
    while (due < m_lateOffers.size() && m_lateOffers[due].arrival.at <= now)
    {
        ++due;
    }
    m_lateOffers.erase(m_lateOffers.begin(), m_lateOffers.begin() + due);
    m_lateOffered = !m_lateOffers.empty();
}

void
FabricNetDevice::FoldLateControl()
{
    // Busy past a frame's arrival with m_txPending: the pending event is the
    // start at m_txFreeAt (a busy port schedules nothing else), which
    // nothing removes before then (only an idle TryTransmit does), so at
    // the frame's arrival ReceiveControl would find the port busy with its
    // event pending and its TryTransmit would return at once. No
    // TakeFromClass and no fast path runs on a busy port, so nothing reads
    // the budget before m_txFreeAt.
    //
    // The condition, once true, stays true until the frame's arrival, and
    // every change that can make it true calls this (StartTransmission,
    // StartControl, a start scheduled by a busy TryTransmit). So whether a
    // frame is folded does not depend on when it was offered, as long as
    // that is before its arrival: the frame is folded exactly when the
    // condition holds just before it arrives. This is what lets a frame be
    // offered when it is sent in one process and when its message is
    // received on an MPI rank, with the same events run in both.
    const Time now = hotsim::Now();
    DropDueOffers(now); // their events have run or run now
    if (!m_lateOffered || !m_txPending || m_txWakeAt != m_txFreeAt)
    {
        return;
    }
    size_t folded = 0;
    for (; folded < m_lateOffers.size() && m_lateOffers[folded].arrival.at < m_txFreeAt; ++folded)
    {
        LateOffer& o = m_lateOffers[folded];
        // Counted from its arrival on: the flow control's budget
        // (ReceiveControlAt) and controlRx (GetFoldedArrived), and not at
        // all if the link goes down before, so that every counter is the
        // unfolded run's at every instant.
        if (!m_fc->ReceiveControlAt(o.frame, o.arrival))
        {
            break; // not a frame the flow control holds: its event runs
        }
        if (o.channel)
        {
            --m_deferred; // no event yet
        }
        else
        {
            hotsim::RemovePending(o.event);
        }
    }
    m_lateOffers.erase(m_lateOffers.begin(), m_lateOffers.begin() + folded);
    m_lateOffered = !m_lateOffers.empty();
}

void
FabricNetDevice::ReceiveWithControl(Ptr<Packet> packet, const FabricHeaderFields& header, Time rxEnd,
                                    const FabricControlFrame& frame, Time now)
{
    Receive(packet, header, rxEnd, now);
    ReceiveControl(frame);
}

// ---------------------------------------------------------------- state

void
FabricNetDevice::NotifyPauseState(uint8_t cls, bool paused)
{
    NS_LOG_FUNCTION(this << unsigned(cls) << paused);
    uint8_t bit = uint8_t(1u << cls);
    if (paused && !(m_pausedMask & bit))
    {
        m_pausedMask |= bit;
        m_pauseStart[cls] = hotsim::Now();
        m_pfcPauseTrace(cls);
    }
    else if (!paused && (m_pausedMask & bit))
    {
        m_pausedMask &= uint8_t(~bit);
        m_counters.pausedTime += hotsim::Now() - m_pauseStart[cls];
        m_pfcResumeTrace(cls);
    }
}

void
FabricNetDevice::CountPfcFrameSent(bool pause)
{
    NS_LOG_FUNCTION(this << pause);
    if (pause)
    {
        ++m_counters.pausesSent;
    }
    else
    {
        ++m_counters.resumesSent;
    }
}

void
FabricNetDevice::CountDrop(Ptr<const Packet> packet, uint32_t payloadBytes, FabricDropCause cause)
{
    NS_LOG_FUNCTION(this << packet << payloadBytes << unsigned(cause));
    ++m_counters.drops;
    m_counters.dropBytes += payloadBytes;
    ++m_counters.dropsBy[cause];
    m_counters.dropBytesBy[cause] += payloadBytes;
    m_macTxDropTrace(packet);
}

void
FabricNetDevice::LoseOnLink(Ptr<Packet> packet, const FabricHeaderFields& header, bool charged)
{
    NS_LOG_FUNCTION(this << packet << charged);
    const uint32_t payload = packet->GetSize() - kHdr;
    ++m_counters.drops;
    m_counters.dropBytes += payload;
    ++m_counters.dropsBy[kDropLinkDown];
    m_counters.dropBytesBy[kDropLinkDown] += payload;
    m_counters.lostOnLinkBytes += payload;
    if (charged)
    {
        // The peer took credit for it: the buffer it would have used is free.
        m_fc->IngressFreed(header.GetPriority(), WireBytes(packet->GetSize(), header));
    }
    m_phyRxDropTrace(packet);
}

void
FabricNetDevice::NotifyLinkState(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up == m_linkUp)
    {
        return;
    }
    m_linkUp = up;
    if (!up && m_folder)
    {
        // What is on the wire is lost (its events find the token changed),
        // and the folder's account of what will arrive no longer holds.
        StopFolding();
    }
    // An offered frame still on the wire is lost with the link (its own
    // event finds the link's token changed); never fold it. A folded one
    // still on the wire is lost too, and never counted in controlRx (the
    // flow control drops it, at its own arrival picosecond as its event
    // would have been ordered: FabricCreditFlowControl::NotifyLinkState).
    m_lateOffered = false;
    m_lateOffers.clear(); // a deferred frame too: lost on the wire
    m_deferred = 0;
    m_fc->NotifyLinkState(up);
    TryTransmit();
}

FabricPortCounters
FabricNetDevice::GetCounters() const
{
    if (m_switch)
    {
        m_switch->SettleArrived(); // packets taken in early count here and at their egress once arrived
    }
    const_cast<FabricNetDevice*>(this)->SettleFoldedRx(); // silent arrivals count once arrived
    FabricPortCounters c = m_counters;
    c.controlRx += m_fc->GetFoldedArrived(); // frames folded into the flow control that have arrived
    for (uint8_t k = 0; k < kFabricClasses; ++k)
    {
        if ((m_pausedMask >> k) & 1u)
        {
            c.pausedTime += hotsim::Now() - m_pauseStart[k];
        }
    }
    return c;
}

uint8_t
FabricNetDevice::GetBlockedClasses() const
{
    Settle();
    uint8_t mask = 0;
    if (!m_linkUp)
    {
        return mask; // a dead link blocks nothing (TakeFromClass)
    }
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        uint64_t budget = m_fc->GetSendBudget(c);
        const ClassQueue& q = m_queues[c];
        bool blocked = budget == 0 ||
                       (!q.items.empty() && WireBytes(q.items.front().payloadBytes + kHdr, q.items.front().header) > budget);
        if (blocked)
        {
            mask |= uint8_t(1u << c);
        }
    }
    return mask;
}

// ---------------------------------------------------------------- NetDevice

Mac48Address
FabricNetDevice::AddressToMac(uint32_t address)
{
    uint8_t mac[6] = {0x02, 0x00, uint8_t(address >> 24), uint8_t(address >> 16),
                      uint8_t(address >> 8), uint8_t(address)};
    Mac48Address m;
    m.CopyFrom(mac);
    return m;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    NS_LOG_FUNCTION(this << address);
    uint8_t mac[6];
    Mac48Address::ConvertFrom(address).CopyTo(mac);
    m_address = (uint32_t(mac[2]) << 24) | (uint32_t(mac[3]) << 16) | (uint32_t(mac[4]) << 8) |
                mac[5];
}

Address
FabricNetDevice::GetAddress() const
{
    return AddressToMac(m_address);
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    NS_LOG_FUNCTION(this << mtu);
    if (mtu == 0)
    {
        return false;
    }
    m_mtu = mtu;
    return true;
}

void
FabricNetDevice::SetMaxPayloadBytes(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    if (bytes == 0)
    {
        throw std::invalid_argument("FabricNetDevice max payload: expected > 0 bytes");
    }
    m_mtu = bytes;
}

uint32_t
FabricNetDevice::MaxFrameWireBytes() const
{
    // A unit is framed as its link packets (WireBytes with the packet's
    // count): the largest has m_unitLinkPackets framings.
    FabricHeaderFields h;
    h.SetLinkPackets(m_unitLinkPackets);
    return WireBytes(m_mtu + kHdr, h);
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_channel && m_peer && m_linkUp;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address("ff:ff:ff:ff:ff:ff");
}

Address
FabricNetDevice::GetMulticast(Ipv4Address) const
{
    return Mac48Address("01:00:5e:00:00:00");
}

Address
FabricNetDevice::GetMulticast(Ipv6Address) const
{
    return Mac48Address("33:33:00:00:00:00");
}

bool
FabricNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << packet << dest);
    uint8_t mac[6];
    Mac48Address::ConvertFrom(dest).CopyTo(mac);
    uint32_t dst = (uint32_t(mac[2]) << 24) | (uint32_t(mac[3]) << 16) |
                   (uint32_t(mac[4]) << 8) | mac[5];
    return SendFabric(packet, FabricHeader(m_address, dst, 0, 0));
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> packet, const Address&, const Address& dest, uint16_t proto)
{
    return Send(packet, dest, proto);
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    NS_LOG_FUNCTION(this << node);
    m_node = node;
    m_nodeId = node ? node->GetId() : 0;
}

} // namespace ns3
