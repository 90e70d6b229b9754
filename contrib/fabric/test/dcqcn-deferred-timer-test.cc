// SPDX-License-Identifier: GPL-2.0-only
//
// Deferred DCQCN timers (Dcqcn::Pause / Resume, RdmaNic::
// PauseIdleCongestionControl): while a QP has nothing to send, what its
// alpha, increase and decrease timers re-arm is not an event (the events
// pending at the pause still run); those ticks are replayed at the next
// input, before a pending event, or at the resume. Checked against a second method, the same algorithm with
// its timers run as events all along: two forks fed the same inputs at the
// same times must hold the same RC, RT, alpha and stages to the last bit, in
// every variant (paper, production, connectx); and a congested star whose
// QPs go idle and send again must give the same completions to the
// picosecond with fewer events.
#include "dcqcn.h"
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include "tie-keyed-events.h"

#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <functional>
#include <string>
#include <vector>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

// Rates are whole bit/s; a handful of rounded steps stays within 4 b/s.
constexpr double kRateTol = 4.0;

class DcqcnDeferredTimerTest : public hockney::SimulatorTest
{
};

/// An input delivered at `at`, scheduled 100 ns before (as a packet's
/// arrival is scheduled a link delay ahead), less than the shortest timer
/// interval (1 us): a tick due at the same instant, armed one interval
/// before, runs first with its timers as events, as it does replayed.
void
At(Time at, std::function<void()> f)
{
    Simulator::Schedule(at - NanoSeconds(100), [at, f]() { Simulator::Schedule(at - Simulator::Now(), f); });
}

struct Snapshot
{
    uint64_t rc;
    uint64_t rt;
    double alpha;
    uint32_t timerStage;
    uint32_t byteStage;
};

Snapshot
Read(Ptr<Dcqcn> cc, Ptr<RdmaRateState> st)
{
    // Alpha and the stages first: reading them replays a paused fork's
    // ticks, after which its rate state is current too.
    const double alpha = cc->GetAlpha();
    const uint32_t ts = cc->GetTimerStage();
    const uint32_t bs = cc->GetByteStage();
    return {st->GetRate().GetBitRate(), st->GetTargetRate().GetBitRate(), alpha, ts, bs};
}

/// The live fork's and the paused fork's readings, equal to the bit.
void
ExpectSameSnapshots(const std::vector<Snapshot>& a, const std::vector<Snapshot>& b, size_t n)
{
    ASSERT_EQ(a.size(), n);
    ASSERT_EQ(b.size(), n);
    for (size_t i = 0; i < n; ++i)
    {
        EXPECT_EQ(a[i].rc, b[i].rc) << i;
        EXPECT_EQ(a[i].rt, b[i].rt) << i;
        EXPECT_EQ(a[i].alpha, b[i].alpha) << i;
        EXPECT_EQ(a[i].timerStage, b[i].timerStage) << i;
    }
}

struct Twin
{
    Ptr<Dcqcn> cc;
    Ptr<RdmaRateState> st;
};

Twin
MakeTwin(Ptr<Dcqcn> proto)
{
    Twin t{DynamicCast<Dcqcn>(proto->Fork()), CreateObject<RdmaRateState>()};
    t.st->SetLineRate(DataRate("100Gbps"));
    t.cc->FlowStart(t.st);
    return t;
}

