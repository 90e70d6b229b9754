// SPDX-License-Identifier: GPL-2.0-only
//
// DCQCN reaction and notification point, unit level: the rate and alpha after
// CNPs against the paper's formulas evaluated by hand, alpha's decay per K,
// and the increase stages (fast recovery, additive, hyper) on the timer path
// and the byte-counter path separately.
#include "dcqcn.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace ns3;

namespace
{

// Rates are kept in whole bit/s; each update rounds by at most 0.5 b/s, so a
// handful of steps stays within 4 b/s of the exact value (1e-10 relative at
// 40-100 Gb/s: anything wrong in a formula is off by Mb/s).
constexpr double kRateTol = 4.0;
constexpr double kLine = 100e9;
constexpr double kG = 1.0 / 256;

class DcqcnTest : public hockney::SimulatorTest
{
  protected:
    void Make(Time t, uint64_t b, double alpha0 = 1.0)
    {
        cc = CreateObject<Dcqcn>();
        cc->SetAttribute("RateIncreaseInterval", TimeValue(t));
        cc->SetAttribute("ByteCounter", UintegerValue(b));
        cc->SetAttribute("InitialAlpha", DoubleValue(alpha0));
        state = CreateObject<RdmaRateState>();
        state->SetLineRate(DataRate(static_cast<uint64_t>(kLine)));
        cc->FlowStart(state);
    }

    double Rc() const { return static_cast<double>(state->GetRate().GetBitRate()); }
    double Rt() const { return static_cast<double>(state->GetTargetRate().GetBitRate()); }

    /// Runs the simulator up to absolute time t.
    void RunUntil(Time t)
    {
        Simulator::Stop(t - Simulator::Now());
        Simulator::Run();
    }

    Ptr<Dcqcn> cc;
    Ptr<RdmaRateState> state;
};

TEST_F(DcqcnTest, FlowsStartAtLineRate)
{
    Make(MicroSeconds(55), 10000000);
    EXPECT_EQ(state->GetRate().GetBitRate(), 100000000000ULL);
    EXPECT_EQ(state->GetTargetRate().GetBitRate(), 100000000000ULL);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0);
}

TEST_F(DcqcnTest, OneCnpCutsByAlphaHalfThenMovesAlpha)
{
    // alpha0 = 0.5 so that both the cut and the EWMA are non-trivial:
    // RT = 100 G; RC = 100 G x (1 - 0.25) = 75 G; alpha = 0.5 (255/256) + 1/256.
    Make(MicroSeconds(55), 10000000, 0.5);
    cc->CnpReceived(state);
    EXPECT_NEAR(Rt(), 100e9, kRateTol);
    EXPECT_NEAR(Rc(), 75e9, kRateTol);
    const double a1 = 0.5 * (1 - kG) + kG;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a1);
    // A second CNP cuts with the updated alpha from the new RC.
    cc->CnpReceived(state);
    EXPECT_NEAR(Rt(), 75e9, kRateTol);
    EXPECT_NEAR(Rc(), 75e9 * (1 - a1 / 2), kRateTol);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a1 * (1 - kG) + kG);
}

TEST_F(DcqcnTest, AlphaDecaysOncePerKWithoutCnp)
{
    Make(Seconds(1), 0); // no increase events in the window
    const Time k = MicroSeconds(55);
    Simulator::Schedule(MicroSeconds(1), [this]() { cc->CnpReceived(state); });
    RunUntil(MicroSeconds(1) + k - NanoSeconds(1));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1.0); // (1-g) 1 + g = 1
    RunUntil(MicroSeconds(1) + k + NanoSeconds(1));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 1 - kG);
    RunUntil(MicroSeconds(1) + 3 * k + NanoSeconds(1));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), std::pow(1 - kG, 3));
    // A CNP restarts the K window: no decay until K after it.
    Simulator::Schedule(MicroSeconds(20), [this]() { cc->CnpReceived(state); });
    const Time cnp2 = Simulator::Now() + MicroSeconds(20);
    const double a2 = std::pow(1 - kG, 3) * (1 - kG) + kG;
    RunUntil(cnp2 + k - NanoSeconds(1));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a2);
    RunUntil(cnp2 + k + NanoSeconds(1));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a2 * (1 - kG));
}

