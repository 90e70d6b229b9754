// SPDX-License-Identifier: GPL-2.0-only
//
// RdmaNic's data path, per packet: the port pulls a packet (round robin
// over the QPs with work, rate limiter, payload read ahead over PCIe),
// the retransmission timer, and the dispatch of received packets to the QP's
// responder (data) or requester (ACK, NAK, CNP). Setup, attributes and the
// verbs calls are in rdma-nic.cc: one class in two files, so that each stays
// readable.
#include "fabric-log.h"
#include "fast-simulator-impl.h"
#include "fabric-net-device.h"
#include "int-header.h"
#include "rdma-nic.h"
#include "rdma-transport.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <optional>

namespace ns3
{

// The log component of rdma-nic.cc: NS_LOG=HockneyRdmaNic covers both files.
LogComponent& RdmaNicLogComponent();

namespace
{
LogComponent& g_log = RdmaNicLogComponent();
} // namespace

void
RdmaNic::IssueReadsOf(uint32_t qpn)
{
    NS_LOG_FUNCTION(this << qpn);
    RdmaQueuePair& qp = GetQp(qpn);
    IssueReads(qp, hotsim::Now());
    ScheduleWake(EligibleAt(qp));
}

void
RdmaNic::IssueReads(RdmaQueuePair& qp, Time now)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn);
    // Payload reads run ahead of transmission by up to DmaPrefetch packets
    // per QP; requests of all QPs share the PCIe link in issue order, each
    // data return a round trip after its request.
    while (qp.readPsn < qp.nextPsn && qp.readPsn - qp.highSent < m_prefetch)
    {
        const RdmaMessage* m = qp.FindMessage(qp.readPsn);
        if (m->wqeDone > now)
        {
            // Issued when the WQE has been read, in time order with the
            // other QPs' requests.
            hotsim::Schedule(m->wqeDone - now, &RdmaNic::IssueReadsOf, this, qp.qpn);
            return;
        }
        qp.readReady.push_back(
            m_dma.Read(now, RdmaQueuePair::PacketPayload(*m, qp.readPsn, m_seg)));
        ++qp.readPsn;
    }
}

void
RdmaNic::UpdateActive(const RdmaQueuePair& qp)
{
    uint64_t& word = m_active[qp.priority][qp.classIndex / 64];
    const uint64_t bit = uint64_t(1) << (qp.classIndex % 64);
    const bool had = (word & bit) != 0;
    const bool has = HasWork(qp);
    if (had == has)
    {
        return;
    }
    word = has ? (word | bit) : (word & ~bit);
    uint32_t& n = m_workQps[qp.priority];
    n += has ? 1 : -1;
    const uint8_t classes = n ? uint8_t(m_workClasses | (1u << qp.priority))
                              : uint8_t(m_workClasses & ~(1u << qp.priority));
    if (classes != m_workClasses)
    {
        m_workClasses = classes;
        if (m_port)
        {
            m_port->SetTxSourceClasses(classes);
        }
    }
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
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(cls) << maxBytes);
    auto& list = m_byClass[cls];
    const uint32_t n = list.size();
    if (n == 0)
    {
        return nullptr;
    }
    Time now = hotsim::Now();
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
            RdmaQueuePair& qp = m_qps[list[idx] - kFirstQpn];
            Time t = EligibleAt(qp);
            if (t > now)
            {
                earliest = std::min(earliest, t);
                continue;
            }
            const RdmaMessage* m = nullptr;
            Ptr<Packet> p = BuildDataPacket(qp, qp.sndNxt, &m);
            // maxBytes allows one link header: a unit needs one per link packet.
            const uint64_t extraHeaders =
                m_unit ? uint64_t(LinkPackets(RdmaQueuePair::PacketPayload(*m, qp.sndNxt - 1, m_seg)) - 1) *
                             m_port->GetHeaderBytes()
                       : 0;
            if (p->GetSize() + extraHeaders > maxBytes)
            {
                // The flow control's budget is smaller than the packet: undo
                // and wait for the port to offer more (credit return).
                --qp.sndNxt;
                continue;
            }
            m_rrNext[cls] = (idx + 1) % n;
            CommitTransmission(qp, *m, p, now);
            m_port->SetPulledHeader(m_builtHeader);
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
RdmaNic::CommitTransmission(RdmaQueuePair& qp, const RdmaMessage& m, Ptr<Packet> p, Time now)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn << p << now);
    // Counters, rate limiter, CC, timer.
    uint32_t payload = RdmaQueuePair::PacketPayload(m, qp.sndNxt - 1, m_seg);
    FabricHeaderFields units;
    units.SetLinkPackets(LinkPackets(payload));
    uint32_t wire = m_port->WireBytes(p->GetSize(), units);
    ++m_counters.dataPacketsSent;
    if (qp.sndNxt - 1 >= qp.highSent)
    {
        m_counters.bytesSent += payload;
        qp.highSent = qp.sndNxt;
        qp.readReady.pop_front();
        IssueReads(qp, now);
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
    if (AckRequested(qp, m, qp.sndNxt - 1))
    {
        qp.ackReqHigh = std::max(qp.ackReqHigh, qp.sndNxt);
        ArmRto(qp);
        qp.RecordAckRequest(qp.sndNxt - 1, now);
    }
    UpdateActive(qp);
}

