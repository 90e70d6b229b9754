// SPDX-License-Identifier: GPL-2.0-only
//
// RdmaEndpoint: messages over queue pairs (eager, rendezvous, pipelined).
// RdmaMessenger, which connects the endpoints of a fabric, is in
// rdma-messenger.cc.
#include "rdma-endpoint.h"
#include "fast-simulator-impl.h"

#include "ns3/header.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyRdmaEndpoint");
NS_OBJECT_ENSURE_REGISTERED(RdmaEndpoint);

namespace
{
// Kinds in the top two bits of the immediate data.
constexpr uint8_t kImmEager = 0;
constexpr uint8_t kImmWrite = 1;
constexpr uint8_t kImmChunk = 2;
constexpr uint8_t kImmControl = 3;
constexpr uint32_t kIdMask = RdmaEndpoint::kMaxMessageId;

uint32_t
MakeImm(uint8_t kind, uint64_t id)
{
    return (static_cast<uint32_t>(kind) << 30) | static_cast<uint32_t>(id & kIdMask);
}

constexpr uint8_t kRts = 1;
constexpr uint8_t kCts = 2;

/// Body of a rendezvous control message: kind, message id, message bytes.
class RdmaControlHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RdmaControlHeader")
                                .SetParent<Header>()
                                .SetGroupName("Fabric")
                                .AddConstructor<RdmaControlHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override { return GetTypeId(); }

    uint32_t GetSerializedSize() const override { return kSize; }

    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteU8(kind);
        i.WriteHtonU64(id);
        i.WriteHtonU64(bytes);
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        kind = i.ReadU8();
        id = i.ReadNtohU64();
        bytes = i.ReadNtohU64();
        return kSize;
    }

    void Print(std::ostream& os) const override
    {
        os << (kind == kRts ? "RTS" : "CTS") << " id=" << id << " bytes=" << bytes;
    }

    static constexpr uint32_t kSize = 17;
    uint8_t kind{0};
    uint64_t id{0};
    uint64_t bytes{0};
};

} // namespace

std::string
ToString(RdmaProtocol p)
{
    switch (p)
    {
    case RdmaProtocol::EAGER:
        return "eager";
    case RdmaProtocol::RENDEZVOUS:
        return "rendezvous";
    case RdmaProtocol::PIPELINE:
        return "pipeline";
    }
    return "?";
}

TypeId
RdmaEndpoint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaEndpoint")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<RdmaEndpoint>()
            // Typical thresholds (contrib/analytic/doc/analytic.md, Rules of thumb):
            // eager below n1 ~ 8 KB, rendezvous to n2 ~ 512 KB, pipeline above.
            .AddAttribute("EagerLimit",
                          "n1: messages below it go eager",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&RdmaEndpoint::SetEagerLimit,
                                               &RdmaEndpoint::GetEagerLimit),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RendezvousLimit",
                          "n2: messages from it up are pipelined",
                          UintegerValue(524288),
                          MakeUintegerAccessor(&RdmaEndpoint::SetRendezvousLimit,
                                               &RdmaEndpoint::GetRendezvousLimit),
                          MakeUintegerChecker<uint64_t>())
            // NCCL's Simple protocol: a 4 MiB buffer in NCCL_STEPS = 8 slots.
            .AddAttribute("ChunkBytes",
                          "Pipeline chunk size",
                          UintegerValue(524288),
                          MakeUintegerAccessor(&RdmaEndpoint::SetChunkBytes,
                                               &RdmaEndpoint::GetChunkBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PipelineDepth",
                          "Pipeline chunks in flight (NCCL_STEPS = 8)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RdmaEndpoint::SetPipelineDepth,
                                               &RdmaEndpoint::GetPipelineDepth),
                          MakeUintegerChecker<uint32_t>())
            // NCCL_NET_OVERHEAD: 1.0 us per network step on Intel x86 (NCCL
            // src/graph/tuning.cc; doc/fabric.md, Sources), split evenly between the
            // sending and the receiving side (the split is an assumption).
            .AddAttribute("SendOverhead",
                          "o at the sender: CPU busy time to post one message",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&RdmaEndpoint::SetSendOverhead,
                                           &RdmaEndpoint::GetSendOverhead),
                          MakeTimeChecker())
            .AddAttribute("ReceiveOverhead",
                          "o at the receiver: CPU busy time to take one completion",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&RdmaEndpoint::SetReceiveOverhead,
                                           &RdmaEndpoint::GetReceiveOverhead),
                          MakeTimeChecker())
            // Typical alpha_pipeline ~ 1 us (analytic.md, Rules of thumb).
            .AddAttribute("PipelineSetup",
                          "CPU busy time to set up a pipelined transfer",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RdmaEndpoint::SetPipelineSetup,
                                           &RdmaEndpoint::GetPipelineSetup),
                          MakeTimeChecker())
            .AddAttribute("ControlBytes",
                          "Payload bytes of an RTS or CTS (assumption: one 64-byte cache line)",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RdmaEndpoint::m_controlBytes),
                          MakeUintegerChecker<uint32_t>(RdmaControlHeader::kSize))
            .AddAttribute("Priority",
                          "Traffic class of this rank's QPs",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RdmaEndpoint::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddTraceSource("Delivered",
                            "A message was delivered at this rank",
                            MakeTraceSourceAccessor(&RdmaEndpoint::m_deliverTrace),
                            "ns3::RdmaEndpoint::MessageCallback")
            .AddTraceSource("Sent",
                            "A message from this rank was fully acknowledged",
                            MakeTraceSourceAccessor(&RdmaEndpoint::m_sentTrace),
                            "ns3::RdmaEndpoint::MessageCallback");
    return tid;
}

