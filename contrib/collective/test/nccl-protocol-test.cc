// SPDX-License-Identifier: GPL-2.0-only
//
// NCCL's protocols as the executor runs them and the closed form prices them
// (nccl-protocol.h): wire bytes and per-step latencies written out by hand,
// the executor on a contention-free alpha-beta channel against those hand
// forms, and NCCL's choice at sizes where NCCL's published choice is known.
#include "analytic-transport.h"
#include "collective-comparison.h"
#include "collective-executor.h"
#include "collective-test-spec.h"
#include "input-error.h"
#include "nccl-protocol.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class NcclProtocolTest : public hockney::SimulatorTest
{
};

// alpha 2 us, beta 100 GB/s (10 ps a byte): every whole-byte message takes
// a whole number of picoseconds, so the executor's times are exact up to
// double rounding; 1e-9 relative is far above that (1e-15 per step) and far
// below one missing step latency (> 1e-2 of these runs).
const double A = 2e-6;
const double B = 100e9;
const double TOL = 1e-9;

double
RunWithEndpoint(const CollectiveSpec& spec, const NcclEndpoint& e)
{
    Ptr<AnalyticTransport> t = CreateObject<AnalyticTransport>();
    t->Install(spec.ranks, hockney::AlphaBeta(MicroSeconds(2), DataRate("800Gbps")), AnalyticChannel::NONE);
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    exec->SetEndpoint(e);
    const double s = exec->Run(BuildSchedule(spec), t).GetSeconds();
    Simulator::Destroy();
    return s;
}

} // namespace

TEST_F(NcclProtocolTest, WireBytesByHand)
{
    // LL: 8 data bytes per 16-byte store; 9 bytes need two stores.
    EXPECT_EQ(NcclWireBytes(NcclProtocol::LL, 8), 16u);
    EXPECT_EQ(NcclWireBytes(NcclProtocol::LL, 9), 32u);
    EXPECT_EQ(NcclWireBytes(NcclProtocol::LL, 1000000), 2000000u);
    // LL128: 120 data bytes per 128-byte line; 1 MB = 8334 lines (8333.3 rounded up).
    EXPECT_EQ(NcclWireBytes(NcclProtocol::LL128, 120), 128u);
    EXPECT_EQ(NcclWireBytes(NcclProtocol::LL128, 121), 256u);
    EXPECT_EQ(NcclWireBytes(NcclProtocol::LL128, 1000000), 8334u * 128u);
    EXPECT_EQ(NcclWireBytes(NcclProtocol::SIMPLE, 1000000), 1000000u);
    EXPECT_DOUBLE_EQ(NcclWireEfficiency(NcclProtocol::LL), 0.5);
    EXPECT_DOUBLE_EQ(NcclWireEfficiency(NcclProtocol::LL128), 0.9375);
}

TEST_F(NcclProtocolTest, TuningLatenciesAreNcclsTable)
{
    // validation/data/nccl_tuning_constants.csv: Ring baseLat 6.6/14/8.4 us,
    // hwLat NVLink 0.6/1.9/3.4, network 2.7/4.0/14 (LL/LL128/Simple).
    auto ll = *NcclTuningLatencies("ring", NcclProtocol::LL);
    EXPECT_EQ(ll.base, NanoSeconds(6600));
    EXPECT_EQ(ll.intra, NanoSeconds(600));
    EXPECT_EQ(ll.inter, NanoSeconds(2700));
    auto simple = *NcclTuningLatencies("ring", NcclProtocol::SIMPLE);
    EXPECT_EQ(simple.base, NanoSeconds(8400));
    EXPECT_EQ(simple.intra, NanoSeconds(3400));
    EXPECT_EQ(simple.inter, NanoSeconds(14000));
    auto tree = *NcclTuningLatencies("tree", NcclProtocol::LL128);
    EXPECT_EQ(tree.intra, NanoSeconds(1250));
    EXPECT_EQ(tree.inter, NanoSeconds(8500));
    // NVLS runs Simple only.
    EXPECT_FALSE(NcclTuningLatencies("nvls", NcclProtocol::LL).has_value());
    EXPECT_EQ(NcclTuningLatencies("nvls", NcclProtocol::SIMPLE)->intra, NanoSeconds(25000));
}

