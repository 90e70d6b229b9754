// SPDX-License-Identifier: GPL-2.0-only
//
// RdmaMessenger: the endpoints of one fabric by rank, connected pairwise on
// demand or all at set-up, with per-message delivery callbacks and totals.
#include "rdma-endpoint.h"
#include "fast-simulator-impl.h"

#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaMessenger);

TypeId
RdmaMessenger::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaMessenger")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<RdmaMessenger>();
    return tid;
}

RdmaMessenger::RdmaMessenger() = default;
RdmaMessenger::~RdmaMessenger() = default;

void
RdmaMessenger::DoDispose()
{
    for (auto& ep : m_eps)
    {
        ep->m_messenger = nullptr;
    }
    m_eps.clear();
    m_pending.clear();
    Object::DoDispose();
}

uint32_t
RdmaMessenger::AddEndpoint(Ptr<RdmaEndpoint> ep)
{
    ep->CheckThresholds();
    ep->m_rank = m_eps.size();
    ep->m_messenger = this;
    m_eps.push_back(ep);
    return ep->m_rank;
}

void
RdmaMessenger::Connect(uint32_t src, uint32_t dst)
{
    if (src >= m_eps.size() || dst >= m_eps.size() || src == dst)
    {
        throw std::invalid_argument("RdmaMessenger rank: expected two different ranks below " +
                                    std::to_string(m_eps.size()) + ", got " +
                                    std::to_string(src) + " and " + std::to_string(dst));
    }
    Ptr<RdmaEndpoint> a = m_eps[src];
    Ptr<RdmaEndpoint> b = m_eps[dst];
    if (a->HasPeer(dst))
    {
        return;
    }
    for (uint32_t i = 0; i < a->m_nics.size(); ++i)
    {
        for (uint32_t j = 0; j < b->m_nics.size(); ++j)
        {
            if (a->m_nics[i].domain != b->m_nics[j].domain)
            {
                continue;
            }
            auto [qa, qb] = RdmaNic::Connect(a->m_nics[i].nic, b->m_nics[j].nic, a->m_priority);
            a->SetPeer(dst, i, qa);
            b->SetPeer(src, j, qb);
            return;
        }
    }
    throw std::invalid_argument("RdmaMessenger route: ranks " + std::to_string(src) + " and " +
                                std::to_string(dst) + " share no fabric domain");
}

void
RdmaMessenger::ConnectAll()
{
    for (uint32_t a = 0; a < m_eps.size(); ++a)
    {
        for (uint32_t b = a + 1; b < m_eps.size(); ++b)
        {
            bool shared = false;
            for (const auto& x : m_eps[a]->m_nics)
            {
                for (const auto& y : m_eps[b]->m_nics)
                {
                    shared = shared || x.domain == y.domain;
                }
            }
            if (shared)
            {
                Connect(a, b);
            }
        }
    }
}

uint64_t
RdmaMessenger::Send(uint32_t src, uint32_t dst, uint64_t bytes,
                    RdmaEndpoint::MessageCallback onDelivered,
                    RdmaEndpoint::MessageCallback onSent)
{
    Connect(src, dst);
    const uint64_t id = m_eps[src]->m_nextId++;
    if (id > RdmaEndpoint::kMaxMessageId)
    {
        // The id travels in 30 bits of the immediate.
        throw std::invalid_argument("RdmaMessenger::Send: expected at most " +
                                    std::to_string(RdmaEndpoint::kMaxMessageId) + " messages per sending rank, got " +
                                    std::to_string(id));
    }
    SendAs(src, dst, bytes, id, onDelivered, onSent);
    return id;
}

void
RdmaMessenger::SendWithId(uint32_t src, uint32_t dst, uint64_t bytes, uint64_t id,
                          RdmaEndpoint::MessageCallback onDelivered)
{
    Connect(src, dst);
    if (id > RdmaEndpoint::kMaxMessageId || m_eps[src]->m_sends.count(id))
    {
        throw std::invalid_argument("RdmaMessenger::SendWithId id: expected at most " +
                                    std::to_string(RdmaEndpoint::kMaxMessageId) +
                                    " and none in flight from rank " + std::to_string(src) + ", got " +
                                    std::to_string(id));
    }
    SendAs(src, dst, bytes, id, onDelivered, RdmaEndpoint::MessageCallback());
}

void
RdmaMessenger::Expect(uint32_t src, uint64_t id, RdmaEndpoint::MessageCallback onDelivered)
{
    m_pending[{src, id}] = onDelivered;
}

void
RdmaMessenger::SendAs(uint32_t src, uint32_t dst, uint64_t bytes, uint64_t id,
                      RdmaEndpoint::MessageCallback onDelivered, RdmaEndpoint::MessageCallback onSent)
{
    Ptr<RdmaEndpoint> ep = m_eps[src];
    RdmaEndpoint::SendState st;
    st.rec.id = id;
    st.rec.src = src;
    st.rec.dst = dst;
    st.rec.bytes = bytes;
    st.rec.submitted = hotsim::Now();
    st.onSent = onSent;
    if (!onDelivered.IsNull())
    {
        // None: the receiver's process may have registered one (Expect).
        m_pending[{src, st.rec.id}] = onDelivered;
    }
    m_submitted[{src, st.rec.id}] = st.rec.submitted;
    ep->Start(dst, ep->m_peers[dst], std::move(st));
}

void
RdmaMessenger::NotifyDelivered(RdmaMessageRecord& rec)
{
    // The receiver cannot know when the sender called Send(): the messenger,
    // which took the call, fills it in for every observer of the delivery
    // (the Send callback, the endpoint's Delivered trace and callback).
    auto s = m_submitted.find({rec.src, rec.id});
    if (s != m_submitted.end())
    {
        rec.submitted = s->second;
        m_submitted.erase(s);
    }
    auto it = m_pending.find({rec.src, rec.id});
    if (it == m_pending.end())
    {
        return;
    }
    RdmaEndpoint::MessageCallback cb = it->second;
    m_pending.erase(it);
    if (!cb.IsNull())
    {
        cb(rec);
    }
}

RdmaEndpointCounters
RdmaMessenger::GetTotals() const
{
    RdmaEndpointCounters t;
    for (const auto& ep : m_eps)
    {
        auto c = ep->GetCounters();
        t.messagesSent += c.messagesSent;
        t.messagesDelivered += c.messagesDelivered;
        t.bytesSent += c.bytesSent;
        t.bytesDelivered += c.bytesDelivered;
        t.controlMessages += c.controlMessages;
        t.retransmittedBytes += c.retransmittedBytes;
        t.retransmittedPackets += c.retransmittedPackets;
        t.timeouts += c.timeouts;
        t.cnpsSent += c.cnpsSent;
        t.cnpsReceived += c.cnpsReceived;
        t.controlDropped += c.controlDropped;
        t.unknownQpDropped += c.unknownQpDropped;
    }
    return t;
}

} // namespace ns3