RdmaEndpoint::RdmaEndpoint() = default;
RdmaEndpoint::~RdmaEndpoint() = default;

void
RdmaEndpoint::DoDispose()
{
    for (auto& n : m_nics)
    {
        n.nic->SetSendCompletionCallback(RdmaNic::CompletionCallback());
        n.nic->SetReceiveCompletionCallback(RdmaNic::CompletionCallback());
    }
    m_nics.clear();
    m_sends.clear();
    m_messenger = nullptr;
    m_deliverCb = MessageCallback();
    Object::DoDispose();
}

void
RdmaEndpoint::DoInitialize()
{
    CheckThresholds();
    Object::DoInitialize();
}

void
RdmaEndpoint::SetEagerLimit(uint64_t v)
{
    m_n1 = v;
}

void
RdmaEndpoint::SetRendezvousLimit(uint64_t v)
{
    m_n2 = v;
}

void
RdmaEndpoint::SetChunkBytes(uint64_t v)
{
    if (v == 0)
    {
        throw std::invalid_argument("RdmaEndpoint::ChunkBytes: expected > 0 bytes, got 0");
    }
    m_chunk = v;
}

void
RdmaEndpoint::SetPipelineDepth(uint32_t v)
{
    if (v == 0)
    {
        throw std::invalid_argument("RdmaEndpoint::PipelineDepth: expected >= 1, got 0");
    }
    m_depth = v;
}

void
RdmaEndpoint::SetOverhead(Time& field, const char* name, Time t)
{
    if (t.IsStrictlyNegative())
    {
        throw std::invalid_argument(std::string("RdmaEndpoint::") + name +
                                    ": expected a time >= 0, got " +
                                    std::to_string(t.GetSeconds()) + " s");
    }
    field = t;
}

void
RdmaEndpoint::CheckThresholds() const
{
    // Checked once both are set: attributes are applied one by one.
    if (m_n1 > m_n2)
    {
        throw std::invalid_argument("RdmaEndpoint::EagerLimit: expected <= RendezvousLimit (" +
                                    std::to_string(m_n2) + " B), got " + std::to_string(m_n1) +
                                    " B");
    }
}

RdmaProtocol
RdmaEndpoint::ProtocolFor(uint64_t bytes) const
{
    if (bytes < m_n1)
    {
        return RdmaProtocol::EAGER;
    }
    return bytes < m_n2 ? RdmaProtocol::RENDEZVOUS : RdmaProtocol::PIPELINE;
}

void
RdmaEndpoint::AddNic(Ptr<RdmaNic> nic, uint32_t domain)
{
    if (!nic || !nic->GetPort())
    {
        throw std::invalid_argument(
            "RdmaEndpoint::AddNic nic: expected a NIC attached to a port (RdmaNic::Attach), got " +
            std::string(nic ? "an unattached NIC" : "null"));
    }
    uint32_t idx = m_nics.size();
    m_nics.push_back({nic, domain, {}});
    nic->SetSendCompletionCallback(MakeCallback(&RdmaEndpoint::SendCompleted, this).Bind(idx));
    nic->SetReceiveCompletionCallback(
        MakeCallback(&RdmaEndpoint::ReceiveCompleted, this).Bind(idx));
}

