// SPDX-License-Identifier: GPL-2.0-only
//
// hockney model and hockney demo, driven as a user would: values parsed from
// the JSON output against hand computations (1e-9 relative: the JSON carries
// about 16 digits, the formulas are a few double operations), error exits
// (status 2, one stderr line naming the flag).
#include "cli-runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

nlohmann::json
RunJson(const std::string& args)
{
    Result r = RunHockney(args + " --format=json");
    EXPECT_EQ(r.status, 0) << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["command"], "model");
    return doc["rows"];
}

void
ExpectRel(double actual, double expected, const char* what)
{
    EXPECT_NEAR(actual, expected, std::fabs(expected) * 1e-9) << what;
}


} // namespace

TEST(ModelCli, H100NvlinkExampleValues)
{
    auto rows = RunJson("model --alpha=5us --beta=450GB/s --bytes=1MB,4MB");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0]["bytes"], 1000000);
    ExpectRel(rows[0]["time_s"], 5e-6 + 1e6 / 450e9, "T(1 MB)");
    ExpectRel(rows[0]["alpha_s"], 5e-6, "alpha");
    ExpectRel(rows[0]["beta_Bps"], 450e9, "beta");
    ExpectRel(rows[0]["crossover_bytes"], 2.25e6, "n* = 5 us x 450 GB/s");
    EXPECT_EQ(rows[0]["protocol"], "constant");
    EXPECT_EQ(rows[0]["regime"], "latency-bound");
    EXPECT_EQ(rows[1]["regime"], "bandwidth-bound");
    ExpectRel(rows[1]["time_s"], 5e-6 + 4e6 / 450e9, "T(4 MB)");
}

TEST(ModelCli, ProtocolSteps)
{
    // alpha_eager 2 us, + RTT 3 us from 8 KB, + pipeline 1 us from 512 KB.
    auto rows = RunJson("model --alpha=2us --beta=450GB/s --eager-limit=8KB --rendezvous-limit=512KB "
                        "--rtt=3us --pipeline-setup=1us --bytes=4KB,64KB,1MB");
    ASSERT_EQ(rows.size(), 3u);
    const char* protocols[] = {"eager", "rendezvous", "pipeline"};
    const double alphas[] = {2e-6, 5e-6, 6e-6};
    const double sizes[] = {4000, 64000, 1e6};
    for (int i = 0; i < 3; ++i)
    {
        EXPECT_EQ(rows[i]["protocol"], protocols[i]);
        ExpectRel(rows[i]["alpha_s"], alphas[i], protocols[i]);
        ExpectRel(rows[i]["time_s"], alphas[i] + sizes[i] / 450e9, protocols[i]);
    }
    // The protocol switch alone (defaults): the same steps.
    auto defaults = RunJson("model --eager-limit=8KB --bytes=64KB");
    ExpectRel(defaults[0]["alpha_s"], 5e-6, "default rendezvous alpha");
}

TEST(ModelCli, SCurveAndMultiResource)
{
    // beta(n0) = 450 GB/s x (1 - 1/e).
    auto rows = RunJson("model --n0=256KB --bytes=256KB");
    ExpectRel(rows[0]["beta_Bps"], 450e9 * (1 - std::exp(-1.0)), "beta(n0)");
    // min(3 TB/s, 450 GB/s, 200 GB/s) x 0.9 = 180 GB/s.
    auto mr = RunJson("model --mem-read=3TB/s --mem-write=200GB/s --eta=0.9 --bytes=1MB");
    ExpectRel(mr[0]["beta_Bps"], 180e9, "beta_eff");
    ExpectRel(mr[0]["crossover_bytes"], 5e-6 * 180e9, "n*");
}

