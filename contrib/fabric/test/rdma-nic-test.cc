// SPDX-License-Identifier: GPL-2.0-only
//
// The RDMA NIC on small fabrics: completion times against the hand formula
// (rdma-test-util.h: headers, MTU, link and PCIe rates and latencies),
// PCIe-bound throughput, round robin between QPs, go-back-N on a lossy
// fabric, and bad input.
#include "dcqcn.h"
#include "fabric-monitor.h"
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/data-rate.h"
#include "ns3/pcap-file.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

// Every term of the formula is rounded to 1 ps by the simulator (Time has
// picosecond resolution); a multi-packet message sums a few dozen of them.
constexpr double kPs = 1e-12;

class RdmaNicTest : public hockney::SimulatorTest
{
};

TEST_F(RdmaNicTest, OnePacketWriteByHand)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    double recvAt = -1;
    double sentAt = -1;
    uint64_t recvBytes = 0;
    t.b->SetReceiveCompletionCallback(MakeCallback(
        +[](double* at, uint64_t* b, const RdmaCompletion& c) {
            *at = Simulator::Now().GetSeconds();
            *b = c.bytes;
        }).Bind(&recvAt, &recvBytes));
    t.a->SetSendCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                       .Bind(&sentAt));
    t.a->PostSend(qa, 1000, true, 7);
    Simulator::Run();
    Costs c;
    double ack = 0;
    // By hand: L = 120 ns, DMA 504 Gb/s, WQE 64 B:
    //   ready = 5 L + (64 + 1000) B / 63 GB/s          = 616.889 ns
    //   wire  = 12 + 16 + 4 + 1000 + 70 = 1102 B -> 88.16 ns at 100 Gb/s
    //   + 1 us propagation, + 1000 B / 63 GB/s write (15.873 ns), + L (CQE)
    double expect = OneWay(c, 1000, true, &ack);
    EXPECT_NEAR(expect, 616.889e-9 + 88.16e-9 + 1e-6 + 15.873e-9 + 120e-9, 1e-12);
    EXPECT_NEAR(recvAt, expect, 5 * kPs);
    EXPECT_EQ(recvBytes, 1000u);
    EXPECT_NEAR(sentAt, ack, 5 * kPs);
    EXPECT_EQ(t.a->GetCounters().bytesSent, 1000u);
    EXPECT_EQ(t.b->GetCounters().bytesDelivered, 1000u);
    EXPECT_EQ(t.a->GetOutstandingBytes(qa), 0u);
}

TEST_F(RdmaNicTest, MultiPacketSendByHand)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    double recvAt = -1;
    t.b->SetReceiveCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                          .Bind(&recvAt));
    const uint64_t n = 3 * 4096 + 1000; // 4 packets, the last short
    t.a->PostSend(qa, n, false, 0);
    Simulator::Run();
    Costs c;
    EXPECT_NEAR(recvAt, OneWay(c, n, false), 20 * kPs);
    EXPECT_EQ(t.a->GetCounters().dataPacketsSent, 4u);
    // Default AckInterval 64: only the message's last packet asks for an ACK.
    EXPECT_EQ(t.b->GetCounters().acksSent, 1u);
}

TEST_F(RdmaNicTest, CoalescedAcksStillReopenTheWindow)
{
    // A window of two packets with the default AckInterval of 64: the packet
    // that fills the window asks for an ACK (PSNs 1, 3, 5, 7 and the last,
    // 9), so the window reopens after a round trip, not at the 67 ms timeout.
    TwoHosts t = MakeTwoHosts(RdmaLink());
    t.a->SetAttribute("WindowBytes", UintegerValue(2 * 4096));
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    double sentAt = -1;
    t.a->SetSendCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                       .Bind(&sentAt));
    t.a->PostSend(qa, 10 * 4096, true, 0);
    Simulator::Run();
    EXPECT_EQ(t.b->GetCounters().acksSent, 5u);
    EXPECT_EQ(t.a->GetCounters().timeouts, 0u);
    EXPECT_EQ(t.a->GetCounters().packetsRetransmitted, 0u);
    // Five round trips of ~2.5 us each (1 us links both ways, PCIe steps):
    // far below the timeout.
    EXPECT_GT(sentAt, 0);
    EXPECT_LT(sentAt, 30e-6);
}

