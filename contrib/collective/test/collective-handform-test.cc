// SPDX-License-Identifier: GPL-2.0-only
//
// The executor on the analytic module's real AnalyticChannel (alpha-beta
// model, contention policy none) against the textbook time of every builder,
// written out here by hand (not ClosedFormTime), for ranks that are and are
// not powers of two. collective-schedule-test.cc checks the same formulas on
// the test's own ideal transport; this file checks that the channel the
// backends really use (AnalyticTransport -> AnalyticChannel -> AlphaBetaModel,
// Time conversion included) gives the same numbers.
//
// Where the library's documented algorithm is not the only textbook one, the
// test follows the documented one and says so (halving-doubling's fold, the
// contention-free incast and all-at-once alltoall).
#include "analytic-transport.h"
#include "collective-algorithms.h"
#include "collective-executor.h"
#include "collective-test-spec.h"
#include "simulator-test.h"

#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class CollectiveHandFormTest : public hockney::SimulatorTest
{
};

// alpha = 2 us and beta = 100 GB/s (800 Gb/s, 10 ps per byte): every message
// of a whole number of bytes takes a whole number of picoseconds, and the
// sizes below divide by every N x slices x channels used, so the channel's
// SecondsToTime of alpha + n/beta lands exactly on the tick and the only
// difference from the hand formulas is double rounding (about 1e-15 per
// operation). 1e-9 relative is far above that and far below a real
// discrepancy: a single picosecond lost per step of a 20 us run is 5e-8, a
// missing step 1e-1.
const double A = 2e-6;
const double B = 100e9;
const double TOL = 1e-9;
// 13440 = 2^7 x 3 x 5 x 7: divisible by 2, 3, 4, 5, 6, 8, 12 and by those
// times 2 slices x 2 channels or 4 slices x 2 channels.
const uint64_t BASE = 13440;
// A latency-leaning size (alpha >= n/beta for most steps: 134 kB / 12 /
// 100 GB/s = 0.11 us vs 2 us) and a bandwidth-bound one (13.44 MB).
const std::vector<uint64_t> SIZES = {BASE * 10, BASE * 1000};
const std::vector<uint32_t> RANKS = {3, 5, 6, 8, 12};

using hockney::Spec;

/// Runs \p spec with the executor on a fresh AnalyticTransport (policy none);
/// returns the total in seconds and, when asked, the per-step durations.
double
RunOnChannel(const CollectiveSpec& spec, std::vector<Time>* steps = nullptr)
{
    Ptr<AnalyticTransport> t = CreateObject<AnalyticTransport>();
    t->Install(spec.ranks, hockney::AlphaBeta(MicroSeconds(2), DataRate("800Gbps")), AnalyticChannel::NONE);
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    const double seconds = exec->Run(BuildSchedule(spec), t).GetSeconds();
    if (steps)
    {
        *steps = exec->GetStepDurations();
    }
    Simulator::Destroy();
    return seconds;
}

/// T(m) = alpha + m / beta, by hand.
double
T(double bytes)
{
    return A + bytes / B;
}

std::string
Where(const CollectiveSpec& s)
{
    return ToString(s.collective) + " " + s.algorithm + " N=" + std::to_string(s.ranks) + " M=" +
           std::to_string(s.bytes) + " S=" + std::to_string(s.slices) + " C=" + std::to_string(s.channels);
}

void
ExpectRel(double got, double want, const std::string& what)
{
    EXPECT_NEAR(got, want, TOL * want) << what << ": executor " << got << " s, hand " << want << " s";
}

} // namespace

TEST_F(CollectiveHandFormTest, RingAllReduceAllGatherReduceScatter)
{
    for (uint32_t n : RANKS)
    {
        for (uint64_t m : SIZES)
        {
            // Ring allreduce: reduce-scatter then all-gather, 2(N-1) steps of M/N.
            auto ar = Spec(CollectiveKind::ALL_REDUCE, "ring", n, m);
            ExpectRel(RunOnChannel(ar), 2.0 * (n - 1) * (A + m / (n * B)), Where(ar));
            // One pass: N-1 steps of M/N (M = the total output, resp. input).
            for (CollectiveKind k : {CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER})
            {
                auto one = Spec(k, "ring", n, m);
                ExpectRel(RunOnChannel(one), (n - 1.0) * (A + m / (n * B)), Where(one));
            }
        }
    }
}

