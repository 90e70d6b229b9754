// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-switch.h"
#include "fast-simulator-impl.h"

#include "attribute-defaults.h"
#include "ecn-marker.h"
#include "fabric-channel.h"
#include "fabric-log.h"
#include "fabric-net-device.h"
#include "input-error.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

namespace
{
uint64_t
Mix(uint64_t x)
{
    // splitmix64 finalizer: every input bit affects every output bit, so
    // neighbouring flow ids spread evenly.
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
} // namespace

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSwitch")
            .SetParent<Node>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricSwitch>()
            .AddAttribute("ForwardingLatency",
                          "Time from a packet's reception (last bit, or header when "
                          "cut-through) to the earliest start at the egress.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricSwitch::m_latency),
                          MakeTimeChecker(Time(0)))
            // Switch ASICs run a packet through an ingress pipeline (parser,
            // lookup) before the MMU admits its cells to the shared buffer and
            // the egress schedules it: doc/fabric.md, "Modelling choices made
            // for speed".
            .AddAttribute("IngressPipeline",
                          "Where ForwardingLatency is spent: None = the packet is charged to "
                          "the buffer, checked (PFC, ECN, INT) and queued at its arrival and "
                          "may start ForwardingLatency later (two events a hop); CreditPorts "
                          "(default) = on ports with credit flow control (NVLink, InfiniBand, "
                          "PCIe) the same model in one event a hop: the packet is routed and "
                          "charged when it is sent (credit admission does not depend on the "
                          "time), joins the egress queue at its arrival as before, and the "
                          "hop's one event is at its ready time (identical results); elsewhere "
                          "as None; AllPorts = also on PFC ports, taken in ForwardingLatency "
                          "after the arrival (an ingress pipeline before the buffer; PFC headroom "
                          "grown by rate x ForwardingLatency: a model change for PFC, ECN and INT).",
                          EnumValue(PIPELINE_CREDIT_PORTS),
                          MakeEnumAccessor(&FabricSwitch::m_pipeline),
                          MakeEnumChecker(PIPELINE_NONE, "None", PIPELINE_CREDIT_PORTS, "CreditPorts",
                                          PIPELINE_ALL_PORTS, "AllPorts"))
            .AddAttribute("CutThrough",
                          "Forward once the header has arrived (IB, NVSwitch) instead of "
                          "store-and-forward; applies to ports added afterwards.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_cutThrough),
                          MakeBooleanChecker())
            .AddAttribute("PipelinedUnits",
                          "At a store-and-forward port, forward a network transfer unit link "
                          "packet by link packet, as the MTU packets it stands for are stored "
                          "and forwarded: taken in when its first link packet has arrived, its "
                          "last bit out no earlier than one link packet's serialization after its "
                          "last bit came in. False: the whole unit is stored before it is "
                          "forwarded (a unit is then a jumbo frame). Applies to ports added "
                          "afterwards; no effect on packets that are not units.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricSwitch::m_pipelinedUnits),
                          MakeBooleanChecker())
            // The HPCC simulator stamps INT at its network switches only; a
            // PCIe or NVLink switch inside a server is not a hop HPCC's
            // utilisation should count, and its rates (e.g. 504 Gb/s of PCIe
            // Gen5 x16) are not in INT's 3-bit rate code.
            .AddAttribute("IntStamping",
                          "Append an HPCC in-band telemetry hop to packets that request it "
                          "(network switches); the topology builder sets false on PCIe and "
                          "NVLink tiers.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricSwitch::m_intStamping),
                          MakeBooleanChecker())
            .AddAttribute("EcnEnabled",
                          "Mark ECT packets at the egress with RED (per-rate defaults).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricSwitch::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcmpSeed",
                          "Seed of the ECMP hash of (src, dst, flow id, switch id).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HeadroomBytes",
                          "PFC headroom per ingress port (one pool for its classes); 0 = "
                          "2 x rate x link delay + 3 max frames + a pause frame "
                          "(PfcHeadroomBytes).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_headroomOverride),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Buffer",
                          "The shared buffer.",
                          PointerValue(),
                          MakePointerAccessor(&FabricSwitch::m_buffer),
                          MakePointerChecker<FabricSwitchBuffer>())
            .AddTraceSource("Drop",
                            "A packet was dropped (packet, ingress port).",
                            MakeTraceSourceAccessor(&FabricSwitch::m_dropTrace),
                            "ns3::FabricSwitch::DropCallback");
    return tid;
}

