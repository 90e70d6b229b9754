// SPDX-License-Identifier: GPL-2.0-only
//
// Faults (FabricFaultInjector) on the roce-leafspine preset with 2 leaves, 2
// spines and 2 hosts a leaf (100 Gb/s PFC links, 70 B framing, 10 ns below a
// leaf, 100 ns leaf-spine, 500 ns store-and-forward switches): a link down
// and up with reroute moves traffic to the other spine, in-flight loss is
// counted exactly, a blackhole recovers one retransmission timeout after the
// last packet, a slow link's transfer time, and a PFC storm the watchdog
// names. Numbers by hand in the comments.
#include "fabric-channel.h"
#include "fabric-fault-injector.h"
#include "fabric-switch.h"
#include "pfc-flow-control.h"
#include "rdma-helper.h"
#include "simulator-test.h"
#include "topology-builder.h"
#include "topology-presets.h"

#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/string.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class FabricFaultTest : public hockney::SimulatorTest
{
};

// host0 host1 | leaf0, host2 host3 | leaf1; links 0-3 hosts, 4 leaf0-spine0,
// 5 leaf0-spine1, 6 leaf1-spine0, 7 leaf1-spine1 (hockney topology --show=links).
constexpr uint32_t kLeaf0Spine0 = 4;
constexpr uint32_t kLeaf0Spine1 = 5;
constexpr uint32_t kPayload = 1000; // wire 1000 + 70 = 1070 B: 85.6 ns at 100 Gb/s

Ptr<FabricNetwork>
Build()
{
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("roce-leafspine:leaves=2,spines=2,hosts-per-leaf=2"));
    return net;
}

void
SendAt(Ptr<FabricNetwork> net, Time at, uint32_t src, uint32_t dst, uint32_t flow, uint8_t cls = 0)
{
    Simulator::Schedule(at, [net, src, dst, flow, cls]() {
        net->GetEgressDevice(src, dst, flow)
            ->SendFabric(Create<Packet>(kPayload), FabricHeader(src, dst, flow, cls));
    });
}

/// A fault of \p kind on link (or node) \p target from \p at to \p until.
FabricFault
MakeFault(FabricFault::Kind kind, uint32_t target, Time at, Time until = Time::Max())
{
    FabricFault f;
    f.kind = kind;
    f.link = target;
    f.node = target;
    f.at = at;
    f.until = until;
    f.label = "test";
    return f;
}

/// An injector on \p net with \p faults scheduled.
Ptr<FabricFaultInjector>
Inject(Ptr<FabricNetwork> net, const std::vector<FabricFault>& faults)
{
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetNetwork(net);
    inj->Schedule(faults);
    return inj;
}

uint64_t
TxBytes(Ptr<FabricNetwork> net, uint32_t link)
{
    return net->GetLinkDevice(link, true)->GetCounters().txBytes; // end a = leaf0
}

} // namespace

TEST_F(FabricFaultTest, LinkDownWithRerouteMovesTrafficToTheOtherSpine)
{
    Ptr<FabricNetwork> net = Build();
    Inject(net, {MakeFault(FabricFault::LINK_DOWN, kLeaf0Spine0, MicroSeconds(20), MicroSeconds(80))});
    // 64 flows host0 -> host2 in each of three rounds (0, 40, 100 us), far
    // apart: a round is 64 x 85.6 ns = 5.5 us of serialization plus about
    // 1.6 us of path, so nothing is on the wire at 20 or 80 us.
    Ptr<FabricSwitch> leaf0 = net->GetSwitch(net->GetTopology().NodeId("leaf0"));
    const uint32_t port0 = net->GetTopology().PortIndex(net->GetTopology().NodeId("leaf0"), kLeaf0Spine0);
    uint32_t onSpine0 = 0;
    for (uint32_t f = 0; f < 64; ++f)
    {
        onSpine0 += leaf0->SelectEgress(FabricHeader(0, 2, f, 0)) == port0 ? 1 : 0;
        for (double t : {0.0, 40.0, 100.0})
        {
            SendAt(net, MicroSeconds(t), 0, 2, f);
        }
    }
    ASSERT_GT(onSpine0, 0u);
    ASSERT_LT(onSpine0, 64u); // the hash uses both uplinks before the fault
    std::vector<uint64_t> at30;
    Simulator::Schedule(MicroSeconds(30), [&]() {
        at30 = {TxBytes(net, kLeaf0Spine0), TxBytes(net, kLeaf0Spine1)};
        // While down, every flow's route is the other uplink.
        for (uint32_t f = 0; f < 64; ++f)
        {
            EXPECT_NE(leaf0->SelectEgress(FabricHeader(0, 2, f, 0)), port0);
        }
    });
    std::vector<uint64_t> at70;
    Simulator::Schedule(MicroSeconds(70), [&]() {
        at70 = {TxBytes(net, kLeaf0Spine0), TxBytes(net, kLeaf0Spine1)};
    });
    Simulator::Run();
    // Round 1 split by the hash; round 2 all on spine1; round 3 split again.
    ASSERT_EQ(at30.size(), 2u);
    EXPECT_EQ(at30[0], onSpine0 * kPayload);
    EXPECT_EQ(at30[1], (64 - onSpine0) * kPayload);
    EXPECT_EQ(at70[0], onSpine0 * kPayload);
    EXPECT_EQ(at70[1], (64 - onSpine0) * kPayload + 64 * kPayload);
    EXPECT_EQ(TxBytes(net, kLeaf0Spine0), 2 * onSpine0 * kPayload);
    EXPECT_EQ(TxBytes(net, kLeaf0Spine1), (2 * (64 - onSpine0) + 64) * kPayload);
    FabricConservation c = net->CheckConservation();
    EXPECT_TRUE(c.ok) << c.message;
    EXPECT_EQ(c.delivered, 3u * 64 * kPayload);
    EXPECT_EQ(c.dropped, 0u);
}

