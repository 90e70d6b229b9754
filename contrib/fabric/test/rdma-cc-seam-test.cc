// SPDX-License-Identifier: GPL-2.0-only
//
// The congestion-control seam with a second algorithm defined here: a fixed
// rate per QP, registered by name and selected through RdmaHelper like DCQCN.
// Two QPs paced at a quarter of the link finish at the times worked out by
// hand, and the per-ACK hook sees the message's bytes and the round trip.
#include "rdma-helper.h"
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

struct AckRecord
{
    uint32_t qpn;
    RdmaAckSample sample;
    Time at;
};

/// Every QP sends at the Rate attribute and, if set, with the Window
/// attribute as its bytes-in-flight cap; records each ACK sample.
class FixedRateCc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FixedRateCc")
                                .SetParent<RdmaCongestionControl>()
                                .SetGroupName("Fabric")
                                .AddConstructor<FixedRateCc>()
                                .AddAttribute("Rate",
                                              "Sending rate of every QP",
                                              DataRateValue(DataRate("1Gbps")),
                                              MakeDataRateAccessor(&FixedRateCc::m_rate),
                                              MakeDataRateChecker())
                                .AddAttribute("Window",
                                              "Bytes in flight per QP (0: none)",
                                              UintegerValue(0),
                                              MakeUintegerAccessor(&FixedRateCc::m_window),
                                              MakeUintegerChecker<uint64_t>())
                                .AddAttribute("TimeoutAfter",
                                              "Line rate and no window after this long (0: never)",
                                              TimeValue(Time(0)),
                                              MakeTimeAccessor(&FixedRateCc::m_timeoutAfter),
                                              MakeTimeChecker());
        return tid;
    }

    std::string GetName() const override { return "FixedRate"; }

    Ptr<RdmaCongestionControl> Fork() const override
    {
        Ptr<FixedRateCc> c = CreateObject<FixedRateCc>();
        c->m_rate = m_rate;
        c->m_window = m_window;
        c->m_timeoutAfter = m_timeoutAfter;
        c->m_log = m_log;
        c->m_ceMarked = m_ceMarked;
        return c;
    }

    void FlowStart(Ptr<RdmaRateState> state) override
    {
        state->SetTargetRate(m_rate);
        state->SetRate(m_rate);
        state->SetWindow(m_window);
        if (m_timeoutAfter.IsStrictlyPositive())
        {
            ScheduleTimeout(state, m_timeoutAfter);
        }
    }

    void AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample) override
    {
        m_log->push_back({state->qpNumber, sample, Simulator::Now()});
    }

    void Timeout(Ptr<RdmaRateState> state) override
    {
        state->SetRate(state->GetLineRate());
        state->SetWindow(0);
    }

    bool DataReceived(Ptr<RdmaRateState> state, bool ceMarked) override
    {
        *m_ceMarked += ceMarked ? 1 : 0;
        return false;
    }

    std::shared_ptr<std::vector<AckRecord>> m_log{std::make_shared<std::vector<AckRecord>>()};
    /// CE-marked data packets the forks saw as notification points.
    std::shared_ptr<uint64_t> m_ceMarked{std::make_shared<uint64_t>(0)};

  private:
    DataRate m_rate;
    uint64_t m_window{0};
    Time m_timeoutAfter;
};

NS_OBJECT_ENSURE_REGISTERED(FixedRateCc);

// "fixed-test:quarter": a quarter of the port's line rate.
const RdmaCcRegistration g_fixedRegistration(
    {"fixed-test",
     &FixedRateCc::GetTypeId,
     {"quarter"},
     "",
     [](Ptr<RdmaCongestionControl> cc, const std::string& preset, DataRate lineRate) {
         cc->SetAttribute("Rate", DataRateValue(DataRate(lineRate.GetBitRate() / 4)));
     }});

