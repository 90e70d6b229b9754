// SPDX-License-Identifier: GPL-2.0-only
//
// AlphaBetaModel against the H100 NVLink worked example (alpha 5 us, beta
// 450 GB/s per direction, n* = 2.25 MB) and hand computations.
// Tolerances: times compared in seconds use 1e-12 relative (a few ulps of the
// double arithmetic); Times compared in picoseconds allow 1 ps (the rounding of
// a real-valued time to the resolution).
#include "alpha-beta-model.h"
#include "input-error.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{

constexpr double kRel = 1e-12;

Ptr<AlphaBetaModel>
ProtocolModel()
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("ProtocolSwitch", BooleanValue(true));
    return m;
}

} // namespace

TEST(AlphaBetaModel, CrossoverH100NvlinkExample)
{
    // n* = alpha x beta (Hockney's n_1/2): 5e-6 s x 450e9 B/s = 2.25e6 B.
    EXPECT_NEAR(AlphaBetaModel::Crossover(5e-6, 450e9), 2.25e6, 2.25e6 * kRel);
    // The defaults are that example.
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    EXPECT_NEAR(m->CrossoverBytes(), 2.25e6, 2.25e6 * kRel);
    // At n* both terms are 5 us: T = 10 us exactly.
    EXPECT_NEAR(m->GetTime(2250000).GetPicoSeconds(), 10000000, 1);
    EXPECT_EQ(m->GetRegime(1000000), AlphaBetaModel::LATENCY_BOUND);
    EXPECT_EQ(m->GetRegime(4000000), AlphaBetaModel::BANDWIDTH_BOUND);
    EXPECT_EQ(AlphaBetaModel::RegimeName(m->GetRegime(1000000)), "latency-bound");
}

TEST(AlphaBetaModel, BaseTimeByHand)
{
    // T = alpha + n / beta: 5 us + 1 MB / 450 GB/s = 5 us + 2.2222... us.
    const double expected = 5e-6 + 1e6 / 450e9;
    EXPECT_NEAR(AlphaBetaModel::BaseTime(5e-6, 450e9, 1e6), expected, expected * kRel);
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    EXPECT_NEAR(m->TimeSeconds(1000000), expected, expected * kRel);
    EXPECT_NEAR(m->GetTime(1000000).GetPicoSeconds(), 7222222, 1);
    EXPECT_NEAR(m->GetMessageTime(1000000).GetPicoSeconds(), 7222222, 1);
    EXPECT_EQ(m->GetProtocol(1000000), AlphaBetaModel::CONSTANT);
}

TEST(AlphaBetaModel, ProtocolStepsAt4KB64KB1MB)
{
    // Protocol steps with their typical values (doc/analytic.md, Rules of thumb):
    // 4 KB eager 2 us, 64 KB rendezvous 2 + 3 = 5 us, 1 MB pipeline 2 + 3 + 1 = 6 us.
    Ptr<AlphaBetaModel> m = ProtocolModel();
    EXPECT_NEAR(m->AlphaSeconds(4000), 2e-6, 2e-6 * kRel);
    EXPECT_NEAR(m->AlphaSeconds(64000), 5e-6, 5e-6 * kRel);
    EXPECT_NEAR(m->AlphaSeconds(1000000), 6e-6, 6e-6 * kRel);
    EXPECT_EQ(AlphaBetaModel::ProtocolName(m->GetProtocol(4000)), "eager");
    EXPECT_EQ(AlphaBetaModel::ProtocolName(m->GetProtocol(64000)), "rendezvous");
    EXPECT_EQ(AlphaBetaModel::ProtocolName(m->GetProtocol(1000000)), "pipeline");
    // T(4 KB) = 2 us + 4000 / 450e9 s = 2 us + 8888.9 ps.
    EXPECT_NEAR(m->GetTime(4000).GetPicoSeconds(), 2008889, 1);
    // T(64 KB) = 5 us + 142222.2 ps; T(1 MB) = 6 us + 2222222.2 ps.
    EXPECT_NEAR(m->GetTime(64000).GetPicoSeconds(), 5142222, 1);
    EXPECT_NEAR(m->GetTime(1000000).GetPicoSeconds(), 8222222, 1);
    // The boundaries: eager < n1 <= rendezvous < n2 <= pipeline.
    EXPECT_EQ(m->GetProtocol(7999), AlphaBetaModel::EAGER);
    EXPECT_EQ(m->GetProtocol(8000), AlphaBetaModel::RENDEZVOUS);
    EXPECT_EQ(m->GetProtocol(511999), AlphaBetaModel::RENDEZVOUS);
    EXPECT_EQ(m->GetProtocol(512000), AlphaBetaModel::PIPELINE);
    // The free function agrees.
    EXPECT_EQ(AlphaBetaModel::ProtocolAlpha(8000, 8000, 512000, 2, 3, 1), 5.0);
}

