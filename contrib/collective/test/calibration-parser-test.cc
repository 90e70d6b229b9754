// SPDX-License-Identifier: GPL-2.0-only
//
// The measurement readers on the real logs copied into validation/data (a
// missing one fails the test) and on small synthetic logs written here. Expected
// values are read by eye from the files; each names the line it comes from.
// Times are compared with a relative tolerance of 1e-12: the parser multiplies
// the printed decimal by 1e-6 once, so only double rounding (~1e-16) separates
// it from the literal written here.
#include "input-error.h"
#include "measurement-reader.h"
#include "measurement-sample.h"
#include "nccl-tests-log.h"
#include "perftest-log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <sys/stat.h>

using namespace ns3;

namespace
{

const std::string kMeasured = HOCKNEY_SOURCE_DIR "/validation/data";
const std::string kRaw = kMeasured + "/raw";

bool
Exists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

#define REQUIRE_FILE(path)                                                                         \
    do                                                                                             \
    {                                                                                              \
        if (!Exists(path))                                                                         \
        {                                                                                          \
            FAIL() << "measured data missing from the repository: " << (path)                    \
                   << " (validation/data holds copies of the published logs)";                   \
        }                                                                                          \
    } while (0)

void
ExpectRel(double actual, double expected, double tol = 1e-12)
{
    EXPECT_NEAR(actual, expected, std::fabs(expected) * tol) << "expected " << expected;
}

// The sample read from \p line (first one: out-of-place).
const MeasurementSample*
At(const MeasurementSet& set, uint32_t line, bool inPlace)
{
    for (const auto& s : set.samples)
    {
        if (s.line == line && s.inPlace == inPlace)
        {
            return &s;
        }
    }
    return nullptr;
}

bool
AnyNoteContains(const MeasurementSource& src, const std::string& text)
{
    return std::any_of(src.notes.begin(), src.notes.end(), [&](const std::string& n) {
        return n.find(text) != std::string::npos;
    });
}

std::string
ErrorOf(const std::string& text, const std::string& file)
{
    try
    {
        ParseMeasurementText(text, file);
    }
    catch (const InputError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(CalibrationParserRealLogs, XxrjunSingleNodeFiveTests)
{
    std::string path = kRaw + "/xxrjun_N1_G8.log";
    REQUIRE_FILE(path);
    MeasurementSet set = ReadMeasurementFile(path);
    // Five tests, each 10 rows (32 MB .. 16 GB) with out-of-place and in-place times.
    ASSERT_EQ(set.sources.size(), 5u);
    EXPECT_EQ(set.samples.size(), 100u);
    const char* expected[] = {"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv"};
    for (size_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(set.sources[i].collective, expected[i]);
        EXPECT_EQ(set.sources[i].ranks, 8u);     // "#  Rank  0 .. 7" lines
        EXPECT_EQ(set.sources[i].processes, 8u); // eight distinct Pids
        EXPECT_EQ(set.sources[i].hosts, 1u);     // all on cnode3-002
        EXPECT_EQ(set.sources[i].gpusPerThread, 1u);
        EXPECT_FALSE(set.sources[i].SingleProcess());
        EXPECT_FALSE(set.sources[i].headerless);
    }
    // line 20: "33554432 4194304 double sum -1 182.87 183.49 321.10 0 182.88 183.48 321.08 0"
    const MeasurementSample* s = At(set, 20, false);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->bytes, 33554432u);
    ExpectRel(s->timeS, 182.87e-6);
    ExpectRel(s->algbwBps, 183.49e9);
    ExpectRel(s->busbwBps, 321.10e9);
    EXPECT_EQ(s->wrong, 0);
    EXPECT_EQ(s->collective, "allreduce");
    EXPECT_EQ(s->ranks, 8u);
    ASSERT_NE(At(set, 20, true), nullptr);
    ExpectRel(At(set, 20, true)->timeS, 182.88e-6);
    // line 125 (alltoall): in-place #wrong is "N/A"
    ASSERT_NE(At(set, 125, true), nullptr);
    EXPECT_EQ(At(set, 125, true)->wrong, -1);
    ExpectRel(At(set, 125, true)->timeS, 123.64e-6);
    // line 169 (sendrecv): "17179869184 ... 46779.2 367.25 367.25 0 46782.8 ..."
    ASSERT_NE(At(set, 169, false), nullptr);
    EXPECT_EQ(At(set, 169, false)->bytes, 17179869184u);
    ExpectRel(At(set, 169, false)->timeS, 46779.2e-6);
    EXPECT_EQ(At(set, 169, false)->collective, "sendrecv");
}

TEST(CalibrationParserRealLogs, XxrjunMultiNodeRanksAndHosts)
{
    std::string g8 = kRaw + "/xxrjun_N10_G8.log";
    std::string g1 = kRaw + "/xxrjun_N10_G1.log";
    REQUIRE_FILE(g8);
    REQUIRE_FILE(g1);
    MeasurementSet a = ReadMeasurementFile(g8);
    ASSERT_EQ(a.sources.size(), 5u);
    EXPECT_EQ(a.sources[0].ranks, 80u); // 400 Rank lines over 5 tests
    EXPECT_EQ(a.sources[0].hosts, 10u); // cnode3-002 .. cnode3-011
    EXPECT_EQ(a.samples.size(), 100u);
    MeasurementSet b = ReadMeasurementFile(g1);
    ASSERT_EQ(b.sources.size(), 5u);
    EXPECT_EQ(b.sources[0].ranks, 10u);
    EXPECT_EQ(b.sources[0].hosts, 10u);
    // line 22 of N10_G1: "33554432 4194304 double sum -1 1405.25 23.88 42.98 0 1406.35 ..."
    ASSERT_NE(At(b, 22, false), nullptr);
    ExpectRel(At(b, 22, false)->timeS, 1405.25e-6);
    // busbw / algbw = 2(N-1)/N = 1.8 for N = 10: 42.98 / 23.88 = 1.7998
    EXPECT_NEAR(At(b, 22, false)->busbwBps / At(b, 22, false)->algbwBps, 1.8, 1e-3);
}

TEST(CalibrationParserRealLogs, BareTablesInferCollectiveAndRanks)
{
    std::string a = kRaw + "/i309_A.txt";
    std::string c = kRaw + "/i309_C.txt";
    std::string t = kRaw + "/together_h100_ar_ring.txt";
    REQUIRE_FILE(a);
    REQUIRE_FILE(c);
    REQUIRE_FILE(t);
    MeasurementSet sa = ReadMeasurementFile(a);
    ASSERT_EQ(sa.sources.size(), 1u);
    EXPECT_TRUE(sa.sources[0].headerless);
    EXPECT_EQ(sa.samples.size(), 64u); // 32 rows x (out-of-place, in-place)
    EXPECT_EQ(sa.sources[0].collective, "allreduce");
    EXPECT_TRUE(sa.sources[0].collectiveInferred);
    // line 32: algbw 250.24, busbw 469.21 -> ratio 1.87508 = 2(N-1)/N for N = 16 (2 nodes x 8)
    EXPECT_EQ(sa.sources[0].ranks, 16u);
    EXPECT_TRUE(sa.sources[0].ranksInferred);
    // line 6: "256 64 float sum -1 94.40 0.00 0.01 0 25.90 ..." (the spike is data, kept)
    ASSERT_NE(At(sa, 6, false), nullptr);
    EXPECT_EQ(At(sa, 6, false)->bytes, 256u);
    ExpectRel(At(sa, 6, false)->timeS, 94.40e-6);
    ExpectRel(At(sa, 6, true)->timeS, 25.90e-6);

    // 8 nodes: line 14 "8589934592 ... 52733 162.90 320.70": 2(N-1)/N = 1.96869 -> 64
    MeasurementSet sc = ReadMeasurementFile(c);
    EXPECT_EQ(sc.samples.size(), 28u);
    EXPECT_EQ(sc.sources[0].ranks, 64u);

    // line 31: "8589934592 2147483648 float sum -1 40848.8 210.29 368.00 0 40841.7 ..."; 368/210.29 -> 8
    MeasurementSet st = ReadMeasurementFile(t);
    EXPECT_EQ(st.samples.size(), 62u);
    EXPECT_EQ(st.sources[0].ranks, 8u);
    ExpectRel(At(st, 31, false)->timeS, 40848.8e-6);
}

TEST(CalibrationParserRealLogs, MeasuredCsvTables)
{
    std::string bw = kMeasured + "/perftest_ib_write_bw_HDR200_cx6.csv";
    std::string lat = kMeasured + "/perftest_ib_send_lat_UD_EDR100_b2b.csv";
    std::string ring = kMeasured + "/nccl_allreduce_ring_8xH100_nvswitch_together.csv";
    std::string i309 = kMeasured + "/nccl_allreduce_multinode_H100_ib_ndr_issue309.csv";
    REQUIRE_FILE(bw);
    REQUIRE_FILE(lat);
    REQUIRE_FILE(ring);
    REQUIRE_FILE(i309);
    MeasurementSet b = ReadMeasurementFile(bw);
    EXPECT_EQ(b.samples.size(), 23u); // 2 B .. 8 MB
    // line 6: "2,5000,0.086643,0.086198,5.387353": 2 B at 0.086198 Gb/s average
    const MeasurementSample* s = At(b, 6, false);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->kind, MeasurementKind::THROUGHPUT);
    EXPECT_EQ(s->collective, "p2p");
    ExpectRel(s->timeS, 2 * 8 / 0.086198e9);
    // The message rate column says the same within its print precision: 1 / 5.387353 Mpps.
    EXPECT_NEAR(s->timeS, 1 / 5.387353e6, 1e-3 / 5.387353e6 * 2);

    MeasurementSet l = ReadMeasurementFile(lat);
    EXPECT_EQ(l.samples.size(), 12u);
    // line 6: "2,1000,0.79,5.30,0.81,...": t_typical 0.81 us
    ASSERT_NE(At(l, 6, false), nullptr);
    EXPECT_EQ(At(l, 6, false)->kind, MeasurementKind::LATENCY);
    ExpectRel(At(l, 6, false)->timeS, 0.81e-6);

    // The Together table's comment says "nGpus 8 (single process, -g 8)".
    MeasurementSet r = ReadMeasurementFile(ring);
    ASSERT_EQ(r.sources.size(), 1u);
    EXPECT_TRUE(r.sources[0].SingleProcess());
    EXPECT_EQ(r.sources[0].ranks, 8u);
    EXPECT_EQ(r.samples.size(), 62u);

    // Runs A..G of nccl-tests GitHub issue #309 (validation/data/SOURCES.md) are
    // seven series with their ranks column.
    MeasurementSet i = ReadMeasurementFile(i309);
    EXPECT_EQ(i.sources.size(), 7u);
    EXPECT_EQ(i.samples.size(), 2u * (32 + 32 + 14 * 5));
}

TEST(CalibrationParserSynthetic, SeveralTestsTruncationWrongInPlaceOnly)
{
    const std::string log =
        "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902\n"            // 1
        "# Collective test starting: all_gather_perf\n"                                    // 2
        "# nThread 1 nGpus 2 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5\n" // 3
        "#\n"                                                                              // 4
        "# Using devices\n"                                                                // 5
        "#  Rank  0 Group  0 Pid  4242 on node-a device  0 [0000:1b:00] NVIDIA H100\n"     // 6
        "#  Rank  1 Group  0 Pid  4242 on node-a device  1 [0000:43:00] NVIDIA H100\n"     // 7
        "#\n"                                                                              // 8
        "#                                                              out-of-place                       in-place\n" // 9
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n" // 10
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n" // 11
        "        1024           128     float    none      -1    10.50    0.10    0.05       0    10.40    0.10    0.05       0\n" // 12
        "node-a:4242:4242 [0] NCCL INFO Channel 00/02 : 0 1\n"                             // 13
        "        2048           256     float    none      -1    11.00    0.19    0.09       3    11.10    0.18    0.09       0\n" // 14
        "        4096           512     float    none      -1    12.25    0.33\n"           // 15
        "        8192          1024     float    none      -1    14.7\n"                    // 16
        "# Out of bounds values : 0 OK\n"                                                  // 17
        "# Collective test concluded: all_gather_perf\n"                                   // 18
        "\n"                                                                               // 19
        "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902\n"            // 20
        "# Collective test starting: broadcast_perf\n"                                     // 21
        "# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048\n"                                // 22
        "#  Rank  0 Group  0 Pid  5001 on node-a device  0 [0000:1b:00] NVIDIA H100\n"     // 23
        "#  Rank  1 Group  0 Pid  5002 on node-b device  0 [0000:1b:00] NVIDIA H100\n"     // 24
        "#  Rank  2 Group  0 Pid  5003 on node-c device  0 [0000:1b:00] NVIDIA H100\n"     // 25
        "#                                                     in-place\n"                 // 26
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong\n" // 27
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n" // 28
        "        1024           256     float    none       0    20.00    0.05    0.05     N/A\n" // 29
        "        2048           512     float    none       0      N/A     N/A     N/A     N/A\n" // 30
        "# Collective test concluded: broadcast_perf\n";                                   // 31
    MeasurementSet set = ParseMeasurementText(log, "synthetic.log");
    ASSERT_EQ(set.sources.size(), 2u);
    const MeasurementSource& ag = set.sources[0];
    EXPECT_EQ(ag.collective, "allgather");
    EXPECT_EQ(ag.ranks, 2u);
    EXPECT_EQ(ag.gpusPerThread, 2u);
    EXPECT_TRUE(ag.SingleProcess()); // nGpus 2, and both ranks under Pid 4242
    // Rows 12 and 14: both placements; row 15: out-of-place time kept (algbw
    // follows it), algbw 0.33 is the last field and may be cut -> dropped;
    // row 16: "14.7" is the last field -> no trusted time, skipped.
    size_t agSamples = std::count_if(set.samples.begin(), set.samples.end(), [](const MeasurementSample& s) {
        return s.collective == "allgather";
    });
    EXPECT_EQ(agSamples, 5u);
    ASSERT_NE(At(set, 15, false), nullptr);
    ExpectRel(At(set, 15, false)->timeS, 12.25e-6);
    EXPECT_LT(At(set, 15, false)->algbwBps, 0);
    EXPECT_EQ(At(set, 16, false), nullptr);
    EXPECT_TRUE(AnyNoteContains(ag, "synthetic.log:15: truncated row (7 of 13 fields)"));
    EXPECT_TRUE(AnyNoteContains(ag, "synthetic.log:16: truncated row"));
    // Row 14 out-of-place: #wrong = 3, kept and marked.
    ASSERT_NE(At(set, 14, false), nullptr);
    EXPECT_EQ(At(set, 14, false)->wrong, 3);
    EXPECT_TRUE(AnyNoteContains(ag, "synthetic.log:14: #wrong = 3"));

    const MeasurementSource& bc = set.sources[1];
    EXPECT_EQ(bc.collective, "broadcast");
    EXPECT_EQ(bc.ranks, 3u);
    EXPECT_EQ(bc.hosts, 3u);
    EXPECT_FALSE(bc.SingleProcess());
    // In-place only: one sample from row 29; row 30 is all N/A.
    ASSERT_NE(At(set, 29, true), nullptr);
    EXPECT_EQ(At(set, 29, false), nullptr);
    ExpectRel(At(set, 29, true)->timeS, 20.00e-6);
    EXPECT_EQ(At(set, 29, true)->wrong, -1);
    EXPECT_EQ(At(set, 30, true), nullptr);
}

TEST(CalibrationParserSynthetic, Perftest)
{
    const std::string bw =
        "---------------------------------------------------------------------------------------\n" // 1
        "                    RDMA_Write BW Test\n"                                                    // 2
        " Dual-port       : OFF\t\tDevice         : mlx5_0\n"                                         // 3
        " Number of qps   : 1\t\tTransport type : IB\n"                                               // 4
        "---------------------------------------------------------------------------------------\n" // 5
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"          // 6
        " 65536      5000             11000.50            10000.00            0.160000\n"             // 7
        " 1048576    5000             12000.00            11500.00            0.011500\n"             // 8
        "---------------------------------------------------------------------------------------\n"; // 9
    MeasurementSet b = ParsePerftestLog(bw, "bw.txt");
    ASSERT_EQ(b.samples.size(), 2u);
    EXPECT_EQ(b.sources[0].test, "RDMA_Write BW Test");
    // perftest's MB/sec is 2^20 B/s: 65536 B at 10000 MiB/s.
    ExpectRel(b.samples[0].timeS, 65536.0 / (10000.0 * 1048576.0));
    EXPECT_EQ(b.samples[0].kind, MeasurementKind::THROUGHPUT);
    EXPECT_EQ(b.samples[1].line, 8u);

    const std::string lat =
        "                    Send Latency Test\n"                                                                   // 1
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n" // 2
        " 2       1000          0.79           5.30         0.81               0.82         0.12            0.84                    5.30\n" // 3
        " 4096    1000          2.04           7.88         2.07               2.10         0.29            2.23                    7.88\n" // 4
        " 8192    1000          2.50\n"; // 5: truncated
    MeasurementSet l = ParseMeasurementText(lat, "lat.txt");
    ASSERT_EQ(l.samples.size(), 2u);
    ExpectRel(l.samples[0].timeS, 0.81e-6); // t_typical, the 5th column
    ExpectRel(l.samples[1].timeS, 2.07e-6);
    EXPECT_EQ(l.samples[1].kind, MeasurementKind::LATENCY);
    EXPECT_TRUE(AnyNoteContains(l.sources[0], "lat.txt:5: truncated row"));
}

TEST(CalibrationParserSynthetic, PlainCsvWithUnits)
{
    MeasurementSet a = ParseMeasurementText("# my sweep\nbytes,time_us\n8,2.5\n1024,3.0\n", "a.csv");
    ASSERT_EQ(a.samples.size(), 2u);
    ExpectRel(a.samples[1].timeS, 3.0e-6);
    EXPECT_EQ(a.samples[1].line, 4u);
    MeasurementSet b = ParseMeasurementText("size,time\n4KB,5us\n1MiB,0.1ms\n", "b.csv");
    ASSERT_EQ(b.samples.size(), 2u);
    EXPECT_EQ(b.samples[0].bytes, 4000u);    // KB = 1000 B (hockney's unit rule)
    EXPECT_EQ(b.samples[1].bytes, 1048576u); // MiB = 2^20 B
    ExpectRel(b.samples[1].timeS, 1e-4);
}

TEST(CalibrationParserSynthetic, BadLogsNameFileAndLine)
{
    EXPECT_NE(ErrorOf("", "empty.log").find("empty.log:1"), std::string::npos);
    EXPECT_NE(ErrorOf("\n  \n", "blank.log").find("empty"), std::string::npos);
    std::string noTable = ErrorOf("hello\nthis is not a log\n", "words.txt");
    EXPECT_NE(noTable.find("words.txt"), std::string::npos);
    EXPECT_NE(noTable.find("no table"), std::string::npos);
    // Header only, no rows.
    std::string noRows = ErrorOf("# nccl-tests version 2.17.8\n# Collective test starting: all_reduce_perf\n", "hdr.log");
    EXPECT_NE(noRows.find("hdr.log"), std::string::npos);
    EXPECT_NE(noRows.find("found none"), std::string::npos);
    // Mixed units in the heading's units line (line 3).
    std::string mixed = ErrorOf("# Collective test starting: all_reduce_perf\n"
                                "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
                                "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (ms)  (GB/s)  (GB/s)\n"
                                "        1024           256     float     sum      -1    10.0    0.10    0.18       0    10.0    0.10    0.18       0\n",
                                "mixed.log");
    EXPECT_NE(mixed.find("mixed.log:3"), std::string::npos);
    EXPECT_NE(mixed.find("mixed units"), std::string::npos);
    // A time that is not a number (line 2).
    std::string bad = ErrorOf("        1024    256  float  sum  -1  10.0    0.10  0.18  0  10.0  0.10  0.18  0\n"
                              "        2048    512  float  sum  -1  1x.5    0.10  0.18  0  10.0  0.10  0.18  0\n",
                              "bad.log");
    EXPECT_NE(bad.find("bad.log:2"), std::string::npos);
    // CSV: the header names no unit and a value has none (line 3), or the reverse (line 2).
    EXPECT_NE(ErrorOf("size,time\n1KB,5us\n2KB,6\n", "u.csv").find("u.csv:3"), std::string::npos);
    EXPECT_NE(ErrorOf("bytes,time_us\n1024,5us\n", "v.csv").find("mixed units"), std::string::npos);
    EXPECT_NE(ErrorOf("quantity,value\nx,1\n", "w.csv").find("w.csv:1"), std::string::npos);
    // Unreadable file.
    try
    {
        ReadMeasurementFile("/nonexistent/dir/log.txt");
        ADD_FAILURE() << "expected an InputError";
    }
    catch (const InputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/log.txt"), std::string::npos);
    }
}

TEST(CalibrationParserSynthetic, RingStepsAndRankInference)
{
    // allreduce on 8 ranks: 2(N-1) = 14 steps of S/N bytes, busbw factor 2(N-1)/N = 1.75
    // (ring allreduce 2(N-1)(alpha + S/(N beta)), compare's closed form).
    RingSteps ar = CollectiveRingSteps("allreduce", 8, "--collective");
    EXPECT_EQ(ar.steps, 14);
    EXPECT_DOUBLE_EQ(ar.busbwFactor, 1.75);
    EXPECT_DOUBLE_EQ(ar.StepBytes(8e6), 1e6);
    // allgather on 4: 3 steps of S/4 (factor 3/4); unsliced chain broadcast on 4:
    // 3 steps of the whole buffer (N-1)(alpha + S/beta); sendrecv: 1 step of S.
    EXPECT_EQ(CollectiveRingSteps("allgather", 4, "f").steps, 3);
    EXPECT_DOUBLE_EQ(CollectiveRingSteps("allgather", 4, "f").StepBytes(4e6), 1e6);
    EXPECT_DOUBLE_EQ(CollectiveRingSteps("allgather", 4, "f").busbwFactor, 0.75);
    EXPECT_EQ(CollectiveRingSteps("broadcast", 4, "f").steps, 3);
    EXPECT_DOUBLE_EQ(CollectiveRingSteps("broadcast", 4, "f").StepBytes(3e6), 3e6);
    EXPECT_EQ(CollectiveRingSteps("alltoall", 5, "f").steps, 4);
    EXPECT_DOUBLE_EQ(CollectiveRingSteps("alltoall", 5, "f").StepBytes(5e6), 1e6);
    EXPECT_DOUBLE_EQ(CollectiveRingSteps("sendrecv", 0, "f").StepBytes(5e6), 5e6);
    EXPECT_THROW(CollectiveRingSteps("allreduce", 1, "--ranks"), InputError);
    EXPECT_THROW(CollectiveRingSteps("gossip", 8, "--collective"), InputError);
    EXPECT_EQ(NormalizeCollectiveName("all_reduce_perf"), "allreduce");
    EXPECT_EQ(NormalizeCollectiveName("ReduceScatter"), "reducescatter");
    EXPECT_EQ(NormalizeCollectiveName("hypercube_perf"), "");
    // Printed to 0.01 GB/s: 2(N-1)/N with N = 64 is 1.96875; 162.90 x 1.96875 = 320.71,
    // printed 320.70 (nccl-tests rounds the unrounded product) -> still only N = 64 fits.
    EXPECT_EQ(InferRanksFromBandwidths("allreduce", 162.90e9, 320.70e9, 0.005e9), 64u);
    EXPECT_EQ(InferRanksFromBandwidths("allgather", 413.55e9, 361.86e9, 0.005e9), 8u); // 7/8
    // Tiny bandwidths carry no digits: 0.01 / 0.00 cannot tell N.
    EXPECT_EQ(InferRanksFromBandwidths("allreduce", 0.01e9, 0.02e9, 0.005e9), 0u);
    EXPECT_EQ(InferRanksFromBandwidths("sendrecv", 100e9, 100e9, 0.005e9), 0u);
}