/// Drives a fork that runs its timers as events (`live`) and one paused
/// whenever its QP would be idle (`lazy`) through the same inputs, and
/// compares them at every input and at sampling instants between.
void
RunTwins(const std::string& preset, Time k)
{
    SCOPED_TRACE(preset);
    Ptr<Dcqcn> proto = CreateObject<Dcqcn>();
    proto->ApplyPreset(preset, DataRate("100Gbps"));
    Twin live = MakeTwin(proto);
    Twin lazy = MakeTwin(proto);
    std::vector<std::string> mismatches;
    auto compare = [&](const char* what) {
        const Snapshot a = Read(live.cc, live.st);
        const Snapshot b = Read(lazy.cc, lazy.st);
        if (a.rc != b.rc || a.rt != b.rt || a.alpha != b.alpha || a.timerStage != b.timerStage ||
            a.byteStage != b.byteStage)
        {
            mismatches.push_back(std::string(what) + " at " +
                                 std::to_string(Simulator::Now().GetPicoSeconds()) + " ps: RC " +
                                 std::to_string(a.rc) + "/" + std::to_string(b.rc) + " RT " +
                                 std::to_string(a.rt) + "/" + std::to_string(b.rt) + " alpha " +
                                 std::to_string(a.alpha) + "/" + std::to_string(b.alpha));
        }
    };
    auto both = [&](const char* what, std::function<void(Twin&)> f) {
        f(live);
        f(lazy);
        compare(what);
    };
    auto cnp = [](Twin& t) {
        // A CNP packet, or with Notification AckEcho the ACK that echoes CE.
        t.cc->CnpReceived(t.st);
        RdmaAckSample s;
        s.ecnEcho = true;
        t.cc->AckReceived(t.st, s);
    };
    auto send = [](Twin& t) { t.cc->BytesSent(t.st, 4178); };
    // Busy from 0: a burst of CNPs while sending (a packet each 0.5 us).
    At(MicroSeconds(2), [&]() { both("cnp", cnp); });
    for (int i = 0; i < 40; ++i)
    {
        At(MicroSeconds(3) + NanoSeconds(500 * i), [&]() { both("send", send); });
    }
    At(MicroSeconds(9), [&]() { both("cnp", cnp); });
    At(MicroSeconds(15), [&]() { both("cnp", cnp); });
    // The QP's last message is acknowledged at 25 us: paused.
    At(MicroSeconds(25), [&]() { lazy.cc->Pause(lazy.st); });
    // A late CNP while paused, exactly on a tick re-armed while paused
    // (15 + 3 T: the increase timer's with paper, the alpha timer's grid
    // with production and connectx), delivered by an event without a tie
    // key scheduled after that tick was armed: the tick runs first both
    // ways. And one between ticks.
    At(MicroSeconds(15) + 3 * k, [&]() { both("late cnp on a tick", cnp); });
    At(MicroSeconds(15) + 3 * k + MicroSeconds(7), [&]() { both("late cnp", cnp); });
    // Samples while paused (between ticks), then work again at 40 K:
    // resumed, sending 400 packets (1.67 MB, past the connectx byte counter).
    for (int i = 1; i < 12; ++i)
    {
        At(MicroSeconds(25) + k * (3 * i) + NanoSeconds(333), [&]() { compare("sample"); });
    }
    const Time back = k * 40 + MicroSeconds(31);
    At(back, [&]() {
        lazy.cc->Resume(lazy.st);
        compare("resume");
    });
    for (int i = 0; i < 400; ++i)
    {
        At(back + NanoSeconds(100) + NanoSeconds(340 * i), [&]() { both("send", send); });
    }
    At(back + MicroSeconds(50), [&]() { both("cnp", cnp); });
    const Time idle = back + MicroSeconds(200);
    At(idle, [&]() { lazy.cc->Pause(lazy.st); });
    // Idle for 200 K, then read once (an observer, or the next post).
    At(idle + k * 200 + NanoSeconds(1), [&]() { compare("after a long idle"); });
    // The end, between ticks: the live fork's timers run until then, the
    // paused fork's are replayed by the final reads.
    Simulator::Stop(idle + k * 300 + NanoSeconds(7));
    Simulator::Run();
    compare("end");
    EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " mismatches, first: "
                                    << (mismatches.empty() ? "" : mismatches.front());
    // The paused fork ran fewer timer events and replayed the rest; a
    // replayed tick was due at the very instant of the late CNP.
    EXPECT_LT(lazy.cc->GetTimerEvents(), live.cc->GetTimerEvents());
    EXPECT_GE(lazy.cc->GetTiedTicks(), 1u);
    EXPECT_EQ(lazy.cc->GetTiesLeft(), 0u);
    EXPECT_GT(lazy.cc->GetReplayedTicks(), 0u);
    EXPECT_EQ(live.cc->GetReplayedTicks(), 0u);
    EXPECT_EQ(lazy.cc->GetTimerEvents() + lazy.cc->GetReplayedTicks(), live.cc->GetTimerEvents())
        << "every tick runs once, as an event or replayed";
    live.cc->Dispose();
    lazy.cc->Dispose();
}

