// SPDX-License-Identifier: GPL-2.0-only
//
// The analytic channel: devices, routes, the delivery queue and the
// none/endpoint contention policies. The shared policy's fluid max-min model
// is in analytic-channel-flows.cc.
#include "analytic-channel.h"

#include "analytic-net-device.h"
#include "input-error.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node-container.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyAnalyticChannel");
NS_OBJECT_ENSURE_REGISTERED(AnalyticChannel);

TypeId
AnalyticChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AnalyticChannel")
            .SetParent<Channel>()
            .SetGroupName("Analytic")
            .AddConstructor<AnalyticChannel>()
            .AddAttribute("Model",
                          "The algebra that prices each message (an AlphaBetaModel or a LogGpModel).",
                          PointerValue(),
                          MakePointerAccessor(&AnalyticChannel::SetModel, &AnalyticChannel::GetModel),
                          MakePointerChecker<AnalyticModel>())
            .AddAttribute("ContentionPolicy",
                          "none: messages independent (pure algebra); endpoint: each device sends "
                          "and receives one message at a time; shared: max-min fair sharing of the "
                          "links on routed paths.",
                          EnumValue(NONE),
                          MakeEnumAccessor(&AnalyticChannel::SetContentionPolicy,
                                           &AnalyticChannel::GetContentionPolicy),
                          MakeEnumChecker(NONE, "none", ENDPOINT, "endpoint", SHARED, "shared"))
            .AddTraceSource("MessageSent",
                            "A message was handed to the channel.",
                            MakeTraceSourceAccessor(&AnalyticChannel::m_sentTrace),
                            "ns3::AnalyticChannel::SentTracedCallback")
            .AddTraceSource("MessageDelivered",
                            "A message was delivered; the second argument is the time it took.",
                            MakeTraceSourceAccessor(&AnalyticChannel::m_deliveredTrace),
                            "ns3::AnalyticChannel::DeliveredTracedCallback");
    return tid;
}

AnalyticChannel::AnalyticChannel()
    : m_policy(NONE),
      m_nextId(0),
      m_delivered(0),
      m_bytesDelivered(0),
      m_slotCount(0),
      m_deliveryGeneration(0),
      m_deliveryScheduled(false),
      m_deliveryEventTicks(0)
{
}

AnalyticChannel::~AnalyticChannel() = default;

void
AnalyticChannel::DoDispose()
{
    m_completion.Cancel();
    m_recompute.Cancel();
    ++m_deliveryGeneration;
    m_deliveryScheduled = false;
    m_pending.Clear();
    // Events still queued in the simulator keep themselves alive by its
    // reference and find a stale generation when they run.
    m_deliveryEvents.clear();
    m_slotChunks.clear();
    m_slotCount = 0;
    m_freeSlots.clear();
    m_devices.clear();
    m_contexts.clear();
    m_model = nullptr;
    m_flows.clear();
    m_perMessage.clear();
    m_deliveryCallback = nullptr;
    Channel::DoDispose();
}

uint32_t
AnalyticChannel::Attach(Ptr<AnalyticNetDevice> device)
{
    m_devices.push_back(device);
    m_contexts.push_back(Simulator::NO_CONTEXT);
    m_endpoint.emplace_back();
    return static_cast<uint32_t>(m_devices.size() - 1);
}

std::vector<Ptr<AnalyticNetDevice>>
AnalyticChannel::Install(const NodeContainer& nodes)
{
    std::vector<Ptr<AnalyticNetDevice>> devices;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<AnalyticNetDevice> d = CreateObject<AnalyticNetDevice>();
        nodes.Get(i)->AddDevice(d);
        d->Attach(this);
        devices.push_back(d);
    }
    return devices;
}

void
AnalyticChannel::SetModel(Ptr<AnalyticModel> model)
{
    m_model = model;
}

Ptr<AnalyticModel>
AnalyticChannel::GetModel() const
{
    return m_model;
}

