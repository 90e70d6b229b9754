// SPDX-License-Identifier: GPL-2.0-only
//
// Channels and rings as NCCL lays them out on a rail-optimized cluster
// (collective-ring-layout.h), the node tree (collective-algorithm-node-tree.cc)
// and PXN AllToAll (collective-algorithm-pxn.cc):
// - the topology layer reads servers and rails off the rail presets' links;
// - every message of channel c that leaves a server crosses rail switch c
//   and no other switch (checked by looking up the route each message takes,
//   not by how the rings were built), and the channels' network links are
//   disjoint, which the rank-order ring (every channel on the same pairs)
//   is not;
// - the node tree's and PXN's closed forms, written out by hand, equal the
//   executed schedules on a two-level contention-free channel;
// - on the ideal packet fabric the rail rings approach the closed form.
#include "analytic-transport.h"
#include "collective-algorithm-registry.h"
#include "collective-algorithms.h"
#include "collective-closed-form.h"
#include "collective-comparison.h"
#include "collective-executor.h"
#include "collective-ring-layout.h"
#include "collective-test-spec.h"
#include "simulator-test.h"
#include "topology-graph.h"
#include "topology-layout.h"
#include "topology-parameters.h"
#include "topology-presets.h"

#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class CollectiveRailLayoutTest : public hockney::SimulatorTest
{
};

RankPlacement
PlacementOfTopology(const TopologyGraph& g)
{
    const EndpointLayout l = ComputeEndpointLayout(g);
    RankPlacement p;
    p.server = l.server;
    p.rail = l.rail;
    p.servers = l.servers;
    p.rails = static_cast<uint32_t>(l.railSwitch.size());
    return p;
}

/// One channel's schedule (the registry's builder for channel \p c).
CollectiveSchedule
ChannelSchedule(CollectiveSpec spec, uint32_t c)
{
    spec.channel = c;
    const uint64_t bytes = spec.bytes / spec.channels;
    return CollectiveAlgorithmRegistry::Get(spec.collective, spec.algorithm, "test").build(spec, bytes);
}

/// The switches a message from \p src to \p dst enters, by name, from the
/// route every backend uses (PairPath).
std::vector<std::string>
SwitchesOnRoute(const TopologyGraph& g, uint32_t src, uint32_t dst)
{
    std::vector<std::string> out;
    for (const TopologyHop& hop : PairPath(g, src, dst).hops)
    {
        if (g.Node(hop.to).kind == TopologyNodeKind::SWITCH)
        {
            out.push_back(g.Node(hop.to).name);
        }
    }
    return out;
}

/// The network (non-NVLink) link directions the messages of \p sched cross.
std::set<std::pair<uint32_t, uint32_t>>
NetworkLinks(const TopologyGraph& g, const CollectiveSchedule& sched)
{
    std::set<std::pair<uint32_t, uint32_t>> out;
    for (const ScheduleOp& op : sched.GetOps())
    {
        for (auto [src, dst] : op.Legs())
        {
            for (const TopologyHop& hop : PairPath(g, src, dst).hops)
            {
                if (g.LinkTier(hop.link).protocol != "nvlink")
                {
                    out.insert({hop.link, hop.from});
                }
            }
        }
    }
    return out;
}

CollectiveSpec
RailRingSpec(const TopologyGraph& g, uint32_t channels, bool placed)
{
    CollectiveSpec spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "ring", g.EndpointCount(), 64000000, 1, channels);
    if (placed)
    {
        spec.placement = PlacementOfTopology(g);
    }
    return spec;
}