/// Shrinks its QP's window to one 4 KiB packet 1.5 us after the flow starts,
/// when packets without an AckReq are already in flight.
class ShrinkingWindowCc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::ShrinkingWindowCc")
                                .SetParent<RdmaCongestionControl>()
                                .SetGroupName("Fabric")
                                .AddConstructor<ShrinkingWindowCc>();
        return tid;
    }
    std::string GetName() const override { return "ShrinkingWindow"; }
    Ptr<RdmaCongestionControl> Fork() const override { return CreateObject<ShrinkingWindowCc>(); }
    void FlowStart(Ptr<RdmaRateState> s) override
    {
        RdmaCongestionControl::FlowStart(s);
        ScheduleTimeout(s, NanoSeconds(1500));
    }
    void Timeout(Ptr<RdmaRateState> s) override { s->SetWindow(4096); }
};

NS_OBJECT_ENSURE_REGISTERED(ShrinkingWindowCc);

class RdmaCcSeamTest : public hockney::SimulatorTest
{
};

TEST_F(RdmaCcSeamTest, RegistryListsAndRejects)
{
    std::vector<std::string> specs = RdmaCcRegistry::Specs();
    ASSERT_GE(specs.size(), 5u);
    EXPECT_EQ(specs[0], "none");
    EXPECT_NE(std::find(specs.begin(), specs.end(), "dcqcn:connectx"), specs.end());
    EXPECT_NE(std::find(specs.begin(), specs.end(), "fixed-test:quarter"), specs.end());
    try
    {
        RdmaHelper::CreateCongestionControl("fixed-test:half", DataRate("100Gbps"));
        FAIL();
    }
    catch (const std::invalid_argument& e)
    {
        const std::string what = e.what();
        EXPECT_NE(what.find("congestion-control: expected none, dcqcn, dcqcn:paper"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("fixed-test:quarter"), std::string::npos) << what;
        EXPECT_NE(what.find("got 'fixed-test:half'"), std::string::npos) << what;
    }
    // The collective layer's factory: default attributes, nullptr for none.
    EXPECT_EQ(CreateRdmaCongestionControl("none"), nullptr);
    Ptr<RdmaCongestionControl> d = CreateRdmaCongestionControl("dcqcn");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->GetName(), "Dcqcn");
    Ptr<RdmaCongestionControl> f = CreateRdmaCongestionControl("fixed-test");
    DataRateValue v;
    f->GetAttribute("Rate", v);
    EXPECT_EQ(v.Get(), DataRate("1Gbps"));
    EXPECT_THROW(CreateRdmaCongestionControl("timely"), std::invalid_argument);
    EXPECT_THROW(RdmaCcRegistry::Register({"dcqcn", &FixedRateCc::GetTypeId, {}, "", {}}),
                 std::invalid_argument);
}

