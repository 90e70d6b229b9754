// SPDX-License-Identifier: GPL-2.0-only
//
// Through one switch: store-and-forward vs cut-through latency by hand, and
// the 8-to-1 incast under each flow-control mode.
#include "fabric-helper.h"
#include "fabric-test-util.h"
#include "simulator-test.h"
#include "topology-builder.h"
#include "topology-presets.h"

#include "ns3/config.h"
#include "ns3/node-container.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

class FabricSwitchTest : public hockney::SimulatorTest
{
};

using hockney::Arrivals;
using hockney::ConnectThrough;

// A - switch - B, 100 Gb/s, 500 ns links, 70 B framing; one 1000 B packet.
Time
OneHopArrival(bool cutThrough)
{
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(300), cutThrough);
    FabricLinkConfig cfg;
    cfg.delay = NanoSeconds(500);
    cfg.minWireBytes = 0;
    Arrivals rx;
    const auto [la, lb] = ConnectThrough(h, sw, cfg, rx);
    la.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 0, 0));
    Simulator::Run();
    Time t = rx.at.empty() ? Time::Max() : rx.at[0];
    Simulator::Destroy();
    return t;
}

// NVSwitch-like links: 3.6 Tb/s, 16 B framing, 256 B payloads (272 B on
// the wire), 16 B credit frames, `credit` bytes of credit per class.
FabricLinkConfig
NvlinkLikeConfig(Time delay, uint64_t credit)
{
    FabricLinkConfig cfg;
    cfg.rate = DataRate("3600Gbps");
    cfg.delay = delay;
    cfg.headerBytes = 16;
    cfg.minWireBytes = 0;
    cfg.controlFrameBytes = 16;
    cfg.mtu = 256;
    cfg.flowControl = FabricFlowControlMode::CREDIT;
    cfg.creditBufferBytes = credit;
    cfg.linkType = FabricLinkType::NVLINK;
    return cfg;
}

} // namespace

TEST_F(FabricSwitchTest, StoreAndForwardVersusCutThroughLatency)
{
    // Wire 1000 + 70 = 1070 B: 85 600 ps at 100 Gb/s; header 70 B: 5 600 ps.
    // Store-and-forward: 2 x (85 600 + 500 000) + 300 000 = 1 471 200 ps.
    // Cut-through: header at the switch after 500 000 + 5 600, egress starts
    // 300 000 later, last bit at B after 85 600 + 500 000: 1 391 200 ps.
    EXPECT_EQ(OneHopArrival(false).GetPicoSeconds(), 1471200);
    EXPECT_EQ(OneHopArrival(true).GetPicoSeconds(), 1391200);
}

namespace
{

struct IncastResult
{
    std::vector<Time> arrivals;
    uint64_t switchDrops{0};
    uint64_t pausesSent{0};
    uint64_t pausesReceived{0};
    Time pausedTime;
    FabricConservation conservation;
    uint64_t delivered{0};
};

// 8 senders -> one switch -> 1 receiver, all links 100 Gb/s, 1 us; each
// sender queues `perSender` 4096 B packets at t = 0. Switch buffer 2 MB so
// that the shared pool runs out within the run.
IncastResult
RunIncast(FabricFlowControlMode mode, uint32_t perSender, uint64_t headroomBytes = 0)
{
    Config::SetDefault("ns3::FabricSwitchBuffer::BufferBytes", UintegerValue(2000000));
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch();
    FabricLinkConfig cfg;
    cfg.flowControl = mode;
    cfg.headroomBytes = headroomBytes;
    NodeContainer all;
    all.Add(sw);
    Ptr<Node> recv = CreateObject<Node>();
    all.Add(recv);
    FabricLink lr = h.Connect(sw, recv, cfg);
    lr.devB->SetFabricAddress(100);
    sw->AddRoute(100, {lr.portA});
    IncastResult r;
    Arrivals rx;
    lr.devB->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rx));
    std::vector<FabricLink> senders;
    for (uint32_t i = 0; i < 8; ++i)
    {
        Ptr<Node> s = CreateObject<Node>();
        all.Add(s);
        FabricLink l = h.Connect(s, sw, cfg);
        l.devA->SetFabricAddress(i);
        sw->AddRoute(i, {l.portB});
        senders.push_back(l);
    }
    for (uint32_t k = 0; k < perSender; ++k)
    {
        for (uint32_t i = 0; i < 8; ++i)
        {
            senders[i].devA->SendFabric(Create<Packet>(4096), FabricHeader(i, 100, i, 0));
        }
    }
    Simulator::Run();
    r.arrivals = rx.at;
    r.switchDrops = sw->GetDrops();
    for (const auto& p : CollectFabricCounters(all))
    {
        if (p.isSwitch)
        {
            r.pausesSent += p.counters.pausesSent;
        }
        else
        {
            r.pausesReceived += p.counters.pausesReceived;
            r.pausedTime += p.counters.pausedTime;
        }
    }
    r.conservation = CheckFabricConservation(all);
    r.delivered = rx.at.size();
    return r;
}