/// \p l lists \p servers servers of 8 GPUs server by server (rank = 8 x
/// server + GPU) and NIC i of every server on rail i, of 8 rails.
void
ExpectServerByServerOnEightRails(const EndpointLayout& l, uint32_t servers)
{
    ASSERT_EQ(l.server.size(), 8u * servers);
    EXPECT_EQ(l.servers, servers);
    ASSERT_EQ(l.railSwitch.size(), 8u);
    for (uint32_t r = 0; r < 8 * servers; ++r)
    {
        EXPECT_EQ(l.server[r], r / 8) << r;
        EXPECT_EQ(l.local[r], r % 8) << r;
        EXPECT_EQ(l.rail[r], r % 8) << r;
    }
}

} // namespace

TEST_F(CollectiveRailLayoutTest, TopologyLayerReadsServersAndRailsOffTheLinks)
{
    // rail-h100-4n: servers n0..n3 of gpu0..gpu7, listed server by server
    // (rank = 8 x server + GPU), NIC i of every server on switch rail<i>.
    TopologyGraph g(MakePreset("rail-h100-4n"));
    const EndpointLayout l = ComputeEndpointLayout(g);
    ASSERT_NO_FATAL_FAILURE(ExpectServerByServerOnEightRails(l, 4));
    for (uint32_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(g.Node(l.railSwitch[i]).name, "rail" + std::to_string(i));
    }
    EXPECT_TRUE(l.RailOptimized());
    // One server, or hosts on leaves with one rail each: not rail-optimized.
    EXPECT_FALSE(ComputeEndpointLayout(TopologyGraph(MakePreset("dgx-h100"))).RailOptimized());
    EXPECT_FALSE(ComputeEndpointLayout(TopologyGraph(MakePreset("roce-leafspine"))).RailOptimized());
    // The first 12 ranks cut server 1 in half: no rail layout.
    EXPECT_FALSE(ComputeEndpointLayout(g, 12).RailOptimized());
}

TEST_F(CollectiveRailLayoutTest, ScalableUnitsJoinEachRailsLeavesThroughTheSpines)
{
    // rail-h100-40n: units of 32 and 8 servers, leaves su0.rail<i> and
    // su1.rail<i>. NIC i of every server is still rail i: both leaves of a
    // position are one rail, joined through the spines.
    TopologyGraph g(MakePreset("rail-h100-40n"));
    const EndpointLayout l = ComputeEndpointLayout(g);
    ASSERT_NO_FATAL_FAILURE(ExpectServerByServerOnEightRails(l, 40));
    for (uint32_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(g.Node(l.railSwitch[i]).name, "su0.rail" + std::to_string(i));
    }
    EXPECT_TRUE(l.RailOptimized());
    EXPECT_EQ(l.RankOn(35, 3), 35u * 8 + 3);
    // Within the first unit a rail is one leaf; across units leaf, spine, leaf.
    EXPECT_EQ(SwitchesOnRoute(g, 3, 31 * 8 + 3), std::vector<std::string>{"su0.rail3"});
    const std::vector<std::string> across = SwitchesOnRoute(g, 3, 35 * 8 + 3);
    ASSERT_EQ(across.size(), 3u);
    EXPECT_EQ(across[0], "su0.rail3");
    EXPECT_EQ(across[1].compare(0, 5, "spine"), 0) << across[1];
    EXPECT_EQ(across[2], "su1.rail3");
    // A channel's ring crosses servers on its NIC position only: on the leaf
    // of that position in each unit, and spines between the units.
    const CollectiveSpec spec = RailRingSpec(g, 8, true);
    const uint32_t c = 5;
    const CollectiveSchedule sched = ChannelSchedule(spec, c);
    std::set<std::pair<uint32_t, uint32_t>> seen;
    uint32_t crossings = 0, viaSpines = 0;
    for (const ScheduleOp& op : sched.GetOps())
    {
        for (auto [src, dst] : op.Legs())
        {
            if (src / 8 == dst / 8 || !seen.insert({src, dst}).second)
            {
                continue;
            }
            ++crossings;
            EXPECT_EQ(src % 8, c);
            EXPECT_EQ(dst % 8, c);
            const std::vector<std::string> sw = SwitchesOnRoute(g, src, dst);
            EXPECT_EQ(sw.front(), "su" + std::to_string(src / 256) + ".rail5") << src << " -> " << dst;
            EXPECT_EQ(sw.back(), "su" + std::to_string(dst / 256) + ".rail5") << src << " -> " << dst;
            viaSpines += sw.size() == 3 ? 1 : 0;
        }
    }
    // 40 servers on one ring: 40 distinct server-to-server pairs, two of
    // them (into and out of the second unit) through the spines.
    EXPECT_EQ(crossings, 40u);
    EXPECT_EQ(viaSpines, 2u);
}

