// SPDX-License-Identifier: GPL-2.0-only
//
// InfiniBand transport headers as they are on the wire (IBTA Vol. 1, ch. 9):
// the Base Transport Header carried by every IB and RoCEv2 packet, the ACK
// Extended Transport Header of acknowledgements, and the RDMA Extended
// Transport Header of the first packet of an RDMA write. In hockney's fabric
// the FabricHeader stands for Eth/IP/UDP (RoCEv2) or LRH (IB); these headers
// sit in the payload, so their bytes are serialized and cost link time.
#ifndef HOCKNEY_BTH_HEADER_H
#define HOCKNEY_BTH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/// BTH opcodes of the reliable-connection transport (IBTA Vol. 1, table 38)
/// and the RoCEv2 congestion notification packet (RoCEv2 annex A17).
namespace bth
{
constexpr uint8_t kSendFirst = 0x00;
constexpr uint8_t kSendMiddle = 0x01;
constexpr uint8_t kSendLast = 0x02;
constexpr uint8_t kSendLastImm = 0x03;
constexpr uint8_t kSendOnly = 0x04;
constexpr uint8_t kSendOnlyImm = 0x05;
constexpr uint8_t kWriteFirst = 0x06;
constexpr uint8_t kWriteMiddle = 0x07;
constexpr uint8_t kWriteLast = 0x08;
constexpr uint8_t kWriteLastImm = 0x09;
constexpr uint8_t kWriteOnly = 0x0A;
constexpr uint8_t kWriteOnlyImm = 0x0B;
constexpr uint8_t kAcknowledge = 0x11;
constexpr uint8_t kCnp = 0x81;
} // namespace bth

/**
 * Base Transport Header, 12 bytes:
 * opcode(8) | SE(1) M(1) PadCnt(2) TVer(4) | P_Key(16) |
 * FECN(1) BECN(1) reserved(6) | DestQP(24) | AckReq(1) reserved(7) | PSN(24).
 */
/// The BTH's fields as plain data, with its wire format: what the NIC keeps
/// a packet's BTH as (an ns3::Header's destructor chain is out of line and
/// logged, and the NIC's path builds or reads a BTH for every packet).
struct BthFields
{
    static constexpr uint32_t kSize = 12;

    /// Writes the 12 bytes at i and advances it.
    void Write(Buffer::Iterator& i) const;
    /// Reads the 12 bytes at i and advances it.
    void Read(Buffer::Iterator& i);
    /// Reads the 12 bytes at p (what Read reads from an iterator): for a
    /// look at a packet's bytes copied out (RdmaNic::JudgeArrival).
    void ReadBytes(const uint8_t* p);

    uint8_t opcode{bth::kWriteOnly};
    bool solicitedEvent{false};
    bool migReq{false};
    uint8_t padCount{0}; ///< 0-3 pad bytes that align the payload to 4 bytes
    uint8_t tver{0};
    uint16_t pkey{0xFFFF}; ///< default partition, full membership
    bool fecn{false};
    bool becn{false};
    uint32_t destQp{0}; ///< 24 bits
    bool ackReq{false};
    uint32_t psn{0}; ///< 24 bits
};

class BthHeader : public Header, public BthFields
{
  public:
    BthHeader() = default;
    explicit BthHeader(const BthFields& fields)
        : BthFields(fields)
    {
    }

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    using BthFields::kSize;
};

/**
 * ACK Extended Transport Header, 4 bytes: syndrome(8) | MSN(24).
 * Syndrome bits 7-5: 000 ACK (low 5 bits credit count), 011 NAK (low 5 bits
 * the NAK code; 0 = PSN sequence error, which triggers go-back-N).
 */
class AethHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    static constexpr uint32_t kSize = 4;
    static constexpr uint8_t kAck = 0x1F;        ///< ACK, credit field "invalid" (31)
    static constexpr uint8_t kNakPsnError = 0x60; ///< NAK, PSN sequence error

    bool IsNak() const { return (syndrome & 0xE0) == 0x60; }

    uint8_t syndrome{kAck};
    uint32_t msn{0}; ///< 24 bits
};

/// RDMA Extended Transport Header, 16 bytes: VA(64) | R_Key(32) | DMA length(32).
class RethHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    static constexpr uint32_t kSize = 16;

    uint64_t virtualAddress{0};
    uint32_t rkey{0};
    uint32_t dmaLength{0};
};

/// Immediate data (ImmDt), 4 bytes, on the last packet of a SEND or RDMA
/// WRITE "with immediate": it raises a completion at the responder.
class ImmDtHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    static constexpr uint32_t kSize = 4;

    uint32_t immediate{0};
};

} // namespace ns3

#endif