Ptr<Packet>
RdmaNic::BuildDataPacket(RdmaQueuePair& qp, uint64_t psn, const RdmaMessage** msg)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn << psn);
    const RdmaMessage* m = qp.FindMessage(psn);
    NS_ASSERT(m);
    *msg = m;
    uint64_t k = psn - m->firstPsn;
    bool first = k == 0;
    bool last = k + 1 == m->npkts;
    uint32_t len = RdmaQueuePair::PacketPayload(*m, psn, m_seg);
    // A transfer unit carries the BTH of each of its link packets after the
    // first as padding: its size is theirs, so are its wire bytes.
    const uint32_t links = LinkPackets(len);
    const uint32_t size = len + (links - 1) * LinkPacketTransportBytes();
    const bool inlinePayload = m->inlineData && m->npkts == 1;
    // Empty messages (AddDataTransport may replace the packet) and inline
    // data are not pooled.
    const bool pool = !inlinePayload && size > 0 && m_txPoolLimit > 0;
    Ptr<Packet> p = inlinePayload ? m->inlineData->Copy()
                    : pool        ? TakeTxPacket(size)
                                  : Create<Packet>(size);
    BthFields bh;
    bh.opcode = rdmaop::DataOpcode(m->write, first, last);
    bh.destQp = qp.peerQpn & 0xFFFFFF;
    bh.psn = static_cast<uint32_t>(psn & 0xFFFFFF);
    bh.ackReq = AckRequested(qp, *m, psn);
    FabricHeaderFields fh(GetAddress(),
                          qp.peerAddress,
                          // The flow (ECMP hash, RoCEv2 UDP source port) counts
                          // the NIC's QPs from 1, whatever the QPN base.
                          (GetAddress() << 12) ^ (qp.qpn - kFirstQpn + 1),
                          qp.priority,
                          m_ecnCapable ? FabricHeader::ECT0 : FabricHeader::NOT_ECT);
    fh.SetIntRequested(qp.wantsInt);
    if (links > 1)
    {
        fh.SetLinkPackets(links);
    }
    AddDataTransport(p, bh, *m, first, last, m_headersInTag, fh);
    m_builtHeader = fh;
    if (pool && m_txPool.size() < m_txPoolLimit)
    {
        m_txPool.emplace_back(p, size);
    }
    ++qp.sndNxt;
    return p;
}

Ptr<Packet>
RdmaNic::TakeTxPacket(uint32_t size)
{
    // A pooled packet nobody else holds has left every queue, channel and
    // receiver: it is rebuilt in place (headers stripped here, written again
    // by AddDataTransport) instead of a new Packet and Buffer.
    // Whatever was added before its payload on the way (an MPI crossing
    // header) goes with the headers; its payload is never written (a zero
    // area), so the bytes are those of a new packet of the same size.
    while (!m_txPool.empty() && m_txPool.front().first->GetReferenceCount() == 1)
    {
        Ptr<Packet> q = std::move(m_txPool.front().first);
        const uint32_t qsize = m_txPool.front().second;
        m_txPool.pop_front();
        if (qsize == size && q->GetSize() >= size)
        {
            q->RemoveAtStart(q->GetSize() - size);
            return q;
        }
        // Free but of another size (a message's last packet): dropped.
    }
    return Create<Packet>(size);
}

