// SPDX-License-Identifier: GPL-2.0-only
//
// An RDMA NIC (one per GPU or host) on an endpoint FabricNetDevice: reliable-
// connection queue pairs that segment messages into MTU packets (BTH in the
// payload; the port's framing stands for Eth/IP/UDP or LRH), pace them with a
// per-QP rate limiter driven by a pluggable RdmaCongestionControl, are
// acknowledged (coalesced ACKs) and retransmitted go-back-N on NAK or timeout,
// and share the port round robin through the port's pull interface. The NIC
// reads payload over its own PCIe link (doorbell, WQE fetch and payload read
// take real time on a DMA engine of PcieRate and PcieLatency) and writes it to
// memory at the receiver the same way, so beta_eff = min(memory, PCIe, link)
// x eta comes out of the run.
//
// The NIC dispatches: its queue pairs (rdma-queue-pair.h) hold the per-QP
// requester and responder state, its DMA engine (rdma-dma-engine.h) times
// the PCIe transfers, rdma-transport.h builds and strips the transport bytes.
//
// The same class drives NVLink ports (a GPU copy engine / SM transfer): set
// PcieLatency to 0, PcieRate to the memory rate, EngineStartup to the
// engine's launch cost and CongestionControl to ns3::RdmaCcNone.
#ifndef HOCKNEY_RDMA_NIC_H
#define HOCKNEY_RDMA_NIC_H

#include "bth-header.h"
#include "fabric-header.h"
#include "fabric-net-device.h"
#include "rdma-congestion-control.h"
#include "rdma-dma-engine.h"
#include "rdma-queue-pair.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <array>
#include <deque>
#include <map>
#include <vector>

namespace ns3
{

/// Counters of one NIC (payload bytes are RDMA payload, without headers).
struct RdmaNicCounters
{
    uint64_t messagesPosted{0};
    uint64_t messagesCompleted{0}; ///< sender completions (fully acknowledged)
    uint64_t messagesReceived{0};  ///< receiver completions
    uint64_t bytesPosted{0};
    uint64_t bytesSent{0};        ///< payload bytes sent the first time
    uint64_t bytesRetransmitted{0};
    uint64_t bytesDelivered{0};   ///< payload bytes accepted in order at the receiver
    uint64_t dataPacketsSent{0};  ///< including retransmissions
    uint64_t packetsRetransmitted{0};
    uint64_t acksSent{0};
    uint64_t naksSent{0};         ///< including refreshes
    uint64_t nakRefreshes{0};     ///< NAKs sent again for a gap still open after NakInterval
    uint64_t naksReceived{0};
    uint64_t timeouts{0};
    uint64_t cnpsSent{0};
    uint64_t cnpsReceived{0};
    uint64_t outOfOrderDropped{0}; ///< packets discarded by go-back-N at the receiver
    uint64_t controlDropped{0};    ///< ACK, NAK or CNP refused by the local port
    uint64_t unknownQpDropped{0};  ///< packets received for a QP this NIC does not have
};

/// The NIC's per-QP congestion-control states (RdmaNic::LazyCongestionState):
/// how many were forked, started, released, and how many QPs hold one now.
struct RdmaCcStateCounts
{
    uint64_t forked{0};   ///< congestion-control forks (and rate states) created
    uint64_t started{0};  ///< FlowStarts: at a QP's creation or first use, reuses included
    uint64_t released{0}; ///< dropped fresh after a QP's last message
    uint64_t paused{0};   ///< kept states paused with nothing to send (PauseIdleCongestionControl)
    uint64_t live{0};     ///< QPs holding a state now
};

/// What a completion reports.
struct RdmaCompletion
{
    uint32_t qpn{0};      ///< local QP
    uint64_t wrId{0};     ///< sender's work-request id (sender side)
    uint64_t bytes{0};    ///< message payload bytes
    uint32_t immediate{0};
    Time posted;          ///< when PostSend was called (sender side)
    /// Receiver side, single-packet messages: the payload bytes as sent
    /// (control messages of the messaging layer); nullptr otherwise.
    Ptr<Packet> inlineData;
};

class RdmaRoceHeaders;

class RdmaNic : public Object, public FabricArrivalFolder
{
  public:
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    using CompletionCallback = Callback<void, const RdmaCompletion&>;

