// SPDX-License-Identifier: GPL-2.0-only
#include "packet-transport.h"

#include "fabric-switch.h"
#include "rdma-nic.h"

#include "attribute-defaults.h"
#include "input-error.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyPacketTransport");
NS_OBJECT_ENSURE_REGISTERED(PacketTransport);

namespace
{

/// Endpoint ranks reachable from \p start through forwarding nodes only.
std::set<uint32_t>
Reach(const TopologyGraph& g, uint32_t start)
{
    std::set<uint32_t> ranks;
    std::set<uint32_t> seen{start};
    std::vector<uint32_t> todo{start};
    while (!todo.empty())
    {
        uint32_t node = todo.back();
        todo.pop_back();
        int r = g.RankOf(node);
        if (r >= 0)
        {
            ranks.insert(static_cast<uint32_t>(r));
            continue; // endpoints never forward
        }
        for (uint32_t link : g.PortsOf(node))
        {
            uint32_t peer = g.Peer(link, node);
            if (seen.insert(peer).second)
            {
                todo.push_back(peer);
            }
        }
    }
    return ranks;
}

} // namespace

TypeId
PacketTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PacketTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("Collective")
                            .AddConstructor<PacketTransport>();
    return tid;
}

PacketTransport::PacketTransport()
    : m_headersInTag(false),
      m_nvlinkUnit(0),
      m_pcieUnit(0)
{
    m_endpointFactory.SetTypeId(RdmaEndpoint::GetTypeId());
    m_nicFactory.SetTypeId(RdmaNic::GetTypeId());
}

void
PacketTransport::SetEndpointAttribute(const std::string& name, const AttributeValue& value)
{
    m_endpointFactory.Set(name, value);
}

void
PacketTransport::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
PacketTransport::SetHeadersInTag(bool inTag)
{
    m_headersInTag = inTag;
}

void
PacketTransport::SetNicPreset(const RdmaNicPreset& preset, const std::string& field)
{
    m_nicPreset = preset;
    m_nicPresetField = field;
}

void
PacketTransport::SetTransferUnits(uint32_t nvlinkBytes, uint32_t pcieBytes)
{
    m_nvlinkUnit = nvlinkBytes;
    m_pcieUnit = pcieBytes;
}

void
PacketTransport::SetNetworkTransferUnit(uint32_t bytes)
{
    m_networkUnit = bytes;
}

void
PacketTransport::SetSeed(uint32_t seed)
{
    m_seed = seed;
}

void
PacketTransport::SetWireSetup(std::function<void(FabricNetwork&)> setup)
{
    m_wireSetup = std::move(setup);
}

void
PacketTransport::SetPartition(const std::string& mode)
{
    m_partition = mode;
}

void
PacketTransport::DoDispose()
{
    m_messenger = nullptr;
    m_network = nullptr;
    m_reductionEndpoints.clear();
    m_contributed.clear();
    m_nics.clear();
    CollectiveTransport::DoDispose();
}

void
PacketTransport::CheckNicPreset(const RdmaNicPreset& preset, Ptr<FabricNetDevice> port, const std::string& tier) const
{
    auto gbps = [](DataRate r) { return std::to_string(r.GetBitRate() / 1000000000); };
    if (port->GetDataRate() != preset.lineRate)
    {
        throw InputError(m_nicPresetField, "expected NIC ports of " + gbps(preset.lineRate) + " Gb/s for preset " +
                                               preset.name + ", got " + gbps(port->GetDataRate()) + " Gb/s on tier " +
                                               tier);
    }
    if (preset.mtu > port->GetMtu())
    {
        throw InputError(m_nicPresetField, "expected the preset's MTU " + std::to_string(preset.mtu) +
                                               " B to fit the " + std::to_string(port->GetMtu()) +
                                               " B payload per packet of tier " + tier);
    }
}

void
PacketTransport::Build(const TopologyDescription& description, Ptr<RdmaCongestionControl> cc)
{
    Build(description, cc ? CongestionControlFactory([cc](DataRate) { return cc; }) : CongestionControlFactory());
}