TEST_F(NcclProtocolTest, ExecutorMatchesHandFormsPerProtocol)
{
    // Ring allreduce, 8 ranks on one node: 2(N-1) = 14 steps of M/8.
    const uint32_t n = 8;
    for (uint64_t m : {960ULL, 9600000ULL})
    {
        const auto spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "ring", n, m);
        const double chunk = static_cast<double>(m) / n; // 120 or 1.2e6 bytes, whole
        for (NcclProtocol p : AllNcclProtocols())
        {
            NcclEndpoint e = *MakeNcclEndpoint("ring", p, MicroSeconds(5), 0, 1);
            // Hand: wire bytes of one step's message, and the step latency
            // (Simple: once per 8 MiB chunk, i.e. once for both sizes here).
            double wire = p == NcclProtocol::LL ? std::ceil(chunk / 8) * 16
                          : p == NcclProtocol::LL128 ? std::ceil(chunk / 120) * 128
                                                     : chunk;
            const double step = p == NcclProtocol::LL ? 0.6e-6 : p == NcclProtocol::LL128 ? 1.9e-6 : 3.4e-6;
            const double base = p == NcclProtocol::LL ? 6.6e-6 : p == NcclProtocol::LL128 ? 14e-6 : 8.4e-6;
            const double hand = 5e-6 + base + 14 * (step + A + wire / B);
            const double got = RunWithEndpoint(spec, e);
            EXPECT_NEAR(got, hand, TOL * hand) << ToString(p) << " M=" << m;
            // The closed form describes the same run.
            const double closed =
                NcclClosedFormTime(spec, e, [](uint32_t, double b) { return AlphaBetaTime(MicroSeconds(2), DataRate("800Gbps"), b); })
                    .GetSeconds();
            EXPECT_NEAR(closed, hand, TOL * hand) << ToString(p) << " M=" << m;
        }
    }
}

TEST_F(NcclProtocolTest, LlMovesDataAtItsCopyRate)
{
    // Ring allreduce, 8 ranks, 9.6 MB, LL, on links of 6.4 Tb/s (800 GB/s):
    // each step's 1.2 MB message is 2.4 MB on the wire, 2 us + 3 us, but
    // the GPU copies LL at 141 GB/s (NCCL's llMaxBw, Hopper, one node):
    // 1.2e6 / 141e9 = 8.511 us. The copy sets the pace of every step:
    // 6.6 + 14 (0.6 + 8.511) us. The wire-only time would be 6.6 + 14 x 5.6:
    // 35 us less. Tolerance: ns-3's Time holds the copy time in whole
    // picoseconds (8.510638 us), under 1 ps a step: 14 ps.
    const auto spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "ring", 8, 9600000);
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 0, 1);
    EXPECT_EQ(e.copyRate, DataRate("141GB/s"));
    const double hand = 6.6e-6 + 14 * (0.6e-6 + 1.2e6 / 141e9);
    Ptr<AnalyticTransport> t = CreateObject<AnalyticTransport>();
    t->Install(8, hockney::AlphaBeta(MicroSeconds(2), DataRate("6400Gbps")), AnalyticChannel::NONE);
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    exec->SetEndpoint(e);
    EXPECT_NEAR(exec->Run(BuildSchedule(spec), t).GetSeconds(), hand, 14e-12);
    Simulator::Destroy();
    const double closed =
        NcclClosedFormTime(spec, e, [](uint32_t, double b) { return AlphaBetaTime(MicroSeconds(2), DataRate("6400Gbps"), b); })
            .GetSeconds();
    EXPECT_NEAR(closed, hand, 14e-12);
    // Over 8 channels each step is 8 messages of 150 kB, but the cap is the
    // GPU's: it still copies 1.2 MB a step, so the closed form keeps the
    // same hand value (not 8x faster). The executor's copy queue is the
    // rank's: its 8 copies of a step run back to back (8.511 us) and each
    // channel's 0.6 us step latency overlaps the other channels' copies, so
    // by hand 6.6 + 0.6 + 14 x 8.511 us = 126.349 us (the closed form charges
    // the latency on every step: 13 x 0.6 us more). Tolerance: each of the
    // 112 copies is held in whole picoseconds (under 1 ps each): 112 ps.
    auto spec8 = spec;
    spec8.channels = 8;
    NcclEndpoint e8 = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 0, 8);
    e8.launch = e.launch;
    e8.intraStep = e.intraStep;
    const double closed8 =
        NcclClosedFormTime(spec8, e8, [](uint32_t, double b) { return AlphaBetaTime(MicroSeconds(2), DataRate("6400Gbps"), b); })
            .GetSeconds();
    EXPECT_NEAR(closed8, hand, 14e-12);
    Ptr<AnalyticTransport> t8 = CreateObject<AnalyticTransport>();
    t8->Install(8, hockney::AlphaBeta(MicroSeconds(2), DataRate("6400Gbps")), AnalyticChannel::NONE);
    Ptr<CollectiveExecutor> exec8 = CreateObject<CollectiveExecutor>();
    exec8->SetEndpoint(e8);
    EXPECT_NEAR(exec8->Run(BuildSchedule(spec8), t8).GetSeconds(), 6.6e-6 + 0.6e-6 + 14 * (1.2e6 / 141e9), 112e-12);
    Simulator::Destroy();
    // LL128's cap is 36.7 GB/s x 16 channels; Simple has none.
    EXPECT_EQ(MakeNcclEndpoint("ring", NcclProtocol::LL128, Time(0), 0, 1)->copyRate, DataRate("587.2GB/s"));
    EXPECT_EQ(MakeNcclEndpoint("ring", NcclProtocol::SIMPLE, Time(0), 0, 1)->copyRate.GetBitRate(), 0u);
}