TEST_F(CollectiveRailLayoutTest, EachChannelCrossesServersOnItsOwnRailOnly)
{
    TopologyGraph g(MakePreset("rail-h100-4n"));
    const CollectiveSpec spec = RailRingSpec(g, 8, true);
    std::vector<std::set<std::pair<uint32_t, uint32_t>>> links;
    for (uint32_t c = 0; c < 8; ++c)
    {
        const CollectiveSchedule sched = ChannelSchedule(spec, c);
        sched.Validate();
        uint32_t crossings = 0;
        for (const ScheduleOp& op : sched.GetOps())
        {
            for (auto [src, dst] : op.Legs())
            {
                if (src / 8 == dst / 8)
                {
                    // Inside a server: the NVSwitch only.
                    EXPECT_EQ(SwitchesOnRoute(g, src, dst), std::vector<std::string>{"n" + std::to_string(src / 8) + ".nvswitch"});
                    continue;
                }
                ++crossings;
                EXPECT_EQ(SwitchesOnRoute(g, src, dst), std::vector<std::string>{"rail" + std::to_string(c)})
                    << "channel " << c << ": " << src << " -> " << dst;
                EXPECT_EQ(src % 8, c);
                EXPECT_EQ(dst % 8, c);
            }
        }
        // 4 servers: 4 crossings a ring step, 2 x 31 steps.
        EXPECT_EQ(crossings, 4u * 62u) << c;
        links.push_back(NetworkLinks(g, sched));
    }
    for (uint32_t a = 0; a < 8; ++a)
    {
        for (uint32_t b = a + 1; b < 8; ++b)
        {
            for (const auto& l : links[a])
            {
                EXPECT_EQ(links[b].count(l), 0u) << "channels " << a << " and " << b << " share link " << l.first;
            }
        }
    }
    // The rank-order ring, every channel a copy: every channel on the same
    // network links, its crossings gpu7 -> spine -> gpu0.
    const CollectiveSpec flat = RailRingSpec(g, 8, false);
    EXPECT_EQ(NetworkLinks(g, ChannelSchedule(flat, 0)), NetworkLinks(g, ChannelSchedule(flat, 5)));
    const std::vector<std::string> viaSpine = SwitchesOnRoute(g, 7, 8);
    ASSERT_EQ(viaSpine.size(), 3u);
    EXPECT_EQ(viaSpine[0], "rail7");
    EXPECT_EQ(viaSpine[2], "rail0");
}

TEST_F(CollectiveRailLayoutTest, RingOfAChannelEntersAndLeavesEachServerOnItsRail)
{
    TopologyGraph g(MakePreset("rail-h100-2n"));
    CollectiveSpec spec = RailRingSpec(g, 8, true);
    for (uint32_t c = 0; c < 10; ++c)
    {
        spec.channel = c;
        const RingLayout ring = RingOf(spec);
        ASSERT_EQ(ring.order.size(), 16u);
        EXPECT_EQ(std::set<uint32_t>(ring.order.begin(), ring.order.end()).size(), 16u) << "a permutation";
        // Channels beyond the 8 rails go round them again.
        EXPECT_EQ(ring.rail, c % 8);
        for (uint32_t s = 0; s < 2; ++s)
        {
            // Server s: positions 8s .. 8s+7, entered at its GPU on rail c,
            // left by the last through that GPU (PXN).
            EXPECT_EQ(ring.order[8 * s], 8 * s + c % 8);
            EXPECT_EQ(ring.proxy[8 * s + 7], 8 * s + c % 8);
            for (uint32_t k = 0; k < 7; ++k)
            {
                EXPECT_EQ(ring.order[8 * s + k] / 8, s);
                EXPECT_EQ(ring.proxy[8 * s + k], ScheduleOp::kNoProxy);
            }
        }
    }
}