void
PacketTransport::Build(const TopologyDescription& description, const CongestionControlFactory& ccFor)
{
    for (const char* unit : {"NvlinkTransferUnitBytes", "PcieTransferUnitBytes"})
    {
        RefuseUserAttribute(std::string("ns3::FabricNetwork::") + unit,
                            "the packet backend takes its transfer units from fabric.transfer_unit_bytes and "
                            "fabric.pcie_transfer_unit_bytes (--transfer-unit, --pcie-transfer-unit); set those "
                            "instead");
    }
    for (const char* unit : {"ns3::FabricNetwork::NetworkTransferUnitBytes", "ns3::FabricNetwork::NetworkLinkPacketBytes",
                             "ns3::RdmaNic::TransferUnitBytes"})
    {
        RefuseUserAttribute(unit, "the packet backend takes its network transfer unit from "
                                  "fabric.network_transfer_unit_bytes (--network-transfer-unit); set that instead");
    }
    RefuseUserAttribute("ns3::FabricNetwork::Partition",
                        "the packet backend takes its partition from fabric.partition (--partition); set that "
                        "instead");
    if (m_seed)
    {
        RngSeedManager::SetSeed(*m_seed == 0 ? 1 : *m_seed);
    }
    m_network = CreateObject<FabricNetwork>();
    m_network->SetAttribute("NvlinkTransferUnitBytes", UintegerValue(m_nvlinkUnit));
    m_network->SetAttribute("PcieTransferUnitBytes", UintegerValue(m_pcieUnit));
    m_network->SetAttribute("Partition", StringValue(m_partition));
    m_network->SetAttribute("NetworkTransferUnitBytes", UintegerValue(m_networkUnit));
    if (m_seed && !UserSetAttribute("ns3::FabricNetwork::EcmpSeed"))
    {
        m_network->SetAttribute("EcmpSeed", UintegerValue(std::max<uint32_t>(*m_seed, 1) - 1));
    }
    m_network->Build(description);
    if (m_wireSetup)
    {
        m_wireSetup(*m_network);
    }
    if (m_seed)
    {
        // Fixed streams: an ECN marker's own would be the next free one of
        // the process, which depends on every random variable created before.
        m_network->AssignStreams(*m_seed);
    }
    const TopologyGraph& g = m_network->GetTopology();
    m_messenger = CreateObject<RdmaMessenger>();
    m_nics.assign(m_network->GetNEndpoints(), {});
    // A --ns3::RdmaNic::Mtu of the user replaces the derived path MTU; checked
    // here first, because a NIC cannot even be created with a value RdmaNic refuses.
    uint32_t userMtu = 0;
    if (UserSetAttribute("ns3::RdmaNic::Mtu"))
    {
        TypeId::AttributeInformation info;
        RdmaNic::GetTypeId().LookupAttributeByName("Mtu", &info);
        const uint64_t m = DynamicCast<const UintegerValue>(info.initialValue)->Get();
        if (m < 256 || m > 4096 || (m & (m - 1)) != 0)
        {
            throw InputError(UserAttributeField("ns3::RdmaNic::Mtu"),
                             "expected an IB MTU (256, 512, 1024, 2048 or 4096 B), got " + std::to_string(m));
        }
        userMtu = static_cast<uint32_t>(m);
    }
    std::map<std::set<uint32_t>, uint32_t> domains; // reach -> domain id
    uint32_t presetNics = 0;
    for (uint32_t rank = 0; rank < m_network->GetNEndpoints(); ++rank)
    {
        const uint32_t node = g.EndpointNode(rank);
        std::vector<Ptr<FabricNetDevice>> ports = m_network->GetEndpointDevices(rank);
        const std::vector<uint32_t>& links = g.PortsOf(node);
        // (reach size, port index): the narrowest domain first.
        std::vector<std::pair<std::pair<size_t, uint32_t>, std::set<uint32_t>>> order;
        for (uint32_t i = 0; i < ports.size() && i < links.size(); ++i)
        {
            std::set<uint32_t> reach = Reach(g, g.Peer(links[i], node));
            reach.insert(rank); // a direct link between two endpoints reaches both

            order.push_back({{reach.size(), i}, reach});
        }
        std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        Ptr<RdmaEndpoint> ep = m_endpointFactory.Create<RdmaEndpoint>();
        ApplyUserAttributes(ep); // over the ideal fabric's zero costs
        for (const auto& [key, reach] : order)
        {
            auto it = domains.find(reach);
            if (it == domains.end())
            {
                it = domains.emplace(reach, static_cast<uint32_t>(domains.size())).first;
            }
            Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
            // The NIC's payload per packet fills the port's MTU after the
            // transport headers (none when the link header carries them).
            const std::string& protocol = g.LinkTier(links[key.second]).protocol;
            // A --ns3::RdmaNic::HeadersInTag or Mtu of the user wins over the
            // derived values (the new NIC holds the user's value as its default).
            BooleanValue userInTag;
            nic->GetAttribute("HeadersInTag", userInTag);
            Ptr<FabricNetDevice> port = ports[key.second];
            const RdmaNicPreset* preset =
                m_nicPreset && protocol != "nvlink" && protocol != "pcie" ? &*m_nicPreset : nullptr;
            if (preset)
            {
                CheckNicPreset(*preset, port, g.LinkTier(links[key.second]).name);
                ++presetNics;
            }
            const bool derivedInTag = preset ? preset->headersInTag : m_headersInTag || protocol == "nvlink";
            const bool inTag =
                UserSetAttribute("ns3::RdmaNic::HeadersInTag") ? userInTag.Get() : derivedInTag;
            // The tier's MTU is the payload per packet; the NIC's path MTU is
            // the largest IB MTU (256..4096) within it, and its transport
            // headers ride in the frame on top (as in a RoCE jumbo frame or an
            // IB packet), unless the link header holds them.
            // A network transfer unit raised the port's limit to the unit:
            // the NIC's packets are still its tier's (a PCIe unit, which
            // raises the limit to the NIC's packet, is refused with it).
            const bool networkUnit = m_networkUnit != 0 && protocol != "nvlink";
            uint32_t nicMtu = FabricNetwork::NicPathMtu(networkUnit ? g.LinkTier(links[key.second]).mtuBytes
                                                                    : port->GetMtu());
            if (preset)
            {
                nicMtu = preset->mtu;
            }
            if (userMtu)
            {
                if (userMtu > port->GetMtu())
                {
                    throw InputError(UserAttributeField("ns3::RdmaNic::Mtu"),
                                     "expected at most the " + std::to_string(port->GetMtu()) +
                                         " B payload per packet of tier " + g.LinkTier(links[key.second]).name +
                                         ", got " + std::to_string(userMtu));
                }
                nicMtu = userMtu;
            }
            if (!inTag)
            {
                port->SetMtu(static_cast<uint16_t>(nicMtu + RdmaNic::kMaxTransportHeader));
            }
            if (networkUnit)
            {
                // The NIC sends network transfer units of link packets of its
                // path MTU, which the fabric's ports were built for.
                if (nicMtu != m_network->GetNetworkLinkPacketBytes())
                {
                    throw InputError(m_networkUnitField, "expected NICs of the fabric's path MTU " +
                                                             std::to_string(m_network->GetNetworkLinkPacketBytes()) +
                                                             " B with a network transfer unit, got a NIC of " +
                                                             std::to_string(nicMtu) + " B on tier " +
                                                             g.LinkTier(links[key.second]).name);
                }
                port->SetMaxPayloadBytes(RdmaNic::UnitPacketBytes(m_networkUnit, nicMtu, inTag));
                nic->SetAttribute("TransferUnitBytes", UintegerValue(m_networkUnit));
            }
            nic->SetAttribute("HeadersInTag", BooleanValue(inTag));
            nic->SetAttribute("Mtu", UintegerValue(nicMtu));
            if (protocol == "nvlink" || protocol == "pcie")
            {
                // A GPU copy engine on NVLink, or a GPU whose PCIe link to its
                // NIC is a link of the topology: the DMA reads local memory,
                // the link itself prices PCIe (rdma-nic.h).
                DataRateValue memory;
                nic->GetAttribute("MemoryRate", memory);
                nic->SetAttribute("PcieRate", memory);
                nic->SetAttribute("PcieLatency", TimeValue(Time(0)));
            }
            if (preset)
            {
                RdmaHelper::ApplyEndpointNumbers(*preset, nic);
            }
            ApplyUserAttributes(nic);
            nic->Attach(port);
            if (ccFor && protocol != "nvlink") // NVSwitch marks no ECN: nothing to react to
            {
                if (Ptr<RdmaCongestionControl> cc = ccFor(port->GetDataRate()))
                {
                    nic->SetCongestionControl(cc);
                }
            }
            ep->AddNic(nic, it->second);
            m_nics[rank].emplace_back(nic, it->second);
        }
        m_messenger->AddEndpoint(ep);
    }
    if (m_nicPreset && presetNics == 0)
    {
        throw InputError(m_nicPresetField, "expected a topology with Ethernet or InfiniBand NIC ports for preset " +
                                               m_nicPreset->name + ", got none");
    }
    NS_LOG_INFO("packet transport on " << description.name << ": " << m_network->GetNEndpoints() << " ranks, "
                                       << domains.size() << " domains");
}