TEST_F(NcclProtocolTest, ARanksMessagesShareItsCopyRate)
{
    // Rank 0 sends 1.41 MB to rank 1 and to rank 2 at once, LL, on 800 GB/s
    // links (2 us + 2.82 MB / 800 GB/s = 5.525 us on the wire, each on its
    // own link): the GPU copies one after the other at 141 GB/s, 10 us
    // each, so the second is delivered at 20 us (+ the 0.6 us step latency
    // both wait first); one message alone would end at 10.6 us.
    CollectiveSchedule sched("two sends", 3);
    const uint32_t c = sched.AddChunk(1410000);
    sched.AddContribution(0, c);
    sched.AddNeed(1, c);
    sched.AddNeed(2, c);
    sched.AddOp(0, 1, {c}, false, {}, 0);
    sched.AddOp(0, 2, {c}, false, {}, 0);
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 0, 1);
    e.launch = Time(0);
    Ptr<AnalyticTransport> t = CreateObject<AnalyticTransport>();
    t->Install(3, hockney::AlphaBeta(MicroSeconds(2), DataRate("6400Gbps")), AnalyticChannel::NONE);
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    exec->SetEndpoint(e);
    const double hand = 0.6e-6 + 2 * 1410000 / 141e9;
    EXPECT_NEAR(exec->Run(sched, t).GetSeconds(), hand, TOL * hand);
    Simulator::Destroy();
}

TEST_F(NcclProtocolTest, SimpleSynchronisesOncePerChunk)
{
    // 8 ranks, 160 MiB: each step's message is 20 MiB = 2.5 chunks of 8 MiB
    // (16 channels x 512 KiB) -> 3 synchronisations of 3.4 us per step.
    const uint64_t m = 160ULL << 20;
    const auto spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "ring", 8, m);
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::SIMPLE, Time(0), 0, 1);
    EXPECT_EQ(e.simpleChunkBytes, 8ULL << 20);
    const double hand = 8.4e-6 + 14 * (3 * 3.4e-6 + A + (20ULL << 20) / B);
    EXPECT_NEAR(RunWithEndpoint(spec, e), hand, TOL * hand);
    // With 16 schedule channels each message stands for one NCCL channel:
    // chunks of 512 KiB.
    EXPECT_EQ(MakeNcclEndpoint("ring", NcclProtocol::SIMPLE, Time(0), 0, 16)->simpleChunkBytes, 524288u);
}

TEST_F(NcclProtocolTest, NetworkStepsPayTheNetworkLatency)
{
    // Hierarchical allreduce, 2 nodes x 2 GPUs, LL: the steps between nodes
    // pay 2.7 us, those inside 0.6 us. Executor vs closed form (levels).
    auto spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "hierarchical", 4, 96000);
    spec.gpusPerNode = 2;
    NcclEndpoint e = *MakeNcclEndpoint("hierarchical", NcclProtocol::LL, Time(0), 2, 1);
    const double got = RunWithEndpoint(spec, e);
    // Hand: 2(G-1) = 2 intra steps of M/G = 48000 B, 2(K-1) = 2 inter steps
    // of M/(G K) = 24000 B; LL doubles the wire bytes.
    const double hand = 6.6e-6 + 2 * (0.6e-6 + A + 96000 / B) + 2 * (2.7e-6 + A + 48000 / B);
    EXPECT_NEAR(got, hand, TOL * hand);
}

