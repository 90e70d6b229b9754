// SPDX-License-Identifier: GPL-2.0-only
//
// ECMP: flows spread over 4 equal-cost ports within a binomial bound, the
// packets really leave by the port the hash picks, and the choice is a pure
// function of the EcmpSeed hash seed.
#include "fabric-helper.h"
#include "simulator-test.h"

#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class FabricEcmpTest : public hockney::SimulatorTest
{
};

struct Leaf
{
    Ptr<FabricSwitch> sw;
    FabricLink host;
    std::vector<FabricLink> up;
};

// A leaf with one host (address 0) and 4 uplinks to plain sink nodes, all
// four equal-cost routes to destination 50.
Leaf
BuildLeaf(uint32_t seed)
{
    FabricHelper h;
    Leaf l;
    l.sw = h.CreateSwitch();
    l.sw->SetAttribute("EcmpSeed", UintegerValue(seed));
    FabricLinkConfig cfg;
    l.host = h.Connect(CreateObject<Node>(), l.sw, cfg);
    l.host.devA->SetFabricAddress(0);
    std::vector<uint32_t> ports;
    for (int i = 0; i < 4; ++i)
    {
        l.up.push_back(h.Connect(l.sw, CreateObject<Node>(), cfg));
        ports.push_back(l.up.back().portA);
    }
    l.sw->AddRoute(50, ports);
    l.sw->AddRoute(0, {l.host.portB});
    return l;
}

std::vector<uint32_t>
Assignment(const Leaf& l, uint32_t flows)
{
    std::vector<uint32_t> out;
    for (uint32_t f = 0; f < flows; ++f)
    {
        out.push_back(l.sw->SelectEgress(FabricHeader(0, 50, f, 0)));
    }
    return out;
}

} // namespace

TEST_F(FabricEcmpTest, FlowsSpreadWithinBinomialBound)
{
    // 4000 flows, p = 1/4 per port: mean 1000, sd sqrt(4000 x 1/4 x 3/4) = 27.4.
    // A fair hash stays within 4.5 sd (+-123) except with probability ~1e-5.
    Leaf l = BuildLeaf(1);
    std::vector<uint32_t> a = Assignment(l, 4000);
    std::vector<int> count(l.sw->GetNPorts(), 0);
    for (uint32_t p : a)
    {
        ASSERT_LT(p, l.sw->GetNPorts());
        ++count[p];
    }
    const double sd = std::sqrt(4000 * 0.25 * 0.75);
    for (const auto& up : l.up)
    {
        EXPECT_NEAR(count[up.portA], 1000.0, 4.5 * sd) << "port " << up.portA;
    }
    EXPECT_EQ(count[l.host.portB], 0);
}

TEST_F(FabricEcmpTest, PacketsLeaveByTheHashedPort)
{
    Leaf l = BuildLeaf(3);
    const uint32_t flows = 400;
    std::vector<uint32_t> a = Assignment(l, flows);
    for (uint32_t f = 0; f < flows; ++f)
    {
        l.host.devA->SendFabric(Create<Packet>(512), FabricHeader(0, 50, f, 0));
    }
    Simulator::Run();
    for (const auto& up : l.up)
    {
        uint64_t expected = std::count(a.begin(), a.end(), up.portA);
        EXPECT_EQ(up.devB->GetCounters().rxPackets, expected);
        EXPECT_GT(expected, 0u);
    }
}

TEST_F(FabricEcmpTest, DeterministicForASeedAndDifferentAcrossSeeds)
{
    std::vector<uint32_t> first = Assignment(BuildLeaf(5), 2000);
    Simulator::Destroy(); // node ids restart, as in a fresh run
    std::vector<uint32_t> again = Assignment(BuildLeaf(5), 2000);
    EXPECT_EQ(first, again);
    Simulator::Destroy();
    std::vector<uint32_t> other = Assignment(BuildLeaf(6), 2000);
    int differ = 0;
    for (size_t i = 0; i < first.size(); ++i)
    {
        differ += first[i] != other[i];
    }
    // An independent hash moves 3/4 of the flows (1500 +- 19); demand > 1200.
    EXPECT_GT(differ, 1200);
}

TEST_F(FabricEcmpTest, BadRoutesAreRejected)
{
    Leaf l = BuildLeaf(0);
    EXPECT_THROW(l.sw->AddRoute(7, {}), std::invalid_argument);
    EXPECT_THROW(l.sw->AddRoute(7, {99}), std::invalid_argument);
    EXPECT_EQ(l.sw->SelectEgress(FabricHeader(0, 123, 0, 0)), 0xFFFFFFFFu);
}

TEST_F(FabricEcmpTest, SparseAddressesRouteLikeDenseOnes)
{
    // An id such as 10.0.0.1 as a 32-bit number goes to the sparse table.
    Leaf l = BuildLeaf(0);
    l.sw->AddRoute(0x0A000001u, {l.up[2].portA});
    EXPECT_EQ(l.sw->SelectEgress(FabricHeader(0, 0x0A000001u, 0, 0)), l.up[2].portA);
    EXPECT_EQ(l.sw->SelectEgress(FabricHeader(0, 0x0A000002u, 0, 0)), 0xFFFFFFFFu);
}