// Two CNPs with alpha = 1 take RC from 100 to 25 G with RT = 50 G: then fast
// recovery halves the gap to RT five times, additive increase adds R_AI =
// 40 Mb/s to RT and halves again.
const double kExpected[] = {
    37.5e9,                     // FR 1: (50 + 25) / 2
    43.75e9,                    // FR 2
    46.875e9,                   // FR 3
    48.4375e9,                  // FR 4
    49.21875e9,                 // FR 5
    (50.04e9 + 49.21875e9) / 2, // AI 1: RT = 50.04 G
};

TEST_F(DcqcnTest, TimerPathFastRecoveryThenAdditive)
{
    const Time t = MicroSeconds(55);
    Make(t, 1000000000000ULL); // byte counter never fires
    cc->CnpReceived(state);
    cc->CnpReceived(state);
    ASSERT_NEAR(Rc(), 25e9, kRateTol);
    ASSERT_NEAR(Rt(), 50e9, kRateTol);
    for (int i = 0; i < 6; ++i)
    {
        RunUntil(t * (i + 1) - NanoSeconds(1));
        double before = Rc();
        RunUntil(t * (i + 1) + NanoSeconds(1));
        EXPECT_NEAR(Rc(), kExpected[i], kRateTol) << "timer event " << i + 1;
        EXPECT_NE(before, Rc());
    }
    EXPECT_NEAR(Rt(), 50.04e9, kRateTol);
    EXPECT_EQ(cc->GetTimerStage(), 6u);
    EXPECT_EQ(cc->GetByteStage(), 0u);
    // AI 2: RT 50.08 G.
    RunUntil(t * 7 + NanoSeconds(1));
    EXPECT_NEAR(Rt(), 50.08e9, kRateTol);
    EXPECT_NEAR(Rc(), (50.08e9 + kExpected[5]) / 2, kRateTol);
}

TEST_F(DcqcnTest, ByteCounterPathFastRecoveryThenAdditive)
{
    Make(Seconds(1), 1000000); // timer never fires in the test; B = 1 MB
    cc->CnpReceived(state);
    cc->CnpReceived(state);
    // Half a counter does nothing; the second half completes one event.
    cc->BytesSent(state, 500000);
    EXPECT_NEAR(Rc(), 25e9, kRateTol);
    cc->BytesSent(state, 500000);
    EXPECT_NEAR(Rc(), kExpected[0], kRateTol);
    for (int i = 1; i < 6; ++i)
    {
        cc->BytesSent(state, 1000000);
        EXPECT_NEAR(Rc(), kExpected[i], kRateTol) << "byte event " << i + 1;
    }
    EXPECT_EQ(cc->GetByteStage(), 6u);
    EXPECT_EQ(cc->GetTimerStage(), 0u);
    // A CNP resets the byte counter: 0.9 MB after it is no event.
    cc->BytesSent(state, 900000);
    cc->CnpReceived(state);
    double afterCut = Rc();
    cc->BytesSent(state, 900000);
    EXPECT_EQ(Rc(), afterCut);
}