TEST_F(NcclProtocolTest, FlatRingAcrossNodesPaysTheNetworkOnItsCrossingsOnly)
{
    // Flat ring allreduce on 2 nodes x 2 GPUs (ranks 0 1 | 2 3), LL: the
    // longest chain follows the data around the ring for 2(N-1) = 6 steps;
    // starting at a crossing (1 -> 2 or 3 -> 0) it crosses on every second
    // step, 3 of 6, which pay 2.7 us; the other 3 pay NVLink's 0.6 us (every
    // step at 2.7 us would be 6 x 2.1 us = 12.6 us more). Each message is
    // M/N = 24000 B, doubled on the wire by LL's flags.
    const auto spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "ring", 4, 96000);
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 2, 1);
    const double hand = 6.6e-6 + 3 * (0.6e-6 + A + 48000 / B) + 3 * (2.7e-6 + A + 48000 / B);
    // That chain is the critical path when a network connection takes its
    // steps as they come (NetStepsInFlight 0).
    {
        Ptr<AnalyticTransport> t = CreateObject<AnalyticTransport>();
        t->Install(4, hockney::AlphaBeta(MicroSeconds(2), DataRate("800Gbps")), AnalyticChannel::NONE);
        Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
        exec->SetEndpoint(e);
        exec->SetAttribute("NetStepsInFlight", UintegerValue(0));
        EXPECT_NEAR(exec->Run(BuildSchedule(spec), t).GetSeconds(), hand, TOL * hand);
        Simulator::Destroy();
    }
    // With one step in flight per connection (the default), the crossing
    // 1 -> 2 sends one message every step, each when the one before is
    // delivered: its delivery D(s) = launch + (s + 1) x (2.7 us + A + wire).
    // The NVLink hop feeding it (0 -> 1, 0.6 us + A + wire) waits for the
    // other crossing's (3 -> 0) step s - 1, delivered at D(s - 1), and ends
    // at D(s - 1) + 3.08 us < D(s): the crossing's six messages in sequence
    // are the critical path, 6 x 5.18 us after the launch.
    const double windowed = 6.6e-6 + 6 * (2.7e-6 + A + 48000 / B);
    EXPECT_NEAR(RunWithEndpoint(spec, e), windowed, TOL * windowed);
    const double closed =
        NcclClosedFormTime(spec, e, [](uint32_t, double b) { return AlphaBetaTime(MicroSeconds(2), DataRate("800Gbps"), b); })
            .GetSeconds();
    EXPECT_NEAR(closed, windowed, TOL * windowed);
}

TEST_F(NcclProtocolTest, ChoiceTakesTheFastestAndBreaksTiesInOrder)
{
    auto predict = [](const std::string& a, NcclProtocol p) -> std::optional<Time> {
        if (a == "b" && p == NcclProtocol::LL)
        {
            return std::nullopt; // not applicable
        }
        return MicroSeconds(a == "a" ? 10 : 5) + MicroSeconds(p == NcclProtocol::LL128 ? 0 : 1);
    };
    NcclChoice c = ChooseNccl({"a", "b"}, AllNcclProtocols(), predict);
    EXPECT_EQ(c.algorithm, "b");
    EXPECT_EQ(c.protocol, NcclProtocol::LL128);
    EXPECT_EQ(c.predicted, MicroSeconds(5));
    EXPECT_THROW(ChooseNccl({"b"}, {NcclProtocol::LL}, predict), std::logic_error);
}

TEST_F(NcclProtocolTest, BadProtocolNamesTheField)
{
    EXPECT_FALSE(ParseNcclProtocolChoice("auto", "--protocol").has_value());
    EXPECT_EQ(*ParseNcclProtocolChoice("LL128", "--protocol"), NcclProtocol::LL128);
    try
    {
        ParseNcclProtocolChoice("ll64", "--protocol");
        FAIL() << "ll64 accepted";
    }
    catch (const InputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("--protocol"), std::string::npos) << e.what();
    }
}

TEST_F(NcclProtocolTest, DefaultExecutorSendsTheScheduleUnchanged)
{
    // The attributes' defaults (Simple, no latencies): the textbook ring,
    // 14 (alpha + M/(N beta)).
    const auto spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "ring", 8, 8000000);
    Ptr<AnalyticTransport> t = CreateObject<AnalyticTransport>();
    t->Install(8, hockney::AlphaBeta(MicroSeconds(2), DataRate("800Gbps")), AnalyticChannel::NONE);
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    const double got = exec->Run(BuildSchedule(spec), t).GetSeconds();
    Simulator::Destroy();
    const double hand = 14 * (A + 1e6 / B);
    EXPECT_NEAR(got, hand, TOL * hand);
}

TEST_F(NcclProtocolTest, RingChoiceMatchesNcclsPublishedEnds)
{
    // 8 x H100 NVSwitch, ring AllReduce with NCCL_ALGO=RING: NCCL runs LL at
    // 8 B and Simple at 1 GB (the published runs' choice; NCCL's model:
    // LL 6.6 + 14 x 0.6 us against Simple's 8.4 + 14 x 3.4 us at 8 B, and
    // at 1 GB LL's quarter and LL128's 0.92 of the bandwidth lose to Simple).
    ComparisonConfig c;
    c.model.alpha = MicroSeconds(1);
    c.model.beta = DataRate("3600Gbps"); // 450 GB/s
    c.ranks = 8;
    c.algorithm = "ring";
    c.protocol = "auto";
    c.sizes = {8, 1000000000};
    c.backends = {"closed"};
    const std::vector<ResultRow> rows = RunComparison(c);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].GetString("protocol"), "ll");
    EXPECT_EQ(rows[1].GetString("protocol"), "simple");
    EXPECT_EQ(rows[1].GetString("algorithm"), "ring");
    // The closed row prices the chosen protocol: at 8 B, LL's base latency
    // plus 14 steps of (0.6 us + alpha + 16 wire bytes / beta), launch 0.
    // Each step's time is rounded to the 1 ps tick (AlphaBetaTime): 14 ps.
    const double hand = 6.6e-6 + 14 * (0.6e-6 + 1e-6 + 16 / 450e9);
    EXPECT_NEAR(rows[0].GetDouble("time_s"), hand, 14e-12);
}

