// SPDX-License-Identifier: GPL-2.0-only
//
// Lossy links (FabricNetDevice::ReceiveErrorModel) and the NIC's go-back-N
// recovery from them, against hand-computed completion times: a lost data
// packet costs the NAK's round trip, rounded up to the sender's next packet
// boundary; a lost NAK or a lost retransmission costs the NakInterval (the
// responder NAKs the open gap again), or the retransmission timeout with
// IBTA's one NAK per gap; what no NAK can reveal (the last packet, the last
// ACK) costs the timeout; a lost ACK in mid-message costs nothing (ACKs are
// cumulative). Then random loss: every byte delivered,
// every drop attributed, conservation.
#include "bth-header.h"
#include "fabric-link-loss.h"
#include "fabric-monitor.h"
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/error-model.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <functional>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

/// What the pick function sees of a packet on the wire.
struct WirePacket
{
    uint8_t opcode;
    uint64_t psn; ///< 24-bit PSN (the tests stay below 2^24)
    bool ack;     ///< an ACK or NAK
    bool nak;
};

/// A deterministic loss pattern as an ns-3 ErrorModel: drops the packets
/// the pick function chooses (it may count, to drop the k-th of a kind).
class PickErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("hockney::test::PickErrorModel").SetParent<ErrorModel>();
        return tid;
    }

    std::function<bool(const WirePacket&)> pick;

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> q = p->Copy();
        FabricHeader fh;
        q->RemoveHeader(fh);
        BthHeader bh;
        q->RemoveHeader(bh);
        WirePacket w{bh.opcode, bh.psn, bh.opcode == bth::kAcknowledge, false};
        if (w.ack)
        {
            AethHeader a;
            q->RemoveHeader(a);
            w.nak = a.IsNak();
        }
        return pick(w);
    }

    void DoReset() override {}
};

/// Drops, at the port it is installed on, the first transmission of the
/// data packet with PSN psn (a later one passes).
std::function<bool(const WirePacket&)>
DropDataOnce(uint64_t psn)
{
    auto seen = std::make_shared<bool>(false);
    return [psn, seen](const WirePacket& w) {
        if (w.ack || w.psn != psn || *seen)
        {
            return false;
        }
        *seen = true;
        return true;
    };
}

constexpr double kPs = 1e-12;
// The defaults the hand formulas use (RdmaLink, RdmaNic): 100 Gb/s, 1 us,
// RoCE framing 70 B, Mtu 4096, local ACK timeout 4.096 us x 2^14.
constexpr double kT = (4096 + 12 + 70) * 8 / 100e9;     // middle packet: 334.24 ns
constexpr double kTFirst = (4096 + 28 + 70) * 8 / 100e9; // + RETH: 335.52 ns
constexpr double kTCtrl = (16 + 70) * 8 / 100e9;         // ACK/NAK: BTH + AETH, 6.88 ns
constexpr double kRto = 67108864e-9;
constexpr double kDelay = 1e-6;
constexpr double kNakInterval = 500e-6; // RdmaNic's default

/// Drops the first NAK.
std::function<bool(const WirePacket&)>
DropFirstNak()
{
    auto seen = std::make_shared<bool>(false);
    return [seen](const WirePacket& w) {
        if (!w.nak || *seen)
        {
            return false;
        }
        *seen = true;
        return true;
    };
}

/// Drops the first two transmissions of PSN psn.
std::function<bool(const WirePacket&)>
DropDataTwice(uint64_t psn)
{
    auto count = std::make_shared<int>(0);
    return [psn, count](const WirePacket& w) { return !w.ack && w.psn == psn && ++*count <= 2; };
}

class RdmaLossyLinkTest : public hockney::SimulatorTest
{
  protected:
    struct Run
    {
        double recvAt{-1};
        double sentAt{-1};
        RdmaNicCounters a;
        RdmaNicCounters b;
        FabricPortCounters portA; ///< what A's port received (ACKs, NAKs)
        FabricPortCounters portB; ///< what B's port received (data)
        FabricConservation cons;
    };

