// SPDX-License-Identifier: GPL-2.0-only
//
// NVLS AllReduce (in-switch reduction): its closed form by hand, its schedule
// (one in-switch group per slice, every contribution once), the checks that
// refuse a group counting a rank twice or a topology without a reducing
// NVSwitch, and the packet level on dgx-h100 (the switch really reduces and
// multicasts): against the closed form at a large size, and against NCCL's
// published NVLS curve.
#include "collective-algorithms.h"
#include "collective-closed-form.h"
#include "collective-comparison.h"
#include "input-error.h"
#include "measurement-reader.h"
#include "simulator-test.h"
#include "topology-presets.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{

class CollectiveNvlsTest : public hockney::SimulatorTest
{
};

CollectiveSpec
NvlsSpec(uint32_t ranks, uint64_t bytes, uint32_t slices = 1, uint32_t channels = 1)
{
    CollectiveSpec spec;
    spec.collective = CollectiveKind::ALL_REDUCE;
    spec.algorithm = "nvls";
    spec.ranks = ranks;
    spec.bytes = bytes;
    spec.slices = slices;
    spec.channels = channels;
    return spec;
}

ComparisonConfig
DgxNvls(const std::vector<uint64_t>& sizes, const std::vector<std::string>& backends)
{
    ComparisonConfig c;
    c.topologyName = "dgx-h100";
    c.topology = MakePreset(c.topologyName);
    c.collective = CollectiveKind::ALL_REDUCE;
    c.algorithm = "nvls";
    c.sizes = sizes;
    c.backends = backends;
    return c;
}

} // namespace

TEST_F(CollectiveNvlsTest, ClosedFormIsOneStepOfTheWholeSliceByHand)
{
    // alpha 1 us, beta 100 GB/s, 8 ranks, 64 MB: T = 1 us + 64e6 / 100e9 s
    // = 641 us; with 4 slices each 16 MB slice waits for the previous sum:
    // 4 (1 us + 160 us) = 644 us. The ring's 2(N-1) steps of M/N would be
    // 14 (1 us + 80 us) = 1134 us.
    const Time alpha = MicroSeconds(1);
    const DataRate beta("100GB/s");
    EXPECT_EQ(ClosedFormTime(NvlsSpec(8, 64000000), alpha, beta).GetPicoSeconds(), 641000000);
    EXPECT_EQ(ClosedFormTime(NvlsSpec(8, 64000000, 4), alpha, beta).GetPicoSeconds(), 644000000);
    EXPECT_EQ(CanonicalAlgorithm(CollectiveKind::ALL_REDUCE, "NVLink-SHARP", "--algorithm"), "nvls");
    EXPECT_THROW(CanonicalAlgorithm(CollectiveKind::ALL_GATHER, "nvls", "--algorithm"), InputError);
}

TEST_F(CollectiveNvlsTest, ScheduleIsOneGroupPerSliceReducingEveryContributionOnce)
{
    const CollectiveSchedule s = BuildSchedule(NvlsSpec(4, 4000, 2));
    ASSERT_TRUE(s.Check().ok) << s.Check().error;
    ASSERT_EQ(s.GetOps().size(), 8u);
    EXPECT_EQ(s.GetSwitchGroupCount(), 2u);
    for (uint32_t i = 0; i < 8; ++i)
    {
        const ScheduleOp& op = s.GetOps()[i];
        EXPECT_EQ(op.group, i / 4);
        EXPECT_EQ(op.bytes, 2000u); // the whole slice up, its sum down
        EXPECT_EQ(op.dst, (op.src + 1) % 4);
    }
    // Each link once each way per slice: 4 ranks x 2 slices x 2000 B.
    EXPECT_EQ(s.GetTotalBytes(), 16000u);

    // A group that adds rank 0's copy twice is refused.
    CollectiveSchedule twice = s;
    twice.MutableOps()[1].src = 0;
    twice.MutableOps()[1].dst = 2;
    ScheduleCheck c = twice.Check();
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.error.find("in-switch group 0 reduces the contribution of rank 0 twice"), std::string::npos)
        << c.error;
    // An op waiting on another op of its own group can never start.
    CollectiveSchedule cycle = s;
    cycle.MutableOps()[1].deps = {0};
    EXPECT_FALSE(cycle.Check().ok);

    // Two channels: the second channel's groups follow the first's.
    EXPECT_EQ(BuildSchedule(NvlsSpec(4, 4000, 2, 2)).GetSwitchGroupCount(), 4u);
}

TEST_F(CollectiveNvlsTest, TopologyWithoutAReducingNvSwitchIsAnInputError)
{
    // The line names --algorithm; the run exits 2 (InputError).
    for (const std::string& topo : {"roce-leafspine", "rail-h100-2n", "dgx-h100:nvswitch-chips=4"})
    {
        ComparisonConfig c = DgxNvls({1000000}, {"closed"});
        c.topologyName = topo;
        c.topology = MakePreset(topo);
        try
        {
            RunComparison(c);
            ADD_FAILURE() << topo << ": expected an InputError";
        }
        catch (const InputError& e)
        {
            EXPECT_EQ(e.Field(), "--algorithm") << topo;
            EXPECT_NE(std::string(e.what()).find("nvls"), std::string::npos) << e.what();
        }
    }
    // One server of a rail preset shares its NVSwitch: accepted.
    ComparisonConfig one = DgxNvls({1000000}, {"closed"});
    one.topologyName = "rail-h100-2n";
    one.topology = MakePreset(one.topologyName);
    one.ranks = 8;
    EXPECT_EQ(RunComparison(one).size(), 1u);
}

