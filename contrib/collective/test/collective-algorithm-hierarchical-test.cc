// SPDX-License-Identifier: GPL-2.0-only
//
// The hierarchical AllReduce pipelined by chunk: the number of chunks from
// CollectiveSpec::chunkBytes, and its closed form (the fill plus chunks - 1
// times the slowest of the three phases) written out by hand, equal to the
// executor's time on the contention-free transport.
#include "collective-algorithm-registry.h"
#include "collective-algorithms.h"
#include "collective-closed-form.h"
#include "collective-executor.h"
#include "collective-test-spec.h"
#include "ideal-test-transport.h"
#include "simulator-test.h"

#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

// Levels with a whole number of picoseconds per byte (2.5 ps/B at 3200 Gb/s
// on even byte counts, 20 ps/B at 400 Gb/s), so the executor's times are
// exact and only double rounding separates them from the numbers below:
// 1e-9 relative is far above that and far below one missing step (1 us in
// 40 us is 2.5e-2).
const double TOL = 1e-9;

class HierarchicalPipelineTest : public hockney::SimulatorTest
{
};

// 2 nodes x 4 GPUs.
CollectiveSpec
TwoByFour(uint64_t bytes, uint64_t chunkBytes)
{
    CollectiveSpec spec = hockney::Spec(CollectiveKind::ALL_REDUCE, "hierarchical", 8, bytes);
    spec.gpusPerNode = 4;
    spec.chunkBytes = chunkBytes;
    return spec;
}

double
RunIdeal(const CollectiveSpec& spec, const std::vector<hockney::IdealTestTransport::Level>& levels)
{
    CollectiveSchedule sched = BuildSchedule(spec);
    ScheduleCheck check = sched.Check();
    EXPECT_TRUE(check.ok) << check.error;
    auto transport = CreateObject<hockney::IdealTestTransport>(
        spec.ranks, levels, [](uint32_t a, uint32_t b) { return a / 4 == b / 4 ? 0u : 1u; });
    auto exec = CreateObject<CollectiveExecutor>();
    Time t = exec->Run(sched, transport);
    EXPECT_TRUE(exec->IsComplete());
    Simulator::Destroy();
    return t.GetSeconds();
}

} // namespace

TEST_F(HierarchicalPipelineTest, ChunkCountFollowsTheChunkBytes)
{
    // m = 215040 B on G = 4 GPUs a node with 13440 B chunks: each chunk is
    // 4 x 13440 = 53760 B of the buffer, m / 53760 = 4 chunks exactly.
    EXPECT_EQ(PipelineDepth(TwoByFour(215040, 13440), 215040), 4u);
    // One byte more needs a fifth chunk (the ceiling).
    EXPECT_EQ(PipelineDepth(TwoByFour(215041, 13440), 215041), 5u);
    // 0: the slices alone (1: the phases in sequence, the old behaviour).
    EXPECT_EQ(PipelineDepth(TwoByFour(215040, 0), 215040), 1u);
    // 1 GB in 1 KB chunks (4 KB of the buffer each) would be 250000 chunks: capped.
    EXPECT_EQ(PipelineDepth(TwoByFour(1000000000, 1000), 1e9), kMaxPipelineChunks);
    // 80 B on 8 ranks: at most 80 / 8 = 10 chunks, so no message is empty.
    EXPECT_EQ(PipelineDepth(TwoByFour(80, 1), 80), 10u);
    // Slices above the derived count win.
    CollectiveSpec sliced = TwoByFour(215040, 13440);
    sliced.slices = 6;
    EXPECT_EQ(PipelineDepth(sliced, 215040), 6u);
}

TEST_F(HierarchicalPipelineTest, ClosedFormIsFillPlusChunksTimesTheSlowestPhase)
{
    // Intra-node 1 us + 2.5 ps/B, inter-node 4 us + 20 ps/B; m = 215040 B in
    // C = 4 chunks, G = 4, K = 2 nodes.
    //   intra message m/(C G) = 13440 B: 1 + 0.0336 = 1.0336 us; the
    //   reduce-scatter and the all-gather stages (G-1 = 3 steps): 3.1008 us each;
    //   rail message m/(C G K) = 6720 B: 4 + 0.1344 = 4.1344 us; the rail
    //   allreduce stage (2(K-1) = 2 steps): 8.2688 us, the slowest.
    //   fill 3.1008 + 8.2688 + 3.1008 = 14.4704 us, + 3 x 8.2688 = 39.2768 us.
    const std::vector<hockney::IdealTestTransport::Level> levels = {{MicroSeconds(1), DataRate("3200Gbps")},
                                                                     {MicroSeconds(4), DataRate("400Gbps")}};
    const CollectiveSpec spec = TwoByFour(215040, 13440);
    const double hand = 39.2768e-6;
    EXPECT_NEAR(ClosedFormTime(spec, MicroSeconds(1), DataRate("3200Gbps"), MicroSeconds(4), DataRate("400Gbps"))
                    .GetSeconds(),
                hand,
                TOL * hand);
    EXPECT_NEAR(RunIdeal(spec, levels), hand, TOL * hand);
    // One chunk: the phases in sequence, 2 x 3 x (1 + 53760 x 2.5 ps) + 2 x (4
    // + 26880 x 20 ps) = 6.8064 + 9.0752 = 15.8816 us: with alphas this large
    // the pipeline's extra steps cost more than the overlap saves.
    const CollectiveSpec one = TwoByFour(215040, 0);
    const double sequential = 15.8816e-6;
    EXPECT_NEAR(RunIdeal(one, levels), sequential, TOL * sequential);
}

TEST_F(HierarchicalPipelineTest, OverlapWinsWhenTheIntraNodePhaseIsSlowest)
{
    // Both levels 0.1 us + 20 ps/B (400 Gb/s), so the intra-node phases (3
    // steps) are the slowest; m = 13762560 B, G = 4, K = 2, 430080 B chunks:
    // C = 13762560 / (4 x 430080) = 8.
    //   intra message 430080 B: 0.1 + 8.6016 = 8.7016 us, stage 26.1048 us;
    //   rail message 215040 B: 0.1 + 4.3008 = 4.4008 us, stage 8.8016 us;
    //   fill 26.1048 + 8.8016 + 26.1048 = 61.0112 us, + 7 x 26.1048 = 243.7448 us.
    // One chunk: 6 x (0.1 + 3440640 x 20 ps) + 2 x (0.1 + 1720320 x 20 ps)
    //   = 6 x 68.9128 + 2 x 34.5064 = 482.4896 us: the overlap saves half.
    const std::vector<hockney::IdealTestTransport::Level> levels = {{NanoSeconds(100), DataRate("400Gbps")},
                                                                     {NanoSeconds(100), DataRate("400Gbps")}};
    const double hand = 243.7448e-6;
    const CollectiveSpec spec = TwoByFour(13762560, 430080);
    EXPECT_NEAR(ClosedFormTime(spec, NanoSeconds(100), DataRate("400Gbps")).GetSeconds(), hand, TOL * hand);
    EXPECT_NEAR(RunIdeal(spec, levels), hand, TOL * hand);
    const double sequential = 482.4896e-6;
    EXPECT_NEAR(RunIdeal(TwoByFour(13762560, 0), levels), sequential, TOL * sequential);
}