TEST_F(RdmaNicTest, AckCoalescing)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    t.a->SetAttribute("AckInterval", UintegerValue(4));
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    t.a->PostSend(qa, 10 * 4096, true, 0);
    Simulator::Run();
    // PSNs 0-9: ACK requested at PSN 3 and 7 ((psn+1) % 4 == 0) and at the last (9).
    EXPECT_EQ(t.b->GetCounters().acksSent, 3u);
    EXPECT_EQ(t.a->GetCounters().messagesCompleted, 1u);
}

TEST_F(RdmaNicTest, PcieBoundsThroughput)
{
    // PCIe at 40 Gb/s under a 100 Gb/s link: a 256 KiB message streams at the
    // DMA rate. By hand: the last packet is ready at 5 L + (64 + n) B / 5 GB/s,
    // then crosses the link (one 4194-byte frame, 335.5 ns, and 1 us), then is
    // written at 5 GB/s (4096 B: 819.2 ns) and the CQE takes L.
    FabricLinkConfig cfg = RdmaLink();
    FabricHelper h;
    Ptr<Node> na = CreateObject<Node>();
    Ptr<Node> nb = CreateObject<Node>();
    FabricLink l = h.Connect(na, nb, cfg);
    l.devA->SetFabricAddress(0);
    l.devB->SetFabricAddress(1);
    Ptr<RdmaNic> a = CreateObject<RdmaNic>();
    Ptr<RdmaNic> b = CreateObject<RdmaNic>();
    a->SetAttribute("PcieRate", DataRateValue(DataRate("40Gbps")));
    b->SetAttribute("PcieRate", DataRateValue(DataRate("40Gbps")));
    a->Attach(l.devA);
    b->Attach(l.devB);
    auto [qa, qb] = RdmaNic::Connect(a, b, 3);
    double recvAt = -1;
    b->SetReceiveCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                        .Bind(&recvAt));
    const uint64_t n = 262144;
    a->PostSend(qa, n, true, 0);
    Simulator::Run();
    Costs c;
    c.dmaRate = 40e9;
    const double expect = OneWay(c, n, true);
    EXPECT_NEAR(recvAt, expect, 200 * kPs);
    // By hand: the first packet (4096 B + RETH, a 4194-byte frame) lands at
    // 5 L + (64 + 4096) B / 5 GB/s + 335.52 ns + 1 us; from then the receive
    // DMA writes one 4096-byte payload per 819.2 ns, 64 of them, the CQE L.
    const double byHand =
        5 * 120e-9 + (64 + 4096) / 5e9 + 4194 * 8 / 100e9 + 1e-6 + 64 * 4096 / 5e9 + 120e-9;
    EXPECT_NEAR(expect, byHand, 1e-12);
    // PCIe-bound: slower than n at the PCIe rate, and far from the 21 us of
    // the link alone.
    EXPECT_GT(recvAt, n * 8 / 40e9);
    EXPECT_LT(recvAt, n * 8 / 40e9 + 3e-6);
}

TEST_F(RdmaNicTest, QpsShareThePortRoundRobin)
{
    // DmaPrefetch 1: each QP reads its next payload when a packet leaves
    // (ready 2 L + 65 ns later, before the port is free again), so the reads
    // never give one QP a head start and the order is the port's alone.
    TwoHosts t = MakeTwoHosts(RdmaLink());
    t.a->SetAttribute("DmaPrefetch", UintegerValue(1));
    auto [q1, r1] = RdmaNic::Connect(t.a, t.b, 3);
    auto [q2, r2] = RdmaNic::Connect(t.a, t.b, 3);
    std::vector<std::pair<uint32_t, double>> done;
    t.b->SetReceiveCompletionCallback(MakeCallback(
        +[](std::vector<std::pair<uint32_t, double>>* d, const RdmaCompletion& c) {
            d->push_back({c.qpn, Simulator::Now().GetSeconds()});
        }).Bind(&done));
    const uint64_t n = 16 * 4096;
    t.a->PostSend(q1, n, true, 0);
    t.a->PostSend(q2, n, true, 0);
    Simulator::Run();
    ASSERT_EQ(done.size(), 2u);
    // Interleaved packet by packet, the two finish one packet time apart: the
    // last frame, 4096 + BTH 12 + ImmDt 4 + 70 = 4182 B at 100 Gb/s =
    // 334.56 ns (4 ps: rounding). Served one after the other they would finish
    // 16 packet times apart.
    EXPECT_NEAR(done[1].second - done[0].second, 334.56e-9, 1e-12 * 4);
    // Together they take the time of one 2n message on one QP, within one
    // packet time (the second QP's WQE fetch overlaps the first's stream).
    Costs c;
    EXPECT_NEAR(done[1].second, OneWay(c, 2 * n, true), 2 * 335.84e-9);
}

