// SPDX-License-Identifier: GPL-2.0-only
//
// One reliable-connection queue pair of an RdmaNic: the requester's send
// queue and sequence state (PSNs sent, acknowledged, read ahead over PCIe,
// go-back-N) and the responder's expected PSN, with the per-QP rules that read
// only this state (which packet asks for an ACK, what a cumulative ACK
// acknowledges, the RTT sample it carries). The NIC owns the QPs, dispatches
// packets to them and does everything that touches the port, the DMA engine
// or the event queue. A plain struct with non-virtual members: it is read on
// every packet.
#ifndef HOCKNEY_RDMA_QUEUE_PAIR_H
#define HOCKNEY_RDMA_QUEUE_PAIR_H

#include "fabric-header.h"
#include "fabric-ring-queue.h"
#include "rdma-congestion-control.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace ns3
{

/// A posted message (work request) on a QP's send queue.
struct RdmaMessage
{
    uint64_t wrId;
    uint64_t bytes;
    bool write;
    uint32_t immediate;
    uint64_t firstPsn;
    uint64_t npkts;
    uint64_t startByte; ///< payload bytes the QP posted before this message
    Time posted;
    Time wqeDone; ///< the WQE has been read: payload reads may be issued
    Ptr<Packet> inlineData;
};

/// A responder's state for an open PSN gap it NAKed: allocated at the first
/// NAK of the QP (a lossless fabric never NAKs), so that it costs the other
/// QPs 8 bytes.
struct RdmaNakState
{
    Time at;             ///< when the open gap was last NAKed
    FabricHeader header; ///< of the packet that revealed it: where a refresh goes
    EventId refresh;     ///< the pending NakInterval check
};

// Laid out by use: the fields the transmit path reads for every packet and
// every QP it visits (EligibleAt, BuildDataPacket, CommitTransmission) first,
// in one or two cache lines; then the acknowledgement path; then the
// responder; cold state (NAKs) behind a pointer. 240 bytes, so that the NIC's
// std::deque holds two QPs per 512-byte node. The three queues own no memory
// until the QP posts a message and give it back when its last message
// completes (FabricRingQueue).
struct RdmaQueuePair
{
    // requester, per packet
    uint64_t nextPsn{0};  ///< PSN of the next packet to post (end of sq)
    uint64_t sndNxt{0};   ///< next PSN to transmit
    uint64_t sndUna{0};   ///< oldest unacknowledged PSN
    uint64_t highSent{0}; ///< one past the highest PSN ever transmitted
    uint64_t ccWindow{0}; ///< the congestion control's window (0: none)
    Time nextTx;          ///< rate limiter: earliest start of the next packet
    FabricRingQueue<Time> readReady; ///< payload in the NIC, PSNs highSent..readPsn-1
    FabricRingQueue<RdmaMessage> sq; ///< posted, not yet fully acknowledged
    uint32_t qpn{0};
    uint32_t peerAddress{kFabricNoAddress};
    uint32_t peerQpn{0};
    uint32_t classIndex{0}; ///< position in the NIC's list of its priority class
    uint8_t priority{0};
    bool connected{false};
    bool wantsInt{false}; ///< data packets ask switches for INT (the cc's WantsInt)
    /// An ACK request on every data packet instead of every AckInterval: an
    /// INT QP, unless the user set AckInterval (RdmaNic::AckRequested).
    bool ackEveryPacket{false};
    bool nakSent{false};    ///< responder: the open gap was NAKed (nak holds it)
    bool ceSinceAck{false}; ///< responder: a CE mark arrived since the last ACK (ECN echo)
    /// The rate state or congestion control was handed out (RdmaNic::
    /// GetRateState, GetQpCongestionControl): kept for the QP's life.
    bool ccPinned{false};
    /// The congestion control was told the QP has nothing to send
    /// (RdmaCongestionControl::Pause) and not yet that it has again.
    bool ccPaused{false};
    uint32_t lastTxWire{0};
    /// The congestion control's fork and the rate state it drives: null
    /// until the QP's first use and again after its last message when the
    /// fork is fresh (RdmaNic::LazyCongestionState).
    Ptr<RdmaRateState> rate;
    Ptr<RdmaCongestionControl> cc;
    uint64_t readPsn{0}; ///< next PSN whose payload read is not issued yet
    Time lastTxStart;
    // requester, per AckReq packet and per ACK
    uint64_t ackReqHigh{0}; ///< one past the highest PSN sent with AckReq
    /// Retransmission deadline (Time::Max(): disarmed). Moving it is a
    /// field write: one check event per QP is pending at most, and when
    /// it fires early it re-schedules itself at the deadline, instead of
    /// a cancelled and re-armed timer for every ACK.
    Time rtoDeadline{Time::Max()};
    /// PSN and transmission time of the AckReq packets not yet answered,
    /// in PSN order: the RTT samples of AckReceived.
    FabricRingQueue<std::pair<uint64_t, Time>> ackReqSent;
    uint64_t outstandingBytes{0};
    uint64_t postedBytes{0}; ///< payload bytes ever posted
    EventId rtoCheck;
    // responder
    uint64_t ePsn{0};
    /// Responder as it will be once every data packet already on its way
    /// to the NIC's port has arrived (RdmaNic::JudgeArrival): ePsn and
    /// nakSent after them, by the same rules (Order, Accept).
    uint64_t foldEpsn{0};
    bool foldNak{false};
    uint64_t rxMsgBytes{0};
    std::unique_ptr<RdmaNakState> nak; ///< null until the first NAK

    /// Appends m (wrId, bytes, write, immediate, posted, inlineData set) to
    /// the send queue: assigns its PSNs and byte offset for an Mtu of mtu.
    const RdmaMessage& Post(RdmaMessage m, uint32_t mtu);
    /// Gives back the queues' memory once the send queue is empty (every
    /// message fully acknowledged): a QP keeps none while it has no work.
    void ReleaseIdleStorage()
    {
        if (sq.empty())
        {
            sq.ReleaseIfEmpty();
            readReady.ReleaseIfEmpty();
            ackReqSent.ReleaseIfEmpty();
        }
    }
    /// The message holding psn, nullptr if none is in the send queue.
    const RdmaMessage* FindMessage(uint64_t psn) const;
    static uint32_t PacketPayload(const RdmaMessage& m, uint64_t psn, uint32_t mtu);
    /// Bytes in flight at which the QP stops (0: no limit): the smaller of
    /// the NIC's window and the congestion control's, where non-zero.
    uint64_t Window(uint64_t nicWindow) const;
    /// Connected, with a packet to send, and the window open.
    bool HasWork(uint32_t mtu, uint64_t nicWindow) const;
    /// When the next packet may start: rate limiter and, for a first
    /// transmission, its payload read; Time::Max() without work.
    Time EligibleAt(uint32_t mtu, uint64_t nicWindow) const;
    /// True if the packet psn of m asks for an acknowledgement (AckReq):
    /// the last of its message, every ackInterval-th PSN, and the one that
    /// fills the window.
    bool AckRequested(const RdmaMessage& m, uint64_t psn, uint32_t mtu, uint64_t nicWindow,
                      uint32_t ackInterval) const;
    /// Payload bytes the QP posted before PSN psn (psn in sq or = nextPsn).
    uint64_t ByteOffset(uint64_t psn, uint32_t mtu) const;
    /// An AckReq packet psn left at `now` (a resent one replaces the
    /// records from its PSN on).
    void RecordAckRequest(uint64_t psn, Time now);
    /// Time since the transmission of the AckReq packet an ACK for psn
    /// answers (zero if none, and for a NAK), dropping the records it covers.
    Time TakeRttSample(uint64_t psn, bool nak, Time now);
    /// The 64-bit PSN nearest `reference` whose low 24 bits are psn24.
    static uint64_t Unwrap(uint64_t reference, uint32_t psn24);

    /// What an ACK or NAK did to the requester.
    struct AckOutcome
    {
        uint64_t psn;  ///< the PSN it carries, unwrapped
        bool stale;    ///< beyond anything sent: ignored
        bool progress; ///< the acknowledged PSN moved
        bool goBack;   ///< a NAK moved the next PSN to send back to psn
    };

    /**
     * Requester, on an ACK or NAK carrying the 24-bit psn24: moves the
     * acknowledged PSN (ACKs are cumulative), and on a NAK goes back to its
     * PSN. Fills sample's nak, rtt and ackedBytes; nothing for a stale one.
     */
    AckOutcome Acknowledge(uint32_t psn24, bool nak, Time now, uint32_t mtu,
                           RdmaAckSample& sample);

    /// Where a data packet's PSN falls for the responder.
    enum class RxOrder
    {
        kExpected,
        kDuplicate, ///< already accepted
        kAhead      ///< a gap: some packet before it was lost
    };

    /// Responder: the order of the packet with 24-bit psn24 (*psn: unwrapped).
    RxOrder Order(uint32_t psn24, uint64_t* psn) const { return OrderAt(ePsn, psn24, psn); }
    /// The same against an expected PSN `expected` (RdmaNic::JudgeArrival
    /// orders against the PSN the responder will expect, foldEpsn).
    static RxOrder OrderAt(uint64_t expected, uint32_t psn24, uint64_t* psn)
    {
        *psn = Unwrap(expected, psn24);
        return *psn > expected   ? RxOrder::kAhead
               : *psn < expected ? RxOrder::kDuplicate
                                 : RxOrder::kExpected;
    }

    /// Responder: the expected packet, the first of its message or not, with
    /// len payload bytes, is accepted.
    void Accept(bool first, uint32_t len)
    {
        if (first)
        {
            rxMsgBytes = 0;
        }
        rxMsgBytes += len;
        ++ePsn;
        nakSent = false;
    }
};

// Inline: the NIC's transmit path calls these for every packet and every QP
// it visits.

inline uint32_t
RdmaQueuePair::PacketPayload(const RdmaMessage& m, uint64_t psn, uint32_t mtu)
{
    uint64_t off = (psn - m.firstPsn) * mtu;
    return static_cast<uint32_t>(std::min<uint64_t>(mtu, m.bytes - off));
}

inline uint64_t
RdmaQueuePair::Window(uint64_t nicWindow) const
{
    if (ccWindow == 0 || (nicWindow > 0 && nicWindow < ccWindow))
    {
        return nicWindow;
    }
    return ccWindow;
}

inline bool
RdmaQueuePair::HasWork(uint32_t mtu, uint64_t nicWindow) const
{
    if (!connected || sndNxt >= nextPsn)
    {
        return false;
    }
    const uint64_t window = Window(nicWindow);
    return window == 0 || (sndNxt - sndUna) * mtu < window;
}

inline Time
RdmaQueuePair::EligibleAt(uint32_t mtu, uint64_t nicWindow) const
{
    if (!HasWork(mtu, nicWindow))
    {
        return Time::Max();
    }
    Time t = nextTx;
    if (sndNxt >= highSent)
    {
        // First transmission: the payload must have arrived over PCIe.
        if (readReady.empty())
        {
            return Time::Max(); // read not issued yet (prefetch window full)
        }
        t = std::max(t, readReady.front());
    }
    return t;
}

inline bool
RdmaQueuePair::AckRequested(const RdmaMessage& m, uint64_t psn, uint32_t mtu, uint64_t nicWindow,
                            uint32_t ackInterval) const
{
    // The packet that fills the window asks too: otherwise the window could
    // only reopen at the timeout.
    const uint64_t window = Window(nicWindow);
    return psn + 1 == m.firstPsn + m.npkts || (psn + 1) % ackInterval == 0 ||
           (window > 0 && (psn + 1 - sndUna) * mtu >= window);
}

} // namespace ns3

#endif