// Wire bytes 4096 + 70 = 4166 B -> 333 280 ps at 100 Gb/s.
constexpr int64_t kTxPs = 333280;

} // namespace

TEST_F(FabricSwitchTest, IncastWithPfcIsLosslessPausesAndKeepsReceiverBusy)
{
    const uint32_t perSender = 200;
    IncastResult r = RunIncast(FabricFlowControlMode::PFC, perSender);
    EXPECT_EQ(r.switchDrops, 0u);
    EXPECT_EQ(r.delivered, 8u * perSender);
    EXPECT_GT(r.pausesSent, 0u);
    EXPECT_GT(r.pausesReceived, 0u);
    EXPECT_GT(r.pausedTime, Time(0));
    // 100 % busy: arrivals back to back, exactly one serialization apart.
    ASSERT_EQ(r.arrivals.size(), 8u * perSender);
    EXPECT_EQ((r.arrivals.back() - r.arrivals.front()).GetPicoSeconds(),
              int64_t(8 * perSender - 1) * kTxPs);
    EXPECT_TRUE(r.conservation.ok) << r.conservation.message;
    EXPECT_TRUE(r.conservation.lossless);
    EXPECT_EQ(r.conservation.inFlight, 0u);
}

TEST_F(FabricSwitchTest, IncastWithoutFlowControlDropsAndCountsThem)
{
    const uint32_t perSender = 200;
    IncastResult r = RunIncast(FabricFlowControlMode::NONE, perSender);
    EXPECT_GT(r.switchDrops, 0u);
    EXPECT_EQ(r.delivered + r.switchDrops, 8u * perSender);
    EXPECT_EQ(r.pausesSent, 0u);
    EXPECT_EQ(r.conservation.dropped, r.switchDrops * 4096);
    EXPECT_TRUE(r.conservation.balanced) << r.conservation.message;
    EXPECT_FALSE(r.conservation.lossless);
    EXPECT_TRUE(r.conservation.ok);
}

TEST_F(FabricSwitchTest, IncastWithCreditsIsLosslessAndKeepsReceiverBusy)
{
    const uint32_t perSender = 200;
    IncastResult r = RunIncast(FabricFlowControlMode::CREDIT, perSender);
    EXPECT_EQ(r.switchDrops, 0u);
    EXPECT_EQ(r.delivered, 8u * perSender);
    ASSERT_EQ(r.arrivals.size(), 8u * perSender);
    EXPECT_EQ((r.arrivals.back() - r.arrivals.front()).GetPicoSeconds(),
              int64_t(8 * perSender - 1) * kTxPs);
    EXPECT_TRUE(r.conservation.ok) << r.conservation.message;
    EXPECT_TRUE(r.conservation.lossless);
}

TEST_F(FabricSwitchTest, ShortPausesAreRefreshedWhileCongested)
{
    // 50 quanta = 50 x 512 bit = 256 ns at 100 Gb/s, far shorter than the
    // congestion: the XOFF must be re-sent (every 128 ns) or the senders would
    // resume and overrun the 37 582 B headroom. Lossless and busy regardless.
    Config::SetDefault("ns3::FabricPfcFlowControl::PauseQuanta", UintegerValue(50));
    const uint32_t perSender = 200;
    IncastResult r = RunIncast(FabricFlowControlMode::PFC, perSender);
    EXPECT_EQ(r.switchDrops, 0u);
    EXPECT_EQ(r.delivered, 8u * perSender);
    // The default-quanta run needs one XOFF per congestion episode; here the
    // paused time (>= 100 us summed) is covered by 128 ns refreshes.
    EXPECT_GT(r.pausesSent, uint64_t(r.pausedTime.GetNanoSeconds() / 128 / 2));
    EXPECT_TRUE(r.conservation.ok) << r.conservation.message;
}

TEST_F(FabricSwitchTest, DropsOnALosslessFabricAreAReportedError)
{
    // PFC with a 1 B headroom (forced through the override) cannot absorb
    // the bytes in flight after XOFF (2 x 12.5 KB on these 1 us links):
    // packets really drop, the switch still pauses (a refused lossless packet
    // is XOFF too), and the conservation check calls the drops an error.
    IncastResult r = RunIncast(FabricFlowControlMode::PFC, 100, 1);
    EXPECT_GT(r.switchDrops, 0u);
    EXPECT_GT(r.pausesSent, 0u);
    EXPECT_EQ(r.conservation.dropped, r.switchDrops * 4096);
    EXPECT_EQ(r.delivered + r.switchDrops, 8u * 100u);
    EXPECT_TRUE(r.conservation.lossless);
    EXPECT_TRUE(r.conservation.balanced) << r.conservation.message;
    EXPECT_FALSE(r.conservation.ok);
    EXPECT_NE(r.conservation.message.find("ERROR: drops on a lossless fabric"), std::string::npos)
        << r.conservation.message;
}

