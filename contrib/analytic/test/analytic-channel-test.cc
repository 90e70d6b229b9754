// SPDX-License-Identifier: GPL-2.0-only
//
// AnalyticChannel with each contention policy against finish times computed by
// hand. Times are compared in picoseconds with a tolerance of 1 ps per rounded
// duration a result is built from (each duration is rounded once to the
// resolution), stated at each check.
#include "alpha-beta-model.h"
#include "analytic-channel.h"
#include "analytic-net-device.h"
#include "input-error.h"
#include "loggp-model.h"
#include "simulator-test.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/node-container.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <map>

using namespace ns3;

namespace
{

class AnalyticChannelTest : public hockney::SimulatorTest
{
  protected:
    // A channel of \p n devices on n nodes with \p model and \p policy.
    void Build(uint32_t n, Ptr<AnalyticModel> model, AnalyticChannel::ContentionPolicy policy)
    {
        nodes.Create(n);
        channel = CreateObject<AnalyticChannel>();
        channel->SetAttribute("Model", PointerValue(model));
        channel->SetAttribute("ContentionPolicy", EnumValue(policy));
        devices = channel->Install(nodes);
        channel->SetDeliveryCallback([this](const AnalyticMessage& m) {
            delivered[m.id] = m;
            contexts[m.id] = Simulator::GetContext();
        });
    }

    // Delivery time of message \p id in picoseconds.
    int64_t At(uint64_t id)
    {
        EXPECT_EQ(delivered.count(id), 1u) << "message " << id << " not delivered";
        return delivered[id].deliveryTime.GetPicoSeconds();
    }

    NodeContainer nodes;
    Ptr<AnalyticChannel> channel;
    std::vector<Ptr<AnalyticNetDevice>> devices;
    std::map<uint64_t, AnalyticMessage> delivered;
    std::map<uint64_t, uint32_t> contexts;
};

Ptr<LogGpModel>
LogGp(double oUs, double gUs)
{
    // L = 3 us, G = 1 ns/B: a 1001-B message spends (n - 1) G = 1 us on the wire.
    Ptr<LogGpModel> m = CreateObject<LogGpModel>();
    m->SetAttribute("L", TimeValue(MicroSeconds(3)));
    m->SetAttribute("o", TimeValue(NanoSeconds(static_cast<int64_t>(oUs * 1000))));
    m->SetAttribute("g", TimeValue(NanoSeconds(static_cast<int64_t>(gUs * 1000))));
    m->SetAttribute("GapPerByte", DoubleValue(1e-9));
    return m;
}

} // namespace

TEST_F(AnalyticChannelTest, NoneDeliversEachMessageAtTheModelTime)
{
    // 5 us + n / 450 GB/s, independent of the other messages in flight.
    Build(3, CreateObject<AlphaBetaModel>(), AnalyticChannel::NONE);
    const uint64_t sizes[] = {1000, 64000, 1000000, 8000000};
    std::vector<uint64_t> ids;
    for (uint64_t n : sizes)
    {
        ids.push_back(channel->SendMessage(0, 1, n));
    }
    ids.push_back(channel->SendMessage(2, 1, 1000000)); // same size from another sender
    Simulator::Schedule(MicroSeconds(1), [this, &ids]() { ids.push_back(channel->SendMessage(1, 2, 1000)); });
    Simulator::Run();
    // Hand values (ps): 5e6 + n / 0.45 -> 5002222, 5142222, 7222222, 22777778.
    const int64_t expected[] = {5002222, 5142222, 7222222, 22777778, 7222222};
    for (size_t i = 0; i < 5; ++i)
    {
        EXPECT_NEAR(At(ids[i]), expected[i], 1) << "message " << i; // one rounding
        EXPECT_EQ(delivered[ids[i]].sendTime, Time(0));
        EXPECT_EQ(contexts[ids[i]], nodes.Get(1)->GetId()); // delivered in the receiver's context
    }
    EXPECT_NEAR(At(ids[5]), 1000000 + 5002222, 1); // sent at 1 us
    EXPECT_EQ(delivered[ids[5]].src, 1u);
    EXPECT_EQ(delivered[ids[5]].dst, 2u);
    EXPECT_EQ(delivered[ids[2]].bytes, 1000000u);
    EXPECT_EQ(channel->GetMessagesDelivered(), 6u);
    EXPECT_EQ(channel->GetBytesDelivered(), 1000u + 64000 + 1000000 + 8000000 + 1000000 + 1000);
}

