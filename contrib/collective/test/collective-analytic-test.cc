// SPDX-License-Identifier: GPL-2.0-only
//
// The executor on the analytic module's channel: with no contention it equals
// the closed form priced by LogGP (every registered algorithm against its
// alpha-beta closed form: collective-algorithm-registry-test.cc); with links
// shared max-min fairly, the pairwise and all-at-once AllToAll differ exactly
// as computed by hand; busbw factors are nccl-tests'.
#include "alpha-beta-model.h"
#include "analytic-transport.h"
#include "collective-algorithms.h"
#include "collective-bandwidth.h"
#include "collective-closed-form.h"
#include "collective-executor.h"
#include "collective-test-spec.h"
#include "loggp-model.h"
#include "simulator-test.h"

#include "ns3/double.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

using hockney::AlphaBeta;
using hockney::Spec;

class CollectiveAnalyticTest : public hockney::SimulatorTest
{
};

Time
RunOn(const CollectiveSpec& spec, Ptr<AnalyticTransport> t)
{
    auto exec = CreateObject<CollectiveExecutor>();
    return exec->Run(BuildSchedule(spec), t);
}

} // namespace

TEST_F(CollectiveAnalyticTest, LogGpNonePolicyEqualsClosedFormOfTheModel)
{
    // LogGP per message 2o + L + (n-1)G: the closed form priced by the same
    // model must match the executor message by message.
    Ptr<LogGpModel> m = CreateObject<LogGpModel>();
    m->SetAttribute("L", TimeValue(MicroSeconds(3)));
    m->SetAttribute("o", TimeValue(MicroSeconds(1)));
    m->SetAttribute("g", TimeValue(MicroSeconds(2)));
    m->SetAttribute("GapPerByte", DoubleValue(1e-11));
    auto spec = Spec(CollectiveKind::ALL_REDUCE, "ring", 8, 13440 * 100);
    auto t = CreateObject<AnalyticTransport>();
    t->Install(8, m, AnalyticChannel::NONE);
    double got = RunOn(spec, t).GetSeconds();
    // By hand: 14 steps of 2o + L + (M/8 - 1) G.
    double hand = 14 * (2e-6 + 3e-6 + (13440 * 100 / 8 - 1) * 1e-11);
    EXPECT_NEAR(got, hand, 1e-9 * hand);
    EXPECT_NEAR(ClosedFormTime(spec, m).GetSeconds(), hand, 1e-9 * hand);
}

TEST_F(CollectiveAnalyticTest, SharedLinksPairwiseVersusAllAtOnceAllToAll)
{
    // Four ranks on a star: rank i's uplink (id 2i) and downlink (id 2i+1) at
    // B = 100 GB/s and 0.5 us each; model alpha 2 us and beta = B. Block
    // b = M/4 = 1 MB, b/B = 10 us.
    //  all-at-once: 3 flows on every uplink and downlink, max-min B/3 each:
    //               alpha + 3 b/B + 2 x 0.5 us = 2 + 30 + 1 = 33 us.
    //  pairwise:    3 steps of one flow per link at B:
    //               3 (alpha + b/B + 1 us) = 3 x 13 = 39 us.
    //  no contention, all-at-once: alpha + b/B = 12 us (the algebra's answer).
    const uint32_t n = 4;
    const uint64_t m = 4000000;
    auto make = [&](AnalyticChannel::ContentionPolicy policy) {
        auto t = CreateObject<AnalyticTransport>();
        t->Install(n, AlphaBeta(MicroSeconds(2), DataRate("800Gbps")), policy);
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                if (i != j)
                {
                    t->GetAnalyticChannel()->SetRoute(
                        i,
                        j,
                        {AnalyticLink{2 * i, DataRate("800Gbps"), NanoSeconds(500)},
                         AnalyticLink{2 * j + 1, DataRate("800Gbps"), NanoSeconds(500)}});
                }
            }
        }
        return t;
    };
    Time once = RunOn(Spec(CollectiveKind::ALL_TO_ALL, "all-at-once", n, m), make(AnalyticChannel::SHARED));
    Simulator::Destroy();
    Time pairwise = RunOn(Spec(CollectiveKind::ALL_TO_ALL, "pairwise", n, m), make(AnalyticChannel::SHARED));
    Simulator::Destroy();
    Time ideal = RunOn(Spec(CollectiveKind::ALL_TO_ALL, "all-at-once", n, m), make(AnalyticChannel::NONE));
    // The fluid model's rates are doubles: 1 ps of slack covers their rounding.
    EXPECT_NEAR(once.GetPicoSeconds(), 33e6, 1);
    EXPECT_NEAR(pairwise.GetPicoSeconds(), 39e6, 1);
    EXPECT_NEAR(ideal.GetPicoSeconds(), 12e6, 1);
}

