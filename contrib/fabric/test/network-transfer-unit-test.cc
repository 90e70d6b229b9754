// SPDX-License-Identifier: GPL-2.0-only
//
// Network transfer units (FabricNetwork::NetworkTransferUnitBytes,
// RdmaNic::TransferUnitBytes): a unit's wire bytes are those of its MTU
// packets, its timing through an idle switch by hand (stored whole, and
// pipelined link packet by link packet against its 16 packets), a credit
// update riding between a unit's link packets, a NIC's message in
// units delivers every byte with the wire bytes of the per-MTU run, and a
// PFC incast of units loses nothing.
#include "fabric-helper.h"
#include "fabric-switch.h"
#include "fabric-test-util.h"
#include "rdma-test-util.h"
#include "simulator-test.h"
#include "switch-buffer.h"

#include "ns3/boolean.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;
using hockney::Arrivals;

namespace
{

class NetworkTransferUnitTest : public hockney::SimulatorTest
{
};

constexpr uint32_t kHdr = FabricHeader::kSerializedSize;
constexpr uint32_t kUnit = 65536;
// A unit of 16 packets of 4096 B: its data, BTH 12 + RETH 16 + ImmDt 4 of
// the first, and the BTH 12 of each of the 15 others = 65 748 B.
constexpr uint32_t kUnitPacket = 65536 + 32 + 15 * 12;

FabricLinkConfig
UnitLink(FabricFlowControlMode fc)
{
    FabricLinkConfig cfg;
    cfg.rate = DataRate("100Gbps");
    cfg.delay = MicroSeconds(1);
    cfg.headerBytes = 70;
    cfg.minWireBytes = 84;
    cfg.mtu = 4096 + 32;
    cfg.maxPayloadBytes = kUnitPacket;
    cfg.unitLinkPackets = 16;
    cfg.flowControl = fc;
    return cfg;
}

FabricHeader
UnitHeader()
{
    FabricHeader h(0, 1, 5, 3);
    h.SetLinkPackets(16);
    return h;
}

} // namespace

TEST_F(NetworkTransferUnitTest, AUnitIsFramedAsItsMtuPackets)
{
    // The 16 RoCE packets of 4096 B by hand (70 B framing each): the first
    // 4096 + 12 + 16 + 70 = 4194, 14 middle 4096 + 12 + 70 = 4178, the last
    // 4096 + 12 + 4 + 70 = 4182: 4194 + 14 x 4178 + 4182 = 66 868 B.
    FabricHelper h;
    FabricLink l = h.Connect(CreateObject<Node>(), CreateObject<Node>(), UnitLink(FabricFlowControlMode::NONE));
    EXPECT_EQ(l.devA->WireBytes(kHdr + kUnitPacket, UnitHeader()), 66868u);
    // Without the count the same bytes are one packet: one framing.
    EXPECT_EQ(l.devA->WireBytes(kHdr + kUnitPacket), kUnitPacket + 70);
    // The largest frame the port allows for (PFC headroom, credit threshold).
    EXPECT_EQ(l.devA->MaxFrameWireBytes(), 66868u);
    EXPECT_EQ(l.devA->GetMtu(), 65535); // the 16-bit MTU saturates, the limit does not
    EXPECT_EQ(l.devA->GetMaxPayloadBytes(), kUnitPacket);
}

namespace
{

/// One 64 KiB unit from A through an idle switch (300 ns forwarding) to B:
/// its arrival at B, in ps. \p pipelined: the switch's PipelinedUnits;
/// \p credit: credit links (the switch takes the unit in when it is sent,
/// IngressPipeline CreditPorts) instead of PFC ones.
int64_t
OneUnitThroughASwitch(bool cutThrough, bool pipelined = true, bool credit = false)
{
    FabricHelper h;
    Arrivals rx;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(300), cutThrough);
    sw->SetAttribute("PipelinedUnits", BooleanValue(pipelined));
    FabricLinkConfig cfg = UnitLink(credit ? FabricFlowControlMode::CREDIT : FabricFlowControlMode::PFC);
    cfg.creditBufferBytes = 2 * 66868; // two units, as the builder raises it to
    auto links = hockney::ConnectThrough(h, sw, cfg, rx);
    EXPECT_TRUE(links.first.devA->SendFabric(Create<Packet>(kUnitPacket), UnitHeader()));
    Simulator::Run();
    EXPECT_EQ(rx.at.size(), 1u);
    EXPECT_EQ(links.second.devA->GetCounters().txWireBytes, 66868u);
    EXPECT_EQ(rx.headers.at(0).GetLinkPackets(), 16u);
    const int64_t at = rx.at.at(0).GetPicoSeconds();
    Simulator::Destroy();
    return at;
}

