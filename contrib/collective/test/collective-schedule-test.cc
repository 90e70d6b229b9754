// SPDX-License-Identifier: GPL-2.0-only
//
// Every builder: its schedule passes the check for several N (and slices,
// channels), a broken schedule is caught with the reason, and on the ideal
// (contention-free alpha-beta) transport the executor's time equals both the
// library's closed form and the textbook formula written out here by hand.
#include "collective-algorithms.h"
#include "collective-closed-form.h"
#include "collective-executor.h"
#include "collective-test-spec.h"
#include "ideal-test-transport.h"
#include "simulator-test.h"

#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{

// alpha = 2 us and beta = 100 GB/s (10 ps per byte) are whole picoseconds, and
// the sizes below divide by every N, slice and channel count used, so the
// simulated times are exact and the only difference from the formulas is
// double rounding: 1e-9 relative is far above that (about 1e-15 per operation)
// and far below any real discrepancy (one missing step of 2 us in 100 us is 2e-2).
const double ALPHA = 2e-6;
const double BETA = 100e9;
const double TOL = 1e-9;
// Divisible by 1..8, 10, 12, 14, 15 and 16.
const uint64_t BASE = 13440;

using hockney::Spec;

hockney::IdealTestTransport::Level
Flat()
{
    return {MicroSeconds(2), DataRate("800Gbps")};
}

double
RunIdeal(const CollectiveSpec& spec,
         std::vector<hockney::IdealTestTransport::Level> levels = {Flat()},
         std::function<uint32_t(uint32_t, uint32_t)> levelOf = {})
{
    CollectiveSchedule sched = BuildSchedule(spec);
    ScheduleCheck check = sched.Check();
    EXPECT_TRUE(check.ok) << check.error;
    auto transport = CreateObject<hockney::IdealTestTransport>(spec.ranks, levels, levelOf);
    auto exec = CreateObject<CollectiveExecutor>();
    Time t = exec->Run(sched, transport);
    EXPECT_TRUE(exec->IsComplete());
    EXPECT_EQ(transport->sent, sched.GetOps().size());
    Simulator::Destroy();
    return t.GetSeconds();
}

double
ClosedSeconds(const CollectiveSpec& spec)
{
    return ClosedFormTime(spec, MicroSeconds(2), DataRate("800Gbps")).GetSeconds();
}

void
ExpectNear(double got, double want, const std::string& what)
{
    EXPECT_NEAR(got, want, TOL * want) << what;
}

class CollectiveScheduleTest : public hockney::SimulatorTest
{
};

} // namespace

TEST_F(CollectiveScheduleTest, RingAllReduceMatchesTextbook)
{
    for (uint32_t n : {2u, 3u, 5u, 8u, 16u})
    {
        for (uint64_t m : {BASE, BASE * 1000})
        {
            auto spec = Spec(CollectiveKind::ALL_REDUCE, "ring", n, m);
            double hand = 2.0 * (n - 1) * (ALPHA + m / (n * BETA));
            ExpectNear(RunIdeal(spec), hand, "ring N=" + std::to_string(n));
            ExpectNear(ClosedSeconds(spec), hand, "closed ring N=" + std::to_string(n));
        }
    }
}

TEST_F(CollectiveScheduleTest, RingAllReduceSlicesAndChannelsPipeline)
{
    // Each of C channels carries M/C; S slices through 2(N-1) steps take
    // 2(N-1) + S - 1 slice times.
    for (uint32_t n : {3u, 4u, 8u})
    {
        for (uint32_t s : {2u, 4u})
        {
            for (uint32_t c : {1u, 2u})
            {
                uint64_t m = BASE * 64;
                auto spec = Spec(CollectiveKind::ALL_REDUCE, "ring", n, m, s, c);
                double hand = (2.0 * (n - 1) + s - 1) * (ALPHA + m / (double(c) * n * s * BETA));
                ExpectNear(RunIdeal(spec), hand, "ring sliced N=" + std::to_string(n));
                ExpectNear(ClosedSeconds(spec), hand, "closed ring sliced");
            }
        }
    }
}

