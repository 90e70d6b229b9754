// SPDX-License-Identifier: GPL-2.0-only
//
// The per-rank messaging layer over RDMA NICs (and NVLink transfer engines,
// which are RdmaNics on NVLink ports): a software overhead per message on the
// rank's one CPU (busy time: a rank's sends serialize on it, LogP's o), and
// the protocol by size (alpha steps at n1 and n2; Liu, Wu, Panda, ICS 2003):
//   n <  n1 : eager      - one SEND into a pre-registered buffer
//   n1 <= n < n2 : rendezvous - RTS, CTS (control messages on the fabric), RDMA write
//   n >= n2 : pipeline   - handshake, setup, fixed-size chunks, Depth in flight
// A collective calls RdmaMessenger::Send(src, dst, bytes, callback) and does
// not know which transport carries the message.
#ifndef HOCKNEY_RDMA_ENDPOINT_H
#define HOCKNEY_RDMA_ENDPOINT_H

#include "rdma-nic.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class RdmaMessenger;

enum class RdmaProtocol
{
    EAGER,
    RENDEZVOUS,
    PIPELINE
};

/// "eager", "rendezvous", "pipeline".
std::string ToString(RdmaProtocol p);

/// One message's life, as both callbacks see it.
struct RdmaMessageRecord
{
    uint64_t id{0}; ///< unique per sending rank
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t bytes{0};
    RdmaProtocol protocol{RdmaProtocol::EAGER};
    Time submitted; ///< Send() was called
    Time sent;      ///< the sender may reuse its buffer (all data acknowledged)
    Time delivered; ///< the receiver's software has the data
};

/// Counters of one rank: its messages, and its NICs' transport counters summed.
struct RdmaEndpointCounters
{
    uint64_t messagesSent{0};
    uint64_t messagesDelivered{0}; ///< messages delivered at this rank
    uint64_t bytesSent{0};         ///< user payload handed to Send from this rank
    uint64_t bytesDelivered{0};    ///< user payload delivered at this rank
    uint64_t controlMessages{0};   ///< RTS and CTS this rank sent
    uint64_t retransmittedBytes{0};
    uint64_t retransmittedPackets{0};
    uint64_t timeouts{0};
    uint64_t cnpsSent{0};
    uint64_t cnpsReceived{0};
    uint64_t controlDropped{0};   ///< ACK, NAK or CNP refused by a local port
    uint64_t unknownQpDropped{0}; ///< packets for a QP the NIC does not have
};

class RdmaEndpoint : public Object
{
  public:
    static TypeId GetTypeId();
    /// Message ids travel in the low 30 bits of the immediate data (the top two
    /// carry the kind), so a sending rank numbers at most this many messages.
    static constexpr uint32_t kMaxMessageId = 0x3FFFFFFF;
    RdmaEndpoint();
    ~RdmaEndpoint() override;

    using MessageCallback = Callback<void, const RdmaMessageRecord&>;

    uint32_t GetRank() const { return m_rank; }
    /// Adds a NIC of this rank on fabric `domain` (ranks whose NICs share a
    /// domain reach each other through them; NICs added first are preferred,
    /// so add NVLink before the network).
    /// \throws std::invalid_argument for a null or unattached NIC.
    void AddNic(Ptr<RdmaNic> nic, uint32_t domain);
    uint32_t GetNNics() const { return m_nics.size(); }
    Ptr<RdmaNic> GetNic(uint32_t i) const { return m_nics.at(i).nic; }

    /// Receiver-side hook: every message delivered at this rank.
    void SetDeliverCallback(MessageCallback cb) { m_deliverCb = cb; }
    RdmaEndpointCounters GetCounters() const;
    /// When this rank's CPU is next free (busy until then with o's).
    Time GetCpuFreeAt() const { return m_cpuFreeAt; }

    /// The protocol a message of `bytes` uses.
    RdmaProtocol ProtocolFor(uint64_t bytes) const;

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    friend class RdmaMessenger;

    static constexpr uint32_t kNone = 0xFFFFFFFF;

    struct NicEntry
    {
        Ptr<RdmaNic> nic;
        uint32_t domain;
        /// Peer rank of each QP, by qpn - RdmaNic::kFirstQpn (kNone: no
        /// peer): 4 bytes a QP, where a map node cost about 50.
        std::vector<uint32_t> qpPeer;
    };

    struct Peer
    {
        uint32_t nic{kNone}; ///< local NIC index (kNone: not connected)
        uint32_t qpn{0};
    };

    struct SendState
    {
        RdmaMessageRecord rec;
        Peer peer;
        uint64_t chunks{0};     ///< pipeline: number of chunks
        uint64_t chunksPosted{0};
        uint64_t chunksDone{0};
        MessageCallback onSent;
        MessageCallback onDelivered;
    };

    struct RecvState
    {
        uint64_t bytes{0};
        RdmaProtocol protocol{RdmaProtocol::EAGER};
        uint64_t chunks{0};
        uint64_t chunksSeen{0};
        Time submitted;
    };

    void SetEagerLimit(uint64_t v);
    void SetRendezvousLimit(uint64_t v);
    void SetChunkBytes(uint64_t v);
    void SetPipelineDepth(uint32_t v);
    uint64_t GetEagerLimit() const { return m_n1; }
    uint64_t GetRendezvousLimit() const { return m_n2; }
    uint64_t GetChunkBytes() const { return m_chunk; }
    uint32_t GetPipelineDepth() const { return m_depth; }
    void SetOverhead(Time& field, const char* name, Time t);
    void SetSendOverhead(Time t) { SetOverhead(m_oSend, "SendOverhead", t); }
    void SetReceiveOverhead(Time t) { SetOverhead(m_oRecv, "ReceiveOverhead", t); }
    void SetPipelineSetup(Time t) { SetOverhead(m_pipeSetup, "PipelineSetup", t); }
    Time GetSendOverhead() const { return m_oSend; }
    Time GetReceiveOverhead() const { return m_oRecv; }
    Time GetPipelineSetup() const { return m_pipeSetup; }
    void CheckThresholds() const;

