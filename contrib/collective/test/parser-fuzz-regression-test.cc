// SPDX-License-Identifier: GPL-2.0-only
//
// Inputs the libFuzzer targets of fuzz/ found (fuzz/README.md, "Findings"),
// minimized, each once as a test here and once in fuzz/corpus/TARGET/ as
// regress-*. Each was a crash, an abort, an escaped exception other than
// InputError or a sample calibration cannot use; each must now be an
// InputError naming the file and line, the flag or the field (the CLI's
// one line and exit status 2).
#include "calibration-parameters.h"
#include "input-error.h"
#include "measurement-reader.h"
#include "nccl-tests-log.h"
#include "perftest-log.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <unistd.h>

using namespace ns3;

namespace
{

// The InputError \p f throws ("" when it throws none; any other exception
// fails the test by escaping).
std::string
InputErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e.what();
    }
    return "";
}

// \p text in a temporary file, removed by the destructor.
class TempFile
{
  public:
    explicit TempFile(const std::string& text)
    {
        char tmpl[] = "/tmp/hockney-regress-XXXXXX";
        const int fd = mkstemp(tmpl);
        EXPECT_GE(fd, 0);
        close(fd);
        m_path = tmpl;
        FILE* f = std::fopen(m_path.c_str(), "w");
        std::fputs(text.c_str(), f);
        std::fclose(f);
    }
    ~TempFile()
    {
        std::remove(m_path.c_str());
    }
    const std::string& Path() const
    {
        return m_path;
    }

  private:
    std::string m_path;
};

const std::string kDashes =
    "---------------------------------------------------------------------------------------\n";

} // namespace

// perftest-log (fuzz/corpus/perftest-log/regress-zero-byte-bw-row): a
// bandwidth row of 0 bytes was read as a sample of 0 s (bytes / BW average),
// which calibration divides by. perftest prints no such row.
TEST(ParserFuzzRegression, PerftestZeroByteBandwidthRow)
{
    const std::string log = kDashes + "                    RDMA_Write BW Test\n" + kDashes +
                            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
                            "0    5000             12000.00            11500.00            0.011500\n" +
                            kDashes;
    const std::string e = InputErrorOf([&] { ParsePerftestLog(log, "bw.txt"); });
    EXPECT_EQ(e.rfind("bw.txt:5: ", 0), 0u) << e;
    EXPECT_NE(e.find("above 0 bytes"), std::string::npos) << e;
    // The same row at 1 byte is a sample: 1 B / (11500 x 2^20 B/s) (perftest's
    // MB/sec is 2^20 B/s), to double rounding.
    const std::string one = kDashes + "                    RDMA_Write BW Test\n" + kDashes +
                            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
                            "1    5000             12000.00            11500.00            0.011500\n";
    const MeasurementSet set = ParsePerftestLog(one, "bw.txt");
    ASSERT_EQ(set.samples.size(), 1u);
    EXPECT_NEAR(set.samples[0].timeS, 1.0 / (11500.0 * 1048576.0), 1e-15 / (11500.0 * 1048576.0));
}

// calibration-parameters (fuzz/corpus/calibration-parameters/
// regress-loggp-negative-L.json, found on a seed: `hockney calibrate
// --model=loggp --o=1us` of validation/data/perftest_ib_send_lat_UD_EDR100_b2b.csv
// writes L = 2o + L - 2o = 0.836 us - 2 us < 0). MakeLogGpModel set L < 0 on
// LogGpModel, whose checker refuses it: ns-3 aborted the program ("Attribute
// name=L could not be set"), so `hockney model --calibration=FILE
// --calibration-model=loggp` crashed.
TEST(ParserFuzzRegression, CalibrationLogGpNegativeL)
{
    const TempFile file(R"({"format": "hockney-calibration", "version": 1, "fits": [
        {"model": "loggp", "collective": "p2p", "ranks": 2, "L_s": -1.1636574121375485e-06, "o_s": 1e-06,
         "G_s_per_byte": 3.5925832472662926e-10, "two_o_plus_L_s": 8.363425878624515e-07}]})");
    const auto fits = LoadCalibratedParameters(file.Path(), "--calibration");
    ASSERT_EQ(fits.size(), 1u);
    const std::string e = InputErrorOf([&] { fits[0].MakeLogGpModel(); });
    EXPECT_EQ(e.rfind("--calibration: expected L_s >= 0 s", 0), 0u) << e;
    // The other fields the models take are refused the same way.
    CalibratedParameters p = fits[0];
    p.LS = 1e-6;
    p.GSPerByte = -1e-9;
    EXPECT_NE(InputErrorOf([&] { p.MakeLogGpModel(); }).find("G_s_per_byte"), std::string::npos);
    p.model = "alphabeta";
    p.alphaS = 2e-6;
    p.betaBps = 1e300; // 8e300 bit/s: no 64-bit DataRate
    EXPECT_NE(InputErrorOf([&] { p.MakeAlphaBetaModel(); }).find("beta_Bps"), std::string::npos);
    p.betaBps = 25e9;
    p.alphaS = 1e7; // 1e7 s: beyond ns-3's Time at 1 ps (9.2e6 s)
    EXPECT_NE(InputErrorOf([&] { p.MakeAlphaBetaModel(); }).find("alpha_s"), std::string::npos);
}

