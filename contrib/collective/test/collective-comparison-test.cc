// SPDX-License-Identifier: GPL-2.0-only
//
// hockney compare's library side: parameters derived from a topology path
// (checked against a hand computation), the rows of a small comparison, the
// regime rules, and the scenario validation (every bad field named).
#include "collective-comparison.h"
#include "simulator-test.h"
#include "topology-graph.h"
#include "topology-parameters.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{

class CollectiveComparisonTest : public hockney::SimulatorTest
{
};

// Two hosts through one store-and-forward switch: 100 Gb/s, 1 us per link,
// MTU 1000 B, 50 B of header, 200 ns forwarding latency.
TopologyDescription
TwoHostsOneSwitch(uint32_t hosts = 2)
{
    TopologyDescription d;
    d.name = "test";
    TopologyTier t;
    t.name = "eth";
    t.protocol = "ethernet";
    t.laneRate = DataRate("100Gbps");
    t.delay = MicroSeconds(1);
    t.mtuBytes = 1000;
    t.headerBytes = 50;
    t.forwardingLatency = NanoSeconds(200);
    t.cutThrough = false;
    d.tiers.push_back(t);
    for (uint32_t i = 0; i < hosts; ++i)
    {
        d.nodes.push_back(TopologyNode{"h" + std::to_string(i), TopologyNodeKind::HOST, "", 0});
    }
    d.nodes.push_back(TopologyNode{"s", TopologyNodeKind::SWITCH, "eth", 0});
    for (uint32_t i = 0; i < hosts; ++i)
    {
        d.links.push_back(TopologyLink{"h" + std::to_string(i), "s", "eth", 1});
    }
    return d;
}