TEST_F(NcclProtocolTest, TreeCorrectionIsNcclsTablePerPowerOfTwo)
{
    // NCCL's treeCorrectionFactor (tuning.cc), index log2(bytes / 64):
    // 512 KiB is index 13, 4 MiB 16, 32 MiB 19, 64 MiB 20; the table ends at
    // index 22 (256 MiB), 1 beyond it and below 64 B.
    // Floored: 64 MiB - 1 B is still index 19 (32 MiB's).
    const struct
    {
        NcclProtocol protocol;
        uint64_t bytes;
        double factor;
    } table[] = {{NcclProtocol::LL, 524288, 0.4},
                 {NcclProtocol::LL128, 524288, 0.6},
                 {NcclProtocol::LL128, 4194304, 0.8},
                 {NcclProtocol::SIMPLE, 33554432, 0.7},
                 {NcclProtocol::SIMPLE, 67108864, 0.8},
                 {NcclProtocol::SIMPLE, 67108863, 0.7},
                 {NcclProtocol::SIMPLE, 64, 0.9},
                 {NcclProtocol::SIMPLE, 63, 1.0},
                 {NcclProtocol::SIMPLE, 256ULL << 20, 0.9},
                 {NcclProtocol::SIMPLE, 512ULL << 20, 1.0}};
    for (const auto& row : table)
    {
        EXPECT_DOUBLE_EQ(NcclTreeCorrectionFactor(row.protocol, row.bytes), row.factor) << row.bytes;
    }

    // NCCL's tuning time of a tree prices its bytes at that factor, its
    // latencies as they are: a double binary tree allreduce of 32 MiB on 4
    // ranks (no nodes, one channel), Simple, alpha 2 us, 100 GB/s. Its
    // closed form: depth 2 up and down over halves (TreeDepth of
    // DoubleBinaryTreeParents(4) is 2): 4 steps of 16 MiB. Tuning: each
    // step 4 us (Tree Simple NVLink hwLat) + alpha + 16 MiB / (100 GB/s x
    // 0.92 x 0.7), plus baseLat 8.4 us.
    const auto spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "tree", 4, 32ULL << 20);
    const NcclEndpoint e = *MakeNcclEndpoint("tree", NcclProtocol::SIMPLE, Time(0), 0, 1);
    const auto p2p = [](uint32_t, double b) { return AlphaBetaTime(MicroSeconds(2), DataRate("800Gbps"), b); };
    const double got = NcclTuningTime(spec, e, p2p).GetSeconds();
    const double m = 16.0 * (1 << 20);
    const double hand = 8.4e-6 + 4 * (4e-6 + A + m / (B * 0.92 * 0.7));
    // AlphaBetaTime rounds each step to the 1 ps tick: 4 ps.
    EXPECT_NEAR(got, hand, 4e-12);
}

TEST_F(NcclProtocolTest, HwLatHoldsTheHopsOwnLatency)
{
    // NCCL's hwLat is a step's whole latency over its link (tuning.cc:
    // latency x steps + bytes / bw, no wire latency beside it): the endpoint
    // adds hwLat less the fabric's alpha of the level, at least 0.
    const NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::LL128, Time(0), 8, 8);
    EXPECT_FALSE(e.hwLatHoldsFabric); // off by default
    EXPECT_EQ(e.intraStep, NanoSeconds(1900));
    EXPECT_EQ(e.interStep, NanoSeconds(4000));
    const NcclEndpoint b = NcclEndpointBesideFabric(e, NanoSeconds(110), NanoSeconds(917));
    EXPECT_EQ(b.intraStep, NanoSeconds(1790));
    EXPECT_EQ(b.interStep, NanoSeconds(3083));
    EXPECT_EQ(b.launch, e.launch); // baseLat is per collective, no hop in it
    // An alpha above hwLat leaves no step latency (not a negative one).
    const NcclEndpoint c = NcclEndpointBesideFabric(e, MicroSeconds(2), MicroSeconds(5));
    EXPECT_EQ(c.intraStep, Time(0));
    EXPECT_EQ(c.interStep, Time(0));

    // In compare with CollectiveExecutor::HwLatHoldsFabricLatency on, a step
    // of LL at 8 B on 8 ranks costs hwLat + bytes / bw whatever alpha below
    // hwLat the point has: with alpha 0.25 us, 6.6 us + 14 x (0.6 us + 16 B
    // / 450 GB/s), as with alpha 0.1 us; with alpha 1 us (above hwLat) the
    // step is alpha's: 14 x (1 us + 16 B / 450 GB/s). 1 ps tick rounding a
    // step: 14 ps. Off (the default), RingChoiceMatchesNcclsPublishedEnds:
    // 0.6 us + alpha.
    Config::SetDefault("ns3::CollectiveExecutor::HwLatHoldsFabricLatency", BooleanValue(true));
    EXPECT_TRUE(MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 8, 8)->hwLatHoldsFabric);
    for (const char* alpha : {"250ns", "100ns", "1us"})
    {
        ComparisonConfig cfg;
        cfg.model.alpha = Time(alpha);
        cfg.model.beta = DataRate("3600Gbps");
        cfg.ranks = 8;
        cfg.algorithm = "ring";
        cfg.protocol = "ll";
        cfg.sizes = {8};
        cfg.backends = {"closed"};
        const std::vector<ResultRow> rows = RunComparison(cfg);
        ASSERT_EQ(rows.size(), 1u);
        const double step = std::string(alpha) == "1us" ? 1e-6 : 0.6e-6;
        const double hand = 6.6e-6 + 14 * (step + 16 / 450e9);
        EXPECT_NEAR(rows[0].GetDouble("time_s"), hand, 14e-12) << alpha;
    }
    Config::Reset();
}