void
RdmaNic::ScheduleWake(Time at)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << at);
    if (at == Time::Max())
    {
        return;
    }
    Time now = hotsim::Now();
    at = std::max(at, now);
    if (m_wake.IsRunning() && Time(m_wake.GetTs()) <= at)
    {
        return;
    }
    // Removed rather than cancelled: a cancelled wake-up would stay in the
    // event queue until its time (same order of the events that run).
    Simulator::Remove(m_wake);
    m_wake = hotsim::Schedule(at - now, &RdmaNic::Wake, this);
}

void
RdmaNic::Wake()
{
    HOCKNEY_HOT_LOG_FUNCTION(this);
    if (m_port)
    {
        m_port->NotifyTxReady();
    }
}

void
RdmaNic::RateChanged(uint32_t qpn)
{
    NS_LOG_FUNCTION(this << qpn);
    RdmaQueuePair& qp = GetQp(qpn);
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
    NS_LOG_FUNCTION(this << qpn);
    RdmaQueuePair& qp = GetQp(qpn);
    qp.ccWindow = qp.rate->GetWindow();
    // A window shrunk to the bytes in flight reopens only with an ACK. With
    // coalesced ACKs none of the packets in flight may have asked for one
    // (the packet that fills a window asks, but the window was larger when
    // they left): then only the transport timer can end the wait, so arm it;
    // at its expiry the QP resends from the oldest unacknowledged packet, and
    // the resent packet that fills the window asks for an ACK.
    if (qp.sndNxt > qp.sndUna && qp.ackReqHigh < qp.sndNxt && !HasWork(qp))
    {
        ArmRto(qp);
    }
    UpdateActive(qp);
    ScheduleWake(EligibleAt(qp));
}

void
RdmaNic::ArmRto(RdmaQueuePair& qp)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn);
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
RdmaNic::RestartRto(RdmaQueuePair& qp)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn);
    qp.rtoDeadline = hotsim::Now() + m_rto;
    if (!qp.rtoCheck.IsRunning())
    {
        qp.rtoCheck = hotsim::Schedule(m_rto, &RdmaNic::RtoCheck, this, qp.qpn);
    }
}

void
RdmaNic::RtoCheck(uint32_t qpn)
{
    NS_LOG_FUNCTION(this << qpn);
    RdmaQueuePair& qp = m_qps[qpn - kFirstQpn];
    if (qp.rtoDeadline == Time::Max())
    {
        return;
    }
    Time now = hotsim::Now();
    if (now < qp.rtoDeadline)
    {
        qp.rtoCheck = hotsim::Schedule(qp.rtoDeadline - now, &RdmaNic::RtoCheck, this, qpn);
        return;
    }
    qp.rtoDeadline = Time::Max();
    RtoExpired(qp);
}

void
RdmaNic::RtoExpired(RdmaQueuePair& qp)
{
    NS_LOG_FUNCTION(this << qp.qpn);
    if (qp.sndUna >= qp.sndNxt && qp.sndUna >= qp.highSent)
    {
        return;
    }
    ++m_counters.timeouts;
    NS_LOG_DEBUG("qp " << qp.qpn << " timeout, go back to " << qp.sndUna);
    m_retransmitTrace(qp.qpn, qp.sndUna);
    qp.sndNxt = qp.sndUna;
    qp.nextTx = hotsim::Now();
    UpdateActive(qp);
    ScheduleWake(EligibleAt(qp));
}

void
RdmaNic::SendAck(RdmaQueuePair& qp, const FabricHeader& fh, uint64_t psn, bool nak)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn << psn << nak);
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
    SendControl(fh.GetSource(), qp.peerQpn, m_ackHighPriority ? m_cnpPriority : fh.GetPriority(),
                fh.GetFlowId(), bth::kAcknowledge, psn, nak, qp.ceSinceAck);
    qp.ceSinceAck = false;
}