TEST(AlphaBetaModel, ProtocolCrossoverFallsInPipelineBand)
{
    // Bands 2, 5, 6 us at 450 GB/s: the roots 0.9 MB, 2.25 MB lie beyond their
    // bands' ends (8 KB, 512 KB); the pipeline band's root 6 us x 450 GB/s = 2.7 MB.
    Ptr<AlphaBetaModel> m = ProtocolModel();
    EXPECT_NEAR(m->CrossoverBytes(), 2.7e6, 2.7e6 * kRel);
}

TEST(AlphaBetaModel, SCurveAtN0Is63PercentOfBetaMax)
{
    // S-curve beta_max (1 - e^(-n/n0)) at n = n0: beta_max (1 - 1/e) = 0.632 beta_max.
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("SCurve", BooleanValue(true));
    m->SetAttribute("N0", UintegerValue(256000));
    const double ratio = m->BetaBytesPerSecond(256000) / 450e9;
    EXPECT_NEAR(ratio, 0.632, 0.0005); // the commonly quoted three digits
    EXPECT_NEAR(ratio, 1 - std::exp(-1.0), 1e-15);
    EXPECT_NEAR(AlphaBetaModel::SCurveBandwidth(100.0, 64000, 64000), 100 * (1 - std::exp(-1.0)), 1e-12);
    // T(n0) = 5 us + n0 / (0.632.. beta_max).
    const double t = 5e-6 + 256000 / (450e9 * (1 - std::exp(-1.0)));
    EXPECT_NEAR(m->TimeSeconds(256000), t, t * kRel);
    // Far above n0 beta is the line rate (e^-40 is below double precision).
    EXPECT_NEAR(m->BetaBytesPerSecond(256000 * 40), 450e9, 450e9 * kRel);
    // Small-message limit: n / beta(n) -> n0 / beta_max (0.5689 us).
    EXPECT_NEAR(m->TimeSeconds(0), 5e-6 + 256000 / 450e9, 1e-15);
    EXPECT_NEAR(m->TimeSeconds(1), 5e-6 + 1 / (450e9 * (1 - std::exp(-1.0 / 256000))), 1e-15);
}

TEST(AlphaBetaModel, SCurveCrossoverSolvesTheEquation)
{
    // alpha = n* / beta(n*) checked with the S-curve evaluated independently here.
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("SCurve", BooleanValue(true));
    const double n = m->CrossoverBytes();
    const double transfer = n / (450e9 * (1 - std::exp(-n / 256000)));
    EXPECT_NEAR(transfer, 5e-6, 5e-6 * 1e-8);
    // The S-curve only makes the bandwidth term bigger, so n* drops below 2.25 MB;
    // n0 / beta_max = 0.57 us < alpha, so it stays above 0.
    EXPECT_LT(n, 2.25e6);
    EXPECT_GT(n, 1.5e6);
    // When even tiny messages are bandwidth-bound (n0 / beta_max > alpha) n* = 0.
    m->SetAttribute("Alpha", TimeValue(NanoSeconds(100)));
    EXPECT_EQ(m->CrossoverBytes(), 0.0);
}

