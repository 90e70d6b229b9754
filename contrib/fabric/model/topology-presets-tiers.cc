// SPDX-License-Identifier: GPL-2.0-only
//
// The tier presets of topology-presets.h: NVLink 4/5, PCIe Gen5, InfiniBand
// NDR and RoCEv2 as data, each figure with its source or marked "assumption".
#include "topology-presets-internal.h"
#include "topology-presets.h"

#include <cmath>

namespace ns3
{

using topology_presets::Fail;

TopologyTier
NvLinkTier(int generation)
{
    if (generation != 4 && generation != 5)
    {
        Fail("nvlink", "NVLink generation 4 or 5, got " + std::to_string(generation));
    }
    TopologyTier t;
    t.name = "nvlink";
    t.protocol = "nvlink";
    // NVLink 4: 18 links x 25 GB/s per direction = 450 GB/s per GPU; NVLink 5:
    // 18 x 50 GB/s = 900 GB/s (NVIDIA Hopper and NVLink pages; hardware_anchors.csv).
    t.laneRate = generation == 4 ? DataRate("25GB/s") : DataRate("50GB/s");
    // Assumption: about 1 m of board trace and cable at 5 ns/m.
    t.delay = NanoSeconds(5);
    // A packet is one 16-byte header flit and up to 16 data flits (256 B), as
    // published for NVLink 1/2 (Foley and Danskin, IEEE Micro 37(2), 2017);
    // assumed unchanged in later generations. Goodput 256/272 = 94 % of line rate.
    t.mtuBytes = 256;
    t.headerBytes = 16;
    t.flowControl = TopologyFlowControl::CREDIT;
    // Assumption: enough credits per port for 900 GB/s over a 200 ns credit loop.
    t.portBufferBytes = 256 * 1024;
    // Assumption: NVIDIA publishes no NVSwitch port-to-port latency; 100 ns,
    // forwarded cut-through (also an assumption; doc/fabric.md, Sources).
    t.forwardingLatency = NanoSeconds(100);
    t.cutThrough = true;
    return t;
}

TopologyTier
PcieGen5Tier()
{
    TopologyTier t;
    t.name = "pcie";
    t.protocol = "pcie";
    // 32 GT/s per lane with 128b/130b coding: x16 = 63.0 GB/s per direction raw
    // (hardware_anchors.csv "PCIe Gen5 x16 raw", derived).
    t.laneRate = DataRate(static_cast<uint64_t>(std::llround(32e9 * 128.0 / 130.0)));
    t.delay = NanoSeconds(5); // assumption: short board trace
    // Max payload 256 B (a common server setting, assumption); per TLP: 4-DW
    // header 16 B, sequence number 2 B, LCRC 4 B, framing token 4 B.
    t.mtuBytes = 256;
    t.headerBytes = 26;
    t.flowControl = TopologyFlowControl::CREDIT; // PCIe has credit-based flow control
    // The tier's forwarding nodes are NICs: assumption of 300 ns of NIC pipeline
    // between PCIe and the wire, store-and-forward (a DMA read completes first).
    t.forwardingLatency = NanoSeconds(300);
    t.cutThrough = false;
    return t;
}

TopologyTier
InfinibandNdrTier(const std::string& name)
{
    TopologyTier t;
    t.name = name;
    t.protocol = "infiniband";
    t.laneRate = DataRate("400Gbps"); // NDR port (hardware_anchors.csv, QM97X0 manual)
    // Assumption: 2 m copper at a rail leaf (10 ns), 20 m fibre leaf-spine (100 ns).
    t.delay = name == "spine" ? NanoSeconds(100) : NanoSeconds(10);
    // IB MTU 4096 is the IBTA path MTU of the data payload; link framing per
    // packet LRH 8 + ICRC 4 + VCRC 2 = 14 B (IBTA spec). The transport headers
    // (BTH 12 + RETH 16 + ImmDt 4 = 32 B) are the RDMA NIC's and travel as port
    // payload (fabric-header.h), so the port MTU is 4096 + 32 B.
    t.mtuBytes = kRdmaPortMtuBytes;
    t.headerBytes = 14;
    t.flowControl = TopologyFlowControl::CREDIT; // IB link-level credits
    t.portBufferBytes = 128 * 1024;             // assumption
    // Quantum-2 port-to-port latency: third-party figures 130-400 ns
    // (hardware_anchors.csv, unverified); 200 ns, cut-through.
    t.forwardingLatency = NanoSeconds(200);
    t.cutThrough = true;
    return t;
}

TopologyTier
RoceTier(const std::string& name, DataRate rate)
{
    TopologyTier t;
    t.name = name;
    t.protocol = "roce";
    t.laneRate = rate;
    // Assumption: 2 m copper below a leaf (10 ns), 20 m fibre above (100 ns).
    t.delay = name == "leaf" || name == "edge" ? NanoSeconds(10) : NanoSeconds(100);
    // Jumbo frames carrying 4096 B RDMA payloads; per packet Ethernet 14 + IPv4
    // 20 + UDP 8 + ICRC 4 + FCS 4 = 50 B, plus preamble/SFD 8 and inter-frame
    // gap 12 that occupy the wire too: 70 B. The transport headers are port
    // payload, as for IB: 4096 B of data + 32 B (a 4200 B jumbo IP MTU fits it).
    t.mtuBytes = kRdmaPortMtuBytes;
    t.headerBytes = 70;
    t.flowControl = TopologyFlowControl::PFC;
    // Assumption: 500 ns through a store-and-forward shared-buffer switch.
    t.forwardingLatency = NanoSeconds(500);
    t.cutThrough = false;
    // 12-32 MB per switch in public RDMA simulations (doc/fabric.md, Sources).
    t.switchBufferBytes = 32 * 1000 * 1000;
    return t;
}

} // namespace ns3
