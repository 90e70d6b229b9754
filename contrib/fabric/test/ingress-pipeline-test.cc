// SPDX-License-Identifier: GPL-2.0-only
//
// FabricSwitch::IngressPipeline: the forwarding latency spent before the
// buffer (the packet taken in at arrival + latency) instead of at the egress
// (taken in at its arrival, started latency later), and on credit ports
// (CreditPorts, the default) the same model as None in one event a hop (the
// early take-in). Times and events by hand, tolerance zero: both are exact
// integers of picoseconds and events. The early take-in needs events to leave
// in tie-key order (RingCalendarScheduler, the packet runs' queue; under
// ns-3's MapScheduler credit ports take packets in at their arrival), and a
// packet sent in an event (at set-up no event has left yet): these tests run
// the calendar queue and send from an event at 0.
#include "fabric-helper.h"
#include "fabric-monitor.h"
#include "fabric-test-util.h"
#include "simulator-test.h"

#include "ns3/enum.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class IngressPipelineTest : public hockney::SimulatorTest
{
};

/// The packet runs' event queue (each run: Simulator::Destroy forgets it).
void
UseCalendarQueue()
{
    Simulator::SetScheduler(ObjectFactory("ns3::RingCalendarScheduler"));
}

using hockney::Arrivals;

// InfiniBand-like links: 400 Gb/s, 10 ns, 14 B of framing, credit flow
// control. A 1000 B payload is 1014 B on the wire: 1014 x 8 / 400e9 s =
// 20 280 ps; its 14 B header 280 ps.
FabricLinkConfig
IbLikeConfig()
{
    FabricLinkConfig cfg;
    cfg.rate = DataRate("400Gbps");
    cfg.delay = NanoSeconds(10);
    cfg.headerBytes = 14;
    cfg.minWireBytes = 0;
    cfg.flowControl = FabricFlowControlMode::CREDIT;
    cfg.linkType = FabricLinkType::INFINIBAND;
    return cfg;
}

struct OneHop
{
    std::vector<Time> at;   ///< arrivals at B
    uint64_t events{0};     ///< events after the probe at 1 ps
    uint64_t linkDrops{0};  ///< link_down drops at the switch's port from A
};

// A - cut-through switch (200 ns) - B, one 1000 B packet sent by A at 0;
// the link A - switch goes down at \p downAt (never if zero).
OneHop
SendOne(FabricSwitch::IngressPipelineMode mode, Time downAt = Time(0))
{
    UseCalendarQueue();
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(200), true);
    sw->SetAttribute("IngressPipeline", EnumValue(mode));
    Arrivals rx;
    const FabricLink la = hockney::ConnectThrough(h, sw, IbLikeConfig(), rx).first;
    Ptr<FabricNetDevice> a = la.devA;
    Simulator::ScheduleNow([a]() { a->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 0, 0)); });
    if (downAt.IsStrictlyPositive())
    {
        Ptr<FabricChannel> ch = la.channel;
        Simulator::Schedule(downAt, [ch]() { ch->SetLinkUp(false); });
    }
    uint64_t atProbe = 0;
    // The probe's own event counts in its reading (counted before it runs).
    Simulator::Schedule(PicoSeconds(1), [&atProbe]() { atProbe = Simulator::GetEventCount(); });
    Simulator::Run();
    OneHop r;
    r.at = rx.at;
    r.events = Simulator::GetEventCount() - atProbe;
    r.linkDrops = la.devB->GetCounters().dropsBy[kDropLinkDown];
    Simulator::Destroy();
    return r;
}

// By hand: the header reaches the switch at 10 ns + 280 ps = 10 280 ps (its
// last bit at 30 280 ps); it may leave 200 ns later, at 210 280 ps, and the
// idle egress starts it then; B (an endpoint: at the last bit) has it at
// 210 280 + 10 000 + 20 280 = 240 560 ps. Events after the probe: today an
// arrival at the switch, the egress's start and the arrival at B (3; no
// credit update: 1014 B is under the 8 KiB threshold); through the ingress
// pipeline the take-in at 210 280 ps starts the packet (2).
TEST_F(IngressPipelineTest, OnePacketThroughAnIdleCutThroughSwitchIsOneEventThere)
{
    const std::vector<Time> expected{PicoSeconds(240560)};
    const OneHop before = SendOne(FabricSwitch::PIPELINE_NONE);
    EXPECT_EQ(before.at, expected);
    EXPECT_EQ(before.events, 3u);
    const OneHop after = SendOne(FabricSwitch::PIPELINE_CREDIT_PORTS);
    EXPECT_EQ(after.at, expected);
    EXPECT_EQ(after.events, 2u);
    // A credit port is taken in through the pipeline under AllPorts too.
    const OneHop all = SendOne(FabricSwitch::PIPELINE_ALL_PORTS);
    EXPECT_EQ(all.at, expected);
    EXPECT_EQ(all.events, 2u);
}