TEST_F(DcqcnTest, HyperIncreaseWhenBothCountersPassF)
{
    const Time t = MicroSeconds(10);
    Make(t, 1000000);
    cc->CnpReceived(state);
    cc->CnpReceived(state);
    // Byte stages 1-6 at once: 5 FR, then 1 AI (timer stage 0 <= F).
    cc->BytesSent(state, 6000000);
    double rt = 50.04e9;
    double rc = kExpected[5];
    ASSERT_NEAR(Rc(), rc, kRateTol);
    // Timer stages 1-5: byte stage 6 > F but timer stage <= F: additive.
    for (int i = 1; i <= 5; ++i)
    {
        RunUntil(t * i + NanoSeconds(1));
        rt += 40e6;
        rc = (rt + rc) / 2;
        EXPECT_NEAR(Rt(), rt, kRateTol) << "timer stage " << i;
        EXPECT_NEAR(Rc(), rc, kRateTol) << "timer stage " << i;
    }
    // Timer stage 6: both > F, hyper with i = min(6, 6) - F = 1: RT += R_HAI.
    RunUntil(t * 6 + NanoSeconds(1));
    rt += 400e6;
    rc = (rt + rc) / 2;
    EXPECT_NEAR(Rt(), rt, kRateTol);
    EXPECT_NEAR(Rc(), rc, kRateTol);
    // Byte stage 7: min(6, 7) - F = 1 again.
    cc->BytesSent(state, 1000000);
    rt += 400e6;
    rc = (rt + rc) / 2;
    EXPECT_NEAR(Rt(), rt, kRateTol);
    // Timer stage 7: min(7, 7) - F = 2.
    RunUntil(t * 7 + NanoSeconds(1));
    rt += 2 * 400e6;
    rc = (rt + rc) / 2;
    EXPECT_NEAR(Rt(), rt, kRateTol);
    EXPECT_NEAR(Rc(), rc, kRateTol);
}

TEST_F(DcqcnTest, ReturnsToLineRateAndStopsItsTimers)
{
    Make(MicroSeconds(55), 0);
    const Time k = MicroSeconds(55);
    cc->CnpReceived(state); // at t = 0: alpha = (1-g) 1 + g = 1 exactly
    Simulator::Run(); // returns only if the timers stop once back at line rate
    EXPECT_EQ(state->GetRate().GetBitRate(), 100000000000ULL);
    EXPECT_EQ(state->GetTargetRate().GetBitRate(), 100000000000ULL);
    // No CNP since t = 0: after n whole K periods alpha = (1-g)^n, whether the
    // decays were made by the timer (while limited) or in closed form (parked).
    // 1e-12: n <= 60 multiplications round by 1e-16 each.
    auto periods = [k]() {
        return static_cast<double>(Simulator::Now().GetPicoSeconds() / k.GetPicoSeconds());
    };
    EXPECT_GT(periods(), 5.0) << "the flow must have spent several K limited";
    EXPECT_NEAR(cc->GetAlpha(), std::pow(1 - kG, periods()), 1e-12);
    // Parked for another 1.007 ms (18 more K and a fraction), then a CNP: the
    // cut uses the caught-up alpha, and the EWMA starts from it.
    const Time cnpAt = Simulator::Now() + MicroSeconds(1007);
    RunUntil(cnpAt);
    const double n = periods();
    const double a = std::pow(1 - kG, n);
    EXPECT_NEAR(cc->GetAlpha(), a, 1e-12) << n << " periods";
    cc->CnpReceived(state);
    EXPECT_NEAR(Rc(), kLine * (1 - a / 2), kRateTol);
    EXPECT_NEAR(cc->GetAlpha(), a * (1 - kG) + kG, 1e-12);
}