TEST(AlphaBetaModel, MultiResourceBandwidth)
{
    // beta_eff = min(mem_read, link, mem_write) x eta:
    // min(3.35 TB/s, 450 GB/s, 3.35 TB/s) x 0.95 = 427.5 GB/s.
    EXPECT_NEAR(AlphaBetaModel::MultiResourceBandwidth(3.35e12, 450e9, 3.35e12, 0.95), 427.5e9, 1);
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("MultiResource", BooleanValue(true));
    EXPECT_NEAR(m->MaxBandwidth(), 427.5e9, 1);
    // A slow destination memory (200 GB/s) becomes the bottleneck: 190 GB/s.
    m->SetAttribute("MemWriteBandwidth", DataRateValue(DataRate("1600Gbps")));
    EXPECT_NEAR(m->MaxBandwidth(), 190e9, 1);
    const double t = 5e-6 + 1e6 / 190e9;
    EXPECT_NEAR(m->TimeSeconds(1000000), t, t * kRel);
}

TEST(AlphaBetaModel, SoftwareOverheadAddsToAlpha)
{
    Ptr<AlphaBetaModel> m = ProtocolModel();
    m->SetAttribute("SoftwareOverhead", TimeValue(MicroSeconds(15)));
    EXPECT_NEAR(m->AlphaSeconds(4000), 17e-6, 17e-6 * kRel);
    EXPECT_NEAR(m->AlphaSeconds(1000000), 21e-6, 21e-6 * kRel);
}

class AlphaBetaModelConfig : public hockney::SimulatorTest
{
};

TEST_F(AlphaBetaModelConfig, AttributesFromConfigDefaults)
{
    Config::SetDefault("ns3::AlphaBetaModel::Alpha", TimeValue(MicroSeconds(1)));
    Config::SetDefault("ns3::AlphaBetaModel::Beta", DataRateValue(DataRate("400Gbps")));
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    // 1 us x 50 GB/s = 50 KB.
    EXPECT_NEAR(m->CrossoverBytes(), 50000, 50000 * kRel);
}

TEST(AlphaBetaModel, ValidateRejectsInconsistentLimits)
{
    Ptr<AlphaBetaModel> m = ProtocolModel();
    m->SetAttribute("EagerLimit", UintegerValue(1000000));
    try
    {
        m->Validate();
        FAIL() << "EagerLimit > RendezvousLimit accepted";
    }
    catch (const InputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("EagerLimit"), std::string::npos);
    }
    m->SetAttribute("RendezvousLimit", UintegerValue(2000000));
    EXPECT_NO_THROW(m->Validate());
}

TEST(AlphaBetaModel, AnalyticModelInterfaceIsConsistent)
{
    // latency + n / bandwidth and the endpoint decomposition both give T(n).
    Ptr<AlphaBetaModel> m = ProtocolModel();
    m->SetAttribute("SCurve", BooleanValue(true));
    m->SetAttribute("SoftwareOverhead", TimeValue(MicroSeconds(1)));
    Ptr<AnalyticModel> base = m;
    for (uint64_t n : {1000ULL, 64000ULL, 3000000ULL})
    {
        const double t = base->GetMessageSeconds(n);
        EXPECT_NEAR(base->GetLatencySeconds(n) + n / base->GetBandwidth(n), t, t * kRel);
        const EndpointTiming e = base->GetEndpointTiming(n);
        EXPECT_NEAR(e.senderCpuSeconds + e.flightSeconds + e.receiverCpuSeconds, t, t * kRel);
        EXPECT_NEAR(e.senderCpuSeconds, 1e-6, 1e-18);
    }
    EXPECT_EQ(base->GetModelName(), "alpha-beta");
}
