// SPDX-License-Identifier: GPL-2.0-only
//
// The InfiniBand transport bytes of the packets an RdmaNic sends: opcodes of
// RC SEND and RDMA WRITE with immediate (InfiniBand Architecture
// Specification vol. 1, 9.2), BTH/RETH/ImmDt/AETH as payload bytes, or as a
// 0-byte tag on links whose own header carries them (NVLink), and the CNP of
// RoCEv2. Free functions without state: the NIC calls them per packet.
#ifndef HOCKNEY_RDMA_TRANSPORT_H
#define HOCKNEY_RDMA_TRANSPORT_H

#include "bth-header.h"
#include "fabric-header.h"
#include "rdma-queue-pair.h"

#include "ns3/packet.h"
#include "ns3/tag.h"

namespace ns3
{

namespace rdmaop
{
inline bool
IsFirst(uint8_t op)
{
    return op == bth::kSendFirst || op == bth::kSendOnly || op == bth::kSendOnlyImm ||
           op == bth::kWriteFirst || op == bth::kWriteOnly || op == bth::kWriteOnlyImm;
}

inline bool
IsLast(uint8_t op)
{
    return op == bth::kSendLast || op == bth::kSendLastImm || op == bth::kSendOnly ||
           op == bth::kSendOnlyImm || op == bth::kWriteLast || op == bth::kWriteLastImm ||
           op == bth::kWriteOnly || op == bth::kWriteOnlyImm;
}

inline bool
HasImm(uint8_t op)
{
    return op == bth::kSendLastImm || op == bth::kSendOnlyImm || op == bth::kWriteLastImm ||
           op == bth::kWriteOnlyImm;
}

inline bool
HasReth(uint8_t op)
{
    return op == bth::kWriteFirst || op == bth::kWriteOnly || op == bth::kWriteOnlyImm;
}

inline bool
IsData(uint8_t op)
{
    return op <= bth::kWriteOnlyImm;
}

/// The opcode of packet (first, last) of a WRITE or SEND with immediate.
inline uint8_t
DataOpcode(bool write, bool first, bool last)
{
    if (write)
    {
        return first && last ? bth::kWriteOnlyImm
               : first       ? bth::kWriteFirst
               : last        ? bth::kWriteLastImm
                             : bth::kWriteMiddle;
    }
    return first && last ? bth::kSendOnlyImm
           : first       ? bth::kSendFirst
           : last        ? bth::kSendLastImm
                         : bth::kSendMiddle;
}

/// RoCEv2 CNP: BTH followed by 16 reserved bytes (RoCEv2 annex A17.9.3).
constexpr uint32_t kCnpReservedBytes = 16;
} // namespace rdmaop

/// The transport fields of a packet on a link whose own header carries them
/// (NVLink: address and sequence in the 16-byte header flit the port's
/// framing already counts): they ride as a tag and cost no payload bytes.
class RdmaTransportTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RdmaTransportTag")
                                .SetParent<Tag>()
                                .SetGroupName("Fabric")
                                .AddConstructor<RdmaTransportTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override { return GetTypeId(); }

    // The fields written one by one (no ns-3 Buffer per packet: this runs
    // for every NVLink packet, twice).
    uint32_t GetSerializedSize() const override { return 20; }

    void Serialize(TagBuffer i) const override
    {
        i.WriteU8(bth.opcode);
        i.WriteU8(static_cast<uint8_t>((bth.solicitedEvent ? 0x80 : 0) | (bth.migReq ? 0x40 : 0) |
                                       ((bth.padCount & 0x3) << 4) | (bth.tver & 0xF)));
        i.WriteU16(bth.pkey);
        i.WriteU8(static_cast<uint8_t>((bth.fecn ? 0x80 : 0) | (bth.becn ? 0x40 : 0) |
                                       (bth.ackReq ? 0x20 : 0)));
        i.WriteU32(bth.destQp);
        i.WriteU32(bth.psn);
        i.WriteU32(immediate);
        i.WriteU8(syndrome);
        i.WriteU8(pad);
        i.WriteU8(0);
    }

