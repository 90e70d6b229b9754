// SPDX-License-Identifier: GPL-2.0-only
//
// hockney compare with "fabric": {"faults": [...]}: the analytic rows are the
// fault-free algebra (identical with and without faults), the packet row
// carries the drops by cause and the storming NIC the PFC watchdog named,
// and every malformed fault exits 2 naming its field.
#include <gtest/gtest.h>
#include "cli-runner.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace
{

using hockney::ExpectBadInput;
using hockney::RunHockney;
using hockney::TempPath;

const char* kTopology = "roce-leafspine:leaves=2,spines=2,hosts-per-leaf=2";

std::string
Scenario(const std::string& name, const std::string& faults, const std::string& topology = kTopology)
{
    const std::string path = TempPath(name + ".json");
    std::ofstream(path) << R"({"topology": ")" << topology
                        << R"(", "collective": "allreduce", "algorithm": "ring", "ranks": 4,
        "sizes": ["1MB"], "backends": ["alphabeta", "flow", "packet"],
        "fabric": {"faults": )"
                        << faults << "}}";
    return path;
}

nlohmann::json
Rows(const std::string& args)
{
    return hockney::RunRows("compare " + args);
}

nlohmann::json
Backend(const nlohmann::json& rows, const std::string& backend)
{
    for (const auto& r : rows)
    {
        if (r["backend"] == backend)
        {
            return r;
        }
    }
    ADD_FAILURE() << "no " << backend << " row";
    return nlohmann::json::object();
}

} // namespace

TEST(FaultsCli, AnalyticRowsAreTheFaultFreeAlgebraAndPacketRowsCountDropsByCause)
{
    const nlohmann::json clean = Rows("--scenario=" + Scenario("clean", "[]"));
    const nlohmann::json blackhole = Rows(
        "--scenario=" +
        Scenario("blackhole", R"([{"type": "link_down", "link": ["host1", "leaf0"], "at": "5us", "up_at": "30us",
                                   "on_down": "blackhole"}])"));
    for (const char* b : {"alphabeta", "flow"})
    {
        EXPECT_EQ(Backend(clean, b)["time_s"], Backend(blackhole, b)["time_s"]) << b;
    }
    const nlohmann::json p0 = Backend(clean, "packet");
    const nlohmann::json p1 = Backend(blackhole, "packet");
    // Without faults a row has no per-cause columns (as before faults existed).
    EXPECT_FALSE(p0.contains("drops_link_down"));
    EXPECT_FALSE(p0.contains("pfc_storms"));
    EXPECT_TRUE(p1["pfc_storms"].is_null());
    // host1's only link is dead for 25 us in the middle of the ring: packets
    // are lost on it (conservation attributes them; the run still completes
    // and delivers every byte), and the ring is slower.
    EXPECT_GT(p1["drops_link_down"].get<uint64_t>(), 0u);
    EXPECT_EQ(p1["drops"], p1["drops_link_down"]);
    EXPECT_EQ(p1["drops_buffer"], 0);
    EXPECT_EQ(p1["bytes_delivered"], p1["bytes_sent"]);
    EXPECT_EQ(p1["status"], "complete");
    EXPECT_GT(p1["time_s"].get<double>(), p0["time_s"].get<double>());
}

TEST(FaultsCli, LossyLinkBesideALinkDownCountsEachCause)
{
    // One list, two types: host2's link loses 1 % of its packets while
    // host1's is a blackhole from 5 to 30 us. Each loss is counted under its
    // own cause and the causes add up to drops; go-back-N recovers all.
    const nlohmann::json p = Backend(
        Rows("--scenario=" +
             Scenario("mixed", R"([{"type": "lossy_link", "link": ["host2", "leaf1"], "drop_rate": 0.01},
                                   {"type": "link_down", "link": ["host1", "leaf0"], "at": "5us", "up_at": "30us",
                                    "on_down": "blackhole"}])")),
        "packet");
    EXPECT_GT(p["drops_corrupt"].get<uint64_t>(), 0u);
    EXPECT_GT(p["drops_link_down"].get<uint64_t>(), 0u);
    EXPECT_EQ(p["drops_buffer"], 0); // PFC fabric
    EXPECT_EQ(p["drops_no_route"], 0);
    EXPECT_EQ(p["drops"].get<uint64_t>(),
              p["drops_corrupt"].get<uint64_t>() + p["drops_link_down"].get<uint64_t>());
    EXPECT_EQ(p["bytes_delivered"], p["bytes_sent"]);
    EXPECT_EQ(p["status"], "complete");
}