TEST_F(FabricSwitchTest, PfcIncastOnRoceLeafSpineShortLinksIsLossless)
{
    // The roce-leafspine preset's leaf tier: 100 Gb/s, 10 ns host links,
    // 4128 B port MTU (4198 B frames), store-and-forward leaf. Nine hosts on
    // one leaf; eight send 200 full-MTU packets each to host 0 at t = 0.
    // The leaf's buffer is cut to 2 MB so the shared pool's dynamic threshold
    // is reached within the run (the preset's 32 MB would need ~18 MB queued).
    // Headroom 2 x 125 + 3 x 4198 + 84 = 12 928 B per port takes what still
    // arrives after XOFF (with 3 x rate x delay = 375 B, not one frame, this
    // incast used to drop most packets and never pause). Expected: every
    // packet delivered, no drop, the leaf pauses the senders, and the
    // run-end check passes with nothing left in flight.
    TopologyDescription d = MakePreset("roce-leafspine:leaves=1,hosts-per-leaf=9");
    for (auto& t : d.tiers)
    {
        t.switchBufferBytes = 2000000;
    }
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(d);
    ASSERT_EQ(net->GetNEndpoints(), 9u);
    Ptr<FabricNetDevice> rxDev = net->GetEndpointDevice(0);
    ASSERT_EQ(rxDev->GetChannel()->GetObject<FabricChannel>()->GetDelay(), NanoSeconds(10));
    ASSERT_EQ(rxDev->GetMtu(), 4128);
    Arrivals rx;
    rxDev->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rx));
    const uint32_t perSender = 200;
    for (uint32_t s = 1; s <= 8; ++s)
    {
        Ptr<FabricNetDevice> out = net->GetEgressDevice(s, 0, s);
        for (uint32_t k = 0; k < perSender; ++k)
        {
            ASSERT_TRUE(out->SendFabric(Create<Packet>(4128), FabricHeader(s, 0, s, 0)));
        }
    }
    net->InstallWatchdog();
    Simulator::Run();
    uint64_t pauses = 0;
    for (const auto& p : net->CollectCounters())
    {
        pauses += p.isSwitch ? p.counters.pausesSent : 0;
    }
    uint64_t drops = 0;
    for (uint32_t i = 0; i < net->GetSwitches().GetN(); ++i)
    {
        drops += DynamicCast<FabricSwitch>(net->GetSwitches().Get(i))->GetDrops();
    }
    RecordProperty("pauses", std::to_string(pauses));
    RecordProperty("drops", std::to_string(drops));
    EXPECT_EQ(drops, 0u);
    EXPECT_EQ(rx.at.size(), 8u * perSender);
    EXPECT_GT(pauses, 0u);
    FabricConservation c = net->FinishRun();
    EXPECT_TRUE(c.ok) << c.message;
    EXPECT_TRUE(c.lossless);
    EXPECT_EQ(c.injected, 8u * perSender * 4128);
    EXPECT_EQ(c.delivered, c.injected);
    EXPECT_EQ(c.inFlight, 0u);
}

TEST_F(FabricSwitchTest, CutThroughCreditSwitchIsLosslessAndInOrder)
{
    // NVSwitch-like: 3.6 Tb/s, 100 ns links, 16 B framing, 256 B payloads
    // (272 B on the wire), cut-through with 100 ns latency, and only 2 KB of
    // credit per class. Two senders into one GPU: no drop, every byte
    // delivered, each flow in sending order, and the throughput is the credit
    // loop's, not the line rate's (the physics of too few credits).
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(100), true);
    const FabricLinkConfig cfg = NvlinkLikeConfig(NanoSeconds(100), 2048);
    NodeContainer all;
    all.Add(sw);
    Ptr<Node> gpu = CreateObject<Node>();
    all.Add(gpu);
    FabricLink lr = h.Connect(sw, gpu, cfg);
    lr.devB->SetFabricAddress(9);
    sw->AddRoute(9, {lr.portA});
    Arrivals rx;
    lr.devB->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rx));
    const uint32_t perSender = 2000;
    std::vector<uint32_t> seq(2, 0);
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<Node> s = CreateObject<Node>();
        all.Add(s);
        FabricLink l = h.Connect(s, sw, cfg);
        l.devA->SetFabricAddress(i);
        sw->AddRoute(i, {l.portB});
        l.devA->SetTxSource(MakeCallback(
            +[](uint32_t* next, uint32_t src, uint32_t total, uint8_t cls, uint32_t maxBytes) {
                if (cls != 0 || *next >= total || maxBytes < 256 + FabricHeader::kSerializedSize)
                {
                    return Ptr<Packet>();
                }
                Ptr<Packet> p = Create<Packet>(256);
                // The flow id carries the sequence number; src the flow.
                p->AddHeader(FabricHeader(src, 9, (*next)++, 0));
                return p;
            }).Bind(&seq[i], i, perSender));
    }
    Simulator::Run();
    EXPECT_EQ(sw->GetDrops(), 0u);
    ASSERT_EQ(rx.headers.size(), 2u * perSender);
    std::vector<uint32_t> expect(2, 0);
    for (const auto& hd : rx.headers)
    {
        ASSERT_EQ(hd.GetFlowId(), expect[hd.GetSource()]++) << "flow " << hd.GetSource();
    }
    FabricConservation c = CheckFabricConservation(all);
    EXPECT_TRUE(c.ok) << c.message;
    // The switch->GPU link is credit-bound: 2048 B of credit hold 7 packets
    // (1904 B); the GPU frees each at its last bit, so a loop is 2 x 100 ns
    // + 272 B (604.4 ps) + the 16 B credit frame (35.6 ps) = 200.64 ns:
    // 7 x 272 B per 200.64 ns = 9.49 GB/s (the senders' own loops, 2 x 7
    // packets per ~300 ns, are faster). 1 % covers the start-up loop.
    double seconds = (rx.at.back() - rx.at.front()).GetSeconds();
    double rate = (2.0 * perSender - 1) * 272 / seconds;
    EXPECT_NEAR(rate / (7 * 272 / 200.64e-9), 1.0, 0.01);
    EXPECT_LT(rate, 3.6e12 / 8 / 10); // far below the line rate
}

