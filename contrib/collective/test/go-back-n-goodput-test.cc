// SPDX-License-Identifier: GPL-2.0-only
//
// Goodput of the packet-level NIC on a lossy link against the go-back-N
// closed form (contrib/analytic, go-back-n.h): one long RDMA write between
// two hosts on a 100 Gb/s RoCE link (1 us each way), ns-3's RateErrorModel
// losing packets at rate p in both directions (data, ACKs and NAKs alike).
// Measured efficiency = loss-free completion time / lossy completion time.
#include "fabric-helper.h"
#include "fabric-link-loss.h"
#include "fabric-monitor.h"
#include "go-back-n.h"
#include "rdma-nic.h"
#include "simulator-test.h"

#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{

constexpr uint64_t kPackets = 65536; // 256 MiB: ~ 700 losses at p = 1e-2
constexpr uint32_t kMtu = 4096;
const Time kNakInterval = MicroSeconds(20);
const Time kRto = MicroSeconds(100);

struct LossyRun
{
    double seconds{0};
    RdmaNicCounters sender;
    FabricConservation cons;
    uint64_t corrupt{0};
};

/// One write of kPackets x 4096 B from host 0 to host 1; p = 0: no error model.
LossyRun
Transfer(double p, uint32_t seed)
{
    RngSeedManager::SetSeed(seed);
    FabricHelper h;
    Ptr<Node> na = CreateObject<Node>();
    Ptr<Node> nb = CreateObject<Node>();
    FabricLinkConfig cfg;
    cfg.mtu = 4200; // IB MTU 4096 + transport headers
    FabricLink link = h.Connect(na, nb, cfg);
    link.devA->SetFabricAddress(0);
    link.devB->SetFabricAddress(1);
    if (p > 0)
    {
        InstallLinkLoss(link.devA, link.devB, FabricLinkLoss{p, FabricLinkLoss::Unit::PACKET});
        link.devA->AssignStreams(0);
        link.devB->AssignStreams(1);
    }
    Ptr<RdmaNic> a = CreateObject<RdmaNic>();
    Ptr<RdmaNic> b = CreateObject<RdmaNic>();
    for (const Ptr<RdmaNic>& nic : {a, b})
    {
        nic->SetAttribute("NakInterval", TimeValue(kNakInterval));
        nic->SetAttribute("RetransmitTimeout", TimeValue(kRto));
        nic->SetAttribute("CongestionControl", TypeIdValue(TypeId::LookupByName("ns3::RdmaCcNone")));
    }
    a->Attach(link.devA);
    b->Attach(link.devB);
    auto [qa, qb] = RdmaNic::Connect(a, b, 3);
    LossyRun r;
    b->SetReceiveCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); }).Bind(&r.seconds));
    a->PostSend(qa, kPackets * kMtu, true, 0);
    Simulator::Run();
    r.sender = a->GetCounters();
    r.cons = CheckFabricConservation(NodeContainer(na, nb));
    r.corrupt = link.devA->GetCounters().dropsBy[kDropCorrupt] + link.devB->GetCounters().dropsBy[kDropCorrupt];
    Simulator::Destroy();
    return r;
}

class GoBackNGoodputTest : public hockney::SimulatorTest
{
};

TEST_F(GoBackNGoodputTest, PacketLevelGoodputMatchesTheClosedForm)
{
    // The link as the closed form sees it: T = (4096 + 12 + 70) B at 100
    // Gb/s = 334.24 ns; the NAK (16 + 70 B, 6.88 ns) comes back after
    // 2 d + T_c = 2006.88 ns: W = 9, W_I = 2 + ceil(22006.88 / 334.24) = 68.
    GoBackNLink link;
    link.packetTime = PicoSeconds(334240);
    link.nakLoop = PicoSeconds(2006880);
    link.retransmitTimeout = kRto;
    link.nakInterval = kNakInterval;
    link.ackInterval = 64;
    const double w = GoBackNWindow(link);
    const double wi = 2 + std::ceil((2006.88e-9 + kNakInterval.GetSeconds()) / 334.24e-9);
    ASSERT_EQ(w, 9.0);
    ASSERT_EQ(wi, 68.0);

    const LossyRun clean = Transfer(0, 1);
    for (double p : {1e-3, 3e-3, 1e-2})
    {
        const LossyRun run = Transfer(p, 1);
        const double measured = clean.seconds / run.seconds;
        // A packet-unit error model loses a NAK with the same p as data.
        const double expected = GoBackNEfficiency(p, p, link);
        // Tolerance: the waste is compound Poisson. About lambda = p N / (1 - p)
        // losses, each costing W slots or (probability ~2p) W_I, so its
        // standard deviation is sqrt(lambda E[C^2]) slots out of N / eta;
        // 3 sigma of that, plus the first order the form leaves out (a
        // second loss inside a recovery, p W of the waste).
        const double n = double(kPackets);
        const double lambda = p * n / (1 - p);
        const double c2 = (1 - 2 * p) * w * w + 2 * p * wi * wi;
        const double sigma = std::sqrt(lambda * c2) / (n / expected);
        const double waste = 1 - expected;
        const double tolerance = 3 * sigma + p * w * waste;
        EXPECT_NEAR(measured, expected, tolerance)
            << "p " << p << ": measured " << measured << ", closed form " << expected << " (3 sigma "
            << 3 * sigma << ")";
        RecordProperty("p" + std::to_string(p), std::to_string(measured) + " vs " + std::to_string(expected));
        // The loss happened and was recovered: every drop a corrupt drop, the
        // books balanced, the message delivered.
        EXPECT_GT(run.corrupt, uint64_t(0.5 * p * n)) << p;
        EXPECT_TRUE(run.cons.ok) << run.cons.message;
        EXPECT_EQ(run.cons.dropped, run.cons.droppedBy[kDropCorrupt]);
        EXPECT_EQ(run.sender.messagesCompleted, 1u);
    }
}

} // namespace