TEST_F(RdmaCcSeamTest, TwoQpsAtAFixedRateByHand)
{
    // Host a sends one 16-packet SEND (64 KiB) on each of two QPs at 0; the
    // algorithm paces each at 25 Gb/s on a 100 Gb/s link; ACK every 4 packets.
    TwoHosts t = MakeTwoHosts(RdmaLink());
    Ptr<RdmaCongestionControl> proto =
        RdmaHelper::CreateCongestionControl("fixed-test:quarter", DataRate("100Gbps"));
    t.a->SetCongestionControl(proto);
    t.a->SetAttribute("AckInterval", UintegerValue(4));
    auto [q1, b1] = RdmaNic::Connect(t.a, t.b, 3);
    auto [q2, b2] = RdmaNic::Connect(t.a, t.b, 3);
    EXPECT_EQ(t.a->GetRateState(q1)->GetRate(), DataRate("25Gbps"));
    // Keyed by QP number: QPNs start at RdmaNic::kFirstQpn (0x100), so they
    // cannot index a small array (the sanitized tree caught the overflow).
    std::map<uint32_t, double> done;
    t.a->SetSendCompletionCallback(MakeCallback(
        +[](std::map<uint32_t, double>* d, const RdmaCompletion& c) {
            (*d)[c.qpn] = Simulator::Now().GetSeconds();
        }).Bind(&done));
    const uint64_t n = 16 * 4096;
    t.a->PostSend(q1, n, false, 0);
    t.a->PostSend(q2, n, false, 0);
    Simulator::Run();

    // By hand (L = 120 ns PCIe latency, DMA 63 GB/s, WQE 64 B):
    //   WQE 1 read by 3L + 64 B/R, WQE 2 by 3L + 128 B/R; QP 1's eight
    //   prefetched payload reads go first, ready from 5L + (64 + 4096) B/R;
    //   QP 2's first behind them at 5L + (64 + 9 x 4096) B/R (520 ns later:
    //   more than one 334 ns packet on the wire, so the QPs never collide).
    //   Each QP then sends a packet every 4178 B (BTH 12 + 4096 + framing 70)
    //   at 25 Gb/s = 1336.96 ns; the last packet (ImmDt: 4182 B) starts 15
    //   of those after the first.
    //   RTT of a packet: its serialization at 100 Gb/s + 1 us + the ACK
    //   (16 + 70 = 86 B: 6.88 ns) + 1 us; completion one L after the ACK.
    const double L = 120e-9;
    const double R = 504e9 / 8;
    const double pace = 4178 * 8 / 25e9;
    const double rttMiddle = 4178 * 8 / 100e9 + 1e-6 + 86 * 8 / 100e9 + 1e-6;
    const double rttLast = 4182 * 8 / 100e9 + 1e-6 + 86 * 8 / 100e9 + 1e-6;
    const double start1 = 5 * L + (64 + 4096) / R;
    const double start2 = 5 * L + (64 + 9 * 4096) / R;
    // Every time is a sum of a few dozen terms, each rounded to 1 ps.
    const double tol = 50e-12;
    ASSERT_EQ(done.size(), 2u);
    EXPECT_NEAR(done[q1], start1 + 15 * pace + rttLast + L, tol);
    EXPECT_NEAR(done[q2], start2 + 15 * pace + rttLast + L, tol);
    // Bytes / rate dominate: 16 x 4178 B at 25 Gb/s = 21.4 us of the ~24 us.
    EXPECT_GT(done[q1], 16 * pace);

    auto log = DynamicCast<FixedRateCc>(proto)->m_log;
    ASSERT_EQ(log->size(), 8u); // PSNs 3, 7, 11, 15 on each QP
    std::map<uint32_t, uint64_t> acked;
    for (const AckRecord& r : *log)
    {
        acked[r.qpn] += r.sample.ackedBytes;
        EXPECT_EQ(r.sample.ackedBytes, 4u * 4096);
        EXPECT_FALSE(r.sample.nak);
        EXPECT_FALSE(r.sample.ecnEcho);
        EXPECT_TRUE(r.sample.intHops.empty());
        const bool last = r.sample.outstandingBytes == 0;
        EXPECT_NEAR(r.sample.rtt.GetSeconds(), last ? rttLast : rttMiddle, 5e-12);
    }
    EXPECT_EQ(acked.size(), 2u);
    EXPECT_EQ(acked[q1], n);
    EXPECT_EQ(acked[q2], n);
    EXPECT_EQ(t.a->GetCounters().timeouts, 0u);
}

TEST_F(RdmaCcSeamTest, WindowAndTimeoutFromTheAlgorithm)
{
    // A window of one packet: every packet waits for the previous one's ACK
    // (the window-filling packet asks for it), so 4 packets take 4 round
    // trips. With the timeout at 0.5 us lifting the window before the first
    // ACK, the same message streams at line rate.
    auto run = [](Time lift) {
        TwoHosts t = MakeTwoHosts(RdmaLink());
        Ptr<RdmaCongestionControl> cc = CreateRdmaCongestionControl("fixed-test");
        cc->SetAttribute("Rate", DataRateValue(DataRate("100Gbps")));
        cc->SetAttribute("Window", UintegerValue(4096));
        cc->SetAttribute("TimeoutAfter", TimeValue(lift));
        t.a->SetCongestionControl(cc);
        auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
        double done = -1;
        t.a->SetSendCompletionCallback(MakeCallback(
            +[](double* d, const RdmaCompletion&) { *d = Simulator::Now().GetSeconds(); })
                                           .Bind(&done));
        t.a->PostSend(qa, 4 * 4096, false, 0);
        Simulator::Run();
        uint64_t acks = t.b->GetCounters().acksSent;
        Simulator::Destroy();
        return std::make_pair(done, acks);
    };
    auto [windowed, windowedAcks] = run(Time(0));
    EXPECT_EQ(windowedAcks, 4u);
    // Each round trip >= 2 us of propagation; line rate needs one.
    EXPECT_GT(windowed, 4 * 2e-6);
    auto [lifted, liftedAcks] = run(NanoSeconds(500));
    // Lifted at 0.5 us, before the first packet is ready (~0.67 us): only
    // the message's last packet asks for an ACK.
    EXPECT_EQ(liftedAcks, 1u);
    double ackBack = 0;
    OneWay(Costs(), 4 * 4096, false, &ackBack);
    EXPECT_NEAR(lifted, ackBack, 20e-12);
}

