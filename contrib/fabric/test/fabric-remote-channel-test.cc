// SPDX-License-Identifier: GPL-2.0-only
//
// What crosses MPI ranks (fabric-remote-channel.h), without MPI: the
// FabricCrossingHeader's size and a round trip of every field through a
// packet, as MpiInterface::SendPacket serialises it (Packet::Serialize) and
// the receiving rank rebuilds it. The partitioned runs themselves are the
// ctest mpi.* tests (examples/fabric-distributed.cc under mpirun).
#include "fabric-remote-channel.h"

#include <gtest/gtest.h>

#ifdef NS3_MPI

#include "ns3/packet.h"

#include <vector>

namespace
{

using namespace ns3;

/// The bytes MPI sends of p (MpiInterface::SendPacket: Packet::Serialize)
/// and the packet the other rank makes of them; null if p did not serialise.
Ptr<Packet>
AcrossRanks(Ptr<const Packet> p)
{
    std::vector<uint8_t> wire(p->GetSerializedSize());
    if (p->Serialize(wire.data(), wire.size()) != 1)
    {
        return nullptr;
    }
    return Create<Packet>(wire.data(), wire.size(), true);
}

TEST(FabricRemoteChannel, CrossingHeaderCarriesEveryFieldThroughASerialisedPacket)
{
    // u8 what + u64 arrival + u64 last bit + u64 sequence + u64 link token
    // + FabricHeader 16 + u8 kind + u32 source + u16 class-enable + 8 x u64
    // values = 1 + 4 x 8 + 16 + 1 + 4 + 2 + 64.
    FabricCrossingHeader c;
    EXPECT_EQ(c.GetSerializedSize(), 120u);

    c.what = FabricCrossingHeader::kPacket | FabricCrossingHeader::kFrame;
    c.at = PicoSeconds(123456780000);
    c.rxEnd = PicoSeconds(123456789012); // 0.12 s: more than 32 bits of ps
    c.sequence = (uint64_t(1) << 40) + 3; // more than 32 bits
    c.token = ~uint64_t(0) - 1;            // all but one bit set
    c.header = FabricHeader(7, 4000000000u, 99, 5, FabricHeader::CE);
    c.header.SetTransportControl(true);
    c.frame.kind = FabricHeader::PFC_PAUSE;
    c.frame.source = 12;
    c.frame.classEnable = 0xA5;
    for (uint8_t k = 0; k < kFabricClasses; ++k)
    {
        c.frame.values[k] = (uint64_t(1) << (8 * k)) + k; // a different byte set in each
    }
    Ptr<Packet> p = Create<Packet>(1000);
    p->AddHeader(c);

    Ptr<Packet> q = AcrossRanks(p);
    ASSERT_TRUE(q);
    FabricCrossingHeader d;
    EXPECT_EQ(q->RemoveHeader(d), 120u);
    EXPECT_EQ(q->GetSize(), 1000u);
    EXPECT_EQ(d.what, c.what);
    EXPECT_EQ(d.at, c.at);
    EXPECT_EQ(d.rxEnd, c.rxEnd);
    EXPECT_EQ(d.sequence, c.sequence);
    EXPECT_EQ(d.token, c.token);
    EXPECT_EQ(d.header.GetSource(), 7u);
    EXPECT_EQ(d.header.GetDestination(), 4000000000u);
    EXPECT_EQ(d.header.GetFlowId(), 99u);
    EXPECT_EQ(d.header.GetPriority(), 5);
    EXPECT_EQ(d.header.GetEcn(), FabricHeader::CE);
    EXPECT_TRUE(d.header.IsTransportControl());
    EXPECT_EQ(d.frame.kind, FabricHeader::PFC_PAUSE);
    EXPECT_EQ(d.frame.source, 12u);
    EXPECT_EQ(d.frame.classEnable, 0xA5);
    EXPECT_EQ(d.frame.values, c.frame.values);
}

TEST(FabricRemoteChannel, CrossingHeaderCarriesLinkTransportFields)
{
    // NVLink's transport fields are in no packet byte: they cross after the
    // frame, u32 QP + u32 PSN + u32 immediate + u16 P_Key + 5 x u8 + 1
    // reserved = 20 bytes more, only when the header has them.
    FabricCrossingHeader c;
    c.what = FabricCrossingHeader::kPacket;
    c.header = FabricHeader(7, 8, 9, 1);
    EXPECT_EQ(c.GetSerializedSize(), 120u);
    FabricLinkTransport t;
    t.destQp = 0xABCDEF;
    t.psn = 0x123456;
    t.immediate = 0xDEADBEEF;
    t.pkey = 0x1234;
    t.opcode = 0x0B;
    t.bthFlags = 0xB5;
    t.ackFlags = 0x60;
    t.syndrome = 0x60;
    t.pad = 4;
    t.present = true;
    c.header.SetLinkTransport(t);
    c.what |= FabricCrossingHeader::kTransport;
    EXPECT_EQ(c.GetSerializedSize(), 140u);
    Ptr<Packet> p = Create<Packet>(100);
    p->AddHeader(c);
    Ptr<Packet> q = AcrossRanks(p);
    ASSERT_TRUE(q);
    FabricCrossingHeader d;
    EXPECT_EQ(q->RemoveHeader(d), 140u);
    EXPECT_EQ(q->GetSize(), 100u);
    ASSERT_TRUE(d.header.HasLinkTransport());
    const FabricLinkTransport& r = d.header.GetLinkTransport();
    EXPECT_EQ(r.destQp, t.destQp);
    EXPECT_EQ(r.psn, t.psn);
    EXPECT_EQ(r.immediate, t.immediate);
    EXPECT_EQ(r.pkey, t.pkey);
    EXPECT_EQ(r.opcode, t.opcode);
    EXPECT_EQ(r.bthFlags, t.bthFlags);
    EXPECT_EQ(r.ackFlags, t.ackFlags);
    EXPECT_EQ(r.syndrome, t.syndrome);
    EXPECT_EQ(r.pad, t.pad);
    EXPECT_EQ(d.header.GetFlowId(), 9u);
}

} // namespace

#endif