TEST(ModelCli, LogGpColumnsAndPresets)
{
    // 2o + L + (n-1)G with G = 1 ns/B (1 GB/s): 2 + 3 + 1 = 6 us at 1001 B; o < g.
    auto rows = RunJson("model --L=3us --o=1us --g=3us --G=1GB/s --messages=5 --bytes=1001");
    ExpectRel(rows[0]["loggp_time_s"], 6e-6, "LogGP T");
    ExpectRel(rows[0]["G_s_per_byte"], 1e-9, "G");
    EXPECT_EQ(rows[0]["cpu_bound"], false);
    // Train: 6 + 4 x max(1, 3 + 1) = 22 us.
    ExpectRel(rows[0]["train_time_s"], 22e-6, "train");
    auto cpu = RunJson("model --L=3us --o=2us --g=0.5us --G=1ns --bytes=1");
    EXPECT_EQ(cpu[0]["cpu_bound"], true);
    ExpectRel(cpu[0]["loggp_time_s"], 7e-6, "LogP 2o + L");
    // Presets: IB NDR is 50 GB/s.
    auto ib = RunJson("model --preset=ib-ndr --bytes=1MB");
    ExpectRel(ib[0]["beta_Bps"], 50e9, "ib-ndr beta");
    // Multi-hop: 1 us @ 450 GB/s then 2 us @ 50 GB/s, 1 MB: exact 25.222 us, approx 23 us.
    auto hop = RunJson("model --path=1us@450GB/s,2us@50GB/s --bytes=1MB");
    ExpectRel(hop[0]["path_exact_s"], 3e-6 + 1e6 / 450e9 + 1e6 / 50e9, "exact");
    ExpectRel(hop[0]["path_approx_s"], 23e-6, "approx");
    // alpha from AlphaBudget's B2B level: 2.38 us.
    auto b2b = RunJson("model --alpha-budget=B2B --bytes=1KB");
    ExpectRel(b2b[0]["alpha_s"], 2.38e-6, "B2B alpha");
}

TEST(ModelCli, CsvAndTable)
{
    Result csv = RunHockney("model --bytes=1MB --format=csv");
    EXPECT_EQ(csv.status, 0);
    EXPECT_EQ(hockney::CsvWithoutComments(csv.out).rfind("bytes,time_s,alpha_s,beta_Bps,crossover_bytes,protocol,regime\n", 0), 0u) << csv.out;
    Result table = RunHockney("model --bytes=1MB");
    EXPECT_EQ(table.status, 0);
    EXPECT_NE(table.out.find("latency-bound"), std::string::npos);
}

TEST(ModelCli, BadInputExitsTwoNamingTheFlag)
{
    ExpectBadInput("model --frobnicate=1", "--frobnicate");
    ExpectBadInput("model --bytes=0", "--bytes");
    ExpectBadInput("model --bytes=-1KB", "--bytes");
    ExpectBadInput("model --bytes=1XB", "--bytes");
    ExpectBadInput("model --bytes=nan", "--bytes");
    ExpectBadInput("model --beta=0GB/s", "--beta");
    ExpectBadInput("model --beta=-450GB/s", "--beta");
    ExpectBadInput("model --beta=450", "--beta");
    ExpectBadInput("model --alpha=5parsecs", "--alpha");
    ExpectBadInput("model --alpha=nanus", "--alpha");
    ExpectBadInput("model --eager-limit=1MB --rendezvous-limit=512KB", "--eager-limit");
    ExpectBadInput("model --n0=0", "--n0");
    ExpectBadInput("model --eta=1.5", "--eta");
    ExpectBadInput("model --L=1us --o=1us --g=1us", "--G");
    ExpectBadInput("model --preset=token-ring", "--preset");
    ExpectBadInput("model --format=xml", "--format");
}

TEST(DemoCli, WritesTableCsvAndPlot)
{
    // The main job on one experiment (the fast incast one) and without the
    // published measurements: the map on stdout, report.md with the table, the
    // figures and the H100 NVLink analytic sweep as its last section.
    const std::string dir = TempPath("hockney-demo-test");
    std::filesystem::remove_all(dir);
    Result r = RunHockney("demo --output=" + dir + " --experiments=incast --measured-dir=/nonexistent --quiet");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("incast"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("confirmed"), std::string::npos) << r.out;
    std::ifstream md(dir + "/report.md");
    std::stringstream report;
    report << md.rdbuf();
    EXPECT_NE(report.str().find("| incast |"), std::string::npos);
    EXPECT_NE(report.str().find("skipped"), std::string::npos); // no measurements: said so
    EXPECT_NE(report.str().find("bandwidth-bound"), std::string::npos); // the analytic sweep section
    std::istringstream csv(hockney::CsvWithoutComments(hockney::ReadFile(dir + "/accuracy-points.csv")));
    std::string header;
    std::getline(csv, header);
    EXPECT_EQ(header.rfind("collective,", 0), 0u) << header;
    int lines = 0;
    for (std::string line; std::getline(csv, line);)
    {
        ++lines;
    }
    EXPECT_EQ(lines, 12); // 3 variants x 1 size x 4 backends
    EXPECT_GT(std::filesystem::file_size(dir + "/incast-dcqcn-rate.png"), 1000u);
    EXPECT_GT(std::filesystem::file_size(dir + "/incast-pfc-pfc.png"), 1000u);
    std::filesystem::remove_all(dir);
}