TEST_F(CollectiveScheduleTest, DoubleBinaryTreeMatchesTextbook)
{
    // Depth of the in-order bit tree, by hand: 1 + floor(log2(N-1)).
    const std::vector<std::pair<uint32_t, uint32_t>> depth = {{2, 1}, {3, 2}, {4, 2}, {5, 3}, {7, 3}, {8, 3}, {16, 4}};
    for (auto [n, d] : depth)
    {
        auto parents = collective::DoubleBinaryTreeParents(n);
        EXPECT_EQ(collective::TreeDepth(parents[0]), d) << n;
        EXPECT_EQ(collective::TreeDepth(parents[1]), d) << n;
        for (uint64_t m : {BASE, BASE * 1000})
        {
            auto spec = Spec(CollectiveKind::ALL_REDUCE, "tree", n, m);
            double hand = 2.0 * d * (ALPHA + m / (2 * BETA));
            ExpectNear(RunIdeal(spec), hand, "tree N=" + std::to_string(n));
            ExpectNear(ClosedSeconds(spec), hand, "closed tree");
        }
        auto sliced = Spec(CollectiveKind::ALL_REDUCE, "tree", n, BASE * 8, 4);
        ExpectNear(RunIdeal(sliced), ClosedSeconds(sliced), "tree sliced N=" + std::to_string(n));
        ExpectNear(ClosedSeconds(sliced), (2.0 * d + 3) * (ALPHA + BASE * 8 / (8 * BETA)), "closed tree sliced");
    }
}

TEST_F(CollectiveScheduleTest, DoubleBinaryTreesAreComplementary)
{
    // With N even, a rank that is a leaf of one tree is interior in the other
    // (the point of NCCL's double tree): no rank is a leaf of both.
    for (uint32_t n : {4u, 8u, 16u})
    {
        auto parents = collective::DoubleBinaryTreeParents(n);
        std::vector<int> children0(n, 0), children1(n, 0);
        for (uint32_t v = 0; v < n; ++v)
        {
            if (parents[0][v] >= 0)
            {
                ++children0[parents[0][v]];
            }
            if (parents[1][v] >= 0)
            {
                ++children1[parents[1][v]];
            }
        }
        for (uint32_t v = 0; v < n; ++v)
        {
            EXPECT_LE(children0[v], 2);
            EXPECT_TRUE(children0[v] > 0 || children1[v] > 0) << "rank " << v << " of " << n;
        }
    }
}

TEST_F(CollectiveScheduleTest, HalvingDoublingMatchesTextbook)
{
    for (uint32_t n : {2u, 4u, 8u, 16u})
    {
        for (uint64_t m : {BASE, BASE * 1000})
        {
            auto spec = Spec(CollectiveKind::ALL_REDUCE, "rhd", n, m);
            double hand = 2.0 * std::log2(n) * ALPHA + 2.0 * (n - 1) / n * m / BETA;
            ExpectNear(RunIdeal(spec), hand, "rhd N=" + std::to_string(n));
            ExpectNear(ClosedSeconds(spec), hand, "closed rhd");
        }
    }
    // Not a power of two: the extra ranks fold their buffer into a partner
    // first and get the result back last.
    for (auto [n, p] : std::vector<std::pair<uint32_t, uint32_t>>{{3, 2}, {5, 4}, {6, 4}, {7, 4}})
    {
        uint64_t m = BASE * 10;
        auto spec = Spec(CollectiveKind::ALL_REDUCE, "rhd", n, m);
        double hand = 2.0 * std::log2(p) * ALPHA + 2.0 * (p - 1) / p * m / BETA + 2 * (ALPHA + m / BETA);
        ExpectNear(RunIdeal(spec), hand, "rhd N=" + std::to_string(n));
        ExpectNear(ClosedSeconds(spec), hand, "closed rhd");
    }
    auto sliced = Spec(CollectiveKind::ALL_REDUCE, "rhd", 6, BASE * 16, 2);
    ExpectNear(RunIdeal(sliced), ClosedSeconds(sliced), "rhd sliced");
}

TEST_F(CollectiveScheduleTest, AllGatherAndReduceScatterMatchTextbook)
{
    for (uint32_t n : {2u, 3u, 6u, 8u})
    {
        for (uint64_t m : {BASE, BASE * 1000})
        {
            double hand = (n - 1) * (ALPHA + m / (n * BETA));
            auto ag = Spec(CollectiveKind::ALL_GATHER, "ring", n, m);
            auto rs = Spec(CollectiveKind::REDUCE_SCATTER, "ring", n, m);
            ExpectNear(RunIdeal(ag), hand, "allgather");
            ExpectNear(RunIdeal(rs), hand, "reducescatter");
            ExpectNear(ClosedSeconds(ag), hand, "closed allgather");
            ExpectNear(ClosedSeconds(rs), hand, "closed reducescatter");
        }
        auto sliced = Spec(CollectiveKind::ALL_GATHER, "ring", n, BASE * 4, 4, 2);
        ExpectNear(RunIdeal(sliced), (n - 1 + 3) * (ALPHA + BASE * 4 / (8.0 * n * BETA)), "allgather sliced");
    }
}