TEST_F(DcqcnTest, TimerOnlyFastRecoveryOneAdditiveThenConstantHyper)
{
    // Byte counter off (the production preset): the HPCC authors' rdma-hw.cc
    // rule. Steps of that preset at 100 Gb/s: R_AI 5 x 100/25 = 20 Mb/s,
    // R_HAI 50 x 100/25 = 200 Mb/s. Two CNPs: RC 25 G, RT 50 G.
    const Time t = MicroSeconds(55);
    Make(t, 0);
    cc->SetAttribute("AdditiveIncrease", DataRateValue(DataRate("20Mb/s")));
    cc->SetAttribute("HyperIncrease", DataRateValue(DataRate("200Mb/s")));
    cc->CnpReceived(state);
    cc->CnpReceived(state);
    ASSERT_NEAR(Rc(), 25e9, kRateTol);
    // Events 1-5: fast recovery, RT stays 50 G.
    for (int i = 0; i < 5; ++i)
    {
        RunUntil(t * (i + 1) + NanoSeconds(1));
        EXPECT_NEAR(Rc(), kExpected[i], kRateTol) << "timer event " << i + 1;
        EXPECT_NEAR(Rt(), 50e9, kRateTol) << "timer event " << i + 1;
    }
    // Event 6: one additive step, RT 50.02 G. Events 7, 8, 9: hyper, each
    // +200 Mb/s (not 200, 400, 600 Mb/s: no stage multiplier without B).
    double rt = 50e9;
    double rc = kExpected[4];
    const double step[] = {20e6, 200e6, 200e6, 200e6};
    for (int i = 0; i < 4; ++i)
    {
        RunUntil(t * (6 + i) + NanoSeconds(1));
        rt += step[i];
        rc = (rt + rc) / 2;
        EXPECT_NEAR(Rt(), rt, kRateTol) << "timer event " << 6 + i;
        EXPECT_NEAR(Rc(), rc, kRateTol) << "timer event " << 6 + i;
    }
    EXPECT_NEAR(Rt(), 50.62e9, kRateTol);
    EXPECT_EQ(cc->GetTimerStage(), 9u);
    EXPECT_EQ(cc->GetByteStage(), 0u);
}

TEST_F(DcqcnTest, DeferredCutStillResetsTheTimerStageAtTheCnp)
{
    // T = 10 us, byte counter off, at most one cut per 100 us. CNP at 0:
    // RC 50 G, RT 100 G; timer events at 10, 20, 30 us: RC 75, 87.5, 93.75 G.
    Make(MicroSeconds(10), 0);
    cc->SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(100)));
    cc->CnpReceived(state);
    RunUntil(MicroSeconds(35));
    ASSERT_NEAR(Rc(), 93.75e9, kRateTol);
    ASSERT_EQ(cc->GetTimerStage(), 3u);
    // A CNP at 35 us: the cut waits for t = 100 us, but the stage restarts
    // and the timer restarts from 35 us (next event at 45 us, not 40 us).
    cc->CnpReceived(state);
    EXPECT_EQ(cc->GetTimerStage(), 0u);
    EXPECT_NEAR(Rc(), 93.75e9, kRateTol);
    RunUntil(MicroSeconds(41));
    EXPECT_NEAR(Rc(), 93.75e9, kRateTol) << "timer not restarted by the CNP";
    RunUntil(MicroSeconds(46));
    EXPECT_EQ(cc->GetTimerStage(), 1u);
    EXPECT_NEAR(Rc(), 96.875e9, kRateTol); // FR 1 of the new period
    // Events at 55, 65, 75, 85 us (FR 2-5) and 95 us (additive; RT is at
    // the line, so RT stays 100 G): six halvings of the 6.25 G gap since
    // 35 us, RC = 100 G - 6.25 G / 2^6.
    RunUntil(MicroSeconds(99));
    const double before = 100e9 - 6.25e9 / 64;
    EXPECT_NEAR(Rc(), before, kRateTol);
    // The deferred cut at 100 us with alpha at that time: the CNP at 35 us
    // set alpha = 1, one K (55 us) passed at 90 us: alpha = 1 - g.
    RunUntil(MicroSeconds(100) + NanoSeconds(1));
    EXPECT_NEAR(Rt(), before, kRateTol);
    EXPECT_NEAR(Rc(), before * (1 - (1 - kG) / 2), kRateTol);
    EXPECT_EQ(cc->GetTimerStage(), 0u);
}

