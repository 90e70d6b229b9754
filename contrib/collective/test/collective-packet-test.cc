// SPDX-License-Identifier: GPL-2.0-only
//
// The packet backend: on an ideal fabric (no header bytes, buffers too large
// to fill, no software cost) a large ring allreduce approaches the closed form
// with the derived parameters to within 1 %, a cross-check of the executor,
// the transport and the fabric; on the real one every byte sent arrives and
// the row carries the fabric's counters.
#include "collective-algorithms.h"
#include "collective-closed-form.h"
#include "collective-comparison.h"
#include "collective-executor.h"
#include "packet-transport.h"
#include "simulator-test.h"
#include "star-topology.h"
#include "topology-presets.h"
#include "topology-graph.h"
#include "topology-parameters.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class CollectivePacketTest : public hockney::SimulatorTest
{
};

// Hosts on one store-and-forward switch: 100 Gb/s, 1 us links, MTU 1024 B.
TopologyDescription
Star(uint32_t hosts, uint32_t headerBytes)
{
    TopologyTier t;
    t.name = "eth";
    t.protocol = "roce";
    t.laneRate = DataRate("100Gbps");
    t.delay = MicroSeconds(1);
    t.mtuBytes = 1024;
    t.headerBytes = headerBytes;
    t.forwardingLatency = NanoSeconds(200);
    t.flowControl = TopologyFlowControl::PFC;
    return hockney::StarTopology(hosts, t, "star");
}

} // namespace

namespace
{

/// Runs \p c (its topology, collective and one size) with the closed form and
/// the packet backend on the ideal fabric, and checks: the closed form against
/// \p hand (1 ns: the closed form is exact to the picosecond), the packet run
/// within 1 % of the closed form (each test says why 1 % must hold), \p sent
/// bytes sent and delivered, and no drop. Returns the two rows for more checks.
std::vector<ResultRow>
IdealCrossCheck(ComparisonConfig c, double hand, double sent)
{
    c.backends = {"closed", "packet"};
    c.fabric.ideal = true;
    std::vector<ResultRow> rows = RunComparison(c);
    EXPECT_EQ(rows.size(), 2u);
    if (rows.size() != 2)
    {
        return rows;
    }
    const std::string what = c.topologyName + " " + c.algorithm + " " + std::to_string(c.sizes[0]) + " B";
    const double closed = rows[0].GetDouble("time_s");
    const double packet = rows[1].GetDouble("time_s");
    EXPECT_NEAR(closed, hand, 1e-9) << what;
    ::testing::Test::RecordProperty("closed_vs_packet_error", std::to_string((closed - packet) / packet));
    EXPECT_NEAR(packet, closed, 0.01 * closed) << what << ": packet " << packet << " s, closed " << closed << " s";
    EXPECT_EQ(rows[1].GetDouble("bytes_sent"), sent) << what;
    EXPECT_EQ(rows[1].GetDouble("bytes_delivered"), sent) << what;
    EXPECT_EQ(rows[1].GetDouble("drops"), 0) << what;
    return rows;
}

ComparisonConfig
IdealStar(uint32_t hosts, CollectiveKind kind, const std::string& algorithm, uint64_t bytes)
{
    ComparisonConfig c;
    c.topology = Star(hosts, 70);
    c.topologyName = "star";
    c.collective = kind;
    c.algorithm = algorithm;
    c.sizes = {bytes};
    return c;
}

} // namespace

TEST_F(CollectivePacketTest, IdealFabricApproachesTheClosedForm)
{
    // Ring allreduce of 64 MB on 4 hosts: 6 steps of 16 MB (1.28 ms each at
    // 100 Gb/s). What the closed form leaves out even on the ideal fabric:
    // per message a rendezvous round trip of two control messages (about
    // 5 us), the packet pipeline's fill (one packet per hop) and the ACKs
    // sharing each link with the data going the other way (one per 64
    // packets): together 0.66 % at this size, so 1 % must hold, while a
    // wrong step count or a lost slice would be off by 17 % or more.
    // By hand: 6 (alpha + 16 MB / 12.5 GB/s), alpha = 2 us + 200 ns + one
    // 1024 B packet at 100 Gb/s (81.92 ns) = 2.28192 us, no header bytes (ideal).
    // 16 MB per message: 1.28 ms of serialization each.
    std::vector<ResultRow> rows = IdealCrossCheck(IdealStar(4, CollectiveKind::ALL_REDUCE, "ring", 64000000),
                                                  6 * (2.28192e-6 + 16e6 / 12.5e9), 6 * 4 * 16e6);
    ASSERT_EQ(rows.size(), 2u);
    const double packet = rows[1].GetDouble("time_s");
    EXPECT_NEAR(rows[0].GetDouble("error"), (rows[0].GetDouble("time_s") - packet) / packet, 1e-12);
}

