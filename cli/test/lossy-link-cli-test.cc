// SPDX-License-Identifier: GPL-2.0-only
//
// hockney compare with a lossy link (fabric.faults, lossy_link): the packet
// row reports its corrupt drops, the gbn row prices the loss, and every bad
// entry is exit 2 naming fabric.faults[i].FIELD.
#include <gtest/gtest.h>
#include "cli-runner.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace
{

using hockney::RunHockney;
using hockney::TempPath;

// h0 - s - h1 on 100 Gb/s RoCE; FAULT is the one entry of fabric.faults.
std::string
Scenario(const std::string& name, const std::string& fault)
{
    const std::string path = TempPath("hockney-lossy-" + name) + ".json";
    std::ofstream(path) << R"({
  "topology": {
    "tiers": [{"name": "eth", "protocol": "roce", "lane_rate": "100Gbps", "delay": "1us", "mtu_bytes": 4128,
               "header_bytes": 70, "flow_control": "pfc", "forwarding_latency": "500ns", "cut_through": false}],
    "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"}, {"name": "s", "kind": "switch", "tier": "eth"}],
    "links": [{"a": "h0", "b": "s", "tier": "eth"}, {"a": "h1", "b": "s", "tier": "eth"}]
  },
  "collective": "broadcast", "sizes": ["16MB"], "backends": ["closed", "gbn", "packet"],
  "fabric": {"congestion_control": "none", "faults": [)" + fault + R"(]}
})";
    return path;
}

} // namespace

TEST(LossyLinkCli, PacketRowCountsCorruptDropsAndGbnPricesThem)
{
    const std::string s =
        Scenario("ok", R"({"type": "lossy_link", "link": ["h0", "s"], "drop_rate": 0.01})");
    auto r = RunHockney("compare --scenario=" + s + " --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = nlohmann::json::parse(r.out)["rows"];
    const nlohmann::json* closed = nullptr;
    const nlohmann::json* gbn = nullptr;
    const nlohmann::json* packet = nullptr;
    for (const auto& row : rows)
    {
        const std::string b = row["backend"];
        (b == "closed" ? closed : b == "gbn" ? gbn : packet) = &row;
    }
    ASSERT_TRUE(closed && gbn && packet);
    // 4096 data packets and a few ACKs cross the lossy wire, each lost at
    // 1 %: some tens lost, every one a corrupt drop (PFC: no buffer drop).
    EXPECT_GT((*packet)["drops_corrupt"].get<int>(), 10);
    EXPECT_EQ((*packet)["drops"], (*packet)["drops_corrupt"]);
    EXPECT_EQ((*packet)["drops_buffer"], 0);
    EXPECT_EQ((*packet)["bytes_delivered"], (*packet)["bytes_sent"]);
    // gbn is closed with beta x eta: eta < 1, a slower answer than closed.
    const double eta = (*gbn)["gbn_efficiency"];
    EXPECT_GT(eta, 0.5);
    EXPECT_LT(eta, 0.95);
    EXPECT_GT((*gbn)["time_s"].get<double>(), (*closed)["time_s"].get<double>());
}

TEST(LossyLinkCli, BadEntriesExitTwoNamingTheField)
{
    const std::pair<std::string, std::string> cases[] = {
        {R"({"type": "lossy_link", "link": ["h0", "s"], "drop_rate": 1})", "fabric.faults[0].drop_rate"},
        {R"({"type": "lossy_link", "link": ["h0", "s"], "drop_rate": -0.1})", "fabric.faults[0].drop_rate"},
        {R"({"type": "lossy_link", "link": ["h0", "s"], "bit_error_rate": 2})", "fabric.faults[0].bit_error_rate"},
        {R"({"type": "lossy_link", "link": ["h0", "s"], "drop_rate": 0.1, "bit_error_rate": 1e-9})",
         "fabric.faults[0].bit_error_rate"},
        {R"({"type": "lossy_link", "link": ["h0", "s"]})", "fabric.faults[0].drop_rate"},
        {R"({"type": "lossy_link", "link": ["h0", "nowhere"], "drop_rate": 0.1})", "fabric.faults[0].link"},
        {R"({"type": "lossy_link", "link": ["h0", "h1"], "drop_rate": 0.1})", "fabric.faults[0].link"},
        {R"({"type": "lossy_link", "link": ["h0"], "drop_rate": 0.1})", "fabric.faults[0].link"},
        {R"({"type": "cosmic_ray", "link": ["h0", "s"], "drop_rate": 0.1})", "fabric.faults[0].type"},
        {R"({"type": "lossy_link", "link": ["h0", "s"], "drop_rate": 0.1, "burst": 3})", "fabric.faults[0].burst"},
    };
    int i = 0;
    for (const auto& [fault, field] : cases)
    {
        auto r = RunHockney("compare --scenario=" + Scenario("bad" + std::to_string(i++), fault));
        EXPECT_EQ(r.status, 2) << fault << "\n" << r.err;
        EXPECT_NE(r.err.find("scenario." + field + ":"), std::string::npos) << fault << "\n" << r.err;
    }
}
