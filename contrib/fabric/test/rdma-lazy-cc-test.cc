// SPDX-License-Identifier: GPL-2.0-only
//
// Lazy per-QP congestion state (RdmaNic::LazyCongestionState): a QP's
// congestion control and rate state start at its first use and are dropped
// after its last message when the algorithm reports them fresh; a QP that
// starts again gets a fresh one. Checked by hand-computed completion times,
// by the counts the NIC reports, and against the same runs with one state
// per QP for the QP's life (the old behaviour, LazyCongestionState false).
#include "dcqcn.h"
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

// Every term of the hand formula is rounded to 1 ps by the simulator (Time
// has picosecond resolution); a few-packet message sums a few dozen.
constexpr double kPs = 1e-12;

class RdmaLazyCcTest : public hockney::SimulatorTest
{
};

/// Starts every QP at a quarter of the line rate. On the ACK that leaves
/// nothing outstanding it moves to half the line rate, or, with Forget, back
/// to the quarter: fresh again (IsFresh), so the NIC may drop it.
class QuarterRateCc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::LazyCcTestQuarterRateCc")
                                .SetParent<RdmaCongestionControl>()
                                .SetGroupName("Fabric")
                                .AddConstructor<QuarterRateCc>()
                                .AddAttribute("Forget",
                                              "Back to the start rate when idle",
                                              BooleanValue(false),
                                              MakeBooleanAccessor(&QuarterRateCc::m_forget),
                                              MakeBooleanChecker());
        return tid;
    }

    std::string GetName() const override { return "QuarterRate"; }

    Ptr<RdmaCongestionControl> Fork() const override
    {
        Ptr<QuarterRateCc> c = CreateObject<QuarterRateCc>();
        c->m_forget = m_forget;
        return c;
    }

    void FlowStart(Ptr<RdmaRateState> state) override
    {
        state->SetTargetRate(Quarter(*state));
        state->SetRate(Quarter(*state));
    }

    void AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample) override
    {
        if (sample.outstandingBytes == 0)
        {
            const DataRate r = m_forget ? Quarter(*state) : DataRate(state->GetLineRate().GetBitRate() / 2);
            state->SetTargetRate(r);
            state->SetRate(r);
        }
    }

    bool StartsLazily() const override { return true; }

    bool IsFresh(const RdmaRateState& state) const override
    {
        return state.GetRate() == Quarter(state) && state.GetTargetRate() == Quarter(state);
    }

  private:
    static DataRate Quarter(const RdmaRateState& s) { return DataRate(s.GetLineRate().GetBitRate() / 4); }

    bool m_forget{false};
};

NS_OBJECT_ENSURE_REGISTERED(QuarterRateCc);