TEST_F(DcqcnDeferredTimerTest, PausedForkMatchesLiveForkPaper)
{
    RunTwins("paper", MicroSeconds(55)); // T = K = 55 us
}

TEST_F(DcqcnDeferredTimerTest, PausedForkMatchesLiveForkProduction)
{
    RunTwins("production", MicroSeconds(300)); // T = 300 us, K = 1 us, periodic check
}

TEST_F(DcqcnDeferredTimerTest, PausedForkMatchesLiveForkConnectx)
{
    RunTwins("connectx", MicroSeconds(300)); // byte counter, per-port CNP pacing
}

TEST_F(DcqcnDeferredTimerTest, PausedForkRunsOnlyItsPendingEvents)
{
    Ptr<Dcqcn> proto = CreateObject<Dcqcn>();
    Twin t = MakeTwin(proto);
    t.cc->CnpReceived(t.st); // cut to 50 Gb/s: alpha and increase timers armed
    EXPECT_EQ(t.st->GetRate(), DataRate("50Gbps"));
    t.cc->Pause(t.st);
    // The two pending events run (at T = K = 55 us, keeping their place
    // among the events of that instant); the timers they re-arm are not
    // events, so the run ends there.
    Simulator::Run();
    EXPECT_EQ(Simulator::Now(), MicroSeconds(55));
    EXPECT_EQ(t.cc->GetTimerEvents(), 2u);
    EXPECT_EQ(t.cc->GetReplayedTicks(), 0u);
    // Read at 4 T + 1 ns: four increase ticks of fast recovery, each
    // halving the distance to RT = 100 Gb/s: RC = 100 - 50 / 2^4 Gb/s.
    Simulator::Schedule(MicroSeconds(4 * 55) + NanoSeconds(1) - Simulator::Now(), [&]() {
        EXPECT_EQ(t.cc->GetTimerStage(), 4u);
        EXPECT_EQ(t.st->GetRate(), DataRate("96875000000bps"));
    });
    Simulator::Run();
    EXPECT_EQ(t.cc->GetTimerEvents(), 2u);
    EXPECT_EQ(t.cc->GetReplayedTicks(), 6u); // three increase and three alpha ticks
    t.cc->Dispose();
}

TEST_F(DcqcnDeferredTimerTest, KeyedInputRunsBeforeTheTicksOfItsInstant)
{
    // The schedulers order the events of one instant keyed first (the
    // fabric's packet arrivals carry tie keys), then the others (timer
    // ticks) by uid. A CNP arriving exactly on a tick of a paused fork must
    // run before the tick, as it does with the tick as an event: the cut
    // then uses RC before that increase (and cancels the tick). Replayed
    // first instead, RC would differ by the increase.
    ObjectFactory queue("ns3::RingCalendarScheduler");
    Simulator::SetScheduler(queue);
    Ptr<Dcqcn> proto = CreateObject<Dcqcn>(); // paper: T = K = 55 us
    Twin live = MakeTwin(proto);
    Twin lazy = MakeTwin(proto);
    Simulator::Schedule(MicroSeconds(2), [&]() {
        live.cc->CnpReceived(live.st);
        lazy.cc->CnpReceived(lazy.st); // ticks at 57, 112, ... us
    });
    Simulator::Schedule(MicroSeconds(10), [&]() { lazy.cc->Pause(lazy.st); });
    const Time tick = MicroSeconds(2 + 2 * 55);
    Simulator::Schedule(tick - NanoSeconds(100), [&]() {
        SchedulerTieKey key(SchedulerTieKey::kFirstMajor, 1); // a link arrival's key
        Simulator::Schedule(NanoSeconds(100), [&]() {
            live.cc->CnpReceived(live.st);
            lazy.cc->CnpReceived(lazy.st);
        });
    });
    std::vector<Snapshot> a;
    std::vector<Snapshot> b;
    for (Time t : {tick + NanoSeconds(1), tick + MicroSeconds(300) + NanoSeconds(1)})
    {
        Simulator::Schedule(t, [&]() {
            a.push_back(Read(live.cc, live.st));
            b.push_back(Read(lazy.cc, lazy.st));
        });
    }
    Simulator::Run();
    ExpectSameSnapshots(a, b, 2);
    // By hand: cut at 2 us to 50 Gb/s (alpha 1), one fast-recovery step at
    // 57 us to 75 Gb/s (RT 100), then the cut at 112 us from 75 Gb/s, before
    // the tick of that instant: alpha after one K of decay and the CNP at 2
    // us is (1-g)^1 = 255/256; RC = 75 (1 - alpha/2) Gb/s.
    const double alpha = 255.0 / 256;
    EXPECT_NEAR(static_cast<double>(a[0].rc), 75e9 * (1 - alpha / 2), kRateTol);
    EXPECT_EQ(lazy.cc->GetTiesLeft(), 1u);
    EXPECT_EQ(lazy.cc->GetTiedTicks(), 0u);
    live.cc->Dispose();
    lazy.cc->Dispose();
}

