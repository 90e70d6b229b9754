// SPDX-License-Identifier: GPL-2.0-only
//
// hockney calibrate as a user runs it: a CSV of known alpha-beta data comes
// back as rows with intervals around the truth and as a parameter file; real
// nccl-tests logs (copies in validation/data) give one row
// per collective and model; bad logs exit 2 with one stderr line naming the file.
#include "cli-runner.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace
{

using CalibrateRun = hockney::CliResult;
using hockney::TempPath;

std::string
ReadAll(const std::string& path)
{
    return hockney::ReadFile(path);
}

CalibrateRun
Calibrate(const std::string& args)
{
    return hockney::RunHockney("calibrate " + args);
}

std::string
WriteFile(const std::string& name, const std::string& text)
{
    std::string path = TempPath(name);
    std::ofstream(path) << text;
    return path;
}

size_t
Lines(const std::string& s)
{
    size_t n = 0;
    for (char c : s)
    {
        n += c == '\n';
    }
    return n;
}

} // namespace

// T = 5 us + n / 450 GB/s exactly, 8 B .. 1 GiB: the alphabeta row gives back
// 5 us and 450 GB/s (exact data: 1e-6 relative covers GSL's rounding), the
// crossover alpha beta = 2.25 MB, and a parameter file with the same values.
TEST(CalibrateCli, CsvOfKnownParameters)
{
    std::ostringstream csv;
    csv << "# synthetic: alpha 5 us, beta 450 GB/s\nbytes,time_s\n";
    for (int k = 3; k <= 30; ++k)
    {
        double n = std::ldexp(1.0, k);
        csv << static_cast<uint64_t>(n) << "," << std::setprecision(17) << 5e-6 + n / 450e9 << "\n";
    }
    std::string in = WriteFile("known.csv", csv.str());
    std::string params = TempPath("params.json");
    auto r = Calibrate("--input=" + in + " --model=alphabeta,scurve --format=json --resamples=50 --output=" + params);
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = nlohmann::json::parse(r.out).at("rows");
    ASSERT_EQ(rows.size(), 2u);
    const auto& ab = rows[0];
    EXPECT_EQ(ab.at("model"), "alphabeta");
    EXPECT_EQ(ab.at("collective"), "p2p");
    EXPECT_NEAR(ab.at("alpha_s").get<double>(), 5e-6, 5e-12);
    EXPECT_NEAR(ab.at("beta_Bps").get<double>(), 450e9, 450e3);
    EXPECT_NEAR(ab.at("crossover_bytes").get<double>(), 2.25e6, 2.25);
    EXPECT_LE(ab.at("alpha_s_lo").get<double>(), 5e-6 * (1 + 1e-6));
    EXPECT_GE(ab.at("alpha_s_hi").get<double>(), 5e-6 * (1 - 1e-6));
    EXPECT_LT(ab.at("error_rms").get<double>(), 1e-6);
    EXPECT_TRUE(ab.at("n0_bytes").is_null()); // not a parameter of alphabeta
    EXPECT_TRUE(ab.contains("error_lt_64KiB"));
    EXPECT_TRUE(ab.contains("error_ge_64MiB"));
    EXPECT_EQ(rows[1].at("model"), "scurve");
    // The parameter file holds both fits with the same keys.
    auto doc = nlohmann::json::parse(ReadAll(params));
    EXPECT_EQ(doc.at("format"), "hockney-calibration");
    // The parameter file says where it came from, as every JSON output.
    EXPECT_EQ(doc.at("meta").at("command_line").get<std::string>().rfind("hockney calibrate --input=", 0), 0u);
    EXPECT_EQ(doc.at("meta").at("seed"), 1); // the bootstrap's default
    ASSERT_EQ(doc.at("fits").size(), 2u);
    EXPECT_DOUBLE_EQ(doc["fits"][0].at("alpha_s").get<double>(), ab.at("alpha_s").get<double>());
    EXPECT_EQ(doc["fits"][0].at("residuals").size(), 28u);
    std::remove(params.c_str());
    // Table and CSV print the same rows (CSV: header + 2 lines).
    auto c = Calibrate("--input=" + in + " --model=alphabeta,scurve --format=csv --resamples=20");
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_EQ(Lines(hockney::CsvWithoutComments(c.out)), 3u);
    std::remove(in.c_str());
}

