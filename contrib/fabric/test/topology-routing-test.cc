// SPDX-License-Identifier: GPL-2.0-only
//
// Routing and the path query: ECMP next-hop sets of a k = 4 fat tree worked
// out by hand, paths (hops, latency sum, bottleneck) of presets from their tier
// parameters, and determinism of ids and tables.
#include "topology-graph.h"
#include "topology-presets.h"

#include <gtest/gtest.h>

#include <set>

using namespace ns3;

namespace
{

std::set<std::string>
NextHopNames(const TopologyGraph& g, const std::string& node, const std::string& dstHost)
{
    std::set<std::string> names;
    int rank = g.RankOf(g.NodeId(dstHost));
    for (const auto& h : g.NextHops(g.NodeId(node), static_cast<uint32_t>(rank)))
    {
        names.insert(g.Node(h.neighbor).name);
    }
    return names;
}

} // namespace

TEST(TopologyRouting, FatTreeK4NextHopsByHand)
{
    // k = 4: pod p has edges pod<p>.edge0-1 and aggregations pod<p>.agg0-1; host
    // h sits on edge (h / 2) % 2 of pod h / 4; agg a reaches cores 2a and 2a+1.
    TopologyGraph g(MakePreset("fat-tree"));
    // Edge to a remote pod: both aggregation switches of its pod.
    EXPECT_EQ(NextHopNames(g, "pod0.edge0", "host12"),
              (std::set<std::string>{"pod0.agg0", "pod0.agg1"}));
    // Aggregation to a remote pod: its two cores.
    EXPECT_EQ(NextHopNames(g, "pod0.agg0", "host12"), (std::set<std::string>{"core0", "core1"}));
    EXPECT_EQ(NextHopNames(g, "pod0.agg1", "host12"), (std::set<std::string>{"core2", "core3"}));
    // Core down: the one aggregation of the destination pod it is wired to.
    EXPECT_EQ(NextHopNames(g, "core1", "host12"), (std::set<std::string>{"pod3.agg0"}));
    EXPECT_EQ(NextHopNames(g, "core2", "host12"), (std::set<std::string>{"pod3.agg1"}));
    // Aggregation down into its own pod: the destination's edge only.
    EXPECT_EQ(NextHopNames(g, "pod3.agg0", "host12"), (std::set<std::string>{"pod3.edge0"}));
    // Edge to another edge of the same pod: up to either aggregation.
    EXPECT_EQ(NextHopNames(g, "pod0.edge0", "host2"),
              (std::set<std::string>{"pod0.agg0", "pod0.agg1"}));
    // Edge to its own host: the host link.
    EXPECT_EQ(NextHopNames(g, "pod0.edge0", "host1"), (std::set<std::string>{"host1"}));
    // Paths: 2 x 2 inter-pod, 2 intra-pod, 1 under one edge.
    EXPECT_EQ(g.EqualCostPathCount(0, 12), 4u);
    EXPECT_EQ(g.EqualCostPathCount(0, 2), 2u);
    EXPECT_EQ(g.EqualCostPathCount(0, 1), 1u);
    EXPECT_EQ(g.Path(0, 12).HopCount(), 6u);
    EXPECT_EQ(g.Path(0, 2).HopCount(), 4u);
    EXPECT_EQ(g.Path(0, 1).HopCount(), 2u);
    // Flows 0..3 take the four distinct cores; flow 4 repeats flow 0.
    std::set<uint32_t> cores;
    for (uint64_t f = 0; f < 4; ++f)
    {
        cores.insert(g.Path(0, 12, f).hops[2].to);
    }
    EXPECT_EQ(cores.size(), 4u);
    EXPECT_EQ(g.Path(0, 12, 4).hops[2].to, g.Path(0, 12, 0).hops[2].to);
    // A port index is the position of the link among the node's links.
    for (const auto& h : g.NextHops(g.NodeId("pod0.edge0"), 12))
    {
        EXPECT_EQ(g.PortsOf(g.NodeId("pod0.edge0"))[h.port], h.link);
    }
}

