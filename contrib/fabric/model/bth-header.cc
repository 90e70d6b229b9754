// SPDX-License-Identifier: GPL-2.0-only
#include "bth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BthHeader);
NS_OBJECT_ENSURE_REGISTERED(AethHeader);
NS_OBJECT_ENSURE_REGISTERED(RethHeader);
NS_OBJECT_ENSURE_REGISTERED(ImmDtHeader);

TypeId
BthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BthHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<BthHeader>();
    return tid;
}

TypeId
BthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
BthHeader::GetSerializedSize() const
{
    return kSize;
}

void
BthFields::Write(Buffer::Iterator& i) const
{
    i.WriteU8(opcode);
    i.WriteU8(static_cast<uint8_t>((solicitedEvent ? 0x80 : 0) | (migReq ? 0x40 : 0) |
                                   ((padCount & 0x3) << 4) | (tver & 0xF)));
    i.WriteHtonU16(pkey);
    i.WriteU8(static_cast<uint8_t>((fecn ? 0x80 : 0) | (becn ? 0x40 : 0)));
    i.WriteU8(static_cast<uint8_t>((destQp >> 16) & 0xFF));
    i.WriteHtonU16(static_cast<uint16_t>(destQp & 0xFFFF));
    i.WriteU8(ackReq ? 0x80 : 0);
    i.WriteU8(static_cast<uint8_t>((psn >> 16) & 0xFF));
    i.WriteHtonU16(static_cast<uint16_t>(psn & 0xFFFF));
}

void
BthFields::Read(Buffer::Iterator& i)
{
    opcode = i.ReadU8();
    uint8_t b = i.ReadU8();
    solicitedEvent = b & 0x80;
    migReq = b & 0x40;
    padCount = (b >> 4) & 0x3;
    tver = b & 0xF;
    pkey = i.ReadNtohU16();
    b = i.ReadU8();
    fecn = b & 0x80;
    becn = b & 0x40;
    destQp = static_cast<uint32_t>(i.ReadU8()) << 16;
    destQp |= i.ReadNtohU16();
    ackReq = i.ReadU8() & 0x80;
    psn = static_cast<uint32_t>(i.ReadU8()) << 16;
    psn |= i.ReadNtohU16();
}

void
BthFields::ReadBytes(const uint8_t* p)
{
    // The layout of Read, byte for byte.
    opcode = p[0];
    solicitedEvent = p[1] & 0x80;
    migReq = p[1] & 0x40;
    padCount = (p[1] >> 4) & 0x3;
    tver = p[1] & 0xF;
    pkey = static_cast<uint16_t>(p[2] << 8 | p[3]);
    fecn = p[4] & 0x80;
    becn = p[4] & 0x40;
    destQp = static_cast<uint32_t>(p[5]) << 16 | static_cast<uint32_t>(p[6]) << 8 | p[7];
    ackReq = p[8] & 0x80;
    psn = static_cast<uint32_t>(p[9]) << 16 | static_cast<uint32_t>(p[10]) << 8 | p[11];
}

void
BthHeader::Serialize(Buffer::Iterator i) const
{
    Write(i);
}

uint32_t
BthHeader::Deserialize(Buffer::Iterator i)
{
    Read(i);
    return kSize;
}

void
BthHeader::Print(std::ostream& os) const
{
    os << "BTH opcode=0x" << std::hex << unsigned(opcode) << std::dec << " dqp=" << destQp
       << " psn=" << psn << (ackReq ? " A" : "") << (becn ? " BECN" : "");
}

TypeId
AethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<AethHeader>();
    return tid;
}

TypeId
AethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
AethHeader::GetSerializedSize() const
{
    return kSize;
}

void
AethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(syndrome);
    i.WriteU8(static_cast<uint8_t>((msn >> 16) & 0xFF));
    i.WriteHtonU16(static_cast<uint16_t>(msn & 0xFFFF));
}

uint32_t
AethHeader::Deserialize(Buffer::Iterator i)
{
    syndrome = i.ReadU8();
    msn = static_cast<uint32_t>(i.ReadU8()) << 16;
    msn |= i.ReadNtohU16();
    return kSize;
}

void
AethHeader::Print(std::ostream& os) const
{
    os << "AETH " << (IsNak() ? "NAK" : "ACK") << " msn=" << msn;
}

TypeId
RethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<RethHeader>();
    return tid;
}

TypeId
RethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RethHeader::GetSerializedSize() const
{
    return kSize;
}

void
RethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU64(virtualAddress);
    i.WriteHtonU32(rkey);
    i.WriteHtonU32(dmaLength);
}

uint32_t
RethHeader::Deserialize(Buffer::Iterator i)
{
    virtualAddress = i.ReadNtohU64();
    rkey = i.ReadNtohU32();
    dmaLength = i.ReadNtohU32();
    return kSize;
}

void
RethHeader::Print(std::ostream& os) const
{
    os << "RETH va=" << virtualAddress << " len=" << dmaLength;
}

TypeId
ImmDtHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ImmDtHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<ImmDtHeader>();
    return tid;
}

TypeId
ImmDtHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
ImmDtHeader::GetSerializedSize() const
{
    return kSize;
}

void
ImmDtHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU32(immediate);
}

uint32_t
ImmDtHeader::Deserialize(Buffer::Iterator i)
{
    immediate = i.ReadNtohU32();
    return kSize;
}

void
ImmDtHeader::Print(std::ostream& os) const
{
    os << "ImmDt " << immediate;
}

} // namespace ns3
