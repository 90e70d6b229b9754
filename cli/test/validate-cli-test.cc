// SPDX-License-Identifier: GPL-2.0-only
//
// hockney validate driven as a user would: the map as JSON (one row per
// experiment, verdicts), the report with CSV and PNG files in --output, and
// bad flags (exit 2, one stderr line naming the flag).
#include "cli-runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace
{

using Result = hockney::CliResult;
using hockney::ExpectBadInput;
using hockney::RunHockney;
using hockney::TempPath;

} // namespace

TEST(ValidateCli, JsonMapAndReportFiles)
{
    // Two experiments whose direction is unambiguous on their configurations:
    // large-message AllReduce within 10 % (band: ~5 %), AllToAll on the
    // oversubscribed leaf-spine beyond 100 %.
    const std::string dir = TempPath("hockney-validate-test");
    std::filesystem::remove_all(dir);
    Result r = RunHockney("validate --experiments=alltoall-oversubscribed,large-allreduce --format=json --quiet "
                          "--measured-dir=/nonexistent --output=" +
                          dir);
    ASSERT_EQ(r.status, 0) << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["command"], "validate");
    ASSERT_EQ(doc["rows"].size(), 2u);
    for (const auto& row : doc["rows"])
    {
        EXPECT_EQ(row["verdict"], "confirmed") << row.dump();
        if (row["experiment"] == "large-allreduce")
        {
            EXPECT_LT(row["measured_error"].get<double>(), 0.10);
        }
        else
        {
            EXPECT_GT(row["measured_error"].get<double>(), 1.0);
        }
    }
    EXPECT_TRUE(std::filesystem::exists(dir + "/report.md"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/accuracy-points.csv"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/accuracy-table.csv"));
    EXPECT_GT(std::filesystem::file_size(dir + "/large-allreduce-time.png"), 1000u);
    EXPECT_GT(std::filesystem::file_size(dir + "/alltoall-oversubscribed-error.png"), 1000u);
    std::filesystem::remove_all(dir);
}

TEST(ValidateCli, BadFlagsExitTwoNamingTheFlag)
{
    ExpectBadInput("validate --experiments=no-such-experiment", "--experiments");
    ExpectBadInput("validate --format=xml", "--format");
    ExpectBadInput("validate --bogus=1", "--bogus");
    ExpectBadInput("validate --validation-dir=/nonexistent", "--validation-dir");
    ExpectBadInput("demo --experiments=nope", "--experiments");
}

TEST(ValidateCli, FidelityTableInEveryFormat)
{
    ExpectBadInput("validate --fidelity --experiments=incast", "--fidelity");
    ExpectBadInput("validate --fidelity --full", "--fidelity");
    ExpectBadInput("validate --fidelity --fidelity-wall-limit=soon", "--fidelity-wall-limit");
    // One small curve: the 8 x H100 ring at 32 KiB (a packet run of a few ms).
    const std::string dir = TempPath("fidelity");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/published-cases.json")
        << R"({"cases": [{"name": "ring", "measurement": "raw/together_h100_ar_ring.txt", "topology": "dgx-h100",
             "collective": "allreduce", "ranks": 8,
             "models": [{"label": "ring", "algorithm": "ring", "backends": ["closed"]}],
             "fidelity": {"model": "ring", "goal": "nvswitch-ring", "sizes": ["32KiB"]}}]})";
    const std::string common = "validate --fidelity --quiet --validation-dir=" + dir;
    Result json = RunHockney(common + " --format=json");
    ASSERT_EQ(json.status, 0) << json.err;
    const auto rows = nlohmann::json::parse(json.out).at("rows");
    // Four bands of the one curve, then every other shipped log, not compared.
    ASSERT_GE(rows.size(), 4u);
    EXPECT_EQ(rows[0].at("band"), "<64KB");
    EXPECT_EQ(rows[0].at("packet_points"), 1);
    EXPECT_DOUBLE_EQ(rows[0].at("goal_max_sym_error").get<double>(), 0.15);
    EXPECT_TRUE(rows[0].at("verdict") == "pass" || rows[0].at("verdict") == "fail");
    EXPECT_EQ(rows[3].at("band"), ">=64MB");
    EXPECT_EQ(rows[3].at("verdict"), "no points");
    EXPECT_EQ(rows.back().at("verdict"), "not compared");
    Result csv = RunHockney(common + " --format=csv --output=" + dir + "/out");
    ASSERT_EQ(csv.status, 0) << csv.err;
    EXPECT_NE(csv.out.find("curve,measurement,topology,model,band,sizes,packet_points,packet_median_sym_error"),
              std::string::npos);
    EXPECT_TRUE(std::filesystem::exists(dir + "/out/fidelity.csv"));
    EXPECT_NE(hockney::ReadFile(dir + "/out/report.md").find("### Fidelity table"), std::string::npos);
    Result table = RunHockney(common);
    ASSERT_EQ(table.status, 0) << table.err;
    EXPECT_NE(table.out.find("packet_median_sym_error"), std::string::npos);
    // A model's NCCL slots that are no multiple of NCCL_STEPS: the cases
    // file is refused before anything runs (exit 2, the field named).
    std::ofstream(dir + "/published-cases.json")
        << R"({"cases": [{"name": "ring", "measurement": "raw/together_h100_ar_ring.txt", "topology": "dgx-h100",
             "collective": "allreduce", "ranks": 8,
             "models": [{"label": "ring", "algorithm": "ring", "backends": ["closed"], "protocol": "auto",
                         "net_slots": 12}],
             "fidelity": {"model": "ring", "sizes": ["32KiB"]}}]})";
    ExpectBadInput(common, "cases[0].models[0].net_slots");
    std::filesystem::remove_all(dir);
}