TEST_F(FabricFaultTest, PacketsOnTheDeadLinkAreCountedAsLinkDownDrops)
{
    // 100 packets of flow 0, host0 -> host2, back to back from t = 0; the
    // leaf0 uplink flow 0 takes goes down at 2 us (blackhole, never up).
    // Packet i leaves leaf0 at (i+1) x 85.6 ns + 10 ns + 500 ns (no queue:
    // it arrives as fast as the uplink sends) and reaches the spine 85.6 +
    // 100 ns later. It arrives iff (i+1) x 85.6 + 695.6 < 2000 ns, i <= 14:
    // 15 delivered, 85 lost (in flight at 2 us, or sent onto the dead link).
    Ptr<FabricNetwork> net = Build();
    Ptr<FabricSwitch> leaf0 = net->GetSwitch(net->GetTopology().NodeId("leaf0"));
    const uint32_t port = leaf0->SelectEgress(FabricHeader(0, 2, 0, 0));
    const uint32_t link = net->GetTopology().PortsOf(net->GetTopology().NodeId("leaf0")).at(port);
    Ptr<FabricFaultInjector> inj = Inject(net, {});
    Simulator::Schedule(MicroSeconds(2), [&]() { inj->SetLinkUp(link, false, false); });
    for (int i = 0; i < 100; ++i)
    {
        net->GetEgressDevice(0, 2, 0)->SendFabric(Create<Packet>(kPayload), FabricHeader(0, 2, 0, 0));
    }
    Simulator::Run();
    FabricConservation c = net->CheckConservation();
    EXPECT_TRUE(c.balanced) << c.message;
    EXPECT_TRUE(c.lossless);
    EXPECT_TRUE(c.ok) << c.message; // attributed to the fault, not an error
    EXPECT_EQ(c.delivered, 15u * kPayload);
    EXPECT_EQ(c.droppedBy[kDropLinkDown], 85u * kPayload);
    EXPECT_EQ(c.faultDropped, 85u * kPayload);
    EXPECT_EQ(c.droppedBy[kDropBuffer], 0u);
    // Counted at the spine's port, where they did not arrive.
    const FabricPortCounters spine = net->GetLinkDevice(link, false)->GetCounters();
    EXPECT_EQ(spine.dropsBy[kDropLinkDown], 85u);
    EXPECT_EQ(spine.rxPackets, 15u);
    EXPECT_NE(c.message.find("link_down 85000 B"), std::string::npos) << c.message;
}

