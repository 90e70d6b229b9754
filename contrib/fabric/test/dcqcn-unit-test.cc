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
    cc->CnpReceived(state);
    Simulator::Run(); // returns only if the timers stop once back at line rate
    EXPECT_EQ(state->GetRate().GetBitRate(), 100000000000ULL);
    EXPECT_EQ(state->GetTargetRate().GetBitRate(), 100000000000ULL);
    // alpha went on decaying in closed form while parked: 1 ms later it is
    // (1-g)^floor((now - last tick)/K) below its parked value, never above.
    EXPECT_LT(cc->GetAlpha(), 1.0);
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
