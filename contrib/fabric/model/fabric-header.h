// SPDX-License-Identifier: GPL-2.0-only
//
// The header every packet on the fabric begins with, and the bodies of the two
// link-local control frames (PFC pause, credit update).
//
// The FabricHeader stands in for the link and network framing a packet does
// not physically carry in the simulation: a port counts a packet's on-wire
// bytes as (packet size - FabricHeader::kSerializedSize) + the port's
// HeaderBytes attribute (RoCEv2: Eth 14 + IPv4 20 + UDP 8 + ICRC 4 + FCS 4 +
// preamble 8 + IFG 12 = 70; IB: LRH 8 + ICRC 4 + VCRC 2 = 14; ...). Transport
// headers that are physically in the payload (the RDMA NIC's BTH) count as
// payload bytes. Goodput = rate x payload / (payload + headers) then emerges.
#ifndef HOCKNEY_FABRIC_HEADER_H
#define HOCKNEY_FABRIC_HEADER_H

#include "ns3/header.h"
#include "ns3/packet.h"

#include <array>
#include <cstdint>

namespace ns3
{

/// Number of priority classes of every fabric port (IEEE 802.1p / 802.1Qbb).
constexpr uint8_t kFabricClasses = 8;

/// Fabric endpoint address that means "none" (switch ports have no address).
constexpr uint32_t kFabricNoAddress = 0xFFFFFFFFu;

/// The transport fields of a packet on a link whose own header carries them
/// (NVLink: address and sequence in the 16-byte header flit the port's
/// framing already counts; RdmaNic::HeadersInTag): plain fields that travel
/// with the packet's FabricHeaderFields through ports, channels and switches
/// (and across ranks in the crossing header), not as packet bytes and not in
/// ns-3's packet tag list (an ns-3 Tag cost about 450 instructions a packet to
/// add and peek). The bits are those of the RDMA NIC's BTH, ImmDt and AETH
/// (rdma-transport.h converts); `present` is false on every other packet.
struct FabricLinkTransport
{
    uint32_t destQp{0};    ///< BTH destination QP (24 bits)
    uint32_t psn{0};       ///< BTH PSN (24 bits)
    uint32_t immediate{0}; ///< ImmDt
    uint16_t pkey{0xFFFF}; ///< BTH partition key
    uint8_t opcode{0};     ///< BTH opcode
    uint8_t bthFlags{0};   ///< SE 0x80, MigReq 0x40, PadCnt << 4, TVer (bits 0-3)
    uint8_t ackFlags{0};   ///< FECN 0x80, BECN 0x40, AckReq 0x20
    uint8_t syndrome{0};   ///< AETH syndrome
    uint8_t pad{0};        ///< payload bytes that are not data (an empty message's ImmDt)
    bool present{false};   ///< the packet carries these fields
};

/// FabricHeader's fields as plain data: what the fabric's own path carries
/// a packet's parsed header as (a port's queue, the arrival event, the
/// switch). A FabricHeader is an ns3::Header, whose out-of-line, logged
/// destructor chain (Header, ObjectBase) ran on about 2.3 copies a hop that
/// only the fabric read; a FabricHeader is built from these fields where a
/// packet is serialized or handed to an endpoint.
class FabricHeaderFields
{
  public:
    /// ECN codepoint, with the values of the two ECN bits of IPv4's TOS (RFC 3168).
    enum Ecn : uint8_t
    {
        NOT_ECT = 0,
        ECT1 = 1,
        ECT0 = 2,
        CE = 3
    };

    /// What a packet is. Only DATA is forwarded by switches; the others are
    /// link-local frames consumed by the receiving port's flow control.
    enum Kind : uint8_t
    {
        DATA = 0,         ///< anything endpoints exchange (payload, ACKs, CNPs, ...)
        PFC_PAUSE = 1,    ///< IEEE 802.1Qbb pause; body: FabricPauseBody
        CREDIT_UPDATE = 2 ///< link-level credit return; body: FabricCreditBody
    };

    FabricHeaderFields() = default;
    FabricHeaderFields(uint32_t src, uint32_t dst, uint32_t flowId, uint8_t priority,
                       Ecn ecn = NOT_ECT, Kind kind = DATA);

    uint32_t GetSource() const { return m_src; }
    uint32_t GetDestination() const { return m_dst; }
    /// Flow identity: the ECMP hash input together with src and dst; the NIC's QP/flow id.
    uint32_t GetFlowId() const { return m_flow; }
    /// Priority class 0-7.
    uint8_t GetPriority() const { return m_priority; }
    Ecn GetEcn() const { return m_ecn; }
    Kind GetKind() const { return m_kind; }
    /// True for ECT(0) and ECT(1): the packet's transport reacts to CE.
    bool IsEctCapable() const { return m_ecn == ECT0 || m_ecn == ECT1; }

