// SPDX-License-Identifier: GPL-2.0-only
#include "topology-builder.h"

#include "attribute-defaults.h"
#include "fabric-switch-reduction.h"
#include "rdma-nic.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#endif

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricNetwork");
NS_OBJECT_ENSURE_REGISTERED(FabricNetwork);

FabricFlowControlMode
ToFabricFlowControl(TopologyFlowControl fc)
{
    switch (fc)
    {
    case TopologyFlowControl::NONE:
        return FabricFlowControlMode::NONE;
    case TopologyFlowControl::PFC:
        return FabricFlowControlMode::PFC;
    case TopologyFlowControl::CREDIT:
        return FabricFlowControlMode::CREDIT;
    }
    return FabricFlowControlMode::NONE;
}

FabricLinkType
ToFabricLinkType(const std::string& protocol)
{
    if (protocol == "roce" || protocol == "ethernet")
    {
        return FabricLinkType::ETHERNET;
    }
    if (protocol == "infiniband")
    {
        return FabricLinkType::INFINIBAND;
    }
    if (protocol == "nvlink")
    {
        return FabricLinkType::NVLINK;
    }
    if (protocol == "pcie")
    {
        return FabricLinkType::PCIE;
    }
    return FabricLinkType::GENERIC;
}

FabricLinkConfig
MakeFabricLinkConfig(const TopologyTier& tier, uint32_t lanes)
{
    FabricLinkConfig c;
    c.rate = DataRate(tier.laneRate.GetBitRate() * lanes);
    c.delay = tier.delay;
    c.headerBytes = tier.headerBytes;
    c.linkType = ToFabricLinkType(tier.protocol);
    const bool ethernet = c.linkType == FabricLinkType::ETHERNET;
    // Ethernet frames are padded to 64 B (+ 20 B preamble and gap) and a PFC
    // frame is a minimum frame; the other links have no padding, and their
    // credit returns are short link packets (PCIe UpdateFC DLLP 8 B, IB flow
    // control packet 6 B, an NVLink flit 16 B): at least 8 B or the framing.
    c.minWireBytes = ethernet ? 84 : 0;
    c.controlFrameBytes = ethernet ? 84 : std::max<uint32_t>(8, tier.headerBytes);
    if (tier.mtuBytes == 0 || tier.mtuBytes > 65535)
    {
        throw std::invalid_argument("tiers[" + tier.name + "].mtu_bytes: expected 1 to 65535 bytes, got " +
                                    std::to_string(tier.mtuBytes));
    }
    c.mtu = static_cast<uint16_t>(tier.mtuBytes);
    c.flowControl = ToFabricFlowControl(tier.flowControl);
    if (tier.portBufferBytes > 0)
    {
        c.creditBufferBytes = tier.portBufferBytes;
    }
    // ECN marking matters where endpoints react to it (RoCE's DCQCN).
    c.ecn = ethernet;
    return c;
}

TypeId
FabricNetwork::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetwork")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricNetwork>()
            .AddAttribute("EcmpSeed",
                          "Seed of every switch's ECMP hash (FabricSwitch::EcmpSeed).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetwork::m_ecmpSeed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("NvlinkTransferUnitBytes",
                          "NVLink links: 0 simulates each link packet (the tier's mtu_bytes, "
                          "256 B); a multiple of it sends transfer units of that size, each "
                          "framed as its link packets are (one header per mtu_bytes), with one "
                          "event per unit instead of per packet.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetwork::m_nvlinkUnit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PcieTransferUnitBytes",
                          "PCIe links: as NvlinkTransferUnitBytes. Where a PCIe link leads to a "
                          "NIC the unit is also the RDMA packet the NIC sends on (no "
                          "re-packetisation at the NIC).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetwork::m_pcieUnit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("NetworkTransferUnitBytes",
                          "RoCE, Ethernet and InfiniBand links (and the PCIe links that carry "
                          "a NIC's packets): 0 simulates each MTU packet; a multiple of the "
                          "NICs' path MTU (up to 256 of them) is the network transfer unit: "
                          "the NIC (RdmaNic::TransferUnitBytes) sends that much data as one "
                          "packet, framed on every port as its MTU packets (same wire bytes), "
                          "one event per unit and hop (doc/fabric.md).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetwork::m_networkUnit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("NetworkLinkPacketBytes",
                          "Data bytes of one link packet of a network transfer unit (the "
                          "NICs' path MTU); 0 derives it from the tiers at the endpoints.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetwork::m_networkLinkPacket),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("WatchdogStallTime",
                          "Stall time of the watchdog InstallWatchdog() starts.",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&FabricNetwork::m_watchdogStall),
                          MakeTimeChecker(PicoSeconds(1)))
            .AddAttribute("Partition",
                          "Under MPI with more than one rank: which rank owns each node "
                          "(topology-partition.h): auto (each leaf/ToR with its hosts, each "
                          "server whole, spines spread), pod, or rank-map:FILE. One process: "
                          "unused.",
                          StringValue("auto"),
                          MakeStringAccessor(&FabricNetwork::m_partitionMode),
                          MakeStringChecker());
    return tid;
}