// The link A - switch goes down at 100 ns, after the header arrived (10 280
// ps) but while the packet is in the pipeline (until 210 280 ps): it was
// received and is forwarded at the same time as without the fault. Down at
// 5 ns, before it arrived: lost on the link, one link_down drop at the
// switch's port, in both modes.
TEST_F(IngressPipelineTest, LinkDownWhileInThePipelineKeepsTheArrivedPacket)
{
    const std::vector<Time> expected{PicoSeconds(240560)};
    for (auto mode : {FabricSwitch::PIPELINE_NONE, FabricSwitch::PIPELINE_CREDIT_PORTS})
    {
        const OneHop late = SendOne(mode, NanoSeconds(100));
        EXPECT_EQ(late.at, expected) << mode;
        EXPECT_EQ(late.linkDrops, 0u) << mode;
        const OneHop early = SendOne(mode, NanoSeconds(5));
        EXPECT_TRUE(early.at.empty()) << mode;
        EXPECT_EQ(early.linkDrops, 1u) << mode;
    }
}

// AllPorts on a PFC port: XOFF is decided ForwardingLatency after the
// arrival that trips it, so the port's headroom grows by what arrives
// meanwhile, rate x latency: 100 Gb/s x 500 ns = 6250 B. Without it
// (PfcHeadroomBytes, 1 us links, 4096 B MTU + 70 B framing = 4166 B frames,
// 84 B pause): 2 x 100e9 x 1e-6 / 8 = 25 000 + 3 x 4166 + 84 = 37 582 B.
TEST_F(IngressPipelineTest, AllPortsGrowsPfcHeadroomByRateTimesLatency)
{
    for (auto [mode, headroom] : {std::pair{FabricSwitch::PIPELINE_NONE, uint64_t(37582)},
                                  std::pair{FabricSwitch::PIPELINE_CREDIT_PORTS, uint64_t(37582)},
                                  std::pair{FabricSwitch::PIPELINE_ALL_PORTS, uint64_t(37582 + 6250)}})
    {
        FabricHelper h;
        Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(500), false);
        sw->SetAttribute("IngressPipeline", EnumValue(mode));
        FabricLinkConfig cfg; // 100 Gb/s, 1 us, RoCE framing, PFC
        FabricLink l = h.Connect(CreateObject<Node>(), sw, cfg);
        EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l.portB), headroom) << mode;
        Simulator::Destroy();
    }
}

// The rail case in miniature (benchmarks/README.md, "The ingress pipeline"):
// A - switch - B both ways, each switch port returning credit after every
// freed byte (UpdateThresholdBytes 1; the endpoints keep 8 KiB, so they
// send none), so that a packet leaving the switch
// towards A makes a credit update due on the switch's port to B at the very
// picosecond that port's own packet becomes ready. A sends P1 (and P2), B
// sends Q1 (and Q2), 1000 B each, all at 0 (a port sends them back to back).
struct BothWays
{
    std::vector<Time> atA;
    std::vector<Time> atB;
    Time busyToA;  ///< the switch port towards A: transmitter busy time
    Time busyToB;
    uint64_t creditsToA{0}; ///< credit updates sent by the switch port towards A
    uint64_t creditsToB{0};
    uint64_t events{0};     ///< events after the probe at 1 ps
};

BothWays
SendBothWays(FabricSwitch::IngressPipelineMode mode, uint32_t packets)
{
    UseCalendarQueue();
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(200), true);
    sw->SetAttribute("IngressPipeline", EnumValue(mode));
    Arrivals rxB;
    Arrivals rxA;
    const auto [la, lb] = hockney::ConnectThrough(h, sw, IbLikeConfig(), rxB);
    la.devA->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rxA));
    for (const auto& d : {la.devB, lb.devA})
    {
        d->GetFlowControl()->SetAttribute("UpdateThresholdBytes", UintegerValue(1));
    }
    Ptr<FabricNetDevice> a = la.devA;
    Ptr<FabricNetDevice> b = lb.devB;
    Simulator::ScheduleNow([a, b, packets]() {
        for (uint32_t i = 0; i < packets; ++i)
        {
            a->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 0, 0));
            b->SendFabric(Create<Packet>(1000), FabricHeader(1, 0, 0, 0));
        }
    });
    uint64_t atProbe = 0;
    Simulator::Schedule(PicoSeconds(1), [&atProbe]() { atProbe = Simulator::GetEventCount(); });
    Simulator::Run();
    BothWays r;
    r.atA = rxA.at;
    r.atB = rxB.at;
    r.busyToA = la.devB->GetCounters().busyTime;
    r.busyToB = lb.devA->GetCounters().busyTime;
    r.creditsToA = la.devB->GetCounters().controlTx;
    r.creditsToB = lb.devA->GetCounters().controlTx;
    r.events = Simulator::GetEventCount() - atProbe;
    Simulator::Destroy();
    return r;
}