Ptr<FabricNetwork>
PacketTransport::GetNetwork() const
{
    return m_network;
}

Ptr<RdmaMessenger>
PacketTransport::GetMessenger() const
{
    return m_messenger;
}

std::pair<Ptr<RdmaNic>, Ptr<RdmaNic>>
PacketTransport::NicPair(uint32_t src, uint32_t dst) const
{
    if (src >= m_nics.size() || dst >= m_nics.size() || src == dst)
    {
        throw std::invalid_argument("PacketTransport::NicPair: expected two different ranks below " +
                                    std::to_string(m_nics.size()) + ", got " + std::to_string(src) + " and " +
                                    std::to_string(dst));
    }
    for (const auto& [a, domainA] : m_nics[src])
    {
        for (const auto& [b, domainB] : m_nics[dst])
        {
            if (domainA == domainB)
            {
                return {a, b};
            }
        }
    }
    throw std::invalid_argument("PacketTransport::NicPair: ranks " + std::to_string(src) + " and " +
                                std::to_string(dst) + " share no fabric domain");
}

void
PacketTransport::Connect(uint32_t src, uint32_t dst)
{
    m_messenger->Connect(src, dst);
}

namespace
{
RdmaEndpoint::MessageCallback
OnMessage(CollectiveTransport::DeliveryCallback onDelivered)
{
    if (!onDelivered)
    {
        return RdmaEndpoint::MessageCallback();
    }
    return RdmaEndpoint::MessageCallback([onDelivered](const RdmaMessageRecord&) { onDelivered(); });
}
} // namespace