namespace
{

// Two levels: inside a server 1 us and 400 GB/s, between servers 4 us and
// 50 GB/s (both whole picoseconds per byte: 2.5 and 20 ps).
const double A0 = 1e-6, B0 = 400e9, A1 = 4e-6, B1 = 50e9;

Time
ExecutedOnLevels(const CollectiveSpec& spec, uint32_t g)
{
    auto t = CreateObject<AnalyticTransport>();
    t->Install(spec.ranks, hockney::AlphaBeta(MicroSeconds(1), DataRate("3200Gbps")), AnalyticChannel::NONE);
    t->AddLevel(hockney::AlphaBeta(MicroSeconds(4), DataRate("400Gbps")));
    t->SetLevelFunction([g](uint32_t a, uint32_t b) { return a / g == b / g ? 0u : 1u; });
    auto exec = CreateObject<CollectiveExecutor>();
    Time got = exec->Run(BuildSchedule(spec), t);
    Simulator::Destroy();
    return got;
}

Time
ClosedOnLevels(const CollectiveSpec& spec)
{
    return ClosedFormTime(spec, MicroSeconds(1), DataRate("3200Gbps"), MicroSeconds(4), DataRate("400Gbps"));
}

} // namespace

TEST_F(CollectiveRailLayoutTest, NodeTreeClosedFormByHand)
{
    // 4 servers of 4 GPUs, 8 MB: each tree carries 4 MB. The server trees
    // (DoubleBinaryTreeParents(4)) are 0 <- 2 <- {1, 3} and its mirror
    // 3 <- 1 <- {2, 0}: depth D = 2. Up the deepest server's chain (3 NVLink
    // steps), 2 server hops, back down: 2 x 3 T0 + 2 x 2 T1 with
    // T0 = 1 us + 4 MB / 400 GB/s = 11 us, T1 = 4 us + 4 MB / 50 GB/s = 84 us:
    // 66 + 336 = 402 us. Exact: every term is whole picoseconds, so the
    // tolerance is zero.
    CollectiveSpec spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "node-tree", 16, 8000000);
    spec.gpusPerNode = 4;
    const double hand = 2 * 3 * (A0 + 4e6 / B0) + 2 * 2 * (A1 + 4e6 / B1);
    EXPECT_DOUBLE_EQ(hand, 402e-6);
    EXPECT_EQ(ClosedOnLevels(spec).GetPicoSeconds(), 402000000);
    EXPECT_EQ(ExecutedOnLevels(spec, 4).GetPicoSeconds(), 402000000);
    // 2 servers: one hop each way (D = 1): 2 x 3 x 11 + 2 x 84 = 234 us.
    spec.ranks = 8;
    EXPECT_EQ(ExecutedOnLevels(spec, 4).GetPicoSeconds(), 234000000);
    // Every message between servers runs rail-GPU to rail-GPU, tree t of
    // channel c on rail 2c + t: channel 0 on rails 0 and 1, channel 1 on 2 and 3.
    spec.ranks = 16;
    spec.channels = 2;
    const CollectiveSchedule sched = BuildSchedule(spec);
    std::set<uint32_t> rails;
    for (const ScheduleOp& op : sched.GetOps())
    {
        if (op.src / 4 != op.dst / 4)
        {
            EXPECT_EQ(op.src % 4, op.dst % 4);
            rails.insert(op.src % 4);
        }
    }
    EXPECT_EQ(rails, (std::set<uint32_t>{0, 1, 2, 3}));
}