TEST_F(DcqcnTest, DeferredCutStillResetsTheByteCounterAtTheCnp)
{
    Make(Seconds(1), 1000000); // B = 1 MB; the timer never fires here
    cc->SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(100)));
    cc->CnpReceived(state); // RC 50 G, RT 100 G
    cc->BytesSent(state, 3000000); // byte stages 1-3: RC 75, 87.5, 93.75 G
    cc->BytesSent(state, 500000);  // half a counter
    ASSERT_EQ(cc->GetByteStage(), 3u);
    ASSERT_NEAR(Rc(), 93.75e9, kRateTol);
    RunUntil(MicroSeconds(1));
    cc->CnpReceived(state); // deferred cut; stage and accumulated bytes to 0
    EXPECT_EQ(cc->GetByteStage(), 0u);
    cc->BytesSent(state, 600000); // 0.6 MB since the CNP: no event
    EXPECT_NEAR(Rc(), 93.75e9, kRateTol) << "bytes before the CNP were counted";
    cc->BytesSent(state, 400000); // 1 MB since the CNP: FR 1
    EXPECT_EQ(cc->GetByteStage(), 1u);
    EXPECT_NEAR(Rc(), 96.875e9, kRateTol);
}

TEST_F(DcqcnTest, MinRateAboveTheLineRateIsRejected)
{
    cc = CreateObject<Dcqcn>();
    cc->SetAttribute("MinRate", DataRateValue(DataRate("200Gb/s")));
    state = CreateObject<RdmaRateState>();
    state->SetLineRate(DataRate(static_cast<uint64_t>(kLine)));
    try
    {
        cc->FlowStart(state);
        FAIL() << "MinRate 200 Gb/s accepted on a 100 Gb/s port";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("Dcqcn::MinRate"), std::string::npos) << e.what();
    }
    // MinRate equal to the line rate is legal: a cut leaves RC at the line
    // (the floor), never above it.
    cc->SetAttribute("MinRate", DataRateValue(DataRate("100Gb/s")));
    cc->FlowStart(state);
    cc->CnpReceived(state);
    EXPECT_EQ(state->GetRate().GetBitRate(), 100000000000ULL);
    EXPECT_LE(state->GetTargetRate().GetBitRate(), 100000000000ULL);
}

TEST_F(DcqcnTest, RateNeverBelowMinRate)
{
    Make(Seconds(1), 0);
    for (int i = 0; i < 40; ++i) // 100 G / 2^40 would be 0.09 b/s
    {
        cc->CnpReceived(state);
    }
    EXPECT_EQ(state->GetRate().GetBitRate(), 100000000ULL);
}

TEST_F(DcqcnTest, RateDecreaseIntervalDefersSecondCut)
{
    Make(Seconds(1), 0);
    cc->SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(4)));
    cc->CnpReceived(state); // cut at 0: 100 -> 50 G
    cc->CnpReceived(state); // within 4 us: deferred to t = 4 us
    EXPECT_NEAR(Rc(), 50e9, kRateTol);
    RunUntil(MicroSeconds(4) + NanoSeconds(1));
    EXPECT_NEAR(Rc(), 25e9, kRateTol); // alpha still 1 after two CNPs
}

TEST_F(DcqcnTest, NotificationPointPacesCnpsPerN)
{
    Make(Seconds(1), 0);
    auto rx = CreateObject<RdmaRateState>();
    EXPECT_FALSE(cc->DataReceived(rx, false));
    EXPECT_TRUE(cc->DataReceived(rx, true));
    RunUntil(MicroSeconds(49));
    EXPECT_FALSE(cc->DataReceived(rx, true)); // N = 50 us not over
    RunUntil(MicroSeconds(50));
    EXPECT_TRUE(cc->DataReceived(rx, true));
}

TEST_F(DcqcnTest, CnpPacingPerFlowOrPerPort)
{
    auto proto = CreateObject<Dcqcn>();
    auto rx = CreateObject<RdmaRateState>();
    auto a = proto->Fork();
    auto b = proto->Fork();
    EXPECT_TRUE(a->DataReceived(rx, true));
    EXPECT_TRUE(b->DataReceived(rx, true)); // per flow: independent clocks
    proto->SetAttribute("CnpPerPort", BooleanValue(true));
    auto c = proto->Fork();
    auto d = proto->Fork();
    EXPECT_TRUE(c->DataReceived(rx, true));
    EXPECT_FALSE(d->DataReceived(rx, true)); // one clock for the port
}

