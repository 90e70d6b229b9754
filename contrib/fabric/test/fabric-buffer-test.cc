// SPDX-License-Identifier: GPL-2.0-only
//
// The shared buffer (reserve, dynamic threshold, headroom, XOFF/XON) and the
// RED marker, each on its own, against hand-derived numbers.
#include "ecn-marker.h"
#include "fabric-helper.h"
#include "simulator-test.h"
#include "switch-buffer.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class FabricBufferTest : public hockney::SimulatorTest
{
};

Ptr<FabricSwitchBuffer>
TwoPortBuffer()
{
    Ptr<FabricSwitchBuffer> b = CreateObject<FabricSwitchBuffer>();
    b->SetAttribute("BufferBytes", UintegerValue(1000000));
    b->AddPort(0, FabricSwitchBuffer::LOSSLESS, 37500);
    b->AddPort(1, FabricSwitchBuffer::LOSSLESS, 37500);
    return b;
}

} // namespace

TEST_F(FabricBufferTest, PauseAssertedAtTheComputedByteCount)
{
    // B = 1 MB, 2 ports x 37 500 B headroom, 2 x 8 x 4096 B reserve:
    // F = 1 000 000 - 75 000 - 65 536 = 859 464 B of shareable buffer.
    // 1024 B packets on (port 0, class 3): 4 fill the reserve; with m packets
    // in the shared pool the next one fits iff (m + 1) 1024 <= (F - 1024 m) / 8,
    // i.e. m <= (F / 1024 - 8) / 9 = 92.37: 93 fit, so the 98th packet is the
    // first to spill into headroom, and XOFF is asserted by it.
    const uint64_t F = 1000000 - 2 * 37500 - 2 * 8 * 4096;
    const uint64_t mMax = (F / 1024 - 8) / 9 + 1; // packets the shared pool takes
    ASSERT_EQ(mMax, 93u);
    Ptr<FabricSwitchBuffer> b = TwoPortBuffer();
    EXPECT_EQ(b->GetThreshold(), F / 8);
    uint32_t admitted = 0;
    while (!b->IsXoffCondition(0, 3))
    {
        ASSERT_TRUE(b->Admit(0, 3, 1024));
        ++admitted;
        ASSERT_LT(admitted, 1000u);
    }
    EXPECT_EQ(admitted, 4 + mMax + 1);
    EXPECT_EQ(b->GetSharedUsed(0, 3), mMax * 1024);
    EXPECT_EQ(b->GetHeadroomUsed(0, 3), 1024u);
    // The other port and class are not paused.
    EXPECT_FALSE(b->IsXoffCondition(1, 3));
    EXPECT_FALSE(b->IsXoffCondition(0, 2));

    // Headroom 37 500 B holds floor(37 500 / 1024) = 36 packets; the 37th drops.
    uint32_t inHeadroom = 1;
    while (b->Admit(0, 3, 1024))
    {
        ++inHeadroom;
        ASSERT_LT(inHeadroom, 1000u);
    }
    EXPECT_EQ(inHeadroom, 36u);
    EXPECT_EQ(b->GetDrops(), 1u);

    // XON: headroom drains first (36 releases); then with s = (93 - j) 1024 B
    // shared, XON needs s + 3072 <= (F - s) / 8, i.e. 9 s <= F - 24 576:
    // 93 - j <= 90.59, so j = 3 more releases: XON after 39.
    uint32_t released = 0;
    while (!b->IsXonCondition(0, 3))
    {
        b->Release(0, 3, 1024);
        ++released;
        ASSERT_LT(released, 1000u);
    }
    EXPECT_EQ(released, 39u);
}

TEST_F(FabricBufferTest, LossyPortDropsAtTheDynamicThresholdWithoutHeadroom)
{
    Ptr<FabricSwitchBuffer> b = CreateObject<FabricSwitchBuffer>();
    b->SetAttribute("BufferBytes", UintegerValue(1000000));
    b->AddPort(0, FabricSwitchBuffer::LOSSY, 37500);
    // F = 1 000 000 - 0 headroom - 8 x 4096 = 967 232; m <= (944.56 - 8)/9 = 104.06:
    // 105 shared packets, 4 + 105 admitted, the 110th dropped, never XOFF.
    uint32_t admitted = 0;
    while (b->Admit(0, 0, 1024))
    {
        ++admitted;
        EXPECT_FALSE(b->IsXoffCondition(0, 0));
        ASSERT_LT(admitted, 1000u);
    }
    EXPECT_EQ(admitted, 4u + 105u);
    EXPECT_EQ(b->GetHeadroomBytes(0), 0u);
}