TEST_F(AnalyticChannelTest, TracesAndPerMessageCallback)
{
    Build(2, CreateObject<AlphaBetaModel>(), AnalyticChannel::NONE);
    std::vector<Time> took;
    uint32_t sent = 0;
    channel->TraceConnectWithoutContext("MessageSent",
                                        MakeBoundCallback(+[](uint32_t* n, const AnalyticMessage&) { ++*n; }, &sent));
    channel->TraceConnectWithoutContext(
        "MessageDelivered",
        MakeBoundCallback(+[](std::vector<Time>* v, const AnalyticMessage&, Time t) { v->push_back(t); }, &took));
    Time perMessage;
    const uint64_t id = devices[0]->SendMessage(1, 2250000, [&perMessage](const AnalyticMessage& m) {
        perMessage = m.deliveryTime;
    });
    Simulator::Run();
    EXPECT_EQ(sent, 1u);
    ASSERT_EQ(took.size(), 1u);
    // At the crossover both terms are 5 us: 10 us (one rounding, 1 ps).
    EXPECT_NEAR(took[0].GetPicoSeconds(), 10000000, 1);
    EXPECT_EQ(perMessage, delivered[id].deliveryTime);
}

TEST_F(AnalyticChannelTest, NetDeviceSendDeliversThePacket)
{
    Build(3, CreateObject<AlphaBetaModel>(), AnalyticChannel::NONE);
    uint32_t size = 0;
    uint16_t protocol = 0;
    Address from;
    Time at;
    devices[2]->SetReceiveCallback(
        [&](Ptr<NetDevice>, Ptr<const Packet> p, uint16_t proto, const Address& src) {
            size = p->GetSize();
            protocol = proto;
            from = src;
            at = Simulator::Now();
            return true;
        });
    EXPECT_TRUE(devices[0]->Send(Create<Packet>(64000), devices[2]->GetAddress(), 0x0800));
    Simulator::Run();
    EXPECT_EQ(size, 64000u);
    EXPECT_EQ(protocol, 0x0800);
    EXPECT_EQ(from, devices[0]->GetAddress());
    EXPECT_NEAR(at.GetPicoSeconds(), 5142222, 1); // 5 us + 64000 / 450 GB/s
    EXPECT_FALSE(devices[0]->IsPointToPoint());   // three devices
    EXPECT_EQ(channel->GetNDevices(), 3u);
    EXPECT_EQ(devices[1]->GetNode(), nodes.Get(1));
}

TEST_F(AnalyticChannelTest, EndpointLogGpTrainCpuBound)
{
    // o = 2, g = 0.5, 1001 B: the sender posts a message every max(2, 0.5 + 1) = 2 us;
    // the first arrives after 2o + L + (n-1)G = 8 us, the k-th at 8 + 2 (k - 1) us.
    Build(2, LogGp(2, 0.5), AnalyticChannel::ENDPOINT);
    std::vector<uint64_t> ids;
    for (int i = 0; i < 5; ++i)
    {
        ids.push_back(channel->SendMessage(0, 1, 1001));
    }
    Simulator::Run();
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_EQ(At(ids[i]), (8 + 2 * i) * 1000000LL) << i; // all durations are whole ps: exact
    }
    // The last one is LogGpModel's train formula: 16 us.
    EXPECT_EQ(At(ids[4]), 16000000);
}

