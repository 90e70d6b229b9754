// SPDX-License-Identifier: GPL-2.0-only
//
// hockney compare's library side: parameters derived from a topology path
// (checked against a hand computation), the rows of a small comparison, the
// regime rules, and the scenario validation (every bad field named).
#include "collective-comparison.h"
#include "comparison-backend.h"
#include "comparison-regime.h"
#include "comparison-packet-fabric.h"
#include "rdma-congestion-control.h"
#include "simulator-test.h"
#include "star-topology.h"
#include "topology-graph.h"
#include "topology-parameters.h"
#include "topology-presets.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{

class CollectiveComparisonTest : public hockney::SimulatorTest
{
};

// ACKs for an 8-packet message at RdmaNic's default AckInterval of 64: one,
// for the message's last packet.
constexpr double kAcksFor8Packets = 1;

// Two hosts through one store-and-forward switch: 100 Gb/s, 1 us per link,
// MTU 1000 B, 50 B of header, 200 ns forwarding latency.
TopologyDescription
TwoHostsOneSwitch(uint32_t hosts = 2)
{
    TopologyTier t;
    t.name = "eth";
    t.protocol = "ethernet";
    t.laneRate = DataRate("100Gbps");
    t.delay = MicroSeconds(1);
    t.mtuBytes = 1000;
    t.headerBytes = 50;
    t.forwardingLatency = NanoSeconds(200);
    t.cutThrough = false;
    return hockney::StarTopology(hosts, t, "test");
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

TEST_F(CollectiveComparisonTest, PacketRowsCountEventsHopsAndResources)
{
    // One eager message of 4000 B from rank 0 to rank 1 through one switch:
    // the NIC's path MTU is 512 B (the largest IB MTU within the tier's
    // 1000 B), so ceil(4000 / 512) = 8 data packets, each crossing 2 links:
    // 16 data hops. The requester asks for an ACK at the message's end and
    // every AckInterval packets (RdmaNic's default, rdma-nic.cc). The run
    // stops at the last delivery (~4.34 us: 2 x 1 us of links, the
    // message's serialization and the NIC's PCIe steps), before any ACK,
    // sent from ~3.4 us on, has crossed the 1 us link to the switch: each
    // ACK is one control hop. PFC links send no credit updates and,
    // uncongested, no pause frames.
    ComparisonConfig c;
    c.topology = TwoHostsOneSwitch();
    c.topologyName = "test";
    c.collective = CollectiveKind::BROADCAST;
    c.sizes = {4000};
    c.backends = {"packet"};
    std::vector<ResultRow> rows = RunComparison(c);
    ASSERT_EQ(rows.size(), 1u);
    const ResultRow& r = rows[0];
    EXPECT_EQ(r.GetDouble("data_hops"), 16);
    EXPECT_EQ(r.GetDouble("control_hops"), kAcksFor8Packets);
    // Every hop is at least one event (its reception at the far end).
    EXPECT_GE(r.GetDouble("events"), r.GetDouble("data_hops") + r.GetDouble("control_hops"));
    EXPECT_GT(r.GetDouble("wall_s"), 0);
    // The collective starts at 0 and the run stops at its end.
    EXPECT_DOUBLE_EQ(r.GetDouble("sim_s"), r.GetDouble("time_s"));
    EXPECT_GT(r.GetDouble("peak_rss_bytes"), 1e6); // a process with ns-3 loaded
    EXPECT_EQ(r.GetString("status"), "complete");
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
    // The point is contention (the flow row); the closed form's own row is
    // contention-free by construction and says what it is.
    EXPECT_EQ(rows[1].GetString("regime"), "contention");
    EXPECT_EQ(rows[0].GetString("regime"), "bandwidth-bound");
}

TEST_F(CollectiveComparisonTest, TheRegimeRunsTheFlowModelOnlyForTheContentionRule)
{
    // The point of IncastAndContentionRegimes whose flow model shows
    // contention (4 flows each way on every host link), judged from a packet
    // answer alone: with congestion control acting the regime is
    // "congestion-control" whatever the flow model says, so it is not run;
    // without, the flow model runs and decides "contention"; an incast is
    // "incast" from the schedule's fan-in, without the flow model either.
    ComparisonConfig c;
    c.topology = TwoHostsOneSwitch(5);
    c.sizes = {5000000};
    c.backends = {"packet"};
    c.collective = CollectiveKind::ALL_TO_ALL;
    c.algorithm = "all-at-once";
    const ComparisonSetup setup(c, {});
    const ComparisonPoint pt = BuildPoint(setup, 5000000);
    BackendAnswer packet;
    packet.backend = "packet";
    packet.reference = true;
    packet.time = MilliSeconds(1);
    packet.congestionControlActed = true;
    {
        ComparisonContext context(setup, pt);
        EXPECT_EQ(JudgePoint(pt, context, {packet}).regime, "congestion-control");
        EXPECT_FALSE(context.FlowModelRan());
    }
    packet.congestionControlActed = false;
    {
        ComparisonContext context(setup, pt);
        EXPECT_EQ(JudgePoint(pt, context, {packet}).regime, "contention");
        EXPECT_TRUE(context.FlowModelRan());
    }
    c.collective = CollectiveKind::INCAST;
    c.algorithm = "direct";
    const ComparisonSetup incastSetup(c, {});
    const ComparisonPoint incast = BuildPoint(incastSetup, 5000000);
    ComparisonContext context(incastSetup, incast);
    EXPECT_EQ(JudgePoint(incast, context, {packet}).regime, "incast");
    EXPECT_FALSE(context.FlowModelRan());
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
        // Checked where they are read, so named by the scenario field.
        {json{{"topology", 42}}, "scenario.topology:"},
        {json{{"topology", {{"preset", "roce-leafspine"}, {"colour", 4}}}}, "scenario.topology.colour:"},
        {json{{"topology", {{"preset", "fat-tree-k1000"}}}}, "scenario.topology.k:"},
        {json{{"topology", {{"preset", 7}}}}, "scenario.topology.preset:"},
        {json{{"topology", {{"tiers", json::array({json{{"name", "t"}, {"lane_rate", "400Gbs"}, {"mtu_bytes", 4096}}})}}}},
         "scenario.topology.tiers[0].lane_rate:"},
        {json{{"fabric", {{"mtu_bytes", 1}}}}, "scenario.fabric.mtu_bytes:"},
        {json{{"fabric", {{"mtu_bytes", 255}}}}, "scenario.fabric.mtu_bytes:"}, // below the least IB MTU
        {json{{"fabric", {{"mtu_bytes", 1024}, {"header_bytes", 1024}}}}, "scenario.fabric.header_bytes:"},
        {json{{"fabric", {{"wall_limit", "-1s"}}}}, "scenario.fabric.wall_limit:"},
        {json{{"fabric", {{"transfer_unit_bytes", "4KB"}}}}, "scenario.fabric.transfer_unit_bytes:"},
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

namespace
{

/// The error of applying \p scenario and running it ("" when it runs).
std::string
RunErrorOf(const nlohmann::json& scenario)
{
    ComparisonConfig c;
    c.backends = {"closed"};
    try
    {
        ApplyScenario(scenario, c);
        RunComparison(c);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST_F(CollectiveComparisonTest, LaterErrorsNameTheScenarioField)
{
    using nlohmann::json;
    const json topo = "dgx-h100";
    const std::vector<std::pair<json, std::string>> bad = {
        {json{{"topology", topo}, {"sizes", json::array({0})}}, "scenario.sizes:"},
        {json{{"topology", topo}, {"algorithm", "bogus"}}, "scenario.algorithm:"},
        {json{{"topology", topo}, {"collective", "broadcast"}, {"root", 9}}, "scenario.root:"}, // 8 GPUs
        {json{{"topology", topo}, {"ranks", 9}}, "scenario.ranks:"},
        {json{{"model", {{"alpha", "5us"}}}}, "scenario.model.beta:"},
        {json{{"model", {{"beta", "5GB/s"}}}}, "scenario.model.alpha:"},
        {json{{"topology", topo}, {"model", {{"contention", "shared"}}}}, "scenario.model.contention:"},
        {json{{"topology", topo}, {"fabric", {{"header_bytes", 1000000}}}}, "scenario.fabric.header_bytes:"},
        {json{{"topology", topo}, {"backends", json::array({"loggp"})},
              {"model", {{"alpha", "5us"}, {"beta", "100GB/s"}, {"o", "3us"}}}},
         "scenario.model.o:"}, // 2 x 3 us > 5 us
    };
    for (const auto& [scenario, field] : bad)
    {
        std::string err = RunErrorOf(scenario);
        EXPECT_EQ(err.rfind(field, 0), 0u) << scenario.dump() << " -> '" << err << "'";
    }
    // o = alpha / 2 is the edge (L = 0), still valid.
    EXPECT_EQ(RunErrorOf(json{{"topology", topo}, {"backends", json::array({"loggp"})},
                              {"model", {{"alpha", "5us"}, {"beta", "100GB/s"}, {"o", "2.5us"}}}}),
              "");
}

TEST_F(CollectiveComparisonTest, ScenarioSelectsAnyRegisteredCongestionControl)
{
    using nlohmann::json;
    // Every name of the fabric's registry is accepted as it is registered...
    const std::vector<std::string> names = RdmaCcRegistry::Names();
    ASSERT_GE(names.size(), 2u);
    EXPECT_EQ(names.front(), "none");
    for (const auto& name : names)
    {
        ComparisonConfig c;
        ApplyScenario(json{{"fabric", {{"congestion_control", name}}}}, c);
        EXPECT_EQ(c.fabric.congestionControl, name);
        // ...and the packet run gets that algorithm (none: no algorithm).
        const PacketTransport::CongestionControlFactory ccFor = MakeCongestionControl(c.fabric);
        EXPECT_EQ(!ccFor || !ccFor(DataRate("100Gbps")), name == "none") << name;
    }
    // An unknown one names the field and lists the registered names.
    const std::string err = ErrorOf(json{{"fabric", {{"congestion_control", "bbr"}}}});
    std::string list;
    for (const auto& n : names)
    {
        list += (list.empty() ? "" : ", ") + n;
    }
    EXPECT_EQ(err, "scenario.fabric.congestion_control: expected a registered congestion control (" + list +
                       "), got 'bbr'");
}

TEST_F(CollectiveComparisonTest, ScenarioAttributesHoldForTheirRunOnly)
{
    using nlohmann::json;
    // An 8-rank ring AllReduce on dgx-h100 is 2 x 7 alpha-beta messages in a
    // chain; 1 us of software overhead per message adds 14 us. The attribute
    // applies while its own comparison runs and is gone for the next one (as
    // validate runs experiment after experiment in one process).
    auto alphabeta = [](const json& scenario) {
        ComparisonConfig c;
        ApplyScenario(scenario, c);
        for (const auto& r : RunComparison(c))
        {
            if (r.GetString("backend") == "alphabeta")
            {
                return r.GetDouble("time_s");
            }
        }
        ADD_FAILURE() << "no alphabeta row";
        return 0.0;
    };
    const json base = {{"topology", "dgx-h100"}, {"sizes", {"1MB"}}, {"algorithm", "ring"}, {"backends", {"alphabeta"}}};
    json withOverhead = base;
    withOverhead["attributes"] = {{"ns3::AlphaBetaModel::SoftwareOverhead", "1us"}};
    const double before = alphabeta(base);
    const double with = alphabeta(withOverhead);
    const double after = alphabeta(base);
    EXPECT_NEAR(with - before, 14e-6, 1e-12);
    EXPECT_EQ(after, before);
    // Checked when read, even though applied later.
    json bad = base;
    bad["attributes"] = {{"ns3::AlphaBetaModel::SoftwareOverhead", "soon"}};
    EXPECT_EQ(ErrorOf(bad).rfind("scenario.attributes[\"ns3::AlphaBetaModel::SoftwareOverhead\"]:", 0), 0u)
        << ErrorOf(bad);
}

TEST_F(CollectiveComparisonTest, ScenarioDefaultsAndPresetOptions)
{
    using nlohmann::json;
    // A collective without an algorithm takes its first one, as the flag does.
    ComparisonConfig c;
    ApplyScenario(json{{"collective", "incast"}}, c);
    EXPECT_EQ(c.algorithm, "direct");
    // Keys beside "preset" are its options: the same description as the
    // option syntax, and not the default preset's (4:1 has fewer spine links).
    ComparisonConfig p;
    ApplyScenario(json{{"topology", {{"preset", "roce-leafspine"}, {"oversubscription", 4}}}}, p);
    EXPECT_EQ(p.topologyName, "roce-leafspine:oversubscription=4");
    const TopologyDescription want = MakePreset("roce-leafspine:oversubscription=4");
    ASSERT_TRUE(p.topology.has_value());
    EXPECT_EQ(p.topology->links.size(), want.links.size());
    EXPECT_NE(p.topology->links.size(), MakePreset("roce-leafspine").links.size());
}

TEST_F(CollectiveComparisonTest, SharedContentionPointsToTheFlowBackend)
{
    // alphabeta with shared links over the topology's routes would be the flow
    // backend itself (route latencies and rates in place of alpha and beta),
    // so it is refused rather than silently equal to none.
    ComparisonConfig c;
    c.topology = TwoHostsOneSwitch(3);
    c.backends = {"alphabeta"};
    c.model.contention = AnalyticChannel::SHARED;
    try
    {
        RunComparison(c);
        FAIL() << "shared accepted";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string err = e.what();
        EXPECT_EQ(err.rfind("--contention:", 0), 0u) << err;
        EXPECT_NE(err.find("flow"), std::string::npos) << err;
    }
}

TEST_F(CollectiveComparisonTest, LogGpOverheadAboveHalfAlphaIsRefused)
{
    // L = alpha - 2o: 5 us - 2 x 3 us < 0 is no LogGP model.
    ComparisonConfig c;
    c.model.alpha = MicroSeconds(5);
    c.model.beta = DataRate("100Gbps");
    c.ranks = 4;
    c.backends = {"loggp"};
    c.model.o = MicroSeconds(3);
    try
    {
        RunComparison(c);
        FAIL() << "negative L accepted";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string err = e.what();
        EXPECT_EQ(err.rfind("model.o: expected 2o <= alpha", 0), 0u) << err;
    }
}

TEST_F(CollectiveComparisonTest, PacketRunStopsAtTheWallClockLimit)
{
    // A wall limit of 0 is reached at the first check, at simulated time 0,
    // whatever the machine's speed: the run stops (not bad input; compare exits 3).
    ComparisonConfig c;
    c.topology = TwoHostsOneSwitch(2);
    c.sizes = {100000};
    c.backends = {"packet"};
    c.fabric.wallLimit = Time(0);
    try
    {
        RunComparison(c);
        FAIL() << "the wall limit did not stop the run";
    }
    catch (const std::invalid_argument& e)
    {
        FAIL() << "reported as bad input: " << e.what();
    }
    catch (const PacketRunStopped& e)
    {
        const std::string err = e.what();
        ASSERT_EQ(e.Rows().size(), 1u);
        EXPECT_EQ(e.Rows()[0].GetString("status"), "stopped-at-wall-limit");
        EXPECT_TRUE(std::holds_alternative<std::monostate>(e.Rows()[0].Get("time_s")));
        EXPECT_EQ(e.Rows()[0].GetDouble("data_hops"), 0); // stopped before the first packet
        EXPECT_NE(err.find("wall-clock limit"), std::string::npos) << err;
        EXPECT_NE(err.find("--wall-limit"), std::string::npos) << err;
        EXPECT_NE(err.find("100000 B"), std::string::npos) << err; // names the point
        EXPECT_NE(err.find("0/"), std::string::npos) << err;       // nothing delivered yet
    }
}