void
RdmaNic::SendNak(RdmaQueuePair& qp, const FabricHeader& fh)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn);
    SendAck(qp, fh, qp.ePsn, true);
    if (!qp.nak)
    {
        qp.nak = std::make_unique<RdmaNakState>();
    }
    qp.nak->at = hotsim::Now();
    qp.nak->header = fh;
    if (m_nakInterval.IsStrictlyPositive() && !qp.nak->refresh.IsRunning())
    {
        qp.nak->refresh = hotsim::Schedule(m_nakInterval, &RdmaNic::NakRefresh, this, qp.qpn);
    }
}

void
RdmaNic::NakRefresh(uint32_t qpn)
{
    NS_LOG_FUNCTION(this << qpn);
    SettleFolded();
    RdmaQueuePair& qp = m_qps[qpn - kFirstQpn];
    if (!qp.nakSent)
    {
        return; // the gap closed
    }
    // A later gap may have been NAKed since this check was scheduled: its
    // interval runs from its own NAK.
    const Time due = qp.nak->at + m_nakInterval;
    const Time now = hotsim::Now();
    if (now < due)
    {
        qp.nak->refresh = hotsim::Schedule(due - now, &RdmaNic::NakRefresh, this, qpn);
        return;
    }
    ++m_counters.nakRefreshes;
    NS_LOG_DEBUG("qp " << qpn << " gap at " << qp.ePsn << " still open: NAK again");
    const FabricHeader header = qp.nak->header; // SendNak writes it again
    SendNak(qp, header);
}

void
RdmaNic::SendControl(uint32_t dst, uint32_t dstQpn, uint8_t priority, uint32_t flow,
                     uint8_t opcode, uint64_t psn, bool nak, bool ecnEcho)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << dst << dstQpn << unsigned(opcode) << psn);
    BthHeader bh;
    bh.opcode = opcode;
    bh.destQp = dstQpn & 0xFFFFFF;
    bh.psn = static_cast<uint32_t>(psn & 0xFFFFFF);
    bh.becn = opcode == bth::kCnp || ecnEcho;
    const uint8_t syndrome = nak ? AethHeader::kNakPsnError : AethHeader::kAck;
    FabricHeader fh(GetAddress(), dst, flow, priority, FabricHeader::NOT_ECT);
    fh.SetTransportControl(true);
    const bool echoInt = !m_rxInt.empty() && opcode == bth::kAcknowledge;
    Ptr<Packet> p;
    if (!m_headersInTag && !echoInt)
    {
        // One Header for the FabricHeader, BTH and AETH, as data packets
        // (RdmaRoceHeaders): the same bytes.
        p = MakeRoceControlPacket(bh, syndrome, fh);
    }
    else
    {
        // With HeadersInTag the transport fields go into fh (the port
        // queues them with the packet: SendFabricWritten).
        p = MakeControlPacket(bh, syndrome, m_headersInTag, &fh);
        if (echoInt)
        {
            // HPCC: the ACK carries the INT of the data packet it answers.
            IntHeader::Echo(p, fh, m_rxInt);
        }
        p->AddHeader(fh);
    }
    HOCKNEY_HOT_LOG_LOGIC("to " << dst << " qp " << dstQpn << " opcode " << unsigned(opcode) << " psn "
                       << psn << (nak ? " NAK" : ""));
    // The fields just written are handed over with the packet (no read back).
    if (!m_port->SendFabricWritten(p, fh))
    {
        // Counted: a lost CNP leaves a sender at its rate, a lost ACK costs a
        // timeout; runs must be able to see either.
        ++m_counters.controlDropped;
        NS_LOG_WARN("control packet dropped at the local port");
    }
}