TEST_F(AnalyticChannelTest, EndpointLogGpTrainNetworkBound)
{
    // o = 1, g = 3: interval max(1, 3 + 1) = 4 us; T = 2 + 3 + 1 = 6 us; 6, 10, 14, 18, 22 us.
    Build(2, LogGp(1, 3), AnalyticChannel::ENDPOINT);
    std::vector<uint64_t> ids;
    for (int i = 0; i < 5; ++i)
    {
        ids.push_back(channel->SendMessage(0, 1, 1001));
    }
    Simulator::Run();
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_EQ(At(ids[i]), (6 + 4 * i) * 1000000LL) << i;
    }
}

TEST_F(AnalyticChannelTest, EndpointReceiverServesOneMessageAtATime)
{
    // Two senders, one receiver, o = 1, g = 3, 1001 B each at t = 0: both arrive at
    // o + (n-1)G + L = 5 us. The first is received (its 1 us stream already ended at
    // 5 us) and costs o: 6 us. The second's stream ends 1 us after the first's, at
    // 6 us, then o: 7 us.
    Build(3, LogGp(1, 3), AnalyticChannel::ENDPOINT);
    const uint64_t a = channel->SendMessage(0, 2, 1001);
    const uint64_t b = channel->SendMessage(1, 2, 1001);
    Simulator::Run();
    EXPECT_EQ(At(a), 6000000);
    EXPECT_EQ(At(b), 7000000);
}

TEST_F(AnalyticChannelTest, EndpointAlphaBetaSerializesTheNic)
{
    // 5 us, 450 GB/s, two 1 MB messages from one sender: the second starts
    // injecting when the first's 2.2222 us transfer ends: 7.2222 and 9.4444 us.
    Build(2, CreateObject<AlphaBetaModel>(), AnalyticChannel::ENDPOINT);
    const uint64_t a = channel->SendMessage(0, 1, 1000000);
    const uint64_t b = channel->SendMessage(0, 1, 1000000);
    Simulator::Run();
    EXPECT_NEAR(At(a), 7222222, 1); // one rounding of the transfer time
    EXPECT_NEAR(At(b), 9444444, 2); // two roundings
}

namespace
{
AnalyticLink
Link(uint32_t id, const char* rate, Time latency)
{
    AnalyticLink l;
    l.id = id;
    l.bandwidth = DataRate(rate);
    l.latency = latency;
    return l;
}

Ptr<AlphaBetaModel>
TwoMicroseconds()
{
    // alpha 2 us, beta 450 GB/s: the model's beta is above the links', so only the links limit.
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("Alpha", TimeValue(MicroSeconds(2)));
    return m;
}
} // namespace

TEST_F(AnalyticChannelTest, SharedTwoMessagesHalveTheLink)
{
    // One 100 GB/s link, 1 us latency, crossed by 0 -> 2 and 1 -> 2. Two 1 MB
    // messages at t = 0 each get 50 GB/s: 20 us, delivered 20 + 2 + 1 = 23 us.
    // (Alone: 10 + 3 = 13 us.)
    Build(3, TwoMicroseconds(), AnalyticChannel::SHARED);
    channel->SetRoute(0, 2, {Link(7, "800Gbps", MicroSeconds(1))});
    channel->SetRoute(1, 2, {Link(7, "800Gbps", MicroSeconds(1))});
    const uint64_t a = channel->SendMessage(0, 2, 1000000);
    const uint64_t b = channel->SendMessage(1, 2, 1000000);
    Simulator::Run();
    EXPECT_NEAR(At(a), 23000000, 1);
    EXPECT_NEAR(At(b), 23000000, 1);
    const uint64_t c = channel->SendMessage(0, 2, 1000000);
    Simulator::Run();
    EXPECT_NEAR(At(c) - 23000000, 13000000, 1);
    EXPECT_EQ(channel->GetActiveFlows(), 0u);
}