void
RdmaEndpoint::SetPeer(uint32_t peer, uint32_t nic, uint32_t qpn)
{
    if (peer >= m_peers.size())
    {
        m_peers.resize(peer + 1);
    }
    m_peers[peer] = {nic, qpn};
    std::vector<uint32_t>& qpPeer = m_nics[nic].qpPeer;
    const uint32_t i = qpn - RdmaNic::kFirstQpn;
    if (i >= qpPeer.size())
    {
        qpPeer.resize(i + 1, kNone);
    }
    qpPeer[i] = peer;
}

RdmaEndpointCounters
RdmaEndpoint::GetCounters() const
{
    RdmaEndpointCounters c = m_counters;
    for (const auto& n : m_nics)
    {
        const auto& k = n.nic->GetCounters();
        c.retransmittedBytes += k.bytesRetransmitted;
        c.retransmittedPackets += k.packetsRetransmitted;
        c.timeouts += k.timeouts;
        c.cnpsSent += k.cnpsSent;
        c.cnpsReceived += k.cnpsReceived;
        c.controlDropped += k.controlDropped;
        c.unknownQpDropped += k.unknownQpDropped;
    }
    return c;
}

void
RdmaEndpoint::OnCpu(Time cost, std::function<void()> fn)
{
    Time now = hotsim::Now();
    Time start = std::max(now, m_cpuFreeAt);
    m_cpuFreeAt = start + cost;
    hotsim::Schedule(m_cpuFreeAt - now, fn);
}

void
RdmaEndpoint::Start(uint32_t dst, const Peer& peer, SendState st)
{
    CheckThresholds();
    uint64_t id = st.rec.id;
    ++m_counters.messagesSent;
    m_counters.bytesSent += st.rec.bytes;
    st.peer = peer;
    st.rec.protocol = ProtocolFor(st.rec.bytes);
    if (st.rec.protocol == RdmaProtocol::PIPELINE)
    {
        st.chunks = (st.rec.bytes + m_chunk - 1) / m_chunk;
    }
    RdmaProtocol proto = st.rec.protocol;
    uint64_t bytes = st.rec.bytes;
    m_sends.emplace(id, std::move(st));
    if (proto == RdmaProtocol::EAGER)
    {
        OnCpu(m_oSend, [this, peer, id, bytes]() {
            uint64_t wr =
                m_nics[peer.nic].nic->PostSend(peer.qpn, bytes, false, MakeImm(kImmEager, id));
            m_wrs[{peer.nic, wr}] = {id, kImmEager};
        });
    }
    else
    {
        OnCpu(m_oSend, [this, peer, id, bytes]() { PostControl(peer, kRts, id, bytes); });
    }
}

void
RdmaEndpoint::PostControl(const Peer& peer, uint8_t kind, uint64_t id, uint64_t bytes)
{
    RdmaControlHeader h;
    h.kind = kind;
    h.id = id;
    h.bytes = bytes;
    Ptr<Packet> p = Create<Packet>(m_controlBytes - RdmaControlHeader::kSize);
    p->AddHeader(h);
    ++m_counters.controlMessages;
    uint64_t wr = m_nics[peer.nic].nic->PostSend(peer.qpn, p->GetSize(), false,
                                                 MakeImm(kImmControl, id), p);
    m_wrs[{peer.nic, wr}] = {id, kImmControl};
}

void
RdmaEndpoint::PostChunks(uint64_t id)
{
    auto it = m_sends.find(id);
    NS_ASSERT(it != m_sends.end());
    SendState& st = it->second;
    while (st.chunksPosted < st.chunks && st.chunksPosted - st.chunksDone < m_depth)
    {
        uint64_t k = st.chunksPosted++;
        uint64_t len = std::min(m_chunk, st.rec.bytes - k * m_chunk);
        Peer peer = st.peer;
        OnCpu(m_oSend, [this, peer, id, len]() {
            uint64_t wr =
                m_nics[peer.nic].nic->PostSend(peer.qpn, len, true, MakeImm(kImmChunk, id));
            m_wrs[{peer.nic, wr}] = {id, kImmChunk};
        });
    }
}

