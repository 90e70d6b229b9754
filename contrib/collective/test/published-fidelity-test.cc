// SPDX-License-Identifier: GPL-2.0-only
//
// The fidelity table (published-fidelity.h): the size bands and the median of
// a small synthetic curve by hand, the goals and their verdicts, and one real
// curve (8 x H100 ring, two small sizes) end to end.
#include "accuracy-metric.h"
#include "collective-comparison.h"
#include "published-fidelity.h"
#include "simulator-test.h"

#include <gtest/gtest.h>

#include <map>

using namespace ns3;

namespace
{

const std::string kDataDir = std::string(HOCKNEY_SOURCE_DIR) + "/validation/data";

class PublishedFidelityTest : public hockney::SimulatorTest
{
};

/// The rows of \p curve by band.
std::map<std::string, ResultRow>
ByBand(const std::vector<ResultRow>& rows, const std::string& curve)
{
    std::map<std::string, ResultRow> out;
    for (const ResultRow& r : rows)
    {
        if (r.GetString("curve") == curve)
        {
            out[r.GetString("band")] = r;
        }
    }
    return out;
}

bool
IsNull(const ResultRow& r, const std::string& key)
{
    return std::holds_alternative<std::monostate>(r.Get(key));
}

} // namespace

TEST(PublishedFidelity, BandsSplitAtSixtyFourKilobytesOneAndSixtyFourMegabytes)
{
    EXPECT_EQ(FidelityBand(8), "<64KB");
    EXPECT_EQ(FidelityBand(63999), "<64KB");
    EXPECT_EQ(FidelityBand(64000), "64KB-1MB");
    EXPECT_EQ(FidelityBand(65536), "64KB-1MB"); // 64 KiB, nccl-tests' size
    EXPECT_EQ(FidelityBand(999999), "64KB-1MB");
    EXPECT_EQ(FidelityBand(1000000), "1MB-64MB");
    EXPECT_EQ(FidelityBand(1048576), "1MB-64MB");
    EXPECT_EQ(FidelityBand(63999999), "1MB-64MB");
    EXPECT_EQ(FidelityBand(67108864), ">=64MB"); // 64 MiB
    EXPECT_EQ(FidelityBand(17179869184ull), ">=64MB");
}

TEST(PublishedFidelity, GoalsAreIssueFifteens)
{
    // Below 1 MB: 15 % on every curve.
    for (const std::string goal : {"", "multi-node", "nvswitch-ring"})
    {
        EXPECT_DOUBLE_EQ(*FidelityGoal(goal, "<64KB"), 0.15) << goal;
        EXPECT_DOUBLE_EQ(*FidelityGoal(goal, "64KB-1MB"), 0.15) << goal;
    }
    // Multi-node: 10 % from 1 MB on.
    EXPECT_DOUBLE_EQ(*FidelityGoal("multi-node", "1MB-64MB"), 0.10);
    EXPECT_DOUBLE_EQ(*FidelityGoal("multi-node", ">=64MB"), 0.10);
    // The NVSwitch ring: 5 % from 64 MB on, nothing set between 1 and 64 MB.
    EXPECT_DOUBLE_EQ(*FidelityGoal("nvswitch-ring", ">=64MB"), 0.05);
    EXPECT_FALSE(FidelityGoal("nvswitch-ring", "1MB-64MB"));
    EXPECT_FALSE(FidelityGoal("", ">=64MB"));

    EXPECT_EQ(FidelityVerdict(0.05, 0.05), "pass");
    EXPECT_EQ(FidelityVerdict(0.0501, 0.05), "fail");
    EXPECT_EQ(FidelityVerdict(0.3, std::nullopt), "no goal");
    EXPECT_EQ(FidelityVerdict(std::nullopt, 0.15), "not run");
}

