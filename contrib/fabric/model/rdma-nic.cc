// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-nic.h"

#include "fabric-log.h"
#include "fabric-net-device.h"

#include "ns3/boolean.h"
#include "ns3/buffer.h"
#include "ns3/tag.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyRdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

namespace
{
bool
IsFirst(uint8_t op)
{
    return op == bth::kSendFirst || op == bth::kSendOnly || op == bth::kSendOnlyImm ||
           op == bth::kWriteFirst || op == bth::kWriteOnly || op == bth::kWriteOnlyImm;
}

bool
IsLast(uint8_t op)
{
    return op == bth::kSendLast || op == bth::kSendLastImm || op == bth::kSendOnly ||
           op == bth::kSendOnlyImm || op == bth::kWriteLast || op == bth::kWriteLastImm ||
           op == bth::kWriteOnly || op == bth::kWriteOnlyImm;
}

bool
HasImm(uint8_t op)
{
    return op == bth::kSendLastImm || op == bth::kSendOnlyImm || op == bth::kWriteLastImm ||
           op == bth::kWriteOnlyImm;
}

bool
HasReth(uint8_t op)
{
    return op == bth::kWriteFirst || op == bth::kWriteOnly || op == bth::kWriteOnlyImm;
}

bool
IsData(uint8_t op)
{
    return op <= bth::kWriteOnlyImm;
}

/// RoCEv2 CNP: BTH followed by 16 reserved bytes (RoCEv2 annex A17.9.3).
constexpr uint32_t kCnpReservedBytes = 16;
} // namespace

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

    void Print(std::ostream& os) const override { bth.Print(os); }

    BthHeader bth;
    uint32_t immediate{0};
    uint8_t syndrome{AethHeader::kAck};
    uint8_t pad{0}; ///< payload bytes that are not data (an empty message's ImmDt)
};

NS_OBJECT_ENSURE_REGISTERED(RdmaTransportTag);

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<RdmaNic>()
            .AddAttribute("Mtu",
                          "Path MTU: payload bytes per packet (IB MTU: 256-4096; RoCEv2 "
                          "1024 on 1500-byte Ethernet, 4096 with jumbo frames)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaNic::SetMtu, &RdmaNic::GetMtuAttr),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PcieRate",
                          "Rate of the NIC's PCIe link for DMA (default PCIe Gen5 x16 raw, "
                          "63 GB/s per direction, REFERENCE.md)",
                          DataRateValue(DataRate("504Gbps")),
                          MakeDataRateAccessor(&RdmaNic::SetPcieRate, &RdmaNic::GetPcieRate),
                          MakeDataRateChecker())
            // Assumption: chosen so that doorbell (1) + WQE fetch (2) + payload
            // read (2) + receive write (1) one-way PCIe latencies plus a
            // 100 Gb/s wire give the 0.8 us one-way ib_send_lat of EDR back to
            // back (REFERENCE.md).
            .AddAttribute("PcieLatency",
                          "One-way latency of the NIC's PCIe link",
                          TimeValue(NanoSeconds(120)),
                          MakeTimeAccessor(&RdmaNic::SetPcieLatency, &RdmaNic::GetPcieLatency),
                          MakeTimeChecker())
            // H100 SXM HBM3, 3.35 TB/s (NVIDIA H100 datasheet): never the
            // bottleneck of one NIC, but part of min(memory, PCIe, link).
            .AddAttribute("MemoryRate",
                          "Rate of the memory the DMA engine reads and writes",
                          DataRateValue(DataRate("26800Gbps")),
                          MakeDataRateAccessor(&RdmaNic::SetMemoryRate, &RdmaNic::GetMemoryRate),
                          MakeDataRateChecker())
            .AddAttribute("EngineStartup",
                          "Fixed cost per message after the doorbell (copy-engine or SM "
                          "launch on NVLink; 0 for a NIC)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaNic::SetEngineStartup, &RdmaNic::GetEngineStartup),
                          MakeTimeChecker())
            .AddAttribute("WqeBytes",
                          "Bytes of a work-queue element the NIC fetches per message",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RdmaNic::m_wqeBytes),
                          MakeUintegerChecker<uint32_t>())
            // Assumption: enough to keep a 400 Gb/s port busy behind a PCIe
            // round trip (8 x 4 KiB = 655 ns at 400 Gb/s > 2 x 120 ns).
            .AddAttribute("DmaPrefetch",
                          "Packets whose payload a QP reads ahead of transmission",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RdmaNic::m_prefetch),
                          MakeUintegerChecker<uint32_t>(1))
            // Linux's soft-RoCE requester (rdma_rxe, rxe_req.c) sets AckReq
            // on the last packet of a message and once more than
            // RXE_MAX_PKT_PER_ACK = 64 packets went without one; IB lets a
            // responder coalesce ACKs, each acknowledging every earlier PSN.
            // Against one ACK per packet this removes about half of all
            // packet-hops and changes the simulated time by the reverse-path
            // ACK bytes only (doc/fabric.md, "ACK coalescing").
            .AddAttribute("AckInterval",
                          "The requester asks for an ACK (AckReq) every N packets, on the last "
                          "packet of each message and on the packet that fills the window: ACK "
                          "coalescing",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            // 4.096 us x 2^14: the local ACK timeout exponent 14 that perftest
            // uses by default (NCCL sets 18-22, 1-17 s). A short timeout made
            // queueing under PFC look like loss: with 100 us a 32 MB RoCE
            // incast on roce-leafspine resent 57 % of its packets and took
            // 68 % longer.
            .AddAttribute("RetransmitTimeout",
                          "Go-back-N from the oldest unacknowledged packet after this long "
                          "without progress on an AckReq packet (IB's local ACK timeout, "
                          "4.096 us x 2^exponent)",
                          TimeValue(NanoSeconds(67108864)),
                          MakeTimeAccessor(&RdmaNic::SetRetransmitTimeout,
                                           &RdmaNic::GetRetransmitTimeout),
                          MakeTimeChecker())
            .AddAttribute("WindowBytes",
                          "Max unacknowledged payload bytes in flight per QP (0: no limit)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_windowBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CnpPriority",
                          "Class of CNPs (the port's strict-priority class; ConnectX marks "
                          "them DSCP 48 / 802.1p 6 for the switches' strict queue)",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaNic::m_cnpPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("HeadersInTag",
                          "Carry BTH/RETH/ImmDt/AETH as a packet tag of 0 bytes instead of "
                          "payload bytes: for links whose own header holds them (NVLink)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_headersInTag),
                          MakeBooleanChecker())
            .AddAttribute("EcnCapable",
                          "Data packets carry ECT(0) so switches mark CE instead of dropping",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_ecnCapable),
                          MakeBooleanChecker())
            .AddAttribute("CongestionControl",
                          "TypeId of the rate control (a subclass of "
                          "ns3::RdmaCongestionControl), forked per QP",
                          TypeIdValue(RdmaCcNone::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_ccType),
                          MakeTypeIdChecker())
            .AddTraceSource("CnpTx",
                            "A CNP left for the QP's requester (arg: local qpn)",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpTxTrace),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("CnpRx",
                            "A CNP arrived for a local QP (arg: qpn)",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpRxTrace),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("Retransmit",
                            "Go-back-N restarted a QP (qpn, first PSN resent)",
                            MakeTraceSourceAccessor(&RdmaNic::m_retransmitTrace),
                            "ns3::RdmaNic::RetransmitCallback")
            .AddTraceSource("SendComplete",
                            "A message was fully acknowledged",
                            MakeTraceSourceAccessor(&RdmaNic::m_sendDoneTrace),
                            "ns3::RdmaNic::CompletionCallback")
            .AddTraceSource("ReceiveComplete",
                            "A message was written to memory at the receiver",
                            MakeTraceSourceAccessor(&RdmaNic::m_recvDoneTrace),
                            "ns3::RdmaNic::CompletionCallback");
    return tid;
}

