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
// The same class drives NVLink ports (a GPU copy engine / SM transfer): set
// PcieLatency to 0, PcieRate to the memory rate, EngineStartup to the
// engine's launch cost and CongestionControl to ns3::RdmaCcNone.
#ifndef HOCKNEY_RDMA_NIC_H
#define HOCKNEY_RDMA_NIC_H

#include "bth-header.h"
#include "fabric-header.h"
#include "fabric-net-device.h"
#include "rdma-congestion-control.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

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
    uint64_t naksSent{0};
    uint64_t naksReceived{0};
    uint64_t timeouts{0};
    uint64_t cnpsSent{0};
    uint64_t cnpsReceived{0};
    uint64_t outOfOrderDropped{0}; ///< packets discarded by go-back-N at the receiver
    uint64_t controlDropped{0};    ///< ACK, NAK or CNP refused by the local port
    uint64_t unknownQpDropped{0};  ///< packets received for a QP this NIC does not have
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

class RdmaTransportTag;

class RdmaNic : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    using CompletionCallback = Callback<void, const RdmaCompletion&>;

    /// Transport bytes a data packet carries in its payload besides data at
    /// most: BTH 12 + RETH 16 + ImmDt 4.
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

    const RdmaNicCounters& GetCounters() const { return m_counters; }
    /// The rate state of a QP (Rate / TargetRate trace sources).
    Ptr<RdmaRateState> GetRateState(uint32_t qpn) const;
    /// The congestion-control instance of a QP (e.g. Dcqcn's Alpha trace).
    Ptr<RdmaCongestionControl> GetQpCongestionControl(uint32_t qpn) const;
    uint32_t GetMtu() const { return m_mtu; }
    /// Payload bytes the QP has posted and not yet had acknowledged.
    uint64_t GetOutstandingBytes(uint32_t qpn) const;

    /// Transport header bytes a data packet may carry besides its payload
    /// (kMaxTransportHeader, or 0 with HeadersInTag).
    uint32_t TransportOverhead() const;
    /// Wire bytes the port needs for a data packet of `payload` bytes.
    uint32_t DataWireBytes(uint32_t payload, bool first, bool last, bool write) const;

  protected:
    void DoDispose() override;

  private:
    struct Message
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

    struct Qp
    {
        uint32_t qpn{0};
        uint8_t priority{0};
        uint32_t peerAddress{kFabricNoAddress};
        uint32_t peerQpn{0};
        bool connected{false};
        Ptr<RdmaRateState> rate;
        Ptr<RdmaCongestionControl> cc;
        // requester
        std::deque<Message> sq; ///< posted, not yet fully acknowledged
        uint64_t nextPsn{0};    ///< PSN of the next packet to post (end of sq)
        uint64_t sndNxt{0};     ///< next PSN to transmit
        uint64_t sndUna{0};     ///< oldest unacknowledged PSN
        uint64_t highSent{0};   ///< one past the highest PSN ever transmitted
        uint64_t readPsn{0};    ///< next PSN whose payload read is not issued yet
        std::deque<Time> readReady; ///< payload in the NIC, PSNs highSent..readPsn-1
        uint64_t outstandingBytes{0};
        uint64_t postedBytes{0}; ///< payload bytes ever posted
        uint64_t ccWindow{0};    ///< the congestion control's window (0: none)
        /// PSN and transmission time of the AckReq packets not yet answered,
        /// in PSN order: the RTT samples of AckReceived.
        std::deque<std::pair<uint64_t, Time>> ackReqSent;
        Time nextTx;            ///< rate limiter: earliest start of the next packet
        Time lastTxStart;
        uint32_t lastTxWire{0};
        /// Retransmission deadline (Time::Max(): disarmed). Moving it is a
        /// field write: one check event per QP is pending at most, and when
        /// it fires early it re-schedules itself at the deadline, instead of
        /// a cancelled and re-armed timer for every ACK.
        Time rtoDeadline{Time::Max()};
        uint64_t ackReqHigh{0}; ///< one past the highest PSN sent with AckReq
        EventId rtoCheck;
        uint32_t classIndex{0}; ///< position in m_byClass[priority]
        // responder
        uint64_t ePsn{0};
        bool nakSent{false};
        bool ceSinceAck{false}; ///< a CE mark arrived since the last ACK (ECN echo)
        uint64_t rxMsgBytes{0};
        Ptr<Packet> rxInline;
    };

    void SetMtu(uint32_t mtu);
    uint32_t GetMtuAttr() const { return m_mtu; }
    void SetPcieRate(DataRate r);
    void SetPcieLatency(Time t);
    void SetMemoryRate(DataRate r);
    DataRate GetMemoryRate() const { return m_memoryRate; }
    void SetEngineStartup(Time t);
    void SetRetransmitTimeout(Time t);
    DataRate GetPcieRate() const { return m_pcieRate; }
    Time GetPcieLatency() const { return m_pcieLatency; }
    Time GetEngineStartup() const { return m_engineStartup; }
    Time GetRetransmitTimeout() const { return m_rto; }

    /// \throws std::invalid_argument naming `caller` if the NIC has no QP qpn.
    void CheckQpn(uint32_t qpn, const char* caller) const;
    Qp& GetQp(uint32_t qpn, const char* caller = "GetQp");
    const Qp& GetQp(uint32_t qpn, const char* caller = "GetQp") const;
    DataRate DmaRate() const;
    Time DmaTime(uint64_t bytes) const;

    // transmit
    Ptr<Packet> Pull(uint8_t cls, uint32_t maxBytes);
    void CommitTransmission(Qp& qp, Ptr<Packet> p, Time now);
    bool HasWork(const Qp& qp) const;
    Time EligibleAt(const Qp& qp) const;
    Ptr<Packet> BuildDataPacket(Qp& qp, uint64_t psn);
    const Message* FindMessage(const Qp& qp, uint64_t psn) const;
    uint32_t PacketPayload(const Message& m, uint64_t psn) const;
    void IssueReads(Qp& qp);
    void IssueReadsOf(uint32_t qpn);
    void ScheduleWake(Time at);
    void Wake();
    void RateChanged(uint32_t qpn);
    void WindowChanged(uint32_t qpn);
    /// Bytes in flight at which the QP stops (0: no limit): the smaller of
    /// WindowBytes and the congestion control's window, where non-zero.
    uint64_t Window(const Qp& qp) const;
    /// Payload bytes the QP posted before PSN psn (psn in sq or = nextPsn).
    uint64_t ByteOffset(const Qp& qp, uint64_t psn) const;
    /// Time since the transmission of the AckReq packet an ACK for psn
    /// answers (zero if none), dropping the records the ACK covers.
    Time TakeRttSample(Qp& qp, uint64_t psn, bool nak);
    /// True if the packet psn of m asks for an acknowledgement (AckReq):
    /// the last of its message, every AckInterval-th PSN, and the one that
    /// fills the window.
    bool AckRequested(const Qp& qp, const Message& m, uint64_t psn) const;
    void ArmRto(Qp& qp);
    void RestartRto(Qp& qp);
    void RtoCheck(uint32_t qpn);
    void RtoExpired(Qp& qp);
    /// Keeps the QP's bit in m_active in step with HasWork.
    void UpdateActive(const Qp& qp);
    /// The first QP of class cls with work at a position in [from, end) of
    /// m_byClass[cls]; end if none.
    uint32_t NextActive(uint8_t cls, uint32_t from, uint32_t end) const;
    void SendControl(uint32_t dst, uint32_t dstQpn, uint8_t priority, uint32_t flow,
                     uint8_t opcode, uint64_t psn, bool nak, bool ecnEcho = false);
    /// ACK or NAK of the responder of qp, with its ECN echo.
    void SendAck(Qp& qp, const FabricHeader& fh, uint64_t psn, bool nak);

    // receive
    void Receive(Ptr<FabricNetDevice> dev, Ptr<Packet> packet, const FabricHeader& header);
    void ReceiveData(Qp& qp, const FabricHeader& fh, const BthHeader& bth, Ptr<Packet> p,
                     const RdmaTransportTag* tag);
    void ReceiveAck(Qp& qp, const BthHeader& bth, const AethHeader& aeth);
    static uint64_t Unwrap(uint64_t reference, uint32_t psn24);

    Ptr<FabricNetDevice> m_port;
    DataRate m_lineRate;
    uint32_t m_mtu;
    DataRate m_pcieRate;
    Time m_pcieLatency;
    DataRate m_memoryRate;
    Time m_engineStartup;
    uint32_t m_wqeBytes;
    uint32_t m_prefetch;
    uint32_t m_ackInterval;
    Time m_rto;
    uint64_t m_windowBytes;
    uint8_t m_cnpPriority;
    bool m_ecnCapable;
    bool m_headersInTag;
    TypeId m_ccType;
    Ptr<RdmaCongestionControl> m_ccProto;

    std::deque<Qp> m_qps; ///< deque: references stay valid as QPs are added
    std::vector<std::vector<uint32_t>> m_byClass; ///< QPs per priority class
    std::vector<uint32_t> m_rrNext;               ///< round-robin cursor per class
    /// Per class, a bit per QP (by position in m_byClass) that has work:
    /// Pull visits only these, so its cost does not grow with idle QPs.
    std::vector<std::vector<uint64_t>> m_active;
    Time m_txDmaFreeAt;
    Time m_rxDmaFreeAt;
    EventId m_wake;
    uint64_t m_nextWrId{1};

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