    /// Runs fn after `cost` of this rank's CPU, queued behind earlier work.
    void OnCpu(Time cost, std::function<void()> fn);

    // sender side
    void Start(uint32_t dst, const Peer& peer, SendState st);
    void PostControl(const Peer& peer, uint8_t kind, uint64_t id, uint64_t bytes);
    void PostChunks(uint64_t id);
    void SendCompleted(uint32_t nic, const RdmaCompletion& c);
    // receiver side
    void ReceiveCompleted(uint32_t nic, const RdmaCompletion& c);
    void Deliver(uint32_t src, uint64_t id, uint64_t bytes, RdmaProtocol proto, Time submitted);

    RdmaMessenger* m_messenger{nullptr};
    uint32_t m_rank{0};
    std::vector<NicEntry> m_nics;
    /// The QP to each peer rank, by rank (nic kNone: not connected yet).
    std::vector<Peer> m_peers;
    /// Records that the QP qpn of local NIC nic reaches rank peer.
    void SetPeer(uint32_t peer, uint32_t nic, uint32_t qpn);
    bool HasPeer(uint32_t rank) const { return rank < m_peers.size() && m_peers[rank].nic != kNone; }
    std::map<uint64_t, SendState> m_sends;                      ///< by message id
    std::map<std::pair<uint32_t, uint64_t>, RecvState> m_recvs; ///< (src, id)
    /// Work requests of this rank: (nic, wrId) -> (message id, kind).
    std::map<std::pair<uint32_t, uint64_t>, std::pair<uint64_t, uint8_t>> m_wrs;
    uint64_t m_nextId{1};
    Time m_cpuFreeAt;

    uint64_t m_n1;
    uint64_t m_n2;
    uint64_t m_chunk;
    uint32_t m_depth;
    Time m_oSend;
    Time m_oRecv;
    Time m_pipeSetup;
    uint32_t m_controlBytes;
    uint8_t m_priority;

    MessageCallback m_deliverCb;
    RdmaEndpointCounters m_counters;
    TracedCallback<const RdmaMessageRecord&> m_deliverTrace;
    TracedCallback<const RdmaMessageRecord&> m_sentTrace;
};

/**
 * The communicator: ranks and their endpoints, the QPs between them, and the
 * entry point of the collectives.
 */
class RdmaMessenger : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaMessenger();
    ~RdmaMessenger() override;

    /// Registers an endpoint as the next rank; returns the rank.
    uint32_t AddEndpoint(Ptr<RdmaEndpoint> ep);
    Ptr<RdmaEndpoint> GetEndpoint(uint32_t rank) const { return m_eps.at(rank); }
    uint32_t GetNRanks() const { return m_eps.size(); }

    /// Creates the QP pair between src and dst (setup time; Send does it on
    /// first use otherwise). \throws std::invalid_argument if they share no domain.
    void Connect(uint32_t src, uint32_t dst);
    /// Connects every pair of ranks that share a domain.
    void ConnectAll();

    /**
     * Sends `bytes` from rank src to rank dst. onDelivered runs when dst's
     * software has the data; onSent when src may reuse its buffer. Returns the
     * message id (unique per src). Either callback may be null.
     */
    uint64_t Send(uint32_t src, uint32_t dst, uint64_t bytes,
                  RdmaEndpoint::MessageCallback onDelivered,
                  RdmaEndpoint::MessageCallback onSent = RdmaEndpoint::MessageCallback());

    /// Send() with the caller's message id instead of the sender's count
    /// (ids of one sender must differ, at most RdmaEndpoint::kMaxMessageId;
    /// do not mix with Send() on one sender): the receiver then knows which
    /// message arrived without asking the sender, as a partitioned run's
    /// receiving MPI rank must (Expect). \throws std::invalid_argument for an
    /// id too large or still in flight from \p src.
    void SendWithId(uint32_t src, uint32_t dst, uint64_t bytes, uint64_t id,
                    RdmaEndpoint::MessageCallback onDelivered);
    /// onDelivered runs when message \p id of \p src is delivered here: the
    /// receiving side of SendWithId when the sender's MPI rank is another one
    /// (that rank's Send registers its callback in its own process only).
    void Expect(uint32_t src, uint64_t id, RdmaEndpoint::MessageCallback onDelivered);

    /// Counters of every rank summed.
    RdmaEndpointCounters GetTotals() const;

  protected:
    void DoDispose() override;

  private:
    friend class RdmaEndpoint;
    /// Send and SendWithId: \p id checked.
    void SendAs(uint32_t src, uint32_t dst, uint64_t bytes, uint64_t id,
                RdmaEndpoint::MessageCallback onDelivered, RdmaEndpoint::MessageCallback onSent);
    /// The delivery of a message at its receiver: fires the sender's callback.
    void NotifyDelivered(RdmaMessageRecord& rec); ///< fills rec.submitted

    std::vector<Ptr<RdmaEndpoint>> m_eps;
    /// onDelivered callbacks by (src, id): a convenience that crosses ranks (a
    /// distributed run uses each endpoint's DeliverCallback instead).
    std::map<std::pair<uint32_t, uint64_t>, RdmaEndpoint::MessageCallback> m_pending;
    std::map<std::pair<uint32_t, uint64_t>, Time> m_submitted;
};

} // namespace ns3

#endif
