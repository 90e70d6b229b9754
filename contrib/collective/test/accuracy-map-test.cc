// SPDX-License-Identifier: GPL-2.0-only
//
// The accuracy map: the direction of each claimed accuracy band of the alpha-beta model
// (doc/analytic.md, Sources: Rules of thumb) on a small
// configuration (the packet fabric against the alpha-beta algebra), the
// incast time series against the physics that bounds them, the assumption
// ablation against a hand computation, and the experiment files' validation.
#include "accuracy-map.h"
#include "collective-comparison.h"
#include "input-error.h"
#include "simulator-test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace ns3;

namespace
{

class AccuracyMapTest : public hockney::SimulatorTest
{
};

// One RoCE switch with 9 hosts, 100 Gb/s, 1 us links, store-and-forward, PFC,
// a 2 MB shared buffer (validation/04-incast.json's shallow switch).
nlohmann::json
ShallowStar()
{
    nlohmann::json tier = {{"name", "eth"},
                           {"protocol", "roce"},
                           {"lane_rate", "100Gbps"},
                           {"delay", "1us"},
                           {"mtu_bytes", 4128},
                           {"header_bytes", 70},
                           {"flow_control", "pfc"},
                           {"forwarding_latency", "500ns"},
                           {"cut_through", false},
                           {"switch_buffer_bytes", 2000000}};
    nlohmann::json nodes = nlohmann::json::array();
    nlohmann::json links = nlohmann::json::array();
    for (int i = 0; i < 9; ++i)
    {
        nodes.push_back({{"name", "h" + std::to_string(i)}, {"kind", "host"}});
        links.push_back({{"a", "h" + std::to_string(i)}, {"b", "sw"}, {"tier", "eth"}, {"lanes", 1}});
    }
    nodes.push_back({{"name", "sw"}, {"kind", "switch"}, {"tier", "eth"}, {"ports", 64}});
    return {{"tiers", {tier}}, {"nodes", nodes}, {"links", links}};
}

ComparisonConfig
ScenarioConfig(const nlohmann::json& scenario)
{
    ComparisonConfig c;
    ApplyScenario(scenario, c);
    return c;
}

double
TimeOf(const std::vector<ResultRow>& rows, const std::string& backend)
{
    for (const auto& r : rows)
    {
        if (r.GetString("backend") == backend)
        {
            return r.GetDouble("time_s");
        }
    }
    ADD_FAILURE() << "no " << backend << " row";
    return -1;
}

} // namespace

TEST(AccuracyMapMetric, SymmetricErrorByHand)
{
    // 1.05 / 1 - 1 = 5 %; an optimistic answer at half the time is 100 %,
    // the same as a pessimistic one at twice the time.
    EXPECT_NEAR(SymmetricError(1.05, 1.0), 0.05, 1e-12);
    EXPECT_NEAR(SymmetricError(0.5, 1.0), 1.0, 1e-12);
    EXPECT_NEAR(SymmetricError(2.0, 1.0), 1.0, 1e-12);
    EXPECT_TRUE(std::isinf(SymmetricError(0.0, 1.0)));
}

TEST_F(AccuracyMapTest, LargeAllReduceHoldsWithinTheClaimedFivePercent)
{
    // Ring AllReduce of 32 MB on 4 hosts of a non-blocking leaf-spine: every
    // step one flow per link direction, bandwidth-bound (8 MB per message is
    // 650 us at 12.2 GB/s against a few us of alpha). The claimed ~5 %: allow
    // 10 %, the spread of "about 5 %"; a missing step or a doubled message
    // would be off by 17 % or more.
    ComparisonConfig c = ScenarioConfig({{"topology", "roce-leafspine:leaves=2,spines=2,hosts-per-leaf=2"},
                                 {"ranks", 4},
                                 {"sizes", {"32MB"}},
                                 {"backends", {"alphabeta", "packet"}}});
    auto rows = RunComparison(c);
    const double e = SymmetricError(TimeOf(rows, "alphabeta"), TimeOf(rows, "packet"));
    EXPECT_LT(e, 0.10);
}