TEST_F(RdmaCcSeamTest, AcksEchoCeMarks)
{
    // Hosts 1 and 2 send 1 MB each at line rate to host 0 through a switch
    // that marks every packet once its egress queue holds 20 KB; an ACK per
    // packet. Each ACK then echoes exactly its packet's mark: the echoes the
    // senders' hook sees equal the marks the receiver's hook saw, and there
    // are some (two line-rate flows into one port queue up). A single flow
    // never queues: no mark, no echo.
    auto run = [](uint32_t senders, uint64_t* echoes, uint64_t* acks) {
        FabricLinkConfig cfg = RdmaLink();
        cfg.ecn = true;
        cfg.ecnKminBytes = 20000;
        cfg.ecnKmaxBytes = 20001;
        cfg.ecnPmax = 1.0;
        Star s = MakeStar(3, cfg);
        Ptr<FixedRateCc> cc = CreateObject<FixedRateCc>();
        cc->SetAttribute("Rate", DataRateValue(cfg.rate));
        for (auto& nic : s.nics)
        {
            nic->SetCongestionControl(cc);
            nic->SetAttribute("AckInterval", UintegerValue(1));
        }
        AttachAll(s);
        s.sw->AssignStreams(3);
        for (uint32_t h = 1; h <= senders; ++h)
        {
            auto [q, r] = RdmaNic::Connect(s.nics[h], s.nics[0], 3);
            s.nics[h]->PostSend(q, 1000000, true, 0);
        }
        Simulator::Run();
        *echoes = 0;
        *acks = cc->m_log->size();
        for (const AckRecord& r : *cc->m_log)
        {
            *echoes += r.sample.ecnEcho ? 1 : 0;
        }
        uint64_t marks = *cc->m_ceMarked;
        Simulator::Destroy();
        return marks;
    };
    uint64_t echoes = 0;
    uint64_t acks = 0;
    uint64_t marks = run(2, &echoes, &acks);
    EXPECT_EQ(acks, 2u * 245); // ceil(1e6 / 4096) packets per flow
    EXPECT_GT(marks, 0u);
    EXPECT_EQ(echoes, marks);
    marks = run(1, &echoes, &acks);
    EXPECT_EQ(acks, 245u);
    EXPECT_EQ(marks, 0u);
    EXPECT_EQ(echoes, 0u);
}

TEST_F(RdmaCcSeamTest, WindowShrunkBelowInFlightEndsAtTheTransportTimer)
{
    // 32 x 4 KiB, ACK requested every 64 packets and at the message's end:
    // when the window drops to one packet at 1.5 us, a few packets are in
    // flight and none asked for an ACK, so no ACK can reopen the window. The
    // NIC arms its transport timer: one timeout, then go-back-N from the
    // first unacknowledged packet, each resent packet filling the window and
    // asking for its ACK. Without the timer the QP would wait for ever.
    TwoHosts t = MakeTwoHosts(RdmaLink());
    t.a->SetCongestionControl(CreateObject<ShrinkingWindowCc>());
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    Time done(-1);
    t.a->SetSendCompletionCallback(
        MakeCallback(+[](Time* d, const RdmaCompletion&) { *d = Simulator::Now(); }).Bind(&done));
    t.a->PostSend(qa, 32 * 4096, false, 0);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    ASSERT_GE(done, Time(0)) << "the send never completed";
    EXPECT_EQ(t.a->GetCounters().timeouts, 1u);
    // The wait is the transport timer (67.108864 ms, armed at 1.5 us); the 32
    // packets after it, one round trip each, add well under 1 ms.
    TimeValue rtoValue;
    t.a->GetAttribute("RetransmitTimeout", rtoValue);
    const Time rto = rtoValue.Get();
    EXPECT_GE(done, rto);
    EXPECT_LT(done, rto + MilliSeconds(1));
}

} // namespace
