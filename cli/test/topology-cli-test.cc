// SPDX-License-Identifier: GPL-2.0-only
//
// hockney topology as a user runs it: counts and paths of presets (numbers by
// hand, as in the fabric's topology tests), scenario files, and exit 2 with
// one line naming the field for bad descriptions.
#include "cli-runner.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace
{

using CliRun = hockney::CliResult;

CliRun
Hockney(const std::string& args)
{
    return hockney::RunHockney("topology " + args);
}

nlohmann::json
Rows(const CliRun& r)
{
    return nlohmann::json::parse(r.out).at("rows");
}

} // namespace

TEST(TopologyCli, RailSummaryCountsByHand)
{
    CliRun r = Hockney("--topology=rail-h100-2n --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    auto row = Rows(r).at(0);
    // 16 GPUs, 16 NICs, 2 NVSwitches + 8 rail leaves + 2 spines; links 16 NVLink,
    // 16 PCIe, 16 NIC-leaf, 16 leaf-spine.
    EXPECT_EQ(row.at("gpus"), 16);
    EXPECT_EQ(row.at("nics"), 16);
    EXPECT_EQ(row.at("switches"), 12);
    EXPECT_EQ(row.at("nodes"), 44);
    EXPECT_EQ(row.at("links"), 64);
}

TEST(TopologyCli, PathsCarryLatencyAndBottleneck)
{
    CliRun r = Hockney("--topology=dgx-h100 --show=paths --pairs=0:1,2:7 --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = Rows(r);
    ASSERT_EQ(rows.size(), 2u);
    // 5 ns + 100 ns NVSwitch + 5 ns; 18 x 25 GB/s.
    EXPECT_DOUBLE_EQ(rows[0].at("latency_s").get<double>(), 110e-9);
    EXPECT_DOUBLE_EQ(rows[0].at("bottleneck_Bps").get<double>(), 450e9);
    EXPECT_EQ(rows[1].at("route"), "gpu2>nvswitch>gpu7");
    CliRun hops = Hockney("--topology=fat-tree --show=hops --pairs=0:12 --format=csv");
    ASSERT_EQ(hops.status, 0) << hops.err;
    // Header line + 6 hops host-edge-agg-core-agg-edge-host.
    const std::string table = hockney::CsvWithoutComments(hops.out);
    EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 7);
}

TEST(TopologyCli, ScenarioFile)
{
    const std::string path = "/tmp/hockney-topology-cli-scenario-" + std::to_string(getpid()) + ".json";
    {
        std::ofstream f(path);
        f << R"({"topology": {"tiers": [{"name": "t", "lane_rate": "100Gbps", "delay": "1us",
                 "mtu_bytes": 1000}],
                 "nodes": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
                 "links": [{"a": "a", "b": "b", "tier": "t"}]}})";
    }
    CliRun r = Hockney("--scenario=" + path + " --show=paths --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_DOUBLE_EQ(Rows(r).at(0).at("latency_s").get<double>(), 1e-6);
    {
        std::ofstream f(path);
        f << R"({"topology": {"tiers": [{"name": "t", "lane_rate": "0Gbps", "mtu_bytes": 1000}],
                 "nodes": [], "links": []}})";
    }
    CliRun bad = Hockney("--scenario=" + path);
    std::remove(path.c_str());
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("topology.tiers[0].lane_rate: expected"), std::string::npos) << bad.err;
}

TEST(TopologyCli, BadDescriptionsExitTwoNamingTheField)
{
    const std::pair<std::string, std::string> cases[] = {
        {"--topology=rail-h100-0n", "preset: expected"},
        {"--topology=torus", "preset: expected"},
        {"--topology=roce-leafspine:oversubscription=3", "preset.oversubscription: expected"},
        {"--topology=dgx-h100:gpus=15", "nodes[15].ports: expected"},
        {"--topology=dgx-h100 --show=colour", "--show: expected"},
        {"--topology=dgx-h100 --show=paths --pairs=0:8", "--pairs: expected"},
        {"", "--topology: expected"},
    };
    for (const auto& [args, field] : cases)
    {
        CliRun r = Hockney(args);
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find(field), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty()) << args;
    }
}