// One packet each way. By hand, as above: both reach the switch at 10 280 ps
// and are ready at 210 280 ps. P1 (A's link was made first: its arrival's
// key, and with None its wait, come first) starts towards B and frees its
// 1014 B on the port from A: a credit update is due there at 210 280 ps,
// where Q1 is queued and ready, so it rides on Q1, which starts at once; Q1
// frees its bytes on the port from B, whose update rides on P1 (still being
// started). Both arrive at 210 280 + 10 000 + 20 280 = 240 560 ps; no update
// is sent alone: each switch port was busy 20 280 ps and sent one update.
// (The ingress pipeline that took packets in at their ready time sent the
// update towards A alone, 84 B = 1680 ps, and Q1 reached A at 242 240 ps.)
// Events: None: two arrivals at the switch, P1's wait (Q1's is removed), the
// port towards B's start at the end of P1 (230 560 ps, scheduled when Q1's
// update became due; it finds nothing), the two arrivals at the endpoints
// (6); CreditPorts: the two events at the ready time instead of the
// arrivals and the wait (Q1's finds Q1 sent), 5.
TEST_F(IngressPipelineTest, CreditDueAtTheReadyPicosecondRidesOnTheIdlePortsPacket)
{
    for (auto [mode, events] : {std::pair{FabricSwitch::PIPELINE_NONE, uint64_t(6)},
                                std::pair{FabricSwitch::PIPELINE_CREDIT_PORTS, uint64_t(5)}})
    {
        const BothWays r = SendBothWays(mode, 1);
        EXPECT_EQ(r.atA, std::vector<Time>{PicoSeconds(240560)}) << mode;
        EXPECT_EQ(r.atB, std::vector<Time>{PicoSeconds(240560)}) << mode;
        EXPECT_EQ(r.busyToA, PicoSeconds(20280)) << mode;
        EXPECT_EQ(r.busyToB, PicoSeconds(20280)) << mode;
        EXPECT_EQ(r.creditsToA, 1u) << mode;
        EXPECT_EQ(r.creditsToB, 1u) << mode;
        EXPECT_EQ(r.events, events) << mode;
    }
}

// Two packets each way: the second ones leave A and B at 20 280 ps, reach
// the switch at 20 280 + 10 000 + 280 = 30 560 ps and are ready at 230 560
// ps, the picosecond both switch ports finish P1 and Q1 (busy ports). At
// 230 560 ps P2 starts first (the port towards B's start was scheduled first,
// at 210 280 ps, before the one towards A), frees its bytes on the port from
// A, whose update rides on Q2 (ready, the port just free), and Q2's on P2.
// Arrivals: 240 560 and 230 560 + 30 280 = 260 840 ps at both ends; each
// switch port busy 2 x 20 280 = 40 560 ps with two updates, none alone.
// Events: None: A's and B's starts of the second packets, four arrivals at
// the switch, P1's wait, the start of P2 (the port towards A's start is
// removed: Q2 started in P2's), a start at the end of P2 that finds
// nothing, four arrivals at the endpoints (13); CreditPorts: the four events
// at the ready times replace the arrivals, the wait and the start of P2
// (11).
TEST_F(IngressPipelineTest, CreditDueAtTheReadyPicosecondRidesOnTheBusyPortsNextPacket)
{
    for (auto [mode, events] : {std::pair{FabricSwitch::PIPELINE_NONE, uint64_t(13)},
                                std::pair{FabricSwitch::PIPELINE_CREDIT_PORTS, uint64_t(11)}})
    {
        const BothWays r = SendBothWays(mode, 2);
        const std::vector<Time> expected{PicoSeconds(240560), PicoSeconds(260840)};
        EXPECT_EQ(r.atA, expected) << mode;
        EXPECT_EQ(r.atB, expected) << mode;
        EXPECT_EQ(r.busyToA, PicoSeconds(40560)) << mode;
        EXPECT_EQ(r.busyToB, PicoSeconds(40560)) << mode;
        EXPECT_EQ(r.creditsToA, 2u) << mode;
        EXPECT_EQ(r.creditsToB, 2u) << mode;
        EXPECT_EQ(r.events, events) << mode;
    }
}

