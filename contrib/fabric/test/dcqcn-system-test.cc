// SPDX-License-Identifier: GPL-2.0-only
//
// DCQCN on a switched fabric: two flows on one 100 Gb/s bottleneck reach
// their fair share; an 8-to-1 incast keeps the bottleneck queue in the
// marking band and needs far fewer PFC pauses than the same incast with
// congestion control off.
#include "dcqcn.h"
#include "fabric-monitor.h"
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

class DcqcnSystemTest : public hockney::SimulatorTest
{
};

/// A star of `hosts` at 100 Gb/s with PFC, ECN marking of `preset` on the
/// switch ports and DCQCN `preset` (or no congestion control) on the NICs.
Star
MakeDcqcnStar(uint32_t hosts, const std::string& preset, bool dcqcn)
{
    FabricLinkConfig cfg = RdmaLink();
    cfg.delay = NanoSeconds(1000);
    cfg = WithEcnMarking(cfg, Dcqcn::PresetMarking(preset, cfg.rate));
    Star s = MakeStar(hosts, cfg);
    for (auto& nic : s.nics)
    {
        if (dcqcn)
        {
            Ptr<Dcqcn> cc = CreateObject<Dcqcn>();
            cc->ApplyPreset(preset, cfg.rate);
            nic->SetCongestionControl(cc);
        }
    }
    AttachAll(s);
    s.sw->AssignStreams(11);
    return s;
}

TEST_F(DcqcnSystemTest, TwoFlowsConvergeToFairShare)
{
    // Flow 1 (host 1 -> 0) runs alone from t = 0, flow 2 (host 2 -> 0) joins
    // at 100 us, both at line rate: the switch marks, both cut. Sampled every
    // 50 us from the senders' byte counters; fair share is 50 Gb/s each of
    // the 100 Gb/s minus framing (payload 4096 of 4178 B: 49.0 Gb/s).
    Star s = MakeDcqcnStar(3, "paper", true);
    auto [q1, r1] = RdmaNic::Connect(s.nics[1], s.nics[0], 3);
    auto [q2, r2] = RdmaNic::Connect(s.nics[2], s.nics[0], 3);
    s.nics[1]->PostSend(q1, 100000000, true, 0);
    Simulator::Schedule(MicroSeconds(100), [&, qp2 = q2]() { s.nics[2]->PostSend(qp2, 100000000, true, 0); });
    const Time window = MicroSeconds(50);
    const Time end = MilliSeconds(3);
    std::vector<std::pair<double, double>> rates; // Gb/s of payload per window
    SampleTwoRates(s.nics[1], s.nics[2], MicroSeconds(100), window, end, &rates);
    Simulator::Stop(end);
    Simulator::Run();
    // Converged from window i on: every 500 us moving average has each flow
    // within 10 % of the fair split of what the two got together, and the
    // two together use at least 90 % of the bottleneck's payload rate
    // (100 Gb/s x 4096 / 4178 = 98.0 Gb/s). DCQCN's sawtooth (a mark now and
    // then cuts one flow, or both, by alpha/2 and hyper increase brings them
    // back within ~250 us) is why single 50 us windows are not the measure.
    const double capacity = 100.0 * 4096 / 4178;
    const int converged = FairFrom(rates, 10, 0.1, 0.9 * capacity);
    ASSERT_GE(converged, 0) << "not within 10 % of fair share at the end";
    double tConv = converged * window.GetSeconds(); // after flow 2 joined
    ::testing::Test::RecordProperty("time_to_converge_us", std::to_string(tConv * 1e6));
    EXPECT_LT(tConv, 1e-3) << "fairness must hold for the last 1.9 ms of the 2.9 ms";
    EXPECT_GT(s.nics[0]->GetCounters().cnpsSent, 0u);
    // PFC keeps the fabric lossless, and every payload byte the hosts sent
    // is accounted for (delivered or still on a wire / in the switch).
    FabricConservation c = CheckFabricConservation(s.nodes);
    EXPECT_TRUE(c.lossless);
    EXPECT_EQ(c.dropped, 0u);
    EXPECT_EQ(SumFabricCounters(CollectFabricCounters(s.nodes)).drops, 0u);
    EXPECT_TRUE(c.ok) << c.message;
}