TEST_F(NcclProtocolTest, AutoAlgorithmChoosesAmongNcclsAlgorithms)
{
    // Only ring, tree and NVLS (by name or alias) join NCCL's choice; rhd,
    // which NCCL does not have, is never chosen although it has fewer steps.
    ComparisonConfig c;
    c.model.alpha = MicroSeconds(1);
    c.model.beta = DataRate("3600Gbps");
    c.ranks = 8;
    c.algorithm = "auto";
    c.sizes = {8, 1000000000};
    c.backends = {"closed"};
    for (const ResultRow& r : RunComparison(c))
    {
        EXPECT_FALSE(NcclFamily(r.GetString("algorithm")).empty()) << r.GetString("algorithm");
    }
    EXPECT_EQ(NcclFamily("double-binary-tree"), "tree");
    EXPECT_EQ(NcclFamily("rhd"), "");
}

TEST_F(NcclProtocolTest, ScenarioFieldsAndTheCollectivesFirstAlgorithm)
{
    // "protocol" and "launch_overhead" are read; a collective without an
    // algorithm still takes the collective's first (pairwise for alltoall),
    // whatever fields follow it.
    ComparisonConfig c;
    ApplyScenario(nlohmann::json::parse(R"({"collective": "alltoall", "protocol": "LL128",
                                             "launch_overhead": "20us"})"),
                  c);
    EXPECT_EQ(c.algorithm, AlgorithmsOf(CollectiveKind::ALL_TO_ALL).front());
    EXPECT_EQ(c.protocol, "LL128");
    EXPECT_EQ(c.launchOverhead, MicroSeconds(20));
    ComparisonConfig d;
    EXPECT_THROW(ApplyScenario(nlohmann::json::parse(R"({"protocol": "ll64"})"), d), InputError);
}

TEST_F(NcclProtocolTest, ANetworkConnectionHasItsWindowOfStepsInFlight)
{
    // 2 nodes x 2 GPUs (ranks 0 1 | 2 3), LL, a contention-free channel: two
    // independent 48000 B messages 0 -> 2 (across nodes, one connection) and
    // two 0 -> 1 (inside the node). Each message takes its step latency,
    // then alpha + its LL wire bytes (96000) / beta.
    auto schedule = [](std::vector<std::pair<uint32_t, uint32_t>> pairs) {
        CollectiveSchedule s("window by hand", 4);
        for (auto [src, dst] : pairs)
        {
            const uint32_t c = s.AddChunk(48000);
            s.AddContribution(src, c);
            s.AddNeed(dst, c);
            s.AddOp(src, dst, {c}, false, {}, 0);
        }
        return s;
    };
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 2, 1);
    const double launch = 6.6e-6;
    const double net = 2.7e-6 + A + 96000 / B;
    const double nvlink = 0.6e-6 + A + 96000 / B;
    auto run = [&](const CollectiveSchedule& s, uint32_t window) {
        Ptr<AnalyticTransport> t = CreateObject<AnalyticTransport>();
        t->Install(4, hockney::AlphaBeta(MicroSeconds(2), DataRate("800Gbps")), AnalyticChannel::NONE);
        Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
        exec->SetEndpoint(e);
        exec->SetAttribute("NetStepsInFlight", UintegerValue(window));
        const double got = exec->Run(s, t).GetSeconds();
        Simulator::Destroy();
        return got;
    };
    // Default window 1: the second crossing starts its latency when the
    // first is delivered, two whole steps in sequence.
    EXPECT_NEAR(run(schedule({{0, 2}, {0, 2}}), 1), launch + 2 * net, TOL * (launch + 2 * net));
    // Window 2 (or 0, no limit): both at once on the contention-free channel.
    EXPECT_NEAR(run(schedule({{0, 2}, {0, 2}}), 2), launch + net, TOL * (launch + net));
    EXPECT_NEAR(run(schedule({{0, 2}, {0, 2}}), 0), launch + net, TOL * (launch + net));
    // Inside a node there is no connection window: both NVLink messages at once.
    EXPECT_NEAR(run(schedule({{0, 1}, {0, 1}}), 1), launch + nvlink, TOL * (launch + nvlink));
    // Two connections (0 -> 2, 1 -> 3) do not wait for each other.
    EXPECT_NEAR(run(schedule({{0, 2}, {1, 3}}), 1), launch + net, TOL * (launch + net));
}