TEST_F(AccuracyMapTest, IncastIsBeyondThirtyPercentAndShowsPfcAndDcqcn)
{
    // 8 x 1 MB into one 100 Gb/s link: the algebra sees one 1 MB message
    // (about 86 us); the receiver's link needs 8 MB / 12.2 GB/s = 656 us at
    // least, a factor 7.6 (the claimed band: > 30 %).
    nlohmann::json s = {{"topology", ShallowStar()},
                        {"collective", "incast"},
                        {"algorithm", "direct"},
                        {"ranks", 9},
                        {"sizes", {"9MB"}},
                        {"backends", {"alphabeta", "packet"}},
                        {"fabric", {{"congestion_control", "none"}}}};
    ComparisonConfig pfc = ScenarioConfig(s);
    auto rows = RunComparison(pfc);
    const double packet = TimeOf(rows, "packet");
    EXPECT_GT(SymmetricError(TimeOf(rows, "alphabeta"), packet), 0.30);
    EXPECT_GE(packet, 8e6 / 12.5e9); // the receiver's line rate bounds it from below
    EXPECT_GT(rows.back().GetDouble("pfc_pauses"), 0);

    // The time series: the queue towards the receiver never exceeds the 2 MB
    // shared buffer (PFC keeps the fabric lossless), pauses happen, and the
    // run ends within one sample step (1 us) of the packet time.
    auto series = RecordIncastTrace(pfc, MicroSeconds(1));
    ASSERT_FALSE(series.empty());
    uint64_t maxQueue = 0;
    uint32_t maxPaused = 0;
    for (const auto& x : series)
    {
        maxQueue = std::max(maxQueue, x.queueBytes);
        maxPaused = std::max(maxPaused, x.pausedPorts);
        ASSERT_EQ(x.senderRateBps.size(), 8u);
    }
    EXPECT_GT(maxQueue, 100000u);
    EXPECT_LE(maxQueue, 2000000u);
    EXPECT_GT(maxPaused, 0u);
    EXPECT_GT(series.back().pausesSent, 0u);
    EXPECT_NEAR(series.back().timeS, packet, 1.5e-6);
    // Without congestion control every sender stays at line rate (100 Gb/s).
    EXPECT_EQ(series.back().senderRateBps[0], 100e9);

    // With DCQCN the senders' rates are cut below line rate at some moment.
    s["fabric"]["congestion_control"] = "dcqcn";
    auto dcqcn = RecordIncastTrace(ScenarioConfig(s), MicroSeconds(1));
    double minRate = 1e300;
    for (const auto& x : dcqcn)
    {
        for (double r : x.senderRateBps)
        {
            minRate = std::min(minRate, r);
        }
    }
    EXPECT_LT(minRate, 0.5 * 100e9);
    // Rate-based or none: no window columns.
    EXPECT_FALSE(HasSenderWindows(series));
    EXPECT_FALSE(HasSenderWindows(dcqcn));

    // Swift: each sender starts with one base target (25 us) of line rate,
    // 100 Gb/s x 25 us = 312500 B, and is cut towards its share of the port
    // at the target (8 flows, about 34 us: ~51 KB each), below a quarter.
    s["fabric"]["congestion_control"] = "swift";
    auto swift = RecordIncastTrace(ScenarioConfig(s), MicroSeconds(1));
    ASSERT_TRUE(HasSenderWindows(swift));
    ASSERT_EQ(swift.front().senderWindowBytes.size(), 8u);
    EXPECT_EQ(swift.front().senderWindowBytes[0], 312500u);
    uint64_t minWindow = UINT64_MAX;
    for (const auto& x : swift)
    {
        minWindow = std::min(minWindow, *std::min_element(x.senderWindowBytes.begin(), x.senderWindowBytes.end()));
    }
    EXPECT_GT(minWindow, 0u);
    EXPECT_LT(minWindow, 312500u / 4);

    // HPCC is window-based too (its window figure needs the columns): each
    // sender starts at line rate x its base RTT T (default 9 us), 100 Gb/s x
    // 9 us = 112500 B. It aims at eta = 95 % of the bottleneck (Li et al.,
    // SIGCOMM 2019), so the queue stays far below PFC alone's standing queue
    // and the port idles at least 5 % of the time: the run ends later.
    s["fabric"]["congestion_control"] = "hpcc";
    auto hpcc = RecordIncastTrace(ScenarioConfig(s), MicroSeconds(1));
    ASSERT_TRUE(HasSenderWindows(hpcc));
    ASSERT_EQ(hpcc.front().senderWindowBytes.size(), 8u);
    EXPECT_EQ(hpcc.front().senderWindowBytes[0], 112500u);
    auto meanQueue = [](const std::vector<IncastSample>& v) {
        double sum = 0;
        for (const auto& x : v)
        {
            sum += double(x.queueBytes);
        }
        return sum / double(v.size());
    };
    EXPECT_LT(meanQueue(hpcc), meanQueue(series) / 4);
    EXPECT_GT(hpcc.back().timeS, packet / 0.95);
}