RdmaNic::RdmaNic()
    : m_byClass(kFabricClasses),
      m_rrNext(kFabricClasses, 0),
      m_active(kFabricClasses)
{
}

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    m_wake.Cancel();
    for (auto& qp : m_qps)
    {
        qp.rtoCheck.Cancel();
        if (qp.cc)
        {
            qp.cc->Stop();
            qp.cc->Dispose();
        }
        qp.cc = nullptr;
        qp.rate = nullptr;
        qp.sq.clear();
        qp.rxInline = nullptr;
    }
    m_qps.clear();
    if (m_port)
    {
        m_port->SetTxSource(FabricNetDevice::TxSource());
        m_port->SetFabricReceiveCallback(FabricNetDevice::FabricRxCallback());
    }
    m_port = nullptr;
    m_ccProto = nullptr;
    m_sendDone = CompletionCallback();
    m_recvDone = CompletionCallback();
    Object::DoDispose();
}

void
RdmaNic::SetMtu(uint32_t mtu)
{
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
    {
        throw std::invalid_argument(
            "RdmaNic::Mtu: expected 256, 512, 1024, 2048 or 4096 bytes, got " +
            std::to_string(mtu));
    }
    if (m_port && mtu + TransportOverhead() > m_port->GetMtu())
    {
        throw std::invalid_argument("RdmaNic::Mtu: expected at most the port MTU " +
                                    std::to_string(m_port->GetMtu()) + " - " +
                                    std::to_string(TransportOverhead()) +
                                    " transport header bytes, got " + std::to_string(mtu));
    }
    m_mtu = mtu;
}

void
RdmaNic::SetPcieRate(DataRate r)
{
    if (r.GetBitRate() == 0)
    {
        throw std::invalid_argument("RdmaNic::PcieRate: expected a rate > 0, got 0");
    }
    m_pcieRate = r;
}

void
RdmaNic::SetMemoryRate(DataRate r)
{
    if (r.GetBitRate() == 0)
    {
        throw std::invalid_argument("RdmaNic::MemoryRate: expected a rate > 0, got 0");
    }
    m_memoryRate = r;
}

void
RdmaNic::SetPcieLatency(Time t)
{
    if (t.IsStrictlyNegative())
    {
        throw std::invalid_argument("RdmaNic::PcieLatency: expected a time >= 0");
    }
    m_pcieLatency = t;
}

void
RdmaNic::SetEngineStartup(Time t)
{
    if (t.IsStrictlyNegative())
    {
        throw std::invalid_argument("RdmaNic::EngineStartup: expected a time >= 0");
    }
    m_engineStartup = t;
}

void
RdmaNic::SetRetransmitTimeout(Time t)
{
    if (!t.IsStrictlyPositive())
    {
        throw std::invalid_argument("RdmaNic::RetransmitTimeout: expected a time > 0");
    }
    m_rto = t;
}