void
AnalyticChannel::SetContentionPolicy(ContentionPolicy policy)
{
    m_policy = policy;
}

AnalyticChannel::ContentionPolicy
AnalyticChannel::GetContentionPolicy() const
{
    return m_policy;
}

void
AnalyticChannel::SetRoute(uint32_t src, uint32_t dst, const std::vector<AnalyticLink>& links)
{
    Route route;
    for (size_t k = 0; k < links.size(); ++k)
    {
        const AnalyticLink& l = links[k];
        const std::string field = "route[" + std::to_string(src) + "->" + std::to_string(dst) + "].links[" +
                                  std::to_string(k) + "]";
        const double bw = static_cast<double>(l.bandwidth.GetBitRate()) / 8.0;
        if (!(bw > 0))
        {
            throw InputError(field + ".bandwidth", "expected a bandwidth > 0");
        }
        if (l.latency.IsStrictlyNegative())
        {
            throw InputError(field + ".latency", "expected a latency >= 0");
        }
        auto it = m_linkIndex.find(l.id);
        uint32_t index;
        if (it == m_linkIndex.end())
        {
            index = static_cast<uint32_t>(m_linkBandwidth.size());
            m_linkIndex[l.id] = index;
            m_linkBandwidth.push_back(bw);
        }
        else
        {
            index = it->second;
            if (m_linkBandwidth[index] != bw)
            {
                throw InputError(field + ".bandwidth",
                                 "expected the bandwidth link " + std::to_string(l.id) + " was given before");
            }
        }
        route.links.push_back(index);
        route.latencySeconds += TimeToSeconds(l.latency);
    }
    m_routes[(static_cast<uint64_t>(src) << 32) | dst] = std::move(route);
}

void
AnalyticChannel::SetDeliveryCallback(DeliveryCallback cb)
{
    m_deliveryCallback = std::move(cb);
}

uint32_t
AnalyticChannel::ContextOf(uint32_t device) const
{
    uint32_t& ctx = m_contexts[device];
    if (ctx == Simulator::NO_CONTEXT)
    {
        // A device may be given its node after it joined the channel.
        Ptr<Node> node = m_devices[device]->GetNode();
        if (node)
        {
            ctx = node->GetId();
        }
    }
    return ctx;
}

uint64_t
AnalyticChannel::SendMessage(uint32_t src,
                             uint32_t dst,
                             uint64_t bytes,
                             DeliveryCallback onDelivered,
                             Ptr<Packet> packet,
                             uint16_t protocol)
{
    NS_ABORT_MSG_IF(src >= m_devices.size() || dst >= m_devices.size(),
                    "AnalyticChannel::SendMessage: device " << src << " -> " << dst << " on a channel of "
                                                            << m_devices.size() << " devices");
    NS_ABORT_MSG_IF(!m_model, "AnalyticChannel: no Model set");
    // The pure algebra writes the message straight into the slot it waits in
    // (no copy per message); the other policies hold it elsewhere first.
    AnalyticMessage local;
    const uint32_t slot = m_policy == NONE ? NewSlot() : 0;
    AnalyticMessage& msg = m_policy == NONE ? Slot(slot) : local;
    msg.id = m_nextId++;
    msg.src = src;
    msg.dst = dst;
    msg.bytes = bytes;
    msg.sendTime = Simulator::Now();
    msg.deliveryTime = Time();
    msg.packet = std::move(packet);
    msg.protocol = protocol;
    if (onDelivered)
    {
        m_perMessage.emplace(msg.id, std::move(onDelivered));
    }
    if (!m_sentTrace.IsEmpty())
    {
        m_sentTrace(msg);
    }
    const uint64_t id = msg.id;

    switch (m_policy)
    {
    case NONE: {
        Time took;
        try
        {
            took = SecondsToTime(m_model->GetMessageSeconds(bytes));
        }
        catch (...)
        {
            msg.packet = nullptr;
            m_freeSlots.push_back(slot);
            throw;
        }
        QueueSlot(slot, dst, msg.sendTime + took, msg.sendTime);
        break;
    }
    case ENDPOINT: {
        // Sender side now, receiver side at the arrival (arrivals from several
        // senders are served in arrival order).
        const EndpointTiming t = m_model->GetEndpointTiming(bytes);
        EndpointState& s = m_endpoint[src];
        const Time cpuEnd = std::max(msg.sendTime, s.cpuFree) + SecondsToTime(t.senderCpuSeconds);
        s.cpuFree = cpuEnd;
        const Time injectStart = std::max(cpuEnd, s.nicFree);
        s.nicFree = injectStart + SecondsToTime(t.injectionSeconds);
        const Time arrival = injectStart + SecondsToTime(t.flightSeconds);
        Simulator::ScheduleWithContext(ContextOf(dst),
                                       arrival - msg.sendTime,
                                       &AnalyticChannel::EndpointArrive,
                                       this,
                                       msg,
                                       t);
        break;
    }
    case SHARED:
        StartFlow(msg);
        break;
    }
    return id;
}