TEST_F(FabricBufferTest, HeadroomDefaultsToThreeTimesRateTimesDelay)
{
    // 100 Gb/s x 1 us = 12 500 B; x 3 = 37 500 B (REFERENCE.md). 400 Gb/s, 300 ns: 45 000 B.
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch();
    FabricLinkConfig cfg;
    FabricLink l = h.Connect(CreateObject<Node>(), sw, cfg);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l.portB), 37500u);
    cfg.rate = DataRate("400Gbps");
    cfg.delay = NanoSeconds(300);
    FabricLink l2 = h.Connect(CreateObject<Node>(), sw, cfg);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l2.portB), 45000u);
    cfg.headroomBytes = 100000;
    FabricLink l3 = h.Connect(CreateObject<Node>(), sw, cfg);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l3.portB), 100000u);
}

TEST_F(FabricBufferTest, EcnDefaultsFollowTheLinkRateTable)
{
    uint64_t kmin = 0;
    uint64_t kmax = 0;
    double pmax = 0;
    FabricEcnMarker::DefaultsForRate(DataRate("25Gbps"), kmin, kmax, pmax);
    EXPECT_EQ(kmin, 100000u);
    EXPECT_EQ(kmax, 400000u);
    EXPECT_DOUBLE_EQ(pmax, 0.2);
    FabricEcnMarker::DefaultsForRate(DataRate("100Gbps"), kmin, kmax, pmax);
    EXPECT_EQ(kmin, 400000u);
    EXPECT_EQ(kmax, 1600000u);
    FabricEcnMarker::DefaultsForRate(DataRate("200Gbps"), kmin, kmax, pmax);
    EXPECT_EQ(kmin, 600000u);
    EXPECT_EQ(kmax, 2400000u);
    FabricEcnMarker::DefaultsForRate(DataRate("400Gbps"), kmin, kmax, pmax);
    EXPECT_EQ(kmin, 800000u);
    EXPECT_EQ(kmax, 3200000u);
}

TEST_F(FabricBufferTest, RedMarkingProbabilityFollowsTheLine)
{
    // Kmin 100 KB, Kmax 400 KB, Pmax 0.2: p(q) = 0.2 (q - 100 000) / 300 000.
    // 20 000 draws per depth: the observed fraction is within 5 standard
    // deviations sqrt(p (1 - p) / n) of p (a false failure has probability
    // below 1e-6 per point; the seed is fixed, so the run is deterministic).
    Ptr<FabricEcnMarker> m = CreateObject<FabricEcnMarker>();
    m->SetThresholds(100000, 400000, 0.2);
    m->AssignStreams(7);
    const int n = 20000;
    for (uint64_t q : {50000, 100000, 130000, 200000, 250000, 340000, 400000, 400001, 900000})
    {
        double p = q <= 100000 ? 0.0 : q > 400000 ? 1.0 : 0.2 * double(q - 100000) / 300000.0;
        int marks = 0;
        for (int i = 0; i < n; ++i)
        {
            marks += m->ShouldMark(q);
        }
        double sigma = std::sqrt(p * (1 - p) / n);
        EXPECT_NEAR(double(marks) / n, p, 5 * sigma + 1e-12) << "queue " << q;
    }
}