TEST_F(RdmaLazyCcTest, DcqcnIsFreshUntilItsFirstCnp)
{
    Ptr<Dcqcn> proto = CreateObject<Dcqcn>(); // CnpInterval N = 50 us, paced per flow
    Ptr<RdmaCongestionControl> cc = proto->Fork();
    Ptr<RdmaRateState> st = CreateObject<RdmaRateState>();
    st->SetLineRate(DataRate("100Gbps"));
    cc->FlowStart(st);
    EXPECT_TRUE(cc->StartsLazily());
    EXPECT_TRUE(cc->IsFresh(*st));
    // Notification point: a CE mark at 0 sends a CNP; the flow's clock holds
    // the next one back until 0 + N, and from then on lets it through as a
    // new clock would.
    EXPECT_TRUE(cc->DataReceived(st, true));
    EXPECT_FALSE(cc->IsFresh(*st));
    bool at49 = true;
    bool at50 = false;
    Simulator::Schedule(MicroSeconds(49), [&]() { at49 = cc->IsFresh(*st); });
    Simulator::Schedule(MicroSeconds(50), [&]() { at50 = cc->IsFresh(*st); });
    Simulator::Run();
    EXPECT_FALSE(at49);
    EXPECT_TRUE(at50);
    // Reaction point: a CNP cuts RC to (1 - alpha/2) x 100 Gb/s = 50 Gb/s
    // (alpha = 1); the state is not fresh, and stays so once the increase
    // timers have brought RC back to the line rate (alpha has moved).
    cc->CnpReceived(st);
    EXPECT_EQ(st->GetRate(), DataRate("50Gbps"));
    EXPECT_FALSE(cc->IsFresh(*st));
    Simulator::Run();
    EXPECT_EQ(st->GetRate(), DataRate("100Gbps"));
    EXPECT_FALSE(cc->IsFresh(*st));
    cc->Dispose();

    // Paced per port, the clock is the NIC's (every fork shares it): a CNP
    // sent does not keep the QP's own state.
    Ptr<Dcqcn> perPort = CreateObject<Dcqcn>();
    perPort->SetAttribute("CnpPerPort", BooleanValue(true));
    Ptr<RdmaCongestionControl> f = perPort->Fork();
    Ptr<RdmaRateState> s2 = CreateObject<RdmaRateState>();
    s2->SetLineRate(DataRate("100Gbps"));
    f->FlowStart(s2);
    EXPECT_TRUE(f->DataReceived(s2, true));
    EXPECT_TRUE(f->IsFresh(*s2));
    EXPECT_FALSE(perPort->Fork()->DataReceived(s2, true)) << "the port's clock paces every fork";
    f->Dispose();
}

TEST_F(RdmaLazyCcTest, StateStartsAtFirstSendAndIsReleasedAfterLastCompletion)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    t.a->SetCongestionControl(CreateObject<Dcqcn>());
    t.b->SetCongestionControl(CreateObject<Dcqcn>());
    // Each NIC's first QP starts its state at creation (that checks the
    // parameters against the port once); the second does not.
    auto [a1, b1] = RdmaNic::Connect(t.a, t.b, 3);
    auto [a2, b2] = RdmaNic::Connect(t.a, t.b, 3);
    EXPECT_TRUE(t.a->HasCcState(a1));
    EXPECT_FALSE(t.a->HasCcState(a2));
    EXPECT_FALSE(t.b->HasCcState(b2));
    EXPECT_EQ(t.a->GetCcStateCounts().forked, 1u);
    EXPECT_EQ(t.a->GetCcStateCounts().live, 1u);

    double recvAt = -1;
    t.b->SetReceiveCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                          .Bind(&recvAt));
    const uint64_t n = 3 * 4096 + 1000; // 4 packets, the last short
    t.a->PostSend(a2, n, false, 0);
    EXPECT_TRUE(t.a->HasCcState(a2)); // started by the post
    EXPECT_EQ(t.a->GetCcStateCounts().started, 2u);
    Simulator::Run();
    // Nothing marks on one link: DCQCN never left its start, at line rate,
    // so the message took the hand formula's time, and both ends dropped
    // their states (the requester after the last ACK, the responder after
    // the last packet, which started its own).
    Costs c;
    EXPECT_NEAR(recvAt, OneWay(c, n, false), 20 * kPs);
    EXPECT_FALSE(t.a->HasCcState(a2));
    EXPECT_FALSE(t.b->HasCcState(b2));
    RdmaCcStateCounts ka = t.a->GetCcStateCounts();
    EXPECT_EQ(ka.forked, 2u);
    EXPECT_EQ(ka.started, 2u);
    EXPECT_EQ(ka.released, 1u);
    EXPECT_EQ(ka.live, 1u); // a1, never used, keeps the one it started with
    RdmaCcStateCounts kb = t.b->GetCcStateCounts();
    EXPECT_EQ(kb.forked, 2u);
    EXPECT_EQ(kb.released, 1u);
    EXPECT_EQ(kb.live, 1u);

    // The QP starts again with the released state: no new fork.
    const double posted = Simulator::Now().GetSeconds();
    t.a->PostSend(a2, n, false, 0);
    Simulator::Run();
    EXPECT_NEAR(recvAt - posted, OneWay(c, n, false), 20 * kPs);
    ka = t.a->GetCcStateCounts();
    EXPECT_EQ(ka.forked, 2u);
    EXPECT_EQ(ka.started, 3u);
    EXPECT_EQ(ka.released, 2u);
    EXPECT_EQ(ka.live, 1u);
    // An idle QP is its struct alone (two per 512-byte node of the NIC's
    // deque): no congestion state, rate state or queue storage.
    EXPECT_LE(sizeof(RdmaQueuePair), 256u);
    EXPECT_FALSE(t.a->HasCcState(a2));
}