FabricNetwork::FabricNetwork() = default;
FabricNetwork::~FabricNetwork() = default;

void
FabricNetwork::DoDispose()
{
    m_links.clear();
    m_deviceLink.clear();
    m_nodes.clear();
    m_all = NodeContainer();
    m_endpoints = NodeContainer();
    m_switches = NodeContainer();
    m_watchdog = nullptr;
    Object::DoDispose();
}

bool
FabricNetwork::HasTransferUnit(const TopologyTier& tier)
{
    return tier.protocol == "nvlink" || tier.protocol == "pcie";
}

uint32_t
FabricNetwork::GetTransferUnit(const TopologyTier& tier) const
{
    return tier.protocol == "nvlink" ? m_nvlinkUnit : tier.protocol == "pcie" ? m_pcieUnit : 0;
}

void
FabricNetwork::ApplyTransferUnit(const TopologyTier& tier, FabricLinkConfig& cfg) const
{
    const uint32_t unit = GetTransferUnit(tier);
    if (unit == 0)
    {
        return;
    }
    if (unit < cfg.mtu || unit % cfg.mtu != 0 || unit > 65535)
    {
        throw std::invalid_argument("transfer unit of tier " + tier.name + ": expected a multiple of its mtu_bytes " +
                                    std::to_string(cfg.mtu) + " up to 65535, got " + std::to_string(unit));
    }
    cfg.headerGranuleBytes = cfg.mtu;
    cfg.mtu = static_cast<uint16_t>(unit);
}

uint32_t
FabricNetwork::NicPathMtu(uint32_t tierMtuBytes)
{
    uint32_t mtu = 256;
    while (mtu * 2 <= std::min<uint32_t>(tierMtuBytes, 4096))
    {
        mtu *= 2;
    }
    return mtu;
}

uint32_t
FabricNetwork::DeriveNetworkLinkPacketBytes(const TopologyDescription& d)
{
    uint32_t m = 4096;
    std::set<std::string> endpoints;
    for (const TopologyNode& n : d.nodes)
    {
        if (IsEndpointKind(n.kind))
        {
            endpoints.insert(n.name);
        }
    }
    auto endpoint = [&endpoints](const std::string& name) { return endpoints.count(name) > 0; };
    for (const TopologyLink& l : d.links)
    {
        const int t = d.FindTier(l.tier);
        if (t >= 0 && d.tiers[t].protocol != "nvlink" && (endpoint(l.a) || endpoint(l.b)))
        {
            m = std::min(m, NicPathMtu(d.tiers[t].mtuBytes));
        }
    }
    return m;
}

bool
FabricNetwork::CarriesNetworkUnit(const TopologyTier& tier)
{
    return tier.protocol == "roce" || tier.protocol == "ethernet" || tier.protocol == "infiniband" ||
           tier.protocol == "pcie";
}