void
RdmaNic::Attach(Ptr<FabricNetDevice> port)
{
    if (!port)
    {
        throw std::invalid_argument("RdmaNic::Attach port: expected a FabricNetDevice, got null");
    }
    if (port->GetDataRate().GetBitRate() == 0)
    {
        throw std::invalid_argument("RdmaNic port DataRate: expected a rate > 0, got 0");
    }
    if (m_mtu + TransportOverhead() > port->GetMtu())
    {
        throw std::invalid_argument("RdmaNic::Mtu: expected at most the port MTU " +
                                    std::to_string(port->GetMtu()) + " - " +
                                    std::to_string(TransportOverhead()) +
                                    " transport header bytes, got " + std::to_string(m_mtu));
    }
    if (!m_ccType.IsChildOf(RdmaCongestionControl::GetTypeId()))
    {
        throw std::invalid_argument(
            "RdmaNic::CongestionControl: expected a subclass of ns3::RdmaCongestionControl, "
            "got " +
            m_ccType.GetName());
    }
    m_port = port;
    m_lineRate = port->GetDataRate();
    if (!m_ccProto)
    {
        ObjectFactory f;
        f.SetTypeId(m_ccType);
        m_ccProto = f.Create<RdmaCongestionControl>();
    }
    port->SetTxSource(MakeCallback(&RdmaNic::Pull, this));
    port->SetFabricReceiveCallback(MakeCallback(&RdmaNic::Receive, this));
}

uint32_t
RdmaNic::GetAddress() const
{
    return m_port ? m_port->GetFabricAddress() : kFabricNoAddress;
}

void
RdmaNic::SetCongestionControl(Ptr<RdmaCongestionControl> prototype)
{
    if (!prototype)
    {
        throw std::invalid_argument(
            "RdmaNic::SetCongestionControl prototype: expected a congestion control, got null");
    }
    m_ccProto = prototype;
}

uint32_t
RdmaNic::CreateQp(uint8_t priority)
{
    if (!m_port)
    {
        throw std::invalid_argument("RdmaNic::CreateQp: expected an attached NIC (call Attach "
                                    "first), got none");
    }
    if (priority >= kFabricClasses)
    {
        throw std::invalid_argument("RdmaNic::CreateQp priority: expected a class 0-7, got " +
                                    std::to_string(priority));
    }
    // The congestion control starts first: it may reject its parameters for
    // this port's rate, and then no half-made QP is left behind.
    auto qpn = static_cast<uint32_t>(m_qps.size() + 1); // QPN 0 is reserved (SMI) in IB
    Ptr<RdmaRateState> rate = CreateObject<RdmaRateState>();
    rate->qpNumber = qpn;
    rate->SetLineRate(m_lineRate);
    Ptr<RdmaCongestionControl> cc = m_ccProto->Fork();
    cc->FlowStart(rate);
    m_qps.emplace_back();
    Qp& qp = m_qps.back();
    qp.qpn = qpn;
    qp.priority = priority;
    qp.rate = rate;
    qp.cc = cc;
    qp.rate->SetRateChangedCallback(MakeCallback(&RdmaNic::RateChanged, this).Bind(qp.qpn));
    qp.rate->SetWindowChangedCallback(MakeCallback(&RdmaNic::WindowChanged, this).Bind(qp.qpn));
    qp.ccWindow = rate->GetWindow();
    qp.classIndex = static_cast<uint32_t>(m_byClass[priority].size());
    m_byClass[priority].push_back(qp.qpn);
    m_active[priority].resize((m_byClass[priority].size() + 63) / 64, 0);
    return qp.qpn;
}

void
RdmaNic::ConnectQp(uint32_t qpn, uint32_t peerAddress, uint32_t peerQpn)
{
    Qp& qp = GetQp(qpn, "ConnectQp");
    qp.peerAddress = peerAddress;
    qp.peerQpn = peerQpn;
    qp.connected = true;
    UpdateActive(qp);
}

std::pair<uint32_t, uint32_t>
RdmaNic::Connect(Ptr<RdmaNic> a, Ptr<RdmaNic> b, uint8_t priority)
{
    uint32_t qa = a->CreateQp(priority);
    uint32_t qb = b->CreateQp(priority);
    a->ConnectQp(qa, b->GetAddress(), qb);
    b->ConnectQp(qb, a->GetAddress(), qa);
    return {qa, qb};
}

void
RdmaNic::CheckQpn(uint32_t qpn, const char* caller) const
{
    if (qpn == 0 || qpn > m_qps.size())
    {
        throw std::invalid_argument(std::string("RdmaNic::") + caller +
                                    " qpn: expected a QP of this NIC (1-" +
                                    std::to_string(m_qps.size()) + "), got " +
                                    std::to_string(qpn));
    }
}

RdmaNic::Qp&
RdmaNic::GetQp(uint32_t qpn, const char* caller)
{
    CheckQpn(qpn, caller);
    return m_qps[qpn - 1];
}

const RdmaNic::Qp&
RdmaNic::GetQp(uint32_t qpn, const char* caller) const
{
    CheckQpn(qpn, caller);
    return m_qps[qpn - 1];
}

Ptr<RdmaRateState>
RdmaNic::GetRateState(uint32_t qpn) const
{
    return GetQp(qpn, "GetRateState").rate;
}

Ptr<RdmaCongestionControl>
RdmaNic::GetQpCongestionControl(uint32_t qpn) const
{
    return GetQp(qpn, "GetQpCongestionControl").cc;
}

uint64_t
RdmaNic::GetOutstandingBytes(uint32_t qpn) const
{
    return GetQp(qpn, "GetOutstandingBytes").outstandingBytes;
}

DataRate
RdmaNic::DmaRate() const
{
    return std::min(m_pcieRate, m_memoryRate);
}

