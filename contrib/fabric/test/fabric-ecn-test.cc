// SPDX-License-Identifier: GPL-2.0-only
//
// RED marking end to end: a switch egress held at a known standing queue by
// two line-rate senders, the queue depth each packet saw at its departure
// (from the port's QueueLength trace) against the depth by hand, and the
// CE marks that reach the receiver against the RED probability at those
// depths (binomial tolerance, fixed seed).
#include "fabric-helper.h"
#include "simulator-test.h"

#include "ns3/enum.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class FabricEcnTest : public hockney::SimulatorTest
{
};

/// The switch egress towards the receiver: the depth of each departing data
/// packet's class at its start (the marker's input), and each mark.
struct EgressProbe
{
    uint64_t lastDepth[kFabricClasses] = {};
    std::vector<uint64_t> departDepth;
    std::vector<uint64_t> markDepth;

    void QueueLength(uint8_t cls, uint64_t bytes)
    {
        lastDepth[cls] = bytes;
    }

    void TxBegin(Ptr<const Packet> p)
    {
        // The port reports the class's queue when it takes the head packet,
        // then starts it: the last value reported is what the marker saw (0
        // when the packet found the port idle and never queued).
        FabricHeader h;
        p->PeekHeader(h);
        if (h.GetKind() == FabricHeader::DATA)
        {
            departDepth.push_back(lastDepth[h.GetPriority()]);
        }
    }

    void Mark(Ptr<const Packet>, uint64_t depth)
    {
        markDepth.push_back(depth);
    }
};

struct CeProbe
{
    std::vector<bool> ce;
    void Rx(Ptr<FabricNetDevice>, Ptr<Packet>, const FabricHeader& h)
    {
        ce.push_back(h.GetEcn() == FabricHeader::CE);
    }
};

/// Two senders and a receiver on one switch, 100 Gb/s, 10 ns links, RED on
/// the egress towards the receiver (address 9).
struct Ramp
{
    Ramp(uint64_t kmin, uint64_t kmax, double pmax)
    {
        FabricHelper h;
        sw = h.CreateSwitch();
        FabricLinkConfig cfg;
        cfg.delay = NanoSeconds(10);
        cfg.ecnKminBytes = kmin;
        cfg.ecnKmaxBytes = kmax;
        cfg.ecnPmax = pmax;
        all.Add(sw);
        Ptr<Node> r = CreateObject<Node>();
        all.Add(r);
        lr = h.Connect(sw, r, cfg);
        lr.devB->SetFabricAddress(9);
        sw->AddRoute(9, {lr.portA});
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<Node> s = CreateObject<Node>();
            all.Add(s);
            senders.push_back(h.Connect(s, sw, cfg));
            senders.back().devA->SetFabricAddress(i);
            sw->AddRoute(i, {senders.back().portB});
        }
    }

    /// n packets of 1000 B from each sender, back to back from now, ECT(0).
    void Send(uint32_t n)
    {
        for (uint32_t k = 0; k < n; ++k)
        {
            for (uint32_t i = 0; i < 2; ++i)
            {
                senders[i].devA->SendFabric(Create<Packet>(1000),
                                            FabricHeader(i, 9, i, 0, FabricHeader::ECT0));
            }
        }
    }

    Ptr<FabricSwitch> sw;
    NodeContainer all;
    FabricLink lr;
    std::vector<FabricLink> senders;
};

} // namespace

