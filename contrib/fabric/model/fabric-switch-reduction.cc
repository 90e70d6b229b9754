// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-switch-reduction.h"
#include "fast-simulator-impl.h"

#include "fabric-net-device.h"
#include "fabric-switch.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricSwitchReduction");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitchReduction);

namespace
{
constexpr uint32_t kHdr = FabricHeader::kSerializedSize;
}

DataRate
NvlsReductionRate(DataRate laneRate)
{
    // GB/s per NVLink of NCCL's graph search (topo.h: SM90 20.6, SM100 40.1),
    // 18 links per GPU, nvlsEfficiency (Hopper 0.85, Blackwell 0.74), 8/9.
    auto rate = [](double perLinkGBps, double efficiency) {
        return DataRate(static_cast<uint64_t>(18 * perLinkGBps * efficiency * 8.0 / 9.0 * 8e9 + 0.5));
    };
    if (laneRate == DataRate("25GB/s"))
    {
        return rate(20.6, 0.85);
    }
    if (laneRate == DataRate("50GB/s"))
    {
        return rate(40.1, 0.74);
    }
    return DataRate(0);
}

TypeId
FabricSwitchReduction::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSwitchReduction")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricSwitchReduction>()
            .AddAttribute("ReductionLatency",
                          "Time from the absorption of a slot's last contribution to the earliest start of "
                          "its sum at the egress, on top of the switch's ForwardingLatency (assumption: the "
                          "adders are pipelined with the crossbar; NVIDIA publishes no figure).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricSwitchReduction::m_latency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ReductionRate",
                          "Rate at which one ingress port's reduction unit absorbs contributions "
                          "(payload bytes); 0 = at once (the link bounds). The topology builder sets "
                          "NVSwitch's from NCCL's NVLS bandwidth model (fabric.md, In-switch reduction).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&FabricSwitchReduction::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("ReductionBufferBytes",
                          "Accumulator bytes for sums in progress (a slot is held from its first "
                          "contribution until the last copy of its sum left); assumption: 4 MiB.",
                          UintegerValue(4 * 1024 * 1024),
                          MakeUintegerAccessor(&FabricSwitchReduction::m_bufferBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddTraceSource("Reduced",
                            "A sum is complete: group, packet index, payload bytes, sources reduced.",
                            MakeTraceSourceAccessor(&FabricSwitchReduction::m_reducedTrace),
                            "ns3::FabricSwitchReduction::ReducedTracedCallback");
    return tid;
}

FabricSwitchReduction::FabricSwitchReduction() = default;
FabricSwitchReduction::~FabricSwitchReduction() = default;

void
FabricSwitchReduction::DoDispose()
{
    m_switch = nullptr;
    m_groups.clear();
    m_slots.clear();
    m_queues.clear();
    Object::DoDispose();
}

uint32_t
FabricSwitchReduction::GroupAddress(uint32_t group)
{
    if (group >= (kFabricNoAddress - kFabricGroupAddressBase))
    {
        throw std::invalid_argument("reduction group: expected an id below 2^28 - 1, got " + std::to_string(group));
    }
    return kFabricGroupAddressBase + group;
}

bool
FabricSwitchReduction::IsGroupAddress(uint32_t address)
{
    return address >= kFabricGroupAddressBase && address != kFabricNoAddress;
}

void
FabricSwitchReduction::SetSwitch(FabricSwitch* sw)
{
    m_switch = sw;
}

void
FabricSwitchReduction::AddGroup(uint32_t group,
                                const std::vector<uint32_t>& sourcePorts,
                                const std::vector<uint32_t>& receiverPorts,
                                const std::vector<uint32_t>& receiverAddresses,
                                uint64_t bytes)
{
    NS_LOG_FUNCTION(this << group << sourcePorts.size() << receiverPorts.size() << bytes);
    GroupAddress(group); // range check
    if (sourcePorts.empty() || receiverPorts.empty() || receiverPorts.size() != receiverAddresses.size() ||
        bytes == 0)
    {
        throw std::invalid_argument("reduction group " + std::to_string(group) +
                                    ": expected sources, receivers with one address each, and bytes > 0");
    }
    for (uint32_t p : sourcePorts)
    {
        for (uint32_t q : receiverPorts)
        {
            if (!m_switch || p >= m_switch->GetNPorts() || q >= m_switch->GetNPorts())
            {
                throw std::invalid_argument("reduction group " + std::to_string(group) +
                                            ": expected ports of the switch");
            }
        }
    }
    if (HasGroup(group))
    {
        throw std::invalid_argument("reduction group " + std::to_string(group) + " is already in progress");
    }
    Group& g = m_groups[group];
    g.sources = sourcePorts;
    g.receivers = receiverPorts;
    g.addresses = receiverAddresses;
    g.bytes = bytes;
}

bool
FabricSwitchReduction::HasGroup(uint32_t group) const
{
    return m_groups.count(group) > 0;
}

void
FabricSwitchReduction::Receive(uint32_t inPort, Ptr<Packet> packet, const FabricHeader& header,
                               uint32_t inWireBytes, Time rxEnd)
{
    NS_LOG_FUNCTION(this << inPort << packet);
    const uint32_t payload = packet->GetSize() - kHdr;
    const uint32_t group = header.GetDestination() - kFabricGroupAddressBase;
    auto it = m_groups.find(group);
    const bool member = it != m_groups.end() && std::find(it->second.sources.begin(), it->second.sources.end(),
                                                          inPort) != it->second.sources.end();
    if (!member)
    {
        NS_LOG_LOGIC("no reduction group " << group << " with a source on port " << inPort);
        m_switch->GetPort(inPort)->CountDrop(packet, payload, kDropNoRoute);
        return;
    }
    if (!m_switch->GetBuffer()->Admit(inPort, header.GetPriority(), inWireBytes))
    {
        m_switch->GetPort(inPort)->CountDrop(packet, payload, kDropBuffer);
        return;
    }
    const uint32_t index = it->second.nextIndex[inPort]++;
    m_counters.heldBytes += payload;
    m_queues[inPort].push_back(Waiting{packet, header, inWireBytes, index, rxEnd});
    TryAbsorb(inPort);
}

uint32_t
FabricSwitchReduction::SlotFor(Group& g, uint32_t group, uint32_t index, uint32_t bytes, uint8_t cls, bool& created)
{
    auto s = g.slots.find(index);
    created = s == g.slots.end();
    if (!created)
    {
        return s->second;
    }
    const uint32_t id = m_nextSlot++;
    m_slots[id] = Slot{group, index, bytes, cls, 0, 0};
    g.slots[index] = id;
    m_used += bytes;
    return id;
}

void
FabricSwitchReduction::TryAbsorb(uint32_t port)
{
    auto q = m_queues.find(port);
    if (q == m_queues.end() || q->second.empty() || m_busy[port])
    {
        return;
    }
    const Waiting& w = q->second.front();
    const uint32_t group = w.header.GetDestination() - kFabricGroupAddressBase;
    Group& g = m_groups.at(group);
    const uint32_t bytes = w.packet->GetSize() - kHdr;
    // A new slot needs accumulator room; an empty accumulator takes any
    // packet (else one larger than the buffer would wait for ever).
    if (g.slots.count(w.index) == 0 && m_used > 0 && m_used + bytes > m_bufferBytes)
    {
        return; // CopyDeparted retries when room frees
    }
    bool created = false;
    SlotFor(g, group, w.index, bytes, w.header.GetPriority(), created);
    m_busy[port] = true;
    const Time now = hotsim::Now();
    Time done = now + (m_rate.GetBitRate() > 0 ? m_rate.CalculateBytesTxTime(bytes) : Time(0));
    done = std::max(done, w.rxEnd);
    hotsim::Schedule(done - now, &FabricSwitchReduction::Absorbed, this, port);
}

void
FabricSwitchReduction::Absorbed(uint32_t port)
{
    std::deque<Waiting>& q = m_queues[port];
    Waiting w = q.front();
    q.pop_front();
    m_busy[port] = false;
    const uint32_t bytes = w.packet->GetSize() - kHdr;
    const uint32_t group = w.header.GetDestination() - kFabricGroupAddressBase;
    Group& g = m_groups.at(group);
    const uint32_t id = g.slots.at(w.index);
    Slot& s = m_slots.at(id);
    m_counters.heldBytes -= bytes;
    ++m_counters.contributions;
    m_counters.consumedBytes += bytes;
    ++s.absorbed;
    // The contribution is in the accumulator: its ingress buffer and credit are free.
    m_switch->NotifyDequeued(port, w.header.GetPriority(), w.inWireBytes);
    if (s.absorbed == g.sources.size())
    {
        ++m_counters.reductions;
        m_reducedTrace(group, s.index, s.bytes, s.absorbed);
        hotsim::Schedule(m_switch->GetForwardingLatency() + m_latency, &FabricSwitchReduction::Emit, this, id);
    }
    TryAbsorb(port);
}

void
FabricSwitchReduction::Emit(uint32_t id)
{
    Slot& s = m_slots.at(id);
    const Group& g = m_groups.at(s.group);
    s.copiesLeft = static_cast<uint32_t>(g.receivers.size());
    const Time now = hotsim::Now();
    // Copy what is needed first: a copy may start at once and, as the last
    // to leave, free the slot (CopyDeparted) while this loop runs.
    const std::vector<uint32_t> receivers = g.receivers;
    const std::vector<uint32_t> addresses = g.addresses;
    const uint32_t bytes = s.bytes;
    const uint32_t group = s.group;
    const uint8_t cls = s.cls;
    for (size_t i = 0; i < receivers.size(); ++i)
    {
        FabricHeader h(GroupAddress(group), addresses[i], group, cls);
        Ptr<Packet> p = Create<Packet>(bytes);
        p->AddHeader(h);
        ++m_counters.copies;
        m_counters.replicatedBytes += bytes;
        m_switch->GetPort(receivers[i])->EnqueueForwarded(p, h, kFabricReductionIngress, id, now, now, now);
    }
}

void
FabricSwitchReduction::CopyDeparted(uint32_t id)
{
    auto it = m_slots.find(id);
    if (it == m_slots.end())
    {
        return;
    }
    Slot& s = it->second;
    if (--s.copiesLeft > 0)
    {
        return;
    }
    m_used -= s.bytes;
    auto g = m_groups.find(s.group);
    g->second.slots.erase(s.index);
    g->second.bytesOut += s.bytes;
    if (g->second.bytesOut >= g->second.bytes)
    {
        m_groups.erase(g);
    }
    m_slots.erase(it);
    for (auto& [port, q] : m_queues)
    {
        if (!q.empty())
        {
            TryAbsorb(port);
        }
    }
}

FabricReductionCounters
FabricSwitchReduction::GetCounters() const
{
    return m_counters;
}

} // namespace ns3