TEST_F(NcclProtocolTest, NetSlicesAreNcclsChunksAndSlices)
{
    // NCCL's ring cuts, by hand (nccl-protocol.h, NetSlices). Simple: chunks
    // of 4 steps x 512 KiB = 2 MiB, each 2 slices of max(half, 1 MiB / 32 =
    // 32 KiB) holding 2 of the 8 slots; a chunk of one slice holds all 4.
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::SIMPLE, Time(0), 8, 8);
    e.netSlots = 8; // one NCCL channel a connection
    auto cut = [&e](uint64_t bytes) {
        std::vector<std::pair<uint64_t, uint32_t>> v;
        for (const NcclNetSlice& s : e.NetSlices(bytes))
        {
            v.emplace_back(s.bytes, s.slots);
        }
        return v;
    };
    using V = std::vector<std::pair<uint64_t, uint32_t>>;
    // 3 MiB: a 2 MiB chunk (two 1 MiB slices) and a 1 MiB one (two 512 KiB).
    EXPECT_EQ(cut(3 << 20), (V{{1 << 20, 2}, {1 << 20, 2}, {512 << 10, 2}, {512 << 10, 2}}));
    // 40 KiB: half is 20 KiB, below the 32 KiB floor: 32 KiB then 8 KiB.
    EXPECT_EQ(cut(40 << 10), (V{{32 << 10, 2}, {8 << 10, 2}}));
    // 20 KiB: one slice (the empty second still takes its 2 slots).
    EXPECT_EQ(cut(20 << 10), (V{{20 << 10, 4}}));
    // Two NCCL channels a connection (16 slots): 64 KiB is 32 KiB each, the
    // channels' slices interleaved.
    e.netSlots = 16;
    EXPECT_EQ(cut(64 << 10), (V{{32 << 10, 4}, {32 << 10, 4}}));
    // LL: one 64 KiB step a slice, half of it data; LL128 one 614400 B step,
    // 15/16 of it data (576000 B).
    e.netSlots = 8;
    e.protocol = NcclProtocol::LL;
    EXPECT_EQ(cut(70000), (V{{32768, 1}, {32768, 1}, {4464, 1}}));
    e.protocol = NcclProtocol::LL128;
    EXPECT_EQ(cut(1000000), (V{{576000, 1}, {424000, 1}}));
}

TEST_F(NcclProtocolTest, ASliceWaitsForItsSlotsCredit)
{
    // One LL message of 10 x 32768 data bytes from rank 0 to rank 2 (2
    // nodes x 2 GPUs) with 8 slots (one NCCL channel): 10 slices of 65536
    // wire bytes, one slot each. A channel that serialises each sender's
    // port (ENDPOINT), alpha 2 us, 100 GB/s: a slice takes tau = 0.65536 us
    // on the port and arrives alpha + tau after it starts. Slices 0-7 go
    // back to back; slice 8 needs slice 0's slot, back at its arrival
    // (alpha + tau) + the credit c = 5 us, later than the port (8 tau =
    // 5.24 us); slice 9 starts at max(that + tau, slice 1's credit) = alpha
    // + 2 tau + c and arrives alpha + tau later. After the launch (6.6 us)
    // and LL's network step latency (2.7 us): 6.6 + 2.7 + 2 alpha + 3 tau +
    // c. Exact up to picosecond rounding of the 20 sends (< 1e-9 relative).
    CollectiveSchedule s("slices by hand", 4);
    const uint32_t c = s.AddChunk(327680);
    s.AddContribution(0, c);
    s.AddNeed(2, c);
    s.AddOp(0, 2, {c}, false, {}, 0);
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 2, 1);
    e.netSlots = 8;
    e.netCreditDelay = MicroSeconds(5);
    const double tau = 65536 / B;
    auto run = [&]() {
        Ptr<AnalyticTransport> t = CreateObject<AnalyticTransport>();
        t->Install(4, hockney::AlphaBeta(MicroSeconds(2), DataRate("800Gbps")), AnalyticChannel::ENDPOINT);
        Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
        exec->SetEndpoint(e);
        const double got = exec->Run(s, t).GetSeconds();
        Simulator::Destroy();
        return got;
    };
    const double hand = 6.6e-6 + 2.7e-6 + 2 * A + 3 * tau + 5e-6;
    EXPECT_NEAR(run(), hand, TOL * hand);
    // The closed form's slot stream, the same slices on an idle connection.
    auto p2p = [](double w) { return AlphaBetaTime(MicroSeconds(2), DataRate("800Gbps"), w); };
    const double stream = NcclSlotStreamTime(e, 327680, p2p).GetSeconds();
    EXPECT_NEAR(stream, 2 * A + 3 * tau + 5e-6, TOL * hand);
    // Credits back at once: the window (8 tau of port time) covers the
    // round trip; the slices stream at the port's rate, alpha + 10 tau.
    e.netCreditDelay = Time(0);
    const double streamed = 6.6e-6 + 2.7e-6 + A + 10 * tau;
    EXPECT_NEAR(run(), streamed, TOL * streamed);
    EXPECT_NEAR(NcclSlotStreamTime(e, 327680, p2p).GetSeconds(), A + 10 * tau, TOL * streamed);
}