TEST_F(AnalyticChannelTest, SharedStaggeredStartsByHand)
{
    // A at 0, B at 5 us, 1 MB each on the 100 GB/s link. A alone until 5 us sends
    // 500 KB; both at 50 GB/s until A's other 500 KB is through at 15 us (B has
    // 500 KB then); B alone at 100 GB/s for its last 500 KB: 20 us.
    // Delivered + alpha 2 us + link 1 us: A 18 us, B 23 us.
    Build(3, TwoMicroseconds(), AnalyticChannel::SHARED);
    channel->SetRoute(0, 2, {Link(7, "800Gbps", MicroSeconds(1))});
    channel->SetRoute(1, 2, {Link(7, "800Gbps", MicroSeconds(1))});
    const uint64_t a = channel->SendMessage(0, 2, 1000000);
    uint64_t b = 0;
    Simulator::Schedule(MicroSeconds(5), [&]() { b = channel->SendMessage(1, 2, 1000000); });
    Simulator::Run();
    EXPECT_NEAR(At(a), 18000000, 2); // two recomputations, each rounded once
    EXPECT_NEAR(At(b), 23000000, 3);
}

TEST_F(AnalyticChannelTest, SharedIsMaxMinFair)
{
    // A crosses link 1 (100 GB/s); B crosses link 1 and link 2 (20 GB/s). Max-min:
    // B is held to 20 GB/s by link 2, A takes the other 80 GB/s of link 1.
    // A: 1 MB / 80 GB/s = 12.5 us (+ 2 us + 1 us) = 15.5 us. B: 1 MB / 20 GB/s = 50 us
    // (+ 2 us + 1 us + 0) = 53 us; A leaving does not speed B (link 2 binds).
    Build(3, TwoMicroseconds(), AnalyticChannel::SHARED);
    channel->SetRoute(0, 2, {Link(1, "800Gbps", MicroSeconds(1))});
    channel->SetRoute(1, 2, {Link(1, "800Gbps", MicroSeconds(1)), Link(2, "160Gbps", Time(0))});
    const uint64_t a = channel->SendMessage(0, 2, 1000000);
    const uint64_t b = channel->SendMessage(1, 2, 1000000);
    Simulator::Run();
    EXPECT_NEAR(At(a), 15500000, 1);
    EXPECT_NEAR(At(b), 53000000, 2);
}

TEST_F(AnalyticChannelTest, SharedModelBandwidthCapsEachMessage)
{
    // The model's beta (50 GB/s) caps a lone message below the 100 GB/s link:
    // 1 MB / 50 GB/s = 20 us + alpha 2 us + link 1 us = 23 us, as the model alone
    // (22 us) plus the link latency.
    Ptr<AlphaBetaModel> m = TwoMicroseconds();
    m->SetAttribute("Beta", DataRateValue(DataRate("400Gbps")));
    Build(2, m, AnalyticChannel::SHARED);
    channel->SetRoute(0, 1, {Link(1, "800Gbps", MicroSeconds(1))});
    const uint64_t a = channel->SendMessage(0, 1, 1000000);
    // No route back: the model's time alone, 22 us.
    const uint64_t b = channel->SendMessage(1, 0, 1000000);
    Simulator::Run();
    EXPECT_NEAR(At(a), 23000000, 1);
    EXPECT_NEAR(At(b), 22000000, 1);
}

TEST_F(AnalyticChannelTest, RouteLinkBandwidthMustAgree)
{
    Build(3, TwoMicroseconds(), AnalyticChannel::SHARED);
    channel->SetRoute(0, 2, {Link(7, "800Gbps", MicroSeconds(1))});
    EXPECT_THROW(channel->SetRoute(1, 2, {Link(7, "400Gbps", MicroSeconds(1))}), InputError);
}