namespace
{
/// The PFC frames one port sends: time, and whether the frame is an XON
/// (class 0 enabled with zero quanta) or an XOFF.
struct PfcFrames
{
    std::vector<Time> xoff;
    std::vector<Time> xon;
    void TxBegin(Ptr<const Packet> p)
    {
        Ptr<Packet> q = p->Copy();
        FabricHeader h;
        q->RemoveHeader(h);
        if (h.GetKind() != FabricHeader::PFC_PAUSE)
        {
            return;
        }
        FabricPauseBody body;
        q->RemoveHeader(body);
        if (body.classEnable & 1u)
        {
            (body.quanta[0] > 0 ? xoff : xon).push_back(Simulator::Now());
        }
    }
};

struct TxTimes
{
    std::vector<Time> at;
    void TxBegin(Ptr<const Packet> p)
    {
        FabricHeader h;
        p->PeekHeader(h);
        if (h.GetKind() == FabricHeader::DATA)
        {
            at.push_back(Simulator::Now());
        }
    }
};
} // namespace

TEST_F(FabricSwitchTest, PauseIsLiftedWhenAnotherPortDrainsTheSharedPool)
{
    // Four PFC ports A, B (senders) and C, D (receivers), 100 Gb/s, 10 ns,
    // 1 MB buffer, no reserve (so every byte is shared, for clean counts),
    // 25 000 B headroom per port, alpha 1/8, resume offset 3072 B. Packets of
    // 930 B payload = 1000 B on the wire (80 ns). C and D hold the switch's
    // egresses paused from t = 0, so everything stays in the buffer.
    //   F = 1 000 000 - 4 x 25 000 = 900 000 B;  T = (F - S) / 8.
    // B sends 90 packets first: s_B = 90 000 (each fits: i 1000 <= (F -
    // (i - 1) 1000) / 8 up to i = 100). Then A sends exactly 90: after its
    // k-th, T = (900 000 - 90 000 - 1000 k) / 8, and the 90th fills T
    // exactly: s_A = 90 000 = T, so the switch asserts XOFF on A (shared use
    // reached T) with A's headroom empty, and A has nothing more in flight.
    // A's egress C stays paused: A's own pair never dequeues again.
    // At 20 us D resumes (its XON frame reaches the switch 6.72 + 10 ns
    // later) and B's packets leave back to back. After j of them
    // T = (810 000 - 90 000 + 1000 j) / 8, and A's XON condition
    // s_A + 3072 <= T needs 744 576 <= 720 000 + 1000 j: j >= 24.58, so the
    // 25th departure from B's shared pool lifts A's pause, at
    // 20 us + 16.72 ns + 24 x 80 ns = 21.936 72 us. (Re-checked only on
    // A's own departures, A would stay paused: its egress never moves.)
    Config::SetDefault("ns3::FabricSwitchBuffer::BufferBytes", UintegerValue(1000000));
    Config::SetDefault("ns3::FabricSwitchBuffer::ReserveBytes", UintegerValue(0));
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch();
    FabricLinkConfig cfg;
    cfg.delay = NanoSeconds(10);
    cfg.minWireBytes = 0;
    cfg.headroomBytes = 25000;
    FabricLink la = h.Connect(CreateObject<Node>(), sw, cfg);
    FabricLink lb = h.Connect(CreateObject<Node>(), sw, cfg);
    FabricLink lc = h.Connect(sw, CreateObject<Node>(), cfg);
    FabricLink ld = h.Connect(sw, CreateObject<Node>(), cfg);
    la.devA->SetFabricAddress(0);
    lb.devA->SetFabricAddress(1);
    lc.devB->SetFabricAddress(2);
    ld.devB->SetFabricAddress(3);
    sw->AddRoute(2, {lc.portA});
    sw->AddRoute(3, {ld.portA});
    Ptr<FabricSwitchBuffer> buf = sw->GetBuffer();
    ASSERT_EQ(buf->GetThreshold(), 900000u / 8);
    lc.devB->GetFlowControl()->IngressCongested(0);
    ld.devB->GetFlowControl()->IngressCongested(0);
    for (int i = 0; i < 90; ++i)
    {
        lb.devA->SendFabric(Create<Packet>(930), FabricHeader(1, 3, 1, 0));
    }
    Simulator::Schedule(MicroSeconds(10), [&la]() {
        for (int i = 0; i < 90; ++i)
        {
            la.devA->SendFabric(Create<Packet>(930), FabricHeader(0, 2, 0, 0));
        }
    });
    PfcFrames toA;
    la.devB->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PfcFrames::TxBegin, &toA));
    TxTimes toD;
    ld.devA->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&TxTimes::TxBegin, &toD));
    Simulator::Schedule(MicroSeconds(19), [&]() {
        // Both batches are in; A paused by the exact fill. B was never
        // paused: at its last arrival T was (900 000 - 90 000) / 8 =
        // 101 250 > 90 000 (XOFF is decided at arrivals; B's condition
        // holds now that A has lowered T, but B sends nothing more).
        EXPECT_EQ(buf->GetSharedUsed(la.portB, 0), 90000u);
        EXPECT_EQ(buf->GetSharedUsed(lb.portB, 0), 90000u);
        EXPECT_EQ(buf->GetPortHeadroomUsed(la.portB), 0u);
        EXPECT_EQ(buf->GetThreshold(), 90000u);
        EXPECT_TRUE(buf->IsXoffCondition(la.portB, 0));
        EXPECT_FALSE(buf->IsXonCondition(la.portB, 0));
        EXPECT_EQ(lb.devB->GetCounters().pausesSent, 0u);
        EXPECT_TRUE(toA.xon.empty());
    });
    Simulator::Schedule(MicroSeconds(20), [&ld]() {
        ld.devB->GetFlowControl()->IngressUncongested(0);
    });
    Simulator::Stop(MicroSeconds(30));
    Simulator::Run();
    // XOFF when A's 90th packet has arrived: 10 us + 90 x 80 ns + 10 ns.
    ASSERT_EQ(toA.xoff.size(), 1u);
    EXPECT_EQ(toA.xoff[0], MicroSeconds(10) + NanoSeconds(90 * 80 + 10));
    // All 90 of B's packets left for D; the XON to A went with the 25th.
    ASSERT_EQ(toD.at.size(), 90u);
    EXPECT_EQ(toD.at[0].GetPicoSeconds(), 20016720);
    ASSERT_EQ(toA.xon.size(), 1u);
    EXPECT_EQ(toA.xon[0].GetPicoSeconds(), 20016720 + 24 * 80000);
    EXPECT_EQ(toA.xon[0], toD.at[24]);
    EXPECT_LT(toD.at[23], toA.xon[0]);
    EXPECT_EQ(la.devA->GetCounters().pausesReceived, 1u);
    EXPECT_EQ(la.devB->GetCounters().resumesSent, 1u);
    // A's bytes are still held (C is paused), below the new threshold.
    EXPECT_EQ(buf->GetSharedUsed(la.portB, 0), 90000u);
    EXPECT_EQ(buf->GetSharedUsed(lb.portB, 0), 0u);
    EXPECT_EQ(sw->GetDrops(), 0u);
}

