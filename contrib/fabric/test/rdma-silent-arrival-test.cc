// SPDX-License-Identifier: GPL-2.0-only
//
// Silent arrivals at a NIC (RdmaNic::FoldSilentArrivals, fabric.md "Silent
// arrivals at a NIC"): a RoCE data packet in sequence, not the last of its
// message, without AckReq or CE mark, arrives at its NIC without an event. Host A - switch - host B, one 4-packet RDMA WRITE: the
// switch's departures to B, B's counters read between two arrivals, the
// completion and the run's end are the same picoseconds with folding on and
// off, computed by hand below (tolerance zero: integers of picoseconds);
// the events drop by exactly the silent packets (all but the last). A link
// down while a silent packet is on the wire gives it its event back: it is
// lost as before, and only the packets that had arrived stay folded.
// Folding needs events to leave in tie-key order: the packet runs' queue
// (RingCalendarScheduler).
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

class RdmaSilentArrivalTest : public hockney::SimulatorTest
{
};

struct Outcome
{
    std::vector<int64_t> toB;  ///< the switch starts a data packet towards B, ps
    int64_t completion{-1};    ///< B's receive completion, ps
    uint64_t deliveredAtProbe{0};
    uint64_t rxPacketsAtProbe{0};
    uint64_t delivered{0};
    uint64_t rxPackets{0};
    uint64_t linkDrops{0};     ///< link_down drops at B's port
    uint64_t events{0};
    int64_t end{0};            ///< Simulator::Now() after the run, ps
};

/// A - switch (300 ns, store and forward) - B on 100 Gb/s RoCE links of
/// 1 us with PFC; A writes 16384 B (4 packets of 4096 B) to B. B's
/// counters are read at 4 000 000 ps. \p downAt > 0: B's link goes down
/// then and up 2 us later.
Outcome
RunWrite(bool fold, Time downAt = Time(0))
{
    Simulator::SetScheduler(ObjectFactory("ns3::RingCalendarScheduler"));
    Star s = MakeStar(2, RdmaLink());
    for (auto& nic : s.nics)
    {
        nic->SetAttribute("FoldSilentArrivals", BooleanValue(fold));
    }
    AttachAll(s);
    Outcome o;
    s.links[1].devB->TraceConnectWithoutContext(
        "PhyTxBegin", MakeCallback(+[](std::vector<int64_t>* v, Ptr<const Packet> p) {
                          if (p->GetSize() > 1000) // not a pause frame
                          {
                              v->push_back(Simulator::Now().GetPicoSeconds());
                          }
                      }).Bind(&o.toB));
    s.nics[1]->SetReceiveCompletionCallback(MakeCallback(+[](int64_t* at, const RdmaCompletion&) {
                                                *at = Simulator::Now().GetPicoSeconds();
                                            }).Bind(&o.completion));
    auto [qa, qb] = RdmaNic::Connect(s.nics[0], s.nics[1], 3);
    Ptr<RdmaNic> a = s.nics[0];
    Ptr<RdmaNic> b = s.nics[1];
    Ptr<FabricNetDevice> portB = s.links[1].devA;
    Simulator::ScheduleNow([a, qa = qa]() { a->PostSend(qa, 16384, true, 7); });
    Simulator::Schedule(PicoSeconds(4000000), [&o, b, portB]() {
        o.deliveredAtProbe = b->GetCounters().bytesDelivered;
        o.rxPacketsAtProbe = portB->GetCounters().rxPackets;
    });
    if (downAt.IsStrictlyPositive())
    {
        Ptr<FabricChannel> ch = s.links[1].channel;
        Simulator::Schedule(downAt, [ch]() { ch->SetLinkUp(false); });
        Simulator::Schedule(downAt + MicroSeconds(2), [ch]() { ch->SetLinkUp(true); });
    }
    Simulator::Run();
    o.delivered = b->GetCounters().bytesDelivered;
    o.rxPackets = portB->GetCounters().rxPackets;
    o.linkDrops = portB->GetCounters().dropsBy[kDropLinkDown];
    o.events = Simulator::GetEventCount();
    o.end = Simulator::Now().GetPicoSeconds();
    Simulator::Destroy();
    return o;
}

// By hand (ps). A: doorbell 120 000, WQE read slot 360 000 + 64 B at the DMA
// rate 504 Gb/s (64 x 8e12 / 504e9 = 1 015.9 -> 1 016) = 361 016; payload
// reads a round trip later, 4096 B each 65 016: ready at 666 032, 731 048,
// 796 064, 861 080. On the wire: 4096 + BTH 12 (+ RETH 16 on the first, +
// ImmDt 4 on the last) + 70 B framing, 80 ps a byte: 335 520, 334 240,
// 334 240, 334 560. A sends at 666 032, 1 001 552, 1 335 792, 1 670 032; the
// last bits reach the switch 1 us after each ends: 2 001 552, 2 335 792,
// 2 670 032, 3 004 592; each may leave 300 ns later, behind the one before:
// 2 301 552, 2 637 072, 2 971 312, 3 305 552, and reaches B 1 us after its
// end: 3 637 072, 3 971 312, 4 305 552, 4 640 112. B writes each to memory
// behind the previous (65 016 each): the last write ends at 4 705 128, the
// completion a PCIe latency later, 4 825 128. At 4 000 000 two packets have
// arrived: 8192 B delivered. Silent at B: the first three packets (the last
// asks for the ACK and completes the message); A's ACK is no data packet.
TEST_F(RdmaSilentArrivalTest, MiddlePacketsArriveWithoutEventsAtTheSameTimes)
{
    const std::vector<int64_t> toB{2301552, 2637072, 2971312, 3305552};
    const Outcome off = RunWrite(false);
    const Outcome on = RunWrite(true);
    for (const Outcome* o : {&off, &on})
    {
        EXPECT_EQ(o->toB, toB);
        EXPECT_EQ(o->completion, 4825128);
        EXPECT_EQ(o->deliveredAtProbe, 8192u);
        EXPECT_EQ(o->rxPacketsAtProbe, 2u);
        EXPECT_EQ(o->delivered, 16384u);
        EXPECT_EQ(o->rxPackets, 4u);
    }
    EXPECT_EQ(on.end, off.end);
    EXPECT_EQ(off.events - on.events, 3u);
}

// B's link goes down at 4 100 000, after the first two packets arrived
// (3 637 072 and 3 971 312, silent) and while the third (silent, arriving at
// 4 305 552) and the fourth are on the wire: both are lost (two link_down
// drops at B's port) in both runs; the third gets its event back (UnfoldRx)
// and folding ends on B's port, so only the first two stay folded: two
// events fewer. A resends after its
// retransmission timeout; every time is the same with folding on and off.
TEST_F(RdmaSilentArrivalTest, LinkDownGivesPacketsOnTheWireTheirEvents)
{
    const Outcome off = RunWrite(false, PicoSeconds(4100000));
    const Outcome on = RunWrite(true, PicoSeconds(4100000));
    EXPECT_EQ(off.linkDrops, 2u);
    EXPECT_EQ(on.linkDrops, 2u);
    EXPECT_GT(off.completion, 4825128);
    EXPECT_EQ(on.completion, off.completion);
    EXPECT_EQ(on.toB, off.toB);
    EXPECT_EQ(on.delivered, 16384u);
    EXPECT_EQ(on.rxPackets, off.rxPackets);
    EXPECT_EQ(on.end, off.end);
    EXPECT_EQ(off.events - on.events, 2u);
}

} // namespace