/// The units of the two tests below, run: A sends 8 units of 16 IB packets (unit packets of
/// 65 748 B) through a cut-through credit switch with \p mode to B.
struct EightUnits
{
    FabricLink toSwitch;  ///< A -> the switch
    NodeContainer nodes;  ///< A, the switch, B
    size_t arrived{0};    ///< units B received
};

EightUnits
RunEightUnits(FabricSwitch::IngressPipelineMode mode)
{
    constexpr uint32_t kUnitPacket = 65536 + 32 + 15 * 12;
    UseCalendarQueue();
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(200), true);
    sw->SetAttribute("IngressPipeline", EnumValue(mode));
    FabricLinkConfig cfg = IbLikeConfig();
    cfg.mtu = 4096 + 32;
    cfg.maxPayloadBytes = kUnitPacket;
    cfg.unitLinkPackets = 16;
    cfg.creditBufferBytes = 256 * 1024;
    Arrivals rx;
    const auto [la, lb] = hockney::ConnectThrough(h, sw, cfg, rx);
    EightUnits r;
    r.toSwitch = la;
    r.nodes.Add(la.devA->GetNode());
    r.nodes.Add(sw);
    r.nodes.Add(lb.devB->GetNode());
    Ptr<FabricNetDevice> a = la.devA;
    Simulator::ScheduleNow([a, size = kUnitPacket]() {
        for (int i = 0; i < 8; ++i)
        {
            FabricHeader hdr(0, 1, 0, 0);
            hdr.SetLinkPackets(16);
            a->SendFabric(Create<Packet>(size), hdr);
        }
    });
    Simulator::Run();
    r.arrived = rx.at.size();
    return r;
}

// Network transfer units through the early take-in: A sends 8 units of 16
// IB packets (65 748 B of data and transport bytes each) through a
// cut-through credit switch to B. On the wire a unit is framed as its 16
// packets: 65 748 + 16 x 14 = 65 972 B, A's credit for it. The switch's port
// from A must free exactly that: every free (65 972 B) is over the update
// threshold (min(8 KiB, 256 KiB / 8, 256 KiB - 65 972) = 8 KiB), so each is
// reported at once and, drained, A has its whole 256 KiB of credit back.
// Taken in early with one framing a unit (65 762 B), 8 x 210 B of credit
// were lost for good (the leak that stalled rail clusters in 64 KiB units);
// taken in at the arrival (None) the switch freed the right count. Both
// modes deliver the 8 units; tolerance zero (integers of bytes).
TEST_F(IngressPipelineTest, AUnitsCreditComesBackWholeThroughTheEarlyTakeIn)
{
    for (auto mode : {FabricSwitch::PIPELINE_NONE, FabricSwitch::PIPELINE_CREDIT_PORTS})
    {
        const EightUnits run = RunEightUnits(mode);
        const FabricLink& la = run.toSwitch;
        Ptr<FabricNetDevice> a = la.devA;
        Ptr<Node> sw = la.devB->GetNode();
        const NodeContainer& nodes = run.nodes;
        EXPECT_EQ(run.arrived, 8u) << mode;
        EXPECT_EQ(a->GetCounters().txWireBytes, 8u * 65972u) << mode;
        EXPECT_EQ(a->GetFlowControl()->GetSendBudget(0), 256u * 1024u) << mode;
        // The run-end check finds every byte of credit spent freed (with
        // the leak it found A -> switch 1 680 B short; the run still
        // delivered everything).
        const FabricConservation ok = CheckFabricConservation(nodes);
        EXPECT_TRUE(ok.ok) << ok.message;
        EXPECT_EQ(ok.creditUnfreed, 0u) << mode;
        // A port that frees 100 B its peer never spent: not ok, named.
        la.devB->GetFlowControl()->IngressFreed(0, 100);
        const FabricConservation leak = CheckFabricConservation(nodes);
        EXPECT_FALSE(leak.ok);
        EXPECT_EQ(leak.creditUnfreed, 100u);
        EXPECT_NE(leak.message.find("credit spent and freed differ on a drained fabric, 100 B in all (first: node " +
                                    std::to_string(a->GetNode()->GetId()) + " dev 0 -> node " +
                                    std::to_string(sw->GetId()) + " class 0: spent 527776 B, freed 527876 B)"),
                  std::string::npos)
            << leak.message;
        Simulator::Destroy();
    }
}