TEST_F(AccuracyMapTest, AllToAllOnOversubscribedLeafSpineIsBeyondHundredPercent)
{
    // 16 hosts, 4 leaves, 2:1 oversubscribed, all-at-once AllToAll of 4 MB:
    // every rank sends 15 x 250 KB at once; the algebra sees one 250 KB
    // message, the receiver's link alone needs 15 of them: far above 100 %.
    ComparisonConfig c =
        ScenarioConfig({{"topology", "roce-leafspine:leaves=4,spines=2,hosts-per-leaf=4,oversubscription=2"},
                {"collective", "alltoall"},
                {"algorithm", "all-at-once"},
                {"ranks", 16},
                {"sizes", {"4MB"}},
                {"backends", {"alphabeta", "packet"}}});
    auto rows = RunComparison(c);
    EXPECT_GT(SymmetricError(TimeOf(rows, "alphabeta"), TimeOf(rows, "packet")), 1.0);
}

TEST_F(AccuracyMapTest, RingTimeFallsWhenTheChunkBecomesEager)
{
    // 64 KB ring AllReduce: on 6 ranks the chunk is 10.7 KB (rendezvous, a
    // control round trip per step), on 8 ranks 8000 B (< 8 KiB: eager). More
    // steps, yet less time: the non-monotone latency a protocol threshold causes (eager below
    // 8 KiB, rendezvous above; Liu, Wu and Panda, ICS 2003). The constant
    // alpha-beta time can only grow with N.
    auto run = [](uint32_t ranks) {
        ComparisonConfig c = ScenarioConfig({{"topology", "roce-leafspine:leaves=1,spines=1,hosts-per-leaf=8"},
                                     {"ranks", ranks},
                                     {"sizes", {"64KB"}},
                                     {"backends", {"alphabeta", "packet"}}});
        return RunComparison(c);
    };
    auto six = run(6);
    auto eight = run(8);
    EXPECT_LT(TimeOf(eight, "packet"), 0.95 * TimeOf(six, "packet"));
    EXPECT_GT(TimeOf(eight, "alphabeta"), TimeOf(six, "alphabeta"));
}

TEST_F(AccuracyMapTest, AblationSoftwareCostIsOneMicrosecondPerStep)
{
    // Ring AllReduce on 4 ranks: 2(N-1) = 6 messages on the critical path;
    // the endpoint's software cost is 500 ns send + 500 ns receive, so the
    // software relaxation adds exactly 6 us to the constant model.
    ComparisonConfig c = ScenarioConfig({{"topology", "roce-leafspine:leaves=2,spines=2,hosts-per-leaf=2"},
                                 {"ranks", 4},
                                 {"sizes", {"4KB"}},
                                 {"backends", {"closed"}}});
    auto rows = RunAssumptionAblation(c, 65536, {{4000, 2e-5}});
    auto get = [&rows](const std::string& b) {
        for (const auto& r : rows)
        {
            if (r.GetString("backend") == b)
            {
                return r;
            }
        }
        ADD_FAILURE() << b;
        return ResultRow();
    };
    EXPECT_NEAR(get("ab-software").GetDouble("time_s") - get("ab-base").GetDouble("time_s"), 6e-6, 1e-12);
    // The S-curve with n0 = 64 KB: a 1000 B message costs about n0 / beta
    // instead of n / beta (1 - e^{-x} ~ x), so it must be slower than the base.
    EXPECT_GT(get("ab-scurve").GetDouble("time_s"), get("ab-base").GetDouble("time_s"));
    // Error against the given packet time of 20 us, by its definition.
    const double t = get("ab-base").GetDouble("time_s");
    EXPECT_NEAR(get("ab-base").GetDouble("error"), (t - 2e-5) / 2e-5, 1e-12);
    EXPECT_EQ(rows.size(), 7u);
}