TEST(TopologyRouting, DgxH100PathByHand)
{
    TopologyGraph g(MakePreset("dgx-h100"));
    TopologyPath p = g.Path(0, 1);
    ASSERT_EQ(p.HopCount(), 2u);
    // NVLink tier: 5 ns per link, NVSwitch 100 ns: 5 + 100 + 5.
    EXPECT_EQ(p.TotalLatency(), NanoSeconds(110));
    EXPECT_EQ(p.BottleneckRate().GetBitRate(), 3600000000000ull);
    EXPECT_TRUE(p.hops[0].forwards);
    EXPECT_TRUE(p.hops[0].cutThrough);
    EXPECT_EQ(p.hops[0].forwardingLatency, NanoSeconds(100));
    EXPECT_FALSE(p.hops[1].forwards);
    EXPECT_EQ(p.hops[1].forwardingLatency, Time(0));
    EXPECT_EQ(p.hops[0].headerBytes, 16u);
    EXPECT_EQ(p.hops[0].mtuBytes, 256u);
    EXPECT_EQ(p.hops[0].flowControl, TopologyFlowControl::CREDIT);
    // One 256 B packet (272 B with its NVLink header) at 3.6 Tb/s: 604.44 ps to
    // serialize, its 16 B header 35.56 ps. Cut-through: the switch starts after
    // the header + 5 ns + 100 ns, but cannot finish before the last bit arrived
    // (604.44 + 5000 + 100000): ends at 105640 ps (105035.56 + 604.44), arrives
    // 5 ns later. Tolerance 2 ps: each serialization is rounded to a picosecond.
    EXPECT_NEAR(p.UnloadedPacketTime(256).GetPicoSeconds(), 110640.0, 2.0);
}

TEST(TopologyRouting, RailTwoNodesPathsByHand)
{
    TopologyGraph g(MakePreset("rail-h100-2n"));
    // Same rail, different servers: GPU -pcie- NIC -rail- leaf -rail- NIC -pcie- GPU.
    TopologyPath same = g.Path(0, 8);
    ASSERT_EQ(same.HopCount(), 4u);
    EXPECT_EQ(g.Node(same.hops[1].to).name, "rail0");
    // pcie 5 + NIC 300 + rail 10 + leaf 200 + rail 10 + NIC 300 + pcie 5 ns.
    EXPECT_EQ(same.TotalLatency(), NanoSeconds(830));
    // min(NDR 400 Gb/s, PCIe Gen5 x16 504 Gb/s).
    EXPECT_EQ(same.BottleneckRate().GetBitRate(), 400000000000ull);
    EXPECT_EQ(same.MinMtuBytes(), 256u); // PCIe max payload
    EXPECT_EQ(g.EqualCostPathCount(0, 8), 1u);
    // Across rails: through one of the two spines (100 ns links, 200 ns spine).
    TopologyPath cross = g.Path(0, 11);
    ASSERT_EQ(cross.HopCount(), 6u);
    EXPECT_EQ(cross.TotalLatency(), NanoSeconds(5 + 300 + 10 + 200 + 100 + 200 + 100 + 200 + 10 + 300 + 5));
    EXPECT_EQ(g.EqualCostPathCount(0, 11), 2u);
    EXPECT_NE(g.Path(0, 11, 0).hops[2].to, g.Path(0, 11, 1).hops[2].to);
    // Within a server the route is NVLink, never the NICs.
    TopologyPath local = g.Path(0, 3);
    ASSERT_EQ(local.HopCount(), 2u);
    EXPECT_EQ(local.hops[0].tier, "nvlink");
    // The GPU's own next hops: NVSwitch towards a local GPU, its NIC towards a remote one.
    uint32_t gpu0 = g.EndpointNode(0);
    ASSERT_EQ(g.NextHops(gpu0, 3).size(), 1u);
    EXPECT_EQ(g.Node(g.NextHops(gpu0, 3)[0].neighbor).name, "n0.nvswitch");
    ASSERT_EQ(g.NextHops(gpu0, 11).size(), 1u);
    EXPECT_EQ(g.Node(g.NextHops(gpu0, 11)[0].neighbor).name, "n0.nic0");
}