void
FabricNetwork::ApplyNetworkTransferUnit(const TopologyTier& tier, FabricLinkConfig& cfg) const
{
    if (m_networkUnit == 0 || !CarriesNetworkUnit(tier))
    {
        return;
    }
    const uint32_t m = m_networkLinkPacket;
    if (m_pcieUnit != 0)
    {
        throw std::invalid_argument("network transfer unit: expected no PCIe transfer unit with it (a NIC behind "
                                    "PCIe sends the PCIe unit as its packet), got " +
                                    std::to_string(m_pcieUnit));
    }
    if (m_networkUnit < m || m_networkUnit % m != 0 || m_networkUnit / m > 256)
    {
        throw std::invalid_argument("network transfer unit: expected a multiple of the NICs' path MTU " +
                                    std::to_string(m) + " B up to 256 of them, got " +
                                    std::to_string(m_networkUnit));
    }
    const uint32_t n = m_networkUnit / m;
    // The unit's size: its data, the first packet's transport headers (BTH,
    // RETH, ImmDt at most) and the BTH of each later link packet
    // (RdmaNic::TransferUnitBytes).
    const uint32_t payload = RdmaNic::UnitPacketBytes(m_networkUnit, m, false);
    cfg.maxPayloadBytes = std::max<uint32_t>(cfg.mtu, payload);
    cfg.unitLinkPackets = n;
    if (cfg.flowControl == FabricFlowControlMode::CREDIT)
    {
        // A unit takes its credit at once: a buffer that holds less than
        // two would stall the link (or never admit one). Raised to two
        // units' wire bytes (a modelling change, doc/fabric.md).
        const uint64_t unitWire = uint64_t(payload) + uint64_t(n) * cfg.headerBytes;
        cfg.creditBufferBytes = std::max<uint64_t>(cfg.creditBufferBytes, 2 * unitWire);
    }
}

void
FabricNetwork::Build(const TopologyDescription& description)
{
    if (m_graph)
    {
        throw std::logic_error("FabricNetwork::Build called twice");
    }
    m_graph = std::make_unique<TopologyGraph>(description);
    const TopologyGraph& g = *m_graph;
    if (m_networkUnit != 0 && m_networkLinkPacket == 0)
    {
        // The NICs' path MTU: the packets of a unit are theirs.
        m_networkLinkPacket = DeriveNetworkLinkPacketBytes(description);
    }
    uint32_t ranks = 1;
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        ranks = MpiInterface::GetSize();
        m_localSystemId = MpiInterface::GetSystemId();
    }
#endif
    m_partition = ranks > 1 ? PartitionTopology(g, ranks, m_partitionMode, "--ns3::FabricNetwork::Partition")
                            : TopologyPartition{1, std::vector<uint32_t>(g.NodeCount(), 0), 0, Time(0)};
    FabricHelper helper;
    for (uint32_t v = 0; v < g.NodeCount(); ++v)
    {
        Ptr<Node> node;
        const uint32_t systemId = m_partition.owner[v];
        if (IsEndpointKind(g.Node(v).kind))
        {
            node = CreateObject<Node>(systemId);
        }
        else
        {
            const TopologyTier* t = g.NodeTier(v);
            Ptr<FabricSwitch> sw = helper.CreateSwitch(t->forwardingLatency, t->cutThrough, systemId);
            sw->SetAttribute("EcmpSeed", UintegerValue(m_ecmpSeed));
            // INT hops at network switches only (FabricSwitch::IntStamping).
            sw->SetAttribute("IntStamping", BooleanValue(t->protocol != "pcie" && t->protocol != "nvlink"));
            if (t->switchBufferBytes > 0)
            {
                sw->GetBuffer()->SetAttribute("BufferBytes", UintegerValue(t->switchBufferBytes));
            }
            if (t->protocol == "nvlink" && g.Node(v).kind == TopologyNodeKind::SWITCH)
            {
                // NVSwitch: NVLink SHARP (in-switch reduction and multicast).
                Ptr<FabricSwitchReduction> nvls = CreateObject<FabricSwitchReduction>();
                nvls->SetAttribute("ReductionRate", DataRateValue(NvlsReductionRate(t->laneRate)));
                ApplyUserAttributes(nvls);
                sw->SetReduction(nvls);
            }
            // The user's --ns3:: or scenario values win over the tier's.
            ApplyUserAttributes(sw);
            ApplyUserAttributes(sw->GetBuffer());
            m_switches.Add(sw);
            node = sw;
        }
        m_nodes.push_back(node);
        m_all.Add(node);
    }
    for (uint32_t r = 0; r < g.EndpointCount(); ++r)
    {
        m_endpoints.Add(m_nodes[g.EndpointNode(r)]);
    }
    for (uint32_t l = 0; l < g.LinkCount(); ++l)
    {
        FabricLinkConfig cfg = MakeFabricLinkConfig(g.LinkTier(l), g.Link(l).lanes);
        ApplyTransferUnit(g.LinkTier(l), cfg);
        ApplyNetworkTransferUnit(g.LinkTier(l), cfg);
        FabricLink link = helper.Connect(m_nodes[g.LinkA(l)], m_nodes[g.LinkB(l)], cfg);
        for (bool a : {true, false})
        {
            uint32_t v = a ? g.LinkA(l) : g.LinkB(l);
            int rank = g.RankOf(v);
            if (rank >= 0)
            {
                (a ? link.devA : link.devB)->SetFabricAddress(static_cast<uint32_t>(rank));
            }
        }
        m_deviceLink[PeekPointer(link.devA)] = l;
        m_deviceLink[PeekPointer(link.devB)] = l;
        m_linkPortA.push_back(link.portA);
        m_linkPortB.push_back(link.portB);
        m_links.push_back(link);
    }
    // Routes: a switch's egress candidates for each endpoint, as its port indices.
    std::vector<uint32_t> ports;
    for (uint32_t v = 0; v < g.NodeCount(); ++v)
    {
        Ptr<FabricSwitch> sw = GetSwitch(v);
        if (!sw)
        {
            continue;
        }
        for (uint32_t r = 0; r < g.EndpointCount(); ++r)
        {
            ports.clear();
            for (const auto& h : g.NextHops(v, r))
            {
                ports.push_back(g.LinkA(h.link) == v ? m_linkPortA[h.link] : m_linkPortB[h.link]);
            }
            if (!ports.empty())
            {
                sw->AddRoute(r, ports);
            }
        }
    }
    NS_LOG_INFO("built " << g.NodeCount() << " nodes (" << m_switches.GetN()
                         << " switches/NICs), " << g.LinkCount() << " links");
}