TEST_F(CollectiveScheduleTest, BroadcastsMatchTextbook)
{
    for (uint32_t n : {2u, 3u, 5u, 8u})
    {
        for (uint32_t root : {0u, n - 1})
        {
            uint64_t m = BASE * 100;
            auto ring = Spec(CollectiveKind::BROADCAST, "ring", n, m);
            ring.root = root;
            ExpectNear(RunIdeal(ring), (n - 1) * (ALPHA + m / BETA), "ring broadcast");
            auto binomial = Spec(CollectiveKind::BROADCAST, "binomial", n, m);
            binomial.root = root;
            ExpectNear(RunIdeal(binomial), std::ceil(std::log2(n)) * (ALPHA + m / BETA), "binomial");
            for (uint32_t s : {2u, 8u})
            {
                auto piped = Spec(CollectiveKind::BROADCAST, "ring", n, m, s);
                piped.root = root;
                // The classic pipelined chain: (N - 2 + S)(alpha + M/(S beta)).
                double hand = (n - 2.0 + s) * (ALPHA + m / (s * BETA));
                ExpectNear(RunIdeal(piped), hand, "pipelined broadcast");
                ExpectNear(ClosedSeconds(piped), hand, "closed pipelined broadcast");
                auto bs = Spec(CollectiveKind::BROADCAST, "binomial", n, m, s);
                bs.root = root;
                ExpectNear(RunIdeal(bs), ClosedSeconds(bs), "sliced binomial");
            }
        }
    }
}

TEST_F(CollectiveScheduleTest, AllToAllAndIncastMatchTextbook)
{
    for (uint32_t n : {2u, 4u, 7u})
    {
        for (uint64_t m : {BASE, BASE * 1000})
        {
            auto pairwise = Spec(CollectiveKind::ALL_TO_ALL, "pairwise", n, m);
            ExpectNear(RunIdeal(pairwise), (n - 1) * (ALPHA + m / (n * BETA)), "pairwise");
            auto once = Spec(CollectiveKind::ALL_TO_ALL, "all-at-once", n, m);
            ExpectNear(RunIdeal(once), ALPHA + m / (n * BETA), "all-at-once");
            auto incast = Spec(CollectiveKind::INCAST, "direct", n, m);
            ExpectNear(RunIdeal(incast), ALPHA + m / (n * BETA), "incast");
            ExpectNear(ClosedSeconds(pairwise), (n - 1) * (ALPHA + m / (n * BETA)), "closed pairwise");
            ExpectNear(ClosedSeconds(incast), ALPHA + m / (n * BETA), "closed incast");
        }
        auto sliced = Spec(CollectiveKind::ALL_TO_ALL, "pairwise", n, BASE * 2, 2);
        ExpectNear(RunIdeal(sliced), n * (ALPHA + BASE * 2 / (2.0 * n * BETA)), "pairwise sliced");
        auto onceSliced = Spec(CollectiveKind::ALL_TO_ALL, "all-at-once", n, BASE * 2, 2);
        ExpectNear(RunIdeal(onceSliced), 2 * (ALPHA + BASE * 2 / (2.0 * n * BETA)), "all-at-once sliced");
    }
}

