// SPDX-License-Identifier: GPL-2.0-only
#include "int-header.h"

#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IntHeader);

namespace
{
// Line rates of the 3-bit code, in Gb/s: codes 0-4 as the HPCC simulator's
// IntHop::lineRateValues, 5-7 hockney's additions.
constexpr uint64_t kRatesGbps[8] = {25, 50, 100, 200, 400, 800, 10, 40};
} // namespace

TypeId
IntHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IntHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<IntHeader>();
    return tid;
}

TypeId
IntHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IntHeader::GetSerializedSize() const
{
    return kShimBytes + kHopBytes * static_cast<uint32_t>(hops.size());
}

uint8_t
IntHeader::RateCode(DataRate rate)
{
    for (uint8_t c = 0; c < 8; ++c)
    {
        if (rate.GetBitRate() == kRatesGbps[c] * 1000000000ull)
        {
            return c;
        }
    }
    throw std::invalid_argument("INT line rate: expected 10, 25, 40, 50, 100, 200, 400 or 800 "
                                "Gb/s (3-bit code), got " +
                                std::to_string(rate.GetBitRate()) + " b/s");
}

DataRate
IntHeader::CodeRate(uint8_t code)
{
    return DataRate(kRatesGbps[code & 7] * 1000000000ull);
}

void
IntHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(static_cast<uint16_t>(hops.size()));
    for (const RdmaIntHop& h : hops)
    {
        uint64_t ts = uint64_t(h.timestamp.GetNanoSeconds()) % kTimeWrapNs;
        uint64_t tx = (h.txBytes % kBytesWrap) / kBytesUnit;
        uint64_t q = std::min(h.queueBytes, kQueueMax) / kQueueUnit;
        uint64_t w = uint64_t(RateCode(h.lineRate)) << 61 | ts << 37 | tx << 17 | q;
        i.WriteHtonU64(w);
    }
}

uint32_t
IntHeader::Deserialize(Buffer::Iterator i)
{
    uint16_t n = i.ReadNtohU16();
    hops.resize(n);
    for (RdmaIntHop& h : hops)
    {
        uint64_t w = i.ReadNtohU64();
        h.lineRate = CodeRate(static_cast<uint8_t>(w >> 61));
        h.timestamp = NanoSeconds(int64_t((w >> 37) & (kTimeWrapNs - 1)));
        h.txBytes = ((w >> 17) & ((uint64_t(1) << 20) - 1)) * kBytesUnit;
        h.queueBytes = (w & ((uint64_t(1) << 17) - 1)) * kQueueUnit;
    }
    return GetSerializedSize();
}

void
IntHeader::Print(std::ostream& os) const
{
    os << "int hops=" << hops.size();
    for (const RdmaIntHop& h : hops)
    {
        os << " [ts=" << h.timestamp.GetNanoSeconds() << "ns tx=" << h.txBytes
           << " q=" << h.queueBytes << " rate=" << h.lineRate.GetBitRate() << "]";
    }
}

void
IntHeader::PushHop(Ptr<Packet>& packet, FabricHeaderFields& h, Time now, uint64_t txBytes,
                   uint64_t queueBytes, DataRate lineRate)
{
    // Copy on write: the sender may still hold this packet for retransmission.
    Ptr<Packet> p = packet->Copy();
    FabricHeader old;
    p->RemoveHeader(old);
    IntHeader stack;
    if (h.GetIntHops() > 0)
    {
        p->RemoveHeader(stack);
    }
    stack.hops.push_back(RdmaIntHop{now, txBytes, queueBytes, lineRate});
    p->AddHeader(stack);
    h.SetIntHops(static_cast<uint8_t>(stack.hops.size()));
    p->AddHeader(FabricHeader(h));
    packet = p;
}

void
IntHeader::Take(Ptr<Packet> packet, std::vector<RdmaIntHop>& hops)
{
    IntHeader stack;
    packet->RemoveHeader(stack);
    hops = std::move(stack.hops);
}

void
IntHeader::Echo(Ptr<Packet> packet, FabricHeader& h, const std::vector<RdmaIntHop>& hops)
{
    IntHeader stack;
    stack.hops = hops;
    packet->AddHeader(stack);
    h.SetIntHops(static_cast<uint8_t>(hops.size()));
}

Time
IntHeader::TimeDelta(const RdmaIntHop& later, const RdmaIntHop& earlier)
{
    int64_t a = later.timestamp.GetNanoSeconds();
    int64_t b = earlier.timestamp.GetNanoSeconds();
    return NanoSeconds(a >= b ? a - b : a + int64_t(kTimeWrapNs) - b);
}

uint64_t
IntHeader::BytesDelta(const RdmaIntHop& later, const RdmaIntHop& earlier)
{
    return later.txBytes >= earlier.txBytes ? later.txBytes - earlier.txBytes
                                            : later.txBytes + kBytesWrap - earlier.txBytes;
}

} // namespace ns3
