// SPDX-License-Identifier: GPL-2.0-only
//
// From one TopologyDescription to a running packet-level fabric: an ns-3 node
// per topology node (FabricSwitch for switches and NICs, plain Node for GPUs
// and hosts), a FabricChannel with a FabricNetDevice at each end per link
// (parameters from the link's tier, rate = lanes x lane rate), and every
// switch's route table from the topology's equal-cost next hops. Endpoint
// devices carry their rank as fabric address.
//
//   Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
//   net->Build(MakePreset("rail-h100-2n"));
//   Ptr<FabricNetDevice> dev = net->GetEgressDevice(0, 8, flow);
//   dev->SendFabric(packet, FabricHeader(0, 8, flow, 0));
//   net->InstallWatchdog();
//   Simulator::Run();
//   FabricConservation c = net->FinishRun();   // every run ends with it
//   if (!c.ok) { std::cerr << c.message << "\n"; return 1; }
//
// Deterministic (so every rank of ns-3's distributed simulator builds the same
// network): nodes are created in topology order
// (ns-3 node id = GetNode(0)->GetId() + topology id), links in link order, so
// every switch's port i is its i-th link, the same on every run and rank.
// Under ns-3's distributed simulator (MpiInterface enabled with N > 1 ranks)
// each node is created with the system id the Partition attribute gives it
// (topology-partition.h) and a link between two ranks is a
// FabricRemoteChannel; in one process every node is rank 0's.
// A NIC is modelled as a two-port FabricSwitch between its PCIe link and its
// network link (forwarding latency and store-and-forward from its tier).
#ifndef HOCKNEY_TOPOLOGY_BUILDER_H
#define HOCKNEY_TOPOLOGY_BUILDER_H

#include "fabric-helper.h"
#include "topology-graph.h"
#include "topology-partition.h"

#include "ns3/node-container.h"
#include "ns3/object.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// The link parameters B's helper takes, from a tier and a lane count.
/// Throws std::invalid_argument naming tiers[i].mtu_bytes if the MTU does not
/// fit a port (at most 65535 bytes).
FabricLinkConfig MakeFabricLinkConfig(const TopologyTier& tier, uint32_t lanes);
/// TopologyFlowControl to the fabric's mode.
FabricFlowControlMode ToFabricFlowControl(TopologyFlowControl fc);
/// A tier's protocol label ("nvlink", "pcie", "infiniband", "roce",
/// "ethernet") to the port's link type (GENERIC for others).
FabricLinkType ToFabricLinkType(const std::string& protocol);

class FabricNetwork : public Object
{
  public:
    static TypeId GetTypeId();
    FabricNetwork();
    ~FabricNetwork() override;

    /// Validates and routes the description (std::invalid_argument naming the
    /// field), then creates nodes, links and routes. Call once.
    void Build(const TopologyDescription& description);

    const TopologyGraph& GetTopology() const;
    /// Which rank owns each node (one rank in one process).
    const TopologyPartition& GetPartition() const { return m_partition; }
    /// This process's MPI rank (its system id; 0 in one process): the
    /// nodes it owns are those GetPartition().owner gives it.
    uint32_t GetLocalSystemId() const { return m_localSystemId; }

    uint32_t GetNEndpoints() const;
    /// The ns-3 node of a topology node id.
    Ptr<Node> GetNode(uint32_t topologyNode) const;
    /// The ns-3 node of an endpoint rank.
    Ptr<Node> GetEndpointNode(uint32_t rank) const;
    /// The endpoint's ports, in the order of its links (one for a GPU on one
    /// NVSwitch, two for a rail GPU: NVLink and PCIe, four with split chips).
    std::vector<Ptr<FabricNetDevice>> GetEndpointDevices(uint32_t rank) const;
    /// The endpoint's first port (its only one on single-homed endpoints).
    Ptr<FabricNetDevice> GetEndpointDevice(uint32_t rank) const;
    /// The port an endpoint sends to dstRank from: its next hop towards dst,
    /// (flowId mod n) among n equal-cost ones.
    Ptr<FabricNetDevice> GetEgressDevice(uint32_t srcRank, uint32_t dstRank, uint32_t flowId = 0) const;
    /// The switch (or NIC) of a forwarding topology node; nullptr for endpoints.
    Ptr<FabricSwitch> GetSwitch(uint32_t topologyNode) const;
    /// The device at end `a` (true) or `b` (false) of a link.
    Ptr<FabricNetDevice> GetLinkDevice(uint32_t link, bool a) const;
    Ptr<FabricChannel> GetLinkChannel(uint32_t link) const;

    NodeContainer GetNodes() const { return m_all; }         ///< every node, topology order
    NodeContainer GetEndpoints() const { return m_endpoints; } ///< by rank
    NodeContainer GetSwitches() const { return m_switches; }   ///< switches and NICs

    /// The topology path of a flow (what the analytic side uses): flow f takes
    /// next hop (f mod n) at each node, see TopologyGraph::Path.
    TopologyPath Path(uint32_t srcRank, uint32_t dstRank, uint64_t flow = 0) const;
    /// The path the packet simulation gives a packet of this flow: the
    /// endpoint's GetEgressDevice, then each switch's own ECMP hash
    /// (FabricSwitch::SelectEgress on the header), as a TopologyPath.
    TopologyPath PacketPath(uint32_t srcRank, uint32_t dstRank, uint32_t flowId = 0,
                            uint8_t priority = 0) const;