TEST_F(CollectiveScheduleTest, HierarchicalMatchesTextbook)
{
    // NVLink-like level inside a node (1 us, 400 GB/s: 2.5 ps/byte, so sizes
    // are multiples of 2 bytes per message), rail-like across (4 us, 50 GB/s: 20 ps/byte).
    const double a1 = 1e-6, b1 = 400e9, a2 = 4e-6, b2 = 50e9;
    std::vector<hockney::IdealTestTransport::Level> levels = {{MicroSeconds(1), DataRate("3200Gbps")},
                                                               {MicroSeconds(4), DataRate("400Gbps")}};
    for (auto [nodes, g] : std::vector<std::pair<uint32_t, uint32_t>>{{2, 4}, {3, 2}, {4, 4}, {1, 4}, {4, 1}})
    {
        uint64_t m = BASE * 16 * 3 * 2;
        auto spec = Spec(CollectiveKind::ALL_REDUCE, "hierarchical", nodes * g, m);
        spec.gpusPerNode = g;
        auto levelOf = [g = g](uint32_t a, uint32_t b) { return a / g == b / g ? 0u : 1u; };
        double hand = 2.0 * (g - 1) * (a1 + m / (g * b1)) + 2.0 * (nodes - 1) * (a2 + m / (double(g) * nodes * b2));
        ExpectNear(RunIdeal(spec, levels, levelOf), hand, "hierarchical " + std::to_string(nodes) + "x" + std::to_string(g));
        Time closed = ClosedFormTime(spec, MicroSeconds(1), DataRate("3200Gbps"), MicroSeconds(4), DataRate("400Gbps"));
        ExpectNear(closed.GetSeconds(), hand, "closed hierarchical");
        auto sliced = spec;
        sliced.slices = 2;
        sliced.channels = 2;
        Time closedSliced =
            ClosedFormTime(sliced, MicroSeconds(1), DataRate("3200Gbps"), MicroSeconds(4), DataRate("400Gbps"));
        ExpectNear(RunIdeal(sliced, levels, levelOf), closedSliced.GetSeconds(), "hierarchical sliced");
    }
}

TEST_F(CollectiveScheduleTest, EveryBuilderIsValidForSeveralN)
{
    for (CollectiveKind kind : {CollectiveKind::ALL_REDUCE,
                                CollectiveKind::ALL_GATHER,
                                CollectiveKind::REDUCE_SCATTER,
                                CollectiveKind::BROADCAST,
                                CollectiveKind::ALL_TO_ALL,
                                CollectiveKind::INCAST})
    {
        for (const std::string& a : AlgorithmsOf(kind))
        {
            for (uint32_t n : {2u, 3u, 4u, 6u, 9u, 12u})
            {
                for (uint32_t s : {1u, 3u})
                {
                    auto spec = Spec(kind, a, n, 5000, s, 2);
                    spec.root = n / 2;
                    if (a == "hierarchical")
                    {
                        spec.gpusPerNode = n % 3 == 0 ? 3 : 2;
                    }
                    ScheduleCheck c = BuildSchedule(spec).Check();
                    EXPECT_TRUE(c.ok) << ToString(kind) << " " << a << " N=" << n << ": " << c.error;
                }
            }
        }
    }
}

TEST_F(CollectiveScheduleTest, CheckFindsBrokenSchedules)
{
    auto spec = Spec(CollectiveKind::ALL_REDUCE, "ring", 4, 4000);
    {
        CollectiveSchedule s = BuildSchedule(spec);
        s.MutableOps()[5].deps.push_back(5);
        ScheduleCheck c = s.Check();
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("waits on itself"), std::string::npos) << c.error;
    }
    {
        CollectiveSchedule s = BuildSchedule(spec);
        // op 0 (rank 0, step 0) waits for op 5 (rank 1, step 1), which waits for op 0.
        ASSERT_EQ(s.GetOps()[5].deps, std::vector<uint32_t>{0});
        s.MutableOps()[0].deps.push_back(5);
        ScheduleCheck c = s.Check();
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("cycle"), std::string::npos) << c.error;
    }
    {
        // Dropping the last op leaves one rank without one chunk.
        CollectiveSchedule s = BuildSchedule(spec);
        s.MutableOps().pop_back();
        ScheduleCheck c = s.Check();
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("ends with chunk"), std::string::npos) << c.error;
    }
    {
        // A reduce-scatter message sent twice counts a contribution twice.
        CollectiveSchedule s = BuildSchedule(spec);
        ScheduleOp dup = s.GetOps()[0];
        s.MutableOps().push_back(dup);
        ScheduleCheck c = s.Check();
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("twice"), std::string::npos) << c.error;
    }
    {
        // Without waiting for its receive, a step-1 send carries a partial sum
        // its sender is not guaranteed to have: the data check catches it at
        // the end (the result misses a contribution).
        CollectiveSchedule s = BuildSchedule(spec);
        for (auto& op : s.MutableOps())
        {
            if (op.step == 1)
            {
                op.deps.clear();
            }
        }
        ScheduleCheck c = s.Check();
        EXPECT_FALSE(c.ok) << "a ring without its step-1 dependencies passed";
    }
    {
        // A broadcast relay that forwards before it received sends nothing it holds.
        auto b = Spec(CollectiveKind::BROADCAST, "ring", 3, 100);
        CollectiveSchedule s = BuildSchedule(b);
        s.MutableOps()[1].deps.clear();
        ScheduleCheck c = s.Check();
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("guaranteed to hold"), std::string::npos) << c.error;
    }
    {
        CollectiveSchedule s = BuildSchedule(spec);
        s.MutableOps()[2].bytes += 1;
        ScheduleCheck c = s.Check();
        EXPECT_FALSE(c.ok);
        EXPECT_NE(c.error.find("bytes"), std::string::npos) << c.error;
    }
}