TEST_F(CollectiveHandFormTest, HalvingDoublingStepByStep)
{
    // The builder's variant (collective-algorithm-rhd.cc, RhdAllReduce): with
    // P = 2^floor(log2 N), ranks P..N-1 first send their WHOLE buffer (M) to
    // rank (r - P), which reduces it (the MPICH/Rabenseifner fold that keeps
    // N - P ranks idle); ranks 0..P-1 run Rabenseifner's reduce-scatter by
    // recursive halving (messages M/2, M/4, ..., M/P) and all-gather by
    // recursive doubling (M/P, ..., M/2); finally rank r - P sends the whole
    // result (M) back. Not the variant that folds half-buffers. These times
    // hold on the contention-free channel only: on a one-port network the
    // fold overlaps the first halving step (collective-packet-test.cc, the
    // disabled N = 6 test). Per step, as fractions of M, written out by hand:
    const std::map<uint32_t, std::vector<double>> steps = {
        {3, {1, 0.5, 0.5, 1}},                                  // P = 2
        {5, {1, 0.5, 0.25, 0.25, 0.5, 1}},                      // P = 4
        {6, {1, 0.5, 0.25, 0.25, 0.5, 1}},                      // P = 4
        {8, {0.5, 0.25, 0.125, 0.125, 0.25, 0.5}},              // P = 8, no fold
        {12, {1, 0.5, 0.25, 0.125, 0.125, 0.25, 0.5, 1}},       // P = 8
    };
    // log2 P by hand, for the closed form of the doc:
    // 2 log2(P) alpha + 2 (P-1)/P M/beta (+ 2 (alpha + M/beta) when N != P).
    const std::map<uint32_t, std::pair<uint32_t, uint32_t>> core = {{3, {2, 1}},
                                                                    {5, {4, 2}},
                                                                    {6, {4, 2}},
                                                                    {8, {8, 3}},
                                                                    {12, {8, 3}}};
    for (uint32_t n : RANKS)
    {
        for (uint64_t m : SIZES)
        {
            auto spec = Spec(CollectiveKind::ALL_REDUCE, "rhd", n, m);
            std::vector<Time> durations;
            const double got = RunOnChannel(spec, &durations);
            const std::vector<double>& f = steps.at(n);
            double sum = 0;
            for (double x : f)
            {
                sum += T(x * m);
            }
            ExpectRel(got, sum, Where(spec));
            const auto [p, log2p] = core.at(n);
            double textbook = 2.0 * log2p * A + 2.0 * (p - 1) / p * m / B;
            if (n != p)
            {
                textbook += 2 * (A + m / B);
            }
            ExpectRel(got, textbook, Where(spec) + " (doc's closed form)");
            // Every step takes exactly its message's time: the folded ranks
            // start the halving late, but each step waits for the previous
            // one's last delivery, so the step boundaries are the sums above.
            ASSERT_EQ(durations.size(), f.size()) << Where(spec);
            for (size_t k = 0; k < f.size(); ++k)
            {
                ExpectRel(durations[k].GetSeconds(), T(f[k] * m), Where(spec) + " step " + std::to_string(k));
            }
        }
    }
}

TEST_F(CollectiveHandFormTest, DoubleBinaryTree)
{
    // Tree 0 by the lowest-set-bit rule (collective-algorithms.h), parents
    // written out by hand for N = 6 and 12; tree 1 is its mirror v -> N-1-v.
    //   N = 6:  1->2, 2->4, 3->2, 4->0, 5->4          deepest 1-2-4-0: D = 3
    //   N = 12: 1->2, 2->4, 3->2, 4->8, 5->6, 6->4, 7->6, 8->0, 9->10,
    //           10->8, 11->10                          deepest 1-2-4-8-0: D = 4
    const std::vector<int> t6 = {-1, 2, 4, 2, 0, 4};
    const std::vector<int> t12 = {-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 8, 10};
    EXPECT_EQ(collective::DoubleBinaryTreeParents(6)[0], t6);
    EXPECT_EQ(collective::DoubleBinaryTreeParents(12)[0], t12);
    // Each tree carries M/2: up (reduce) D messages, down (broadcast) D more,
    // the two trees at once (no contention): 2D (alpha + M/(2 beta)), with
    // D = 1 + floor(log2(N-1)) by hand: N = 3: 2, 5: 3, 6: 3, 8: 3, 12: 4.
    const std::map<uint32_t, uint32_t> depth = {{3, 2}, {5, 3}, {6, 3}, {8, 3}, {12, 4}};
    for (uint32_t n : RANKS)
    {
        for (uint64_t m : SIZES)
        {
            auto spec = Spec(CollectiveKind::ALL_REDUCE, "tree", n, m);
            ExpectRel(RunOnChannel(spec), 2.0 * depth.at(n) * (A + m / (2 * B)), Where(spec));
        }
    }
}