void
PacketTransport::SendTagged(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t tag, DeliveryCallback onDelivered)
{
    m_messenger->SendWithId(src, dst, bytes, tag, OnMessage(std::move(onDelivered)));
}

void
PacketTransport::ExpectTagged(uint32_t src, uint32_t, uint32_t tag, DeliveryCallback onDelivered)
{
    m_messenger->Expect(src, tag, OnMessage(std::move(onDelivered)));
}

void
PacketTransport::Send(uint32_t src, uint32_t dst, uint64_t bytes, DeliveryCallback onDelivered)
{
    m_messenger->Send(src, dst, bytes, OnMessage(std::move(onDelivered)));
}

Ptr<FabricSwitch>
PacketTransport::CommonReducingSwitch(const FabricNetwork& network,
                                      const std::vector<uint32_t>& ranks,
                                      std::vector<uint32_t>* ports)
{
    Ptr<FabricSwitch> common;
    if (ports)
    {
        ports->clear();
    }
    for (uint32_t r : ranks)
    {
        if (r >= network.GetNEndpoints())
        {
            return nullptr;
        }
        // The rank's one port into a reducing switch.
        Ptr<FabricSwitch> found;
        uint32_t port = 0;
        for (Ptr<FabricNetDevice> d : network.GetEndpointDevices(r))
        {
            Ptr<FabricNetDevice> peer = d->GetPeer();
            FabricSwitch* sw = peer ? peer->GetSwitch() : nullptr;
            if (sw && sw->GetReduction() && (!common || sw == PeekPointer(common)))
            {
                found = sw;
                port = peer->GetPortIndex();
                break;
            }
        }
        if (!found)
        {
            return nullptr;
        }
        common = found;
        if (ports)
        {
            ports->push_back(port);
        }
    }
    return common;
}