void
RdmaEndpoint::SendCompleted(uint32_t nic, const RdmaCompletion& c)
{
    auto w = m_wrs.find({nic, c.wrId});
    if (w == m_wrs.end())
    {
        return;
    }
    auto [id, kind] = w->second;
    m_wrs.erase(w);
    if (kind == kImmControl)
    {
        return;
    }
    auto it = m_sends.find(id);
    NS_ASSERT(it != m_sends.end());
    SendState& st = it->second;
    if (kind == kImmChunk)
    {
        ++st.chunksDone;
        if (st.chunksDone < st.chunks)
        {
            PostChunks(id);
            return;
        }
    }
    st.rec.sent = hotsim::Now();
    m_sentTrace(st.rec);
    if (!st.onSent.IsNull())
    {
        st.onSent(st.rec);
    }
    m_sends.erase(it);
}

void
RdmaEndpoint::ReceiveCompleted(uint32_t nic, const RdmaCompletion& c)
{
    const std::vector<uint32_t>& qpPeer = m_nics[nic].qpPeer;
    NS_ASSERT_MSG(c.qpn - RdmaNic::kFirstQpn < qpPeer.size() && qpPeer[c.qpn - RdmaNic::kFirstQpn] != kNone,
                  "completion on a QP without a peer");
    uint32_t src = qpPeer[c.qpn - RdmaNic::kFirstQpn];
    uint8_t kind = c.immediate >> 30;
    uint64_t id30 = c.immediate & kIdMask;
    if (kind == kImmControl)
    {
        RdmaControlHeader h;
        NS_ASSERT(c.inlineData);
        c.inlineData->PeekHeader(h);
        if (h.kind == kRts)
        {
            // Receiver: match the RTS, post the CTS.
            RecvState rs;
            rs.bytes = h.bytes;
            rs.protocol = ProtocolFor(h.bytes);
            rs.chunks = rs.protocol == RdmaProtocol::PIPELINE ? (h.bytes + m_chunk - 1) / m_chunk : 1;
            m_recvs[{src, h.id & kIdMask}] = rs;
            Peer peer = m_peers[src];
            uint64_t id = h.id;
            uint64_t bytes = h.bytes;
            OnCpu(m_oRecv + m_oSend, [this, peer, id, bytes]() { PostControl(peer, kCts, id, bytes); });
        }
        else
        {
            // Sender: the receiver's buffer is ready.
            uint64_t id = h.id;
            auto it = m_sends.find(id);
            NS_ASSERT(it != m_sends.end());
            if (it->second.rec.protocol == RdmaProtocol::RENDEZVOUS)
            {
                OnCpu(m_oRecv + m_oSend, [this, id]() {
                    SendState& st = m_sends.at(id);
                    uint64_t wr = m_nics[st.peer.nic].nic->PostSend(st.peer.qpn, st.rec.bytes, true,
                                                                    MakeImm(kImmWrite, id));
                    m_wrs[{st.peer.nic, wr}] = {id, kImmWrite};
                });
            }
            else
            {
                OnCpu(m_oRecv + m_pipeSetup, [this, id]() { PostChunks(id); });
            }
        }
        return;
    }
    if (kind == kImmEager)
    {
        uint64_t bytes = c.bytes;
        OnCpu(m_oRecv, [this, src, id30, bytes]() {
            Deliver(src, id30, bytes, RdmaProtocol::EAGER, Time());
        });
        return;
    }
    auto r = m_recvs.find({src, id30});
    NS_ASSERT_MSG(r != m_recvs.end(), "data for a message without RTS");
    RecvState& rs = r->second;
    ++rs.chunksSeen;
    bool last = rs.chunksSeen == rs.chunks;
    uint64_t bytes = rs.bytes;
    RdmaProtocol proto = rs.protocol;
    if (last)
    {
        m_recvs.erase(r);
    }
    OnCpu(m_oRecv, [this, src, id30, bytes, proto, last]() {
        if (last)
        {
            Deliver(src, id30, bytes, proto, Time());
        }
    });
}

void
RdmaEndpoint::Deliver(uint32_t src, uint64_t id, uint64_t bytes, RdmaProtocol proto,
                      Time submitted)
{
    RdmaMessageRecord rec;
    rec.id = id;
    rec.src = src;
    rec.dst = m_rank;
    rec.bytes = bytes;
    rec.protocol = proto;
    rec.submitted = submitted;
    rec.delivered = hotsim::Now();
    ++m_counters.messagesDelivered;
    m_counters.bytesDelivered += bytes;
    if (m_messenger)
    {
        m_messenger->NotifyDelivered(rec);
    }
    m_deliverTrace(rec);
    if (!m_deliverCb.IsNull())
    {
        m_deliverCb(rec);
    }
}

} // namespace ns3