TEST_F(DcqcnTest, PresetsSetTheirValues)
{
    auto cc1 = CreateObject<Dcqcn>();
    cc1->ApplyPreset("production", DataRate("100Gb/s"));
    DataRateValue v;
    cc1->GetAttribute("AdditiveIncrease", v);
    EXPECT_EQ(v.Get().GetBitRate(), 20000000ULL); // 5 x 100 / 25 Mb/s
    cc1->GetAttribute("HyperIncrease", v);
    EXPECT_EQ(v.Get().GetBitRate(), 200000000ULL); // 50 x 100 / 25 Mb/s
    TimeValue tv;
    cc1->GetAttribute("RateIncreaseInterval", tv);
    EXPECT_EQ(tv.Get(), MicroSeconds(300));
    auto m = Dcqcn::PresetMarking("production", DataRate("100Gb/s"));
    EXPECT_EQ(m.kminBytes, 400000u); // 100 x 100 / 25 KB
    EXPECT_EQ(m.kmaxBytes, 1600000u);
    EXPECT_DOUBLE_EQ(m.pmax, 0.2);
    auto mp = Dcqcn::PresetMarking("paper", DataRate("40Gb/s"));
    EXPECT_EQ(mp.kminBytes, 5000u);
    EXPECT_EQ(mp.kmaxBytes, 200000u);
    cc1->ApplyPreset("connectx", DataRate("400Gb/s"));
    DoubleValue g;
    cc1->GetAttribute("G", g);
    EXPECT_DOUBLE_EQ(g.Get(), 5.0 / 1024);
    UintegerValue f;
    cc1->GetAttribute("FastRecoverySteps", f);
    EXPECT_EQ(f.Get(), 1u);
    EnumValue e;
    cc1->GetAttribute("RateDecrease", e);
    EXPECT_EQ(e.Get(), Dcqcn::PERIODIC_CHECK);
    cc1->GetAttribute("AlphaUpdate", e);
    EXPECT_EQ(e.Get(), Dcqcn::ALPHA_PER_INTERVAL);
    cc1->GetAttribute("Notification", e);
    EXPECT_EQ(e.Get(), Dcqcn::CNP_PACKET);
    // production: the HPCC authors' run.py values, not the paper's.
    cc1->ApplyPreset("production", DataRate("100Gb/s"));
    cc1->GetAttribute("FastRecoverySteps", f);
    EXPECT_EQ(f.Get(), 1u); // FAST_RECOVERY_TIMES 1
    cc1->GetAttribute("MinRate", v);
    EXPECT_EQ(v.Get().GetBitRate(), 1000000000ULL); // MIN_RATE 1000Mb/s
    BooleanValue clamp;
    cc1->GetAttribute("ClampTargetRate", clamp);
    EXPECT_FALSE(clamp.Get()); // CLAMP_TARGET_RATE 0
    cc1->GetAttribute("Notification", e);
    EXPECT_EQ(e.Get(), Dcqcn::ACK_ECHO); // the ACK carries the CNP bit
    cc1->GetAttribute("RateDecrease", e);
    EXPECT_EQ(e.Get(), Dcqcn::PERIODIC_CHECK);
    cc1->GetAttribute("AlphaUpdate", e);
    EXPECT_EQ(e.Get(), Dcqcn::ALPHA_PER_INTERVAL);
    // paper: the defaults of the three choices.
    cc1->ApplyPreset("paper", DataRate("100Gb/s"));
    cc1->GetAttribute("RateDecrease", e);
    EXPECT_EQ(e.Get(), Dcqcn::CUT_ON_CNP);
    cc1->GetAttribute("AlphaUpdate", e);
    EXPECT_EQ(e.Get(), Dcqcn::ALPHA_PER_CNP);
    cc1->GetAttribute("Notification", e);
    EXPECT_EQ(e.Get(), Dcqcn::CNP_PACKET);
}

