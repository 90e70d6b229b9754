// SPDX-License-Identifier: GPL-2.0-only
//
// PartitionTopology: which rank owns each node, checked against the shape of
// the presets counted by hand (topology-presets.h): roce-leafspine is 4
// leaves of 8 hosts and 2 spines, fat-tree-k4 4 pods of 2 edge switches (2
// hosts each) and 2 aggregation switches, and 4 cores.
#include "input-error.h"
#include "topology-graph.h"
#include "topology-partition.h"
#include "topology-presets.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

using namespace ns3;

namespace
{

/// The ranks that own the nodes whose names start with \p prefix.
std::set<uint32_t>
OwnersOf(const TopologyGraph& g, const TopologyPartition& p, const std::string& prefix)
{
    std::set<uint32_t> owners;
    for (uint32_t v = 0; v < g.NodeCount(); ++v)
    {
        if (g.Node(v).name.rfind(prefix, 0) == 0)
        {
            owners.insert(p.owner[v]);
        }
    }
    return owners;
}

} // namespace

TEST(TopologyPartitionTest, AutoKeepsEachLeafWithItsHostsAndSpreadsTheSpines)
{
    const TopologyGraph g(MakePreset("roce-leafspine"));
    const TopologyPartition p = PartitionTopology(g, 2, "auto", "--partition");
    ASSERT_EQ(p.owner.size(), g.NodeCount());
    std::vector<uint32_t> hosts(2, 0);
    std::vector<uint32_t> spines(2, 0);
    for (uint32_t v = 0; v < g.NodeCount(); ++v)
    {
        if (g.RankOf(v) >= 0)
        {
            ++hosts[p.owner[v]];
            // A host's one link goes to its leaf: never cut.
            ASSERT_EQ(g.PortsOf(v).size(), 1u);
            EXPECT_EQ(p.owner[g.Peer(g.PortsOf(v)[0], v)], p.owner[v]) << g.Node(v).name;
        }
        else if (g.Node(v).tier == "spine")
        {
            ++spines[p.owner[v]];
        }
    }
    // 32 hosts in whole leaves of 8: 16 a rank; 2 spines: one a rank.
    EXPECT_EQ(hosts, (std::vector<uint32_t>{16, 16}));
    EXPECT_EQ(spines, (std::vector<uint32_t>{1, 1}));
    // Cut: the links between a leaf and the spine of the other rank, half of
    // the leaf-spine links (each leaf has the same links to either spine).
    uint32_t leafSpine = 0;
    Time delay;
    for (uint32_t l = 0; l < g.LinkCount(); ++l)
    {
        if (g.RankOf(g.LinkA(l)) < 0 && g.RankOf(g.LinkB(l)) < 0)
        {
            ++leafSpine;
            delay = g.LinkTier(l).delay;
        }
    }
    EXPECT_EQ(p.cutLinks, leafSpine / 2);
    EXPECT_EQ(p.lookahead, delay) << "the leaf-spine links' delay";
}

TEST(TopologyPartitionTest, PodKeepsFatTreePodsWhole)
{
    const TopologyGraph g(MakePreset("fat-tree-k4"));
    const TopologyPartition p = PartitionTopology(g, 4, "pod", "--partition");
    // Each pod's 4 hosts, 2 edge and 2 aggregation switches on one rank, a
    // different rank per pod (4 pods, 4 ranks); the 4 cores one a rank.
    std::set<uint32_t> podRanks;
    for (uint32_t v = 0; v < g.NodeCount(); ++v)
    {
        if (g.RankOf(v) < 0)
        {
            continue;
        }
        podRanks.insert(p.owner[v]);
    }
    EXPECT_EQ(podRanks.size(), 4u);
    // Only core links are cut: 16 (4 pods x 2 aggregation switches x 2
    // cores), of which each core's one into its own rank's pod is not.
    EXPECT_EQ(p.cutLinks, 16u - 4u);
    // The leaf-spine has one pod: fewer pods than ranks is an input error.
    EXPECT_THROW(PartitionTopology(TopologyGraph(MakePreset("roce-leafspine")), 2, "pod", "--partition"), InputError);
}

TEST(TopologyPartitionTest, RankMapAndItsErrors)
{
    const TopologyGraph g(MakePreset("fat-tree-k4"));
    const std::string path = ::testing::TempDir() + "hockney-rank-map.txt";
    {
        std::ofstream f(path);
        f << "# every node on rank 1 but the first\n";
        for (uint32_t v = 0; v < g.NodeCount(); ++v)
        {
            f << g.Node(v).name << " " << (v == 0 ? 0 : 1) << "\n";
        }
    }
    const TopologyPartition p = PartitionTopology(g, 2, "rank-map:" + path, "--partition");
    EXPECT_EQ(p.owner[0], 0u);
    EXPECT_EQ(OwnersOf(g, p, g.Node(1).name), std::set<uint32_t>{1});
    EXPECT_EQ(p.cutLinks, g.PortsOf(0).size());
    {
        std::ofstream f(path);
        f << g.Node(0).name << " 0\n";
    }
    EXPECT_THROW(PartitionTopology(g, 2, "rank-map:" + path, "--partition"), InputError); // nodes missing
    {
        std::ofstream f(path);
        f << g.Node(0).name << " 2\n";
    }
    EXPECT_THROW(PartitionTopology(g, 2, "rank-map:" + path, "--partition"), InputError); // rank out of range
    std::remove(path.c_str());
    EXPECT_THROW(PartitionTopology(g, 2, "rank-map:" + path, "--partition"), InputError); // no file
    EXPECT_THROW(PartitionTopology(g, 2, "by-magic", "--partition"), InputError);
}