Time
RdmaNic::DmaTime(uint64_t bytes) const
{
    // Exact in picoseconds; CalculateBytesTxTime takes 32-bit sizes.
    return PicoSeconds(static_cast<int64_t>(
        std::llround(static_cast<double>(bytes) * 8e12 / DmaRate().GetBitRate())));
}

uint32_t
RdmaNic::TransportOverhead() const
{
    return m_headersInTag ? 0 : kMaxTransportHeader;
}

uint32_t
RdmaNic::DataWireBytes(uint32_t payload, bool first, bool last, bool write) const
{
    uint32_t size = FabricHeader::kSerializedSize + payload;
    if (!m_headersInTag)
    {
        size += BthHeader::kSize + (write && first ? RethHeader::kSize : 0) +
                (last ? ImmDtHeader::kSize : 0);
    }
    return m_port->WireBytes(size);
}

uint64_t
RdmaNic::PostSend(uint32_t qpn, uint64_t bytes, bool rdmaWrite, uint32_t immediate,
                  Ptr<Packet> inlineData)
{
    Qp& qp = GetQp(qpn, "PostSend");
    if (!qp.connected)
    {
        throw std::invalid_argument("RdmaNic::PostSend qpn: expected a connected QP (ConnectQp), "
                                    "got unconnected QP " +
                                    std::to_string(qpn));
    }
    if (inlineData)
    {
        if (inlineData->GetSize() > m_mtu)
        {
            throw std::invalid_argument("RdmaNic::PostSend inlineData: expected at most the Mtu " +
                                        std::to_string(m_mtu) + " bytes, got " +
                                        std::to_string(inlineData->GetSize()));
        }
        bytes = inlineData->GetSize();
    }
    Message m;
    m.wrId = m_nextWrId++;
    m.bytes = bytes;
    m.write = rdmaWrite;
    m.immediate = immediate;
    m.firstPsn = qp.nextPsn;
    m.startByte = qp.postedBytes;
    m.npkts = bytes == 0 ? 1 : (bytes + m_mtu - 1) / m_mtu;
    m.posted = Simulator::Now();
    m.inlineData = inlineData;
    // Doorbell (an MMIO write: one PCIe crossing), then the WQE read: a DMA
    // read, whose data returns a round trip after the request, in its slot on
    // the PCIe link.
    Time doorbell = Simulator::Now() + m_pcieLatency + m_engineStartup;
    Time slot = std::max(doorbell + 2 * m_pcieLatency, m_txDmaFreeAt);
    m.wqeDone = slot + DmaTime(m_wqeBytes);
    m_txDmaFreeAt = m.wqeDone;
    qp.nextPsn += m.npkts;
    qp.outstandingBytes += bytes;
    qp.postedBytes += bytes;
    qp.sq.push_back(m);
    ++m_counters.messagesPosted;
    m_counters.bytesPosted += bytes;
    IssueReads(qp);
    UpdateActive(qp);
    NS_LOG_DEBUG("qp " << qpn << " post " << bytes << " B psn " << m.firstPsn << "+" << m.npkts);
    ScheduleWake(EligibleAt(qp));
    return m.wrId;
}

const RdmaNic::Message*
RdmaNic::FindMessage(const Qp& qp, uint64_t psn) const
{
    // sq holds consecutive PSN ranges in order: the message is the last one
    // starting at or before psn (O(log n), not a scan of every posted message).
    auto it = std::upper_bound(qp.sq.begin(), qp.sq.end(), psn,
                               [](uint64_t v, const Message& m) { return v < m.firstPsn; });
    if (it == qp.sq.begin())
    {
        return nullptr;
    }
    --it;
    return psn < it->firstPsn + it->npkts ? &*it : nullptr;
}

uint32_t
RdmaNic::PacketPayload(const Message& m, uint64_t psn) const
{
    uint64_t off = (psn - m.firstPsn) * m_mtu;
    return static_cast<uint32_t>(std::min<uint64_t>(m_mtu, m.bytes - off));
}

bool
RdmaNic::HasWork(const Qp& qp) const
{
    if (!qp.connected || qp.sndNxt >= qp.nextPsn)
    {
        return false;
    }
    const uint64_t window = Window(qp);
    if (window > 0 && (qp.sndNxt - qp.sndUna) * m_mtu >= window)
    {
        return false;
    }
    return true;
}

uint64_t
RdmaNic::Window(const Qp& qp) const
{
    if (qp.ccWindow == 0 || (m_windowBytes > 0 && m_windowBytes < qp.ccWindow))
    {
        return m_windowBytes;
    }
    return qp.ccWindow;
}

Time
RdmaNic::EligibleAt(const Qp& qp) const
{
    if (!HasWork(qp))
    {
        return Time::Max();
    }
    Time t = qp.nextTx;
    if (qp.sndNxt >= qp.highSent)
    {
        // First transmission: the payload must have arrived over PCIe.
        if (qp.readReady.empty())
        {
            return Time::Max(); // read not issued yet (prefetch window full)
        }
        t = std::max(t, qp.readReady.front());
    }
    return t;
}

void
RdmaNic::IssueReadsOf(uint32_t qpn)
{
    Qp& qp = GetQp(qpn);
    IssueReads(qp);
    ScheduleWake(EligibleAt(qp));
}