std::string
ErrorOf(const nlohmann::json& scenario)
{
    ComparisonConfig c;
    try
    {
        ApplyScenario(scenario, c);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST_F(CollectiveComparisonTest, DerivedParametersOfAPath)
{
    TopologyGraph g(TwoHostsOneSwitch());
    PointToPointParameters p = DerivePathParameters(g.Path(0, 1));
    // alpha: 1 us + 200 ns + one packet of 1050 B at 100 Gb/s (84 ns) into the
    // switch, then 1 us to the host: 2.284 us.
    EXPECT_EQ(p.alpha, NanoSeconds(2284));
    // beta: 100 Gb/s x 1000 / 1050 = 95.238095... Gb/s (eta = 0.952).
    EXPECT_NEAR(static_cast<double>(p.beta.GetBitRate()), 100e9 * 1000.0 / 1050.0, 1.0);
}

TEST_F(CollectiveComparisonTest, RowsOfASmallComparison)
{
    ComparisonConfig c;
    c.topology = TwoHostsOneSwitch();
    c.topologyName = "test";
    c.sizes = {1000000};
    c.backends = {"closed", "alphabeta", "loggp", "flow"};
    std::vector<ResultRow> rows = RunComparison(c);
    ASSERT_EQ(rows.size(), 4u);
    // Ring allreduce on 2 ranks: 2 (alpha + M/(2 beta)), the two directions of
    // each link carrying one message each (no contention, so flow agrees).
    // compare's derived alpha adds the endpoint's software cost (RdmaEndpoint
    // SendOverhead + ReceiveOverhead, 0.5 us each by default) to the path's
    // 2.284 us; its eta counts the 32 B of RDMA transport headers a packet
    // carries besides the 50 B of framing.
    const double alpha = 3.284e-6;
    const double beta = std::floor(100e9 * 1000.0 / 1082.0 + 0.5) / 8;
    const double want = 2 * (alpha + 500000 / beta);
    // G = 1/beta = 84 ps per byte; LogGP charges (n-1) G per message: 2 G less.
    const double g = 1 / beta;
    for (const ResultRow& r : rows)
    {
        // Each of the 2 messages is rounded to the picosecond: <= 1 ps in 89 us
        // (1.1e-8); 1e-7 leaves room and still catches a missing 84 ps byte.
        const double expected = r.GetString("backend") == "loggp" ? want - 2 * g : want;
        EXPECT_NEAR(r.GetDouble("time_s"), expected, 1e-7 * want) << r.GetString("backend");
        EXPECT_EQ(r.GetString("collective"), "allreduce");
        EXPECT_EQ(r.GetDouble("ranks"), 2);
        EXPECT_TRUE(std::holds_alternative<std::monostate>(r.Get("error")));
        EXPECT_NEAR(r.GetDouble("busbw_GBps"), r.GetDouble("algbw_GBps") * 1.0, 1e-12); // 2(n-1)/n = 1
        EXPECT_EQ(r.GetString("regime"), "bandwidth-bound"); // 6.6 us of alpha < 87 us of n/beta
    }
    c.sizes = {1000};
    rows = RunComparison(c);
    EXPECT_EQ(rows[0].GetString("regime"), "latency-bound"); // 6.6 us of alpha > 87 ns of n/beta
}

TEST_F(CollectiveComparisonTest, IncastAndContentionRegimes)
{
    // 5 hosts on one switch: the 4-to-1 incast is "incast"; the all-at-once
    // alltoall is "contention" (each host link carries 4 flows each way, so the
    // flow backend takes about 4x the contention-free time).
    ComparisonConfig c;
    c.topology = TwoHostsOneSwitch(5);
    c.sizes = {5000000};
    c.backends = {"closed", "flow"};
    c.collective = CollectiveKind::INCAST;
    c.algorithm = "direct";
    std::vector<ResultRow> rows = RunComparison(c);
    EXPECT_EQ(rows[0].GetString("regime"), "incast");
    // 4 senders of 1 MB share the receiver's link: 4 MB / beta + alpha (as above).
    const double beta = std::floor(100e9 * 1000.0 / 1082.0 + 0.5) / 8;
    EXPECT_NEAR(rows[1].GetDouble("time_s"), 3.284e-6 + 4e6 / beta, 1e-6 * (4e6 / beta));
    c.collective = CollectiveKind::ALL_TO_ALL;
    c.algorithm = "all-at-once";
    rows = RunComparison(c);
    EXPECT_EQ(rows[0].GetString("regime"), "contention");
}

TEST_F(CollectiveComparisonTest, ScenarioFieldsAreValidatedByName)
{
    using nlohmann::json;
    const std::vector<std::pair<json, std::string>> bad = {
        {json{{"bogus", 1}}, "scenario.bogus:"},
        {json{{"collective", "allsum"}}, "scenario.collective:"},
        {json{{"algorithm", 3}}, "scenario.algorithm:"},
        {json{{"ranks", 1}}, "scenario.ranks:"},
        {json{{"ranks", "8"}}, "scenario.ranks:"},
        {json{{"sizes", json::array({"1KB", "abc"})}}, "scenario.sizes[1]:"},
        {json{{"sizes", json::array()}}, "scenario.sizes:"},
        {json{{"sizes", "1KB,,2KB"}}, "scenario.sizes:"},
        {json{{"backends", json::array({"closed", "warp"})}}, "scenario.backends:"},
        {json{{"backends", "closed,closed"}}, "scenario.backends:"},
        {json{{"channels", 0}}, "scenario.channels:"},
        {json{{"slices", -1}}, "scenario.slices:"},
        {json{{"root", 1.5}}, "scenario.root:"},
        {json{{"gpus_per_node", 0}}, "scenario.gpus_per_node:"},
        {json{{"seed", "x"}}, "scenario.seed:"},
        {json{{"model", 3}}, "scenario.model:"},
        {json{{"model", {{"alpha", "fast"}}}}, "scenario.model.alpha:"},
        {json{{"model", {{"beta", "-3GB/s"}}}}, "scenario.model.beta:"},
        {json{{"model", {{"contention", "some"}}}}, "scenario.model.contention:"},
        {json{{"model", {{"o", "1 parsec"}}}}, "scenario.model.o:"},
        {json{{"model", {{"gamma", 1}}}}, "scenario.model.gamma:"},
        {json{{"fabric", {{"ideal", "yes"}}}}, "scenario.fabric.ideal:"},
        {json{{"fabric", {{"flow_control", "xon"}}}}, "scenario.fabric.flow_control:"},
        {json{{"fabric", {{"congestion_control", "bbr"}}}}, "scenario.fabric.congestion_control:"},
        {json{{"fabric", {{"time_limit", "0s"}}}}, "scenario.fabric.time_limit:"},
        {json{{"fabric", {{"color", 1}}}}, "scenario.fabric.color:"},
        {json{{"topology", "no-such-preset"}}, "scenario.topology"},
        {json::array(), "scenario:"},
    };
    for (const auto& [scenario, field] : bad)
    {
        std::string err = ErrorOf(scenario);
        EXPECT_EQ(err.rfind(field, 0), 0u) << scenario.dump() << " -> '" << err << "'";
    }
    // A good one sets every field it names.
    ComparisonConfig c;
    ApplyScenario(json{{"topology", "dgx-h100"},
                       {"collective", "broadcast"},
                       {"algorithm", "binomial"},
                       {"ranks", 4},
                       {"sizes", json::array({"1KB", 2048})},
                       {"backends", json::array({"closed", "flow"})},
                       {"model", {{"alpha", "5us"}, {"beta", "450GB/s"}, {"contention", "endpoint"}}},
                       {"fabric", {{"ideal", true}, {"mtu_bytes", 4096}}}},
                  c);
    EXPECT_TRUE(c.topology.has_value());
    EXPECT_EQ(c.collective, CollectiveKind::BROADCAST);
    EXPECT_EQ(c.ranks, 4u);
    EXPECT_EQ(c.sizes, (std::vector<uint64_t>{1000, 2048}));
    EXPECT_EQ(c.model.alpha, MicroSeconds(5));
    EXPECT_EQ(c.model.beta->GetBitRate(), 3600000000000ull);
    EXPECT_EQ(c.model.contention, AnalyticChannel::ENDPOINT);
    EXPECT_TRUE(c.fabric.ideal);
    EXPECT_EQ(*c.fabric.mtuBytes, 4096u);
}

TEST_F(CollectiveComparisonTest, ConfigurationErrorsNameTheFlag)
{
    ComparisonConfig c;
    auto errorOf = [&c]() -> std::string {
        try
        {
            RunComparison(c);
        }
        catch (const std::invalid_argument& e)
        {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(errorOf().rfind("--topology:", 0), 0u); // neither topology nor alpha/beta
    c.model.alpha = MicroSeconds(1);
    EXPECT_EQ(errorOf().rfind("--beta:", 0), 0u); // alpha without beta
    c.model.beta = DataRate("100Gbps");
    EXPECT_EQ(errorOf().rfind("--backends:", 0), 0u); // flow without a topology
    c.backends = {"closed"};
    EXPECT_EQ(errorOf().rfind("--ranks:", 0), 0u); // no topology to count ranks
    c.ranks = 4;
    EXPECT_EQ(errorOf(), "");
    c.topology = TwoHostsOneSwitch(3);
    EXPECT_EQ(errorOf().rfind("--ranks:", 0), 0u); // 4 ranks on 3 hosts
}