void
FabricNetwork::CheckBuilt() const
{
    if (!m_graph)
    {
        throw std::logic_error("FabricNetwork: Build() has not been called");
    }
}

const TopologyGraph&
FabricNetwork::GetTopology() const
{
    CheckBuilt();
    return *m_graph;
}

uint32_t
FabricNetwork::GetNEndpoints() const
{
    return GetTopology().EndpointCount();
}

Ptr<Node>
FabricNetwork::GetNode(uint32_t topologyNode) const
{
    CheckBuilt();
    return m_nodes.at(topologyNode);
}

Ptr<Node>
FabricNetwork::GetEndpointNode(uint32_t rank) const
{
    return GetNode(GetTopology().EndpointNode(rank));
}

std::vector<Ptr<FabricNetDevice>>
FabricNetwork::GetEndpointDevices(uint32_t rank) const
{
    const TopologyGraph& g = GetTopology();
    uint32_t v = g.EndpointNode(rank);
    std::vector<Ptr<FabricNetDevice>> devs;
    for (uint32_t l : g.PortsOf(v))
    {
        devs.push_back(GetLinkDevice(l, g.LinkA(l) == v));
    }
    return devs;
}

Ptr<FabricNetDevice>
FabricNetwork::GetEndpointDevice(uint32_t rank) const
{
    return GetEndpointDevices(rank).at(0);
}

Ptr<FabricNetDevice>
FabricNetwork::GetEgressDevice(uint32_t srcRank, uint32_t dstRank, uint32_t flowId) const
{
    const TopologyGraph& g = GetTopology();
    uint32_t v = g.EndpointNode(srcRank);
    g.EndpointNode(dstRank); // range check
    TopologyNextHops nh = g.NextHops(v, dstRank);
    if (nh.empty())
    {
        return nullptr; // src == dst
    }
    const TopologyNextHop& h = nh[flowId % nh.size()];
    return GetLinkDevice(h.link, g.LinkA(h.link) == v);
}

Ptr<FabricSwitch>
FabricNetwork::GetSwitch(uint32_t topologyNode) const
{
    return DynamicCast<FabricSwitch>(GetNode(topologyNode));
}

Ptr<FabricNetDevice>
FabricNetwork::GetLinkDevice(uint32_t link, bool a) const
{
    CheckBuilt();
    const FabricLink& l = m_links.at(link);
    return a ? l.devA : l.devB;
}

Ptr<FabricChannel>
FabricNetwork::GetLinkChannel(uint32_t link) const
{
    CheckBuilt();
    return m_links.at(link).channel;
}

TopologyPath
FabricNetwork::Path(uint32_t srcRank, uint32_t dstRank, uint64_t flow) const
{
    return GetTopology().Path(srcRank, dstRank, flow);
}

