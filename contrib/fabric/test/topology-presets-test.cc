// SPDX-License-Identifier: GPL-2.0-only
//
// Presets and builders: node, link, lane and port counts computed by hand from
// the hardware they describe; the oversubscription ratio as realized capacity.
#include "topology-graph.h"
#include "topology-presets.h"

#include <gtest/gtest.h>

#include <map>

using namespace ns3;

namespace
{

// Sum of link rates (bits/s) between nodes named with prefix `down` and `up`.
double
CapacityBetween(const TopologyGraph& g, uint32_t node, const std::string& peerPrefix)
{
    double bps = 0;
    for (uint32_t l : g.PortsOf(node))
    {
        if (g.Node(g.Peer(l, node)).name.compare(0, peerPrefix.size(), peerPrefix) == 0)
        {
            bps += g.LinkRate(l).GetBitRate();
        }
    }
    return bps;
}

} // namespace

TEST(TopologyPresets, DgxH100OneLogicalNvSwitch)
{
    TopologyGraph g(MakePreset("dgx-h100"));
    EXPECT_EQ(g.CountKind(TopologyNodeKind::GPU), 8u);
    EXPECT_EQ(g.CountKind(TopologyNodeKind::SWITCH), 1u);
    EXPECT_EQ(g.NodeCount(), 9u);
    EXPECT_EQ(g.LinkCount(), 8u); // one bundled port per GPU
    EXPECT_EQ(g.EndpointCount(), 8u);
    // 18 NVLink 4 lanes x 25 GB/s = 450 GB/s per direction = 3.6e12 bit/s.
    for (uint32_t l = 0; l < g.LinkCount(); ++l)
    {
        EXPECT_EQ(g.Link(l).lanes, 18u);
        EXPECT_EQ(g.LinkRate(l).GetBitRate(), 3600000000000ull);
    }
    uint32_t sw = g.NodeId("nvswitch");
    EXPECT_EQ(g.PortsOf(sw).size(), 8u);
    EXPECT_EQ(g.LanesAt(sw), 8u * 18u);
    EXPECT_EQ(g.Node(sw).ports, 4u * 64u); // four 64-port chips
}

TEST(TopologyPresets, DgxH100FourChipsSplitFiveFourFourFive)
{
    TopologyGraph g(MakePreset("dgx-h100:nvswitch-chips=4"));
    EXPECT_EQ(g.CountKind(TopologyNodeKind::SWITCH), 4u);
    EXPECT_EQ(g.LinkCount(), 32u); // 8 GPUs x 4 chips
    // Each chip takes 5, 4, 4, 5 lanes from every GPU.
    const uint32_t expected[4] = {8 * 5, 8 * 4, 8 * 4, 8 * 5};
    for (uint32_t c = 0; c < 4; ++c)
    {
        EXPECT_EQ(g.LanesAt(g.NodeId("nvswitch" + std::to_string(c))), expected[c]);
    }
    // Every GPU still has 18 lanes = 450 GB/s.
    EXPECT_EQ(g.LanesAt(g.NodeId("gpu3")), 18u);
    // GPU to GPU: 2 hops, one equal-cost path through each chip (ECMP across chips).
    EXPECT_EQ(g.NextHops(g.EndpointNode(0), 5).size(), 4u);
    EXPECT_EQ(g.EqualCostPathCount(0, 5), 4u);
    EXPECT_EQ(g.Path(0, 5).HopCount(), 2u);
}

TEST(TopologyPresets, DgxB200IsNvLink5)
{
    TopologyGraph g(MakePreset("dgx-b200"));
    EXPECT_EQ(g.CountKind(TopologyNodeKind::GPU), 8u);
    // 18 NVLink 5 lanes x 50 GB/s = 900 GB/s per direction = 7.2e12 bit/s.
    EXPECT_EQ(g.LinkRate(0).GetBitRate(), 7200000000000ull);
}