TEST_F(FabricEcnTest, MarksAtTheReceiverFollowRedAtTheDepthEachPacketSaw)
{
    // Two senders, each N = 1600 packets of 1000 B payload (1070 B on the
    // wire, Tf = 85.6 ns) back to back from t = 0, into one switch egress of
    // the same 100 Gb/s; 10 ns links, store-and-forward, default 12 MB
    // buffer (no pause: each ingress holds at most 800 packets, 856 KB on
    // its wire, under T = (12 MB - 3 x 12 832 - 3 x 8 x 4096 - 1.712 MB) / 8
    // = 1.27 MB at the peak).
    //
    // Depth by hand (payload bytes of class 0 queued behind the departing
    // packet). Both senders' k-th packets arrive together at t_k = k Tf + d,
    // the instant the egress finishes its previous packet: the first of the
    // pair finds the port free and the port takes its head at once, the
    // second lands behind. Departure m = 1 finds the port idle (depth 0);
    // at t_k (k = 2..N) k - 1 packets were queued, the first arrival makes
    // k, one leaves: departure k sees (k - 1) x 1000 B. After t_N N packets
    // wait and drain one per Tf: departure N + j sees (N - j) x 1000 B. So
    // every depth 0, 1000, ..., 1 599 000 B is seen twice, rising and falling.
    //
    // RED: Kmin 160 KB, Kmax 1280 KB, Pmax 0.5,
    // p(q) = 0.5 (q - Kmin) / 1 120 000. In the band (Kmin, Kmax]: depths
    // 161..1280 KB twice, 2240 packets with sum p = 2 x 0.5 x (1120 x 1121 /
    // 2) / 1120 = 560.5 expected marks; above Kmax (always marked):
    // 1281..1599 KB twice = 638; at or below Kmin (never): 0..160 KB twice
    // = 322.
    const uint32_t N = 1600;
    const uint64_t kmin = 160000;
    const uint64_t kmax = 1280000;
    const double pmax = 0.5;
    Ramp ramp(kmin, kmax, pmax);
    Ptr<FabricSwitch> sw = ramp.sw;
    NodeContainer& all = ramp.all;
    FabricLink& lr = ramp.lr;
    sw->AssignStreams(23);
    ASSERT_EQ(lr.devA->GetEcnMarker()->GetKmin(), kmin);
    EgressProbe probe;
    lr.devA->TraceConnectWithoutContext("QueueLength",
                                        MakeCallback(&EgressProbe::QueueLength, &probe));
    lr.devA->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&EgressProbe::TxBegin, &probe));
    lr.devA->TraceConnectWithoutContext("EcnMark", MakeCallback(&EgressProbe::Mark, &probe));
    CeProbe rx;
    lr.devB->SetFabricReceiveCallback(MakeCallback(&CeProbe::Rx, &rx));
    ramp.Send(N);
    Simulator::Run();

    // The queue each packet saw, by hand.
    ASSERT_EQ(probe.departDepth.size(), 2u * N);
    ASSERT_EQ(rx.ce.size(), 2u * N); // the link is FIFO: arrival i = departure i
    for (uint32_t m = 1; m <= 2 * N; ++m)
    {
        uint64_t expect = m <= N ? (m - 1) * 1000ull : (2ull * N - m) * 1000;
        ASSERT_EQ(probe.departDepth[m - 1], expect) << "departure " << m;
    }

    // Deterministic parts of RED, packet by packet; the band's counts.
    auto red = [&](uint64_t q) {
        return q <= kmin ? 0.0 : q > kmax ? 1.0 : pmax * double(q - kmin) / double(kmax - kmin);
    };
    uint32_t inBand = 0;
    uint32_t above = 0;
    uint32_t ceTotal = 0;
    // Two halves of the band, split at 720 KB, so the slope is checked, not
    // only the total.
    double expect[2] = {0, 0};
    double var[2] = {0, 0};
    uint32_t marks[2] = {0, 0};
    for (uint32_t i = 0; i < 2 * N; ++i)
    {
        uint64_t q = probe.departDepth[i];
        ceTotal += rx.ce[i];
        if (q <= kmin)
        {
            EXPECT_FALSE(rx.ce[i]) << "packet " << i << " at depth " << q;
        }
        else if (q > kmax)
        {
            ++above;
            EXPECT_TRUE(rx.ce[i]) << "packet " << i << " at depth " << q;
        }
        else
        {
            ++inBand;
            int half = q <= 720000 ? 0 : 1;
            double p = red(q);
            expect[half] += p;
            var[half] += p * (1 - p);
            marks[half] += rx.ce[i];
        }
    }
    EXPECT_EQ(inBand, 2240u);
    EXPECT_EQ(above, 638u);
    // By hand: lower half depths 161..720 KB, 2 x 0.5 x (560 x 561 / 2) /
    // 1120 = 140.25; upper 721..1280 KB: 560.5 - 140.25 = 420.25.
    EXPECT_NEAR(expect[0], 140.25, 1e-9);
    EXPECT_NEAR(expect[1], 420.25, 1e-9);
    // The marks are sums of independent Bernoulli(p_i) draws: mean sum p,
    // variance sum p (1 - p) = 116.9 (lower half), 256.7 (upper), 373.6
    // (all). Within 4 standard deviations: a correct marker fails with
    // probability below 1e-4 per check (normal approximation); the stream
    // is fixed, so the run is deterministic. 4 sigma of the total is 77
    // marks, 14 % of 560.5: a slope (Pmax) off by 15 % falls outside.
    for (int half = 0; half < 2; ++half)
    {
        EXPECT_NEAR(double(marks[half]), expect[half], 4 * std::sqrt(var[half]))
            << "band half " << half;
    }
    EXPECT_NEAR(var[0] + var[1], 373.6, 0.1);
    EXPECT_NEAR(double(marks[0] + marks[1]), 560.5, 4 * std::sqrt(var[0] + var[1]));
    RecordProperty("marks_low_half", std::to_string(marks[0]));
    RecordProperty("marks_high_half", std::to_string(marks[1]));

    // The switch's own accounting agrees: every mark it traced arrived as CE,
    // and the depth it traced is the depth that packet saw.
    EXPECT_EQ(lr.devA->GetCounters().ecnMarks, ceTotal);
    ASSERT_EQ(probe.markDepth.size(), ceTotal);
    std::vector<uint64_t> ceDepth;
    for (uint32_t i = 0; i < 2 * N; ++i)
    {
        if (rx.ce[i])
        {
            ceDepth.push_back(probe.departDepth[i]);
        }
    }
    EXPECT_EQ(probe.markDepth, ceDepth);
    uint64_t pauses = 0;
    for (const auto& p : CollectFabricCounters(all))
    {
        pauses += p.counters.pausesSent;
    }
    EXPECT_EQ(pauses, 0u);
    EXPECT_EQ(sw->GetDrops(), 0u);
}