TEST_F(RdmaNicTest, LossyFabricDeliversEveryByteByGoBackN)
{
    // Four senders into one receiver through a switch without PFC and with a
    // 400 KB buffer (of which 5 x ~37.6 KB headroom, FabricSwitch::PfcHeadroomBytes): 300 Gb/s of excess into
    // the receiver's egress overflows the dynamic threshold and drops. Go-back-N (NAK on
    // the first gap, timeout for a lost tail) must still deliver every byte.
    FabricLinkConfig cfg = RdmaLink("100Gbps", FabricFlowControlMode::NONE);
    cfg.ecn = false;
    Star s = MakeStar(5, cfg);
    s.sw->GetBuffer()->SetAttribute("BufferBytes", UintegerValue(400000));
    for (auto& nic : s.nics)
    {
        nic->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(20)));
    }
    AttachAll(s);
    const uint64_t n = 200000;
    for (uint32_t i = 1; i < 5; ++i)
    {
        auto [q, r] = RdmaNic::Connect(s.nics[i], s.nics[0], 3);
        s.nics[i]->PostSend(q, n, true, 0);
    }
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    uint64_t drops = 0;
    for (auto& l : s.links)
    {
        drops += l.portB != 0xFFFFFFFFu ? s.sw->GetPort(l.portB)->GetCounters().drops : 0;
    }
    uint64_t sent = 0;
    uint64_t retx = 0;
    uint64_t done = 0;
    for (uint32_t i = 1; i < 5; ++i)
    {
        sent += s.nics[i]->GetCounters().bytesSent;
        retx += s.nics[i]->GetCounters().packetsRetransmitted;
        done += s.nics[i]->GetCounters().messagesCompleted;
    }
    EXPECT_GT(drops, 0u) << "the scenario must lose packets to test recovery";
    // The fabric's own books: what the hosts' ports sent is delivered,
    // dropped (the switch's count) or still in flight; the fabric is lossy.
    FabricConservation c = CheckFabricConservation(s.nodes);
    EXPECT_TRUE(c.ok) << c.message;
    EXPECT_FALSE(c.lossless);
    uint64_t dropBytes = 0;
    for (auto& l : s.links)
    {
        dropBytes += s.sw->GetPort(l.portB)->GetCounters().dropBytes;
    }
    EXPECT_EQ(c.dropped, dropBytes) << c.message;
    EXPECT_GT(c.dropped, 0u);
    EXPECT_GT(retx, 0u);
    EXPECT_EQ(done, 4u);
    EXPECT_EQ(sent, 4 * n);
    EXPECT_EQ(s.nics[0]->GetCounters().bytesDelivered, 4 * n);
    EXPECT_EQ(s.nics[0]->GetCounters().messagesReceived, 4u);
}

TEST_F(RdmaNicTest, WindowLimitsBytesInFlight)
{
    // Window of 2 packets: each pair waits for an ACK, so a 16-packet message
    // takes at least 8 round trips (2 x 1 us propagation each).
    TwoHosts t = MakeTwoHosts(RdmaLink());
    t.a->SetAttribute("WindowBytes", UintegerValue(2 * 4096));
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    double recvAt = -1;
    t.b->SetReceiveCompletionCallback(MakeCallback(
        +[](double* at, const RdmaCompletion&) { *at = Simulator::Now().GetSeconds(); })
                                          .Bind(&recvAt));
    t.a->PostSend(qa, 16 * 4096, true, 0);
    Simulator::Run();
    EXPECT_GT(recvAt, 7 * 2e-6);
    Costs c;
    EXPECT_GT(recvAt, OneWay(c, 16 * 4096, true) + 6e-6);
}