    /// Transport bytes a data packet carries in its payload besides data at
    /// most: BTH 12 + RETH 16 + ImmDt 4.
    /// The first QPN a NIC hands out (IBTA Vol. 1, 3.5.9: QP0 is the
    /// subnet management QP and QP1 the general services QP; Wireshark
    /// dissects their packets as management datagrams). QPs are numbered up
    /// from here, as a verbs driver hands out QPNs far from the special ones.
    static constexpr uint32_t kFirstQpn = 0x100;
    static constexpr uint32_t kMaxTransportHeader =
        BthHeader::kSize + RethHeader::kSize + ImmDtHeader::kSize;

    /// Binds the NIC to its endpoint port (registers the pull source and the
    /// receive callback). \throws std::invalid_argument if the port is null,
    /// Mtu + transport headers exceed the port's MTU, or the port rate is 0.
    void Attach(Ptr<FabricNetDevice> port);
    Ptr<FabricNetDevice> GetPort() const { return m_port; }
    uint32_t GetAddress() const;

    /// Replaces the congestion-control prototype chosen by the
    /// CongestionControl TypeId (QPs created afterwards fork it).
    /// \throws std::invalid_argument for a null prototype.
    void SetCongestionControl(Ptr<RdmaCongestionControl> prototype);
    Ptr<RdmaCongestionControl> GetCongestionControl() const { return m_ccProto; }

    /// Creates a reliable-connection QP whose packets use class `priority`.
    /// \throws std::invalid_argument before Attach, for a class above 7, or
    /// when the congestion control rejects its parameters for the port rate.
    uint32_t CreateQp(uint8_t priority);
    /// Sets the remote end (set up out of band, as verbs' modify-QP to RTR).
    /// Every call taking a qpn throws std::invalid_argument for an unknown one.
    void ConnectQp(uint32_t qpn, uint32_t peerAddress, uint32_t peerQpn);
    /// Creates and connects a QP pair between two NICs; returns {qpn at a, qpn at b}.
    static std::pair<uint32_t, uint32_t> Connect(Ptr<RdmaNic> a, Ptr<RdmaNic> b, uint8_t priority);

    /**
     * Posts a message on a connected QP: an RDMA WRITE with immediate
     * (rdmaWrite) or a SEND, of `bytes` payload bytes. `inlineData` (at most
     * one MTU) replaces the payload bytes of a one-packet message and is
     * handed to the receiver's completion. Returns the work-request id.
     * \throws std::invalid_argument for an unconnected QP or inline data
     * above the Mtu.
     */
    uint64_t PostSend(uint32_t qpn, uint64_t bytes, bool rdmaWrite, uint32_t immediate,
                      Ptr<Packet> inlineData = nullptr);

    /// Sender completion: every packet acknowledged, CQE written.
    void SetSendCompletionCallback(CompletionCallback cb) { m_sendDone = cb; }
    /// Receiver completion: the last byte written to memory, CQE written.
    void SetReceiveCompletionCallback(CompletionCallback cb) { m_recvDone = cb; }

    /// (Silent arrivals that have arrived by now are applied first.)
    const RdmaNicCounters& GetCounters() const;
    /// The numbers of this NIC's QPs, in creation order.
    std::vector<uint32_t> GetQpns() const;
    /// The rate state of a QP (Rate / TargetRate trace sources). Starts the
    /// QP's state if it has none, and keeps it for the QP's life from then on
    /// (a caller may hold it or connect to its traces).
    Ptr<RdmaRateState> GetRateState(uint32_t qpn) const;
    /// The congestion-control instance of a QP (e.g. Dcqcn's Alpha trace);
    /// started and kept as GetRateState does.
    Ptr<RdmaCongestionControl> GetQpCongestionControl(uint32_t qpn) const;
    /// Counts of the per-QP congestion-control states (LazyCongestionState).
    RdmaCcStateCounts GetCcStateCounts() const { return m_ccCounts; }
    /// True if the QP holds a congestion-control state now (without starting one).
    bool HasCcState(uint32_t qpn) const;
    uint32_t GetMtu() const { return m_mtu; }
    /// Bytes of data the NIC sends as one packet: TransferUnitBytes, or Mtu.
    uint32_t GetSegmentBytes() const { return m_seg; }
    /// Payload bytes the QP has posted and not yet had acknowledged.
    uint64_t GetOutstandingBytes(uint32_t qpn) const;

