// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-nic.h"
#include "fast-simulator-impl.h"

#include "attribute-defaults.h"
#include "fabric-log.h"
#include "fabric-net-device.h"
#include "rdma-transport.h"

#include "ns3/boolean.h"
#include "ns3/buffer.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyRdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

LogComponent&
RdmaNicLogComponent()
{
    return g_log;
}

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
                          "32 GT/s x 16 lanes x 128/130 = 63 GB/s per direction)",
                          DataRateValue(DataRate("504Gbps")),
                          MakeDataRateAccessor(&RdmaNic::SetPcieRate, &RdmaNic::GetPcieRate),
                          MakeDataRateChecker())
            // Assumption: chosen so that doorbell (1) + WQE fetch (2) + payload
            // read (2) + receive write (1) one-way PCIe latencies plus a
            // 100 Gb/s wire give the 0.79 us one-way ib_send_lat of EDR back to
            // back (perftest, validation/data/perftest_ib_send_lat_UD_EDR100_b2b.csv).
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
                          MakeUintegerAccessor(&RdmaNic::SetWqeBytes, &RdmaNic::GetWqeBytes),
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
                          "coalescing. QPs whose congestion control reads INT (HPCC) ask on "
                          "every packet",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RdmaNic::SetAckInterval, &RdmaNic::GetAckInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("TransferUnitBytes",
                          "0: one packet per Mtu of payload. N, a multiple of Mtu up to 256 "
                          "Mtu: a network transfer unit, N bytes of data sent as one packet "
                          "that stands for its N / Mtu link packets (each one's BTH in its "
                          "size, framed by every port as that many packets: the same wire "
                          "bytes) and takes one PSN; AckInterval counts MTU packets "
                          "(doc/fabric.md, Network transfer units).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::SetTransferUnit, &RdmaNic::GetTransferUnit),
                          MakeUintegerChecker<uint32_t>())
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
            // IBTA's responder NAKs a PSN gap once; if that NAK or the
            // packet it asks for is lost, only the requester's timer (above,
            // 67 ms) recovers, and on a congested lossy fabric where the
            // retransmissions are dropped again every sender waits for it
            // (fabric.md, "Lossy links"). The HPCC simulator's responder
            // (rdma-hw.cc, "NACK Generation Interval", 500 us) NAKs again
            // after an interval; here the refresh is timed, so that it also
            // covers a gap after which nothing more arrives.
            .AddAttribute("NakInterval",
                          "A responder whose NAKed PSN gap is still open this long after "
                          "its last NAK sends the NAK again (0: once per gap, as IBTA's "
                          "responder; then a lost NAK or retransmission waits for the "
                          "requester's RetransmitTimeout)",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&RdmaNic::m_nakInterval),
                          MakeTimeChecker(Time(0)))
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
            // The HPCC authors' DCQCN runs set ACK_HIGH_PRIO 1 (run.py): ACKs
            // and NAKs go to the NIC's and the switches' highest-priority
            // queue, as CNPs do. Off by default: an ACK travels in the class
            // of the data it acknowledges.
            .AddAttribute("AckHighPriority",
                          "ACKs and NAKs use the CnpPriority class (strict priority on the "
                          "ports, StrictPriorityClasses) instead of the data's class",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_ackHighPriority),
                          MakeBooleanChecker())
            .AddAttribute("HeadersInTag",
                          "Carry BTH/RETH/ImmDt/AETH as 0 bytes, with the packet's fabric header fields "
                          "(the name is historical: no ns-3 tag), instead of payload bytes: for "
                          "links whose own header holds them (NVLink)",
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
            // Memory, not model: a pairwise AllToAll at 1024 GPUs holds a
            // million QPs, one busy per NIC at a time; the states of the
            // idle ones (about 0.6 KB each with DCQCN) were most of the
            // working set (benchmarks/README.md, 2026-12-03, speed-lazyqp).
            .AddAttribute("FoldSilentArrivals",
                          "Take the RoCE data packets whose arrival at this NIC's port only "
                          "counts (in sequence, neither first nor last of its message, no "
                          "AckReq, CE mark or INT, nothing watching the port) without an "
                          "event: each is applied at its arrival time before anything reads "
                          "what it changes; the same simulation either way, fewer events "
                          "(fabric.md, \"Silent arrivals at a NIC\"). Read when the NIC is "
                          "attached.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_foldSilent),
                          MakeBooleanChecker())
            .AddAttribute("LazyCongestionState",
                          "Fork a QP's congestion control and rate state at its first use "
                          "(a message posted, or a packet for it) instead of at CreateQp, and "
                          "drop them after its last message when the algorithm reports them "
                          "fresh (RdmaCongestionControl::IsFresh); the same simulation either "
                          "way. False: one state per QP for the QP's life",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_lazyCc),
                          MakeBooleanChecker())
            .AddAttribute("PauseIdleCongestionControl",
                          "Tell a QP's congestion control when the QP has nothing to send "
                          "and its state is not handed out (RdmaCongestionControl::Pause), "
                          "and again before the QP sends (Resume): DCQCN then replays the "
                          "ticks of the timers armed meanwhile when next asked instead of "
                          "running them as events; the same simulation but for the order of "
                          "same-picosecond ticks in two rare cases (fabric.md), fewer events "
                          "(fabric.md, \"Deferred DCQCN timers\")",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_pauseIdleCc),
                          MakeBooleanChecker())
            .AddAttribute("TxPacketPool",
                          "Data packets (of one data size each) the NIC keeps after sending "
                          "them, to rebuild in place once nothing else holds them (the "
                          "receiver has consumed them) instead of allocating a new ns-3 "
                          "Packet and Buffer for every data packet; 0: a new packet "
                          "each time. The same bytes either way (outputs identical), "
                          "only packet uids differ",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RdmaNic::m_txPoolLimit),
                          MakeUintegerChecker<uint32_t>(0, 4096))
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
    NS_LOG_FUNCTION(this);
}

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_port)
    {
        m_port->SetArrivalFolder(nullptr); // silent arrivals still kept are gone with the run
    }
    m_wake.Cancel();
    for (auto& qp : m_qps)
    {
        qp.rtoCheck.Cancel();
        if (qp.nak)
        {
            qp.nak->refresh.Cancel();
        }
        if (qp.cc)
        {
            qp.cc->Stop();
            qp.cc->Dispose();
        }
        qp.cc = nullptr;
        qp.rate = nullptr;
        qp.sq.clear();
    }
    m_qps.clear();
    for (auto& [rate, cc] : m_ccSpare)
    {
        cc->Stop();
        cc->Dispose();
    }
    m_ccSpare.clear();
    m_txPool.clear();
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
    NS_LOG_FUNCTION(this << mtu);
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
    UpdateSegment();
}