struct IncastResult
{
    uint64_t maxQueue;
    double meanQueue;
    uint64_t pauses;
    uint64_t cnps;
    uint64_t delivered;
    double finish;
    uint64_t drops;
    FabricConservation conservation;
};

IncastResult
RunIncast(bool dcqcn, const std::string& preset, uint64_t n)
{
    Star s = MakeDcqcnStar(9, preset, dcqcn);
    double finish = 0;
    PostIncast(s, n, &finish);
    Ptr<FabricNetDevice> bottleneck = s.sw->GetPort(s.links[0].portB);
    std::vector<uint64_t> q;
    for (Time t = MicroSeconds(5); t < MilliSeconds(3); t += MicroSeconds(5))
    {
        Simulator::Schedule(t, [&q, bottleneck]() { q.push_back(bottleneck->GetTotalQueueBytes()); });
    }
    Simulator::Stop(MilliSeconds(3));
    Simulator::Run();
    IncastResult res{};
    double sum = 0;
    int cnt = 0;
    for (size_t i = 0; i < q.size() && (i + 1) * 5e-6 < finish; ++i)
    {
        sum += q[i];
        ++cnt;
    }
    res.meanQueue = cnt ? sum / cnt : 0;
    res.maxQueue = s.sw->GetPort(s.links[0].portB)->GetCounters().maxQueueBytes;
    res.pauses = SenderPauses(s);
    res.cnps = s.nics[0]->GetCounters().cnpsSent;
    res.delivered = s.nics[0]->GetCounters().bytesDelivered;
    res.finish = finish;
    res.drops = SumFabricCounters(CollectFabricCounters(s.nodes)).drops;
    res.conservation = CheckFabricConservation(s.nodes);
    Simulator::Destroy();
    return res;
}

TEST_F(DcqcnSystemTest, IncastKeepsQueueNearKmaxWithFewPauses)
{
    // 8 x 1 MB into one 100 Gb/s port, paper preset (Kmin 5 KB, Kmax 200 KB,
    // Pmax 1 %). Without congestion control the bottleneck queue grows to the
    // PFC threshold and the switch pauses the senders; with DCQCN the senders
    // cut (CNPs) and the queue averages in the marking band: above Kmin (a
    // sender cuts only on marks, which need a queue above Kmin, so DCQCN
    // holds the queue there rather than draining it) and below 2 Kmax, an
    // order of magnitude lower than without, with few pauses.
    IncastResult on = RunIncast(true, "paper", 1000000);
    IncastResult off = RunIncast(false, "paper", 1000000);
    EXPECT_EQ(on.delivered, 8000000u);
    EXPECT_EQ(off.delivered, 8000000u);
    EXPECT_GT(on.cnps, 0u);
    EXPECT_EQ(off.cnps, 0u);
    EXPECT_GE(off.pauses, 10u);
    EXPECT_LE(on.pauses * 4, off.pauses);
    EXPECT_LT(on.meanQueue, 2 * 200000.0);
    EXPECT_GT(on.meanQueue, 5000.0);
    for (const IncastResult* r : {&on, &off})
    {
        // Lossless with PFC, with or without congestion control.
        EXPECT_EQ(r->drops, 0u);
        EXPECT_TRUE(r->conservation.lossless);
        EXPECT_EQ(r->conservation.dropped, 0u);
        EXPECT_TRUE(r->conservation.ok) << r->conservation.message;
    }
    EXPECT_LT(on.meanQueue * 5, off.meanQueue);
    // Reported, not asserted: the price (the paper's parameters at a 1 us
    // RTT cut the eight flows far below their share, and the increase is
    // slow to bring them back).
    ::testing::Test::RecordProperty("queue_mean_on_bytes", std::to_string(on.meanQueue));
    ::testing::Test::RecordProperty("queue_mean_off_bytes", std::to_string(off.meanQueue));
    ::testing::Test::RecordProperty("pauses_on", std::to_string(on.pauses));
    ::testing::Test::RecordProperty("pauses_off", std::to_string(off.pauses));
    ::testing::Test::RecordProperty("finish_on_us", std::to_string(on.finish * 1e6));
    ::testing::Test::RecordProperty("finish_off_us", std::to_string(off.finish * 1e6));
}

} // namespace