namespace
{
/// Two GPUs streaming to each other through a cut-through credit switch
/// (the NVSwitch case): the credit updates the GPUs return ride in their
/// data packets into cut-through switch ports.
struct CrossStream
{
    std::vector<Time> at; ///< arrival times at both GPUs, in order
    uint64_t events{0};
    uint64_t switchControlRx{0}; ///< credit frames the switch's ports received
    /// Every port's counters (GPU 0, its switch port, GPU 1, its switch port)
    /// that a fold could change: frames, packets and drops by cause.
    std::vector<std::vector<uint64_t>> counters;
    /// Arrival times of the credit frames GPU 0's switch port received
    /// (recorded only with watchSwitchPorts).
    std::vector<Time> port0Frames;
    /// Arrival times of the credit frames GPU 0's own port received
    /// (recorded only with watchGpuPorts).
    std::vector<Time> gpu0Frames;
};

/// With oneWay, only GPU 0 sends: the credit updates for its data go back
/// alone on the wire (the switch port towards GPU 0 has nothing to send,
/// and so has GPU 1), into ports busy with the stream. With watchGpuPorts
/// something watches the frames the GPUs' ports receive: each arrives in
/// its own event there.
CrossStream
RunCrossStream(bool watchSwitchPorts, Time linkDownAt = Time::Max(), bool oneWay = false, bool watchGpuPorts = false,
               uint64_t creditBytes = 65536, bool tieKeys = false)
{
    if (tieKeys)
    {
        // The packet runs' queue: events of one time in tie-key order, which
        // a frame kept without an event needs (FabricNetDevice::TakeControlEarly).
        Simulator::SetScheduler(ObjectFactory("ns3::RingCalendarScheduler"));
    }
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(100), true);
    const FabricLinkConfig cfg = NvlinkLikeConfig(NanoSeconds(5), creditBytes);
    CrossStream r;
    hockney::Arrivals rx;
    std::vector<uint32_t> seq(2, 0);
    std::vector<Ptr<FabricNetDevice>> switchPorts;
    std::vector<FabricLink> links;
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<Node> gpu = CreateObject<Node>();
        FabricLink l = h.Connect(gpu, sw, cfg);
        links.push_back(l);
        l.devA->SetFabricAddress(i);
        sw->AddRoute(i, {l.portB});
        switchPorts.push_back(l.devB);
        l.devA->SetFabricReceiveCallback(MakeCallback(&hockney::Arrivals::Rx, &rx));
        if (oneWay && i == 1)
        {
            continue;
        }
        l.devA->SetTxSource(MakeCallback(
            +[](uint32_t* next, uint32_t src, uint8_t cls, uint32_t maxBytes) {
                if (cls != 0 || *next >= 3000 || maxBytes < 256 + FabricHeader::kSerializedSize)
                {
                    return Ptr<Packet>();
                }
                Ptr<Packet> p = Create<Packet>(256);
                p->AddHeader(FabricHeader(src, 1 - src, (*next)++, 0));
                return p;
            }).Bind(&seq[i], i));
    }
    if (watchSwitchPorts)
    {
        // Something watches the frames the switch's ports receive: each
        // frame then arrives in its own event, as before the fold.
        for (auto& p : switchPorts)
        {
            p->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(+[](Ptr<const Packet>) {}));
        }
        // A frame is the only packet that is not 256 B of payload.
        switchPorts[0]->TraceConnectWithoutContext(
            "PhyRxEnd", MakeCallback(+[](std::vector<Time>* at, Ptr<const Packet> p) {
                                         if (p->GetSize() != 256 + FabricHeader::kSerializedSize)
                                         {
                                             at->push_back(Simulator::Now());
                                         }
                                     }).Bind(&r.port0Frames));
    }
    if (watchGpuPorts)
    {
        links[1].devA->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(+[](Ptr<const Packet>) {}));
        links[0].devA->TraceConnectWithoutContext(
            "PhyRxEnd", MakeCallback(+[](std::vector<Time>* at, Ptr<const Packet> p) {
                                         if (p->GetSize() != 256 + FabricHeader::kSerializedSize)
                                         {
                                             at->push_back(Simulator::Now());
                                         }
                                     }).Bind(&r.gpu0Frames));
    }
    if (linkDownAt != Time::Max())
    {
        // Scheduled before the run, as fabric.faults' injector does: at a
        // frame's own arrival time the fault runs first.
        Ptr<FabricChannel> ch = links[0].channel;
        Simulator::Schedule(linkDownAt, [ch]() { ch->SetLinkUp(false); });
    }
    Simulator::Run();
    r.at = rx.at;
    r.events = Simulator::GetEventCount();
    for (auto& p : switchPorts)
    {
        r.switchControlRx += p->GetCounters().controlRx;
    }
    for (const FabricLink& l : links)
    {
        for (const Ptr<FabricNetDevice>& d : {l.devA, l.devB})
        {
            const FabricPortCounters c = d->GetCounters();
            std::vector<uint64_t> v{c.controlTx, c.controlRx, c.txPackets, c.rxPackets, c.drops, c.lostOnLinkBytes};
            v.insert(v.end(), c.dropsBy.begin(), c.dropsBy.end());
            r.counters.push_back(v);
        }
    }
    Simulator::Destroy();
    return r;
}
} // namespace