    /// Bytes after the FabricHeader of a full network transfer unit of
    /// \p unit data bytes in link packets of \p mtu: the data, the first
    /// packet's transport headers (at most kMaxTransportHeader) and the BTH of
    /// each later link packet (none of either with \p headersInTag).
    static uint32_t UnitPacketBytes(uint32_t unit, uint32_t mtu, bool headersInTag)
    {
        const uint32_t n = (unit + mtu - 1) / mtu;
        return headersInTag ? unit : unit + kMaxTransportHeader + (n - 1) * BthHeader::kSize;
    }
    /// Transport header bytes a data packet may carry besides its payload
    /// (kMaxTransportHeader, or 0 with HeadersInTag).
    uint32_t TransportOverhead() const;
    /// Wire bytes the port needs for a data packet of `payload` bytes.
    uint32_t DataWireBytes(uint32_t payload, bool first, bool last, bool write) const;

    /// FabricArrivalFolder (FoldSilentArrivals; fabric.md, "Silent arrivals
    /// at a NIC"): follows every packet sent towards the port, and calls a
    /// RoCE data packet silent when its arrival would be the expected PSN
    /// of its QP with no gap NAKed, not the last of its message, without
    /// AckReq, INT or a CE mark: then it only counts, advances the QP's PSN
    /// and message bytes and takes its time on the receive DMA engine
    /// (ApplyFolded, at its arrival time). Its *psn: the PSN << 1, | 1 for
    /// a message's first packet.
    bool JudgeArrival(const Ptr<Packet>& packet, const FabricHeaderFields& header, bool eligible, uint32_t* qp,
                      uint32_t* len, uint64_t* psn) override;
    void ApplyFolded(uint32_t qp, uint32_t len, uint64_t psn, Time at) override;

  protected:
    void DoDispose() override;

  private:
    void SetMtu(uint32_t mtu);
    uint32_t GetMtuAttr() const { return m_mtu; }
    void SetRetransmitTimeout(Time t);
    Time GetRetransmitTimeout() const { return m_rto; }
    // The DMA engine's parameters as the NIC's attributes.
    void SetPcieRate(DataRate r) { m_dma.SetPcieRate(r); }
    DataRate GetPcieRate() const { return m_dma.GetPcieRate(); }
    void SetPcieLatency(Time t) { m_dma.SetPcieLatency(t); }
    Time GetPcieLatency() const { return m_dma.GetPcieLatency(); }
    void SetMemoryRate(DataRate r) { m_dma.SetMemoryRate(r); }
    DataRate GetMemoryRate() const { return m_dma.GetMemoryRate(); }
    void SetEngineStartup(Time t) { m_dma.SetEngineStartup(t); }
    Time GetEngineStartup() const { return m_dma.GetEngineStartup(); }
    void SetWqeBytes(uint32_t b) { m_dma.SetWqeBytes(b); }
    uint32_t GetWqeBytes() const { return m_dma.GetWqeBytes(); }

    /// \throws std::invalid_argument naming `caller` if the NIC has no QP qpn.
    bool HasQp(uint32_t qpn) const;
    void CheckQpn(uint32_t qpn, const char* caller) const;
    RdmaQueuePair& GetQp(uint32_t qpn, const char* caller = "GetQp");
    const RdmaQueuePair& GetQp(uint32_t qpn, const char* caller = "GetQp") const;