Ptr<FabricReductionEndpoint>
PacketTransport::ReductionEndpoint(uint32_t rank)
{
    if (m_reductionEndpoints.size() <= rank)
    {
        m_reductionEndpoints.resize(rank + 1);
    }
    if (!m_reductionEndpoints[rank])
    {
        std::vector<uint32_t> port;
        Ptr<FabricSwitch> sw = CommonReducingSwitch(*m_network, {rank}, &port);
        Ptr<FabricReductionEndpoint> e = CreateObject<FabricReductionEndpoint>();
        e->Attach(sw->GetPort(port[0])->GetPeer());
        m_reductionEndpoints[rank] = e;
    }
    return m_reductionEndpoints[rank];
}

void
PacketTransport::SendThroughSwitch(uint32_t src,
                                   uint32_t dst,
                                   uint64_t bytes,
                                   const SwitchGroup& group,
                                   DeliveryCallback onDelivered)
{
    auto it = m_contributed.find(group.id);
    if (it == m_contributed.end())
    {
        std::vector<uint32_t> sourcePorts;
        std::vector<uint32_t> receiverPorts;
        Ptr<FabricSwitch> sw = CommonReducingSwitch(*m_network, group.sources, &sourcePorts);
        Ptr<FabricSwitch> sw2 = CommonReducingSwitch(*m_network, group.receivers, &receiverPorts);
        if (!sw || sw != sw2)
        {
            throw std::logic_error("in-switch group " + std::to_string(group.id) +
                                   ": its ranks share no switch that reduces");
        }
        sw->GetReduction()->AddGroup(group.id, sourcePorts, receiverPorts, group.receivers, bytes);
        it = m_contributed.emplace(group.id, PendingGroup()).first;
    }
    PendingGroup& g = it->second;
    // The endpoints' per-message software cost, as on every message (the
    // alpha the closed form adds): posting before the contribution leaves,
    // taking the completion after the sum has arrived.
    TimeValue receive;
    TimeValue send;
    m_messenger->GetEndpoint(dst)->GetAttribute("ReceiveOverhead", receive);
    m_messenger->GetEndpoint(src)->GetAttribute("SendOverhead", send);
    DeliveryCallback delivered = [after = receive.Get(), cb = std::move(onDelivered)]() {
        Simulator::Schedule(after, cb);
    };
    auto waiting = g.waiting.find(dst);
    if (waiting != g.waiting.end())
    {
        // Another op into the same receiver: the sum arrives once, for all
        // of them (it cannot have arrived yet: this op's source has not
        // contributed, or contributed for an op still waiting here).
        waiting->second->push_back(std::move(delivered));
    }
    else
    {
        auto list = std::make_shared<std::vector<DeliveryCallback>>();
        list->push_back(std::move(delivered));
        g.waiting.emplace(dst, list);
        ReductionEndpoint(dst)->ExpectSum(group.id, bytes, [list]() {
            for (const DeliveryCallback& cb : *list)
            {
                cb();
            }
        });
    }
    if (g.contributed.insert(src).second)
    {
        Simulator::Schedule(send.Get(),
                            &FabricReductionEndpoint::Contribute, ReductionEndpoint(src), group.id, bytes);
    }
    if (++g.ops == group.ops)
    {
        m_contributed.erase(it); // every op is on its way; the id may be reused
    }
}