TEST_F(FabricSwitchTest, CreditIntoABusyCutThroughPortIsFoldedWithoutChangingTimes)
{
    // The second method is the same run with the fold disabled (a trace on
    // the switch ports keeps every frame's own event): every arrival must
    // be the same to the picosecond, and the run must take fewer events,
    // fewer by at most the frames the switch ports received.
    const CrossStream folded = RunCrossStream(false);
    const CrossStream evented = RunCrossStream(true);
    ASSERT_EQ(folded.at.size(), 6000u);
    EXPECT_EQ(folded.at, evented.at);
    EXPECT_EQ(folded.switchControlRx, evented.switchControlRx);
    // 2 x 3000 x 272 B freed in 8 KiB batches: about 200 updates ride into
    // the switch; most arrive while the port is busy with a queue.
    EXPECT_GT(folded.switchControlRx, 150u);
    EXPECT_LT(folded.events, evented.events);
    EXPECT_LE(evented.events - folded.events, folded.switchControlRx);
}

TEST_F(FabricSwitchTest, FoldedCreditLostWithItsLinkIsNotCounted)
{
    // A credit update folded into a busy cut-through port is still on the
    // wire until its arrival; a link_down before then loses it, as it loses
    // the frame of the unfolded run (its own event finds the link down). The
    // second method is again the unfolded run (a trace on the switch ports):
    // arrivals and every port's counters (frames, packets, drops by cause)
    // must be the same. The link goes down 100 ps before each of the first
    // 24 frames GPU 0's switch port receives, inside the 569 ps between a
    // 272 B packet's header (16 B at 3.6 Tb/s: 35.6 ps) and its last bit
    // (604.4 ps), where a frame riding in it is held folded.
    const CrossStream plain = RunCrossStream(true);
    ASSERT_GE(plain.port0Frames.size(), 24u);
    uint32_t lostFrames = 0;
    for (size_t k = 0; k < 24; ++k)
    {
        const Time down = plain.port0Frames[k] - PicoSeconds(100);
        const CrossStream folded = RunCrossStream(false, down);
        const CrossStream evented = RunCrossStream(true, down);
        EXPECT_EQ(folded.at, evented.at) << "link down at " << down;
        EXPECT_EQ(folded.counters, evented.counters) << "link down at " << down;
        // The frame k itself is lost: GPU 0's switch port received k frames.
        EXPECT_EQ(evented.counters[1][1], k) << "link down at " << down;
        lostFrames += evented.counters[1][1] == k ? 1 : 0;
    }
    EXPECT_EQ(lostFrames, 24u);
}