    // transmit
    Ptr<Packet> Pull(uint8_t cls, uint32_t maxBytes);
    /// m: the message of the packet just built (BuildDataPacket's *msg).
    void CommitTransmission(RdmaQueuePair& qp, const RdmaMessage& m, Ptr<Packet> p, Time now);
    bool HasWork(const RdmaQueuePair& qp) const { return qp.HasWork(m_seg, m_windowBytes); }
    Time EligibleAt(const RdmaQueuePair& qp) const { return qp.EligibleAt(m_seg, m_windowBytes); }
    /// The QP's congestion control and rate state, started now if it has
    /// none (LazyCongestionState): a spare one of this NIC or a new fork.
    void StartCc(RdmaQueuePair& qp);
    /// The responder accepts the expected data packet's `len` payload bytes
    /// arrived at `at` (ReceiveData, and ApplyFolded for a silent one):
    /// returns when the receive DMA engine has written them.
    Time AcceptPayload(RdmaQueuePair& qp, bool first, uint32_t len, Time at)
    {
        qp.Accept(first, len);
        m_counters.bytesDelivered += len;
        // Posted writes of the payload into memory on the receive DMA engine.
        return m_dma.Write(at, len);
    }
    /// Applies the port's silent arrivals that have arrived by now
    /// (FabricNetDevice::SettleFoldedRx): before reading or changing what
    /// they change.
    void SettleFolded() const
    {
        if (m_port)
        {
            m_port->SettleFoldedRx();
        }
    }
    void EnsureCc(RdmaQueuePair& qp)
    {
        if (!qp.cc)
        {
            StartCc(qp);
        }
    }
    /// After the QP's last message: drops its state if the QP is idle, the
    /// state not handed out, and the algorithm says it is fresh; else, when
    /// idle and not handed out, pauses it (PauseIdleCongestionControl).
    void MaybeReleaseCc(RdmaQueuePair& qp);
    /// A paused state resumes: before the NIC reads its rate again or hands
    /// it out.
    void ResumeCc(RdmaQueuePair& qp)
    {
        if (qp.ccPaused)
        {
            qp.ccPaused = false;
            qp.cc->Resume(qp.rate);
        }
    }
    Ptr<RdmaRateState> NewRateState(uint32_t qpn) const;
    /// Gives qp its started state and the NIC's rate and window callbacks.
    void AttachCc(RdmaQueuePair& qp, Ptr<RdmaRateState> rate, Ptr<RdmaCongestionControl> cc);
    bool AckRequested(const RdmaQueuePair& qp, const RdmaMessage& m, uint64_t psn) const
    {
        return qp.AckRequested(m, psn, m_seg, m_windowBytes, qp.ackEveryPacket ? 1 : m_ackSegments);
    }
    /// Link packets (of Mtu) in a unit of \p payload bytes: 1 without a unit.
    uint32_t LinkPackets(uint32_t payload) const
    {
        return m_unit == 0 || payload <= m_mtu ? 1 : (payload + m_mtu - 1) / m_mtu;
    }
    /// Transport bytes each link packet after a unit's first carries (its
    /// BTH; none with HeadersInTag): the unit's padding per extra packet.
    uint32_t LinkPacketTransportBytes() const { return m_headersInTag ? 0 : BthHeader::kSize; }
    void SetTransferUnit(uint32_t bytes);
    uint32_t GetTransferUnit() const { return m_unit; }
    /// m_seg and m_ackSegments from Mtu, TransferUnitBytes and AckInterval.
    void UpdateSegment();
    void SetAckInterval(uint32_t n);
    uint32_t GetAckInterval() const { return m_ackInterval; }
    /// *msg: the message the packet belongs to (not searched for again).
    Ptr<Packet> BuildDataPacket(RdmaQueuePair& qp, uint64_t psn, const RdmaMessage** msg);
    /// A packet of `size` payload bytes and nothing else: the oldest pooled
    /// one if it is free (only the pool holds it) and of that size, else a
    /// new one.
    Ptr<Packet> TakeTxPacket(uint32_t size);
    void IssueReads(RdmaQueuePair& qp, Time now);
    void IssueReadsOf(uint32_t qpn);
    void ScheduleWake(Time at);
    void Wake();
    void RateChanged(uint32_t qpn);
    void WindowChanged(uint32_t qpn);
    void ArmRto(RdmaQueuePair& qp);
    void RestartRto(RdmaQueuePair& qp);
    void RtoCheck(uint32_t qpn);
    void RtoExpired(RdmaQueuePair& qp);
    /// Responder: NAKs the open gap of qp and, with a NakInterval, checks
    /// again after it.
    void SendNak(RdmaQueuePair& qp, const FabricHeader& fh);
    void NakRefresh(uint32_t qpn);
    /// Keeps the QP's bit in m_active in step with HasWork.
    void UpdateActive(const RdmaQueuePair& qp);
    /// The first QP of class cls with work at a position in [from, end) of
    /// m_byClass[cls]; end if none.
    uint32_t NextActive(uint8_t cls, uint32_t from, uint32_t end) const;
    void SendControl(uint32_t dst, uint32_t dstQpn, uint8_t priority, uint32_t flow,
                     uint8_t opcode, uint64_t psn, bool nak, bool ecnEcho = false);
    /// ACK or NAK of the responder of qp, with its ECN echo.
    void SendAck(RdmaQueuePair& qp, const FabricHeader& fh, uint64_t psn, bool nak);

    // receive
    void Receive(Ptr<FabricNetDevice> dev, Ptr<Packet> packet, const FabricHeader& header);
    /// tag: the NVLink link transport fields (FabricLinkTransport); roce: the
    /// RoCE headers read in place (p still holds them); neither: p stripped
    /// to its transport payload.
    void ReceiveData(RdmaQueuePair& qp, const FabricHeader& fh, const BthFields& bth,
                     Ptr<Packet> p, const FabricLinkTransport* tag, const RdmaRoceHeaders* roce);
    void ReceiveAck(RdmaQueuePair& qp, const BthFields& bth, const AethHeader& aeth);
    /// Sender completions of the messages the QP's acknowledged PSN covers.
    void CompleteSends(RdmaQueuePair& qp);