TEST_F(DcqcnDeferredTimerTest, ReplayedTickCancelsAPendingEventAsItWould)
{
    // Paused right after a cut: the alpha timer's event (K = 1 ms) stays
    // pending; the increase timer (T = 10 us, timer only) is re-armed
    // without events and brings RC back to the line rate at about 0.4 ms,
    // where ParkIfAtLineRate disarms the alpha timer. With timers as events
    // that cancels the alpha event; paused, the event still comes at 1 ms,
    // replays the increase ticks due before it first, finds itself
    // disarmed and does nothing. Every tick runs once, as an event or
    // replayed, in both forks.
    Ptr<Dcqcn> proto = CreateObject<Dcqcn>();
    proto->SetAttribute("AlphaInterval", TimeValue(MilliSeconds(1)));
    proto->SetAttribute("RateIncreaseInterval", TimeValue(MicroSeconds(10)));
    proto->SetAttribute("ByteCounter", UintegerValue(0));
    Twin live = MakeTwin(proto);
    Twin lazy = MakeTwin(proto);
    Simulator::Schedule(MicroSeconds(3), [&]() {
        live.cc->CnpReceived(live.st);
        lazy.cc->CnpReceived(lazy.st);
        lazy.cc->Pause(lazy.st);
    });
    Snapshot a{};
    Snapshot b{};
    Simulator::Schedule(MilliSeconds(3), [&]() {
        a = Read(live.cc, live.st);
        b = Read(lazy.cc, lazy.st);
    });
    Simulator::Run();
    EXPECT_EQ(a.rc, 100000000000ULL) << "the flow must be back at the line rate";
    EXPECT_EQ(a.rc, b.rc);
    EXPECT_EQ(a.rt, b.rt);
    EXPECT_EQ(a.alpha, b.alpha);
    EXPECT_EQ(a.timerStage, b.timerStage);
    EXPECT_GT(lazy.cc->GetReplayedTicks(), 10u);
    EXPECT_EQ(lazy.cc->GetTimerEvents() + lazy.cc->GetReplayedTicks(), live.cc->GetTimerEvents());
    live.cc->Dispose();
    lazy.cc->Dispose();
}

TEST_F(DcqcnDeferredTimerTest, InputBeforeAPendingEventOfItsInstantRunsFirst)
{
    // T = 27.5 us, K = 55 us, cut at 2 us, paused at 10 us: the increase
    // event at 29.5 us runs and re-arms without an event for 57 us; the
    // alpha event armed at 2 us is still pending for 57 us. A CNP scheduled
    // at the start for 57 us runs there before both ticks (it was scheduled
    // before either was armed): the paused fork must not replay the
    // increase tick due at 57 us before it, since a tick armed earlier
    // (alpha's) is still to come after it.
    Ptr<Dcqcn> proto = CreateObject<Dcqcn>();
    proto->SetAttribute("RateIncreaseInterval", TimeValue(NanoSeconds(27500)));
    Twin live = MakeTwin(proto);
    Twin lazy = MakeTwin(proto);
    Simulator::Schedule(MicroSeconds(57), [&]() {
        live.cc->CnpReceived(live.st);
        lazy.cc->CnpReceived(lazy.st);
    });
    Simulator::Schedule(MicroSeconds(2), [&]() {
        live.cc->CnpReceived(live.st);
        lazy.cc->CnpReceived(lazy.st);
    });
    Simulator::Schedule(MicroSeconds(10), [&]() { lazy.cc->Pause(lazy.st); });
    std::vector<Snapshot> a;
    std::vector<Snapshot> b;
    for (Time t : {MicroSeconds(57) + NanoSeconds(1), MicroSeconds(500) + NanoSeconds(1)})
    {
        Simulator::Schedule(t, [&]() {
            a.push_back(Read(live.cc, live.st));
            b.push_back(Read(lazy.cc, lazy.st));
        });
    }
    Simulator::Run();
    ExpectSameSnapshots(a, b, 2);
    EXPECT_EQ(lazy.cc->GetTiesLeft(), 1u);
    EXPECT_EQ(lazy.cc->GetTiedTicks(), 0u);
    live.cc->Dispose();
    lazy.cc->Dispose();
}

