// SPDX-License-Identifier: GPL-2.0-only
//
// IB transport headers: sizes and bit positions as IBTA Vol. 1 lays them out.
#include "bth-header.h"
#include "rdma-transport.h"

#include "ns3/packet.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;

TEST(RdmaHeaders, BthBytesOnTheWire)
{
    BthHeader h;
    h.opcode = bth::kCnp;
    h.solicitedEvent = true;
    h.padCount = 3;
    h.pkey = 0x1234;
    h.becn = true;
    h.destQp = 0xABCDEF;
    h.ackReq = true;
    h.psn = 0x123456;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    ASSERT_EQ(p->GetSize(), 12u);
    std::vector<uint8_t> b(12);
    p->CopyData(b.data(), 12);
    // opcode | SE M Pad(2) TVer(4) | P_Key | F B rsvd | DestQP | A rsvd | PSN
    const std::vector<uint8_t> expect = {0x81, 0xB0, 0x12, 0x34, 0x40, 0xAB,
                                         0xCD, 0xEF, 0x80, 0x12, 0x34, 0x56};
    EXPECT_EQ(b, expect);
    BthHeader r;
    p->RemoveHeader(r);
    EXPECT_EQ(r.opcode, bth::kCnp);
    EXPECT_EQ(r.destQp, 0xABCDEFu);
    EXPECT_EQ(r.psn, 0x123456u);
    EXPECT_TRUE(r.ackReq);
    EXPECT_TRUE(r.becn);
    EXPECT_FALSE(r.fecn);
    EXPECT_EQ(r.padCount, 3);
    EXPECT_EQ(r.pkey, 0x1234);
}

TEST(RdmaHeaders, AethAndReth)
{
    AethHeader a;
    a.syndrome = AethHeader::kNakPsnError;
    a.msn = 0x010203;
    RethHeader w;
    w.virtualAddress = 0x1122334455667788ULL;
    w.rkey = 7;
    w.dmaLength = 65536;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(w);
    p->AddHeader(a);
    ASSERT_EQ(p->GetSize(), 4u + 16u);
    std::vector<uint8_t> b(20);
    p->CopyData(b.data(), 20);
    EXPECT_EQ(b[0], 0x60); // NAK, code 0 (PSN sequence error)
    EXPECT_EQ(b[3], 0x03);
    EXPECT_EQ(b[4], 0x11);  // VA big-endian
    EXPECT_EQ(b[19], 0x00); // 65536 = 0x00010000
    EXPECT_EQ(b[17], 0x01);
    AethHeader ra;
    RethHeader rw;
    p->RemoveHeader(ra);
    p->RemoveHeader(rw);
    EXPECT_TRUE(ra.IsNak());
    EXPECT_EQ(ra.msn, 0x010203u);
    EXPECT_EQ(rw.virtualAddress, 0x1122334455667788ULL);
    EXPECT_EQ(rw.dmaLength, 65536u);
}

// RdmaRoceHeaders writes one ns-3 Header where the NIC used to add four:
// the bytes must be those of the four added one by one (the second method,
// ns-3's own AddHeader of each), for every opcode that selects a different
// set of headers, and its in-place read must recover every field.
namespace
{
struct RoceCase
{
    uint8_t opcode;
    bool reth; ///< IBTA Vol. 1 9.2: a RETH on the first packet of a WRITE
    bool imm;  ///< an ImmDt on the last packet of a "with immediate" op
    bool aeth; ///< an AETH on an ACK or NAK
};

std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}
} // namespace

