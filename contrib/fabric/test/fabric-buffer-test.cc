// SPDX-License-Identifier: GPL-2.0-only
//
// The shared buffer (reserve, dynamic threshold, headroom, XOFF/XON) and the
// RED marker, each on its own, against hand-derived numbers (RED at a switch
// egress end to end: fabric-ecn-test.cc; XON lifted by another port's
// drain: fabric-switch-test.cc).
#include "ecn-marker.h"
#include "fabric-helper.h"
#include "simulator-test.h"
#include "switch-buffer.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
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

TEST_F(FabricBufferTest, ReservePerPortLeavesMoreSharedBufferAndIsSharedByClasses)
{
    // PerPort: one 4096 B reserve per port, 2 x 4096 from the pool instead of
    // 2 x 8 x 4096: F = 1 000 000 - 75 000 - 8192 = 916 808 B, T = F / 8 =
    // 114 601 B (PerPortClass: 859 464 / 8 = 107 433 B). The shared pool
    // takes m packets while 9 m + 8 <= F / 1024 = 895.3: m <= 98, 99
    // packets; XOFF at the 4 + 99 + 1 = 104th (PerPortClass: the 98th).
    Ptr<FabricSwitchBuffer> b = CreateObject<FabricSwitchBuffer>();
    b->SetAttribute("BufferBytes", UintegerValue(1000000));
    b->SetAttribute("ReserveAccounting", EnumValue(FabricSwitchBuffer::PER_PORT));
    b->AddPort(0, FabricSwitchBuffer::LOSSLESS, 37500);
    b->AddPort(1, FabricSwitchBuffer::LOSSLESS, 37500);
    EXPECT_EQ(b->GetTotalReserveBytes(), 8192u);
    EXPECT_EQ(b->GetThreshold(), 114601u);
    EXPECT_EQ(TwoPortBuffer()->GetThreshold(), 107433u);
    uint32_t admitted = 0;
    while (!b->IsXoffCondition(0, 3))
    {
        ASSERT_TRUE(b->Admit(0, 3, 1024));
        ++admitted;
        ASSERT_LT(admitted, 1000u);
    }
    EXPECT_EQ(admitted, 104u);
    // The port's reserve is full (class 3 took it): a packet of class 2 on
    // the same port goes to the shared pool, where PerPortClass would have
    // put it in class 2's own reserve.
    ASSERT_TRUE(b->Admit(0, 2, 1024));
    EXPECT_EQ(b->GetSharedUsed(0, 2), 1024u);
    Ptr<FabricSwitchBuffer> c = TwoPortBuffer();
    ASSERT_TRUE(c->Admit(0, 3, 4096));
    ASSERT_TRUE(c->Admit(0, 2, 1024));
    EXPECT_EQ(c->GetSharedUsed(0, 2), 0u);
    // Releases return the reserve to the port: after class 3 drains, class 2
    // fills the reserve again.
    for (uint32_t i = 0; i < admitted; ++i)
    {
        b->Release(0, 3, 1024);
    }
    EXPECT_EQ(b->GetUsed(0, 3), 0u);
    ASSERT_TRUE(b->Admit(0, 2, 1024));
    EXPECT_EQ(b->GetSharedUsed(0, 2), 1024u);
    EXPECT_EQ(b->GetUsed(0, 2), 2048u);
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

TEST_F(FabricBufferTest, HeadroomDefaultCoversTheRoundTripAndThreeMaxFrames)
{
    // Headroom = 2 x rate x delay + 3 max frames + the pause frame (IEEE
    // 802.1Qbb's delay model plus the packet that trips XOFF, fabric.md). The
    // helper's default link: MTU 4096 + 70 B framing = 4166 B max frame,
    // 84 B pause frame, so the frame part is 3 x 4166 + 84 = 12 582 B.
    //   100 Gb/s, 1 us:   rate x delay = 12 500 B -> 25 000 + 12 582 = 37 582 B
    //                     (the HPCC simulator's 3 x rate x delay is 37 500 B here)
    //   400 Gb/s, 300 ns: 15 000 B                -> 30 000 + 12 582 = 42 582 B
    //   100 Gb/s, 10 ns:  125 B                   ->    250 + 12 582 = 12 832 B
    //                     (3 x rate x delay was 375 B, less than one frame)
    //   400 Gb/s, 100 ns, MTU 4128 (the RoCE tiers' 4096 + 32 B transport
    //                     headers): 5 000 B, frames 3 x 4198 + 84 = 12 678 B
    //                     -> 10 000 + 12 678 = 22 678 B
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch();
    FabricLinkConfig cfg;
    FabricLink l = h.Connect(CreateObject<Node>(), sw, cfg);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l.portB), 37582u);
    cfg.rate = DataRate("400Gbps");
    cfg.delay = NanoSeconds(300);
    FabricLink l2 = h.Connect(CreateObject<Node>(), sw, cfg);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l2.portB), 42582u);
    cfg.rate = DataRate("100Gbps");
    cfg.delay = NanoSeconds(10);
    FabricLink l3 = h.Connect(CreateObject<Node>(), sw, cfg);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l3.portB), 12832u);
    cfg.rate = DataRate("400Gbps");
    cfg.delay = NanoSeconds(100);
    cfg.mtu = 4128;
    FabricLink l4 = h.Connect(CreateObject<Node>(), sw, cfg);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l4.portB), 22678u);
    // The max frame is the larger of the link's two ends: a 9000 B MTU at the
    // sender (9070 B frames), the switch port at 4096, 100 Gb/s, 10 ns:
    // 250 + 3 x 9070 + 84 = 27 544 B.
    cfg = FabricLinkConfig();
    cfg.delay = NanoSeconds(10);
    Ptr<Node> big = CreateObject<Node>();
    Ptr<FabricNetDevice> bigDev = CreateObject<FabricNetDevice>();
    FabricHelper::ConfigureDevice(bigDev, cfg);
    bigDev->SetMtu(9000);
    big->AddDevice(bigDev);
    Ptr<FabricNetDevice> swDev = CreateObject<FabricNetDevice>();
    FabricHelper::ConfigureDevice(swDev, cfg);
    sw->AddDevice(swDev);
    Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
    ch->SetDelay(cfg.delay);
    bigDev->Attach(ch);
    swDev->Attach(ch);
    uint32_t port = sw->AddPort(swDev);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(port), 27544u);
    // An explicit headroom overrides the formula.
    cfg.headroomBytes = 100000;
    FabricLink l5 = h.Connect(CreateObject<Node>(), sw, cfg);
    EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l5.portB), 100000u);
}