void
RdmaNic::IssueReads(Qp& qp)
{
    // Payload reads run ahead of transmission by up to DmaPrefetch packets
    // per QP; requests of all QPs share the PCIe link in issue order, each
    // data return a round trip after its request.
    Time now = Simulator::Now();
    while (qp.readPsn < qp.nextPsn && qp.readPsn - qp.highSent < m_prefetch)
    {
        const Message* m = FindMessage(qp, qp.readPsn);
        if (m->wqeDone > now)
        {
            // Issued when the WQE has been read, in time order with the
            // other QPs' requests.
            Simulator::Schedule(m->wqeDone - now, &RdmaNic::IssueReadsOf, this, qp.qpn);
            return;
        }
        Time issue = now;
        Time slot = std::max(issue + 2 * m_pcieLatency, m_txDmaFreeAt);
        m_txDmaFreeAt = slot + DmaTime(PacketPayload(*m, qp.readPsn));
        qp.readReady.push_back(m_txDmaFreeAt);
        ++qp.readPsn;
    }
}

void
RdmaNic::UpdateActive(const Qp& qp)
{
    uint64_t& word = m_active[qp.priority][qp.classIndex / 64];
    const uint64_t bit = uint64_t(1) << (qp.classIndex % 64);
    word = HasWork(qp) ? (word | bit) : (word & ~bit);
}

uint32_t
RdmaNic::NextActive(uint8_t cls, uint32_t from, uint32_t end) const
{
    const auto& words = m_active[cls];
    while (from < end)
    {
        uint64_t bits = words[from / 64] & (~uint64_t(0) << (from % 64));
        if (bits)
        {
            uint32_t idx = (from / 64) * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
            return std::min(idx, end);
        }
        from = (from / 64 + 1) * 64;
    }
    return end;
}

Ptr<Packet>
RdmaNic::Pull(uint8_t cls, uint32_t maxBytes)
{
    auto& list = m_byClass[cls];
    const uint32_t n = list.size();
    if (n == 0)
    {
        return nullptr;
    }
    Time now = Simulator::Now();
    Time earliest = Time::Max();
    // Round robin over the QPs with work, from the cursor to the end and
    // then from the start to the cursor; idle QPs would be skipped anyway
    // (EligibleAt is Max for them).
    const uint32_t start = m_rrNext[cls] % n;
    const std::pair<uint32_t, uint32_t> ranges[2] = {{start, n}, {0, start}};
    for (const auto& [from, end] : ranges)
    {
        for (uint32_t idx = NextActive(cls, from, end); idx < end; idx = NextActive(cls, idx + 1, end))
        {
            Qp& qp = m_qps[list[idx] - 1];
            Time t = EligibleAt(qp);
            if (t > now)
            {
                earliest = std::min(earliest, t);
                continue;
            }
            Ptr<Packet> p = BuildDataPacket(qp, qp.sndNxt);
            if (p->GetSize() > maxBytes)
            {
                // The flow control's budget is smaller than the packet: undo
                // and wait for the port to offer more (credit return).
                --qp.sndNxt;
                continue;
            }
            m_rrNext[cls] = (idx + 1) % n;
            CommitTransmission(qp, p, now);
            return p;
        }
    }
    if (earliest != Time::Max())
    {
        ScheduleWake(earliest);
    }
    return nullptr;
}

void
RdmaNic::CommitTransmission(Qp& qp, Ptr<Packet> p, Time now)
{
    // Counters, rate limiter, CC, timer.
    const Message* m = FindMessage(qp, qp.sndNxt - 1);
    uint32_t payload = PacketPayload(*m, qp.sndNxt - 1);
    uint32_t wire = m_port->WireBytes(p->GetSize());
    ++m_counters.dataPacketsSent;
    if (qp.sndNxt - 1 >= qp.highSent)
    {
        m_counters.bytesSent += payload;
        qp.highSent = qp.sndNxt;
        qp.readReady.pop_front();
        IssueReads(qp);
    }
    else
    {
        m_counters.bytesRetransmitted += payload;
        ++m_counters.packetsRetransmitted;
    }
    qp.lastTxStart = now;
    qp.lastTxWire = wire;
    // At line rate the port's own serialization is the pacing.
    qp.nextTx = qp.rate->GetRate() >= m_lineRate
                    ? now
                    : now + qp.rate->GetRate().CalculateBytesTxTime(wire);
    qp.cc->BytesSent(qp.rate, wire);
    if (AckRequested(qp, *m, qp.sndNxt - 1))
    {
        qp.ackReqHigh = std::max(qp.ackReqHigh, qp.sndNxt);
        ArmRto(qp);
        // A resent packet replaces the records from its PSN on (go-back-N
        // sends them again in order).
        const uint64_t psn = qp.sndNxt - 1;
        while (!qp.ackReqSent.empty() && qp.ackReqSent.back().first >= psn)
        {
            qp.ackReqSent.pop_back();
        }
        qp.ackReqSent.emplace_back(psn, now);
    }
    UpdateActive(qp);
}