    void Deserialize(TagBuffer i) override
    {
        bth.opcode = i.ReadU8();
        uint8_t b = i.ReadU8();
        bth.solicitedEvent = b & 0x80;
        bth.migReq = b & 0x40;
        bth.padCount = (b >> 4) & 0x3;
        bth.tver = b & 0xF;
        bth.pkey = i.ReadU16();
        b = i.ReadU8();
        bth.fecn = b & 0x80;
        bth.becn = b & 0x40;
        bth.ackReq = b & 0x20;
        bth.destQp = i.ReadU32() & 0xFFFFFF;
        bth.psn = i.ReadU32() & 0xFFFFFF;
        immediate = i.ReadU32();
        syndrome = i.ReadU8();
        pad = i.ReadU8();
        i.ReadU8();
    }

    void Print(std::ostream& os) const override { BthHeader(bth).Print(os); }

    BthFields bth;
    uint32_t immediate{0};
    uint8_t syndrome{AethHeader::kAck};
    uint8_t pad{0}; ///< payload bytes that are not data (an empty message's ImmDt)
};

/**
 * The headers of a RoCE packet (transport headers as payload bytes) as one
 * ns-3 Header, in wire order: FabricHeader, BTH, then by the BTH's opcode
 * RETH (first packet of a WRITE) and ImmDt (last packet), or AETH (ACK, NAK).
 * The bytes are those of adding each header on its own; built once per
 * packet, it costs one Buffer growth and one metadata call instead of two
 * or four, and the receiver reads it in place (Packet::PeekHeader) instead
 * of copying the packet to remove each header. Not for packets with INT
 * telemetry (an IntHeader between the FabricHeader and the BTH).
 */
class RdmaRoceHeaders : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /// Reads the FabricHeader and the BTH, then what the opcode says follows.
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    // Plain fields (not ns-3 Headers): one Header object per packet.
    FabricHeaderFields fabric;
    BthFields bth;
    uint32_t dmaLength{0}; ///< RETH's DMA length (its VA and R_Key are 0)
    uint32_t immediate{0}; ///< ImmDt
    uint8_t syndrome{AethHeader::kAck}; ///< AETH (its MSN is 0)
};

/**
 * Puts the transport headers of data packet (first, last) of m and the
 * FabricHeader fh on p (the payload): FabricHeader, BTH, RETH on the first
 * packet of a write, ImmDt on the last, as one RdmaRoceHeaders; or with
 * `inTag` the tag (an empty payload becomes the ImmDt's 4 bytes) and the
 * FabricHeader. `reused`: p is a pooled packet stripped to its payload that
 * may still carry the tag of its previous use (replaced, not added).
 */
void AddDataTransport(Ptr<Packet>& p, const BthFields& bh, const RdmaMessage& m, bool first,
                      bool last, bool inTag, const FabricHeaderFields& fh, bool reused = false);
/// An ACK, NAK (AETH with `syndrome`) or CNP with BTH bh, before the
/// FabricHeader: always a non-empty payload (see the .cc).
Ptr<Packet> MakeControlPacket(const BthHeader& bh, uint8_t syndrome, bool inTag);
/// The same control packet with the FabricHeader fh already on it, written
/// as one RdmaRoceHeaders (FabricHeader, BTH, AETH for an ACK or NAK: the
/// bytes MakeControlPacket and AddHeader(fh) write, with one AddHeader).
/// RoCE only (no tag), and no INT echo (INT sits between the two).
Ptr<Packet> MakeRoceControlPacket(const BthFields& bh, uint8_t syndrome, const FabricHeaderFields& fh);
/**
 * Strips a received data packet to its payload: p as received without the
 * FabricHeader and BTH, or with `tag` the packet as received. Returns the
 * payload bytes and the immediate; p becomes the bare payload where a
 * one-packet message hands it to the completion (inline data).
 */
uint32_t TakeDataPayload(Ptr<Packet>& p, uint8_t opcode, const RdmaTransportTag* tag,
                         uint32_t* immediate);

} // namespace ns3

#endif