TEST_F(FabricBufferTest, EcnMarksInTheIncastReachTheReceiverAsCe)
{
    // ECT(0) incast 4-to-1 at 100 Gb/s with Kmin 20 KB, Kmax 200 KB: the egress
    // queue passes Kmin, so some packets are marked, and every mark the switch
    // counts arrives as CE (and nothing else does).
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch();
    sw->SetAttribute("EcnEnabled", BooleanValue(true));
    FabricLinkConfig cfg;
    cfg.ecnKminBytes = 20000;
    cfg.ecnKmaxBytes = 200000;
    cfg.ecnPmax = 0.2;
    Ptr<Node> r = CreateObject<Node>();
    FabricLink lr = h.Connect(sw, r, cfg);
    lr.devB->SetFabricAddress(9);
    sw->AddRoute(9, {lr.portA});
    sw->AssignStreams(11);
    uint32_t ce = 0;
    lr.devB->SetFabricReceiveCallback(MakeCallback(
        +[](uint32_t* n, Ptr<FabricNetDevice>, Ptr<Packet> p, const FabricHeader& hd) {
            FabricHeader inPacket;
            p->PeekHeader(inPacket);
            // The parsed header and the packet's own bytes agree.
            if (hd.GetEcn() == FabricHeader::CE && inPacket.GetEcn() == FabricHeader::CE)
            {
                ++*n;
            }
        }).Bind(&ce));
    for (uint32_t i = 0; i < 4; ++i)
    {
        FabricLink l = h.Connect(CreateObject<Node>(), sw, cfg);
        l.devA->SetFabricAddress(i);
        for (int k = 0; k < 100; ++k)
        {
            l.devA->SendFabric(Create<Packet>(4096),
                               FabricHeader(i, 9, i, 0, FabricHeader::ECT0));
        }
    }
    Simulator::Run();
    uint64_t marks = lr.devA->GetCounters().ecnMarks;
    EXPECT_GT(marks, 0u);
    EXPECT_EQ(ce, marks);
}

namespace
{
struct PauseProbe
{
    Ptr<FabricNetDevice> ingress;
    uint64_t rxAtFirstPause{0};
    Time firstPause{Time::Max()};
    void TxBegin(Ptr<const Packet> p)
    {
        FabricHeader h;
        p->PeekHeader(h);
        if (h.GetKind() == FabricHeader::PFC_PAUSE && firstPause == Time::Max())
        {
            firstPause = Simulator::Now();
            rxAtFirstPause = ingress->GetCounters().rxPackets;
        }
    }
};
} // namespace

TEST_F(FabricBufferTest, SwitchSendsXoffWhenTheComputedByteCountHasArrived)
{
    // The same buffer as above in a real switch: 1 MB, two PFC ports with
    // 37.5 KB headroom (100 Gb/s, 1 us). The egress to B is held paused by B,
    // so everything A sends stays in the buffer; 954 B payloads are 1024 B on
    // the wire. By the derivation above, the 98th packet spills into headroom
    // and the switch sends XOFF to A right then (its port to A is idle).
    Config::SetDefault("ns3::FabricSwitchBuffer::BufferBytes", UintegerValue(1000000));
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch();
    FabricLinkConfig cfg;
    cfg.minWireBytes = 0;
    FabricLink la = h.Connect(CreateObject<Node>(), sw, cfg);
    FabricLink lb = h.Connect(sw, CreateObject<Node>(), cfg);
    la.devA->SetFabricAddress(0);
    lb.devB->SetFabricAddress(1);
    sw->AddRoute(1, {lb.portA});
    ASSERT_EQ(sw->GetBuffer()->GetHeadroomBytes(la.portB), 37500u);
    PauseProbe probe;
    probe.ingress = la.devB;
    la.devB->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PauseProbe::TxBegin, &probe));
    // B pauses the switch's egress (XOFF from B's own port) before A starts.
    lb.devB->GetFlowControl()->IngressCongested(0);
    Simulator::Schedule(MicroSeconds(5), [&la]() {
        for (int i = 0; i < 200; ++i)
        {
            la.devA->SendFabric(Create<Packet>(954), FabricHeader(0, 1, 0, 0));
        }
    });
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();
    ASSERT_NE(probe.firstPause, Time::Max());
    EXPECT_EQ(probe.rxAtFirstPause, 98u);
    // A stops; what it had already sent lands in headroom, none is dropped.
    EXPECT_EQ(sw->GetDrops(), 0u);
    EXPECT_GT(la.devA->GetCounters().pausesReceived, 0u);
    EXPECT_LT(la.devA->GetCounters().txPackets, 200u);
}