    Ptr<FabricNetDevice> m_port;
    DataRate m_lineRate;
    uint32_t m_mtu{4096};
    /// TransferUnitBytes: 0, or a multiple of m_mtu the NIC sends as one
    /// packet standing for its MTU packets (one PSN each unit).
    uint32_t m_unit{0};
    uint32_t m_seg{4096};        ///< the QP's segment: m_unit, or m_mtu without one
    uint32_t m_ackSegments{64};  ///< AckInterval in segments (AckInterval MTU packets, rounded up to units)
    RdmaDmaEngine m_dma;
    uint32_t m_prefetch;
    uint32_t m_ackInterval{64};
    Time m_rto;
    Time m_nakInterval;
    uint64_t m_windowBytes;
    uint8_t m_cnpPriority;
    bool m_ackHighPriority{false}; ///< ACKs/NAKs on m_cnpPriority's class
    bool m_ecnCapable;
    bool m_headersInTag;
    TypeId m_ccType;
    Ptr<RdmaCongestionControl> m_ccProto;
    bool m_lazyCc{true};
    bool m_pauseIdleCc{true}; ///< attribute PauseIdleCongestionControl
    bool m_foldSilent{true}; ///< attribute FoldSilentArrivals
    /// A packet JudgeArrival could not read (INT between the FabricHeader
    /// and the BTH): its QP's account no longer holds, so none is folded.
    bool m_foldBroken{false};
    /// The prototype started once on this port (its FlowStart accepted the
    /// line rate): later QPs may start theirs lazily.
    bool m_ccChecked{false};
    /// Released fresh states, handed to the next QP that starts one (a
    /// pairwise AllToAll moves from peer to peer: no fork per message).
    std::vector<std::pair<Ptr<RdmaRateState>, Ptr<RdmaCongestionControl>>> m_ccSpare;
    RdmaCcStateCounts m_ccCounts;

    /// deque: references stay valid as QPs are added; two QPs per node
    std::deque<RdmaQueuePair> m_qps;
    std::vector<std::vector<uint32_t>> m_byClass; ///< QPs per priority class
    /// A bit per class with a QP that has work (the port asks only these,
    /// and does not poll the NIC while there are none: every change that
    /// gives a QP work is followed by ScheduleWake, whose Wake tells the port).
    uint8_t m_workClasses{0};
    std::array<uint32_t, 8> m_workQps{}; ///< per class, the QPs with work (bits set in m_active)
    std::vector<uint32_t> m_rrNext;               ///< round-robin cursor per class
    /// Per class, a bit per QP (by position in m_byClass) that has work:
    /// Pull visits only these, so its cost does not grow with idle QPs.
    std::vector<std::vector<uint64_t>> m_active;
    /// TxPacketPool: data packets sent, oldest first, with their payload
    /// bytes. Packets are consumed at the receiver mostly in the order they
    /// were sent, so only the front is checked (no scan).
    FabricRingQueue<std::pair<Ptr<Packet>, uint32_t>> m_txPool;
    /// The FabricHeader BuildDataPacket last wrote (handed to the port with
    /// the packet Pull returns: FabricNetDevice::SetPulledHeader).
    FabricHeaderFields m_builtHeader;
    uint32_t m_txPoolLimit{64};
    /// INT records of the packet being received (empty without INT): the
    /// ACK sent for a data packet echoes them, an ACK hands them to the cc.
    std::vector<RdmaIntHop> m_rxInt;
    EventId m_wake;
    uint64_t m_nextWrId{1};
    Callback<void, uint32_t> m_rateChangedCb;   ///< RateChanged, shared by every QP's rate state
    Callback<void, uint32_t> m_windowChangedCb; ///< WindowChanged, likewise

    CompletionCallback m_sendDone;
    CompletionCallback m_recvDone;
    RdmaNicCounters m_counters;

    TracedCallback<uint32_t> m_cnpTxTrace;
    TracedCallback<uint32_t> m_cnpRxTrace;
    TracedCallback<uint32_t, uint64_t> m_retransmitTrace;
    TracedCallback<const RdmaCompletion&> m_sendDoneTrace;
    TracedCallback<const RdmaCompletion&> m_recvDoneTrace;
};

} // namespace ns3

#endif
