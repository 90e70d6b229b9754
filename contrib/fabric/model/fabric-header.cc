// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-header.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricHeader);
NS_OBJECT_ENSURE_REGISTERED(FabricPauseBody);
NS_OBJECT_ENSURE_REGISTERED(FabricCreditBody);

FabricHeaderFields::FabricHeaderFields(uint32_t src, uint32_t dst, uint32_t flowId, uint8_t priority,
                                       Ecn ecn, Kind kind)
    : m_src(src),
      m_dst(dst),
      m_flow(flowId),
      m_ecn(ecn),
      m_kind(kind)
{
    SetPriority(priority);
}

TypeId
FabricHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricHeader>();
    return tid;
}

TypeId
FabricHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricHeader::GetSerializedSize() const
{
    return kSerializedSize;
}

void
FabricHeaderFields::SetPriority(uint8_t v)
{
    if (v >= kFabricClasses)
    {
        throw std::invalid_argument("priority: expected a class 0-7");
    }
    m_priority = v;
}

void
FabricHeaderFields::SetLinkPackets(uint32_t n)
{
    if (n < 1 || n > 256)
    {
        throw std::invalid_argument("link packets: expected 1 to 256, got " + std::to_string(n));
    }
    m_extraLinkPackets = static_cast<uint8_t>(n - 1);
}

void
FabricHeaderFields::Write(Buffer::Iterator& i) const
{
    i.WriteHtonU32(m_src);
    i.WriteHtonU32(m_dst);
    i.WriteHtonU32(m_flow);
    i.WriteU8(static_cast<uint8_t>(m_priority | (m_ecn << 3) | (m_control ? 0x20 : 0) |
                                   (m_intRequest ? 0x40 : 0)));
    i.WriteU8(m_kind);
    i.WriteU8(m_intHops);
    i.WriteU8(m_extraLinkPackets);
}

void
FabricHeaderFields::Read(Buffer::Iterator& i)
{
    m_src = i.ReadNtohU32();
    m_dst = i.ReadNtohU32();
    m_flow = i.ReadNtohU32();
    uint8_t b = i.ReadU8();
    m_priority = b & 0x7;
    m_ecn = static_cast<Ecn>((b >> 3) & 0x3);
    m_control = (b & 0x20) != 0;
    m_intRequest = (b & 0x40) != 0;
    m_kind = static_cast<Kind>(i.ReadU8());
    m_intHops = i.ReadU8();
    m_extraLinkPackets = i.ReadU8();
}

void
FabricHeader::Serialize(Buffer::Iterator i) const
{
    Write(i);
}

uint32_t
FabricHeader::Deserialize(Buffer::Iterator i)
{
    Read(i);
    return kSerializedSize;
}

void
FabricHeader::Print(std::ostream& os) const
{
    static const char* ecn[] = {"Not-ECT", "ECT(1)", "ECT(0)", "CE"};
    os << "src=" << m_src << " dst=" << m_dst << " flow=" << m_flow
       << " prio=" << unsigned(m_priority) << " ecn=" << ecn[m_ecn] << " kind=" << unsigned(m_kind);
    if (m_extraLinkPackets)
    {
        os << " link_packets=" << GetLinkPackets();
    }
}

TypeId
FabricPauseBody::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricPauseBody")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricPauseBody>();
    return tid;
}

TypeId
FabricPauseBody::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricPauseBody::GetSerializedSize() const
{
    return kSerializedSize;
}

void
FabricPauseBody::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(classEnable);
    for (uint16_t q : quanta)
    {
        i.WriteHtonU16(q);
    }
}

uint32_t
FabricPauseBody::Deserialize(Buffer::Iterator i)
{
    classEnable = i.ReadNtohU16();
    for (auto& q : quanta)
    {
        q = i.ReadNtohU16();
    }
    return kSerializedSize;
}

void
FabricPauseBody::Print(std::ostream& os) const
{
    os << "pause cev=0x" << std::hex << classEnable << std::dec;
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        if ((classEnable >> c) & 1u)
        {
            os << " c" << unsigned(c) << "=" << quanta[c];
        }
    }
}

TypeId
FabricCreditBody::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricCreditBody")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricCreditBody>();
    return tid;
}

TypeId
FabricCreditBody::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricCreditBody::GetSerializedSize() const
{
    return kSerializedSize;
}

void
FabricCreditBody::Serialize(Buffer::Iterator i) const
{
    for (uint64_t f : freedBytes)
    {
        i.WriteHtonU64(f);
    }
}

uint32_t
FabricCreditBody::Deserialize(Buffer::Iterator i)
{
    for (auto& f : freedBytes)
    {
        f = i.ReadNtohU64();
    }
    return kSerializedSize;
}

void
FabricCreditBody::Print(std::ostream& os) const
{
    os << "credit";
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        os << " c" << unsigned(c) << "=" << freedBytes[c];
    }
}

Ptr<Packet>
FabricControlFrame::ToPacket() const
{
    Ptr<Packet> p = Create<Packet>();
    if (kind == FabricHeader::PFC_PAUSE)
    {
        FabricPauseBody body;
        body.classEnable = classEnable;
        for (uint8_t c = 0; c < kFabricClasses; ++c)
        {
            body.quanta[c] = static_cast<uint16_t>(values[c]);
        }
        p->AddHeader(body);
    }
    else
    {
        FabricCreditBody body;
        body.freedBytes = values;
        p->AddHeader(body);
    }
    p->AddHeader(FabricHeader(source, kFabricNoAddress, 0, 7, FabricHeader::NOT_ECT, kind));
    return p;
}

} // namespace ns3