TEST_F(DcqcnTest, PeriodicCheckCutsOnlyAtTheCheck)
{
    // RateDecreaseInterval 4 us, alpha 1 (K 55 us: no decay here). OnCnp: the
    // CNP at 0 cuts at once to 100 G x (1 - 1/2) = 50 G.
    Make(Seconds(1), 0);
    cc->SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(4)));
    cc->CnpReceived(state);
    EXPECT_NEAR(Rc(), 50e9, kRateTol);
    // PeriodicCheck: the same CNP only arms the check at 4 us.
    Make(Seconds(1), 0);
    cc->SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(4)));
    cc->SetAttribute("RateDecrease", EnumValue(Dcqcn::PERIODIC_CHECK));
    cc->CnpReceived(state);
    EXPECT_NEAR(Rc(), 100e9, kRateTol);
    RunUntil(MicroSeconds(4) - NanoSeconds(1));
    EXPECT_NEAR(Rc(), 100e9, kRateTol);
    RunUntil(MicroSeconds(4) + NanoSeconds(1));
    EXPECT_NEAR(Rc(), 50e9, kRateTol);
    // Two CNPs at 5 and 6 us: one cut, at the check of 8 us (the grid of
    // the first CNP), 50 -> 25 G; the CNPs reset no increase stage.
    RunUntil(MicroSeconds(5));
    cc->CnpReceived(state);
    RunUntil(MicroSeconds(6));
    cc->CnpReceived(state);
    RunUntil(MicroSeconds(8) - NanoSeconds(1));
    EXPECT_NEAR(Rc(), 50e9, kRateTol);
    RunUntil(MicroSeconds(8) + NanoSeconds(1));
    EXPECT_NEAR(Rc(), 25e9, kRateTol);
    // No CNP since: the check at 12 us does not cut.
    RunUntil(MicroSeconds(13));
    EXPECT_NEAR(Rc(), 25e9, kRateTol);
}

TEST_F(DcqcnTest, AlphaPerIntervalMovesOncePerK)
{
    // K = 10 us, alpha0 = 0.5, no cuts (RateDecrease PeriodicCheck with a
    // 1 s interval) so that only alpha moves. CNPs at 0 (starts the clock,
    // alpha stays 0.5), 3 and 6 us: the tick at 10 us moves alpha up once,
    // a1 = 0.5 (1-g) + g; no CNP in [10, 20): at 20 us a1 (1-g).
    Make(Seconds(1), 0, 0.5);
    cc->SetAttribute("AlphaInterval", TimeValue(MicroSeconds(10)));
    cc->SetAttribute("RateDecreaseInterval", TimeValue(Seconds(1)));
    cc->SetAttribute("RateDecrease", EnumValue(Dcqcn::PERIODIC_CHECK));
    cc->SetAttribute("AlphaUpdate", EnumValue(Dcqcn::ALPHA_PER_INTERVAL));
    cc->CnpReceived(state);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 0.5);
    RunUntil(MicroSeconds(3));
    cc->CnpReceived(state);
    RunUntil(MicroSeconds(6));
    cc->CnpReceived(state);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), 0.5);
    RunUntil(MicroSeconds(10) + NanoSeconds(1));
    const double a1 = 0.5 * (1 - kG) + kG;
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a1);
    RunUntil(MicroSeconds(20) + NanoSeconds(1));
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), a1 * (1 - kG));
    // PerCnp, the same CNPs: three EWMA steps at once.
    Make(Seconds(1), 0, 0.5);
    cc->SetAttribute("AlphaInterval", TimeValue(MicroSeconds(10)));
    cc->SetAttribute("RateDecreaseInterval", TimeValue(Seconds(1)));
    cc->SetAttribute("RateDecrease", EnumValue(Dcqcn::PERIODIC_CHECK));
    const Time t0 = Simulator::Now();
    cc->CnpReceived(state);
    RunUntil(t0 + MicroSeconds(3));
    cc->CnpReceived(state);
    RunUntil(t0 + MicroSeconds(6));
    cc->CnpReceived(state);
    EXPECT_DOUBLE_EQ(cc->GetAlpha(), (a1 * (1 - kG) + kG) * (1 - kG) + kG);
}

