// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-transport.h"

#include "fabric-header.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaTransportTag);

void
AddDataTransport(Ptr<Packet>& p, const BthHeader& bh, const RdmaMessage& m, bool first, bool last,
                 bool inTag)
{
    if (inTag)
    {
        RdmaTransportTag tag;
        tag.bth = bh;
        tag.immediate = m.immediate;
        if (p->GetSize() == 0)
        {
            // An empty message still carries its immediate (and the port
            // needs a non-empty packet, see MakeControlPacket).
            tag.pad = ImmDtHeader::kSize;
            p = Create<Packet>(ImmDtHeader::kSize);
        }
        p->AddPacketTag(tag);
        return;
    }
    if (last)
    {
        ImmDtHeader imm;
        imm.immediate = m.immediate;
        p->AddHeader(imm);
    }
    if (m.write && first)
    {
        RethHeader reth;
        reth.dmaLength = static_cast<uint32_t>(std::min<uint64_t>(m.bytes, 0xFFFFFFFFu));
        p->AddHeader(reth);
    }
    p->AddHeader(bh);
}

Ptr<Packet>
MakeControlPacket(const BthHeader& bh, uint8_t syndrome, bool inTag)
{
    Ptr<Packet> p;
    if (inTag)
    {
        // The AETH's 4 bytes as the response payload. (Also keeps every
        // packet non-empty: FabricNetDevice schedules its next transmission
        // on queued payload bytes, so a queue of 0-byte packets would stall.)
        p = Create<Packet>(AethHeader::kSize);
        RdmaTransportTag tag;
        tag.bth = bh;
        tag.syndrome = syndrome;
        p->AddPacketTag(tag);
        return p;
    }
    if (bh.opcode == bth::kCnp)
    {
        p = Create<Packet>(rdmaop::kCnpReservedBytes);
    }
    else
    {
        p = Create<Packet>();
        AethHeader a;
        a.syndrome = syndrome;
        p->AddHeader(a);
    }
    p->AddHeader(bh);
    return p;
}

uint32_t
TakeDataPayload(Ptr<Packet>& p, uint8_t opcode, const RdmaTransportTag* tag, uint32_t* immediate)
{
    if (tag)
    {
        // p is the packet as received: FabricHeader, then payload and pad.
        *immediate = tag->immediate;
        uint32_t len = p->GetSize() - FabricHeader::kSerializedSize - tag->pad;
        if (rdmaop::IsFirst(opcode) && rdmaop::IsLast(opcode))
        {
            // Inline data for the completion: the payload alone.
            p = p->Copy();
            FabricHeader fh;
            p->RemoveHeader(fh);
            RdmaTransportTag t;
            p->RemovePacketTag(t);
            if (tag->pad > 0)
            {
                p->RemoveAtEnd(tag->pad);
            }
        }
        return len;
    }
    *immediate = 0;
    if (rdmaop::HasReth(opcode))
    {
        RethHeader r;
        p->RemoveHeader(r);
    }
    if (rdmaop::HasImm(opcode))
    {
        ImmDtHeader h;
        p->RemoveHeader(h);
        *immediate = h.immediate;
    }
    return p->GetSize();
}

} // namespace ns3