uint32_t
AnalyticChannel::NewSlot()
{
    if (!m_freeSlots.empty())
    {
        const uint32_t slot = m_freeSlots.back();
        m_freeSlots.pop_back();
        // With many messages in flight a reused slot is a cache miss; fetch the
        // one the eighth send from now will write (a send takes less than a
        // memory access).
        constexpr std::size_t kAhead = 8;
        if (m_freeSlots.size() >= kAhead)
        {
            __builtin_prefetch(&Slot(m_freeSlots[m_freeSlots.size() - kAhead]), 1);
        }
        return slot;
    }
    if ((m_slotCount >> kSlotChunkBits) == m_slotChunks.size())
    {
        m_slotChunks.emplace_back(new SlotCell[std::size_t(1) << kSlotChunkBits]);
    }
    return m_slotCount++;
}

void
AnalyticChannel::ScheduleDelivery(AnalyticMessage msg, Time deliveryTime)
{
    const uint32_t slot = NewSlot();
    const uint32_t dst = msg.dst;
    Slot(slot) = std::move(msg);
    QueueSlot(slot, dst, deliveryTime, Simulator::Now());
}

void
AnalyticChannel::QueueSlot(uint32_t slot, uint32_t dst, Time deliveryTime, Time now)
{
    const int64_t at = deliveryTime.GetTimeStep();
    const bool queued = m_pending.Push(DeliveryQueue::Entry{at, slot, ContextOf(dst)});
    NS_ABORT_MSG_IF(!queued, "AnalyticChannel: a delivery before the last one delivered");
    if (m_deliveryScheduled && at >= m_deliveryEventTicks)
    {
        return; // the pending event comes first
    }
    ++m_deliveryGeneration;
    ScheduleNextDelivery(now);
}

AnalyticChannel::DeliveryEvent*
AnalyticChannel::FreeDeliveryEvent()
{
    // An event the simulator no longer holds has only our reference left.
    for (const Ptr<DeliveryEvent>& e : m_deliveryEvents)
    {
        if (e->GetReferenceCount() == 1)
        {
            return PeekPointer(e);
        }
    }
    m_deliveryEvents.push_back(Create<DeliveryEvent>(this));
    return PeekPointer(m_deliveryEvents.back());
}

void
AnalyticChannel::ScheduleNextDelivery(Time now)
{
    const DeliveryQueue::Entry& head = m_pending.Peek();
    // Fetch the message while the simulator works its way to the event: at 1e5
    // messages in flight reading the slot was most of the delivery's cost.
    __builtin_prefetch(&Slot(head.slot));
    m_deliveryEventTicks = head.ticks;
    m_deliveryScheduled = true;
    DeliveryEvent* event = FreeDeliveryEvent();
    event->SetGeneration(m_deliveryGeneration);
    event->Ref(); // the simulator's reference, released after the event ran
    Simulator::ScheduleWithContext(head.context, Time(head.ticks) - now, event);
}

