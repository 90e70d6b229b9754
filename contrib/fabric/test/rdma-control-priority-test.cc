// SPDX-License-Identifier: GPL-2.0-only
//
// Control traffic on the strict-priority class, end to end: an ACK that has
// to cross a switch egress backlogged with data overtakes the backlog when
// the NIC puts ACKs on the CnpPriority class (RdmaNic::AckHighPriority), and
// waits behind it when ACKs travel in the data's class (the default). CNPs
// always use CnpPriority (class 7, the ports' StrictPriorityClasses).
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

class RdmaControlPriorityTest : public hockney::SimulatorTest
{
};

/// Hosts A (0), B (1), C (2), D (3) on one switch (300 ns forwarding, 100
/// Gb/s, 1 us links, PFC). C and D each write 4 MB to A from t = 0 on class
/// 3, so the switch egress towards A receives 200 Gb/s and sends 100 Gb/s.
/// At t0 A writes 1000 B to B (an idle path); B's ACK returns through the
/// backlogged egress. Returns seconds from the post to A's send completion.
double
AckRoundTrip(bool ackHighPriority, Time t0)
{
    Star s = MakeStar(4, RdmaLink());
    for (auto& nic : s.nics)
    {
        nic->SetAttribute("AckHighPriority", BooleanValue(ackHighPriority));
    }
    AttachAll(s);
    for (uint32_t i = 2; i < 4; ++i)
    {
        auto [q, r] = RdmaNic::Connect(s.nics[i], s.nics[0], 3);
        s.nics[i]->PostSend(q, 4000000, true, 0);
    }
    auto [qa, qb] = RdmaNic::Connect(s.nics[0], s.nics[1], 3);
    double sentAt = -1;
    s.nics[0]->SetSendCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                             .Bind(&sentAt));
    Ptr<RdmaNic> a = s.nics[0];
    const uint32_t q = qa;
    Simulator::Schedule(t0, [a, q]() { a->PostSend(q, 1000, true, 0); });
    Simulator::Stop(t0 + MicroSeconds(60));
    Simulator::Run();
    Simulator::Destroy();
    return sentAt - t0.GetSeconds();
}

} // namespace

TEST_F(RdmaControlPriorityTest, AckOnTheStrictClassOvertakesABackloggedDataQueue)
{
    // The idle-path round trip by hand (rdma-test-util.h OneWay: doorbell,
    // WQE and payload reads, 1102 B frame, 1 us, 300 ns forwarding, the
    // switch's 1102 B, 1 us; the 86 B ACK back the same way; CQE).
    Costs c;
    c.switchLatency = 300e-9;
    c.switchLine = 100e9;
    double idle = 0;
    OneWay(c, 1000, true, &idle);
    const Time t0 = MicroSeconds(20);
    // Strict class: at the egress towards A the ACK waits at most for the
    // data frame being serialized, 4096 + 12 + 70 = 4178 B = 334.24 ns; at
    // A's own port the data packet may wait for one queued 86 B ACK of A's
    // (6.88 ns), and A's payload read for one 4 KB receive write on its
    // PCIe (4096 B / 63 GB/s = 65.0 ns).
    const double strict = AckRoundTrip(true, t0);
    EXPECT_GE(strict, idle - 1e-12);
    EXPECT_LE(strict, idle + 334.24e-9 + 6.88e-9 + 65.02e-9);
    // Data class: the ACK joins the back of the egress queue. C's and D's
    // first packets reach the switch by 2.1 us (5 L + 64 B and 4 KB over
    // PCIe + 334 ns + 1 us); from then the egress receives two frames per
    // frame it sends, so the ACK, arriving after t0, finds at least
    // (t0 - 2.1 us) x 100 Gb/s of data ahead of it, minus one frame.
    const double fifo = AckRoundTrip(false, t0);
    EXPECT_GE(fifo, idle + (20e-6 - 2.1e-6) - 334.24e-9);
    RecordProperty("strict_ns", std::to_string(strict * 1e9));
    RecordProperty("fifo_ns", std::to_string(fifo * 1e9));
    RecordProperty("idle_ns", std::to_string(idle * 1e9));
}