void
RdmaNic::SetTransferUnit(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    m_unit = bytes;
    UpdateSegment();
}

void
RdmaNic::SetAckInterval(uint32_t n)
{
    m_ackInterval = n;
    UpdateSegment();
}

void
RdmaNic::UpdateSegment()
{
    // Checked at Attach (the Mtu may be set after the unit).
    m_seg = m_unit ? m_unit : m_mtu;
    // An ACK request every AckInterval MTU packets: every ceil(interval x
    // Mtu / unit) units (64 packets of 4 KiB: every 4 units of 64 KiB).
    m_ackSegments = m_unit ? static_cast<uint32_t>(std::max<uint64_t>(
                                 1, (uint64_t(m_ackInterval) * m_mtu + m_unit - 1) / m_unit))
                           : m_ackInterval;
}

void
RdmaNic::SetRetransmitTimeout(Time t)
{
    NS_LOG_FUNCTION(this << t);
    if (!t.IsStrictlyPositive())
    {
        throw std::invalid_argument("RdmaNic::RetransmitTimeout: expected a time > 0");
    }
    m_rto = t;
}

void
RdmaNic::Attach(Ptr<FabricNetDevice> port)
{
    NS_LOG_FUNCTION(this << port);
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
    if (m_unit != 0)
    {
        const uint32_t n = m_unit / m_mtu;
        if (m_unit % m_mtu != 0 || n > 256)
        {
            throw std::invalid_argument("RdmaNic::TransferUnitBytes: expected 0 or a multiple of the Mtu " +
                                        std::to_string(m_mtu) + " up to 256 x Mtu, got " +
                                        std::to_string(m_unit));
        }
        const uint64_t size = UnitPacketBytes(m_unit, m_mtu, m_headersInTag);
        if (size > port->GetMaxPayloadBytes() || n > port->GetUnitLinkPackets())
        {
            throw std::invalid_argument("RdmaNic::TransferUnitBytes: expected a unit of at most the port's " +
                                        std::to_string(port->GetMaxPayloadBytes()) + " B in " +
                                        std::to_string(port->GetUnitLinkPackets()) +
                                        " link packets (FabricNetDevice::UnitLinkPackets), got " +
                                        std::to_string(size) + " B in " + std::to_string(n));
        }
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
    port->SetTxSourceClasses(m_workClasses);
    port->SetTxSource(MakeCallback(&RdmaNic::Pull, this));
    port->SetFabricReceiveCallback(MakeCallback(&RdmaNic::Receive, this));
    port->SetArrivalFolder(m_foldSilent ? this : nullptr);
}

uint32_t
RdmaNic::GetAddress() const
{
    return m_port ? m_port->GetFabricAddress() : kFabricNoAddress;
}

void
RdmaNic::SetCongestionControl(Ptr<RdmaCongestionControl> prototype)
{
    NS_LOG_FUNCTION(this << prototype);
    if (!prototype)
    {
        throw std::invalid_argument(
            "RdmaNic::SetCongestionControl prototype: expected a congestion control, got null");
    }
    // QPs made with the old prototype keep it (as they always did), started
    // now if they had not been, and never released: a later start would
    // fork the new one.
    for (RdmaQueuePair& qp : m_qps)
    {
        EnsureCc(qp);
        ResumeCc(qp);
        qp.ccPinned = true;
    }
    for (auto& [rate, cc] : m_ccSpare)
    {
        cc->Stop();
        cc->Dispose();
    }
    m_ccSpare.clear();
    m_ccProto = prototype;
    m_ccChecked = false;
}

uint32_t
RdmaNic::CreateQp(uint8_t priority)
{
    NS_LOG_FUNCTION(this << unsigned(priority));
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
    // this port's rate, and then no half-made QP is left behind. It starts
    // here for the NIC's first QP (of each prototype), which checks the
    // parameters against the port once, and for every QP of an algorithm
    // that cannot start later; the others start at their first use
    // (StartCc, LazyCongestionState).
    auto qpn = static_cast<uint32_t>(m_qps.size() + kFirstQpn);
    Ptr<RdmaRateState> rate;
    Ptr<RdmaCongestionControl> cc;
    if (!m_lazyCc || !m_ccChecked || !m_ccProto->StartsLazily())
    {
        rate = NewRateState(qpn);
        cc = m_ccProto->Fork();
        cc->FlowStart(rate);
        ++m_ccCounts.forked;
        ++m_ccCounts.started;
        m_ccChecked = true;
    }
    m_qps.emplace_back();
    RdmaQueuePair& qp = m_qps.back();
    qp.qpn = qpn;
    qp.priority = priority;
    // INT rides in the payload: with transport headers in a tag (NVLink) it
    // is not modelled. Every fork of a prototype answers as the prototype.
    qp.wantsInt = (cc ? cc : m_ccProto)->WantsInt() && !m_headersInTag;
    // INT feedback is per packet: HPCC's simulator ACKs every packet
    // (L2_ACK_INTERVAL 1), so a QP with INT does not coalesce, unless the
    // user set AckInterval (--ns3:: or a scenario's attributes), which wins.
    qp.ackEveryPacket = qp.wantsInt && !UserSetAttribute("ns3::RdmaNic::AckInterval");
    if (cc)
    {
        AttachCc(qp, rate, cc);
    }
    qp.classIndex = static_cast<uint32_t>(m_byClass[priority].size());
    m_byClass[priority].push_back(qp.qpn);
    m_active[priority].resize((m_byClass[priority].size() + 63) / 64, 0);
    return qp.qpn;
}

Ptr<RdmaRateState>
RdmaNic::NewRateState(uint32_t qpn) const
{
    Ptr<RdmaRateState> rate = CreateObject<RdmaRateState>();
    rate->qpNumber = qpn;
    rate->SetLineRate(m_lineRate);
    rate->mtuBytes = m_mtu;
    return rate;
}

void
RdmaNic::AttachCc(RdmaQueuePair& qp, Ptr<RdmaRateState> rate, Ptr<RdmaCongestionControl> cc)
{
    // One callback object per NIC, shared by its QPs (a copy shares it): the
    // rate state passes its qpNumber, so nothing is allocated per QP. Set
    // after FlowStart, as at creation: the start is not a rate change.
    if (m_rateChangedCb.IsNull())
    {
        m_rateChangedCb = MakeCallback(&RdmaNic::RateChanged, this);
        m_windowChangedCb = MakeCallback(&RdmaNic::WindowChanged, this);
    }
    rate->SetRateChangedCallback(m_rateChangedCb);
    rate->SetWindowChangedCallback(m_windowChangedCb);
    qp.rate = rate;
    qp.cc = cc;
    qp.ccWindow = rate->GetWindow();
    ++m_ccCounts.live;
}

void
RdmaNic::StartCc(RdmaQueuePair& qp)
{
    NS_LOG_FUNCTION(this << qp.qpn);
    // The algorithm said (StartsLazily) that starting now is starting at
    // CreateQp: nothing it did since would differ.
    Ptr<RdmaRateState> rate;
    Ptr<RdmaCongestionControl> cc;
    if (!m_ccSpare.empty())
    {
        // Fresh (IsFresh) when it was released: a new fork, to every input.
        std::tie(rate, cc) = std::move(m_ccSpare.back());
        m_ccSpare.pop_back();
        rate->qpNumber = qp.qpn;
    }
    else
    {
        rate = NewRateState(qp.qpn);
        cc = m_ccProto->Fork();
        ++m_ccCounts.forked;
    }
    cc->FlowStart(rate);
    ++m_ccCounts.started;
    AttachCc(qp, rate, cc);
}

void
RdmaNic::MaybeReleaseCc(RdmaQueuePair& qp)
{
    if (!qp.cc || qp.ccPinned || !qp.sq.empty())
    {
        return;
    }
    if (!m_lazyCc || !qp.cc->StartsLazily() || !qp.cc->IsFresh(*qp.rate))
    {
        if (m_pauseIdleCc && !qp.ccPaused)
        {
            qp.ccPaused = true;
            ++m_ccCounts.paused;
            qp.cc->Pause(qp.rate);
        }
        return;
    }
    NS_LOG_FUNCTION(this << qp.qpn);
    ResumeCc(qp); // a spare starts unpaused for the QP that takes it
    qp.rate->SetRateChangedCallback(Callback<void, uint32_t>());
    qp.rate->SetWindowChangedCallback(Callback<void, uint32_t>());
    // A few spares: enough for a NIC that moves from peer to peer, few
    // enough that they do not add up over a million QPs.
    constexpr size_t kSpares = 4;
    if (m_ccSpare.size() < kSpares)
    {
        m_ccSpare.emplace_back(std::move(qp.rate), std::move(qp.cc));
    }
    else
    {
        qp.cc->Stop();
        qp.cc->Dispose();
    }
    qp.rate = nullptr;
    qp.cc = nullptr;
    ++m_ccCounts.released;
    --m_ccCounts.live;
}

bool
RdmaNic::HasCcState(uint32_t qpn) const
{
    return GetQp(qpn, "HasCcState").cc != nullptr;
}

void
RdmaNic::ConnectQp(uint32_t qpn, uint32_t peerAddress, uint32_t peerQpn)
{
    NS_LOG_FUNCTION(this << qpn << peerAddress << peerQpn);
    RdmaQueuePair& qp = GetQp(qpn, "ConnectQp");
    qp.peerAddress = peerAddress;
    qp.peerQpn = peerQpn;
    qp.connected = true;
    UpdateActive(qp);
    // Work posted before the connection: the port learns of it as of any
    // other (SetTxSourceClasses).
    ScheduleWake(EligibleAt(qp));
}

std::pair<uint32_t, uint32_t>
RdmaNic::Connect(Ptr<RdmaNic> a, Ptr<RdmaNic> b, uint8_t priority)
{
    NS_LOG_FUNCTION(a << b << unsigned(priority));
    uint32_t qa = a->CreateQp(priority);
    uint32_t qb = b->CreateQp(priority);
    a->ConnectQp(qa, b->GetAddress(), qb);
    b->ConnectQp(qb, a->GetAddress(), qa);
    return {qa, qb};
}

bool
RdmaNic::HasQp(uint32_t qpn) const
{
    return qpn >= kFirstQpn && qpn - kFirstQpn < m_qps.size();
}

void
RdmaNic::CheckQpn(uint32_t qpn, const char* caller) const
{
    if (!HasQp(qpn))
    {
        throw std::invalid_argument(std::string("RdmaNic::") + caller + " qpn: expected a QP of this NIC (" +
                                    std::to_string(kFirstQpn) + "-" +
                                    std::to_string(kFirstQpn + m_qps.size() - 1) + "), got " +
                                    std::to_string(qpn));
    }
}

std::vector<uint32_t>
RdmaNic::GetQpns() const
{
    std::vector<uint32_t> qpns;
    for (const RdmaQueuePair& qp : m_qps)
    {
        qpns.push_back(qp.qpn);
    }
    return qpns;
}

RdmaQueuePair&
RdmaNic::GetQp(uint32_t qpn, const char* caller)
{
    CheckQpn(qpn, caller);
    return m_qps[qpn - kFirstQpn];
}

const RdmaQueuePair&
RdmaNic::GetQp(uint32_t qpn, const char* caller) const
{
    CheckQpn(qpn, caller);
    return m_qps[qpn - kFirstQpn];
}

Ptr<RdmaRateState>
RdmaNic::GetRateState(uint32_t qpn) const
{
    // Logically const: starting a QP's state early changes nothing it does.
    auto* self = const_cast<RdmaNic*>(this);
    self->SettleFolded(); // a silent arrival may start it (ApplyFolded): in order
    RdmaQueuePair& qp = self->GetQp(qpn, "GetRateState");
    self->EnsureCc(qp);
    self->ResumeCc(qp); // an observer reads it from now on: it runs as events
    qp.ccPinned = true;
    return qp.rate;
}

Ptr<RdmaCongestionControl>
RdmaNic::GetQpCongestionControl(uint32_t qpn) const
{
    auto* self = const_cast<RdmaNic*>(this);
    self->SettleFolded();
    RdmaQueuePair& qp = self->GetQp(qpn, "GetQpCongestionControl");
    self->EnsureCc(qp);
    self->ResumeCc(qp); // an observer reads it from now on: it runs as events
    qp.ccPinned = true;
    return qp.cc;
}

uint64_t
RdmaNic::GetOutstandingBytes(uint32_t qpn) const
{
    return GetQp(qpn, "GetOutstandingBytes").outstandingBytes;
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
    NS_LOG_FUNCTION(this << qpn << bytes << rdmaWrite << immediate << inlineData);
    SettleFolded(); // its congestion state may start (EnsureCc), as a silent arrival's may: in order
    RdmaQueuePair& qp = GetQp(qpn, "PostSend");
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
    RdmaMessage msg;
    msg.wrId = m_nextWrId++;
    msg.bytes = bytes;
    msg.write = rdmaWrite;
    msg.immediate = immediate;
    msg.posted = hotsim::Now();
    msg.inlineData = inlineData;
    msg.wqeDone = m_dma.FetchWqe(hotsim::Now());
    EnsureCc(qp);
    ResumeCc(qp); // before the new work: its replayed ticks found the QP idle
    const RdmaMessage& m = qp.Post(std::move(msg), m_seg);
    ++m_counters.messagesPosted;
    m_counters.bytesPosted += bytes;
    IssueReads(qp, hotsim::Now());
    UpdateActive(qp);
    NS_LOG_DEBUG("qp " << qpn << " post " << bytes << " B psn " << m.firstPsn << "+" << m.npkts);
    ScheduleWake(EligibleAt(qp));
    return m.wrId;
}

} // namespace ns3