TEST(RdmaHeaders, RoceHeadersAreTheSeparateHeadersBytes)
{
    const RoceCase cases[] = {
        {bth::kWriteFirst, true, false, false},
        {bth::kWriteMiddle, false, false, false},
        {bth::kWriteLastImm, false, true, false},
        {bth::kWriteOnlyImm, true, true, false},
        {bth::kSendFirst, false, false, false},
        {bth::kSendMiddle, false, false, false},
        {bth::kSendLastImm, false, true, false},
        {bth::kSendOnlyImm, false, true, false},
        {bth::kAcknowledge, false, false, true},
        {bth::kCnp, false, false, false},
    };
    for (const RoceCase& c : cases)
    {
        FabricHeader fh(0x01020304, 0x0A0B0C0D, 0x777, 3, FabricHeader::ECT0);
        BthHeader bh;
        bh.opcode = c.opcode;
        bh.destQp = 0x00BEEF;
        bh.psn = 0x345678;
        bh.ackReq = true;
        const uint32_t dmaLength = 1000000;
        const uint32_t immediate = 0xCAFEF00D;
        const uint8_t syndrome = AethHeader::kNakPsnError;

        // One by one, in the order the NIC added them before.
        Ptr<Packet> a = Create<Packet>(100);
        // RETH 16, ImmDt 4, AETH 4 bytes (IBTA Vol. 1 9.3-9.5)
        const uint32_t extra = (c.reth ? 16 : 0) + (c.imm ? 4 : 0) + (c.aeth ? 4 : 0);
        if (c.aeth)
        {
            AethHeader aeth;
            aeth.syndrome = syndrome;
            a->AddHeader(aeth);
        }
        if (c.imm)
        {
            ImmDtHeader imm;
            imm.immediate = immediate;
            a->AddHeader(imm);
        }
        if (c.reth)
        {
            RethHeader reth;
            reth.dmaLength = dmaLength;
            a->AddHeader(reth);
        }
        a->AddHeader(bh);
        a->AddHeader(fh);

        RdmaRoceHeaders h;
        h.fabric = fh;
        h.bth = bh;
        h.dmaLength = dmaLength;
        h.immediate = immediate;
        h.syndrome = syndrome;
        Ptr<Packet> b = Create<Packet>(100);
        b->AddHeader(h);

        SCOPED_TRACE(unsigned(c.opcode));
        EXPECT_EQ(h.GetSerializedSize(), 16u + 12u + extra);
        EXPECT_EQ(b->GetSize(), 100u + 16u + 12u + extra);
        EXPECT_EQ(Bytes(a), Bytes(b));

        // Read in place from the packet built one by one: nothing removed.
        RdmaRoceHeaders r;
        EXPECT_EQ(a->PeekHeader(r), 16u + 12u + extra);
        EXPECT_EQ(a->GetSize(), 100u + 16u + 12u + extra);
        EXPECT_EQ(r.fabric.GetSource(), 0x01020304u);
        EXPECT_EQ(r.fabric.GetDestination(), 0x0A0B0C0Du);
        EXPECT_EQ(r.fabric.GetFlowId(), 0x777u);
        EXPECT_EQ(r.fabric.GetPriority(), 3);
        EXPECT_EQ(r.fabric.GetEcn(), FabricHeader::ECT0);
        EXPECT_EQ(r.bth.opcode, c.opcode);
        EXPECT_EQ(r.bth.destQp, 0x00BEEFu);
        EXPECT_EQ(r.bth.psn, 0x345678u);
        EXPECT_TRUE(r.bth.ackReq);
        EXPECT_EQ(r.dmaLength, c.reth ? dmaLength : 0u);
        EXPECT_EQ(r.immediate, c.imm ? immediate : 0u);
        EXPECT_EQ(r.syndrome, c.aeth ? syndrome : AethHeader::kAck);
    }
}