/// The 16 RoCE packets a unit stands for (AUnitIsFramedAsItsMtuPackets:
/// 4194, 14 x 4178 and 4182 wire bytes), sent back to back from A through
/// the same idle store-and-forward switch: the last one's arrival at B.
int64_t
SixteenPacketsThroughASwitch()
{
    FabricHelper h;
    Arrivals rx;
    FabricLinkConfig cfg = UnitLink(FabricFlowControlMode::PFC);
    cfg.maxPayloadBytes = 0;
    cfg.unitLinkPackets = 1;
    auto links = hockney::ConnectThrough(h, h.CreateSwitch(NanoSeconds(300), false), cfg, rx);
    for (uint32_t k = 0; k < 16; ++k)
    {
        // Payload = wire bytes - 70 B framing.
        const uint32_t payload = k == 0 ? 4194 - 70 : k == 15 ? 4182 - 70 : 4178 - 70;
        EXPECT_TRUE(links.first.devA->SendFabric(Create<Packet>(payload), FabricHeader(0, 1, 5, 3)));
    }
    Simulator::Run();
    EXPECT_EQ(rx.at.size(), 16u);
    EXPECT_EQ(links.second.devA->GetCounters().txWireBytes, 66868u);
    const int64_t at = rx.at.back().GetPicoSeconds();
    Simulator::Destroy();
    return at;
}

} // namespace

TEST_F(NetworkTransferUnitTest, OneUnitThroughAnIdleSwitch)
{
    // 66 868 B at 100 Gb/s = 5 349 440 ps. Stored whole (PipelinedUnits
    // false): the last bit at the switch after 1 us, egress 300 ns later,
    // again 5 349 440 ps and 1 us: 2 x 5 349 440 + 2 000 000 + 300 000 =
    // 12 998 880 ps.
    EXPECT_EQ(OneUnitThroughASwitch(false, false), 12998880);
    // Pipelined (the default): taken in at the end of its first link packet,
    // 5 349 440 / 16 = 334 340 ps after 1 us (1 334 340 ps), ready 300 ns
    // later (1 634 340 ps); its last bit came in at 6 349 440 ps, so it
    // ends at max(1 634 340 + 5 349 440, 6 349 440 + 334 340) = 6 983 780
    // ps, + 1 us = 7 983 780 ps at B.
    EXPECT_EQ(OneUnitThroughASwitch(false), 7983780);
    // The same through a credit switch, which routes and charges the unit
    // when it is sent and holds it aside until its first link packet is in.
    EXPECT_EQ(OneUnitThroughASwitch(false, true, true), 7983780);
    EXPECT_EQ(OneUnitThroughASwitch(false, false, true), 12998880);
    // A second method: the 16 packets themselves, each stored and forwarded.
    // The first (4194 B: 335 520 ps) is in at 1 335 520 ps and leaves at
    // 1 635 520; every later one is in before the one ahead has left (the
    // same rate), so the egress sends the 5 349 440 ps back to back and the
    // last bit is at B at 1 635 520 + 5 349 440 + 1 000 000 = 7 984 960 ps.
    // The unit is 1180 ps early: its first link packet is timed as the
    // mean one (334 340 ps), not as the first's 335 520.
    EXPECT_EQ(SixteenPacketsThroughASwitch(), 7984960);
    EXPECT_EQ(SixteenPacketsThroughASwitch() - OneUnitThroughASwitch(false), 1180);
    // Cut-through: the switch takes the unit at its first framing (70 B,
    // 5600 ps, after 1 us), starts 300 ns later (1 305 600 ps) and, as the
    // egress is no faster, ends 5 349 440 ps on, after the last bit came in
    // (6 349 440 ps): 6 655 040 ps, + 1 us = 7 655 040 ps at B.
    EXPECT_EQ(OneUnitThroughASwitch(true), 7655040);
}