// One 1000 B RDMA WRITE with immediate from a to b over one RoCE link, captured
// at a's port; returns the pcap file and the destination QP.
std::pair<std::string, uint32_t>
CaptureOneWrite(const std::string& stem)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    std::string prefix = ::testing::TempDir() + stem;
    FabricHelper::EnablePcap(prefix, t.link.devA);
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    t.a->PostSend(qa, 1000, true, 0x01020304);
    const std::string file = prefix + "-" + std::to_string(t.link.devA->GetNode()->GetId()) + "-" +
                             std::to_string(t.link.devA->GetIfIndex()) + ".pcap";
    Simulator::Run();
    t = TwoHosts();
    Simulator::Destroy(); // disposes the nodes, their ports and the pcap writer
    return {file, qb};
}

TEST_F(RdmaNicTest, PcapShowsRoceV2WithTheBth)
{
    // The port writes Eth / 802.1Q / IPv4 / UDP 4791 around the NIC's bytes,
    // so the UDP payload must be the BTH as Wireshark's RoCEv2 dissector
    // reads it: opcode 0x0B (RDMA WRITE Only with Immediate), dest QP, PSN 0.
    const auto [file, qb] = CaptureOneWrite("rdma-pcap");
    PcapFile f;
    f.Open(file, std::ios::in);
    ASSERT_FALSE(f.Fail());
    EXPECT_EQ(f.GetDataLinkType(), 1u);
    std::vector<uint8_t> b(65535);
    uint32_t sec, usec, incl, orig, len;
    f.Read(b.data(), b.size(), sec, usec, incl, orig, len);
    ASSERT_GT(len, 46u + 12u);
    EXPECT_EQ(b[12], 0x81); // 802.1Q
    EXPECT_EQ(b[16], 0x08); // IPv4
    EXPECT_EQ(b[18 + 9], 17); // UDP
    EXPECT_EQ((b[18 + 20 + 2] << 8) | b[18 + 20 + 3], 4791);
    const uint8_t* bth = &b[18 + 20 + 8];
    EXPECT_EQ(bth[0], 0x0B);
    EXPECT_EQ((uint32_t(bth[5]) << 16) | (bth[6] << 8) | bth[7], qb);
    EXPECT_EQ((uint32_t(bth[9]) << 16) | (bth[10] << 8) | bth[11], 0u);
    EXPECT_EQ(bth[8] & 0x80, 0x80); // AckReq on the last packet
    // RETH (16) follows, then ImmDt, big-endian.
    EXPECT_EQ(bth[12 + 16], 0x01);
    EXPECT_EQ(bth[12 + 16 + 3], 0x04);
}