TEST_F(CollectiveHandFormTest, Broadcasts)
{
    // ceil(log2 N) rounds of the binomial tree, by hand.
    const std::map<uint32_t, uint32_t> rounds = {{3, 2}, {5, 3}, {6, 3}, {8, 3}, {12, 4}};
    for (uint32_t n : RANKS)
    {
        for (uint64_t m : SIZES)
        {
            // A root other than 0 exercises the relabelling of positions.
            auto binomial = Spec(CollectiveKind::BROADCAST, "binomial", n, m);
            binomial.root = n / 2;
            std::vector<Time> durations;
            ExpectRel(RunOnChannel(binomial, &durations), rounds.at(n) * (A + m / B), Where(binomial));
            ASSERT_EQ(durations.size(), rounds.at(n));
            for (const Time& d : durations)
            {
                ExpectRel(d.GetSeconds(), A + m / B, Where(binomial) + " round");
            }
            // The chain: N-1 hops of the whole buffer ...
            auto chain = Spec(CollectiveKind::BROADCAST, "ring", n, m);
            chain.root = n - 1;
            ExpectRel(RunOnChannel(chain), (n - 1.0) * (A + m / B), Where(chain));
            // ... and pipelined in S = 4 slices: the last slice leaves the
            // root after 3 slice times and needs N-1 hops: (N-2+S)(alpha + M/(S beta)).
            auto piped = Spec(CollectiveKind::BROADCAST, "ring", n, m, 4);
            ExpectRel(RunOnChannel(piped), (n - 2.0 + 4) * (A + m / (4 * B)), Where(piped));
        }
    }
}

TEST_F(CollectiveHandFormTest, AllToAllAndIncast)
{
    for (uint32_t n : RANKS)
    {
        for (uint64_t m : SIZES)
        {
            // Pairwise (MPI_Sendrecv ring): N-1 exchanges of a block M/N.
            auto pairwise = Spec(CollectiveKind::ALL_TO_ALL, "pairwise", n, m);
            ExpectRel(RunOnChannel(pairwise), (n - 1.0) * (A + m / (n * B)), Where(pairwise));
            // All-at-once and incast: every block of M/N at once. On the
            // contention-free channel that is one message time, the library's
            // documented "no contention" form, not the textbook incast bound
            // (N-1) M/(N beta) at the root's link (which the flow and packet
            // backends show).
            auto once = Spec(CollectiveKind::ALL_TO_ALL, "all-at-once", n, m);
            ExpectRel(RunOnChannel(once), A + m / (n * B), Where(once));
            auto incast = Spec(CollectiveKind::INCAST, "direct", n, m);
            incast.root = n - 1;
            ExpectRel(RunOnChannel(incast), A + m / (n * B), Where(incast));
        }
    }
}

TEST_F(CollectiveHandFormTest, SlicedAndChanneledPipelines)
{
    // collective-closed-form.h: S slices through K steps take
    // sum_k T(m_k) + (S-1) max_k T(m_k); C channels each carry M/C at once.
    for (uint32_t n : RANKS)
    {
        for (uint64_t m : SIZES)
        {
            // Ring allreduce, equal steps: (2(N-1) + S - 1) T(M/(C N S)).
            for (auto [s, c] : std::vector<std::pair<uint32_t, uint32_t>>{{4, 1}, {2, 2}, {4, 2}})
            {
                auto ring = Spec(CollectiveKind::ALL_REDUCE, "ring", n, m, s, c);
                ExpectRel(RunOnChannel(ring), (2.0 * (n - 1) + s - 1) * T(m / (double(c) * n * s)), Where(ring));
            }
            // Double binary tree, 2D equal steps of M/(2S): (2D + S - 1) T(M/(2S)).
            const std::map<uint32_t, uint32_t> depth = {{3, 2}, {5, 3}, {6, 3}, {8, 3}, {12, 4}};
            auto tree = Spec(CollectiveKind::ALL_REDUCE, "tree", n, m, 4);
            ExpectRel(RunOnChannel(tree), (2.0 * depth.at(n) + 3) * T(m / 8.0), Where(tree));
        }
    }
    // Halving-doubling on 6 and 12 ranks in S = 2 slices: unequal steps, the
    // fold of M/2 the longest: sum_k T(f_k M/2) + T(M/2), fractions as in
    // HalvingDoublingStepByStep.
    const std::map<uint32_t, std::vector<double>> steps = {{6, {1, 0.5, 0.25, 0.25, 0.5, 1}},
                                                           {12, {1, 0.5, 0.25, 0.125, 0.125, 0.25, 0.5, 1}}};
    for (const auto& [n, f] : steps)
    {
        for (uint64_t m : SIZES)
        {
            auto rhd = Spec(CollectiveKind::ALL_REDUCE, "rhd", n, m, 2);
            double hand = T(m / 2.0);
            for (double x : f)
            {
                hand += T(x * m / 2.0);
            }
            ExpectRel(RunOnChannel(rhd), hand, Where(rhd));
        }
    }
}