namespace
{

/// A credit link A - B framed as UnitLink (100 Gb/s, 1 us) with a buffer of
/// four units; B frees credit for every packet (threshold 1 B). B sends two
/// units to A at 0; A sends one 1000 B packet to B at 0. Returns A's send
/// budget (class 3) just before and just after \p at.
std::pair<uint64_t, uint64_t>
CreditAtAAround(Time at)
{
    FabricHelper h;
    FabricLinkConfig cfg = UnitLink(FabricFlowControlMode::CREDIT);
    cfg.creditBufferBytes = 4 * 66868;
    FabricLink l = h.Connect(CreateObject<Node>(), CreateObject<Node>(), cfg);
    l.devA->SetFabricAddress(0);
    l.devB->SetFabricAddress(1);
    l.devB->GetFlowControl()->SetAttribute("UpdateThresholdBytes", UintegerValue(1));
    FabricHeader toA(1, 0, 5, 3);
    toA.SetLinkPackets(16);
    EXPECT_TRUE(l.devB->SendFabric(Create<Packet>(kUnitPacket), toA));
    EXPECT_TRUE(l.devB->SendFabric(Create<Packet>(kUnitPacket), toA));
    EXPECT_TRUE(l.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 5, 3)));
    std::pair<uint64_t, uint64_t> budget;
    Simulator::Schedule(at - PicoSeconds(1), [&]() { budget.first = l.devA->GetFlowControl()->GetSendBudget(3); });
    Simulator::Schedule(at + PicoSeconds(1), [&]() { budget.second = l.devA->GetFlowControl()->GetSendBudget(3); });
    Simulator::Run();
    Simulator::Destroy();
    return budget;
}

} // namespace

TEST_F(NetworkTransferUnitTest, ACreditUpdateRidesBetweenAUnitsLinkPackets)
{
    // A's packet (1000 + 70 = 1070 B on the wire, 85 600 ps) is in at B at
    // 1 085 600 ps; B frees its 1070 B and has an update to send, but is
    // sending its first unit until 5 349 440 ps. The update rides in the
    // second unit, which starts then: between its first and second link
    // packets, so at A 1 us + 334 340 ps (one link packet) later, at
    // 6 683 780 ps, not with the unit's last bit (11 698 880 ps).
    const uint64_t full = 4 * 66868;
    const auto [before, after] = CreditAtAAround(PicoSeconds(6683780));
    EXPECT_EQ(before, full - 1070);
    EXPECT_EQ(after, full);
}