    // ---- run-end checks ------------------------------------------------
    /// Every port's counters, node then device order.
    std::vector<FabricPortReport> CollectCounters() const;
    /// Bytes entering = delivered + dropped + in flight; zero drops if lossless.
    FabricConservation CheckConservation() const;
    /// CheckConservation, throwing std::runtime_error with its message if not ok.
    void AssertConservation() const;
    /// The check every run ends with (bytes sent == bytes delivered, and no
    /// drop on a lossless fabric): CheckConservation, and if the watchdog InstallWatchdog
    /// started has stopped the run, ok = false with the watchdog's message
    /// (which names the blocked ports) in front of the conservation line;
    /// PFC storms the watchdog saw are appended (reported, still ok).
    /// Partitioned over MPI ranks (GetPartition().ranks > 1), every rank
    /// calls it with \p sum (FabricSumOverRanks): the conservation of the
    /// whole fabric, its ports on every rank (CheckFabricConservation with
    /// this rank's system id); the storms are the watchdog's as they are
    /// (FabricWatchdog::GatherPfcStorms first for every rank's).
    FabricConservation FinishRun(const FabricSumOverRanks& sum = {}) const;
    /// Starts a watchdog over every node (StallTime as given, else the
    /// WatchdogStallTime attribute); it stops the run on a deadlock.
    Ptr<FabricWatchdog> InstallWatchdog();
    Ptr<FabricWatchdog> InstallWatchdog(Time stallTime);
    /// The watchdog InstallWatchdog started last (nullptr before).
    Ptr<FabricWatchdog> GetWatchdog() const { return m_watchdog; }
    /// One pcap file per port: PREFIX-NODE-DEVICE.pcap.
    void EnablePcap(const std::string& prefix) const;
    /// Fixes the random streams of every switch's ECN markers, then of the
    /// ports' receive error models (lossy links); returns the count used.
    int64_t AssignStreams(int64_t stream);

    /// True for the tiers a transfer unit applies to (NVLink, PCIe).
    static bool HasTransferUnit(const TopologyTier& tier);
    /// The RDMA NIC's path MTU on a port of \p tierMtuBytes payload: the
    /// largest IB MTU (256 ... 4096) within it, at least 256.
    static uint32_t NicPathMtu(uint32_t tierMtuBytes);
    /// True for the tiers a network transfer unit's packets cross: RoCE,
    /// Ethernet, InfiniBand, and PCIe (a GPU's link to its NIC carries the
    /// NIC's packets).
    static bool CarriesNetworkUnit(const TopologyTier& tier);
    /// The NICs' path MTU a network transfer unit's link packets carry: the
    /// smallest NicPathMtu of the non-NVLink tiers of links at endpoints
    /// (4096 if none).
    static uint32_t DeriveNetworkLinkPacketBytes(const TopologyDescription& description);
    /// NetworkTransferUnitBytes (0: each MTU packet).
    uint32_t GetNetworkTransferUnit() const { return m_networkUnit; }
    /// The data bytes of one link packet of a network transfer unit: the
    /// NICs' path MTU (NetworkLinkPacketBytes, or derived at Build: the
    /// smallest NicPathMtu of the non-NVLink tiers at the endpoints). 0
    /// before Build or without a unit.
    uint32_t GetNetworkLinkPacketBytes() const { return m_networkLinkPacket; }
    /// The transfer unit set for the tier's protocol (0: each link packet).
    uint32_t GetTransferUnit(const TopologyTier& tier) const;

  protected:
    void DoDispose() override;

  private:
    /// The tier's transfer unit (GetTransferUnit): port MTU = the unit, one
    /// header per tier MTU. \throws std::invalid_argument for a unit that is
    /// not a multiple of the tier's MTU.
    void ApplyTransferUnit(const TopologyTier& tier, FabricLinkConfig& cfg) const;
    /// The network transfer unit on a tier that carries it: ports framed as
    /// up to U / m link packets, the payload limit raised to the unit with
    /// its link packets' transport bytes, a credit buffer raised to hold
    /// two units. \throws std::invalid_argument for a unit that is not a
    /// multiple of m (at most 256 m) or combined with a PCIe unit.
    void ApplyNetworkTransferUnit(const TopologyTier& tier, FabricLinkConfig& cfg) const;
    void CheckBuilt() const;

    std::unique_ptr<TopologyGraph> m_graph;
    std::vector<Ptr<Node>> m_nodes;           ///< by topology id
    std::vector<FabricLink> m_links;          ///< by link id
    std::vector<uint32_t> m_linkPortA;        ///< switch port index at end a (or UINT32_MAX)
    std::vector<uint32_t> m_linkPortB;
    std::map<const FabricNetDevice*, uint32_t> m_deviceLink; ///< device -> link id
    NodeContainer m_all;
    NodeContainer m_endpoints;
    NodeContainer m_switches;
    uint32_t m_ecmpSeed{0};
    uint32_t m_nvlinkUnit{0}; ///< attribute NvlinkTransferUnitBytes
    uint32_t m_pcieUnit{0};   ///< attribute PcieTransferUnitBytes
    uint32_t m_networkUnit{0};       ///< attribute NetworkTransferUnitBytes
    uint32_t m_networkLinkPacket{0}; ///< attribute NetworkLinkPacketBytes, derived at Build if 0
    Time m_watchdogStall;
    Ptr<FabricWatchdog> m_watchdog; ///< the last one InstallWatchdog started
    std::string m_partitionMode;    ///< attribute Partition
    TopologyPartition m_partition;
    uint32_t m_localSystemId{0}; ///< GetLocalSystemId, set by Build
};

} // namespace ns3

#endif
