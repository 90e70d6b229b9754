// SPDX-License-Identifier: GPL-2.0-only
//
// hockney compare on a workload of flows: the per-flow times of the worked
// example (examples/two-flows.json) against the max-min and alpha-beta
// answers by hand and the packets against the hand value with the wire
// overhead, the CSV form against the JSON form, messages of any size on the
// packet fabric, and bad flows exiting 2 with the field named.
#include <gtest/gtest.h>
#include "cli-runner.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <string>

namespace
{

using hockney::ExpectBadInput;
using hockney::RunHockney;
using hockney::TempPath;

const std::string kExample = std::string(HOCKNEY_SOURCE_DIR) + "/examples/two-flows.json";

// One switch, hosts h0..h2, 100 Gb/s links of 1 us, 500 ns store-and-forward
// switch; mtu_bytes is the tier's payload per packet.
std::string
StarTopology(int mtuBytes)
{
    return R"({"tiers": [{"name": "eth", "protocol": "roce", "lane_rate": "100Gbps", "delay": "1us",
        "mtu_bytes": )" + std::to_string(mtuBytes) + R"(, "header_bytes": 70, "flow_control": "pfc",
        "forwarding_latency": "500ns", "cut_through": false}],
      "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"}, {"name": "h2", "kind": "host"},
                {"name": "s", "kind": "switch", "tier": "eth"}],
      "links": [{"a": "h0", "b": "s", "tier": "eth"}, {"a": "h1", "b": "s", "tier": "eth"},
                {"a": "h2", "b": "s", "tier": "eth"}]})";
}

std::string
WriteFile(const std::string& name, const std::string& text)
{
    const std::string path = TempPath(name);
    std::ofstream(path) << text;
    return path;
}

nlohmann::json
Rows(const std::string& args)
{
    hockney::CliResult r = RunHockney("compare " + args + " --format=json");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return r.status == 0 ? nlohmann::json::parse(r.out)["rows"] : nlohmann::json::array();
}

// (backend, flow) -> row; the summary rows under flow "all".
std::map<std::pair<std::string, std::string>, nlohmann::json>
ByFlow(const nlohmann::json& rows)
{
    std::map<std::pair<std::string, std::string>, nlohmann::json> out;
    for (const auto& r : rows)
    {
        const std::string flow = r["flow"].is_string() ? r["flow"].get<std::string>() : r["flow"].dump();
        out[{r["backend"].get<std::string>(), flow}] = r;
    }
    return out;
}

} // namespace