TEST_F(AnalyticChannelTest, DeliveryCallbacksMaySendAgain)
{
    // A ring 0 -> 1 -> 2 -> 0 of 1000-B messages, each sent on the previous one's
    // delivery: the third arrives at 3 T(1000) = 3 x 5002222 ps (one rounding per
    // hop: 3 ps). Meanwhile two messages due at the same instant at different
    // nodes are each delivered in their own node's context.
    Build(3, CreateObject<AlphaBetaModel>(), AnalyticChannel::NONE);
    std::vector<Time> ring;
    std::function<void(const AnalyticMessage&)> next = [&](const AnalyticMessage& m) {
        ring.push_back(m.deliveryTime);
        if (ring.size() < 3)
        {
            channel->SendMessage(m.dst, (m.dst + 1) % 3, 1000, next);
        }
    };
    channel->SendMessage(0, 1, 1000, next);
    const uint64_t toOne = channel->SendMessage(2, 1, 64000);
    const uint64_t toTwo = channel->SendMessage(0, 2, 64000);
    Simulator::Run();
    ASSERT_EQ(ring.size(), 3u);
    EXPECT_NEAR(ring[2].GetPicoSeconds(), 3 * 5002222, 3);
    EXPECT_EQ(At(toOne), At(toTwo));
    EXPECT_EQ(contexts[toOne], nodes.Get(1)->GetId());
    EXPECT_EQ(contexts[toTwo], nodes.Get(2)->GetId());
}

TEST_F(AnalyticChannelTest, NoneDeliversInTimeThenSendOrderAcrossContexts)
{
    // Many messages in flight with many equal delivery times (four sizes,
    // three send instants, four receivers): the channel's order is time first,
    // then send order, each in its receiver's context, at the model's time to
    // the picosecond.
    Build(4, CreateObject<AlphaBetaModel>(), AnalyticChannel::NONE);
    struct Seen
    {
        int64_t ps;
        uint64_t id;
        uint32_t context;
        uint32_t dst;
    };

    std::vector<Seen> seen;
    channel->SetDeliveryCallback([&seen](const AnalyticMessage& m) {
        seen.push_back({m.deliveryTime.GetPicoSeconds(), m.id, Simulator::GetContext(), m.dst});
    });
    const uint64_t sizes[] = {1000, 64000, 1000000, 64000};
    std::map<uint64_t, Time> expectedAt;
    auto sendBatch = [&](uint32_t salt) {
        for (uint32_t i = 0; i < 500; ++i)
        {
            const uint32_t src = (i * 7 + salt) % 4;
            const uint32_t dst = (src + 1 + (i + salt) % 3) % 4;
            const uint64_t n = sizes[(i * 5 + salt) % 4];
            const uint64_t id = channel->SendMessage(src, dst, n);
            expectedAt[id] = Simulator::Now() + CreateObject<AlphaBetaModel>()->GetTime(n);
        }
    };
    sendBatch(0);
    // 2.858 us later a 1000-B message sent then is due with the 64000-B ones sent at 0.
    Simulator::Schedule(PicoSeconds(5142222 - 5002222), [&sendBatch]() { sendBatch(1); });
    Simulator::Schedule(MicroSeconds(3), [&sendBatch]() { sendBatch(2); });
    Simulator::Run();
    ASSERT_EQ(seen.size(), 1500u);
    for (size_t i = 0; i < seen.size(); ++i)
    {
        EXPECT_EQ(seen[i].ps, expectedAt[seen[i].id].GetPicoSeconds()) << "message " << seen[i].id;
        EXPECT_EQ(seen[i].context, nodes.Get(seen[i].dst)->GetId());
        if (i > 0)
        {
            const bool ordered =
                seen[i - 1].ps < seen[i].ps || (seen[i - 1].ps == seen[i].ps && seen[i - 1].id < seen[i].id);
            EXPECT_TRUE(ordered) << "delivery " << i << ": message " << seen[i].id << " at " << seen[i].ps
                                 << " ps after message " << seen[i - 1].id << " at " << seen[i - 1].ps;
        }
    }
    // The batches do produce ties across senders and instants.
    size_t ties = 0;
    for (size_t i = 1; i < seen.size(); ++i)
    {
        ties += seen[i].ps == seen[i - 1].ps;
    }
    EXPECT_GT(ties, 1000u);
}