void
RdmaNic::Receive(Ptr<FabricNetDevice> dev, Ptr<Packet> packet, const FabricHeader& header)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << dev << packet);
    // Packets with link transport fields (NVLink: they travel with the
    // FabricHeader's fields, FabricLinkTransport) are read in place, and so
    // are the transport headers of a RoCE packet without INT (one
    // PeekHeader of the headers the sender wrote as one, RdmaRoceHeaders).
    // A packet with INT telemetry, and the one packet of a one-packet
    // message (its payload is the completion's inline data), is copied
    // once to strip them.
    BthFields bh;
    const FabricLinkTransport* tag = header.HasLinkTransport() ? &header.GetLinkTransport() : nullptr;
    std::optional<RdmaRoceHeaders> roce; // built only for RoCE packets
    Ptr<Packet> p;
    const bool tagged = tag != nullptr;
    bool peeked = false;
    if (tagged)
    {
        bh = BthOf(*tag);
        p = packet;
    }
    else if (header.GetIntHops() == 0)
    {
        packet->PeekHeader(roce.emplace());
        const uint8_t op = roce->bth.opcode;
        peeked = !(rdmaop::IsData(op) && rdmaop::IsFirst(op) && rdmaop::IsLast(op));
        if (peeked)
        {
            bh = roce->bth;
            p = packet;
        }
    }
    if (!tagged && !peeked)
    {
        p = packet->Copy();
        FabricHeader fh;
        p->RemoveHeader(fh);
        if (fh.GetIntHops() > 0)
        {
            IntHeader::Take(p, m_rxInt);
        }
        BthHeader h;
        p->RemoveHeader(h);
        bh = h;
    }
    uint32_t qpn = bh.destQp;
    if (!HasQp(qpn))
    {
        ++m_counters.unknownQpDropped;
        m_rxInt.clear();
        NS_LOG_WARN("packet for unknown QP " << qpn << " dropped");
        return;
    }
    RdmaQueuePair& qp = m_qps[qpn - kFirstQpn]; // HasQp above
    if (bh.opcode == bth::kCnp)
    {
        ++m_counters.cnpsReceived;
        m_cnpRxTrace(qpn);
        EnsureCc(qp); // a late CNP for a QP that released a fresh state
        qp.cc->CnpReceived(qp.rate);
        return;
    }
    if (bh.opcode == bth::kAcknowledge)
    {
        AethHeader a;
        if (tagged)
        {
            a.syndrome = tag->syndrome;
        }
        else if (peeked)
        {
            a.syndrome = roce->syndrome;
        }
        else
        {
            p->RemoveHeader(a);
        }
        ReceiveAck(qp, bh, a);
        return;
    }
    if (rdmaop::IsData(bh.opcode))
    {
        ReceiveData(qp, header, bh, p, tag, peeked ? &*roce : nullptr);
        m_rxInt.clear();
    }
}