Ptr<Packet>
RdmaNic::BuildDataPacket(Qp& qp, uint64_t psn)
{
    const Message* m = FindMessage(qp, psn);
    NS_ASSERT(m);
    uint64_t k = psn - m->firstPsn;
    bool first = k == 0;
    bool last = k + 1 == m->npkts;
    uint32_t len = PacketPayload(*m, psn);
    Ptr<Packet> p = (m->inlineData && m->npkts == 1) ? m->inlineData->Copy() : Create<Packet>(len);
    uint8_t op;
    if (m->write)
    {
        op = first && last ? bth::kWriteOnlyImm
             : first       ? bth::kWriteFirst
             : last        ? bth::kWriteLastImm
                           : bth::kWriteMiddle;
    }
    else
    {
        op = first && last ? bth::kSendOnlyImm
             : first       ? bth::kSendFirst
             : last        ? bth::kSendLastImm
                           : bth::kSendMiddle;
    }
    BthHeader bh;
    bh.opcode = op;
    bh.destQp = qp.peerQpn & 0xFFFFFF;
    bh.psn = static_cast<uint32_t>(psn & 0xFFFFFF);
    bh.ackReq = AckRequested(qp, *m, psn);
    if (m_headersInTag)
    {
        RdmaTransportTag tag;
        tag.bth = bh;
        tag.immediate = m->immediate;
        if (p->GetSize() == 0)
        {
            // An empty message still carries its immediate (and the port
            // needs a non-empty packet, see SendControl).
            tag.pad = ImmDtHeader::kSize;
            p = Create<Packet>(ImmDtHeader::kSize);
        }
        p->AddPacketTag(tag);
    }
    else
    {
        if (last)
        {
            ImmDtHeader imm;
            imm.immediate = m->immediate;
            p->AddHeader(imm);
        }
        if (m->write && first)
        {
            RethHeader reth;
            reth.dmaLength = static_cast<uint32_t>(std::min<uint64_t>(m->bytes, 0xFFFFFFFFu));
            p->AddHeader(reth);
        }
        p->AddHeader(bh);
    }
    FabricHeader fh(GetAddress(),
                    qp.peerAddress,
                    (GetAddress() << 12) ^ qp.qpn,
                    qp.priority,
                    m_ecnCapable ? FabricHeader::ECT0 : FabricHeader::NOT_ECT);
    p->AddHeader(fh);
    ++qp.sndNxt;
    return p;
}

void
RdmaNic::ScheduleWake(Time at)
{
    if (at == Time::Max())
    {
        return;
    }
    Time now = Simulator::Now();
    at = std::max(at, now);
    if (m_wake.IsRunning() && Time(m_wake.GetTs()) <= at)
    {
        return;
    }
    m_wake.Cancel();
    m_wake = Simulator::Schedule(at - now, &RdmaNic::Wake, this);
}

void
RdmaNic::Wake()
{
    if (m_port)
    {
        m_port->NotifyTxReady();
    }
}

void
RdmaNic::RateChanged(uint32_t qpn)
{
    Qp& qp = GetQp(qpn);
    if (qp.lastTxWire > 0)
    {
        qp.nextTx = qp.rate->GetRate() >= m_lineRate
                        ? qp.lastTxStart
                        : qp.lastTxStart + qp.rate->GetRate().CalculateBytesTxTime(qp.lastTxWire);
    }
    ScheduleWake(EligibleAt(qp));
}

void
RdmaNic::WindowChanged(uint32_t qpn)
{
    Qp& qp = GetQp(qpn);
    qp.ccWindow = qp.rate->GetWindow();
    UpdateActive(qp);
    ScheduleWake(EligibleAt(qp));
}

bool
RdmaNic::AckRequested(const Qp& qp, const Message& m, uint64_t psn) const
{
    // The packet that fills the window asks too: otherwise the window could
    // only reopen at the timeout.
    return psn + 1 == m.firstPsn + m.npkts || (psn + 1) % m_ackInterval == 0 ||
           (Window(qp) > 0 && (psn + 1 - qp.sndUna) * m_mtu >= Window(qp));
}

void
RdmaNic::ArmRto(Qp& qp)
{
    // IB's transport timer: it runs while a packet that asked for an
    // acknowledgement (AckReq) is unanswered, armed by the first such packet
    // after it was idle and restarted by ACKs with progress (RestartRto).
    // Packets between AckReqs are not timed: a lost one shows as a PSN gap
    // (NAK) at the next packet, or the next AckReq times out. With coalesced
    // ACKs a slow (rate-limited) QP is therefore not timed out merely for
    // sending slowly.
    if (qp.rtoDeadline == Time::Max())
    {
        RestartRto(qp);
    }
}

void
RdmaNic::RestartRto(Qp& qp)
{
    qp.rtoDeadline = Simulator::Now() + m_rto;
    if (!qp.rtoCheck.IsRunning())
    {
        qp.rtoCheck = Simulator::Schedule(m_rto, &RdmaNic::RtoCheck, this, qp.qpn);
    }
}

void
RdmaNic::RtoCheck(uint32_t qpn)
{
    Qp& qp = m_qps[qpn - 1];
    if (qp.rtoDeadline == Time::Max())
    {
        return;
    }
    Time now = Simulator::Now();
    if (now < qp.rtoDeadline)
    {
        qp.rtoCheck = Simulator::Schedule(qp.rtoDeadline - now, &RdmaNic::RtoCheck, this, qpn);
        return;
    }
    qp.rtoDeadline = Time::Max();
    RtoExpired(qp);
}

void
RdmaNic::RtoExpired(Qp& qp)
{
    if (qp.sndUna >= qp.sndNxt && qp.sndUna >= qp.highSent)
    {
        return;
    }
    ++m_counters.timeouts;
    NS_LOG_DEBUG("qp " << qp.qpn << " timeout, go back to " << qp.sndUna);
    m_retransmitTrace(qp.qpn, qp.sndUna);
    qp.sndNxt = qp.sndUna;
    qp.nextTx = Simulator::Now();
    UpdateActive(qp);
    ScheduleWake(EligibleAt(qp));
}

void
RdmaNic::SendAck(Qp& qp, const FabricHeader& fh, uint64_t psn, bool nak)
{
    if (nak)
    {
        ++m_counters.naksSent;
    }
    else
    {
        ++m_counters.acksSent;
    }
    // BECN in the ACK echoes the CE marks since the previous ACK, as an IB
    // responder returns a FECN as BECN (InfiniBand Architecture Specification
    // vol. 1, annex A10, congestion control); a congestion control reads it
    // as RdmaAckSample::ecnEcho. It changes no packet size.
    SendControl(fh.GetSource(), qp.peerQpn, fh.GetPriority(), fh.GetFlowId(), bth::kAcknowledge,
                psn, nak, qp.ceSinceAck);
    qp.ceSinceAck = false;
}