TEST(TopologyRouting, StoreAndForwardPacketTimeByHand)
{
    TopologyGraph g(MakePreset("roce-leafspine"));
    // host0 -> host1 under leaf0: 2 hops of 100 Gb/s, 10 ns, 500 ns store-and-
    // forward leaf. 1000 B payload + 70 B framing = 8560 bits = 85.6 ns per hop:
    // 85.6 + 10 + 500 + 85.6 + 10 = 691.2 ns.
    TopologyPath p = g.Path(0, 1);
    ASSERT_EQ(p.HopCount(), 2u);
    EXPECT_FALSE(p.hops[0].cutThrough);
    EXPECT_EQ(p.UnloadedPacketTime(1000), PicoSeconds(691200));
}

// a -100G- cut-through switch (10 ns) -400G- b, 10 ns links, 14 B framing.
static TopologyDescription
SpeedStep()
{
    TopologyDescription d;
    TopologyTier slow;
    slow.name = "slow";
    slow.laneRate = DataRate("100Gbps");
    slow.delay = NanoSeconds(10);
    slow.mtuBytes = 4096;
    slow.headerBytes = 14;
    slow.flowControl = TopologyFlowControl::CREDIT;
    slow.forwardingLatency = NanoSeconds(10);
    slow.cutThrough = true;
    TopologyTier fast = slow;
    fast.name = "fast";
    fast.laneRate = DataRate("400Gbps");
    d.tiers = {slow, fast};
    d.nodes = {{"a", TopologyNodeKind::HOST, "", 0},
               {"b", TopologyNodeKind::HOST, "", 0},
               {"sw", TopologyNodeKind::SWITCH, "slow", 0}};
    d.links = {{"a", "sw", "slow", 1}, {"sw", "b", "fast", 1}};
    return d;
}

TEST(TopologyRouting, CutThroughIntoAFasterLinkWaitsForTheLastBit)
{
    TopologyGraph g(SpeedStep());
    // a -> b, 1000 B + 14 B: 81120 ps at 100G, header 1120 ps. The switch has
    // the header at 11120, may start at 21120, would finish at 400G at 41400
    // but the last bit only arrives at 81120 + 10000 = 91120; +10 ns = 101120.
    EXPECT_EQ(g.Path(0, 1).UnloadedPacketTime(1000), PicoSeconds(101120));
    // b -> a: 20280 ps at 400G, header 280 ps; the switch starts at 10280 +
    // 10000 = 20280 and sends 81120 ps at 100G: 101400; +10 ns = 111400.
    EXPECT_EQ(g.Path(1, 0).UnloadedPacketTime(1000), PicoSeconds(111400));
}

TEST(TopologyRouting, DeterministicIdsAndTables)
{
    TopologyGraph a(MakePreset("rail-h100-2n:nvswitch-chips=4"));
    TopologyGraph b(MakePreset("rail-h100-2n:nvswitch-chips=4"));
    ASSERT_EQ(a.NodeCount(), b.NodeCount());
    ASSERT_EQ(a.LinkCount(), b.LinkCount());
    size_t entries = 0;
    for (uint32_t v = 0; v < a.NodeCount(); ++v)
    {
        EXPECT_EQ(a.Node(v).name, b.Node(v).name);
        EXPECT_EQ(a.PortsOf(v), b.PortsOf(v));
        for (uint32_t r = 0; r < a.EndpointCount(); ++r)
        {
            auto x = a.NextHops(v, r);
            auto y = b.NextHops(v, r);
            ASSERT_EQ(x.size(), y.size());
            for (size_t i = 0; i < x.size(); ++i)
            {
                EXPECT_EQ(x[i].link, y[i].link);
                EXPECT_EQ(x[i].port, y[i].port);
                if (i > 0)
                {
                    EXPECT_LT(x[i - 1].link, x[i].link); // sorted by link id
                }
            }
            entries += x.size();
        }
    }
    EXPECT_GT(entries, 0u);
}