/// Receive-completion time minus post time of a two-packet write of 8192 B
/// on a QP paced at `rate` on the 100 Gb/s test link, by hand: the second
/// packet leaves one pacing gap (the first packet's 4194 wire bytes at
/// `rate`) after the first instead of right behind it (4194 B at the line
/// rate), and everything after it moves by the difference.
double
PacedTwoPackets(double rate)
{
    Costs c;
    const double wire0 = 12 + 16 + 4096 + 70; // BTH, RETH, payload, framing
    return OneWay(c, 8192, true) + wire0 * 8 * (1 / rate - 1 / c.line);
}

double
SendTwiceOnOneQp(bool forget, RdmaCcStateCounts* counts, double* first)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    Ptr<QuarterRateCc> cc = CreateObject<QuarterRateCc>();
    cc->SetAttribute("Forget", BooleanValue(forget));
    t.a->SetCongestionControl(cc);
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    double recvAt = -1;
    t.b->SetReceiveCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                          .Bind(&recvAt));
    t.a->PostSend(qa, 8192, true, 0);
    Simulator::Run();
    *first = recvAt;
    const double posted = Simulator::Now().GetSeconds();
    t.a->PostSend(qa, 8192, true, 0);
    Simulator::Run();
    *counts = t.a->GetCcStateCounts();
    Simulator::Destroy();
    return recvAt - posted;
}

TEST_F(RdmaLazyCcTest, AQpStartedAgainAfterReleaseIsAFreshOne)
{
    // Forget: back at a quarter of the line rate after the first message,
    // fresh, released; the second message starts a fresh state, at 25 Gb/s.
    RdmaCcStateCounts k;
    double first = 0;
    double second = SendTwiceOnOneQp(true, &k, &first);
    EXPECT_NEAR(first, PacedTwoPackets(25e9), 20 * kPs);
    EXPECT_NEAR(second, PacedTwoPackets(25e9), 20 * kPs);
    EXPECT_EQ(k.released, 2u);
    EXPECT_EQ(k.forked, 1u);
    EXPECT_EQ(k.started, 2u);
    // Without Forget the state ends at half the line rate, not fresh: kept,
    // and the second message runs at 50 Gb/s. The two differ by
    // 4194 x 8 x (1/25 - 1/50) ns = 671 ns, far above the tolerance.
    second = SendTwiceOnOneQp(false, &k, &first);
    EXPECT_NEAR(first, PacedTwoPackets(25e9), 20 * kPs);
    EXPECT_NEAR(second, PacedTwoPackets(50e9), 20 * kPs);
    EXPECT_EQ(k.released, 0u);
    EXPECT_EQ(k.started, 1u);
    EXPECT_EQ(k.live, 1u);
}

TEST_F(RdmaLazyCcTest, HandedOutStateIsKept)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    auto [a1, b1] = RdmaNic::Connect(t.a, t.b, 3);
    auto [a2, b2] = RdmaNic::Connect(t.a, t.b, 3);
    EXPECT_FALSE(t.a->HasCcState(a2));
    Ptr<RdmaRateState> held = t.a->GetRateState(a2); // starts it
    EXPECT_TRUE(t.a->HasCcState(a2));
    EXPECT_EQ(held->GetRate(), DataRate("100Gbps"));
    t.a->PostSend(a2, 8192, true, 0);
    Simulator::Run();
    EXPECT_TRUE(t.a->HasCcState(a2));
    EXPECT_EQ(t.a->GetRateState(a2), held);
    EXPECT_EQ(t.a->GetCcStateCounts().released, 0u);
    EXPECT_EQ(t.b->GetCcStateCounts().released, 1u); // the responder's was not handed out
}