    /// One write of `packets` full packets from A to B; `toB` drops on the
    /// data direction, `toA` on the ACK direction.
    static Run Write(uint32_t packets, std::function<bool(const WirePacket&)> toB,
                     std::function<bool(const WirePacket&)> toA, Time nakInterval = MicroSeconds(500))
    {
        TwoHosts t = MakeTwoHosts(RdmaLink());
        t.b->SetAttribute("NakInterval", TimeValue(nakInterval));
        for (auto [dev, pick] : {std::pair{t.link.devB, toB}, std::pair{t.link.devA, toA}})
        {
            if (pick)
            {
                Ptr<PickErrorModel> em = CreateObject<PickErrorModel>();
                em->pick = pick;
                dev->SetReceiveErrorModel(em);
            }
        }
        auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
        Run r;
        t.b->SetReceiveCompletionCallback(MakeCallback(
            +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                              .Bind(&r.recvAt));
        t.a->SetSendCompletionCallback(MakeCallback(
            +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                           .Bind(&r.sentAt));
        t.a->PostSend(qa, uint64_t(packets) * 4096, true, 0);
        Simulator::Run();
        r.a = t.a->GetCounters();
        r.b = t.b->GetCounters();
        r.portA = t.link.devA->GetCounters();
        r.portB = t.link.devB->GetCounters();
        NodeContainer nodes(t.link.devA->GetNode(), t.link.devB->GetNode());
        r.cons = CheckFabricConservation(nodes);
        return r;
    }
};

TEST_F(RdmaLossyLinkTest, LostDataPacketCostsTheNakRoundTrip)
{
    // 20 packets, PSN 5 lost. PSN 6 reveals the gap; the NAK leaves at once
    // and reaches A 2 T + 2 d + T_c = 2675.36 ns after PSN 5 started; A ends
    // the packet it is sending and goes back. Its packets start every T
    // from PSN 5 on, so the first boundary at or after the NAK is
    // ceil(2675.36 / 334.24) = 9 slots: PSNs 5..13 (W = 9) are sent twice and
    // everything from PSN 5 on arrives 9 T = 3008.16 ns late.
    Costs c;
    double ack0 = 0;
    const double lossFree = OneWay(c, 20 * 4096, true, &ack0);
    Run r = Write(20, DropDataOnce(5), nullptr);
    const double nakAfter = 2 * kT + 2 * kDelay + kTCtrl;
    EXPECT_NEAR(nakAfter, 2675.36e-9, 1e-13);
    const double delta = 9 * kT;
    EXPECT_GT(delta, nakAfter);
    EXPECT_LT(8 * kT, nakAfter);
    // A few ps: each serialization is rounded to 1 ps by the simulator.
    EXPECT_NEAR(r.recvAt, lossFree + delta, 30 * kPs);
    EXPECT_NEAR(r.sentAt, ack0 + delta, 30 * kPs);
    EXPECT_EQ(r.b.naksSent, 1u);
    EXPECT_EQ(r.a.naksReceived, 1u);
    EXPECT_EQ(r.a.timeouts, 0u);
    EXPECT_EQ(r.a.packetsRetransmitted, 9u);
    EXPECT_EQ(r.b.outOfOrderDropped, 8u); // PSNs 6..13
    EXPECT_EQ(r.b.bytesDelivered, 20u * 4096);
    EXPECT_EQ(r.portB.dropsBy[kDropCorrupt], 1u);
    EXPECT_EQ(r.portB.drops, 1u);
    EXPECT_EQ(r.portB.dropBytesBy[kDropCorrupt], 4096u + 12);
    EXPECT_TRUE(r.cons.ok) << r.cons.message;
    EXPECT_EQ(r.cons.dropped, 4096u + 12);
    EXPECT_EQ(r.cons.droppedBy[kDropCorrupt], 4096u + 12);
}

TEST_F(RdmaLossyLinkTest, LostNakIsSentAgainAfterTheNakInterval)
{
    // PSN 5 and its NAK lost. The NAK left when PSN 6 arrived, s5 + 2 T + d;
    // the gap is still open NakInterval later, so B NAKs again; it reaches
    // A, idle since the message's end, at s5 + 2 T + 2 d + T_c + 500 us,
    // and A resends PSNs 5..19 from there: everything from PSN 5 on is
    // 2 T + 2 d + T_c + 500 us late.
    Costs c;
    double ack0 = 0;
    const double lossFree = OneWay(c, 20 * 4096, true, &ack0);
    Run r = Write(20, DropDataOnce(5), DropFirstNak());
    const double delta = 2 * kT + 2 * kDelay + kTCtrl + kNakInterval;
    EXPECT_NEAR(r.recvAt, lossFree + delta, 50 * kPs);
    EXPECT_NEAR(r.sentAt, ack0 + delta, 50 * kPs);
    EXPECT_EQ(r.b.naksSent, 2u);
    EXPECT_EQ(r.b.nakRefreshes, 1u);
    EXPECT_EQ(r.a.naksReceived, 1u);
    EXPECT_EQ(r.a.timeouts, 0u);
    EXPECT_EQ(r.portA.dropsBy[kDropCorrupt], 1u);
    EXPECT_EQ(r.b.bytesDelivered, 20u * 4096);
    EXPECT_TRUE(r.cons.ok) << r.cons.message;
}

TEST_F(RdmaLossyLinkTest, LostNakCostsTheTimeoutWithOneNakPerGap)
{
    // NakInterval 0: IBTA's responder NAKs a gap once, so only the
    // transport timer recovers. Only PSN 19 (the message's last) asks for
    // an ACK: the timer starts when it is sent, at s19, and no ACK ever
    // arrives, so at s19 + RTO A goes back to PSN 0 and resends all 20
    // packets back to back. PSN 19 arrives RTO + T_first + 18 T after it
    // did without loss.
    Costs c;
    double ack0 = 0;
    const double lossFree = OneWay(c, 20 * 4096, true, &ack0);
    Run r = Write(20, DropDataOnce(5), DropFirstNak(), Time(0));
    const double delta = kRto + kTFirst + 18 * kT;
    EXPECT_NEAR(r.recvAt, lossFree + delta, 50 * kPs);
    EXPECT_NEAR(r.sentAt, ack0 + delta, 50 * kPs);
    EXPECT_EQ(r.b.naksSent, 1u);
    EXPECT_EQ(r.b.nakRefreshes, 0u);
    EXPECT_EQ(r.a.naksReceived, 0u);
    EXPECT_EQ(r.a.timeouts, 1u);
    EXPECT_EQ(r.portA.dropsBy[kDropCorrupt], 1u);
    EXPECT_EQ(r.b.bytesDelivered, 20u * 4096);
    EXPECT_TRUE(r.cons.ok) << r.cons.message;
}

TEST_F(RdmaLossyLinkTest, LostLastPacketCostsTheTimeout)
{
    // PSN 19, the last: no later packet reveals the gap. The timer started
    // at s19; nothing was acknowledged, so A resends PSNs 0..19 at s19 + RTO.
    Costs c;
    double ack0 = 0;
    const double lossFree = OneWay(c, 20 * 4096, true, &ack0);
    Run r = Write(20, DropDataOnce(19), nullptr);
    const double delta = kRto + kTFirst + 18 * kT;
    EXPECT_NEAR(r.recvAt, lossFree + delta, 50 * kPs);
    EXPECT_EQ(r.b.naksSent, 0u);
    EXPECT_EQ(r.a.timeouts, 1u);
    EXPECT_EQ(r.a.packetsRetransmitted, 20u);
    EXPECT_EQ(r.b.bytesDelivered, 20u * 4096);
    EXPECT_TRUE(r.cons.ok) << r.cons.message;
}

TEST_F(RdmaLossyLinkTest, LostRetransmissionIsNakedAgain)
{
    // PSN 5 lost twice: the NAK path resends it 9 slots later and it is lost
    // again. The gap NAKed at s5 + 2 T + d is still open 500 us later: the
    // refreshed NAK reaches A (idle) at s5 + 2 T + 2 d + T_c + 500 us, the
    // same delay as a lost NAK.
    Costs c;
    const double lossFree = OneWay(c, 20 * 4096, true);
    Run r = Write(20, DropDataTwice(5), nullptr);
    const double delta = 2 * kT + 2 * kDelay + kTCtrl + kNakInterval;
    EXPECT_NEAR(r.recvAt, lossFree + delta, 50 * kPs);
    EXPECT_EQ(r.b.naksSent, 2u);
    EXPECT_EQ(r.a.timeouts, 0u);
    EXPECT_EQ(r.portB.dropsBy[kDropCorrupt], 2u);
    EXPECT_EQ(r.a.packetsRetransmitted, 9u + 15u);
    EXPECT_EQ(r.b.bytesDelivered, 20u * 4096);
    EXPECT_TRUE(r.cons.ok) << r.cons.message;
}

TEST_F(RdmaLossyLinkTest, LostRetransmissionCostsTheTimeoutWithOneNakPerGap)
{
    // NakInterval 0. The responder has NAKed this gap and stays silent. The
    // NAK acknowledged PSNs 0..4 and restarted no timer (no AckReq packet
    // was out); the resent PSN 19 starts it at s19 + 9 T. At expiry A goes
    // back to PSN 5 (the oldest unacknowledged) on an idle port and resends
    // 15 packets: PSN 19 arrives 9 T + RTO + 14 T late.
    Costs c;
    const double lossFree = OneWay(c, 20 * 4096, true);
    Run r = Write(20, DropDataTwice(5), nullptr, Time(0));
    const double delta = 9 * kT + kRto + 14 * kT;
    EXPECT_NEAR(r.recvAt, lossFree + delta, 50 * kPs);
    EXPECT_EQ(r.b.naksSent, 1u);
    EXPECT_EQ(r.a.timeouts, 1u);
    EXPECT_EQ(r.portB.dropsBy[kDropCorrupt], 2u);
    EXPECT_EQ(r.a.packetsRetransmitted, 9u + 15u);
    EXPECT_EQ(r.b.bytesDelivered, 20u * 4096);
    EXPECT_TRUE(r.cons.ok) << r.cons.message;
}

TEST_F(RdmaLossyLinkTest, LostAckInMidMessageCostsNothing)
{
    // 200 packets ask for ACKs at PSNs 63, 127, 191 (AckInterval 64) and 199
    // (the last). Losing the ACK of 63 changes nothing: the ACK of 127 is
    // cumulative, and no window waits for it.
    Costs c;
    double ack0 = 0;
    const double lossFree = OneWay(c, 200 * 4096, true, &ack0);
    Run r = Write(200, nullptr, [](const WirePacket& w) { return w.ack && w.psn == 63; });
    EXPECT_NEAR(r.recvAt, lossFree, 300 * kPs);
    EXPECT_NEAR(r.sentAt, ack0, 300 * kPs);
    EXPECT_EQ(r.a.timeouts, 0u);
    EXPECT_EQ(r.a.packetsRetransmitted, 0u);
    EXPECT_EQ(r.portA.dropsBy[kDropCorrupt], 1u);
    EXPECT_EQ(r.portA.dropBytesBy[kDropCorrupt], 16u); // BTH + AETH
    EXPECT_TRUE(r.cons.ok) << r.cons.message;
}

TEST_F(RdmaLossyLinkTest, LostLastAckCostsTheTimeoutAtTheSender)
{
    // The ACK of PSN 199 lost. The ACK of 191 came back 2 T + 2 d + T_c =
    // 2341.12 ns after PSN 191 ended, before PSN 199 started (8 T = 2673.92
    // ns after it), so the timer started with PSN 199; at s199 + RTO A goes
    // back to PSN 192 and resends 8 packets; the duplicate PSN 199 asks for
    // an ACK again. The receiver completed on time.
    Costs c;
    double ack0 = 0;
    const double lossFree = OneWay(c, 200 * 4096, true, &ack0);
    auto seen = std::make_shared<bool>(false);
    Run r = Write(200, nullptr, [seen](const WirePacket& w) {
        if (!w.ack || w.psn != 199 || *seen)
        {
            return false;
        }
        *seen = true;
        return true;
    });
    EXPECT_LT(kT + 2 * kDelay + kTCtrl, 8 * kT);
    EXPECT_NEAR(r.recvAt, lossFree, 300 * kPs);
    EXPECT_NEAR(r.sentAt, ack0 + kRto + 7 * kT, 300 * kPs);
    EXPECT_EQ(r.a.timeouts, 1u);
    EXPECT_EQ(r.a.packetsRetransmitted, 8u);
    EXPECT_TRUE(r.cons.ok) << r.cons.message;
}

TEST_F(RdmaLossyLinkTest, RandomLossEverywhereIsRecovered)
{
    // A RateErrorModel at 1 % per packet on both directions of a switched
    // path: data, ACKs, NAKs and CNPs are lost at random. Every byte arrives,
    // every drop is a corrupt drop, and the books balance.
    FabricLinkConfig cfg = RdmaLink();
    Star s = MakeStar(2, cfg);
    for (auto& nic : s.nics)
    {
        nic->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
    }
    AttachAll(s);
    for (const FabricLink& l : s.links)
    {
        InstallLinkLoss(l.devA, l.devB, FabricLinkLoss{0.01, FabricLinkLoss::Unit::PACKET});
    }
    int64_t stream = 17;
    for (const FabricLink& l : s.links)
    {
        stream += l.devA->AssignStreams(stream);
        stream += l.devB->AssignStreams(stream);
    }
    EXPECT_EQ(stream, 17 + 4);
    auto [q0, q1] = RdmaNic::Connect(s.nics[0], s.nics[1], 3);
    auto [p1, p0] = RdmaNic::Connect(s.nics[1], s.nics[0], 3);
    const uint64_t n = 4 << 20;
    s.nics[0]->PostSend(q0, n, true, 0);
    s.nics[1]->PostSend(p1, n, true, 0);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    uint64_t corrupt = 0;
    uint64_t drops = 0;
    for (const auto& r : CollectFabricCounters(s.nodes))
    {
        corrupt += r.counters.dropsBy[kDropCorrupt];
        drops += r.counters.drops;
    }
    // 2 x 1024 data packets each crossing 2 lossy wires at 1 %: about 41
    // losses expected; the bound only says the pattern was exercised.
    EXPECT_GT(corrupt, 10u);
    EXPECT_EQ(drops, corrupt); // PFC fabric: no buffer drop
    for (uint32_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(s.nics[i]->GetCounters().messagesCompleted, 1u) << i;
        EXPECT_EQ(s.nics[i]->GetCounters().messagesReceived, 1u) << i;
        EXPECT_EQ(s.nics[i]->GetCounters().bytesDelivered, n) << i;
        EXPECT_GT(s.nics[i]->GetCounters().naksReceived, 0u) << i;
    }
    FabricConservation c = CheckFabricConservation(s.nodes);
    EXPECT_TRUE(c.ok) << c.message;
    EXPECT_TRUE(c.lossless);
    EXPECT_GT(c.droppedBy[kDropCorrupt], 0u);
}

TEST_F(RdmaLossyLinkTest, CorruptPacketsReturnTheirCreditOnACreditLink)
{
    // IB-style credits (64 KiB per class) through a switch, 1 % loss on the
    // wire into the switch: 8 MiB is 2048 packets, about 20 of them lost,
    // 82 KiB of credit. If a corrupted packet kept its credit the sender's
    // 64 KiB would run out and the write would never finish; returned (IB's
    // FCTBS resynchronisation) every byte arrives.
    FabricLinkConfig cfg = RdmaLink("100Gbps", FabricFlowControlMode::CREDIT);
    Star s = MakeStar(2, cfg);
    for (auto& nic : s.nics)
    {
        nic->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
    }
    AttachAll(s);
    InstallLinkLoss(s.links[0].devA, s.links[0].devB, FabricLinkLoss{0.01, FabricLinkLoss::Unit::PACKET});
    s.links[0].devB->AssignStreams(3);
    s.links[0].devA->AssignStreams(4);
    auto [q0, q1] = RdmaNic::Connect(s.nics[0], s.nics[1], 3);
    const uint64_t n = 8 << 20;
    s.nics[0]->PostSend(q0, n, true, 0);
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    const uint64_t lostBytes = s.links[0].devB->GetCounters().dropBytesBy[kDropCorrupt];
    EXPECT_GT(lostBytes, 65536u) << "more credit than the link has must be lost to test its return";
    EXPECT_EQ(s.nics[1]->GetCounters().bytesDelivered, n);
    EXPECT_EQ(s.nics[0]->GetCounters().messagesCompleted, 1u);
    FabricConservation c = CheckFabricConservation(s.nodes);
    EXPECT_TRUE(c.ok) << c.message;
    EXPECT_TRUE(c.lossless);
}

TEST_F(RdmaLossyLinkTest, BadRateIsRefused)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    for (double bad : {-0.1, 1.0, 2.0})
    {
        EXPECT_THROW(InstallLinkLoss(t.link.devA, t.link.devB, FabricLinkLoss{bad, FabricLinkLoss::Unit::PACKET}),
                     std::invalid_argument)
            << bad;
    }
    EXPECT_THROW(InstallLinkLoss(nullptr, t.link.devB, FabricLinkLoss{0.1, FabricLinkLoss::Unit::BIT}),
                 std::invalid_argument);
}

} // namespace