TEST_F(CollectiveScheduleTest, ExecutorRecordsSteps)
{
    // Ring allreduce: 2(N-1) steps, each alpha + M/(N beta) long.
    auto spec = Spec(CollectiveKind::ALL_REDUCE, "ring", 4, BASE);
    CollectiveSchedule sched = BuildSchedule(spec);
    auto transport = CreateObject<hockney::IdealTestTransport>(4, std::vector<hockney::IdealTestTransport::Level>{Flat()});
    auto exec = CreateObject<CollectiveExecutor>();
    exec->Run(sched, transport);
    std::vector<Time> d = exec->GetStepDurations();
    ASSERT_EQ(d.size(), 6u);
    for (const Time& t : d)
    {
        EXPECT_EQ(t, MicroSeconds(2) + PicoSeconds(10 * BASE / 4));
    }
}

TEST_F(CollectiveScheduleTest, SpecValidationNamesTheField)
{
    auto spec = Spec(CollectiveKind::ALL_REDUCE, "ring", 1, 1000);
    EXPECT_THROW(spec.Validate(), std::invalid_argument);
    try
    {
        spec.Validate();
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind("--ranks:", 0), 0u) << e.what();
    }
    auto tiny = Spec(CollectiveKind::ALL_REDUCE, "ring", 8, 4);
    try
    {
        tiny.Validate();
        FAIL() << "4 bytes on 8 ranks passed";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind("--bytes:", 0), 0u) << e.what();
    }
    EXPECT_EQ(CanonicalAlgorithm(CollectiveKind::ALL_TO_ALL, "ring", "--algorithm"), "pairwise");
    EXPECT_THROW(CanonicalAlgorithm(CollectiveKind::ALL_GATHER, "tree", "--algorithm"), std::invalid_argument);
    EXPECT_EQ(ParseCollectiveKind("all_reduce", "--collective"), CollectiveKind::ALL_REDUCE);
    EXPECT_THROW(ParseCollectiveKind("allsum", "--collective"), std::invalid_argument);
}

namespace
{

// A transport that loses every message sent to rank 1: the executor must stop
// at its time limit and say what is still in flight, not hang.
class LossyTestTransport : public CollectiveTransport
{
  public:
    void Send(uint32_t src, uint32_t dst, uint64_t bytes, DeliveryCallback onDelivered) override
    {
        if (dst != 1)
        {
            Simulator::Schedule(MicroSeconds(1), [onDelivered]() { onDelivered(); });
        }
    }

    uint32_t GetRanks() const override
    {
        return 4;
    }

    std::string GetTransportName() const override
    {
        return "lossy-test";
    }
};

} // namespace

TEST_F(CollectiveScheduleTest, ExecutorStopsAtTheTimeLimitNamingWhatIsStuck)
{
    auto spec = Spec(CollectiveKind::ALL_REDUCE, "ring", 4, 4000);
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("TimeLimit", TimeValue(MilliSeconds(1)));
    try
    {
        exec->Run(BuildSchedule(spec), CreateObject<LossyTestTransport>());
        FAIL() << "a schedule whose messages to rank 1 never arrive finished";
    }
    catch (const std::runtime_error& e)
    {
        const std::string what = e.what();
        EXPECT_NE(what.find("did not finish"), std::string::npos) << what;
        EXPECT_NE(what.find("0->1"), std::string::npos) << what; // the first op in flight: rank 0's step 0
    }
    EXPECT_FALSE(exec->IsComplete());
    // By hand, a send waiting for the receive of the step before: step 0
    // delivers 1->2, 2->3, 3->0 (3); step 1 only 2->3 and 3->0 (rank 1 got
    // nothing; 0->1 is lost again); step 2 only 3->0; then rank 0's sends all
    // go to rank 1 and the others wait: 6 of 24.
    EXPECT_EQ(exec->GetDeliveredOps(), 6u);
}