FabricSwitch::FabricSwitch()
    : m_buffer(CreateObject<FabricSwitchBuffer>()),
      m_idMix(Mix(GetId()))
{
    NS_LOG_FUNCTION(this);
}

FabricSwitch::FabricSwitch(uint32_t systemId)
    : Node(systemId),
      m_buffer(CreateObject<FabricSwitchBuffer>()),
      m_idMix(Mix(GetId()))
{
    NS_LOG_FUNCTION(this << systemId);
}

FabricSwitch::~FabricSwitch() = default;

void
FabricSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_ports.clear();
    ClearRoutes();
    m_paused.clear();
    m_pausedMask.clear();
    m_buffer = nullptr;
    m_reduction = nullptr;
    Node::DoDispose();
}

uint32_t
FabricSwitch::AddPort(Ptr<FabricNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    if (!device->GetNode())
    {
        AddDevice(device);
    }
    uint32_t index = m_ports.size();
    m_ports.push_back(device);
    m_pausedMask.push_back(0);
    device->SetSwitch(this, index);
    device->SetCutThrough(m_cutThrough);
    device->SetPipelinedUnits(m_pipelinedUnits);
    device->GetFlowControl()->AddSwitchIngress(*m_buffer, index, m_headroomOverride);
    if (m_headroomOverride == 0 && m_buffer->GetPortMode(index) == FabricSwitchBuffer::LOSSLESS &&
        PipelinesIngress(index))
    {
        // XOFF is decided ForwardingLatency after the packet that trips it
        // arrived: what arrives meanwhile is headroom too (rate x latency).
        const unsigned __int128 bits =
            (unsigned __int128)device->GetDataRate().GetBitRate() * uint64_t(m_latency.GetPicoSeconds());
        m_buffer->SetHeadroomBytes(index, m_buffer->GetHeadroomBytes(index) +
                                              uint64_t((bits + 8 * 1000000000000ull - 1) / (8 * 1000000000000ull)));
    }
    if (m_ecnEnabled)
    {
        Ptr<FabricEcnMarker> marker = CreateObject<FabricEcnMarker>();
        marker->ConfigureForRate(device->GetDataRate());
        // Kmin, Kmax or Pmax given by the user win over the per-rate table.
        ApplyUserAttributes(marker);
        UintegerValue kmin;
        UintegerValue kmax;
        marker->GetAttribute("Kmin", kmin);
        marker->GetAttribute("Kmax", kmax);
        if (kmax.Get() < kmin.Get())
        {
            const std::string field = UserAttributeField("ns3::FabricEcnMarker::Kmin").empty()
                                          ? UserAttributeField("ns3::FabricEcnMarker::Kmax")
                                          : UserAttributeField("ns3::FabricEcnMarker::Kmin");
            throw InputError(field, "expected Kmin <= Kmax on every switch port, got Kmin " +
                                        std::to_string(kmin.Get()) + " B > Kmax " + std::to_string(kmax.Get()) +
                                        " B on a port of " +
                                        std::to_string(device->GetDataRate().GetBitRate() / 1000000000) + " Gbps");
        }
        device->SetEcnMarker(marker);
    }
    return index;
}

uint64_t
FabricSwitch::PfcHeadroomBytes(DataRate rate, Time delay, uint32_t maxFrameWireBytes,
                               uint32_t controlFrameWireBytes)
{
    // IEEE 802.1Qbb-2011's delay model: the round trip of the link (2 x rate x
    // delay) plus the frames that delay the pause (one leaving the switch,
    // the pause itself) and the sender's reaction (the frame it has started);
    // plus the packet that trips XOFF, charged whole by this model. See the
    // declaration and fabric.md. Integer arithmetic: bits x ps / (8 x 1e12).
    unsigned __int128 bits =
        (unsigned __int128)rate.GetBitRate() * uint64_t(std::max<int64_t>(delay.GetPicoSeconds(), 0));
    uint64_t flight = uint64_t(2 * bits / 8 / 1000000000000ull);
    return flight + 3 * uint64_t(maxFrameWireBytes) + controlFrameWireBytes;
}

void
FabricSwitch::SetReduction(Ptr<FabricSwitchReduction> reduction)
{
    m_reduction = reduction;
    if (m_reduction)
    {
        m_reduction->SetSwitch(this);
    }
}