TopologyPath
FabricNetwork::PacketPath(uint32_t srcRank, uint32_t dstRank, uint32_t flowId, uint8_t priority) const
{
    const TopologyGraph& g = GetTopology();
    TopologyPath path;
    path.srcRank = srcRank;
    path.dstRank = dstRank;
    path.srcNode = g.EndpointNode(srcRank);
    path.dstNode = g.EndpointNode(dstRank);
    const FabricHeader header(srcRank, dstRank, flowId, priority);
    Ptr<FabricNetDevice> dev = GetEgressDevice(srcRank, dstRank, flowId);
    uint32_t at = path.srcNode;
    while (dev && at != path.dstNode && path.hops.size() <= g.NodeCount())
    {
        uint32_t link = m_deviceLink.at(PeekPointer(dev));
        path.hops.push_back(g.MakeHop(link, at, path.dstNode));
        at = g.Peer(link, at);
        Ptr<FabricSwitch> sw = GetSwitch(at);
        if (!sw)
        {
            break;
        }
        uint32_t port = sw->SelectEgress(header);
        if (port == 0xFFFFFFFFu)
        {
            throw std::logic_error("FabricNetwork: no route at " + g.Node(at).name);
        }
        dev = sw->GetPort(port);
    }
    if (at != path.dstNode)
    {
        throw std::logic_error("FabricNetwork: packet path from rank " + std::to_string(srcRank) +
                               " does not reach rank " + std::to_string(dstRank));
    }
    return path;
}

std::vector<FabricPortReport>
FabricNetwork::CollectCounters() const
{
    CheckBuilt();
    return FabricHelper::CollectCounters(m_all);
}

FabricConservation
FabricNetwork::CheckConservation() const
{
    CheckBuilt();
    return FabricHelper::CheckConservation(m_all);
}

void
FabricNetwork::AssertConservation() const
{
    FabricConservation c = CheckConservation();
    if (!c.ok)
    {
        throw std::runtime_error(c.message);
    }
}

FabricConservation
FabricNetwork::FinishRun(const FabricSumOverRanks& sum) const
{
    CheckBuilt();
    FabricConservation c = m_partition.ranks > 1 && sum ? CheckFabricConservation(m_all, m_localSystemId, sum)
                                                        : CheckConservation();
    if (m_watchdog && m_watchdog->HasFired())
    {
        c.ok = false;
        c.message = "ERROR: " + m_watchdog->GetMessage() + "; " + c.message;
    }
    if (m_watchdog && !m_watchdog->GetPfcStorms().empty())
    {
        // A storm the ports' watchdog caught is reported, not a failure.
        c.message += "; " + m_watchdog->GetPfcStormReport();
    }
    return c;
}

Ptr<FabricWatchdog>
FabricNetwork::InstallWatchdog()
{
    return InstallWatchdog(m_watchdogStall);
}

Ptr<FabricWatchdog>
FabricNetwork::InstallWatchdog(Time stallTime)
{
    CheckBuilt();
    if (m_watchdog)
    {
        m_watchdog->Dispose(); // one watchdog at a time
    }
    Ptr<FabricWatchdog> w = CreateObject<FabricWatchdog>();
    w->SetAttribute("StallTime", TimeValue(stallTime));
    ApplyUserAttributes(w); // a user's FabricWatchdog::StallTime wins
    // Messages name the topology's nodes (ns-3 id = first id + topology id).
    const uint32_t first = m_nodes.empty() ? 0 : m_nodes.front()->GetId();
    const TopologyGraph* g = m_graph.get();
    w->SetNodeNamer([g, first](uint32_t id) {
        return id >= first && id - first < g->NodeCount() ? g->Node(id - first).name : "node " + std::to_string(id);
    });
    w->Install(m_all);
    m_watchdog = w;
    return w;
}

void
FabricNetwork::EnablePcap(const std::string& prefix) const
{
    CheckBuilt();
    FabricHelper::EnablePcap(prefix, m_all);
}

int64_t
FabricNetwork::AssignStreams(int64_t stream)
{
    CheckBuilt();
    int64_t used = 0;
    for (uint32_t i = 0; i < m_switches.GetN(); ++i)
    {
        used += DynamicCast<FabricSwitch>(m_switches.Get(i))->AssignStreams(stream + used);
    }
    // Then the wires' error models (lossy links), in link order, end a then
    // b: after the switches', so a fabric without lossy links draws exactly
    // the streams it drew before they existed.
    for (uint32_t l = 0; l < m_graph->LinkCount(); ++l)
    {
        for (bool a : {true, false})
        {
            used += GetLinkDevice(l, a)->AssignStreams(stream + used);
        }
    }
    return used;
}

} // namespace ns3