// The run-end check of a fabric partitioned over MPI ranks balances credit
// link by link too: the sender's rank gives the credit its port spent, the
// receiver's what its ingress freed. A sends the 8 units above through the
// switch to B; here rank 0 owns A, rank 1 the switch and B, so A -> switch
// crosses ranks. The run is one process (a link between two system ids
// would need MPI), the ranks' parts are checked in it (the check's `own`
// overload), and the two ranks' sums are made as MPI_Allreduce makes them:
// each rank's i-th sum gets its own numbers plus the other rank's i-th.
// Each rank's result must be the one-process result, message included;
// with 100 B freed that A never spent (planted on rank 1's end of the
// crossing link), each names it: spent 527 776 B, freed 527 876 B. Every
// port's counters are set on either rank here, so ranks that read the
// other's ends too would report 1 055 552 and 1 055 752 B, a 200 B gap
// (checked); ranks that swapped the ends would give the same sums, so each
// rank's own numbers are checked too. Integers of bytes: tolerance zero.
TEST_F(IngressPipelineTest, RanksBalanceEachLinksCreditAcrossThePartition)
{
    const EightUnits run = RunEightUnits(FabricSwitch::PIPELINE_CREDIT_PORTS);
    ASSERT_EQ(run.arrived, 8u);
    const FabricLink& la = run.toSwitch;
    const NodeContainer& nodes = run.nodes;
    Ptr<Node> a = la.devA->GetNode();
    Ptr<Node> sw = la.devB->GetNode();

    const auto ownedBy = [a](uint32_t rank) {
        return [a, rank](const Node& n) { return (&n == PeekPointer(a)) == (rank == 0); };
    };
    // Each rank's own numbers, sum by sum (the last: the credit links'):
    // rank 0 gives what A spent towards the switch (link 0, class 0: A is
    // the first node), rank 1 what the switch's port from A freed.
    std::vector<std::vector<uint64_t>> mine[2];
    const auto overTwoRanks = [&nodes, &ownedBy, &mine]() {
        for (uint32_t rank : {0u, 1u})
        {
            mine[rank].clear();
            CheckFabricConservation(nodes, ownedBy(rank),
                                    [&mine, rank](std::vector<uint64_t>& v) { mine[rank].push_back(v); });
        }
        std::vector<FabricConservation> out;
        for (uint32_t rank : {0u, 1u})
        {
            size_t call = 0;
            out.push_back(CheckFabricConservation(nodes, ownedBy(rank), [&mine, rank,
                                                                         call](std::vector<uint64_t>& v) mutable {
                const std::vector<uint64_t>& other = mine[1 - rank].at(call++);
                ASSERT_EQ(other.size(), v.size());
                for (size_t i = 0; i < v.size(); ++i)
                {
                    v[i] += other[i];
                }
            }));
        }
        return out;
    };
    const FabricConservation whole = CheckFabricConservation(nodes);
    ASSERT_TRUE(whole.ok) << whole.message;
    for (const FabricConservation& r : overTwoRanks())
    {
        EXPECT_TRUE(r.ok) << r.message;
        EXPECT_EQ(r.creditUnfreed, 0u);
        EXPECT_EQ(r.injected, whole.injected);
        EXPECT_EQ(r.message, whole.message);
    }
    ASSERT_FALSE(mine[0].empty());
    ASSERT_EQ(mine[0].size(), mine[1].size());
    ASSERT_GE(mine[0].back().size(), 2u * kFabricClasses);
    EXPECT_EQ(mine[0].back()[0], 527776u);              // spent, rank 0
    EXPECT_EQ(mine[0].back()[kFabricClasses], 0u);      // freed, not rank 0's
    EXPECT_EQ(mine[1].back()[0], 0u);                   // spent, not rank 1's
    EXPECT_EQ(mine[1].back()[kFabricClasses], 527776u); // freed, rank 1
    la.devB->GetFlowControl()->IngressFreed(0, 100);
    const FabricConservation leak = CheckFabricConservation(nodes);
    ASSERT_EQ(leak.creditUnfreed, 100u);
    for (const FabricConservation& r : overTwoRanks())
    {
        EXPECT_FALSE(r.ok);
        EXPECT_EQ(r.creditUnfreed, 100u);
        EXPECT_EQ(r.creditLink, "node " + std::to_string(a->GetId()) + " dev 0 -> node " +
                                    std::to_string(sw->GetId()) + " class 0: spent 527776 B, freed 527876 B");
        EXPECT_EQ(r.message, leak.message);
    }
    Simulator::Destroy();
}

} // namespace