TEST(FlowsCli, TwoFlowsIntoOneHostByHand)
{
    auto rows = ByFlow(Rows("--scenario=" + kExample));
    ASSERT_EQ(rows.size(), 9u); // 2 flows x 3 backends + 3 summaries
    // By hand, from the tier's numbers. Payload rate of a hop: 100 Gb/s x
    // 4128 / (4128 + 70 framing + 32 RDMA headers: BTH 12, RETH 16, ImmDt 4).
    const double P = 100e9 / 8 * 4128.0 / (4128 + 70 + 32);
    // alpha: two links of 1 us, the switch's 500 ns and its store-and-forward
    // wait for one full packet (4128 + 70 B at 100 Gb/s).
    const double alpha = 2e-6 + 500e-9 + (4128 + 70) * 8 / 100e9;
    // Max-min: flow 0 alone at P for 20 us, then both at P/2 on h0's link
    // until flow 0 ends at 2 MB / P - 20 us, then flow 1 alone at P: it ends
    // at 2 MB / P. Both flow completion times are 2 MB / P - 20 us + alpha.
    const double fct = 2e6 / P - 20e-6 + alpha;
    const double ideal = 1e6 * 8 / 100e9 + 2.5e-6; // bytes / line rate + propagation and forwarding
    for (const char* flow : {"0", "1"})
    {
        const auto& f = rows.at({"flow", flow});
        // Event times are rounded to the picosecond: 10 ps.
        EXPECT_NEAR(f["fct_s"].get<double>(), fct, 1e-11) << f.dump();
        EXPECT_NEAR(f["ideal_s"].get<double>(), ideal, 1e-15);
        EXPECT_NEAR(f["slowdown"].get<double>(), f["fct_s"].get<double>() / ideal, 1e-9);
        // alpha-beta: no contention, alpha + 1 MB / beta each.
        EXPECT_NEAR(rows.at({"alphabeta", flow})["fct_s"].get<double>(), alpha + 1e6 / P, 1e-11);
        EXPECT_NEAR(rows.at({"alphabeta", flow})["beta_Bps"].get<double>(), P, 1);
        // The packets: each flow's time within 5 % of max-min (DCQCN shares
        // h0's link unevenly for a while: flow 0 is ahead by 3.7 %),
        // every byte acknowledged and delivered.
        const auto& p = rows.at({"packet", flow});
        EXPECT_NEAR(p["fct_s"].get<double>(), fct, 0.05 * fct) << p.dump();
        EXPECT_EQ(p["bytes_sent"], 1000000);
        EXPECT_EQ(p["bytes_delivered"], 1000000);
        EXPECT_GT(p["ack_s"].get<double>(), p["last_byte_s"].get<double>());
        EXPECT_TRUE(p["error"].is_null());
        const double pf = p["fct_s"].get<double>();
        EXPECT_NEAR(f["error"].get<double>(), (f["fct_s"].get<double>() - pf) / pf, 1e-9);
    }
    EXPECT_NEAR(rows.at({"flow", "1"})["last_byte_s"].get<double>(), 20e-6 + fct, 1e-11);
    // The packets keep h0's link busy from the first packet to the last, so
    // the last byte arrives after both flows' wire bytes at 100 Gb/s plus
    // alpha, and the NIC's start (doorbell, WQE and payload reads, < 1 us).
    // Per flow: 1 MB in 244 packets of 4096 B and one of 576 B, each with
    // BTH 12 and 70 B of framing, RETH 16 on the first and ImmDt 4 on the last.
    const double wire = 2 * (1e6 + 245 * (12 + 70) + 16 + 4) * 8 / 100e9;
    const auto& all = rows.at({"packet", "all"});
    EXPECT_GT(all["last_byte_s"].get<double>(), wire + alpha);
    EXPECT_LT(all["last_byte_s"].get<double>(), wire + alpha + 1e-6);
    EXPECT_EQ(all["bytes"], 2000000);
    EXPECT_EQ(all["bytes_sent"], 2000000);
    EXPECT_EQ(all["bytes_delivered"], 2000000);
    EXPECT_EQ(all["drops"], 0);
    EXPECT_EQ(all["status"], "complete");
    // The flow model's last completion is the packets' within 0.1 %.
    EXPECT_NEAR(rows.at({"flow", "all"})["error"].get<double>(), 0, 1e-3);
}

TEST(FlowsCli, CsvFormEqualsJsonForm)
{
    const std::string csv = WriteFile("flows.csv", "# two flows into h0\nsrc,dst,bytes,start,class,verb\n"
                                                   "h1,h0,300KB,0us,3,write\n"
                                                   "h2,h0,200000,5us,1,send\n");
    const std::string name = csv.substr(csv.rfind('/') + 1); // relative to the scenario's directory
    const std::string top = StarTopology(4096);
    const std::string fromCsv = WriteFile("csv.json", R"({"topology": )" + top +
                                                          R"(, "backends": "alphabeta,flow,packet", "flows_csv": ")" +
                                                          name + "\"}");
    const std::string fromJson = WriteFile(
        "json.json", R"({"topology": )" + top + R"(, "backends": "alphabeta,flow,packet", "flows": [
            {"src": "h1", "dst": "h0", "bytes": "300KB", "start": "0us", "class": 3, "verb": "write"},
            {"src": "h2", "dst": "h0", "bytes": 200000, "start": "5us", "class": 1, "verb": "send"}]})");
    nlohmann::json a = Rows("--scenario=" + fromCsv);
    nlohmann::json b = Rows("--scenario=" + fromJson);
    ASSERT_EQ(a.size(), 9u);
    for (auto* rows : {&a, &b})
    {
        for (auto& r : *rows)
        {
            r.erase("wall_s"); // the machine's, not the model's
        }
    }
    EXPECT_EQ(a, b);
    EXPECT_EQ(a[1]["verb"], "write");
    EXPECT_EQ(a[4]["class"], 1);
}