TEST(CalibrateCli, RealNcclTestsLogOneRowPerCollectiveAndModel)
{
    std::string path = HOCKNEY_SOURCE_DIR "/validation/data/raw/xxrjun_N1_G8.log";
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0) << "measured data missing from the repository: " << path;
    auto r = Calibrate("--input=" + path + " --model=alphabeta,loggp --format=json --resamples=20");
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = nlohmann::json::parse(r.out).at("rows");
    // Five tests (allreduce, allgather, reducescatter, alltoall, sendrecv) x two models.
    EXPECT_EQ(rows.size(), 10u);
    // --collective keeps one test: 8 ranks from the 8 "Rank" lines.
    auto one = Calibrate("--input=" + path + " --collective=allreduce --model=alphabeta --format=json --resamples=20");
    ASSERT_EQ(one.status, 0) << one.err;
    auto rows1 = nlohmann::json::parse(one.out).at("rows");
    ASSERT_EQ(rows1.size(), 1u);
    EXPECT_EQ(rows1[0].at("ranks"), 8);
    EXPECT_EQ(rows1[0].at("samples"), 10); // out-of-place rows 32 MB .. 16 GB
}

TEST(CalibrateCli, BadLogsExitTwoNamingTheFile)
{
    std::string empty = WriteFile("empty.log", "");
    std::string words = WriteFile("words.log", "no table here\njust words\n");
    std::string mixed = WriteFile("mixed.csv", "size,time\n1KB,5us\n2KB,6\n");
    struct Case
    {
        std::string file;
        std::string expect; // in the one stderr line
    };
    for (const Case& c : {Case{empty, empty + ":1"},
                          Case{words, words},
                          Case{mixed, mixed + ":3"},
                          Case{"/nonexistent/nccl.log", "/nonexistent/nccl.log"}})
    {
        auto r = Calibrate("--input=" + c.file);
        EXPECT_EQ(r.status, 2) << c.file << ": " << r.err;
        EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
        EXPECT_EQ(Lines(r.err), 1u) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    auto noInput = Calibrate("");
    EXPECT_EQ(noInput.status, 2);
    EXPECT_NE(noInput.err.find("--input"), std::string::npos);
    // A bare nccl-tests table whose busbw < algbw (allgather? alltoall?) without
    // --collective: exit 2 naming file:line and the flag.
    std::string bare = WriteFile("bare.log",
                                 "  1024  256  float  none  -1  10.0  0.10  0.09  0  10.0  0.10  0.09  0\n");
    auto unknown = Calibrate("--input=" + bare + " --model=alphabeta --resamples=10");
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find(bare + ":1"), std::string::npos) << unknown.err;
    EXPECT_NE(unknown.err.find("--collective"), std::string::npos) << unknown.err;
    // ... and with --collective but no ranks (no rank lines, busbw too coarse): names --ranks.
    auto noRanks = Calibrate("--input=" + bare + " --collective=allgather --model=alphabeta --resamples=10");
    EXPECT_EQ(noRanks.status, 2);
    EXPECT_NE(noRanks.err.find("--ranks"), std::string::npos) << noRanks.err;
    auto badModel = Calibrate("--input=" + bare + " --collective=allgather --ranks=8 --model=roofline");
    EXPECT_EQ(badModel.status, 2);
    EXPECT_NE(badModel.err.find("--model"), std::string::npos);
    for (const auto& f : {empty, words, mixed, bare})
    {
        std::remove(f.c_str());
    }
}