TEST_F(CollectivePacketTest, IdealFabricRingAllGatherApproachesTheClosedForm)
{
    // Ring allgather of 64 MB (total output) on 4 hosts: 3 steps of 16 MB,
    // each 1.28 ms at 100 Gb/s. What the closed form leaves out is the same
    // per-message cost as in the allreduce above (rendezvous round trip,
    // pipeline fill, ACKs) on steps of the same size, so the same fraction
    // (below 1 %) must hold, while a missing or extra step is 33 %.
    // By hand: 3 (alpha + 16 MB / 12.5 GB/s), alpha = 2.28192 us as above;
    // every rank sends 3 blocks of 16 MB.
    IdealCrossCheck(IdealStar(4, CollectiveKind::ALL_GATHER, "ring", 64000000), 3 * (2.28192e-6 + 16e6 / 12.5e9),
                    4 * 3 * 16e6);
}


TEST_F(CollectivePacketTest, IdealFabricHalvingDoublingApproachesTheClosedForm)
{
    // Recursive halving-doubling allreduce of 64 MB on the ideal star of 4,
    // by hand (alpha = 2.28192 us, beta = 12.5 GB/s; every pair crosses the
    // one switch and each step is a set of disjoint pairs, so nothing
    // contends): halving 32, 16 MB, doubling 16, 32 MB:
    // 4 alpha + 96 MB / beta = 7.689 ms. The per-message costs the closed
    // form leaves out (as above, under 1 % of a 16 MB step and half that of a
    // 32 MB one) keep it within 1 %; a lost step is 17 % or more.
    IdealCrossCheck(IdealStar(4, CollectiveKind::ALL_REDUCE, "rhd", 64000000), 4 * 2.28192e-6 + 96e6 / 12.5e9,
                    4 * 96e6);
}

// N not a power of two: the fold and the halving-doubling must not overlap on
// a link, or the closed form's "+ 2 (alpha + M/beta) for the fold" does not
// hold on a one-port network. This test found it: the builder once let ranks 2
// and 3 (no fold partner) send their first halving message into ranks 0 and 1
// while ranks 4 and 5 still folded into them, and let the result go back
// while r's own last doubling send still left r's port (packet 13.02 ms vs
// closed 8.974 ms, +45 %); each exchange now waits for both partners, as
// MPI's Sendrecv does.
//  By hand: ranks 4, 5 fold their whole 32 MB into ranks 0, 1, the four run
//  16, 8, 8, 16 MB, and 32 MB go back: 6 alpha + 112 MB / beta = 8.974 ms.
TEST_F(CollectivePacketTest, IdealFabricHalvingDoublingWithFoldApproachesTheClosedForm)
{
    IdealCrossCheck(IdealStar(6, CollectiveKind::ALL_REDUCE, "rhd", 32000000), 6 * 2.28192e-6 + 112e6 / 12.5e9,
                    2 * 2 * 32e6 + 4 * 48e6);
}

TEST_F(CollectivePacketTest, IdealLeafSpinePresetApproachesTheClosedForm)
{
    // The roce-leafspine preset cut to 2 leaves x 2 hosts (2 spines), ideal
    // knobs: ring allreduce of 64 MB, 6 steps of 16 MB. Ring 0-1-2-3-0: 1->2
    // and 3->0 cross the spine layer in opposite directions, so no link
    // carries two flows. By hand, the worst (cross-spine) path: links of
    // 10 + 100 + 100 + 10 ns, three store-and-forward switches of 500 ns each
    // holding one 4128 B packet (4096 B RDMA payload + 32 B transport header,
    // the tier's MTU; no framing on the ideal fabric) at 100 Gb/s, 330.24 ns:
    // alpha = 0.22 + 1.5 + 0.99072 = 2.71072 us; beta = 12.5 GB/s.
    // The per-message costs of the first test are a smaller fraction here
    // (4096 B packets, 16 MB steps): 1 % must hold; a lost step is 17 %.
    ComparisonConfig c;
    c.topologyName = "roce-leafspine:leaves=2,hosts-per-leaf=2";
    c.topology = MakePreset(c.topologyName);
    c.sizes = {64000000};
    std::vector<ResultRow> rows = IdealCrossCheck(c, 6 * (2.71072e-6 + 16e6 / 12.5e9), 6 * 4 * 16e6);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_NEAR(rows[0].GetDouble("alpha_s"), 2.71072e-6, 1e-15);
}

TEST_F(CollectivePacketTest, IncastOnRoceReportsCongestionCounters)
{
    // 4-to-1 on the real fabric (70 B headers, PFC, DCQCN): every byte sent is
    // delivered, nothing is dropped (PFC is lossless), and the receiver's link
    // is the bottleneck, so the run takes at least the 4 blocks' serialization.
    ComparisonConfig c;
    c.topology = Star(5, 70);
    c.topologyName = "star";
    c.collective = CollectiveKind::INCAST;
    c.algorithm = "direct";
    c.sizes = {5000000}; // 1 MB from each of 4 senders
    c.backends = {"closed", "flow", "packet"};
    std::vector<ResultRow> rows = RunComparison(c);
    ASSERT_EQ(rows.size(), 3u);
    const ResultRow& p = rows[2];
    EXPECT_EQ(p.GetDouble("bytes_sent"), 4e6);
    EXPECT_EQ(p.GetDouble("bytes_delivered"), 4e6);
    EXPECT_EQ(p.GetDouble("drops"), 0);
    EXPECT_GE(p.GetDouble("time_s"), 4e6 / 12.5e9);
    // The closed form knows no contention: 1 MB alone, about 4x optimistic.
    EXPECT_LT(rows[0].GetDouble("error"), -0.5);
}