TEST(FlowsCli, MessagesOfAnySizeDeliverExactlyTheirBytes)
{
    // MTU 4096: 10000 B is two full packets and one of 1808 B; 4097 B ends
    // with a 1-byte packet; 1 B is one packet.
    const std::string s = WriteFile("sizes.json", R"({"topology": )" + StarTopology(4096) +
                                                      R"(, "backends": ["packet"], "flows": [
        {"src": "h1", "dst": "h0", "bytes": 10000},
        {"src": "h2", "dst": "h0", "bytes": 4097, "verb": "send", "start": "1us"},
        {"src": "h0", "dst": "h2", "bytes": 1, "start": "2us"}]})");
    auto rows = ByFlow(Rows("--scenario=" + s));
    ASSERT_EQ(rows.size(), 4u);
    for (auto [flow, bytes] : {std::pair{"0", 10000}, std::pair{"1", 4097}, std::pair{"2", 1}})
    {
        const auto& r = rows.at({"packet", flow});
        EXPECT_EQ(r["bytes"], bytes);
        EXPECT_EQ(r["bytes_sent"], bytes) << r.dump();
        EXPECT_EQ(r["bytes_delivered"], bytes) << r.dump();
    }
    EXPECT_EQ(rows.at({"packet", "all"})["bytes_delivered"], 14098);
}

TEST(FlowsCli, BadFlowsNameTheField)
{
    const std::string top = StarTopology(4096);
    auto scenario = [&](const std::string& name, const std::string& rest) {
        return "compare --scenario=" + WriteFile(name + ".json", R"({"topology": )" + top + ", " + rest + "}");
    };
    auto flow = [&](const std::string& name, const std::string& fields) {
        return scenario(name, R"("flows": [{"src": "h1", "dst": "h0", "bytes": 1000}, {)" + fields + "}]");
    };
    ExpectBadInput(flow("host", R"("src": "h9", "dst": "h0", "bytes": 1000)"), "scenario.flows[1].src");
    ExpectBadInput(flow("dsthost", R"("src": "h1", "dst": "s", "bytes": 1000)"), "scenario.flows[1].dst");
    ExpectBadInput(flow("same", R"("src": "h1", "dst": "h1", "bytes": 1000)"), "scenario.flows[1].dst");
    ExpectBadInput(flow("zero", R"("src": "h1", "dst": "h0", "bytes": 0)"), "scenario.flows[1].bytes");
    ExpectBadInput(flow("nobytes", R"("src": "h1", "dst": "h0")"), "scenario.flows[1].bytes");
    ExpectBadInput(flow("start", R"("src": "h1", "dst": "h0", "bytes": 1, "start": "soon")"),
                   "scenario.flows[1].start");
    ExpectBadInput(flow("negative", R"("src": "h1", "dst": "h0", "bytes": 1, "start": "-1us")"),
                   "scenario.flows[1].start");
    ExpectBadInput(flow("verb", R"("src": "h1", "dst": "h0", "bytes": 1, "verb": "read")"),
                   "scenario.flows[1].verb");
    ExpectBadInput(flow("class", R"("src": "h1", "dst": "h0", "bytes": 1, "class": 8)"),
                   "scenario.flows[1].class");
    ExpectBadInput(flow("field", R"("src": "h1", "dst": "h0", "size": 1)"), "scenario.flows[1].size");
    ExpectBadInput(scenario("empty", R"("flows": [])"), "scenario.flows");
    const std::string csv = WriteFile("bad.csv", "src,dst,bytes,start\nh1,h0,1KB,0\nh2,h0,lots,0\n");
    ExpectBadInput(scenario("csvrow", R"("flows_csv": ")" + csv + "\""), "scenario.flows_csv[line 3].bytes");
    ExpectBadInput(scenario("csvmissing", R"("flows_csv": "no-such.csv")"), "scenario.flows_csv");
    ExpectBadInput(scenario("both", R"("flows": [{"src": "h1", "dst": "h0", "bytes": 1}], "flows_csv": ")" + csv +
                                        "\""),
                   "scenario.flows_csv");
    // Flows replace the collective: not both.
    const std::string one = R"("flows": [{"src": "h1", "dst": "h0", "bytes": 1}])";
    ExpectBadInput(scenario("collective", R"("collective": "allreduce", )" + one), "scenario.collective");
    ExpectBadInput(flow("flag", R"("src": "h2", "dst": "h0", "bytes": 1)") + " --bytes=1MB", "--bytes");
    ExpectBadInput(scenario("closed", R"("backends": ["closed", "flow"], )" + one), "scenario.backends");
    ExpectBadInput(scenario("calibrated", R"("params": "calibrated", )" + one), "scenario.params");
}