namespace
{

struct MessageRun
{
    uint64_t delivered{0};
    uint64_t dataPackets{0};
    uint64_t txWire{0};
    uint64_t completions{0};
};

MessageRun
SendOneMessage(uint32_t unit, uint64_t bytes)
{
    using namespace hockney::rdmatest;
    FabricLinkConfig cfg = UnitLink(FabricFlowControlMode::PFC);
    if (unit == 0)
    {
        cfg.maxPayloadBytes = 0;
        cfg.unitLinkPackets = 1;
    }
    TwoHosts t = MakeTwoHosts(cfg, unit);
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    Ptr<RdmaNic> a = t.a;
    Ptr<RdmaNic> b = t.b;
    FabricLink link = t.link;
    MessageRun r;
    b->SetReceiveCompletionCallback(
        MakeCallback(+[](uint64_t* n, const RdmaCompletion&) { ++*n; }).Bind(&r.completions));
    a->PostSend(qa, bytes, true, 1);
    Simulator::Run();
    r.delivered = b->GetCounters().bytesDelivered;
    r.dataPackets = a->GetCounters().dataPacketsSent;
    r.txWire = link.devA->GetCounters().txWireBytes;
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(NetworkTransferUnitTest, AMessageInUnitsHasTheWireBytesOfItsMtuPackets)
{
    // 1 MB = 244 packets of 4096 B and one of 576 B: 245 x (BTH 12 + 70) +
    // RETH 16 + ImmDt 4 + 1 000 000 = 1 020 110 B on the wire, per MTU
    // packet or in units of 64 KiB (15 full units and one of 16 960 B, 5
    // link packets).
    const MessageRun mtu = SendOneMessage(0, 1000000);
    const MessageRun unit = SendOneMessage(kUnit, 1000000);
    EXPECT_EQ(mtu.txWire, 1020110u);
    EXPECT_EQ(unit.txWire, 1020110u);
    EXPECT_EQ(mtu.dataPackets, 245u);
    EXPECT_EQ(unit.dataPackets, 16u);
    EXPECT_EQ(mtu.delivered, 1000000u);
    EXPECT_EQ(unit.delivered, 1000000u);
    EXPECT_EQ(unit.completions, 1u);
}

TEST_F(NetworkTransferUnitTest, AUnitThatIsNotAMultipleOfTheMtuIsRefused)
{
    FabricHelper h;
    FabricLink l = h.Connect(CreateObject<Node>(), CreateObject<Node>(), UnitLink(FabricFlowControlMode::PFC));
    Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
    nic->SetAttribute("TransferUnitBytes", UintegerValue(10000));
    EXPECT_THROW(nic->Attach(l.devA), std::invalid_argument);
    // A unit of more link packets than the port was built for: refused too
    // (its headroom would not hold it).
    Ptr<RdmaNic> big = CreateObject<RdmaNic>();
    big->SetAttribute("TransferUnitBytes", UintegerValue(2 * kUnit));
    EXPECT_THROW(big->Attach(l.devA), std::invalid_argument);
}

namespace
{

/// Three hosts send \p bytes each to host 0 through one PFC switch with a
/// 1 MB buffer, in units of 64 KiB; the switch's ports allow for
/// \p switchUnitPackets link packets in a frame (16: the unit's; fewer: a
/// headroom too small for it, the negative control).
struct IncastResult
{
    uint64_t drops{0};
    uint64_t pauses{0};
    uint64_t delivered{0};
    uint64_t sent{0};
};

IncastResult
UnitIncast(uint64_t bytes, uint32_t switchUnitPackets)
{
    using namespace hockney::rdmatest;
    FabricLinkConfig cfg = UnitLink(FabricFlowControlMode::PFC);
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(300), false);
    sw->GetBuffer()->SetAttribute("BufferBytes", UintegerValue(1000000));
    std::vector<FabricLink> links;
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t i = 0; i < 4; ++i)
    {
        FabricLinkConfig c = cfg;
        FabricLink l = h.Connect(CreateObject<Node>(), sw, c);
        l.devA->SetFabricAddress(i);
        sw->AddRoute(i, {l.portB});
        links.push_back(l);
    }
    if (switchUnitPackets != 16)
    {
        // The negative control: headroom sized for frames of
        // switchUnitPackets MTU packets (4096 + 12 + 70 B each).
        for (uint32_t i = 0; i < 4; ++i)
        {
            const uint64_t headroom = FabricSwitch::PfcHeadroomBytes(
                cfg.rate, cfg.delay, switchUnitPackets * 4178, links[i].devB->GetControlFrameBytes());
            sw->GetBuffer()->SetHeadroomBytes(links[i].portB, headroom);
        }
    }
    for (uint32_t i = 0; i < 4; ++i)
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->SetAttribute("TransferUnitBytes", UintegerValue(kUnit));
        nic->Attach(links[i].devA);
        nics.push_back(nic);
    }
    for (uint32_t i = 1; i < 4; ++i)
    {
        auto [q, unused] = RdmaNic::Connect(nics[i], nics[0], 3);
        nics[i]->PostSend(q, bytes, true, i);
    }
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    IncastResult r;
    for (const FabricLink& l : links)
    {
        r.drops += l.devA->GetCounters().drops + l.devB->GetCounters().drops;
        r.pauses += l.devB->GetCounters().pausesSent;
    }
    r.delivered = nics[0]->GetCounters().bytesDelivered;
    for (uint32_t i = 1; i < 4; ++i)
    {
        r.sent += nics[i]->GetCounters().bytesSent;
    }
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(NetworkTransferUnitTest, AnIncastOfUnitsThroughPfcLosesNothing)
{
    // 3 x 8 MB into one 100 Gb/s port through a 1 MB buffer: the switch
    // must pause the senders, and with the headroom of a unit
    // (2 x rate x delay + 3 units + a pause frame) nothing is dropped.
    const IncastResult r = UnitIncast(8000000, 16);
    EXPECT_GT(r.pauses, 0u);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_EQ(r.sent, 24000000u);
    EXPECT_EQ(r.delivered, 24000000u);
}

TEST_F(NetworkTransferUnitTest, AHeadroomForOneMtuPacketIsNotEnoughForUnits)
{
    // The negative control of the test above: the same incast with the
    // switch's headroom sized for 4 KiB frames (2 x rate x delay + 3 x 4178
    // + 84 = 37 618 B) where 64 KiB units (66 868 B) arrive drops them,
    // which is why the headroom allows for the unit (MaxFrameWireBytes).
    const IncastResult r = UnitIncast(8000000, 1);
    EXPECT_GT(r.drops, 0u);
}