struct StarRun
{
    std::vector<int64_t> completions; ///< every receive and send completion, ps, in order
    uint64_t cnps{0};
    uint64_t released{0};
    uint64_t live{0};
    uint64_t qps{0};
};

/// An 8-to-1 incast of 1 MB on a DCQCN star (CNPs, cuts) and, on second QPs,
/// 256 KB from each sender to its neighbour (no congestion on its path).
StarRun
RunStar(bool lazy)
{
    Star s = MakeDcqcnStarWithNicAttribute(9, "LazyCongestionState", BooleanValue(lazy));
    StarRun r;
    auto log = MakeCallback(+[](std::vector<int64_t>* v, const RdmaCompletion&) {
        v->push_back(Simulator::Now().GetPicoSeconds());
    }).Bind(&r.completions);
    for (auto& nic : s.nics)
    {
        nic->SetReceiveCompletionCallback(log);
        nic->SetSendCompletionCallback(log);
    }
    for (uint32_t i = 1; i < 9; ++i)
    {
        auto [q, r0] = RdmaNic::Connect(s.nics[i], s.nics[0], 3);
        s.nics[i]->PostSend(q, 1000000, true, 0);
    }
    for (uint32_t i = 1; i < 9; ++i)
    {
        const uint32_t j = i % 8 + 1;
        auto [q, r0] = RdmaNic::Connect(s.nics[i], s.nics[j], 3);
        s.nics[i]->PostSend(q, 256000, true, 0);
    }
    Simulator::Run();
    for (auto& nic : s.nics)
    {
        r.cnps += nic->GetCounters().cnpsReceived;
        r.released += nic->GetCcStateCounts().released;
        r.live += nic->GetCcStateCounts().live;
        r.qps += nic->GetQpns().size();
    }
    Simulator::Destroy();
    return r;
}

TEST_F(RdmaLazyCcTest, LazyAndLifelongStatesRunTheSameSimulation)
{
    const StarRun lazy = RunStar(true);
    const StarRun eager = RunStar(false);
    // Identical to the picosecond: the same completions at the same times
    // and the same CNPs.
    ASSERT_EQ(lazy.completions.size(), 2u * 16);
    EXPECT_EQ(lazy.completions, eager.completions);
    EXPECT_GT(lazy.cnps, 0u) << "the incast must congest, or the comparison shows little";
    EXPECT_EQ(lazy.cnps, eager.cnps);
    // With one state per QP for the QP's life nothing is released; lazily,
    // some are (the uncongested QPs), and the cut ones are kept.
    EXPECT_EQ(eager.released, 0u);
    EXPECT_EQ(eager.live, eager.qps);
    EXPECT_GT(lazy.released, 0u);
    EXPECT_LT(lazy.live, lazy.qps);
}

/// QuarterRateCc that does not start lazily (the base class's default, as
/// an algorithm whose FlowStart schedules a timer must).
class EagerQuarterRateCc : public QuarterRateCc
{
  public:
    Ptr<RdmaCongestionControl> Fork() const override { return CreateObject<EagerQuarterRateCc>(); }
    bool StartsLazily() const override { return false; }
};

TEST_F(RdmaLazyCcTest, ACongestionControlThatCannotStartLaterStartsAtCreation)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    t.a->SetCongestionControl(CreateObject<EagerQuarterRateCc>());
    RdmaNic::Connect(t.a, t.b, 3);
    auto [a2, b2] = RdmaNic::Connect(t.a, t.b, 3);
    EXPECT_TRUE(t.a->HasCcState(a2));
    EXPECT_EQ(t.a->GetCcStateCounts().started, 2u);
}

} // namespace