TEST(FlowsCli, PairsInsideAServerUseNvlinkAndAcrossUseTheNetwork)
{
    // rail-h100-2n: a pair inside a server takes the GPUs' NVLink (the
    // messenger's choice: the narrowest domain), a pair across servers the
    // NICs. Over the NICs, 10000 B inside a server would take the PCIe hops
    // and a leaf's forwarding, beyond 1.1 x the NVLink path's ideal.
    const std::string s = WriteFile("rail.json", R"({"topology": "rail-h100-2n", "backends": "flow,packet", "flows": [
        {"src": "n0.gpu0", "dst": "n1.gpu0", "bytes": "4MB"},
        {"src": "n0.gpu1", "dst": "n0.gpu0", "bytes": 10000, "start": "5us"},
        {"src": "n1.gpu3", "dst": "n0.gpu0", "bytes": "3MB", "start": "1us", "class": 0, "verb": "send"}]})");
    auto rows = ByFlow(Rows("--scenario=" + s));
    ASSERT_EQ(rows.size(), 8u);
    EXPECT_LT(rows.at({"packet", "1"})["slowdown"].get<double>(), 1.1) << rows.at({"packet", "1"}).dump();
    for (auto [flow, bytes] : {std::pair{"0", 4000000}, std::pair{"1", 10000}, std::pair{"2", 3000000}})
    {
        const auto& r = rows.at({"packet", flow});
        EXPECT_EQ(r["bytes_delivered"], bytes) << r.dump();
        // The NICs' costs and the headers only: within 15 % of the flow model.
        EXPECT_NEAR(rows.at({"flow", flow})["error"].get<double>(), 0, 0.15) << flow;
    }
    EXPECT_EQ(rows.at({"packet", "all"})["drops"], 0);
}

TEST(FlowsCli, TheWallClockLimitStopsAPacketRunOfFlows)
{
    // A limit of 0 is reached at the first check, before any packet: exit 3
    // (a run that stopped, not bad input, as for a collective), saying where
    // it stopped; the analytic backends' rows are all printed, and the packet
    // backend's one row says it stopped.
    hockney::CliResult r = RunHockney("compare --scenario=" + kExample + " --wall-limit=0s --format=json");
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("packet run of 2 flows: stopped at the wall-clock limit of 0 s (--wall-limit) after "
                         "0/2 flows complete, simulated 0 us"),
              std::string::npos)
        << r.err;
    const nlohmann::json rows = nlohmann::json::parse(r.out).at("rows");
    // 2 flows x (alphabeta, flow), their 2 summaries, and the packet summary.
    ASSERT_EQ(rows.size(), 7U) << r.out;
    EXPECT_EQ(rows.back().at("backend"), "packet");
    EXPECT_EQ(rows.back().at("status"), "stopped-at-wall-limit");
    EXPECT_TRUE(rows.back().at("fct_s").is_null());
    EXPECT_EQ(rows.back().at("bytes"), 2000000);
}

TEST(FlowsCli, PerOpAndTracesAreRefusedWithFlows)
{
    for (const char* flag : {"--per-op=/tmp/hockney-flows-per-op.csv", "--traces=/tmp"})
    {
        hockney::CliResult r = RunHockney("compare --scenario=" + kExample + " " + flag);
        EXPECT_EQ(r.status, 2) << flag;
        EXPECT_NE(r.err.find(std::string(flag).substr(0, std::string(flag).find('=')) +
                             ": expected no"),
                  std::string::npos)
            << r.err;
    }
}

TEST(FlowsCli, NamedClosedOrLoggpIsRefusedEvenAsTheDefaultList)
{
    // Naming compare's default list explicitly names closed and loggp, which
    // have no flow form: refused like any other list that names them.
    hockney::CliResult r = RunHockney("compare --scenario=" + kExample + " --backends=closed,alphabeta,loggp,flow");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--backends"), std::string::npos) << r.err;
}
