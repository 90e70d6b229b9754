// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-transport.h"

#include "fabric-header.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaRoceHeaders);

TypeId
RdmaRoceHeaders::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaRoceHeaders")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<RdmaRoceHeaders>();
    return tid;
}

TypeId
RdmaRoceHeaders::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RdmaRoceHeaders::GetSerializedSize() const
{
    uint32_t size = FabricHeader::kSerializedSize + BthHeader::kSize;
    if (rdmaop::IsData(bth.opcode))
    {
        size += (rdmaop::HasReth(bth.opcode) ? RethHeader::kSize : 0) +
                (rdmaop::HasImm(bth.opcode) ? ImmDtHeader::kSize : 0);
    }
    else if (bth.opcode == bth::kAcknowledge)
    {
        size += AethHeader::kSize;
    }
    return size;
}

void
RdmaRoceHeaders::Serialize(Buffer::Iterator i) const
{
    // Each header's own wire format, one after the other: the same bytes.
    fabric.Write(i);
    bth.Write(i);
    if (rdmaop::IsData(bth.opcode))
    {
        if (rdmaop::HasReth(bth.opcode))
        {
            RethHeader reth;
            reth.dmaLength = dmaLength;
            reth.Serialize(i);
            i.Next(RethHeader::kSize);
        }
        if (rdmaop::HasImm(bth.opcode))
        {
            ImmDtHeader imm;
            imm.immediate = immediate;
            imm.Serialize(i);
        }
    }
    else if (bth.opcode == bth::kAcknowledge)
    {
        AethHeader a;
        a.syndrome = syndrome;
        a.Serialize(i);
    }
}

uint32_t
RdmaRoceHeaders::Deserialize(Buffer::Iterator i)
{
    fabric.Read(i);
    bth.Read(i);
    if (rdmaop::IsData(bth.opcode))
    {
        if (rdmaop::HasReth(bth.opcode))
        {
            RethHeader reth;
            reth.Deserialize(i);
            dmaLength = reth.dmaLength;
            i.Next(RethHeader::kSize);
        }
        if (rdmaop::HasImm(bth.opcode))
        {
            ImmDtHeader imm;
            imm.Deserialize(i);
            immediate = imm.immediate;
        }
    }
    else if (bth.opcode == bth::kAcknowledge)
    {
        AethHeader a;
        a.Deserialize(i);
        syndrome = a.syndrome;
    }
    return GetSerializedSize();
}

void
RdmaRoceHeaders::Print(std::ostream& os) const
{
    FabricHeader(fabric).Print(os);
    os << " ";
    BthHeader(bth).Print(os);
}

void
AddDataTransport(Ptr<Packet>& p, const BthFields& bh, const RdmaMessage& m, bool first, bool last,
                 bool inTag, FabricHeaderFields& fh)
{
    if (inTag)
    {
        uint8_t pad = 0;
        if (p->GetSize() == 0)
        {
            // An empty message still carries its immediate (and the port
            // needs a non-empty packet, see MakeControlPacket).
            pad = ImmDtHeader::kSize;
            p = Create<Packet>(ImmDtHeader::kSize);
        }
        // The fields travel in fh (the port's Item, the channel's arrival,
        // the switch), not in the packet's tag list.
        fh.SetLinkTransport(ToLinkTransport(bh, m.immediate, AethHeader::kAck, pad));
        p->AddHeader(FabricHeader(fh));
        return;
    }
    // BTH, RETH on the first packet of a write, ImmDt on the last: the
    // opcode says which (rdmaop::DataOpcode), and RdmaRoceHeaders writes
    // what it says.
    NS_ASSERT(rdmaop::HasReth(bh.opcode) == (m.write && first) &&
              rdmaop::HasImm(bh.opcode) == last);
    RdmaRoceHeaders h;
    h.fabric = fh;
    h.bth = bh;
    h.dmaLength = static_cast<uint32_t>(std::min<uint64_t>(m.bytes, 0xFFFFFFFFu));
    h.immediate = m.immediate;
    p->AddHeader(h);
}

Ptr<Packet>
MakeRoceControlPacket(const BthFields& bh, uint8_t syndrome, const FabricHeaderFields& fh)
{
    NS_ASSERT(bh.opcode == bth::kCnp || bh.opcode == bth::kAcknowledge);
    // A CNP's 16 reserved bytes are its payload (RoCEv2 annex A17.9.3), as in
    // MakeControlPacket; an ACK's AETH is part of the headers.
    Ptr<Packet> p = bh.opcode == bth::kCnp ? Create<Packet>(rdmaop::kCnpReservedBytes) : Create<Packet>();
    RdmaRoceHeaders h;
    h.fabric = fh;
    h.bth = bh;
    h.syndrome = syndrome;
    p->AddHeader(h);
    return p;
}

Ptr<Packet>
MakeControlPacket(const BthHeader& bh, uint8_t syndrome, bool inTag, FabricHeaderFields* fh)
{
    Ptr<Packet> p;
    if (inTag)
    {
        // The AETH's 4 bytes as the response payload. (Also keeps every
        // packet non-empty: FabricNetDevice schedules its next transmission
        // on queued payload bytes, so a queue of 0-byte packets would stall.)
        NS_ASSERT(fh);
        p = Create<Packet>(AethHeader::kSize);
        fh->SetLinkTransport(ToLinkTransport(bh, 0, syndrome, 0));
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
TakeDataPayload(Ptr<Packet>& p, uint8_t opcode, const FabricLinkTransport* tag, uint32_t* immediate)
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