TEST_F(FabricBufferTest, HeadroomIsOnePoolPerPortForAllItsClasses)
{
    // alpha_DT = 0 and no reserve: every byte of a lossless class goes to
    // headroom. 10 000 B of port headroom, 1000 B packets: class 3 takes 6,
    // class 5 then only the 4 left (not 10 of its own), and both are refused
    // when the port's 10 000 B are in use.
    Ptr<FabricSwitchBuffer> b = CreateObject<FabricSwitchBuffer>();
    b->SetAttribute("BufferBytes", UintegerValue(1000000));
    b->SetAttribute("ReserveBytes", UintegerValue(0));
    b->SetAttribute("Alpha", DoubleValue(0.0));
    b->AddPort(0, FabricSwitchBuffer::LOSSLESS, 10000);
    for (int i = 0; i < 6; ++i)
    {
        ASSERT_TRUE(b->Admit(0, 3, 1000));
    }
    uint32_t class5 = 0;
    while (b->Admit(0, 5, 1000))
    {
        ++class5;
        ASSERT_LT(class5, 100u);
    }
    EXPECT_EQ(class5, 4u);
    EXPECT_FALSE(b->Admit(0, 3, 1000));
    EXPECT_EQ(b->GetPortHeadroomUsed(0), 10000u);
    EXPECT_EQ(b->GetHeadroomUsed(0, 3), 6000u);
    EXPECT_EQ(b->GetHeadroomUsed(0, 5), 4000u);
    EXPECT_EQ(b->GetDrops(), 2u);
    EXPECT_TRUE(b->IsXoffCondition(0, 3));
    EXPECT_TRUE(b->IsXoffCondition(0, 5));
    // One class's departure makes room for the other.
    b->Release(0, 3, 1000);
    EXPECT_EQ(b->GetPortHeadroomUsed(0), 9000u);
    EXPECT_TRUE(b->Admit(0, 5, 1000));
    EXPECT_FALSE(b->Admit(0, 5, 1000));
    // Class 3 drained: it may resume, class 5 still holds headroom.
    b->Release(0, 3, 5000);
    EXPECT_TRUE(b->IsXonCondition(0, 3));
    EXPECT_FALSE(b->IsXonCondition(0, 5));
    EXPECT_EQ(b->GetPortHeadroomUsed(0), 5000u);
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

TEST_F(FabricBufferTest, EcnNamedTablesByHand)
{
    uint64_t kmin = 0;
    uint64_t kmax = 0;
    double pmax = 0;
    // Paper: 5 KB, 200 KB, 1 % at any rate (Zhu et al. 2015).
    FabricEcnMarker::DefaultsForRate(DataRate("400Gbps"), kmin, kmax, pmax, FabricEcnMarker::PAPER);
    EXPECT_EQ(kmin, 5000u);
    EXPECT_EQ(kmax, 200000u);
    EXPECT_DOUBLE_EQ(pmax, 0.01);
    // Linear at 200 Gb/s: 100 x 200 / 25 = 800 KB, 400 x 200 / 25 = 3200 KB
    // (the per-rate table has 600 / 2400 there: the two tables differ).
    FabricEcnMarker::DefaultsForRate(DataRate("200Gbps"), kmin, kmax, pmax, FabricEcnMarker::LINEAR);
    EXPECT_EQ(kmin, 800000u);
    EXPECT_EQ(kmax, 3200000u);
    EXPECT_DOUBLE_EQ(pmax, 0.2);
    // A switch takes its ports' thresholds from the Table default.
    Config::SetDefault("ns3::FabricEcnMarker::Table", EnumValue(FabricEcnMarker::PAPER));
    Ptr<FabricEcnMarker> m = CreateObject<FabricEcnMarker>();
    m->ConfigureForRate(DataRate("100Gbps"));
    Config::SetDefault("ns3::FabricEcnMarker::Table", EnumValue(FabricEcnMarker::PER_RATE));
    EXPECT_EQ(m->GetKmin(), 5000u);
    EXPECT_EQ(m->GetKmax(), 200000u);
}

TEST_F(FabricBufferTest, RedMarkingProbabilityFollowsTheLine)
{
    // Kmin 100 KB, Kmax 400 KB, Pmax 0.2: p(q) = 0.2 (q - 100 000) / 300 000.
    // 20 000 draws per depth: the observed fraction is within 5 standard
    // deviations sqrt(p (1 - p) / n) of p (a false failure has probability
    // below 1e-6 per point; the RNG stream is fixed, so the run is deterministic).
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
    // A buffer like the one above in a real switch: 1 MB, two PFC ports at
    // 100 Gb/s, 1 us with the default headroom 2 x 12 500 + 3 x 4166 + 84 =
    // 37 582 B each. The egress to B is held paused by B, so everything A
    // sends stays in the buffer; 954 B payloads are 1024 B on the wire.
    // F = 1 000 000 - 2 x 37 582 - 65 536 = 859 300 B; as above, m packets
    // in the shared pool admit one more iff m <= (F - 8 x 1024) / (9 x 1024)
    // = 92.35: 93 fit, so after 4 in the reserve the 98th packet spills into
    // headroom and the switch sends XOFF to A right then (its port to A is
    // idle).
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
    ASSERT_EQ(sw->GetBuffer()->GetHeadroomBytes(la.portB), 37582u);
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

namespace
{
struct HeadroomRun
{
    uint64_t headroom{0};     ///< the switch's headroom for A's port
    uint64_t headroomUsed{0}; ///< held by A's port at the end
    uint64_t drops{0};
    uint64_t pausesToA{0};
};

// A -> switch -> C at 100 Gb/s over 10 ns links, 4096 B payloads (4166 B
// frames), 1 MB buffer; C holds the switch's egress paused, so everything A
// sends stays in the buffer until A is paused. With `reverse`, B sends back
// to back to A starting 1 ns before A, so the switch's port to A starts a
// frame 1 ns before each of A's frames has arrived: the XOFF then waits
// behind a whole frame. `headroom` 0 = the default formula.
HeadroomRun
RunIntoPausedEgress(bool reverse, uint64_t headroom)
{
    Config::SetDefault("ns3::FabricSwitchBuffer::BufferBytes", UintegerValue(1000000));
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch();
    FabricLinkConfig cfg;
    cfg.delay = NanoSeconds(10);
    cfg.headroomBytes = headroom;
    FabricLink la = h.Connect(CreateObject<Node>(), sw, cfg);
    FabricLink lb = h.Connect(CreateObject<Node>(), sw, cfg);
    FabricLink lc = h.Connect(sw, CreateObject<Node>(), cfg);
    la.devA->SetFabricAddress(0);
    lb.devA->SetFabricAddress(1);
    lc.devB->SetFabricAddress(2);
    sw->AddRoute(0, {la.portB});
    sw->AddRoute(1, {lb.portB});
    sw->AddRoute(2, {lc.portA});
    lc.devB->GetFlowControl()->IngressCongested(0);
    const Time startA = MicroSeconds(5) + NanoSeconds(1);
    Simulator::Schedule(startA, [&la]() {
        for (int i = 0; i < 100; ++i)
        {
            la.devA->SendFabric(Create<Packet>(4096), FabricHeader(0, 2, 0, 0));
        }
    });
    if (reverse)
    {
        Simulator::Schedule(startA - NanoSeconds(1), [&lb]() {
            for (int i = 0; i < 100; ++i)
            {
                lb.devA->SendFabric(Create<Packet>(4096), FabricHeader(1, 0, 1, 0));
            }
        });
    }
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    HeadroomRun r;
    r.headroom = sw->GetBuffer()->GetHeadroomBytes(la.portB);
    r.headroomUsed = sw->GetBuffer()->GetPortHeadroomUsed(la.portB);
    r.drops = sw->GetDrops();
    r.pausesToA = la.devA->GetCounters().pausesReceived;
    Simulator::Destroy();
    return r;
}
} // namespace

TEST_F(FabricBufferTest, HeadroomHoldsWhatArrivesAfterXoffInTheWorstCase)
{
    // Frame time Tf = 4166 x 8 / 100 Gb/s = 333.28 ns, pause frame 84 B =
    // 6.72 ns, d = 10 ns. Packet P of A completes at the switch at t0, does
    // not fit the shared pool and goes to headroom whole (4166 B): XOFF.
    // A's frames leave A at t0 - d + k Tf (back to back).
    //  - Port to A idle: the pause reaches A at t0 + 6.72 + 10 ns, inside the
    //    frame A started at t0 - d; A finishes it, it arrives at t0 + Tf.
    //    Headroom use: P + 1 frame = 8332 B.
    //  - Port to A busy since t0 - 1 ns: the pause leaves at t0 + Tf - 1 ns,
    //    reaches A at t0 + Tf + 15.72 ns, inside the frame started at
    //    t0 - d + Tf; it arrives at t0 + 2 Tf. Use: P + 2 frames = 12 498 B,
    //    within the default 2 x 125 + 3 x 4166 + 84 = 12 832 B.
    //  - The same with 802.1Qbb's budget alone, 2 x 125 + 2 x 4166 + 84 =
    //    8666 B (no room for P itself): the third frame (12 498 B) is dropped.
    HeadroomRun idle = RunIntoPausedEgress(false, 0);
    EXPECT_EQ(idle.headroom, 12832u);
    EXPECT_EQ(idle.headroomUsed, 2u * 4166u);
    EXPECT_EQ(idle.drops, 0u);
    EXPECT_GT(idle.pausesToA, 0u);
    HeadroomRun busy = RunIntoPausedEgress(true, 0);
    EXPECT_EQ(busy.headroomUsed, 3u * 4166u);
    EXPECT_EQ(busy.drops, 0u);
    EXPECT_GT(busy.pausesToA, 0u);
    HeadroomRun tight = RunIntoPausedEgress(true, 8666);
    EXPECT_EQ(tight.headroomUsed, 2u * 4166u);
    EXPECT_EQ(tight.drops, 1u);
}
