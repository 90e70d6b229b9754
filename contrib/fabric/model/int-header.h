// SPDX-License-Identifier: GPL-2.0-only
//
// In-band network telemetry (INT) as HPCC uses it (Li et al., "HPCC: High
// Precision Congestion Control", SIGCOMM 2019, sections 3.2 and 5): a data
// packet of a QP that asks for INT (FabricHeader::IsIntRequested) collects
// one hop record per switch egress; the responder copies the stack onto the
// ACK it sends for that packet; the requester hands it to its congestion
// control (RdmaAckSample::intHops).
//
// Wire format, after the FabricHeader (present when its hop count is > 0):
// a 2-byte shim (u16 hop count, the `nhop` of the HPCC authors' ns-3
// simulator, simulation/src/network/utils/int-header.h) and 8 bytes per hop
// in that simulator's layout: u64 = line-rate code (3 bits) | timestamp in
// ns (24 bits) | tx bytes in units of 128 B (20 bits) | queue length in units
// of 80 B (17 bits). The first switch writes the shim and its hop (10 bytes),
// each further switch its hop (8 bytes); unlike the simulator, which always
// reserves 5 hops (42 bytes), the stack grows with the path, as INT-MD
// metadata does. At most kMaxHops records (the simulator's maxHop); later
// switches add nothing. Timestamps and tx bytes wrap (2^24 ns = 16.8 ms,
// 2^20 x 128 B = 134 MB): read them as differences with TimeDelta and
// BytesDelta, as the simulator does.
#ifndef HOCKNEY_INT_HEADER_H
#define HOCKNEY_INT_HEADER_H

#include "fabric-header.h"
#include "rdma-congestion-control.h"

#include "ns3/header.h"
#include "ns3/packet.h"

#include <vector>

namespace ns3
{

class IntHeader : public Header
{
  public:
    static constexpr uint32_t kShimBytes = 2;
    static constexpr uint32_t kHopBytes = 8;
    static constexpr uint8_t kMaxHops = 5;
    static constexpr uint64_t kTimeWrapNs = uint64_t(1) << 24;
    static constexpr uint64_t kBytesUnit = 128;
    static constexpr uint64_t kBytesWrap = (uint64_t(1) << 20) * kBytesUnit;
    static constexpr uint64_t kQueueUnit = 80;
    static constexpr uint64_t kQueueMax = ((uint64_t(1) << 17) - 1) * kQueueUnit;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// The records as they read back from the wire (quantized, wrapped).
    std::vector<RdmaIntHop> hops;

    /// Bytes a switch egress adds to a packet with header `h`: 0 when INT is
    /// not requested or the stack is full, else a hop (plus the shim at the
    /// first hop).
    static uint32_t GrowthBytes(const FabricHeaderFields& h)
    {
        if (!h.IsIntRequested() || h.GetIntHops() >= kMaxHops)
        {
            return 0;
        }
        return kHopBytes + (h.GetIntHops() == 0 ? kShimBytes : 0);
    }

    /// Appends one hop record to `packet` (which begins with `h`): a copy of
    /// the packet with the grown stack and the hop count in `h` raised. Call
    /// only when GrowthBytes(h) > 0.
    static void PushHop(Ptr<Packet>& packet, FabricHeaderFields& h, Time now, uint64_t txBytes,
                        uint64_t queueBytes, DataRate lineRate);
    /// Removes the stack from `packet` (its FabricHeader already removed,
    /// with a hop count > 0) into `hops`.
    static void Take(Ptr<Packet> packet, std::vector<RdmaIntHop>& hops);
    /// Adds `hops` to `packet` (before its FabricHeader is added) and sets
    /// the hop count of `h` (not the INT request: an echo is not stamped).
    static void Echo(Ptr<Packet> packet, FabricHeader& h, const std::vector<RdmaIntHop>& hops);

    /// later - earlier of two records of one hop, across the timestamp wrap.
    static Time TimeDelta(const RdmaIntHop& later, const RdmaIntHop& earlier);
    /// later - earlier tx bytes of one hop, across the counter wrap.
    static uint64_t BytesDelta(const RdmaIntHop& later, const RdmaIntHop& earlier);

    /// The 3-bit line-rate code (the simulator's 25/50/100/200/400 Gb/s,
    /// extended by 800 Gb/s, 10 and 40 Gb/s). \throws std::invalid_argument
    /// for another rate.
    static uint8_t RateCode(DataRate rate);
    static DataRate CodeRate(uint8_t code);
};

} // namespace ns3

#endif