TEST_F(NcclProtocolTest, ClosedFormPricesTheExecutorsWindow)
{
    // The ring of FlatRingAcrossNodesPaysTheNetworkOnItsCrossingsOnly (2
    // nodes x 2 GPUs, LL, 24000 B messages, 48000 on the wire): with one
    // whole message in flight the crossing's six messages in sequence,
    // 6 x (2.7 us + A + wire); with a window of 2 the crossing's next
    // message never waits (the message two before was delivered a whole
    // hop earlier), so the chain around the ring is the path: 3 steps at
    // 2.7 us and 3 at NVLink's 0.6 us, as with no window (0) and as with
    // NCCL's slots (8 slots, one 24000 B LL slice a message, credits back
    // at once). The closed form reads the window from the endpoint.
    const auto spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "ring", 4, 96000);
    const double one = 6.6e-6 + 6 * (2.7e-6 + A + 48000 / B);
    const double chain = 6.6e-6 + 3 * (0.6e-6 + A + 48000 / B) + 3 * (2.7e-6 + A + 48000 / B);
    auto closed = [&spec](const NcclEndpoint& e) {
        return NcclClosedFormTime(spec, e, [](uint32_t, double b) {
                   return AlphaBetaTime(MicroSeconds(2), DataRate("800Gbps"), b);
               }).GetSeconds();
    };
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 2, 1);
    EXPECT_EQ(e.netStepsInFlight, 1u);
    EXPECT_NEAR(closed(e), one, TOL * one);
    for (uint32_t window : {2u, 0u})
    {
        e.netStepsInFlight = window;
        EXPECT_NEAR(RunWithEndpoint(spec, e), chain, TOL * chain) << "window " << window;
        EXPECT_NEAR(closed(e), chain, TOL * chain) << "window " << window;
    }
    e.netStepsInFlight = 1;
    e.netSlots = 8;
    EXPECT_NEAR(RunWithEndpoint(spec, e), chain, TOL * chain) << "slots";
    EXPECT_NEAR(closed(e), chain, TOL * chain) << "slots";
}

TEST_F(NcclProtocolTest, TheEndpointTakesTheWindowInForce)
{
    // The NCCL endpoint reads the executor's window attributes in force, so
    // the closed form prices what a --ns3::CollectiveExecutor::... flag
    // makes the executor run; the defaults: one message, no slots.
    NcclEndpoint d = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 2, 1);
    EXPECT_EQ(d.netStepsInFlight, 1u);
    EXPECT_EQ(d.netSlots, 0u);
    EXPECT_TRUE(d.netCreditDelay.IsZero());
    Config::SetDefault("ns3::CollectiveExecutor::NetStepsInFlight", UintegerValue(3));
    Config::SetDefault("ns3::CollectiveExecutor::NetSlots", UintegerValue(16));
    Config::SetDefault("ns3::CollectiveExecutor::NetCreditDelay", TimeValue(MicroSeconds(2)));
    NcclEndpoint e = *MakeNcclEndpoint("ring", NcclProtocol::LL, Time(0), 2, 1);
    Config::SetDefault("ns3::CollectiveExecutor::NetStepsInFlight", UintegerValue(1));
    Config::SetDefault("ns3::CollectiveExecutor::NetSlots", UintegerValue(0));
    Config::SetDefault("ns3::CollectiveExecutor::NetCreditDelay", TimeValue(Time(0)));
    EXPECT_EQ(e.netStepsInFlight, 3u);
    EXPECT_EQ(e.netSlots, 16u);
    EXPECT_EQ(e.NcclChannelsPerConnection(), 2u);
    EXPECT_EQ(e.netCreditDelay, MicroSeconds(2));
    // And the executor carries them both ways.
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    exec->SetEndpoint(e);
    const NcclEndpoint back = exec->GetEndpoint();
    EXPECT_EQ(back.netStepsInFlight, 3u);
    EXPECT_EQ(back.netSlots, 16u);
    EXPECT_EQ(back.netCreditDelay, MicroSeconds(2));
}