// A parameter file drives `model` and `compare` (--calibration): a hand-written
// file with alpha 5 us, beta 450 GB/s (alphabeta), an S-curve fit and a LogGP
// fit. Expected times by hand: 5 us + 1e6 / 450e9 = 7.2222 us; the S-curve at
// n = n0 = 256000: 2 us + 256000 / (400e9 (1 - 1/e)); LogGP at 1001 B:
// 2o + L + 1000 G = 2 + 3 + 0.002 us; ring AllReduce of 8 MB on 8 GPUs:
// 2 (N-1) (alpha + M / (N beta)) = 14 (5 us + 1e6 / 450e9).
TEST(CalibrateCli, ParameterFileDrivesModelAndCompare)
{
    const std::string file = WriteFile("given.json", R"({"format": "hockney-calibration", "version": 1, "fits": [
      {"model": "alphabeta", "collective": "p2p", "alpha_s": 5e-6, "beta_Bps": 450e9},
      {"model": "scurve", "collective": "p2p", "alpha_s": 2e-6, "beta_Bps": 400e9, "n0_bytes": 256000},
      {"model": "loggp", "collective": "p2p", "L_s": 3e-6, "o_s": 1e-6, "g_s": 2e-6, "G_s_per_byte": 2e-12}]})");
    auto rowsOf = [](const hockney::CliResult& r) { return nlohmann::json::parse(r.out).at("rows"); };
    auto ab = hockney::RunHockney("model --calibration=" + file + " --bytes=1MB --format=json");
    ASSERT_EQ(ab.status, 0) << ab.err;
    EXPECT_NEAR(rowsOf(ab)[0].at("time_s").get<double>(), 5e-6 + 1e6 / 450e9, 1e-15);
    auto sc = hockney::RunHockney("model --calibration=" + file + " --calibration-model=scurve --bytes=256000 --format=json");
    ASSERT_EQ(sc.status, 0) << sc.err;
    EXPECT_NEAR(rowsOf(sc)[0].at("time_s").get<double>(), 2e-6 + 256000 / (400e9 * (1 - std::exp(-1.0))), 1e-15);
    auto lg = hockney::RunHockney("model --calibration=" + file + " --calibration-model=loggp --bytes=1001 --format=json");
    ASSERT_EQ(lg.status, 0) << lg.err;
    EXPECT_NEAR(rowsOf(lg)[0].at("loggp_time_s").get<double>(), 2e-6 + 3e-6 + 1000 * 2e-12, 1e-15);
    auto cmp = hockney::RunHockney("compare --topology=dgx-h100 --calibration=" + file +
                                   " --bytes=8MB --backends=closed --format=json");
    ASSERT_EQ(cmp.status, 0) << cmp.err;
    const auto row = rowsOf(cmp)[0];
    EXPECT_EQ(row.at("params"), "given");
    // 14 steps each rounded to the 1 ps Time resolution: within 14 ps.
    EXPECT_NEAR(row.at("time_s").get<double>(), 14 * (5e-6 + 1e6 / 450e9), 14e-12);
    // Bad uses: exit 2, one line naming the flag.
    hockney::ExpectBadInput("model --calibration=/nonexistent/params.json", "--calibration");
    hockney::ExpectBadInput("model --calibration=" + file + " --calibration-model=cubic", "--calibration-model");
    hockney::ExpectBadInput("model --calibration-model=scurve", "--calibration-model");
    hockney::ExpectBadInput("compare --topology=dgx-h100 --calibration=" + file + " --alpha=1us", "--calibration");
    std::remove(file.c_str());
}

TEST(CalibrateCli, LaunchFromTheTwoNodeLogAndItsBadGpusPerNode)
{
    // i309 A (2 nodes x 8 GPUs, a bare log without rank lines): with
    // --gpus-per-node=8 the floor is Tree's 25.2 us (collective.md); the
    // log's 13 out-of-place times below 64 KiB (68.52, 24.96, 24.93, 25.29,
    // 25.68, 94.40, 32.35, 29.75, 28.19, 30.24, 32.12, 32.74, 34.10 us)
    // weighted by 1/T^2 give sum w (T - 25.2) / sum w = 4.319 us by hand;
    // within 0.01 us (the log's times have two decimals of a us).
    std::string path = HOCKNEY_SOURCE_DIR "/validation/data/raw/i309_A.txt";
    auto r = Calibrate("--input=" + path + " --model=launch --gpus-per-node=8 --format=json --resamples=20");
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = nlohmann::json::parse(r.out).at("rows");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].at("samples"), 13);
    EXPECT_NEAR(rows[0].at("launch_overhead_s").get<double>(), 4.319e-6, 0.01e-6);
    EXPECT_NE(rows[0].at("form").get<std::string>().find("2 node(s)"), std::string::npos);
    // 0 GPUs a node: exit 2, one line naming the flag.
    auto bad = Calibrate("--input=" + path + " --model=launch --gpus-per-node=0");
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--gpus-per-node"), std::string::npos) << bad.err;
    EXPECT_EQ(Lines(bad.err), 1u) << bad.err;
}