TEST_F(CollectiveRailLayoutTest, PxnAllToAllClosedFormByHandAndRailLocalRoutes)
{
    // 2 servers of 4 GPUs, 8 MB a rank: blocks of 1 MB, all in flight at
    // once; a relayed block's NVLink leg (1 us + 1 MB / 400 GB/s = 3.5 us)
    // runs beside its rail leg (4 us + 1 MB / 50 GB/s = 24 us): 24 us.
    CollectiveSpec spec = hockney::Spec(CollectiveKind::ALL_TO_ALL, "pxn", 8, 8000000);
    spec.gpusPerNode = 4;
    EXPECT_DOUBLE_EQ(std::max(A0 + 1e6 / B0, A1 + 1e6 / B1), 24e-6);
    EXPECT_EQ(ClosedOnLevels(spec).GetPicoSeconds(), 24000000);
    EXPECT_EQ(ExecutedOnLevels(spec, 4).GetPicoSeconds(), 24000000);

    // On rail-h100-2n every leg between servers stays on one rail switch.
    TopologyGraph g(MakePreset("rail-h100-2n"));
    CollectiveSpec onRails = hockney::Spec(CollectiveKind::ALL_TO_ALL, "pxn", 16, 16000000);
    onRails.placement = PlacementOfTopology(g);
    uint32_t relayed = 0;
    const CollectiveSchedule sched = BuildSchedule(onRails);
    for (const ScheduleOp& op : sched.GetOps())
    {
        relayed += op.proxy != ScheduleOp::kNoProxy;
        for (auto [src, dst] : op.Legs())
        {
            if (src / 8 != dst / 8)
            {
                EXPECT_EQ(SwitchesOnRoute(g, src, dst), std::vector<std::string>{"rail" + std::to_string(dst % 8)});
            }
        }
    }
    // Each of 16 ranks relays its 7 blocks for the other server's other rails.
    EXPECT_EQ(relayed, 16u * 7u);
}

TEST_F(CollectiveRailLayoutTest, IdealPacketFabricRailRingsApproachTheClosedForm)
{
    // Ring allreduce of 64 MB on rail-h100-2n, 8 channels (one per NIC), on
    // the ideal fabric (no header bytes: the rail's payload rate is its line
    // rate, 400 Gb/s = 50 GB/s). Each of the 2 x 15 steps moves 64 MB /
    // (8 x 16) = 500 kB per channel, and in every step each channel's
    // crossing leaves through its own NIC (checked above), so the closed form
    // is 30 (alpha + 500 kB / 50 GB/s) = 300 us + 30 alpha. Bounds, each
    // derived independently of the run:
    // - below: the exit GPU's NIC of each channel sends 30 messages of
    //   500 kB one after the other: 30 x 10 us = 300 us, whatever else
    //   happens; channels sharing a NIC (the rank-order ring's copies) would
    //   need 8 times that;
    // - above: the closed form, which pays every alpha in series; the
    //   packet run hides a message's alpha behind the previous message on a
    //   busy NIC, and no step waits for another ring position's NVLink
    //   (the ring's steps are chained position to position, not by barrier).
    ComparisonConfig c;
    c.topology = MakePreset("rail-h100-2n");
    c.topologyName = "rail-h100-2n";
    c.collective = CollectiveKind::ALL_REDUCE;
    c.algorithm = "ring";
    c.channels = 8;
    c.sizes = {64000000};
    c.backends = {"closed", "packet"};
    c.fabric.ideal = true;
    const std::vector<ResultRow> rows = RunComparison(c);
    ASSERT_EQ(rows.size(), 2u);
    const double closed = rows[0].GetDouble("time_s");
    const double packet = rows[1].GetDouble("time_s");
    EXPECT_DOUBLE_EQ(rows[0].GetDouble("beta_Bps"), 50e9);
    // 1e-12 s: the closed form rounds each step to the picosecond.
    EXPECT_NEAR(closed, 30 * (rows[0].GetDouble("alpha_s") + 500e3 / 50e9), 1e-12);
    ::testing::Test::RecordProperty("closed_vs_packet_error", std::to_string((closed - packet) / packet));
    EXPECT_GE(packet, 300e-6);
    EXPECT_LE(packet, closed) << "packet " << packet << " closed " << closed;
    // 2 servers x 8 channels x 30 crossings relayed: 240 NVLink legs of
    // 500 kB beside the 16 x 8 x 30 ring messages.
    EXPECT_DOUBLE_EQ(rows[1].GetDouble("bytes_sent"), (16.0 * 8 * 30 + 2 * 8 * 30) * 500e3);
    EXPECT_EQ(rows[1].GetDouble("bytes_sent"), rows[1].GetDouble("bytes_delivered"));
    EXPECT_EQ(rows[1].GetDouble("drops"), 0);
}