void
AnalyticChannel::DeliverNext(uint64_t generation)
{
    if (generation != m_deliveryGeneration)
    {
        return; // superseded by an earlier delivery
    }
    m_deliveryScheduled = false;
    // Deliver every message due now in this context (equal sizes finish together
    // in a collective step): one simulator event for all of them.
    const uint32_t context = Simulator::GetContext();
    const DeliveryQueue::Entry* due;
    Time now;
    do
    {
        const DeliveryQueue::Entry e = m_pending.Pop();
        now = Time(e.ticks);
        // By reference: slots never move, and this one is reused only after.
        AnalyticMessage& msg = Slot(e.slot);
        Deliver(msg, now);
        if (msg.packet)
        {
            msg.packet = nullptr;
        }
        m_freeSlots.push_back(e.slot);
        // Entries due now come next in the queue; the context rides along in
        // the entry so that this test reads no message.
        due = m_pending.DueNow();
    } while (!m_deliveryScheduled && due && due->context == context);
    if (!m_pending.Empty() && !m_deliveryScheduled)
    {
        ScheduleNextDelivery(now);
    }
}

void
AnalyticChannel::EndpointArrive(AnalyticMessage msg, EndpointTiming t)
{
    EndpointState& r = m_endpoint[msg.dst];
    const Time now = Simulator::Now();
    const Time streamEnd = std::max(now, r.rxNicFree + SecondsToTime(t.receiveStreamSeconds));
    r.rxNicFree = streamEnd;
    const Time delivery = std::max(streamEnd, r.rxCpuFree) + SecondsToTime(t.receiverCpuSeconds);
    r.rxCpuFree = delivery;
    ScheduleDelivery(std::move(msg), delivery);
}

void
AnalyticChannel::Deliver(AnalyticMessage& msg, Time now)
{
    msg.deliveryTime = now;
    ++m_delivered;
    m_bytesDelivered += msg.bytes;
    if (!m_deliveredTrace.IsEmpty())
    {
        m_deliveredTrace(msg, msg.deliveryTime - msg.sendTime);
    }
    if (msg.packet)
    {
        m_devices[msg.dst]->Receive(msg); // a device has nothing to do without a packet
    }
    if (m_deliveryCallback)
    {
        m_deliveryCallback(msg);
    }
    if (!m_perMessage.empty())
    {
        auto it = m_perMessage.find(msg.id);
        if (it != m_perMessage.end())
        {
            DeliveryCallback cb = std::move(it->second);
            m_perMessage.erase(it);
            cb(msg);
        }
    }
}


size_t
AnalyticChannel::GetActiveFlows() const
{
    return m_flows.size();
}

uint64_t
AnalyticChannel::GetMessagesSent() const
{
    return m_nextId;
}

uint64_t
AnalyticChannel::GetMessagesDelivered() const
{
    return m_delivered;
}

uint64_t
AnalyticChannel::GetBytesDelivered() const
{
    return m_bytesDelivered;
}

Ptr<AnalyticNetDevice>
AnalyticChannel::GetAnalyticDevice(uint32_t i) const
{
    return m_devices.at(i);
}

int32_t
AnalyticChannel::FindDevice(const Address& address) const
{
    for (size_t i = 0; i < m_devices.size(); ++i)
    {
        if (m_devices[i]->GetAddress() == address)
        {
            return static_cast<int32_t>(i);
        }
    }
    return -1;
}

std::size_t
AnalyticChannel::GetNDevices() const
{
    return m_devices.size();
}

Ptr<NetDevice>
AnalyticChannel::GetDevice(std::size_t i) const
{
    return m_devices.at(i);
}

} // namespace ns3