TEST(RdmaHeaders, RoceControlPacketIsTheSeparateHeadersBytes)
{
    // ACK, NAK and CNP as the NIC sends them on RoCE (RdmaNic::SendControl):
    // built with one RdmaRoceHeaders, the bytes of MakeControlPacket and the
    // FabricHeader added after it. Sizes by hand: FabricHeader 16 + BTH 12,
    // then AETH 4 (ACK, NAK) or the CNP's 16 reserved payload bytes.
    struct ControlCase
    {
        uint8_t opcode;
        uint8_t syndrome;
        uint32_t size;
    };
    const ControlCase cases[] = {
        {bth::kAcknowledge, AethHeader::kAck, 16 + 12 + 4},
        {bth::kAcknowledge, AethHeader::kNakPsnError, 16 + 12 + 4},
        {bth::kCnp, AethHeader::kAck, 16 + 12 + 16},
    };
    for (const ControlCase& c : cases)
    {
        FabricHeader fh(0x01020304, 0x0A0B0C0D, 0x777, 7, FabricHeader::NOT_ECT);
        fh.SetTransportControl(true);
        BthHeader bh;
        bh.opcode = c.opcode;
        bh.destQp = 0x00BEEF;
        bh.psn = 0x345678;
        bh.becn = true;
        Ptr<Packet> a = MakeControlPacket(bh, c.syndrome, false);
        a->AddHeader(fh);
        Ptr<Packet> b = MakeRoceControlPacket(bh, c.syndrome, fh);
        SCOPED_TRACE(unsigned(c.opcode));
        EXPECT_EQ(a->GetSize(), c.size);
        EXPECT_EQ(b->GetSize(), c.size);
        EXPECT_EQ(Bytes(a), Bytes(b));
        RdmaRoceHeaders r;
        b->PeekHeader(r);
        EXPECT_TRUE(r.fabric.IsTransportControl());
        EXPECT_EQ(r.bth.opcode, c.opcode);
        EXPECT_TRUE(r.bth.becn);
        EXPECT_EQ(r.syndrome, c.syndrome);
    }
}

TEST(RdmaHeaders, LinkTransportKeepsEveryBthField)
{
    // NVLink's transport fields travel with the FabricHeader's fields
    // (FabricLinkTransport), packed as the old RdmaTransportTag's bytes 1
    // and 4 were: SE 0x80 | MigReq 0x40 | PadCnt << 4 | TVer, and
    // FECN 0x80 | BECN 0x40 | AckReq 0x20.
    BthFields b;
    b.opcode = bth::kWriteLastImm;
    b.solicitedEvent = true;
    b.migReq = false;
    b.padCount = 3;
    b.tver = 5;
    b.pkey = 0x1234;
    b.fecn = false;
    b.becn = true;
    b.ackReq = true;
    b.destQp = 0xABCDEF;
    b.psn = 0x123456;
    const FabricLinkTransport t = ToLinkTransport(b, 0xDEADBEEF, AethHeader::kNakPsnError, 4);
    EXPECT_TRUE(t.present);
    EXPECT_EQ(t.bthFlags, 0x80 | 0x30 | 0x05);
    EXPECT_EQ(t.ackFlags, 0x40 | 0x20);
    EXPECT_EQ(t.destQp, 0xABCDEFu);
    EXPECT_EQ(t.psn, 0x123456u);
    EXPECT_EQ(t.immediate, 0xDEADBEEFu);
    EXPECT_EQ(t.syndrome, AethHeader::kNakPsnError);
    EXPECT_EQ(t.pad, 4);
    // Second method: the BTH read back writes the same 12 bytes as the
    // original.
    const BthFields r = BthOf(t);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(BthHeader(b));
    Ptr<Packet> q = Create<Packet>();
    q->AddHeader(BthHeader(r));
    std::vector<uint8_t> pb(12), qb(12);
    p->CopyData(pb.data(), 12);
    q->CopyData(qb.data(), 12);
    EXPECT_EQ(pb, qb);
    EXPECT_EQ(r.migReq, false);
    EXPECT_EQ(r.fecn, false);
    // The fields ride in the FabricHeader's fields, not in its 16 bytes.
    FabricHeader h(1, 2, 3, 4);
    h.SetLinkTransport(t);
    EXPECT_EQ(h.GetSerializedSize(), 16u);
    EXPECT_TRUE(FabricHeaderFields(h).HasLinkTransport());
    EXPECT_FALSE(FabricHeader(1, 2, 3, 4).HasLinkTransport());
}