TEST_F(AccuracyMapTest, ExperimentFilesParseAndBadOnesAreNamed)
{
    auto all = LoadAccuracyExperiments(HOCKNEY_SOURCE_DIR "/validation");
    EXPECT_GE(all.size(), 7u);
    size_t inDefault = 0;
    for (const auto& e : all)
    {
        inDefault += e.inDefault ? 1 : 0;
    }
    EXPECT_GE(inDefault, 6u);

    nlohmann::json good = {{"id", "x"},
                           {"title", "t"},
                           {"seed_claim", "c"},
                           {"scenario", {{"topology", "roce-leafspine"}, {"ranks", 4}}},
                           {"expect", {{"min", 0.1}}}};
    EXPECT_NO_THROW(ParseAccuracyExperiment(good, "g.json"));
    // Cases cross the variants: case by case, the variant's patch over the case's.
    nlohmann::json crossed = good;
    crossed["variants"] = {{{"label", "a"}, {"patch", {{"sizes", {"1MB"}}}}},
                           {{"label", "b"}, {"patch", {{"ranks", 3}}}}};
    crossed["cases"] = {{{"label", "x"}, {"patch", {{"ranks", 2}}}}, {{"label", "y"}}};
    const AccuracyExperiment c = ParseAccuracyExperiment(crossed, "c.json");
    ASSERT_EQ(c.variants.size(), 4u);
    EXPECT_EQ(c.variants[0].first, "a x");
    EXPECT_EQ(c.variants[0].second, nlohmann::json({{"ranks", 2}, {"sizes", {"1MB"}}}));
    EXPECT_EQ(c.variants[1].first, "b x");
    EXPECT_EQ(c.variants[1].second, nlohmann::json({{"ranks", 3}}));
    EXPECT_EQ(c.variants[2].first, "a y");
    EXPECT_EQ(c.variants[3].second, nlohmann::json({{"ranks", 3}}));
    crossed["cases"] = "8-to-1";
    EXPECT_THROW(ParseAccuracyExperiment(crossed, "c.json"), InputError);
    nlohmann::json unknown = good;
    unknown["colour"] = "red";
    EXPECT_THROW(ParseAccuracyExperiment(unknown, "u.json"), InputError);
    nlohmann::json badScenario = good;
    badScenario["scenario"]["ranks"] = 1;
    EXPECT_THROW(ParseAccuracyExperiment(badScenario, "b.json"), InputError);
    nlohmann::json badMetric = good;
    badMetric["expect"]["metric"] = "mean";
    EXPECT_THROW(ParseAccuracyExperiment(badMetric, "m.json"), InputError);
    const std::string empty = (std::filesystem::temp_directory_path() / "hockney-accuracy-empty").string();
    std::filesystem::create_directories(empty);
    EXPECT_THROW(LoadAccuracyExperiments(empty), InputError);
    std::filesystem::remove_all(empty);
}

TEST(AccuracyMapPublished, SkipsClearlyWhenTheMeasurementsAreAbsent)
{
    PublishedComparison p = RunPublishedComparison({}, "/nonexistent/measured", false);
    EXPECT_FALSE(p.available);
    EXPECT_NE(p.note.find("skipped"), std::string::npos);
    EXPECT_TRUE(p.rows.empty());
}