void
RdmaNic::SendControl(uint32_t dst, uint32_t dstQpn, uint8_t priority, uint32_t flow,
                     uint8_t opcode, uint64_t psn, bool nak, bool ecnEcho)
{
    Ptr<Packet> p;
    AethHeader a;
    a.syndrome = nak ? AethHeader::kNakPsnError : AethHeader::kAck;
    if (m_headersInTag)
    {
        // The AETH's 4 bytes as the response payload. (Also keeps every
        // packet non-empty: FabricNetDevice schedules its next transmission
        // on queued payload bytes, so a queue of 0-byte packets would stall.)
        p = Create<Packet>(AethHeader::kSize);
    }
    else if (opcode == bth::kCnp)
    {
        p = Create<Packet>(kCnpReservedBytes);
    }
    else
    {
        p = Create<Packet>();
        p->AddHeader(a);
    }
    BthHeader bh;
    bh.opcode = opcode;
    bh.destQp = dstQpn & 0xFFFFFF;
    bh.psn = static_cast<uint32_t>(psn & 0xFFFFFF);
    bh.becn = opcode == bth::kCnp || ecnEcho;
    if (m_headersInTag)
    {
        RdmaTransportTag tag;
        tag.bth = bh;
        tag.syndrome = a.syndrome;
        p->AddPacketTag(tag);
    }
    else
    {
        p->AddHeader(bh);
    }
    FabricHeader fh(GetAddress(), dst, flow, priority, FabricHeader::NOT_ECT);
    fh.SetTransportControl(true);
    p->AddHeader(fh);
    HOCKNEY_HOT_LOG_LOGIC("to " << dst << " qp " << dstQpn << " opcode " << unsigned(opcode) << " psn "
                       << psn << (nak ? " NAK" : ""));
    if (!m_port->SendFabric(p))
    {
        // Counted: a lost CNP leaves a sender at its rate, a lost ACK costs a
        // timeout; runs must be able to see either.
        ++m_counters.controlDropped;
        NS_LOG_WARN("control packet dropped at the local port");
    }
}

uint64_t
RdmaNic::Unwrap(uint64_t reference, uint32_t psn24)
{
    int64_t diff = static_cast<int64_t>((psn24 - (reference & 0xFFFFFF)) & 0xFFFFFF);
    if (diff >= (1 << 23))
    {
        diff -= (1 << 24);
    }
    return static_cast<uint64_t>(static_cast<int64_t>(reference) + diff);
}

void
RdmaNic::Receive(Ptr<FabricNetDevice> dev, Ptr<Packet> packet, const FabricHeader& header)
{
    // Tagged packets (NVLink) are read in place; a packet whose transport
    // headers are payload bytes is copied once to strip them.
    BthHeader bh;
    RdmaTransportTag tag;
    Ptr<Packet> p;
    bool tagged = packet->PeekPacketTag(tag);
    if (tagged)
    {
        bh = tag.bth;
        p = packet;
    }
    else
    {
        p = packet->Copy();
        FabricHeader fh;
        p->RemoveHeader(fh);
        p->RemoveHeader(bh);
    }
    uint32_t qpn = bh.destQp;
    if (qpn == 0 || qpn > m_qps.size())
    {
        ++m_counters.unknownQpDropped;
        NS_LOG_WARN("packet for unknown QP " << qpn << " dropped");
        return;
    }
    Qp& qp = GetQp(qpn);
    if (bh.opcode == bth::kCnp)
    {
        ++m_counters.cnpsReceived;
        m_cnpRxTrace(qpn);
        qp.cc->CnpReceived(qp.rate);
        return;
    }
    if (bh.opcode == bth::kAcknowledge)
    {
        AethHeader a;
        if (tagged)
        {
            a.syndrome = tag.syndrome;
        }
        else
        {
            p->RemoveHeader(a);
        }
        ReceiveAck(qp, bh, a);
        return;
    }
    if (IsData(bh.opcode))
    {
        ReceiveData(qp, header, bh, p, tagged ? &tag : nullptr);
    }
}

