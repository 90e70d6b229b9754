// SPDX-License-Identifier: GPL-2.0-only
//
// IB transport headers: sizes and bit positions as IBTA Vol. 1 lays them out.
#include "bth-header.h"

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