TEST(TopologyPresets, RailH100TwoNodes)
{
    TopologyGraph g(MakePreset("rail-h100-2n"));
    // 2 servers x 8 GPUs; one NIC per GPU; one NVSwitch per server; one leaf
    // per rail; each leaf has 2 x 400G down, so 2 x 400G up at 1:1, one to each
    // of 2 spines.
    EXPECT_EQ(g.CountKind(TopologyNodeKind::GPU), 16u);
    EXPECT_EQ(g.CountKind(TopologyNodeKind::NIC), 16u);
    EXPECT_EQ(g.CountKind(TopologyNodeKind::SWITCH), 2u + 8u + 2u);
    EXPECT_EQ(g.NodeCount(), 16u + 16u + 12u);
    // GPU-NVSwitch 16, GPU-NIC PCIe 16, NIC-leaf 16, leaf-spine 8 x 2.
    EXPECT_EQ(g.LinkCount(), 16u + 16u + 16u + 16u);
    EXPECT_EQ(g.EndpointCount(), 16u);
    // Ranks are server-major: rank 9 is GPU 1 of server 1.
    EXPECT_EQ(g.Node(g.EndpointNode(9)).name, "n1.gpu1");
    for (uint32_t r = 0; r < 8; ++r)
    {
        uint32_t leaf = g.NodeId("rail" + std::to_string(r));
        EXPECT_EQ(g.PortsOf(leaf).size(), 4u);
        EXPECT_DOUBLE_EQ(CapacityBetween(g, leaf, "n"), 2 * 400e9);
        EXPECT_DOUBLE_EQ(CapacityBetween(g, leaf, "spine"), 2 * 400e9);
    }
    // PCIe Gen5 x16: 16 x 32 GT/s x 128/130 = 504.12 Gbit/s = 63.0 GB/s.
    uint32_t pcie = g.PortsOf(g.NodeId("n0.nic0"))[0];
    EXPECT_EQ(g.LinkTier(pcie).name, "pcie");
    EXPECT_NEAR(g.LinkRate(pcie).GetBitRate() / 8e9, 63.015, 0.001);
}

TEST(TopologyPresets, RailH100SpinesScaleWithNodes)
{
    // 32 servers: 32 down + 32 up per rail leaf fills its 64 ports; 8 leaves x
    // 32 uplinks = 256 spine ports need 4 spines of 64 ports (2 would need 128).
    TopologyGraph g(MakePreset("rail-h100-32n"));
    EXPECT_EQ(g.CountKind(TopologyNodeKind::GPU), 256u);
    EXPECT_EQ(g.LanesAt(g.NodeId("rail0")), 64u);
    EXPECT_EQ(g.NodeId("spine3"), g.NodeCount() - 1);
    EXPECT_EQ(g.LanesAt(g.NodeId("spine0")), 64u);
    // Explicit spine count and no PCIe: the NIC is inside the GPU endpoint.
    TopologyGraph h(MakePreset("rail-h100-4n:spines=4,pcie=0"));
    EXPECT_EQ(h.CountKind(TopologyNodeKind::NIC), 0u);
    EXPECT_EQ(h.CountKind(TopologyNodeKind::SWITCH), 4u + 8u + 4u);
    EXPECT_EQ(h.LinkCount(), 32u + 32u + 8u * 4u);
}

TEST(TopologyPresets, RailH100ScalableUnitsAreSuperPodCompute)
{
    // NVIDIA DGX SuperPOD reference architecture, "Larger DGX SuperPOD
    // component counts" (B200 edition, docs.nvidia.com/dgx-superpod; the
    // H100 edition RA-11333-001 has the same units: 32 servers of 8 GPUs on 8
    // NDR rails, 64-port Quantum-2 switches): for 2 / 4 / 8 units, leaf and
    // spine switches and node-leaf and leaf-spine cables.
    struct Row
    {
        uint32_t nodes, leaves, spines, nodeLeaf, leafSpine;
    } rows[] = {{64, 16, 8, 512, 512}, {128, 32, 16, 1024, 1024}, {256, 64, 32, 2048, 2048}};
    for (const Row& r : rows)
    {
        TopologyGraph g(MakePreset("rail-h100-" + std::to_string(r.nodes) + "n"));
        EXPECT_EQ(g.CountKind(TopologyNodeKind::GPU), 8u * r.nodes);
        std::map<std::string, uint32_t> switches, links;
        for (uint32_t v = 0; v < g.NodeCount(); ++v)
        {
            if (g.Node(v).kind == TopologyNodeKind::SWITCH)
            {
                ++switches[g.NodeTier(v)->name];
            }
        }
        for (uint32_t l = 0; l < g.LinkCount(); ++l)
        {
            ++links[g.LinkTier(l).name];
        }
        EXPECT_EQ(switches["rail"], r.leaves) << r.nodes;
        EXPECT_EQ(switches["spine"], r.spines) << r.nodes;
        EXPECT_EQ(links["rail"], r.nodeLeaf) << r.nodes;
        EXPECT_EQ(links["spine"], r.leafSpine) << r.nodes;
        // Non-blocking: every leaf 32 servers down and 32 x 400G up, the
        // same share to every spine; every switch port used.
        for (uint32_t u = 0; u < r.nodes / 32; ++u)
        {
            const uint32_t leaf = g.NodeId("su" + std::to_string(u) + ".rail" + std::to_string(u % 8));
            EXPECT_EQ(g.LanesAt(leaf), 64u);
            EXPECT_DOUBLE_EQ(CapacityBetween(g, leaf, "n"), 32 * 400e9);
            EXPECT_DOUBLE_EQ(CapacityBetween(g, leaf, "spine" + std::to_string(r.spines - 1)),
                             32.0 / r.spines * 400e9);
        }
        EXPECT_EQ(g.LanesAt(g.NodeId("spine" + std::to_string(r.spines - 1))), 64u);
    }
    // A last, partial unit: 40 servers are 32 + 8, the 8's leaves cabled as
    // a full unit's (32 up); 16 leaves x 32 uplinks on 8 spines.
    TopologyGraph p(MakePreset("rail-h100-40n"));
    EXPECT_DOUBLE_EQ(CapacityBetween(p, p.NodeId("su1.rail5"), "n"), 8 * 400e9);
    EXPECT_DOUBLE_EQ(CapacityBetween(p, p.NodeId("su1.rail5"), "spine"), 32 * 400e9);
    EXPECT_EQ(p.NodeId("spine7"), p.NodeCount() - 1);
    // Units of 16 by option: 4 units x 8 rails = 32 leaves of 16 down + 16 up.
    TopologyGraph q(MakePreset("rail-h100-64n:su-nodes=16"));
    EXPECT_EQ(q.LanesAt(q.NodeId("su3.rail7")), 32u);
    // 2:1 on 64 ports: 42 down + 21 up is the fullest leaf with whole uplinks.
    TopologyGraph o(MakePreset("rail-h100-64n:oversubscription=2"));
    EXPECT_DOUBLE_EQ(CapacityBetween(o, o.NodeId("su0.rail0"), "n") / CapacityBetween(o, o.NodeId("su0.rail0"), "spine"),
                     2.0);
    EXPECT_DOUBLE_EQ(CapacityBetween(o, o.NodeId("su0.rail0"), "n"), 42 * 400e9);
}