TEST(FaultsCli, EveryRowSaysWhichFaultsItsBackendSaw)
{
    // Only the packet fabric sees a link_down; gbn prices the lossy_link and
    // nothing else; alphabeta and flow run the fault-free algebra (flow's
    // routes and rates are the fault-free topology's). Without faults no row
    // has the column (as before faults existed).
    const std::string mixed =
        Scenario("seen", R"([{"type": "lossy_link", "link": ["host2", "leaf1"], "drop_rate": 0.01},
                             {"type": "link_down", "link": ["host1", "leaf0"], "at": "5us", "up_at": "30us",
                              "on_down": "blackhole"}])");
    const nlohmann::json rows = Rows("--scenario=" + mixed + " --backends=alphabeta,flow,gbn,packet");
    EXPECT_EQ(Backend(rows, "packet")["faults_seen"], "lossy_link,link_down");
    EXPECT_EQ(Backend(rows, "gbn")["faults_seen"], "lossy_link");
    EXPECT_EQ(Backend(rows, "alphabeta")["faults_seen"], "none");
    EXPECT_EQ(Backend(rows, "flow")["faults_seen"], "none");
    const nlohmann::json slow = Rows(
        "--scenario=" + Scenario("seen-slow", R"([{"type": "slow_link", "link": ["host1", "leaf0"], "rate_factor": 0.5}])") +
        " --backends=flow,gbn");
    EXPECT_EQ(Backend(slow, "flow")["faults_seen"], "none");
    EXPECT_EQ(Backend(slow, "gbn")["faults_seen"], "none");
    for (const auto& r : Rows("--scenario=" + Scenario("seen-clean", "[]") + " --backends=alphabeta,flow,gbn"))
    {
        EXPECT_FALSE(r.contains("faults_seen")) << r.dump();
    }
}

TEST(FaultsCli, PfcStormNamesTheNic)
{
    const nlohmann::json rows =
        Rows("--scenario=" + Scenario("storm", R"([{"type": "pfc_storm", "node": "host3", "at": "10us",
                                                    "duration": "300us"}])") +
             " --ns3::FabricPfcFlowControl::StormDetectionTime=100us");
    const nlohmann::json p = Backend(rows, "packet");
    EXPECT_EQ(p["pfc_storms"], "host3");
    EXPECT_EQ(p["drops"], 0); // Forward: PFC off on the paused queue, nothing lost
}

TEST(FaultsCli, SlowLinkSlowsTheRing)
{
    // A ring step moves 1 MB / 4 = 250 KB per rank; with host1's link at a
    // quarter of 100 Gb/s its steps take at least 250 KB x 8 / 25 Gb/s = 80 us
    // each, 6 steps: >= 480 us (about 120 us without the fault).
    const nlohmann::json p = Backend(
        Rows("--scenario=" +
             Scenario("slow", R"([{"type": "slow_link", "link": ["host1", "leaf0"], "rate_factor": 0.25}])")),
        "packet");
    EXPECT_GT(p["time_s"].get<double>(), 6 * 250000 * 8 / 25e9);
    EXPECT_LT(p["time_s"].get<double>(), 2 * 6 * 250000 * 8 / 25e9);
}

TEST(FaultsCli, ARunThatCannotFinishUnderItsFaultsStopsAtTheTimeLimitNamingThem)
{
    // host1's only link dead from 5 us for good (blackhole): the ring cannot
    // finish; the run stops at its 2 ms time limit as any unfinished run
    // (exit 4, every row printed, the packet row stopped-at-time-limit), its
    // message naming the faults.
    const std::string path = TempPath("forever.json");
    std::ofstream(path) << R"({"topology": ")" << kTopology << R"(", "collective": "allreduce", "ranks": 4,
        "sizes": ["1MB"], "backends": ["alphabeta", "packet"], "fabric": {"time_limit": "2ms", "faults":
        [{"type": "link_down", "link": ["host1", "leaf0"], "at": "5us", "on_down": "blackhole"}]}})";
    const hockney::CliResult r = RunHockney("compare --scenario=" + path + " --format=json");
    ASSERT_EQ(r.status, 4) << r.err;
    EXPECT_NE(r.err.find("under scenario.fabric.faults: link_down host1-leaf0 from 5 us, never up (blackhole)"),
              std::string::npos)
        << r.err;
    const nlohmann::json rows = nlohmann::json::parse(r.out)["rows"];
    EXPECT_TRUE(Backend(rows, "alphabeta")["time_s"].is_number()); // the other rows are printed
    const nlohmann::json p = Backend(rows, "packet");
    EXPECT_EQ(p["status"], "stopped-at-time-limit");
    EXPECT_GT(p["drops_link_down"].get<uint64_t>(), 0u);
}

TEST(FaultsCli, AFlowsRunThatCannotFinishUnderItsFaultsStopsAtTheTimeLimitToo)
{
    // h1 -> h0 with h0's only link dead from 5 us for good.
    const std::string path = TempPath("forever-flows.json");
    std::ofstream(path) << R"({"topology": ")" << kTopology << R"(", "backends": ["alphabeta", "packet"],
        "flows": [{"src": "host1", "dst": "host0", "bytes": "1MB", "start": "0us"}],
        "fabric": {"time_limit": "2ms", "faults":
        [{"type": "link_down", "link": ["host0", "leaf0"], "at": "5us", "on_down": "blackhole"}]}})";
    const hockney::CliResult r = RunHockney("compare --scenario=" + path + " --format=json");
    ASSERT_EQ(r.status, 4) << r.err;
    EXPECT_NE(r.err.find("under scenario.fabric.faults: link_down host0-leaf0 from 5 us, never up (blackhole)"),
              std::string::npos)
        << r.err;
}