TEST_F(CollectivePacketTest, CalibratedParametersComeFromThePacketSweep)
{
    // On the ideal two-host fabric the packet sweep around the point's 4 MB
    // messages (1 .. 16 MB, one message at a time) is alpha + n/beta with the
    // rendezvous handshake in alpha: the fitted beta is the line rate,
    // 12.5 GB/s, within 1 %, and alpha a few microseconds (the 2.28 us path
    // plus the handshake), not zero or negative.
    ComparisonConfig c;
    c.topology = Star(2, 70);
    c.topologyName = "star";
    c.sizes = {8000000};
    c.backends = {"closed", "packet"};
    c.params = {"derived", "calibrated"};
    c.fabric.ideal = true;
    std::vector<ResultRow> rows = RunComparison(c);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].GetString("params"), "derived");
    EXPECT_EQ(rows[1].GetString("params"), "calibrated");
    EXPECT_EQ(rows[2].GetString("backend"), "packet");
    EXPECT_NEAR(rows[1].GetDouble("beta_Bps"), 12.5e9, 0.01 * 12.5e9);
    EXPECT_GT(rows[1].GetDouble("alpha_s"), 2e-6);
    EXPECT_LT(rows[1].GetDouble("alpha_s"), 20e-6);
    // The derived closed form is optimistic by what it leaves out: per 4 MB
    // message (320 us of serialization) the rendezvous round trip, two
    // control messages of about 2.3 us each, and the pipeline's chunk
    // handshakes: between 0 and 3 % (about 2 % here). The calibrated one folds
    // them into its alpha and lands within 1 %.
    EXPECT_LT(rows[0].GetDouble("error"), 0.0);
    EXPECT_GT(rows[0].GetDouble("error"), -0.03);
    EXPECT_LT(std::abs(rows[1].GetDouble("error")), 0.01);
}

TEST_F(CollectivePacketTest, FinishRunReportsUndeliveredMessages)
{
    // A 1 MB message over 100 Gb/s needs more than 80 us; the run is cut at
    // 20 us. The fabric itself balances (the rest is in flight or not yet
    // handed to the port, no drop), but the run-end check counts 1 000 000 B
    // sent and fewer delivered and fails, naming the messages.
    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    t->Build(Star(2, 70));
    bool delivered = false;
    t->Send(0, 1, 1000000, [&delivered]() { delivered = true; });
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();
    ASSERT_FALSE(delivered);
    FabricConservation c = t->FinishRun();
    EXPECT_TRUE(c.balanced) << c.message;
    EXPECT_EQ(c.dropped, 0u);
    EXPECT_FALSE(c.ok);
    EXPECT_NE(c.message.find("ERROR: messages: 1000000 B sent, 0 B delivered"), std::string::npos)
        << c.message;
    // Run to the end: everything arrives and the same check passes.
    Simulator::Run();
    EXPECT_TRUE(delivered);
    FabricConservation done = t->FinishRun();
    EXPECT_TRUE(done.ok) << done.message;
}

TEST_F(CollectivePacketTest, IdealFabricRunsNcclProtocolsAsTheClosedFormPricesThem)
{
    // Ring allreduce of 64 MB on the ideal star of 4 hosts, 6 steps of 16 MB,
    // with NCCL's endpoint (nccl-protocol.h). The star's single tier is one
    // server to RanksPerNode (every pair crosses only the first hop's tier),
    // so every step pays NCCL's NVLink-side step latency. By hand, alpha =
    // 2.28192 us and beta = 12.5 GB/s as above:
    //   LL      6.6 us base + 6 (0.6 us + alpha + 2 x 16 MB / beta), 32 MB on the wire a step
    //   Simple  8.4 us base + 6 (2 x 3.4 us + alpha + 16 MB / beta): 16 MB spans
    //           two 8 MiB chunks, one synchronisation each
    // The closed form is checked against these to 1 ns (a missing step
    // latency is 600 ns or more); the packet run within 1 % of it: the
    // endpoints are eager on this model (no rendezvous), so what the closed
    // form leaves out is the pipeline fill and the ACKs, below the 0.66 %
    // of the first test of this file.
    ComparisonConfig ll = IdealStar(4, CollectiveKind::ALL_REDUCE, "ring", 64000000);
    ll.protocol = "ll";
    std::vector<ResultRow> rows =
        IdealCrossCheck(ll, 6.6e-6 + 6 * (0.6e-6 + 2.28192e-6 + 32e6 / 12.5e9), 6 * 4 * 32e6);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1].GetString("protocol"), "ll");
    ComparisonConfig simple = ll;
    simple.protocol = "simple";
    IdealCrossCheck(simple, 8.4e-6 + 6 * (2 * 3.4e-6 + 2.28192e-6 + 16e6 / 12.5e9), 6 * 4 * 16e6);
}