TEST_F(FabricFaultTest, BlackholeRecoversOneRetransmissionTimeoutAfterTheLastPacket)
{
    // An RDMA write of 32 KiB (32 packets of 1 KiB, roce-100g NIC) from host0
    // to host2 whose access link is down from 0 to 20 us (blackhole). Every
    // first transmission is lost; the QP's transport timer, armed by the
    // message's only AckReq packet (its last; AckInterval 64), fires RTO =
    // 50 us after it, and go-back-N resends the message over the repaired
    // link. Recovery then takes what the same message takes on a clean
    // fabric from its first packet on (the resend needs no DMA: the data is
    // in the NIC, so it may only be faster, by at most the clean run's DMA
    // lead; measured 0 here: the NIC sends at line rate either way).
    const uint64_t bytes = 32 * 1024;
    auto run = [&](bool fault, Time& firstTx, Time& lastFirstTx, Time& done, RdmaNicCounters& k,
                   FabricConservation& c) {
        Ptr<FabricNetwork> net = Build();
        RdmaHelper rdma;
        Ptr<RdmaNic> a = rdma.Install(net->GetEndpointDevice(0), "roce-100g");
        Ptr<RdmaNic> b = rdma.Install(net->GetEndpointDevice(2), "roce-100g");
        a->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
        auto [qa, qb] = RdmaNic::Connect(a, b, 3);
        (void)qb;
        if (fault)
        {
            FabricFault f = MakeFault(FabricFault::LINK_DOWN, 0, Time(0), MicroSeconds(20)); // host0-leaf0
            f.reroute = false;
            Inject(net, {f});
        }
        firstTx = Time::Max();
        uint32_t sent = 0;
        net->GetEndpointDevice(0)->TraceConnectWithoutContext(
            "PhyTxBegin", MakeCallback(+[](Time* first, Time* last, uint32_t* n, Ptr<const Packet> p) {
                if (p->GetSize() > 1000 && *n < 32)
                {
                    *first = std::min(*first, Simulator::Now());
                    *last = Simulator::Now();
                    ++*n;
                }
            }).Bind(&firstTx, &lastFirstTx, &sent));
        b->SetReceiveCompletionCallback(MakeCallback(+[](Time* t, const RdmaCompletion&) {
                                            *t = Simulator::Now();
                                        }).Bind(&done));
        a->PostSend(qa, bytes, true, 0);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        k = a->GetCounters();
        c = net->CheckConservation();
        Simulator::Destroy();
    };
    Time f0, l0, t0, f1, l1, t1;
    RdmaNicCounters k0, k1;
    FabricConservation c0, c1;
    run(false, f0, l0, t0, k0, c0);
    run(true, f1, l1, t1, k1, c1);
    ASSERT_TRUE(t0.IsStrictlyPositive());
    ASSERT_TRUE(t1.IsStrictlyPositive());
    EXPECT_EQ(k0.timeouts, 0u);
    EXPECT_EQ(k1.timeouts, 1u);
    EXPECT_EQ(k1.bytesRetransmitted, bytes);
    EXPECT_LT(l1, MicroSeconds(20)); // the whole first attempt went into the void
    EXPECT_TRUE(c1.ok) << c1.message;
    EXPECT_EQ(c1.droppedBy[kDropLinkDown], bytes + 32 * 12 + 16 + 4); // payload + BTH each, RETH, ImmDt
    const Time expected = l1 + MicroSeconds(50) + (t0 - f0);
    // 1 ns: the resend and the clean run's packets leave at line rate alike;
    // what remains is picosecond rounding of the serializations.
    EXPECT_NEAR(t1.GetSeconds(), expected.GetSeconds(), 1e-9)
        << "done " << t1.As(Time::US) << " expected " << expected.As(Time::US);
}

TEST_F(FabricFaultTest, SlowLinkTransferTimeByHand)
{
    // host0 -> host1 (same leaf), 100 packets of 1000 B with host0's link at
    // rate_factor 0.25 (25 Gb/s) from t = 0: each takes 1070 x 8 / 25e9 =
    // 342.4 ns; the last arrives at 100 x 342.4 ns + 10 ns + 500 ns (leaf0) +
    // 85.6 ns (leaf0 -> host1 at 100 Gb/s) + 10 ns = 34 845.6 ns.
    Ptr<FabricNetwork> net = Build();
    FabricFault slow = MakeFault(FabricFault::SLOW_LINK, 0, Time(0));
    slow.rate = DataRate("25Gbps");
    Inject(net, {slow});
    EXPECT_EQ(net->GetLinkDevice(0, false)->GetDataRate(), DataRate("25Gbps")); // both directions
    Time last;
    net->GetEndpointDevice(1)->SetFabricReceiveCallback(
        MakeCallback(+[](Time* t, Ptr<FabricNetDevice>, Ptr<Packet>, const FabricHeader&) {
            *t = Simulator::Now();
        }).Bind(&last));
    for (int i = 0; i < 100; ++i)
    {
        net->GetEndpointDevice(0)->SendFabric(Create<Packet>(kPayload), FabricHeader(0, 1, 0, 0));
    }
    Simulator::Run();
    EXPECT_EQ(last, PicoSeconds(34845600));
    EXPECT_TRUE(net->CheckConservation().ok);
}