TEST_F(RdmaNicTest, BadInputNamesTheAttribute)
{
    auto expectMsg = [](auto fn, const std::string& field) {
        try
        {
            fn();
            ADD_FAILURE() << "no exception for " << field;
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    FabricLinkConfig cfg = RdmaLink();
    cfg.mtu = 4096; // too small for IB MTU 4096 plus BTH/RETH/ImmDt
    FabricHelper h;
    FabricLink l = h.Connect(CreateObject<Node>(), CreateObject<Node>(), cfg);
    Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
    expectMsg([&]() { nic->Attach(l.devA); }, "RdmaNic::Mtu");
    nic->SetAttribute("Mtu", UintegerValue(2048));
    EXPECT_NO_THROW(nic->Attach(l.devA));
    expectMsg([&]() { nic->SetAttribute("Mtu", UintegerValue(3000)); }, "RdmaNic::Mtu");
    expectMsg([&]() { nic->SetAttribute("Mtu", UintegerValue(4096)); }, "RdmaNic::Mtu");
    expectMsg([&]() { nic->SetAttribute("PcieRate", DataRateValue(DataRate(0))); },
              "RdmaNic::PcieRate");
    expectMsg([&]() { nic->SetAttribute("PcieLatency", TimeValue(NanoSeconds(-1))); },
              "RdmaNic::PcieLatency");
    expectMsg([&]() { nic->SetAttribute("RetransmitTimeout", TimeValue(Time(0))); },
              "RdmaNic::RetransmitTimeout");
    expectMsg([&]() { nic->SetAttribute("MemoryRate", DataRateValue(DataRate(0))); },
              "RdmaNic::MemoryRate");

    // Arguments of the API calls: each throws (no abort) naming the call and
    // the argument.
    Ptr<RdmaNic> loose = CreateObject<RdmaNic>();
    expectMsg([&]() { loose->CreateQp(3); }, "RdmaNic::CreateQp");
    expectMsg([&]() { loose->Attach(nullptr); }, "RdmaNic::Attach port");
    expectMsg([&]() { nic->SetCongestionControl(nullptr); }, "RdmaNic::SetCongestionControl");
    expectMsg([&]() { nic->CreateQp(8); }, "RdmaNic::CreateQp priority");
    expectMsg([&]() { nic->PostSend(5, 100, true, 0); }, "RdmaNic::PostSend qpn");
    expectMsg([&]() { nic->GetRateState(0); }, "RdmaNic::GetRateState qpn");
    expectMsg([&]() { nic->GetOutstandingBytes(1); }, "RdmaNic::GetOutstandingBytes qpn");
    expectMsg([&]() { nic->ConnectQp(9, 1, 1); }, "RdmaNic::ConnectQp qpn");
    // QPNs start above QP0 and QP1, the special QPs (IBTA Vol. 1, 3.5.9).
    uint32_t q = nic->CreateQp(3);
    EXPECT_EQ(q, 0x100u);
    expectMsg([&]() { nic->PostSend(q, 100, true, 0); }, "unconnected QP 256");
    nic->ConnectQp(q, 1, 1);
    expectMsg([&]() { nic->PostSend(q, 0, false, 0, Create<Packet>(2049)); },
              "RdmaNic::PostSend inlineData");
    // A congestion control that cannot run on this port: CreateQp throws and
    // leaves no half-made QP behind (the next QP is number 0x101).
    Ptr<Dcqcn> fast = CreateObject<Dcqcn>();
    fast->SetAttribute("MinRate", DataRateValue(DataRate("200Gb/s")));
    nic->SetCongestionControl(fast);
    expectMsg([&]() { nic->CreateQp(3); }, "Dcqcn::MinRate");
    nic->SetCongestionControl(CreateObject<RdmaCcNone>());
    EXPECT_EQ(nic->CreateQp(3), 0x101u);
}

TEST_F(RdmaNicTest, PacketsForAnUnknownQpAreCounted)
{
    // a's QP names QP 7 at b, which b does not have: the 3 data packets of a
    // 3-MTU write are each dropped and counted at b; nothing is delivered or
    // acknowledged. RTO 1 s: no retransmission within the 100 us run.
    TwoHosts t = MakeTwoHosts(RdmaLink());
    t.a->SetAttribute("RetransmitTimeout", TimeValue(Seconds(1)));
    uint32_t qa = t.a->CreateQp(3);
    t.a->ConnectQp(qa, t.b->GetAddress(), 7);
    t.a->PostSend(qa, 3 * 4096, true, 0);
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();
    EXPECT_EQ(t.a->GetCounters().dataPacketsSent, 3u);
    EXPECT_EQ(t.b->GetCounters().unknownQpDropped, 3u);
    EXPECT_EQ(t.b->GetCounters().bytesDelivered, 0u);
    EXPECT_EQ(t.b->GetCounters().acksSent, 0u);
    EXPECT_EQ(t.a->GetCounters().messagesCompleted, 0u);
    EXPECT_EQ(t.a->GetCounters().unknownQpDropped, 0u);
    EXPECT_EQ(t.a->GetCounters().controlDropped, 0u);
}

} // namespace

TEST_F(RdmaNicTest, TsharkDissectsThePcapAsRoceV2)
{
    // A second, independent reading of the same capture: Wireshark's own
    // dissectors must see Ethernet / 802.1Q / IPv4 / UDP / InfiniBand (RoCEv2 on
    // UDP 4791) with the RC opcode and QP the NIC sent. tshark is one of the
    // packages ./hockney setup installs; skip clearly if it is missing anyway.
    if (std::system("command -v tshark >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "tshark not installed: RoCEv2 dissection not checked";
    }
    const auto [file, qb] = CaptureOneWrite("rdma-tshark");
    const std::string out = file + ".txt";
    const std::string cmd = "tshark -r " + file + " -V -c 1 >" + out + " 2>/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    EXPECT_NE(text.find("eth:ethertype:vlan:ethertype:ip:udp:infiniband"), std::string::npos) << text;
    EXPECT_NE(text.find("RDMA WRITE Only with Immediate"), std::string::npos) << text;
    char qp[32];
    std::snprintf(qp, sizeof qp, "Destination Queue Pair: 0x%06x", qb);
    EXPECT_NE(text.find(qp), std::string::npos) << text;
    EXPECT_NE(text.find("Packet Sequence Number: 0"), std::string::npos) << text;
    std::remove(out.c_str());
}
