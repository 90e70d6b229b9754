// SPDX-License-Identifier: GPL-2.0-only
//
// Building fabrics by hand: switches, endpoints, links with their rate,
// delay, framing, MTU, flow control and buffer parameters, pcap, counters.
// The topology builders (topology-*) are written on top of this.
//
//   FabricHelper h;
//   Ptr<FabricSwitch> sw = h.CreateSwitch();
//   Ptr<Node> a = CreateObject<Node>();
//   FabricLinkConfig cfg;                     // 100 Gb/s RoCE, PFC by default
//   FabricLink l = h.Connect(a, sw, cfg);     // l.devA: a's port; l.portB: switch port
//   l.devA->SetFabricAddress(0);
//   sw->AddRoute(0, {l.portB});
#ifndef HOCKNEY_FABRIC_HELPER_H
#define HOCKNEY_FABRIC_HELPER_H

#include "fabric-channel.h"
#include "fabric-flow-control.h"
#include "fabric-monitor.h"
#include "fabric-net-device.h"
#include "fabric-switch.h"

#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/// Parameters of one link (both of its ports).
struct FabricLinkConfig
{
    DataRate rate{"100Gbps"};        ///< line rate of each direction
    Time delay{NanoSeconds(1000)};   ///< propagation delay
    /// On-wire framing per packet in place of the FabricHeader. Default:
    /// RoCEv2 over Ethernet, Eth 14 + IPv4 20 + UDP 8 + ICRC 4 + FCS 4 +
    /// preamble/SFD 8 + IFG 12 = 70 (IEEE 802.3, RFC 791/768, IBTA RoCEv2 annex).
    uint32_t headerBytes{70};
    uint32_t minWireBytes{84};       ///< floor of a frame on the wire (Ethernet: 64 + 20)
    uint32_t controlFrameBytes{84};  ///< on-wire bytes of a pause/credit frame
    uint16_t mtu{4096};              ///< max bytes after the FabricHeader
    /// Framing granule (FabricNetDevice::HeaderGranuleBytes): 0 = one
    /// header per packet; else one per granule of payload (a transfer unit
    /// that stands for several link packets).
    uint32_t headerGranuleBytes{0};
    /// Payload limit above the 16-bit mtu (FabricNetDevice::SetMaxPayloadBytes):
    /// 0 = mtu. A network transfer unit's ports (FabricNetwork).
    uint32_t maxPayloadBytes{0};
    /// FabricNetDevice::UnitLinkPackets: the most link packets one packet
    /// stands for (a network transfer unit's MTU packets); 1 otherwise.
    uint32_t unitLinkPackets{1};
    FabricFlowControlMode flowControl{FabricFlowControlMode::PFC};
    FabricLinkType linkType{FabricLinkType::ETHERNET};
    /// Switch-end headroom for PFC; 0 = FabricSwitch::PfcHeadroomBytes
    /// (2 x rate x delay + 3 max frames + a pause frame).
    uint64_t headroomBytes{0};
    /// Credit links: receiver buffer per class granted to the sender.
    uint64_t creditBufferBytes{65536};
    /// Credit links: updates ride on reverse data packets (see
    /// FabricFlowControl::CanPiggyback); false = standalone frames only.
    bool creditPiggyback{true};
    /// PFC: classes that are lossless.
    uint8_t losslessClasses{0xFF};
    /// Switch-egress ECN marking; kmin = 0 takes the per-rate defaults.
    bool ecn{true};
    uint64_t ecnKminBytes{0};
    uint64_t ecnKmaxBytes{0};
    double ecnPmax{0.2};
};

/// The two ports of a link. portA/portB are switch port indices
/// (UINT32_MAX when that end is not a FabricSwitch).
struct FabricLink
{
    Ptr<FabricNetDevice> devA;
    Ptr<FabricNetDevice> devB;
    Ptr<FabricChannel> channel;
    uint32_t portA{0xFFFFFFFFu};
    uint32_t portB{0xFFFFFFFFu};
};

class FabricHelper
{
  public:
    /// A switch with ns-3 attributes set on FabricSwitch (optional pairs
    /// name/value as in ObjectFactory::Set).
    Ptr<FabricSwitch> CreateSwitch() const;
    /// A switch owned by MPI rank \p systemId (ns-3's system id; 0 in one process).
    Ptr<FabricSwitch> CreateSwitch(Time forwardingLatency, bool cutThrough, uint32_t systemId = 0) const;

    /// Connects a and b (either may be a FabricSwitch or a plain Node) by a
    /// new channel; the devices join the nodes (and the switches' ports).
    FabricLink Connect(Ptr<Node> a, Ptr<Node> b, const FabricLinkConfig& cfg) const;

    /// Applies cfg's port parameters to one device (used by Connect).
    static void ConfigureDevice(Ptr<FabricNetDevice> dev, const FabricLinkConfig& cfg);

    /// One pcap file per port: PREFIX-NODE-DEVICE.pcap (FabricPcapHelper).
    static void EnablePcap(const std::string& prefix, Ptr<FabricNetDevice> dev);
    static void EnablePcap(const std::string& prefix, const NodeContainer& nodes);

    static std::vector<FabricPortReport> CollectCounters(const NodeContainer& nodes)
    {
        return CollectFabricCounters(nodes);
    }
    static FabricConservation CheckConservation(const NodeContainer& nodes)
    {
        return CheckFabricConservation(nodes);
    }
};

} // namespace ns3

#endif