// calibration-parameters (fuzz/corpus/calibration-parameters/
// regress-format-not-a-string.json): a "format" (or a fit's "collective",
// "kind") that is not a string escaped as nlohmann's type_error 302 through
// json::value(), the CLI's "internal error", exit 1.
TEST(ParserFuzzRegression, CalibrationFieldsOfTheWrongType)
{
    const TempFile format(R"({"format": 1454446331, "fits": []})");
    const std::string e = InputErrorOf([&] { LoadCalibratedParameters(format.Path(), "--calibration"); });
    EXPECT_EQ(e.rfind("--calibration: " + format.Path() + ": expected {\"format\": \"hockney-calibration\"", 0), 0u)
        << e;
    const TempFile kind(R"({"format": "hockney-calibration", "fits": [{"model": "alphabeta", "kind": 3}]})");
    EXPECT_NE(InputErrorOf([&] { LoadCalibratedParameters(kind.Path()); }).find("fits[0].kind: expected a string"),
              std::string::npos);
    const TempFile ranks(R"({"format": "hockney-calibration", "fits": [{"model": "alphabeta", "ranks": 4294967296}]})");
    EXPECT_NE(InputErrorOf([&] { LoadCalibratedParameters(ranks.Path()); }).find("fits[0].ranks"), std::string::npos);
}

// nccl-tests-log: header counts with more digits than a uint32_t went
// through std::stoul, whose std::out_of_range escaped (exit 1, "internal
// error"); the rank line's regular expression (Rank ... Pid N on HOST)
// backtracked over the whole line from every "Rank", quadratic in its length
// (a 32 KB comment line of "Rank 1" took 7.5 s in the release build; found
// by the campaign's 16 executions per second, fuzz/corpus/nccl-tests-log/
// regress-long-rank-line, which the short run replays under its 10 s limit).
TEST(ParserFuzzRegression, NcclTestsHeaderCounts)
{
    const std::string row = "        1024           256     float     sum      -1    10.0    0.10    0.18       0"
                            "    10.0    0.10    0.18       0\n";
    const std::string threads = InputErrorOf(
        [&] { ParseNcclTestsLog("# nThread 99999999999999999999 nGpus 1 minBytes 8\n" + row, "t.log"); });
    EXPECT_EQ(threads.rfind("t.log:1: expected a thread count (nThread) below 2^32", 0), 0u) << threads;
    const std::string rank = InputErrorOf(
        [&] { ParseNcclTestsLog("#  Rank 4294967296 Group  0 Pid  4242 on node-a device  0\n" + row, "r.log"); });
    EXPECT_EQ(rank.rfind("r.log:1: expected a rank below 2^32", 0), 0u) << rank;
    // A count of out-of-bounds values beyond 2^64 is still a note, not an error.
    const MeasurementSet oob =
        ParseNcclTestsLog("# Collective test starting: all_reduce_perf\n" +
                              std::string("#  Rank  0 Group  0 Pid  4242 on node-a device  0\n") +
                              "#  Rank  1 Group  0 Pid  4243 on node-b device  0\n" + row +
                              "# Out of bounds values : 99999999999999999999999 OK\n",
                          "o.log");
    ASSERT_EQ(oob.sources.size(), 1u);
    EXPECT_EQ(oob.sources[0].ranks, 2u);
    EXPECT_EQ(oob.sources[0].hosts, 2u);
    bool noted = false;
    for (const auto& n : oob.sources[0].notes)
    {
        noted = noted || n.find("o.log:5: 99999999999999999999999 out-of-bounds values") == 0;
    }
    EXPECT_TRUE(noted);
    // Rank lines read token by token as the expression read them: the first
    // "Rank N" with a later "Pid P on HOST"; 4000 "Rank 1" and no Pid are no
    // rank line, the two lines after it are (ranks 0 and 1 on hosts a, b).
    std::string longLine = "#";
    for (int i = 0; i < 4000; ++i)
    {
        longLine += " Rank  1";
    }
    const MeasurementSet set = ParseNcclTestsLog("# Collective test starting: all_reduce_perf\n" + longLine +
                                                     "\n#  Rank  0 Group  0 Pid  1 on a device  0\n"
                                                     "#  Rank  1 Group  0 Pid  2 on b device  0\n" +
                                                     row,
                                                 "l.log");
    ASSERT_EQ(set.sources.size(), 1u);
    EXPECT_EQ(set.sources[0].ranks, 2u);
    EXPECT_EQ(set.sources[0].hosts, 2u);
    EXPECT_EQ(set.samples.size(), 2u);
}