void
RdmaNic::ReceiveData(RdmaQueuePair& qp, const FabricHeader& fh, const BthFields& bh, Ptr<Packet> p,
                     const FabricLinkTransport* tag, const RdmaRoceHeaders* roce)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn << p);
    // Notification point: the CE mark counts whether or not the packet is
    // in sequence.
    const bool ce = fh.GetEcn() == FabricHeader::CE;
    qp.ceSinceAck = qp.ceSinceAck || ce;
    EnsureCc(qp);
    if (qp.cc->DataReceived(qp.rate, ce))
    {
        ++m_counters.cnpsSent;
        m_cnpTxTrace(qp.qpn);
        SendControl(fh.GetSource(), qp.peerQpn, m_cnpPriority, fh.GetFlowId(), bth::kCnp, 0,
                    false);
    }
    uint64_t psn = 0;
    const RdmaQueuePair::RxOrder order = qp.Order(bh.psn, &psn);
    if (order == RdmaQueuePair::RxOrder::kAhead)
    {
        ++m_counters.outOfOrderDropped;
        if (!qp.nakSent)
        {
            qp.nakSent = true;
            SendNak(qp, fh);
        }
        return;
    }
    if (order == RdmaQueuePair::RxOrder::kDuplicate)
    {
        // Duplicate of a packet already accepted (its ACK was lost or a
        // go-back-N resent it): acknowledge again so the requester moves on.
        if (bh.ackReq)
        {
            SendAck(qp, fh, qp.ePsn - 1, false);
        }
        return;
    }
    if (qp.nakSent && qp.nak->refresh.IsRunning())
    {
        // The gap closes with this packet: its pending NakInterval check
        // would find nothing to do. Removed, not cancelled: a cancelled event
        // stays queued until its time and counts as executed.
        Simulator::Remove(qp.nak->refresh);
    }
    uint32_t imm = roce ? roce->immediate : 0;
    // Read in place (roce): p still holds the headers, which count no
    // payload; never a one-packet message (Receive), whose p is inline data.
    // A transfer unit's size holds the BTH of each link packet after its first.
    const uint32_t len =
        (roce ? p->GetSize() - roce->GetSerializedSize() : TakeDataPayload(p, bh.opcode, tag, &imm)) -
        (fh.GetLinkPackets() - 1) * LinkPacketTransportBytes();
    const Time writeDone = AcceptPayload(qp, rdmaop::IsFirst(bh.opcode), len, hotsim::Now());
    if (rdmaop::IsLast(bh.opcode))
    {
        RdmaCompletion c;
        c.qpn = qp.qpn;
        c.bytes = qp.rxMsgBytes;
        c.immediate = imm;
        if (rdmaop::IsFirst(bh.opcode))
        {
            c.inlineData = p;
        }
        ++m_counters.messagesReceived;
        Time at = writeDone + m_dma.GetPcieLatency(); // data and CQE visible to the host
        hotsim::Schedule(at - hotsim::Now(), [this, c]() {
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
    if (rdmaop::IsLast(bh.opcode))
    {
        MaybeReleaseCc(qp); // a responder between messages
    }
}

const RdmaNicCounters&
RdmaNic::GetCounters() const
{
    SettleFolded();
    return m_counters;
}

bool
RdmaNic::JudgeArrival(const Ptr<Packet>& packet, const FabricHeaderFields& header, bool eligible, uint32_t* qpIndex,
                      uint32_t* len, uint64_t* psnOut)
{
    if (m_foldBroken)
    {
        return false;
    }
    // The BTH as Receive reads it: from the link transport fields (never
    // folded), or the RoCE headers in place.
    BthFields bh;
    uint32_t headers = 0;
    if (header.HasLinkTransport())
    {
        bh = BthOf(header.GetLinkTransport());
        eligible = false;
    }
    else if (header.GetIntHops() > 0)
    {
        // INT sits between the FabricHeader and the BTH: not read here. Its
        // QP's account would be lost: none is folded from now on.
        m_foldBroken = true;
        return false;
    }
    else
    {
        // The FabricHeader and the BTH copied out (cheaper than a Header's
        // PeekHeader); a silent packet carries nothing else before its payload.
        uint8_t raw[FabricHeader::kSerializedSize + BthFields::kSize];
        if (packet->CopyData(raw, sizeof(raw)) != sizeof(raw))
        {
            return false; // no BTH: Receive finds no QP state to change
        }
        bh.ReadBytes(raw + FabricHeader::kSerializedSize);
        headers = sizeof(raw);
    }
    if (!rdmaop::IsData(bh.opcode) || !HasQp(bh.destQp))
    {
        return false; // the responder's state is not changed by it (ReceiveAck, CNP, unknown QP)
    }
    RdmaQueuePair& qp = m_qps[bh.destQp - kFirstQpn];
    // ReceiveData's order as of its arrival: every packet before it on the
    // link arrives before it and none is lost (a link down or an error
    // model ends folding: FabricNetDevice::StopFolding).
    uint64_t psn = 0;
    const RdmaQueuePair::RxOrder order = RdmaQueuePair::OrderAt(qp.foldEpsn, bh.psn, &psn);
    const bool expected = order == RdmaQueuePair::RxOrder::kExpected;
    const bool nakOpen = qp.foldNak;
    if (expected)
    {
        ++qp.foldEpsn; // Accept
        qp.foldNak = false;
    }
    else if (order == RdmaQueuePair::RxOrder::kAhead)
    {
        qp.foldNak = true; // a gap: NAKed if not yet
    }
    // Silent: ReceiveData without a CE mark (no CNP, no ECN echo to keep;
    // RdmaCongestionControl::DataReceived does nothing for an unmarked
    // packet), in sequence with no NAK to close (no refresh to remove), not
    // the last of its message (completion, ImmDt, release of the congestion
    // state), no ACK asked. The first packet of a longer message is silent
    // too: it only starts the message's byte count (Accept; its RETH is
    // not read).
    if (!eligible || !m_foldSilent || !expected || nakOpen || rdmaop::IsLast(bh.opcode) || bh.ackReq ||
        header.GetEcn() == FabricHeader::CE)
    {
        return false;
    }
    // The RoCE headers before the payload: FabricHeader and BTH, and the
    // RETH of a WRITE's first packet (RdmaRoceHeaders::GetSerializedSize;
    // no ImmDt: not the last).
    headers += rdmaop::HasReth(bh.opcode) ? RethHeader::kSize : 0;
    *qpIndex = bh.destQp - kFirstQpn;
    *len = packet->GetSize() - headers - (header.GetLinkPackets() - 1) * LinkPacketTransportBytes();
    *psnOut = psn << 1 | (rdmaop::IsFirst(bh.opcode) ? 1 : 0);
    return true;
}

void
RdmaNic::ApplyFolded(uint32_t qpIndex, uint32_t len, uint64_t packed, Time at)
{
    // ReceiveData of a silent packet, at its arrival time `at`.
    RdmaQueuePair& qp = m_qps[qpIndex];
    // `packed`: the PSN, and in its lowest bit whether the packet is its
    // message's first (JudgeArrival).
    const bool first = (packed & 1) != 0;
    const uint64_t psn = packed >> 1;
    // A state released since the packet left (its QP's sends completed)
    // starts again, as at the arrival: a lazily started state's start
    // does not depend on when (RdmaCongestionControl::StartsLazily).
    EnsureCc(qp);
    if (qp.ePsn != psn || qp.nakSent)
    {
        NS_FATAL_ERROR("RdmaNic: silent arrival of QP " << qp.qpn << " PSN " << psn << " found PSN " << qp.ePsn
                                                        << (qp.nakSent ? " with a NAK open" : ""));
    }
    AcceptPayload(qp, first, len, at);
}

void
RdmaNic::ReceiveAck(RdmaQueuePair& qp, const BthFields& bh, const AethHeader& a)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn);
    RdmaAckSample sample;
    sample.ecnEcho = bh.becn;
    sample.intHops.swap(m_rxInt);
    const RdmaQueuePair::AckOutcome r =
        qp.Acknowledge(bh.psn, a.IsNak(), hotsim::Now(), m_seg, sample);
    HOCKNEY_HOT_LOG_LOGIC("qp " << qp.qpn << (a.IsNak() ? " NAK " : " ACK ") << r.psn << " una "
                                << qp.sndUna << " high " << qp.highSent
                                << (r.stale ? " stale" : ""));
    if (r.stale)
    {
        return;
    }
    if (a.IsNak())
    {
        ++m_counters.naksReceived;
        if (r.goBack)
        {
            NS_LOG_DEBUG("qp " << qp.qpn << " NAK, go back to " << r.psn);
            m_retransmitTrace(qp.qpn, r.psn);
        }
    }
    CompleteSends(qp);
    if (r.progress || a.IsNak())
    {
        qp.rtoDeadline = Time::Max();
        if (qp.sndUna < qp.ackReqHigh)
        {
            RestartRto(qp);
        }
    }
    sample.outstandingBytes = qp.postedBytes - qp.ByteOffset(qp.sndUna, m_seg);
    EnsureCc(qp); // an ACK after the last message's (a duplicate) finds none
    qp.cc->AckReceived(qp.rate, sample);
    UpdateActive(qp);
    ScheduleWake(EligibleAt(qp));
    MaybeReleaseCc(qp); // the QP's last message completed
}

void
RdmaNic::CompleteSends(RdmaQueuePair& qp)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << qp.qpn);
    while (!qp.sq.empty() && qp.sq.front().firstPsn + qp.sq.front().npkts <= qp.sndUna)
    {
        const RdmaMessage& m = qp.sq.front();
        RdmaCompletion c;
        c.qpn = qp.qpn;
        c.wrId = m.wrId;
        c.bytes = m.bytes;
        c.immediate = m.immediate;
        c.posted = m.posted;
        qp.outstandingBytes -= m.bytes;
        ++m_counters.messagesCompleted;
        qp.sq.pop_front();
        hotsim::Schedule(m_dma.GetPcieLatency(), [this, c]() {
            m_sendDoneTrace(c);
            if (!m_sendDone.IsNull())
            {
                m_sendDone(c);
            }
        });
    }
    qp.ReleaseIdleStorage();
}

} // namespace ns3