TEST_F(DcqcnTest, AckEchoIsTheCnp)
{
    // CnpPacket (default): a CE-marked arrival asks for a CNP; an ACK with
    // the echo changes nothing.
    Make(Seconds(1), 0);
    auto rx = CreateObject<RdmaRateState>();
    RdmaAckSample echo;
    echo.ecnEcho = true;
    EXPECT_TRUE(cc->DataReceived(rx, true));
    cc->AckReceived(state, echo);
    EXPECT_NEAR(Rc(), 100e9, kRateTol);
    // AckEcho: no CNP packets; the echo cuts like a CNP (alpha 1: 50 G), an
    // ACK without it does not.
    Make(Seconds(1), 0);
    cc->SetAttribute("Notification", EnumValue(Dcqcn::ACK_ECHO));
    EXPECT_FALSE(cc->DataReceived(rx, true));
    RdmaAckSample plain;
    cc->AckReceived(state, plain);
    EXPECT_NEAR(Rc(), 100e9, kRateTol);
    cc->AckReceived(state, echo);
    EXPECT_NEAR(Rc(), 50e9, kRateTol);
}

TEST_F(DcqcnTest, ProductionPresetFollowsTheHpccSequence)
{
    // dcqcn:production at 100 Gb/s, one echo at t = 0 and none after: alpha
    // stays 1 at the first CNP and decays at the ticks of 1, 2, 3 and 4 us;
    // the check at 4 us (after the tick of that instant) cuts with
    // a = (1-g)^4: RC = 100 G (1 - a/2); RT stays 100 G (first cut). Then the
    // 300 us timer: event 1 fast recovery (F = 1), RC = (RT + RC) / 2.
    cc = CreateObject<Dcqcn>();
    cc->ApplyPreset("production", DataRate("100Gb/s"));
    state = CreateObject<RdmaRateState>();
    state->SetLineRate(DataRate(static_cast<uint64_t>(kLine)));
    cc->FlowStart(state);
    const Time t0 = Simulator::Now();
    RdmaAckSample echo;
    echo.ecnEcho = true;
    cc->AckReceived(state, echo);
    RunUntil(t0 + MicroSeconds(4) - NanoSeconds(1));
    EXPECT_NEAR(Rc(), 100e9, kRateTol);
    RunUntil(t0 + MicroSeconds(4) + NanoSeconds(1));
    const double a = std::pow(1 - kG, 4);
    const double rc = 100e9 * (1 - a / 2);
    EXPECT_NEAR(Rc(), rc, kRateTol);
    EXPECT_NEAR(Rt(), 100e9, kRateTol);
    RunUntil(t0 + MicroSeconds(304) + NanoSeconds(1));
    EXPECT_NEAR(Rc(), (100e9 + rc) / 2, kRateTol);
}

TEST_F(DcqcnTest, BadInputNamesTheField)
{
    auto c = CreateObject<Dcqcn>();
    try
    {
        c->ApplyPreset("fast", DataRate("100Gb/s"));
        FAIL() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("preset"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'fast'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(c->ApplyPreset("paper", DataRate(0)), std::invalid_argument);
    try
    {
        c->SetAttribute("AlphaInterval", TimeValue(MicroSeconds(-5)));
        FAIL() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("Dcqcn::AlphaInterval"), std::string::npos);
    }
    EXPECT_THROW(c->SetAttribute("RateIncreaseInterval", TimeValue(Time(0))),
                 std::invalid_argument);
    EXPECT_THROW(c->SetAttribute("CnpInterval", TimeValue(MicroSeconds(-1))),
                 std::invalid_argument);
    EXPECT_THROW(c->SetAttribute("G", DoubleValue(0.0)), std::invalid_argument);
}

} // namespace