struct StarRun
{
    std::vector<int64_t> completions; ///< every send and receive completion, ps, in order
    uint64_t cnps{0};
    uint64_t marks{0};
    uint64_t paused{0};
    uint64_t events{0};
};

/// An 8-to-1 incast of 1 MB on a DCQCN star (preset `preset`); each sender
/// posts 256 KB more on the same QP 50-400 us after its first message
/// completes, while its timers still run (its rate not back at line rate).
StarRun
RunStar(const std::string& preset, bool pause)
{
    FabricLinkConfig cfg = RdmaLink();
    cfg = WithEcnMarking(cfg, Dcqcn::PresetMarking(preset, cfg.rate));
    Star s = MakeStar(9, cfg);
    for (auto& nic : s.nics)
    {
        Ptr<Dcqcn> cc = CreateObject<Dcqcn>();
        cc->ApplyPreset(preset, cfg.rate);
        nic->SetCongestionControl(cc);
        nic->SetAttribute("PauseIdleCongestionControl", BooleanValue(pause));
    }
    AttachAll(s);
    s.sw->AssignStreams(11);
    StarRun r;
    auto log = MakeCallback(+[](std::vector<int64_t>* v, const RdmaCompletion&) {
        v->push_back(Simulator::Now().GetPicoSeconds());
    }).Bind(&r.completions);
    s.nics[0]->SetReceiveCompletionCallback(log);
    for (uint32_t i = 1; i < 9; ++i)
    {
        auto [q, q0] = RdmaNic::Connect(s.nics[i], s.nics[0], 3);
        // A plain pointer: the callback is the NIC's own (a Ptr would keep
        // the NIC alive through itself).
        RdmaNic* nic = PeekPointer(s.nics[i]);
        auto again = [&r, nic, q = q, i](const RdmaCompletion&) {
            r.completions.push_back(Simulator::Now().GetPicoSeconds());
            if (nic->GetCounters().messagesPosted == 1)
            {
                Simulator::Schedule(MicroSeconds(50 * i), [nic, q]() { nic->PostSend(q, 256000, true, 0); });
            }
        };
        nic->SetSendCompletionCallback(Callback<void, const RdmaCompletion&>(again));
        nic->PostSend(q, 1000000, true, 0);
    }
    Simulator::Run();
    r.events = Simulator::GetEventCount();
    r.marks = s.sw->GetPort(s.links[0].portB)->GetCounters().ecnMarks;
    for (auto& nic : s.nics)
    {
        r.cnps += nic->GetCounters().cnpsReceived;
        r.paused += nic->GetCcStateCounts().paused;
    }
    Simulator::Destroy();
    return r;
}

TEST_F(DcqcnDeferredTimerTest, PausedAndLiveTimersRunTheSameSimulation)
{
    for (const char* preset : {"paper", "production", "connectx"})
    {
        SCOPED_TRACE(preset);
        const StarRun paused = RunStar(preset, true);
        const StarRun live = RunStar(preset, false);
        // 8 first and 8 second messages, each completing at both ends.
        ASSERT_EQ(paused.completions.size(), 4u * 8);
        EXPECT_EQ(paused.completions, live.completions);
        // Marked (production echoes the marks on ACKs; the others send CNPs).
        EXPECT_GT(paused.marks, 0u) << "the incast must congest, or the comparison shows little";
        EXPECT_EQ(paused.marks, live.marks);
        EXPECT_EQ(paused.cnps, live.cnps);
        EXPECT_EQ(live.paused, 0u);
        EXPECT_GE(paused.paused, 8u); // every sender between and after its messages
        EXPECT_LT(paused.events, live.events);
    }
}

} // namespace