void
RdmaNic::ReceiveData(Qp& qp, const FabricHeader& fh, const BthHeader& bh, Ptr<Packet> p,
                     const RdmaTransportTag* tag)
{
    // Notification point: the CE mark counts whether or not the packet is
    // in sequence.
    const bool ce = fh.GetEcn() == FabricHeader::CE;
    qp.ceSinceAck = qp.ceSinceAck || ce;
    if (qp.cc->DataReceived(qp.rate, ce))
    {
        ++m_counters.cnpsSent;
        m_cnpTxTrace(qp.qpn);
        SendControl(fh.GetSource(), qp.peerQpn, m_cnpPriority, fh.GetFlowId(), bth::kCnp, 0,
                    false);
    }
    uint64_t psn = Unwrap(qp.ePsn, bh.psn);
    if (psn > qp.ePsn)
    {
        ++m_counters.outOfOrderDropped;
        if (!qp.nakSent)
        {
            qp.nakSent = true;
            SendAck(qp, fh, qp.ePsn, true);
        }
        return;
    }
    if (psn < qp.ePsn)
    {
        // Duplicate of a packet already accepted (its ACK was lost or a
        // go-back-N resent it): acknowledge again so the requester moves on.
        if (bh.ackReq)
        {
            SendAck(qp, fh, qp.ePsn - 1, false);
        }
        return;
    }
    uint32_t imm = 0;
    uint32_t len = 0;
    if (tag)
    {
        // p is the packet as received: FabricHeader, then payload and pad.
        imm = tag->immediate;
        len = p->GetSize() - FabricHeader::kSerializedSize - tag->pad;
        if (IsFirst(bh.opcode) && IsLast(bh.opcode))
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
    }
    else
    {
        if (HasReth(bh.opcode))
        {
            RethHeader r;
            p->RemoveHeader(r);
        }
        if (HasImm(bh.opcode))
        {
            ImmDtHeader h;
            p->RemoveHeader(h);
            imm = h.immediate;
        }
        len = p->GetSize();
    }
    if (IsFirst(bh.opcode))
    {
        qp.rxMsgBytes = 0;
    }
    qp.rxMsgBytes += len;
    m_counters.bytesDelivered += len;
    ++qp.ePsn;
    qp.nakSent = false;
    // Posted writes of the payload into memory on the receive DMA engine.
    Time writeDone = std::max(Simulator::Now(), m_rxDmaFreeAt) + DmaTime(len);
    m_rxDmaFreeAt = writeDone;
    if (IsLast(bh.opcode))
    {
        RdmaCompletion c;
        c.qpn = qp.qpn;
        c.bytes = qp.rxMsgBytes;
        c.immediate = imm;
        if (IsFirst(bh.opcode))
        {
            c.inlineData = p;
        }
        ++m_counters.messagesReceived;
        Time at = writeDone + m_pcieLatency; // data and CQE visible to the host
        Simulator::Schedule(at - Simulator::Now(), [this, c]() {
            m_recvDoneTrace(c);
            if (!m_recvDone.IsNull())
            {
                m_recvDone(c);
            }
        });
    }
    if (bh.ackReq)
    {
        SendAck(qp, fh, psn, false);
    }
}

void
RdmaNic::ReceiveAck(Qp& qp, const BthHeader& bh, const AethHeader& a)
{
    uint64_t psn = Unwrap(qp.sndUna, bh.psn);
    uint64_t newUna = a.IsNak() ? psn : psn + 1;
    HOCKNEY_HOT_LOG_LOGIC("qp " << qp.qpn << (a.IsNak() ? " NAK " : " ACK ") << psn << " una " << qp.sndUna
                       << " high " << qp.highSent);
    if (newUna > qp.highSent)
    {
        return; // stale or corrupt
    }
    bool progress = newUna > qp.sndUna;
    RdmaAckSample sample;
    sample.nak = a.IsNak();
    sample.ecnEcho = bh.becn;
    sample.rtt = TakeRttSample(qp, psn, a.IsNak());
    if (progress)
    {
        sample.ackedBytes = ByteOffset(qp, newUna) - ByteOffset(qp, qp.sndUna);
        qp.sndUna = newUna;
    }
    if (a.IsNak())
    {
        ++m_counters.naksReceived;
        if (qp.sndNxt > psn)
        {
            NS_LOG_DEBUG("qp " << qp.qpn << " NAK, go back to " << psn);
            m_retransmitTrace(qp.qpn, psn);
            qp.sndNxt = psn;
        }
    }
    if (qp.sndNxt < qp.sndUna)
    {
        qp.sndNxt = qp.sndUna;
    }
    while (!qp.sq.empty() && qp.sq.front().firstPsn + qp.sq.front().npkts <= qp.sndUna)
    {
        const Message& m = qp.sq.front();
        RdmaCompletion c;
        c.qpn = qp.qpn;
        c.wrId = m.wrId;
        c.bytes = m.bytes;
        c.immediate = m.immediate;
        c.posted = m.posted;
        qp.outstandingBytes -= m.bytes;
        ++m_counters.messagesCompleted;
        qp.sq.pop_front();
        Simulator::Schedule(m_pcieLatency, [this, c]() {
            m_sendDoneTrace(c);
            if (!m_sendDone.IsNull())
            {
                m_sendDone(c);
            }
        });
    }
    if (progress || a.IsNak())
    {
        qp.rtoDeadline = Time::Max();
        if (qp.sndUna < qp.ackReqHigh)
        {
            RestartRto(qp);
        }
    }
    sample.outstandingBytes = qp.postedBytes - ByteOffset(qp, qp.sndUna);
    qp.cc->AckReceived(qp.rate, sample);
    UpdateActive(qp);
    ScheduleWake(EligibleAt(qp));
}

uint64_t
RdmaNic::ByteOffset(const Qp& qp, uint64_t psn) const
{
    if (psn >= qp.nextPsn)
    {
        return qp.postedBytes;
    }
    const Message* m = FindMessage(qp, psn);
    NS_ASSERT(m);
    return m->startByte + std::min<uint64_t>((psn - m->firstPsn) * m_mtu, m->bytes);
}

Time
RdmaNic::TakeRttSample(Qp& qp, uint64_t psn, bool nak)
{
    // ACKs are cumulative: records below psn are answered without a sample
    // of their own (coalesced or lost ACKs); a NAK answers none.
    auto& sent = qp.ackReqSent;
    while (!sent.empty() && sent.front().first < psn)
    {
        sent.pop_front();
    }
    if (nak || sent.empty() || sent.front().first != psn)
    {
        return Time(0);
    }
    Time rtt = Simulator::Now() - sent.front().second;
    sent.pop_front();
    return rtt;
}

} // namespace ns3