TEST(TopologyPresets, RoceLeafSpineOversubscriptionRealized)
{
    for (double ratio : {1.0, 2.0, 4.0})
    {
        TopologyGraph g(MakePreset("roce-leafspine:oversubscription=" + std::to_string(ratio)));
        EXPECT_EQ(g.CountKind(TopologyNodeKind::HOST), 32u); // 4 leaves x 8 hosts
        EXPECT_EQ(g.CountKind(TopologyNodeKind::SWITCH), 6u);
        for (uint32_t l = 0; l < 4; ++l)
        {
            uint32_t leaf = g.NodeId("leaf" + std::to_string(l));
            double down = CapacityBetween(g, leaf, "host");
            double up = CapacityBetween(g, leaf, "spine");
            EXPECT_DOUBLE_EQ(down, 8 * 100e9);
            EXPECT_DOUBLE_EQ(down / up, ratio);
        }
    }
    // 8:1 leaves one uplink per leaf, so a second spine would have no link.
    try
    {
        MakePreset("roce-leafspine:oversubscription=8");
        FAIL() << "expected an error";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind("preset.spines: expected", 0), 0u) << e.what();
    }
    TopologyGraph one(MakePreset("roce-leafspine:oversubscription=8,spines=1"));
    EXPECT_DOUBLE_EQ(CapacityBetween(one, one.NodeId("leaf0"), "host") /
                         CapacityBetween(one, one.NodeId("leaf0"), "spine"),
                     8.0);
    // 8 x 100G / (3 x 100G) is not a whole number of uplinks.
    try
    {
        MakePreset("roce-leafspine:oversubscription=3");
        FAIL() << "expected an error";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind("preset.oversubscription: expected", 0), 0u) << e.what();
    }
}

TEST(TopologyPresets, FatTreeK4AndK8Counts)
{
    // k-ary fat tree: k^3/4 hosts, k^2/2 edge, k^2/2 aggregation, k^2/4 core
    // switches; links k^3/4 at each of the three levels; every switch k ports.
    for (uint32_t k : {4u, 8u})
    {
        TopologyGraph g(MakePreset("fat-tree-k" + std::to_string(k)));
        EXPECT_EQ(g.CountKind(TopologyNodeKind::HOST), k * k * k / 4);
        EXPECT_EQ(g.CountKind(TopologyNodeKind::SWITCH), k * k / 2 + k * k / 2 + k * k / 4);
        EXPECT_EQ(g.LinkCount(), 3 * k * k * k / 4);
        for (uint32_t v = 0; v < g.NodeCount(); ++v)
        {
            if (g.Node(v).kind == TopologyNodeKind::SWITCH)
            {
                EXPECT_EQ(g.PortsOf(v).size(), k) << g.Node(v).name;
            }
        }
    }
    EXPECT_EQ(TopologyGraph(MakePreset("fat-tree")).CountKind(TopologyNodeKind::HOST), 16u);
    EXPECT_EQ(TopologyGraph(MakePreset("fat-tree:k=6")).CountKind(TopologyNodeKind::HOST), 54u);
}