    void SetSource(uint32_t v) { m_src = v; }
    void SetDestination(uint32_t v) { m_dst = v; }
    void SetFlowId(uint32_t v) { m_flow = v; }
    /// \param v class 0-7 (values above 7 throw std::invalid_argument)
    void SetPriority(uint8_t v);
    void SetEcn(Ecn v) { m_ecn = v; }
    void SetKind(Kind v) { m_kind = v; }
    /// A DATA packet that carries no payload of its own but the endpoints'
    /// transport control (ACK, NAK, CNP): counted as a control hop, not a
    /// data hop, by the ports (FabricPortCounters::txTransportControl).
    bool IsTransportControl() const { return m_control; }
    void SetTransportControl(bool v) { m_control = v; }
    /// The sender asks switches to append an INT hop record at each egress
    /// (int-header.h); false on every packet of a QP without INT.
    bool IsIntRequested() const { return m_intRequest; }
    void SetIntRequested(bool v) { m_intRequest = v; }
    /// Hop records in the IntHeader after this header (0: no IntHeader).
    uint8_t GetIntHops() const { return m_intHops; }
    void SetIntHops(uint8_t v) { m_intHops = v; }
    /// Link packets this packet stands for: 1 for every packet but a network
    /// transfer unit, which carries the payload of up to 256 MTU packets in
    /// one simulated packet and is framed on every port as that many
    /// (FabricNetDevice::WireBytes; RdmaNic::TransferUnitBytes).
    uint32_t GetLinkPackets() const { return uint32_t(m_extraLinkPackets) + 1; }
    /// \param n 1 to 256 (others throw std::invalid_argument)
    void SetLinkPackets(uint32_t n);

    /// The link-carried transport fields (FabricLinkTransport::present is
    /// false unless a sender set them); not part of the 16 wire bytes.
    const FabricLinkTransport& GetLinkTransport() const { return m_transport; }
    bool HasLinkTransport() const { return m_transport.present; }
    void SetLinkTransport(const FabricLinkTransport& t) { m_transport = t; }

    /// Writes the 16 bytes of the header's wire format (FabricHeader) at i
    /// and advances it.
    void Write(Buffer::Iterator& i) const;
    /// Reads the 16 bytes at i and advances it.
    void Read(Buffer::Iterator& i);

  protected:
    uint32_t m_src{kFabricNoAddress};
    uint32_t m_dst{kFabricNoAddress};
    uint32_t m_flow{0};
    uint8_t m_priority{0};
    Ecn m_ecn{NOT_ECT};
    Kind m_kind{DATA};
    bool m_control{false};
    bool m_intRequest{false};
    uint8_t m_intHops{0};
    uint8_t m_extraLinkPackets{0}; ///< GetLinkPackets() - 1
    FabricLinkTransport m_transport;
};

/**
 * \brief Fabric framing: src/dst endpoint ids, flow id, class, ECN, kind.
 *
 * Serialized layout (16 bytes, network order): src u32, dst u32, flow u32,
 * u8 (priority in bits 0-2, ECN codepoint in bits 3-4, transport-control flag
 * in bit 5, INT-request flag in bit 6), u8 kind, u8 INT hop count, u8 link
 * packets - 1 (0 but for a network transfer unit; GetLinkPackets).
 * The INT fields stand for what marks a packet as carrying in-band telemetry
 * in real framing (HPCC's INT rides after the UDP header, announced by a
 * DSCP / UDP port); the telemetry itself (IntHeader, int-header.h) follows
 * the FabricHeader as real payload bytes, present when the hop count is > 0.
 */
class FabricHeader : public Header, public FabricHeaderFields
{
  public:
    static constexpr uint32_t kSerializedSize = 16;

    FabricHeader() = default;
    FabricHeader(uint32_t src, uint32_t dst, uint32_t flowId, uint8_t priority,
                 Ecn ecn = NOT_ECT, Kind kind = DATA)
        : FabricHeaderFields(src, dst, flowId, priority, ecn, kind)
    {
    }
    explicit FabricHeader(const FabricHeaderFields& fields)
        : FabricHeaderFields(fields)
    {
    }

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;
};

/**
 * \brief Body of a PFC pause frame (IEEE 802.1Qbb): class-enable vector and
 * eight pause timers in quanta of 512 bit times at the link rate.
 *
 * A timer of 0 for an enabled class is an XON (resume). Serialized as in the
 * standard's MAC control frame after the opcode: u16 vector, 8 x u16 timers.
 */
class FabricPauseBody : public Header
{
  public:
    static constexpr uint32_t kSerializedSize = 18;
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint16_t classEnable{0};               ///< bit c set: timer c applies to class c
    std::array<uint16_t, kFabricClasses> quanta{}; ///< pause time, units of 512 bit times
};

/**
 * \brief Body of a credit update: for each class, the total buffer bytes the
 * receiver has freed since the link came up (cumulative, as InfiniBand's FCCL,
 * so a lost or merged update is harmless). The sender's credit for class c is
 * limit_c + freed_c - sent_c, all in on-wire bytes of that link.
 */
class FabricCreditBody : public Header
{
  public:
    static constexpr uint32_t kSerializedSize = 8 * kFabricClasses;
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    std::array<uint64_t, kFabricClasses> freedBytes{};
};

/**
 * \brief A link-local frame (PFC pause or credit update) as two ports
 * exchange it: plain fields, no ns-3 Packet on the way. Its wire cost is the
 * port's ControlFrameBytes (or nothing when it rides in a data packet's
 * framing); a Packet in the standard's layout (FabricHeader, then
 * FabricPauseBody or FabricCreditBody) is made only for pcap and traces.
 */
struct FabricControlFrame
{
    FabricHeader::Kind kind{FabricHeader::CREDIT_UPDATE};
    uint32_t source{kFabricNoAddress}; ///< sender's fabric address (switch ports: none)
    uint16_t classEnable{0};           ///< PFC: class-enable vector
    /// PFC: pause quanta per class; credit update: cumulative freed bytes per class.
    std::array<uint64_t, kFabricClasses> values{};

    /// The frame as a packet: FabricHeader (class 7) + body.
    Ptr<Packet> ToPacket() const;
};

} // namespace ns3

#endif
