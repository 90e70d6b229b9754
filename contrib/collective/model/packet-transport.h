// SPDX-License-Identifier: GPL-2.0-only
//
// A Transport over the packet-level fabric: the fabric built from a topology
// description (FabricNetwork), one RdmaEndpoint per rank with one RdmaNic on
// each of its ports, and the RdmaMessenger carrying every message (eager,
// rendezvous or pipeline by size, software overhead per message, DCQCN or no
// congestion control at the NICs). A rank's ports are grouped into domains by
// what they reach (an NVLink port reaches its server's GPUs, a PCIe port to a
// NIC the whole cluster), the narrower first, so that a pair inside a server
// talks over NVLink and the rest over the network.
#ifndef HOCKNEY_PACKET_TRANSPORT_H
#define HOCKNEY_PACKET_TRANSPORT_H

#include "collective-transport.h"
#include "fabric-reduction-endpoint.h"
#include "rdma-congestion-control.h"
#include "rdma-endpoint.h"
#include "rdma-helper.h"
#include "topology-builder.h"
#include "topology-description.h"

#include "ns3/object-factory.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// What a packet run did, for the rows of `hockney compare`.
struct PacketRunCounters
{
    uint64_t bytesSent = 0;      ///< user payload handed to Send
    uint64_t bytesDelivered = 0; ///< user payload delivered
    uint64_t drops = 0;          ///< data packets dropped anywhere
    /// Of drops, by cause (FabricDropCause: buffer, no_route, link_down, corrupt).
    std::array<uint64_t, kFabricDropCauses> dropsBy{};
    /// The NICs the fabric's PFC watchdog caught storming, comma-separated
    /// ("" when none; FabricWatchdog::GetPfcStormNodes).
    std::string pfcStorms;
    uint64_t pfcPauses = 0;      ///< PFC pause frames sent
    uint64_t ecnMarks = 0;       ///< packets marked CE
    uint64_t cnps = 0;           ///< congestion notification packets sent
    /// Link crossings of packets that carry payload (data packets of the
    /// NICs), summed over every port's transmitter.
    uint64_t dataHops = 0;
    /// Link crossings of everything else: ACKs, NAKs, CNPs, credit updates
    /// (also those riding in a data packet's framing) and pause frames.
    uint64_t controlHops = 0;
};

class PacketTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId();
    PacketTransport();

    /// Attributes of every RdmaEndpoint (SendOverhead, EagerLimit, ...) and
    /// RdmaNic (EcnCapable, ...) Build() creates; set before Build().
    void SetEndpointAttribute(const std::string& name, const AttributeValue& value);
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    /// true: no transport header bytes on any port (the ideal fabric); NVLink
    /// ports never carry them (their own header holds them).
    void SetHeadersInTag(bool inTag);
    /// The NIC of every Ethernet or InfiniBand port takes the preset's NIC
    /// attributes (HeadersInTag, Mtu, PcieRate, PcieLatency, EngineStartup,
    /// AckInterval; not its congestion control) instead of the derived ones.
    /// Build() throws InputError naming \p field when a port's rate is not
    /// the preset's line rate, the preset's MTU exceeds the port's, or no
    /// port takes it. Set before Build().
    void SetNicPreset(const RdmaNicPreset& preset, const std::string& field);
    /// NVLink and PCIe tiers: send transfer units of these many bytes,
    /// framed as their link packets (FabricNetwork::NvlinkTransferUnitBytes,
    /// PcieTransferUnitBytes); 0: each link packet. Set before Build().
    void SetTransferUnits(uint32_t nvlinkBytes, uint32_t pcieBytes);
    /// The network transfer unit (FabricNetwork::NetworkTransferUnitBytes,
    /// RdmaNic::TransferUnitBytes on every non-NVLink NIC): 0 = each MTU
    /// packet. \p field names it in input errors.
    void SetNetworkTransferUnit(uint32_t bytes);
    void SetNetworkTransferUnitField(const std::string& field) { m_networkUnitField = field; }

    /// Seeds the run; set before Build(). Every packet run of hockney is
    /// seeded here, the same way (compare's packet backend and flows, the
    /// incast trace, the calibration sweep, each sweep point's compare):
    /// ns-3's global seed (RngSeedManager::SetSeed; 0 is taken as 1, as ns-3
    /// needs a positive seed), the ECMP hash of every switch
    /// (FabricNetwork::EcmpSeed = max(seed, 1) - 1, so that the default seed
    /// 1 hashes as EcmpSeed 0; the user's --ns3::FabricNetwork::EcmpSeed or
    /// FabricSwitch::EcmpSeed wins) and the RED draws of every ECN marker
    /// (FabricNetwork::AssignStreams from stream number \p seed, so that they
    /// do not depend on what else the process created before; then those of
    /// the wires' error models SetWireSetup installs). Without it, Build()
    /// seeds nothing: ns-3's defaults.
    void SetSeed(uint32_t seed);
    /// What Build() installs on the network's wires once it is built and
    /// before it seeds the run (SetSeed): the error models of lossy links
    /// (fabric.faults lossy_link), whose random streams are then assigned
    /// with the switches' in the one AssignStreams. Set before Build().
    void SetWireSetup(std::function<void(FabricNetwork&)> setup);
    /// Under MPI with more than one rank: which rank owns each node
    /// (FabricNetwork::Partition: auto, pod, rank-map:FILE). Set before Build().
    void SetPartition(const std::string& mode);
    /// Builds the fabric and the ranks' endpoints (all of the topology's
    /// endpoints, rank = endpoint order). \p cc is copied to every NIC (null:
    /// no congestion control). Throws std::invalid_argument naming the field
    /// of a bad description.
    void Build(const TopologyDescription& description, Ptr<RdmaCongestionControl> cc = nullptr);
    /// The congestion control of a NIC whose port runs at the given rate
    /// (null: none); a preset may scale with the rate.
    using CongestionControlFactory = std::function<Ptr<RdmaCongestionControl>(DataRate)>;
    /// Build() with a congestion control per NIC from \p ccFor (empty: none).
    void Build(const TopologyDescription& description, const CongestionControlFactory& ccFor);

    Ptr<FabricNetwork> GetNetwork() const;
    Ptr<RdmaMessenger> GetMessenger() const;
    /// The NICs a QP from rank src to rank dst joins: the first NIC of src
    /// (narrowest domain first) that shares a domain with one of dst's, as
    /// the messenger connects them. For raw QPs beside the messenger (flows).
    /// \throws std::invalid_argument if the ranks share no domain.
    std::pair<Ptr<RdmaNic>, Ptr<RdmaNic>> NicPair(uint32_t src, uint32_t dst) const;
    PacketRunCounters GetCounters() const;
    /// The check every packet run ends with: the fabric's
    /// FabricNetwork::FinishRun (payload conservation, no drop on a lossless
    /// fabric, the watchdog if installed) and, at the messaging layer, user
    /// payload delivered == payload handed to Send. ok = false, with the
    /// violations named in message, otherwise. Call before Simulator::Destroy.
    /// Over MPI ranks every rank calls it with \p sum, and every rank gets
    /// the whole run's check, that of one process (FabricNetwork::FinishRun).
    FabricConservation FinishRun(const FabricSumOverRanks& sum = {}) const;
    /// The fabric's watchdog (FabricNetwork::InstallWatchdog), waiting at
    /// least two of the NICs' retransmission timeouts: a lossy fabric may sit
    /// still for one timeout (a lost last packet), which is recovery, not a
    /// deadlock. Quiet simulated time costs no events. Call after Build().
    Ptr<FabricWatchdog> InstallWatchdog();

    /// The NVSwitch all of \p ranks hang on with one port each, if it
    /// reduces in the switch (FabricSwitch::GetReduction), with each rank's
    /// port index there; nullptr if there is none.
    static Ptr<FabricSwitch> CommonReducingSwitch(const FabricNetwork& network,
                                                  const std::vector<uint32_t>& ranks,
                                                  std::vector<uint32_t>* ports = nullptr);

    // Transport
    /// Creates the queue pair of src and dst now (RdmaMessenger::Connect):
    /// each NIC numbers its QPs in the order they are made.
    void Connect(uint32_t src, uint32_t dst) override;
    /// The messenger's SendWithId and Expect, \p tag the message id.
    void SendTagged(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t tag, DeliveryCallback onDelivered) override;
    void ExpectTagged(uint32_t src, uint32_t dst, uint32_t tag, DeliveryCallback onDelivered) override;
    void Send(uint32_t src, uint32_t dst, uint64_t bytes, DeliveryCallback onDelivered) override;
    /// The switch really reduces: src's contribution goes to the NVSwitch
    /// as packets addressed to the group, the switch adds and multicasts
    /// (FabricSwitchReduction); src's endpoint SendOverhead before the
    /// contribution leaves, dst's ReceiveOverhead after the sum arrived. Throws std::logic_error if the group's
    /// ranks share no such switch (compare refuses that earlier, as input).
    void SendThroughSwitch(uint32_t src,
                           uint32_t dst,
                           uint64_t bytes,
                           const SwitchGroup& group,
                           DeliveryCallback onDelivered) override;
    uint32_t GetRanks() const override;
    std::string GetTransportName() const override;

  protected:
    void DoDispose() override;

  private:
    Ptr<FabricNetwork> m_network;
    Ptr<RdmaMessenger> m_messenger;
    /// Per rank, its in-switch reduction endpoint (made at its first use).
    std::vector<Ptr<FabricReductionEndpoint>> m_reductionEndpoints;
    /// A group in progress: the sources that sent their copy, the ops seen,
    /// and per receiver the deliveries waiting for its sum (a receiver may
    /// be the dst of several ops: a reduce-scatter's head).
    struct PendingGroup
    {
        std::set<uint32_t> contributed;
        uint32_t ops = 0;
        std::map<uint32_t, std::shared_ptr<std::vector<DeliveryCallback>>> waiting;
    };
    std::map<uint32_t, PendingGroup> m_contributed;
    Ptr<FabricReductionEndpoint> ReductionEndpoint(uint32_t rank);
    /// Per rank, its NICs and their domains, in the endpoint's order.
    std::vector<std::vector<std::pair<Ptr<RdmaNic>, uint32_t>>> m_nics;
    ObjectFactory m_endpointFactory;
    ObjectFactory m_nicFactory;
    bool m_headersInTag;
    void CheckNicPreset(const RdmaNicPreset& preset, Ptr<FabricNetDevice> port, const std::string& tier) const;

    std::optional<RdmaNicPreset> m_nicPreset;
    std::string m_nicPresetField;
    uint32_t m_nvlinkUnit;
    uint32_t m_pcieUnit;
    uint32_t m_networkUnit{0}; ///< SetNetworkTransferUnit's
    std::string m_networkUnitField{"--network-transfer-unit"};
    std::optional<uint32_t> m_seed; ///< SetSeed's; unset: Build() seeds nothing
    std::function<void(FabricNetwork&)> m_wireSetup; ///< SetWireSetup's
    std::string m_partition = "auto"; ///< SetPartition's
};

} // namespace ns3

#endif
