// SPDX-License-Identifier: GPL-2.0-only
//
// pcap files of fabric ports, written from the port's Sniffer trace source
// (every packet the port sends or receives, data and link-local frames, with
// the FabricHeader at the front), as ns-3's PcapHelperForDevice writes them
// from a point-to-point device's Sniffer.
//
// Link types (FabricLinkType):
//   ETHERNET    DLT_EN10MB; the FabricHeader becomes RoCEv2 framing: Ethernet
//               with an IEEE 802.1Q tag (PCP = class), IPv4 (DSCP CSn = class,
//               ECN bits, DF, TTL 64, checksum; 10.a.b.c from the endpoint id),
//               UDP to 4791 with the flow in the source port (RoCEv2 annex of
//               the IBTA specification), the payload, a 4-byte ICRC (zeros).
//               PFC frames are IEEE 802.1Qbb MAC control frames (01:80:C2:00:00:01,
//               EtherType 0x8808, opcode 0x0101, vector, 8 timers, padded to
//               60 bytes); credit updates, which Ethernet has not, go under the
//               local experimental EtherType 0x88B5 (IEEE 802).
//   INFINIBAND  DLT_USER0, NVLINK DLT_USER1, PCIE DLT_USER2, GENERIC DLT_USER3:
//               the FabricHeader and payload as they are.
#ifndef HOCKNEY_FABRIC_PCAP_HELPER_H
#define HOCKNEY_FABRIC_PCAP_HELPER_H

#include "fabric-net-device.h"

#include "ns3/node-container.h"
#include "ns3/pcap-file-wrapper.h"

#include <cstdint>
#include <string>

namespace ns3
{

class FabricPcapHelper
{
  public:
    /// One pcap file per port: PREFIX-NODE-DEVICE.pcap, closed with the port.
    static void EnablePcap(const std::string& prefix, Ptr<FabricNetDevice> dev);
    /// Every FabricNetDevice of \p nodes.
    static void EnablePcap(const std::string& prefix, const NodeContainer& nodes);

    /// The pcap data-link type of a port of \p type.
    static uint32_t DataLinkType(FabricLinkType type);
    /// Writes \p packet (FabricHeader at the front) as a port of \p type shows
    /// it; \p portMac: the port's own MAC, the source of its PFC frames.
    static void Write(Ptr<PcapFileWrapper> file, FabricLinkType type, uint32_t portMac,
                      Ptr<const Packet> packet);
};

} // namespace ns3

#endif