namespace
{

struct StormRun
{
    Time victimPaused;   ///< leaf0's port towards host1: time paused by host1
    std::vector<FabricPfcStorm> storms;
    std::string report;
    Time lastArrival;
    uint64_t delivered{0};
};

// host1's NIC storms class 3 from 10 us to 310 us; host0 sends 20 packets
// to host1 in class 3 at 50 us (the victim flow).
StormRun
RunStorm(const std::string& action)
{
    Config::SetDefault("ns3::FabricPfcFlowControl::StormDetectionTime", TimeValue(MicroSeconds(100)));
    Config::SetDefault("ns3::FabricPfcFlowControl::StormRestorationTime", TimeValue(MicroSeconds(200)));
    Config::SetDefault("ns3::FabricPfcFlowControl::StormAction", StringValue(action));
    Ptr<FabricNetwork> net = Build();
    Ptr<FabricWatchdog> w = net->InstallWatchdog(MilliSeconds(1));
    FabricFault storm =
        MakeFault(FabricFault::PFC_STORM, net->GetTopology().NodeId("host1"), MicroSeconds(10), MicroSeconds(310));
    storm.classMask = 1u << 3;
    Inject(net, {storm});
    StormRun r;
    net->GetEndpointDevice(1)->SetFabricReceiveCallback(
        MakeCallback(+[](Time* t, Ptr<FabricNetDevice>, Ptr<Packet>, const FabricHeader&) {
            *t = Simulator::Now();
        }).Bind(&r.lastArrival));
    for (int i = 0; i < 20; ++i)
    {
        SendAt(net, MicroSeconds(50), 0, 1, 0, 3);
    }
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    r.victimPaused = net->GetLinkDevice(1, false)->GetCounters().pausedTime; // link 1: host1-leaf0, b = leaf0
    r.storms = w->GetPfcStorms();
    r.report = w->GetPfcStormReport();
    r.delivered = net->CheckConservation().delivered;
    EXPECT_TRUE(net->CheckConservation().ok);
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST_F(FabricFaultTest, PfcStormIsDetectedAndNamedByTheWatchdog)
{
    // host1's XOFF (84 B, 6.72 ns, + 10 ns) pauses leaf0's port at 10.01672
    // us for 0xFFFF quanta (335.5392 us at 100 Gb/s); the NIC refreshes it
    // after half of that, 167.7696 us, so the refresh arrives at 177.78632
    // us: the class has been paused 167.7696 us >= 100 us, a storm.
    // Forward: PFC is off on the class from then on, and the victim's 20
    // packets (queued since 50 us) leave; no pause arrives after the
    // storm's end at 310 us, so PFC is restored 200 us after the last
    // frame, at 377.78632 us.
    StormRun fwd = RunStorm("Forward");
    ASSERT_EQ(fwd.storms.size(), 1u) << fwd.report;
    EXPECT_EQ(fwd.storms[0].detectedAt, PicoSeconds(177786320));
    EXPECT_EQ(fwd.storms[0].pausedFor, PicoSeconds(167769600));
    EXPECT_EQ(fwd.storms[0].cls, 3);
    EXPECT_TRUE(fwd.storms[0].restored);
    EXPECT_EQ(fwd.storms[0].restoredAt, PicoSeconds(377786320));
    EXPECT_NE(fwd.report.find("PFC storm from host1: leaf0 dev 1 class 3"), std::string::npos) << fwd.report;
    // The victim's port was paused from the first frame to the detection.
    EXPECT_EQ(fwd.victimPaused, PicoSeconds(167769600));
    EXPECT_EQ(fwd.delivered, 20u * kPayload);
    // The first victim packet leaves leaf0 at detection; 20 x 85.6 ns + 10 ns later the last arrives.
    EXPECT_EQ(fwd.lastArrival, PicoSeconds(177786320 + 20 * 85600 + 10000));

    // Alert: detected alike, but the port stays paused until host1's XON at
    // 310 us arrives (6.72 + 10 ns): 300 us paused in all, and the storm
    // ends with the pause.
    StormRun alert = RunStorm("Alert");
    ASSERT_EQ(alert.storms.size(), 1u) << alert.report;
    EXPECT_EQ(alert.storms[0].detectedAt, PicoSeconds(177786320));
    EXPECT_EQ(alert.victimPaused, MicroSeconds(300));
    EXPECT_EQ(alert.storms[0].restoredAt, PicoSeconds(310016720));
    EXPECT_EQ(alert.lastArrival, PicoSeconds(310016720 + 20 * 85600 + 10000));
}