Ptr<FabricNetDevice>
FabricSwitch::GetPort(uint32_t index) const
{
    return m_ports.at(index);
}

void
FabricSwitch::AddRoute(uint32_t dst, const std::vector<uint32_t>& ports)
{
    NS_LOG_FUNCTION(this << dst << ports.size());
    if (ports.empty())
    {
        throw std::invalid_argument("route: expected at least one egress port");
    }
    for (uint32_t p : ports)
    {
        if (p >= m_ports.size())
        {
            throw std::invalid_argument("route: expected a port index below " +
                                        std::to_string(m_ports.size()) + ", got " +
                                        std::to_string(p));
        }
    }
    if (dst == kFabricNoAddress)
    {
        throw std::invalid_argument("route: expected an endpoint address");
    }
    // The list's entry: an equal list already stored is shared.
    auto [it, added] = m_routeListIndex.emplace(ports, uint32_t(m_routeLists.size() + 1));
    if (added)
    {
        m_routeLists.push_back(uint32_t(ports.size()));
        m_routeLists.insert(m_routeLists.end(), ports.begin(), ports.end());
    }
    const uint32_t entry = it->second;
    if (dst >= kDenseRouteLimit)
    {
        m_sparseRoutes[dst] = entry;
        return;
    }
    if (dst >= m_routes.size())
    {
        m_routes.resize(dst + 1, 0);
    }
    m_routes[dst] = entry;
}

void
FabricSwitch::ClearRoutes()
{
    m_routes.clear();
    m_routeLists.clear();
    m_routeListIndex.clear();
    m_sparseRoutes.clear();
}

uint32_t
FabricSwitch::SparseRouteEntry(uint32_t dst) const
{
    auto it = m_sparseRoutes.find(dst);
    return it == m_sparseRoutes.end() ? 0 : it->second;
}

std::vector<uint32_t>
FabricSwitch::GetRoute(uint32_t dst) const
{
    const uint32_t entry = RouteEntry(dst);
    if (entry == 0)
    {
        return {};
    }
    const uint32_t* list = &m_routeLists[entry - 1];
    return std::vector<uint32_t>(list + 1, list + 1 + list[0]);
}

uint32_t
FabricSwitch::SelectEgress(const FabricHeaderFields& h) const
{
    const uint32_t entry = RouteEntry(h.GetDestination());
    if (entry == 0)
    {
        return 0xFFFFFFFFu;
    }
    const uint32_t* list = &m_routeLists[entry - 1];
    const uint32_t n = list[0];
    if (n == 1)
    {
        return list[1];
    }
    uint64_t x = Mix((uint64_t(h.GetSource()) << 32 | h.GetDestination()) ^
                     Mix(uint64_t(h.GetFlowId()) ^ (uint64_t(m_seed) << 32)) ^
                     m_idMix);
    return list[1 + x % n];
}

int64_t
FabricSwitch::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    int64_t n = 0;
    for (auto& p : m_ports)
    {
        if (p->GetEcnMarker())
        {
            n += p->GetEcnMarker()->AssignStreams(stream + n);
        }
    }
    return n;
}

void
FabricSwitch::SettleArrived() const
{
    const Time now = hotsim::Now();
    for (const auto& p : m_ports)
    {
        p->TakeInArrived(now);
    }
}

void
FabricSwitch::LoseEarly(uint32_t inPort, Time now)
{
    for (const auto& p : m_ports)
    {
        p->LoseIncoming(inPort, now);
    }
}