TEST(PublishedFidelity, MedianPerBandOfASyntheticCurveByHand)
{
    // (bytes, measured us, predicted us) and the symmetric error of each:
    //   8 B      10 -> 11     0.1
    //   32 KB    20 -> 25     0.25
    //   40 KB    30 -> 27     30/27 - 1 = 0.1111
    //   4 MB    100 -> 104    0.04
    //   8 MB    200 -> 180    200/180 - 1 = 0.1111
    //   64 MiB 1000 -> 1060   0.06
    // <64KB: median of {0.1, 0.25, 0.1111} = 0.1111 (pass, <= 0.15);
    // 64KB-1MB: no point (no points); 1MB-64MB: (0.04 + 0.1111) / 2 = 0.0756
    // (multi-node: pass, <= 0.10); >=64MB: 0.06 (multi-node pass; as the
    // NVSwitch ring, fail: > 0.05).
    const std::vector<FidelityPoint> packet = {{8, 10e-6, 11e-6},          {32000, 20e-6, 25e-6},
                                               {40000, 30e-6, 27e-6},      {4000000, 100e-6, 104e-6},
                                               {8000000, 200e-6, 180e-6},  {67108864, 1000e-6, 1060e-6}};
    // The calibrated algebra at two sizes: 0.2 and 0.5.
    const std::vector<FidelityPoint> calibrated = {{8, 10e-6, 12e-6}, {4000000, 100e-6, 150e-6}};
    ResultRow base;
    base.Set("curve", "synthetic");
    for (const std::string goal : {"multi-node", "nvswitch-ring"})
    {
        auto band = ByBand(FidelityRows(base, goal, packet, calibrated, ""), "synthetic");
        ASSERT_EQ(band.size(), 4u);
        EXPECT_NEAR(band["<64KB"].GetDouble("packet_median_sym_error"), 30.0 / 27.0 - 1, 1e-12);
        EXPECT_EQ(band["<64KB"].GetDouble("packet_points"), 3);
        EXPECT_EQ(band["<64KB"].GetString("verdict"), "pass");
        EXPECT_NEAR(band["<64KB"].GetDouble("calibrated_median_sym_error"), 0.2, 1e-12);
        EXPECT_TRUE(IsNull(band["64KB-1MB"], "packet_median_sym_error"));
        EXPECT_EQ(band["64KB-1MB"].GetString("verdict"), "no points");
        EXPECT_NEAR(band["1MB-64MB"].GetDouble("packet_median_sym_error"), (0.04 + 200.0 / 180.0 - 1) / 2, 1e-12);
        EXPECT_NEAR(band["1MB-64MB"].GetDouble("calibrated_median_sym_error"), 0.5, 1e-12);
        EXPECT_NEAR(band[">=64MB"].GetDouble("packet_median_sym_error"), 0.06, 1e-12);
        EXPECT_TRUE(IsNull(band[">=64MB"], "calibrated_median_sym_error"));
    }
    auto multi = ByBand(FidelityRows(base, "multi-node", packet, calibrated, ""), "synthetic");
    EXPECT_EQ(multi["1MB-64MB"].GetString("verdict"), "pass");
    EXPECT_EQ(multi[">=64MB"].GetString("verdict"), "pass");
    auto ring = ByBand(FidelityRows(base, "nvswitch-ring", packet, calibrated, ""), "synthetic");
    EXPECT_EQ(ring["1MB-64MB"].GetString("verdict"), "no goal");
    EXPECT_EQ(ring[">=64MB"].GetString("verdict"), "fail");
}

TEST_F(PublishedFidelityTest, OneRealCurveEndToEnd)
{
    // The 8 x H100 NVSwitch ring (together-nccl-tests) at 32 KiB and 512 KiB:
    // the published out-of-place times are 36.86 us and 43.78 us
    // (validation/data/nccl_allreduce_ring_8xH100_nvswitch_together.csv).
    PublishedCase pc;
    pc.name = "8xH100 ring";
    pc.measurement = "raw/together_h100_ar_ring.txt";
    pc.topology = "dgx-h100";
    pc.ranks = 8;
    PublishedModel ring;
    ring.label = "ring";
    ring.algorithm = "ring";
    ring.backends = {"closed"};
    pc.models = {ring};
    pc.fidelity.present = true;
    pc.fidelity.model = "ring";
    pc.fidelity.goal = "nvswitch-ring";
    pc.fidelity.sizes = {32768, 524288};
    const std::vector<ResultRow> rows = RunFidelityTable({pc}, kDataDir, Seconds(60), false);
    auto band = ByBand(rows, pc.name);
    ASSERT_EQ(band.size(), 4u);

    // The second method: the same packet runs through compare's path.
    ComparisonConfig c;
    ApplyScenario(nlohmann::json{{"topology", "dgx-h100"}}, c);
    c.ranks = 8;
    c.sizes = {32768, 524288};
    c.backends = {"packet"};
    const std::vector<ResultRow> packet = RunComparison(c);
    ASSERT_EQ(packet.size(), 2u);
    EXPECT_NEAR(band["<64KB"].GetDouble("packet_median_sym_error"),
                SymmetricError(packet[0].GetDouble("time_s"), 36.86e-6),
                1e-9);
    EXPECT_NEAR(band["64KB-1MB"].GetDouble("packet_median_sym_error"),
                SymmetricError(packet[1].GetDouble("time_s"), 43.78e-6),
                1e-9);
    EXPECT_EQ(band["<64KB"].GetString("sizes"), "32 KiB");
    // The verdict follows the median against 15 %; the calibrated algebra
    // answers at the same size.
    EXPECT_EQ(band["<64KB"].GetString("verdict"),
              band["<64KB"].GetDouble("packet_median_sym_error") <= 0.15 ? "pass" : "fail");
    EXPECT_EQ(band["<64KB"].GetDouble("calibrated_points"), 1);
    EXPECT_EQ(band["1MB-64MB"].GetString("verdict"), "no goal");
    EXPECT_EQ(band[">=64MB"].GetString("verdict"), "no points");
    // Every other shipped log is listed as not compared.
    size_t notCompared = 0;
    for (const ResultRow& r : rows)
    {
        notCompared += r.GetString("verdict") == "not compared" ? 1 : 0;
    }
    EXPECT_GE(notCompared, 10u);
}