// nccl-tests-log, found by reading the parser after its campaign (16
// executions per second on the real logs found neither) and confirmed under
// the fuzz target's sanitizers (fuzz/corpus/nccl-tests-log/regress-*):
// a heading whose size column lies beyond a row's fields indexed the row past
// its end (ASan: heap-buffer-overflow), and a #wrong of 1e300 was converted
// to int64_t (UBSan: outside the range of representable values).
TEST(ParserFuzzRegression, NcclTestsShortRowAndHugeWrong)
{
    const MeasurementSet shortRow =
        ParseNcclTestsLog("# Collective test starting: all_reduce_perf\n# a b c d e size time\n1 2 float\n", "s.log");
    EXPECT_TRUE(shortRow.samples.empty());
    ASSERT_EQ(shortRow.sources.size(), 1u);
    ASSERT_EQ(shortRow.sources[0].notes.size(), 1u);
    EXPECT_EQ(shortRow.sources[0].notes[0].rfind("s.log:3: truncated row (3 of 7 fields, no size column 6)", 0), 0u)
        << shortRow.sources[0].notes[0];
    // Two rank lines: sendrecv on 2 ranks (busbw = algbw).
    const std::string head = "# Collective test starting: sendrecv_perf\n#  Rank  0 Group  0 Pid  1 on a device  0\n"
                             "#  Rank  1 Group  0 Pid  2 on b device  0\n# size count type time algbw busbw #wrong\n";
    const MeasurementSet wrong = ParseNcclTestsLog(head + "1 2 float 1 2 2 1e300\n2 2 float 1 2 2 -7\n", "w.log");
    ASSERT_EQ(wrong.samples.size(), 2u);
    EXPECT_EQ(wrong.samples[0].wrong, static_cast<int64_t>(9.2e18)); // saturated: still excluded from fits
    EXPECT_EQ(wrong.samples[1].wrong, -1);                         // not a count: as N/A
}

// measurement (CSV), found by reading the reader after the nccl-tests
// findings and confirmed with the fuzz target
// (fuzz/corpus/measurement/regress-gpu-count-overflow.csv): a "nGpus N" in a
// CSV comment with 20 digits escaped std::stoul's std::out_of_range; a ranks
// column of 2^32 + 2 was read as 2 (cast to uint32_t).
TEST(ParserFuzzRegression, MeasurementCsvCounts)
{
    const std::string gpus =
        InputErrorOf([] { ParseMeasurementText("# nGpus 99999999999999999999\nbytes,time_us\n8,2.5\n", "g.csv"); });
    EXPECT_EQ(gpus.rfind("g.csv:1: expected a GPU count below 2^32", 0), 0u) << gpus;
    const std::string ranks =
        InputErrorOf([] { ParseMeasurementText("bytes,time_us,ranks\n8,2.5,4294967298\n", "r.csv"); });
    EXPECT_EQ(ranks.rfind("r.csv:2: expected an integer in column 'ranks' below 2^32", 0), 0u) << ranks;
    // 2^32 - 1 is still a rank count.
    const MeasurementSet set = ParseMeasurementText("bytes,time_us,ranks\n8,2.5,4294967295\n", "r.csv");
    ASSERT_EQ(set.samples.size(), 1u);
    EXPECT_EQ(set.samples[0].ranks, 4294967295u);
}

// nccl-tests-log, second campaign (fuzz/corpus/nccl-tests-log/
// regress-form-feed-line): a line of a form feed is not blank to Trim (spaces
// and tabs) but has no token to SplitWhitespace, and its first token was read
// from the empty vector (UBSan: reference binding to null pointer). Such a
// line is now skipped like a blank one: the rows around it are read.
TEST(ParserFuzzRegression, NcclTestsFormFeedLine)
{
    const std::string row = "        1024           256     float     sum      -1    10.0    0.10    0.18       0"
                            "    10.0    0.10    0.18       0\n";
    const MeasurementSet set = ParseNcclTestsLog("# Collective test starting: all_reduce_perf\n\f\n\v\n"
                                                 "#  Rank  0 Group  0 Pid  1 on a device  0\n"
                                                 "#  Rank  1 Group  0 Pid  2 on b device  0\n" +
                                                     row,
                                                 "f.log");
    ASSERT_EQ(set.samples.size(), 2u); // out-of-place and in-place of the one row
    EXPECT_EQ(set.samples[0].line, 6u);
}