FabricNetDevice*
FabricSwitch::Receive(uint32_t inPort, Ptr<Packet> packet, const FabricHeaderFields& header,
                      uint32_t inWireBytes, Time rxEnd, Time arrival, Time now, uint64_t tie)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << inPort << packet);
    if (m_reduction && FabricSwitchReduction::IsGroupAddress(header.GetDestination()))
    {
        m_reduction->Receive(inPort, packet, FabricHeader(header), inWireBytes, rxEnd);
        return nullptr;
    }
    uint32_t out = SelectEgress(header);
    uint8_t c = header.GetPriority();
    FabricNetDevice* in = PeekPointer(m_ports[inPort]);
    auto drop = [&](FabricDropCause cause) {
        ++m_drops;
        in->CountDrop(packet, packet->GetSize() - FabricHeader::kSerializedSize, cause);
        m_dropTrace(packet, inPort);
    };
    if (out == 0xFFFFFFFFu)
    {
        NS_LOG_LOGIC("no route at switch " << GetId() << " for " << header.GetDestination());
        drop(kDropNoRoute);
        return nullptr;
    }
    if (!m_buffer->Admit(inPort, c, inWireBytes))
    {
        // A refused lossless packet was over the threshold (shared pool full
        // for it, headroom too small or full): that is XOFF, whether or not
        // headroom could take it, else nothing would ever stop the sender.
        // Only while (port, class) holds bytes: their departure is certain
        // to re-evaluate XON (the reserve fills first and drains last),
        // even when no other port's departure raises T first.
        if (m_buffer->IsLossless(inPort, c) && m_buffer->GetUsed(inPort, c) > 0)
        {
            Pause(inPort, c);
        }
        NS_LOG_LOGIC("drop at switch " << GetId() << " port " << inPort);
        drop(kDropBuffer);
        return nullptr;
    }
    if (m_buffer->IsXoffCondition(inPort, c))
    {
        Pause(inPort, c);
    }
    // Through the ingress pipeline (arrival + latency == now) the packet is
    // ready at once: an idle egress starts it in this event.
    FabricNetDevice* egress = PeekPointer(m_ports[out]);
    egress->EnqueueForwarded(std::move(packet), header, inPort, inWireBytes, arrival + m_latency, rxEnd, now,
                             arrival, arrival > now ? tie : FabricNetDevice::RunningTie());
    return egress;
}

void
FabricSwitch::NotifyDequeued(uint32_t inPort, uint8_t cls, uint32_t inWireBytes)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << inPort << unsigned(cls) << inWireBytes);
    if (inPort == kFabricReductionIngress)
    {
        // A multicast copy of a sum: it was never in an ingress buffer
        // (inWireBytes carries its accumulator slot).
        m_reduction->CopyDeparted(inWireBytes);
        return;
    }
    uint64_t sharedBefore = m_buffer->GetTotalSharedUsed();
    m_buffer->Release(inPort, cls, inWireBytes);
    // Returns credit on a credit link; nothing on the others.
    PeekPointer(m_ports[inPort]->GetFlowControl())->IngressFreed(cls, inWireBytes);
    // XON depends on the pair's own headroom and shared use and on the
    // threshold T, which rises whenever any port's bytes leave the shared
    // pool (the HPCC simulator's switch-mmu.cc: XON when headroom is empty and shared use + resume
    // offset <= T). So a departure from the shared pool re-checks every
    // paused pair, not only its own: otherwise a pair whose egress is stuck
    // stays paused although other ports drained (until its own next departure).
    if (!m_paused.empty() &&
        (m_buffer->GetTotalSharedUsed() < sharedBefore || ((m_pausedMask[inPort] >> cls) & 1u)))
    {
        ResumeWhereXon();
    }
}

void
FabricSwitch::Pause(uint32_t port, uint8_t cls)
{
    NS_LOG_FUNCTION(this << port << unsigned(cls));
    PeekPointer(m_ports[port]->GetFlowControl())->IngressCongested(cls);
    if (!((m_pausedMask[port] >> cls) & 1u))
    {
        m_pausedMask[port] |= uint8_t(1u << cls);
        m_paused.emplace_back(port, cls);
    }
}

void
FabricSwitch::ResumeWhereXon()
{
    HOCKNEY_HOT_LOG_FUNCTION(this);
    // Collect first, signal after: an XON may let its port transmit at once,
    // and a forwarded packet starting there re-enters NotifyDequeued.
    std::vector<std::pair<uint32_t, uint8_t>> resume;
    for (size_t i = 0; i < m_paused.size();)
    {
        auto [port, cls] = m_paused[i];
        if (m_buffer->IsXonCondition(port, cls))
        {
            resume.push_back(m_paused[i]);
            m_pausedMask[port] &= uint8_t(~(1u << cls));
            m_paused[i] = m_paused.back();
            m_paused.pop_back();
        }
        else
        {
            ++i;
        }
    }
    for (auto [port, cls] : resume)
    {
        PeekPointer(m_ports[port]->GetFlowControl())->IngressUncongested(cls);
    }
}

} // namespace ns3