TEST_F(FabricSwitchTest, CreditAloneOnTheWireIntoABusySenderIsFoldedWithoutChangingTimes)
{
    // GPU 0 streams 3000 packets of 256 B to GPU 1; the credit updates for
    // them go back alone on the wire (nothing else goes that way), to GPU 0
    // from its switch port and to the switch port towards GPU 1 from GPU 1,
    // each into a port that is sending the stream. The second method is the
    // same run with every frame in its own event (traces on all four ports):
    // the same arrivals to the picosecond and the same counters on every
    // port, frames received included; fewer events, by at most the frames.
    const CrossStream folded = RunCrossStream(false, Time::Max(), true, false);
    const CrossStream evented = RunCrossStream(true, Time::Max(), true, true);
    ASSERT_EQ(folded.at.size(), 3000u);
    EXPECT_EQ(folded.at, evented.at);
    EXPECT_EQ(folded.counters, evented.counters);
    // 3000 x 272 B = 816 000 B freed at each hop, an update per 8 KiB at
    // most: up to 99 a hop (192 in all here: bytes freed while an update waits to
    // go are reported with it). Nearly every one is received by a port
    // still busy with the stream past the frame's arrival (a 272 B packet
    // is 604 ps on these links, the frame's flight 5 ns): at least 90 %
    // folded (186 of 192 here).
    uint64_t frames = 0;
    for (const auto& c : evented.counters)
    {
        frames += c[1]; // controlRx
    }
    EXPECT_GE(frames, 150u);
    EXPECT_LE(frames, 200u);
    EXPECT_LE(evented.events - folded.events, frames);
    EXPECT_GE(evented.events - folded.events, frames * 9 / 10);

    // With the packet runs' queue (tie keys), a frame sent while the port
    // is busy until before its arrival, its next start pending, is kept
    // without an event until that start (FabricNetDevice::TakeControlEarly):
    // the same arrivals and counters. (Events are not compared here: the
    // traces of the second method also turn off the early take-in.)
    const CrossStream keyed = RunCrossStream(false, Time::Max(), true, false, 65536, true);
    const CrossStream keyedEvented = RunCrossStream(true, Time::Max(), true, true, 65536, true);
    EXPECT_EQ(keyed.at, evented.at);
    EXPECT_EQ(keyed.at, keyedEvented.at);
    EXPECT_EQ(keyed.counters, keyedEvented.counters);
    EXPECT_LT(keyed.events, keyedEvented.events);
}