TEST(FaultsCli, BadFaultsExitTwoNamingTheField)
{
    auto bad = [](const std::string& name, const std::string& faults, const std::string& field,
                  const std::string& topology = kTopology) {
        ExpectBadInput("compare --scenario=" + Scenario(name, faults, topology), field);
    };
    bad("notlist", R"({"type": "link_down"})", "scenario.fabric.faults:");
    bad("type", R"([{"type": "cable_cut"}])", "scenario.fabric.faults[0].type: expected one of link_down");
    bad("notype", R"([{"link": ["leaf0", "spine0"]}])", "scenario.fabric.faults[0].type");
    bad("key", R"([{"type": "link_down", "link": ["leaf0", "spine0"], "rate": "1Gbps"}])",
        "scenario.fabric.faults[0].rate: unknown field of a link_down fault");
    bad("nolink", R"([{"type": "link_down", "at": "1us"}])", "scenario.fabric.faults[0].link");
    bad("shape", R"([{"type": "link_down", "link": "leaf0-spine0"}])", "scenario.fabric.faults[0].link: expected [");
    bad("node", R"([{"type": "link_down", "link": ["leaf9", "spine0"]}])",
        "scenario.fabric.faults[0].link: expected a node of the topology, got 'leaf9' (nodes: host0, host1");
    bad("pair", R"([{"type": "slow_link", "link": ["host0", "spine0"], "rate": "10Gbps"}])",
        "scenario.fabric.faults[0].link: expected two nodes joined by a link, 'host0' and 'spine0' are not "
        "(links of 'host0': host0-leaf0)");
    bad("parallel", R"([{"type": "link_down", "link": ["leaf3", "spine1"]}])",
        "scenario.fabric.faults[0].link: expected one link, 'leaf3' and 'spine1' are joined by 4 parallel links",
        "roce-leafspine");
    bad("id", R"([{"type": "link_down", "link": ["leaf3", "spine1", 2]}])",
        "scenario.fabric.faults[0].link: expected the id of a link joining", "roce-leafspine");
    bad("at", R"([{"type": "link_down", "link": ["leaf0", "spine0"], "at": "soon"}])", "scenario.fabric.faults[0].at");
    bad("upat", R"([{"type": "link_down", "link": ["leaf0", "spine0"], "at": "20us", "up_at": "10us"}])",
        "scenario.fabric.faults[0].up_at: expected a time after");
    bad("ondown", R"([{"type": "link_down", "link": ["leaf0", "spine0"], "on_down": "drop"}])",
        "scenario.fabric.faults[0].on_down: expected reroute or blackhole");
    bad("factor", R"([{"type": "slow_link", "link": ["leaf0", "spine0"], "rate_factor": 2}])",
        "scenario.fabric.faults[0].rate_factor: expected a number 0 < f <= 1");
    bad("both", R"([{"type": "slow_link", "link": ["leaf0", "spine0"], "rate_factor": 0.5, "rate": "1Gbps"}])",
        "scenario.fabric.faults[0].rate_factor: expected one of");
    bad("rate", R"([{"type": "slow_link", "link": ["leaf0", "spine0"], "rate": "fast"}])",
        "scenario.fabric.faults[0].rate");
    bad("storm", R"([{"type": "pfc_storm", "node": "leaf0"}])",
        "scenario.fabric.faults[0].node: expected an endpoint (host or gpu) with a PFC link");
    bad("stormcredit", R"([{"type": "pfc_storm", "node": "gpu0"}])",
        "scenario.fabric.faults[0].node: expected an endpoint (host or gpu) with a PFC link", "dgx-h100");
    bad("prio", R"([{"type": "pfc_storm", "node": "host0", "priority": 8}])",
        "scenario.fabric.faults[0].priority: expected a class 0-7");
    bad("duration", R"([{"type": "pfc_storm", "node": "host0", "duration": "0s"}])",
        "scenario.fabric.faults[0].duration: expected a time > 0");
    // lossy_link is one type of the same list: the same link resolution
    // (parallel links need an id) and the same field names.
    bad("lossyparallel", R"([{"type": "lossy_link", "link": ["leaf3", "spine1"], "drop_rate": 0.01}])",
        "scenario.fabric.faults[0].link: expected one link, 'leaf3' and 'spine1' are joined by 4 parallel links",
        "roce-leafspine");
    bad("lossyat", R"([{"type": "lossy_link", "link": ["leaf0", "spine0"], "drop_rate": 0.01, "at": "1us"}])",
        "scenario.fabric.faults[0].at: unknown field of a lossy_link fault");
    bad("lossysecond", R"([{"type": "slow_link", "link": ["leaf0", "spine0"], "rate_factor": 0.5},
                           {"type": "lossy_link", "link": ["leaf0", "spine0"], "bit_error_rate": 1}])",
        "scenario.fabric.faults[1].bit_error_rate: expected a probability in [0, 1)");
    // The second entry is named by its index.
    bad("second", R"([{"type": "pfc_storm", "node": "host0"}, {"type": "slow_link", "link": ["a", "b"], "rate": "1Gbps"}])",
        "scenario.fabric.faults[1].link");
}