namespace
{

/// The two-sender setup above with N packets each and a step marker (Kmin =
/// Kmax = k: marked iff the depth read exceeds k): the CE bit of each packet
/// at the receiver, in arrival order (= the egress's FIFO order).
std::vector<bool>
StepMarks(uint32_t n, uint64_t k, FabricEcnMarker::MarkPoint at,
          FabricEcnMarker::QueueMeasure measure)
{
    Ramp ramp(k, k, 1.0);
    ramp.lr.devA->GetEcnMarker()->SetAttribute("MarkAt", EnumValue(at));
    ramp.lr.devA->GetEcnMarker()->SetAttribute("QueueBytes", EnumValue(measure));
    CeProbe rx;
    ramp.lr.devB->SetFabricReceiveCallback(MakeCallback(&CeProbe::Rx, &rx));
    ramp.Send(n);
    Simulator::Run();
    Simulator::Destroy();
    return rx.ce;
}

uint32_t
FirstMark(const std::vector<bool>& ce)
{
    return static_cast<uint32_t>(std::find(ce.begin(), ce.end(), true) - ce.begin());
}

} // namespace

TEST_F(FabricEcnTest, MarkPointAndQueueMeasureChangeWhichPacketsAreMarked)
{
    // N = 200 packets per sender, 1000 B payload (1070 B on the wire), a step
    // at K = 100 000 B. Depth by hand as above: departure m (1-based) has
    // (m-1) packets behind it for m <= N, (2N-m) after; the k-th pair of
    // arrivals both find (k-1) packets ahead of them when they join.
    const uint32_t n = 200;
    const uint64_t k = 100000;
    // Dequeue, payload: marked iff (m-1) 1000 > K on the rise (m = 102..200)
    // and (2N-m) 1000 > K on the fall (m = 201..299): 198 marks, the first
    // at index 101, the last packet unmarked.
    auto deq = StepMarks(n, k, FabricEcnMarker::DEQUEUE, FabricEcnMarker::PAYLOAD);
    ASSERT_EQ(deq.size(), 2u * n);
    EXPECT_EQ(std::count(deq.begin(), deq.end(), true), 198);
    EXPECT_EQ(FirstMark(deq), 101u);
    EXPECT_FALSE(deq.back());
    EXPECT_TRUE(deq[298]);
    EXPECT_FALSE(deq[299]);
    // Enqueue, payload: pair k' marked iff (k'-1) 1000 > K, k' = 102..200:
    // arrivals 203..400, again 198 marks, but the late arrivals (marked on a
    // long queue, sent when it has drained) instead of the late departures.
    auto enq = StepMarks(n, k, FabricEcnMarker::ENQUEUE, FabricEcnMarker::PAYLOAD);
    ASSERT_EQ(enq.size(), 2u * n);
    EXPECT_EQ(std::count(enq.begin(), enq.end(), true), 198);
    EXPECT_EQ(FirstMark(enq), 202u);
    EXPECT_TRUE(enq.back());
    // Dequeue, wire bytes: marked iff packets x 1070 > K, i.e. 94 or more
    // packets (93 x 1070 = 99 510): m = 95..200 and 201..306, 212 marks,
    // the first at index 94.
    auto wire = StepMarks(n, k, FabricEcnMarker::DEQUEUE, FabricEcnMarker::WIRE);
    EXPECT_EQ(std::count(wire.begin(), wire.end(), true), 212);
    EXPECT_EQ(FirstMark(wire), 94u);
}