TEST_F(FabricSwitchTest, CreditAloneOnTheWireIntoACreditBoundSenderKeepsItsTimes)
{
    // The same one-way stream with 2 KiB of credit a link (7 packets of
    // 272 B against a 10 ns loop): GPU 0 runs out of credit within each
    // loop, so a frame sent while the port is busy with its next start
    // pending often finds, at that start, no credit to send with: the port
    // goes idle and the frame must arrive in its own event, which wakes it
    // (FabricNetDevice::TakeControlEarly, ResolveDeferred). Second method as
    // above: the run with every frame in its own event.
    const CrossStream folded = RunCrossStream(false, Time::Max(), true, false, 2048, true);
    const CrossStream evented = RunCrossStream(true, Time::Max(), true, true, 2048, true);
    ASSERT_EQ(folded.at.size(), 3000u);
    EXPECT_EQ(folded.at, evented.at);
    EXPECT_EQ(folded.counters, evented.counters);
    EXPECT_LT(folded.events, evented.events);
}

TEST_F(FabricSwitchTest, CreditAloneOnTheWireFoldedAndLostWithItsLinkIsNotCounted)
{
    // As above, with GPU 0's link going down 100 ps before each of the first
    // 24 frames GPU 0 receives, while the frame is on the wire: it is lost
    // (GPU 0 received k frames), in the folded run as in the evented one,
    // and arrivals and every port's counters are the same. Then at the
    // frame's own picosecond, where the order of the two events decides.
    const CrossStream plain = RunCrossStream(true, Time::Max(), true, true, 65536, true);
    ASSERT_GE(plain.gpu0Frames.size(), 24u);
    for (size_t k = 0; k < 24; ++k)
    {
        const Time down = plain.gpu0Frames[k] - PicoSeconds(100);
        const CrossStream folded = RunCrossStream(false, down, true, false, 65536, true);
        const CrossStream evented = RunCrossStream(true, down, true, true, 65536, true);
        EXPECT_EQ(folded.at, evented.at) << "link down at " << down;
        EXPECT_EQ(folded.counters, evented.counters) << "link down at " << down;
        EXPECT_EQ(evented.counters[0][1], k) << "link down at " << down;
        // At the frame's own picosecond: with tie keys its (keyed) arrival
        // runs before the fault's unkeyed event, so it is received: k + 1.
        const CrossStream foldedAt = RunCrossStream(false, plain.gpu0Frames[k], true, false, 65536, true);
        const CrossStream eventedAt = RunCrossStream(true, plain.gpu0Frames[k], true, true, 65536, true);
        EXPECT_EQ(foldedAt.at, eventedAt.at) << "link down at " << plain.gpu0Frames[k];
        EXPECT_EQ(foldedAt.counters, eventedAt.counters) << "link down at " << plain.gpu0Frames[k];
        EXPECT_EQ(eventedAt.counters[0][1], k + 1) << "link down at " << plain.gpu0Frames[k];
    }
}

TEST_F(FabricSwitchTest, PacketQueuedBehindADeferredStartLeavesItWhereItIs)
{
    // A - store-and-forward switch (3 us forwarding latency) - B; 8 Gb/s, no
    // framing, 100 ns links: a 1000 B packet is 1 us on the wire. A sends at
    // 0, 1.5 and 3.5 us; the packets reach the switch at 1.1, 2.6 and 4.6 us
    // and may leave at 4.1, 5.6 and 7.6 us. The switch sends the first from
    // 4.1 to 5.1, the second, ready after that end, from 5.6 (its start
    // deferred at 4.1), the third from 7.6: B gets them at 5.2, 6.7, 8.7 us.
    // The third arrives at 4.6, while the port is busy and the start is
    // deferred to 5.6: it must leave that start in place. Events after the
    // probe at 1 ps, by hand: A's two later sends (2), three arrivals at the
    // switch (3), the three starts at 4.1, 5.6, 7.6 (3), three at B (3) = 11;
    // moving the deferred start back to 5.1 would add one that finds nothing.
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(MicroSeconds(3), false);
    FabricLinkConfig cfg;
    cfg.rate = DataRate("8Gbps");
    cfg.delay = NanoSeconds(100);
    cfg.headerBytes = 0;
    cfg.minWireBytes = 0;
    cfg.flowControl = FabricFlowControlMode::NONE;
    Arrivals rx;
    Ptr<FabricNetDevice> a = ConnectThrough(h, sw, cfg, rx).first.devA;
    auto send = [a](uint32_t flow) { a->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, flow, 0)); };
    send(1);
    Simulator::Schedule(NanoSeconds(1500), [send]() { send(2); });
    Simulator::Schedule(NanoSeconds(3500), [send]() { send(3); });
    uint64_t atProbe = 0;
    // The probe's own event counts in its reading (counted before it runs).
    Simulator::Schedule(PicoSeconds(1), [&atProbe]() { atProbe = Simulator::GetEventCount(); });
    Simulator::Run();
    const std::vector<Time> expected{NanoSeconds(5200), NanoSeconds(6700), NanoSeconds(8700)};
    EXPECT_EQ(rx.at, expected);
    EXPECT_EQ(Simulator::GetEventCount() - atProbe, 11u);
}