uint32_t
PacketTransport::GetRanks() const
{
    return m_messenger ? m_messenger->GetNRanks() : 0;
}

std::string
PacketTransport::GetTransportName() const
{
    return "packet";
}

FabricConservation
PacketTransport::FinishRun(const FabricSumOverRanks& sum) const
{
    if (!m_network)
    {
        throw std::logic_error("PacketTransport::FinishRun called before Build");
    }
    FabricConservation c = m_network->FinishRun(sum);
    RdmaEndpointCounters t = m_messenger->GetTotals();
    // What each rank's endpoints sent and got, and its GPUs' missing
    // in-switch sums (each rank has its own), over every rank.
    std::vector<uint64_t> v = {t.bytesSent, t.bytesDelivered};
    for (uint32_t r = 0; r < m_reductionEndpoints.size(); ++r)
    {
        v.push_back(m_reductionEndpoints[r] ? m_reductionEndpoints[r]->GetPendingSums() : 0);
    }
    if (m_network->GetPartition().ranks > 1 && sum)
    {
        v.resize(2 + m_network->GetNEndpoints(), 0); // the same length on every rank
        sum(v);
    }
    if (v[0] != v[1])
    {
        c.ok = false;
        c.message += "; ERROR: messages: " + std::to_string(v[0]) + " B sent, " + std::to_string(v[1]) +
                     " B delivered";
    }
    for (uint32_t r = 0; r + 2 < v.size(); ++r)
    {
        if (v[2 + r] > 0)
        {
            c.ok = false;
            c.message += "; ERROR: rank " + std::to_string(r) + " is missing " + std::to_string(v[2 + r]) +
                         " in-switch sums";
        }
    }
    return c;
}

Ptr<FabricWatchdog>
PacketTransport::InstallWatchdog()
{
    if (!m_network)
    {
        throw std::logic_error("PacketTransport::InstallWatchdog called before Build");
    }
    TimeValue stall;
    TimeValue rto;
    m_network->GetAttribute("WatchdogStallTime", stall);
    m_nicFactory.Create<RdmaNic>()->GetAttribute("RetransmitTimeout", rto);
    return m_network->InstallWatchdog(std::max(stall.Get(), 2 * rto.Get()));
}

PacketRunCounters
PacketTransport::GetCounters() const
{
    PacketRunCounters c;
    if (!m_network)
    {
        return c;
    }
    RdmaEndpointCounters t = m_messenger->GetTotals();
    if (Ptr<FabricWatchdog> w = m_network->GetWatchdog())
    {
        c.pfcStorms = w->GetPfcStormNodes();
    }
    c.bytesSent = t.bytesSent;
    c.bytesDelivered = t.bytesDelivered;
    // In-switch reduction: what the GPUs sent up, what they received down.
    for (const auto& e : m_reductionEndpoints)
    {
        if (e)
        {
            c.bytesSent += e->GetBytesContributed();
            c.bytesDelivered += e->GetBytesReceived();
        }
    }
    c.cnps = t.cnpsSent;
    for (const FabricPortReport& r : m_network->CollectCounters())
    {
        c.drops += r.counters.drops;
        for (uint8_t k = 0; k < kFabricDropCauses; ++k)
        {
            c.dropsBy[k] += r.counters.dropsBy[k];
        }
        c.pfcPauses += r.counters.pausesSent;
        c.ecnMarks += r.counters.ecnMarks;
        c.dataHops += r.counters.txPackets - r.counters.txTransportControl;
        c.controlHops += r.counters.txTransportControl + r.counters.controlTx;
    }
    return c;
}

} // namespace ns3
