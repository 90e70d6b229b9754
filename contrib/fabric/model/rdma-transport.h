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
/// framing already counts): they ride in the packet's FabricHeaderFields
/// (FabricLinkTransport) and cost no payload bytes. The bits are those the
/// 0-byte RdmaTransportTag of earlier versions serialized.
inline FabricLinkTransport
ToLinkTransport(const BthFields& b, uint32_t immediate, uint8_t syndrome, uint8_t pad)
{
    FabricLinkTransport t;
    t.destQp = b.destQp & 0xFFFFFF;
    t.psn = b.psn & 0xFFFFFF;
    t.immediate = immediate;
    t.pkey = b.pkey;
    t.opcode = b.opcode;
    t.bthFlags = static_cast<uint8_t>((b.solicitedEvent ? 0x80 : 0) | (b.migReq ? 0x40 : 0) |
                                      ((b.padCount & 0x3) << 4) | (b.tver & 0xF));
    t.ackFlags = static_cast<uint8_t>((b.fecn ? 0x80 : 0) | (b.becn ? 0x40 : 0) | (b.ackReq ? 0x20 : 0));
    t.syndrome = syndrome;
    t.pad = pad;
    t.present = true;
    return t;
}

/// The BTH of link transport fields t (ToLinkTransport's inverse).
inline BthFields
BthOf(const FabricLinkTransport& t)
{
    BthFields b;
    b.opcode = t.opcode;
    b.solicitedEvent = t.bthFlags & 0x80;
    b.migReq = t.bthFlags & 0x40;
    b.padCount = (t.bthFlags >> 4) & 0x3;
    b.tver = t.bthFlags & 0xF;
    b.pkey = t.pkey;
    b.fecn = t.ackFlags & 0x80;
    b.becn = t.ackFlags & 0x40;
    b.ackReq = t.ackFlags & 0x20;
    b.destQp = t.destQp;
    b.psn = t.psn;
    return b;
}

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
 * `inTag` the transport fields in fh (FabricLinkTransport; an empty payload
 * becomes the ImmDt's 4 bytes) and the FabricHeader.
 */
void AddDataTransport(Ptr<Packet>& p, const BthFields& bh, const RdmaMessage& m, bool first,
                      bool last, bool inTag, FabricHeaderFields& fh);
/// An ACK, NAK (AETH with `syndrome`) or CNP with BTH bh, before the
/// FabricHeader: always a non-empty payload (see the .cc). With `inTag` the
/// transport fields go into *fh (which must then be given).
Ptr<Packet> MakeControlPacket(const BthHeader& bh, uint8_t syndrome, bool inTag,
                              FabricHeaderFields* fh = nullptr);
/// The same control packet with the FabricHeader fh already on it, written
/// as one RdmaRoceHeaders (FabricHeader, BTH, AETH for an ACK or NAK: the
/// bytes MakeControlPacket and AddHeader(fh) write, with one AddHeader).
/// RoCE only (no tag), and no INT echo (INT sits between the two).
Ptr<Packet> MakeRoceControlPacket(const BthFields& bh, uint8_t syndrome, const FabricHeaderFields& fh);
/**
 * Strips a received data packet to its payload: p as received without the
 * FabricHeader and BTH, or with link transport fields `tag` the packet as
 * received. Returns the payload bytes and the immediate; p becomes the bare
 * payload where a one-packet message hands it to the completion (inline data).
 */
uint32_t TakeDataPayload(Ptr<Packet>& p, uint8_t opcode, const FabricLinkTransport* tag,
                         uint32_t* immediate);

} // namespace ns3

#endif