TEST_F(CollectiveNvlsTest, PacketRunReducesInTheSwitchAndConservesBytes)
{
    // 8 x 1 MB on dgx-h100: every GPU sends 1 MB up and receives 1 MB down;
    // the run's conservation (contributions consumed, copies produced) and
    // the message layer's check hold, nothing is dropped.
    std::vector<ResultRow> rows = RunComparison(DgxNvls({1000000}, {"closed", "packet"}));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1].GetDouble("bytes_sent"), 8e6);
    EXPECT_EQ(rows[1].GetDouble("bytes_delivered"), 8e6);
    EXPECT_EQ(rows[1].GetDouble("drops"), 0);
}

TEST_F(CollectiveNvlsTest, LargePacketRunApproachesTheClosedFormAtTheReductionRate)
{
    // 128 MB: the sum is limited by each port's reduction unit, 280.16 GB/s
    // (NvlsReductionRate), not by the 450 GB/s link; the closed form with
    // that beta: T = 128e6 / 280.16e9 = 456.9 us (+ about 1 us of latency).
    // What the packet run adds: the first 4 KB transfer unit's trip up and
    // the last one's down (a few hundred ns) and the NVLink framing of the
    // copies, which the link (450 GB/s, 94 % goodput = 423 GB/s) carries
    // faster than the unit produces them: within 1 %, while a copy sent
    // twice or a link rate instead of the unit's would be 34 % off.
    std::vector<ResultRow> rows = RunComparison(DgxNvls({128000000}, {"packet"}));
    ASSERT_EQ(rows.size(), 1u);
    const double t = rows[0].GetDouble("time_s");
    const double closed = 128e6 / (18 * 20.6e9 * 0.85 * 8 / 9);
    EXPECT_NEAR(t, closed, 0.01 * closed) << t;
}

TEST_F(CollectiveNvlsTest, ClosedFormRunsAtTheReductionRate)
{
    // The closed backend's beta for NVLS is the switch's reduction rate,
    // 18 x 20.6 GB/s x 0.85 x 8/9 = 280.16 GB/s, below the link's derived
    // 423.5 GB/s: at 128 MB, T = alpha + 128e6 / 280.16e9 with the row's
    // own alpha (exact up to the picosecond rounding of the closed form:
    // 1e-9 relative). The link's beta would give 302 us against 457 us.
    std::vector<ResultRow> rows = RunComparison(DgxNvls({128000000}, {"closed"}));
    ASSERT_EQ(rows.size(), 1u);
    const double rate = 18 * 20.6e9 * 0.85 * 8 / 9;
    EXPECT_NEAR(rows[0].GetDouble("beta_Bps"), rate, 1.0); // DataRate keeps whole bits per second
    const double hand = rows[0].GetDouble("alpha_s") + 128e6 / rate;
    EXPECT_NEAR(rows[0].GetDouble("time_s"), hand, 1e-9 * hand);
}

TEST_F(CollectiveNvlsTest, PacketBusbwAtOneGiBIsWithinTenPercentOfNcclsPublishedCurve)
{
    // NCCL 2.26.2 on 8 x H100 (nccl-tests out-of-place, NVLS): 467.55 GB/s
    // busbw at 1 GiB (validation/data, read here). The model: 1.75 x 280.16
    // GB/s = 490.3 GB/s, +4.9 %. Tolerance 10 %: the goal for the
    // packet level; at 1 GiB the measured curve is within 2.5 % of its own
    // peak, below it approaches the peak slowly, which this model does not
    // (+36 % at 64 MiB, collective.md, NVLS), so only this point is asserted.
    const MeasurementSet published = ReadMeasurementFile(
        std::string(HOCKNEY_SOURCE_DIR) + "/validation/data/nccl_allreduce_nvls_8xH100_nvswitch_together.csv");
    double reference = -1;
    for (const MeasurementSample& m : published.samples)
    {
        if (m.bytes == 1073741824 && !m.inPlace)
        {
            reference = m.busbwBps;
        }
    }
    ASSERT_GT(reference, 0);
    std::vector<ResultRow> rows = RunComparison(DgxNvls({1073741824}, {"packet"}));
    ASSERT_EQ(rows.size(), 1u);
    const double busbw = rows[0].GetDouble("busbw_GBps") * 1e9;
    ::testing::Test::RecordProperty("busbw_error_vs_published", std::to_string(busbw / reference - 1));
    EXPECT_NEAR(busbw, reference, 0.10 * reference) << busbw / 1e9 << " GB/s against " << reference / 1e9;
}