TEST_F(CollectiveRailLayoutTest, AProxyMustBeAThirdRank)
{
    // A proxy equal to the sender or the receiver, or outside the ranks, is
    // a broken schedule, named by the check.
    for (uint32_t bad : {0u, 1u, 3u})
    {
        CollectiveSchedule sched("pxn by hand", 3);
        const uint32_t c = sched.AddChunk(100);
        sched.AddContribution(0, c);
        sched.AddNeed(1, c);
        sched.AddOp(0, 1, {c}, false, {}, 0, bad);
        const ScheduleCheck check = sched.Check();
        EXPECT_FALSE(check.ok) << bad;
        EXPECT_NE(check.error.find("names proxy " + std::to_string(bad)), std::string::npos) << check.error;
    }
    CollectiveSchedule sched("pxn by hand", 3);
    const uint32_t c = sched.AddChunk(100);
    sched.AddContribution(0, c);
    sched.AddNeed(1, c);
    sched.AddOp(0, 1, {c}, false, {}, 0, 2);
    EXPECT_TRUE(sched.Check().ok) << sched.Check().error;
    EXPECT_EQ(sched.GetOps()[0].Legs(), (std::vector<std::pair<uint32_t, uint32_t>>{{0, 2}, {2, 1}}));
}

TEST_F(CollectiveRailLayoutTest, CompareRunsTheNodeAwareAlgorithmsOnTheTopologysServers)
{
    // On rail-h100-2n the node tree's and PXN's closed forms take their
    // NVLink steps at the server's alpha and beta and their crossings at the
    // network's (rows carry inter_alpha_s and inter_beta_Bps), and the
    // executed schedule on the two-level analytic channel (alphabeta, levels
    // by the topology's servers) agrees with them to the picosecond.
    for (auto [kind, algorithm] : {std::pair{CollectiveKind::ALL_REDUCE, std::string("node-tree")},
                                   std::pair{CollectiveKind::ALL_TO_ALL, std::string("pxn")}})
    {
        ComparisonConfig c;
        c.topology = MakePreset("rail-h100-2n");
        c.topologyName = "rail-h100-2n";
        c.collective = kind;
        c.algorithm = algorithm;
        c.sizes = {4000000};
        c.backends = {"closed", "alphabeta"};
        const std::vector<ResultRow> rows = RunComparison(c);
        ASSERT_EQ(rows.size(), 2u) << algorithm;
        EXPECT_NEAR(rows[0].GetDouble("time_s"), rows[1].GetDouble("time_s"), 1e-12) << algorithm;
        EXPECT_LT(rows[0].GetDouble("alpha_s"), rows[0].GetDouble("inter_alpha_s")) << algorithm;
        EXPECT_GT(rows[0].GetDouble("beta_Bps"), rows[0].GetDouble("inter_beta_Bps")) << algorithm;
    }
}