TEST_F(CollectiveAnalyticTest, TwoLevelsPriceIntraAndInterNodeMessages)
{
    // Hierarchical allreduce on 2 nodes x 2 GPUs, level 0 = 1 us / 400 GB/s,
    // level 1 = 4 us / 50 GB/s: 2(G-1)(a1 + M/(G b1)) + 2(K-1)(a2 + M/(G K b2)).
    auto spec = Spec(CollectiveKind::ALL_REDUCE, "hierarchical", 4, 4000000);
    spec.gpusPerNode = 2;
    auto t = CreateObject<AnalyticTransport>();
    t->Install(4, AlphaBeta(MicroSeconds(1), DataRate("3200Gbps")), AnalyticChannel::NONE);
    t->AddLevel(AlphaBeta(MicroSeconds(4), DataRate("400Gbps")));
    t->SetLevelFunction([](uint32_t a, uint32_t b) { return a / 2 == b / 2 ? 0u : 1u; });
    double got = RunOn(spec, t).GetSeconds();
    double hand = 2 * (1e-6 + 2e6 / 400e9) + 2 * (4e-6 + 1e6 / 50e9);
    EXPECT_NEAR(got, hand, 1e-9 * hand);
}

TEST_F(CollectiveAnalyticTest, BusBandwidthFactorsAreNcclTests)
{
    // nccl-tests src/*.cu GetBw(): allreduce 2(n-1)/n, allgather, reducescatter,
    // alltoall (n-1)/n, broadcast 1; incast counted as gather (n-1)/n.
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::ALL_REDUCE, 8), 1.75);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::ALL_REDUCE, 2), 1.0);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::ALL_GATHER, 8), 0.875);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::REDUCE_SCATTER, 4), 0.75);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::ALL_TO_ALL, 16), 0.9375);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::BROADCAST, 8), 1.0);
    EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::INCAST, 9), 8.0 / 9);
    // 1 GB in 10 ms: algbw 100 GB/s; allreduce on 8: busbw 175 GB/s.
    EXPECT_DOUBLE_EQ(AlgorithmBandwidth(1000000000, MilliSeconds(10)), 100e9);
    EXPECT_DOUBLE_EQ(BusBandwidth(CollectiveKind::ALL_REDUCE, 8, 1000000000, MilliSeconds(10)), 175e9);
    // The factor makes the ring's busbw the link rate diluted only by alpha:
    // busbw = beta x (M/(N beta)) / (alpha + M/(N beta)); M = 8 GB on 8 ranks:
    // 100 GB/s x 10 ms / (10 ms + 2 us).
    auto spec = Spec(CollectiveKind::ALL_REDUCE, "ring", 8, 8000000000ull);
    Time t = ClosedFormTime(spec, MicroSeconds(2), DataRate("800Gbps"));
    const double want = 100e9 * 0.01 / (0.01 + 2e-6);
    EXPECT_NEAR(BusBandwidth(spec.collective, 8, spec.bytes, t), want, want * 1e-12);
}
