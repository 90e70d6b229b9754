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
