// SPDX-License-Identifier: GPL-2.0-only
//
// A fabric port: one full-duplex point-to-point port with 8 priority classes,
// serialization at DataRate, link-level flow control as a strategy
// (fabric-flow-control.h), and either an endpoint role (it has a fabric
// address and hands packets up) or a switch role (it belongs to a FabricSwitch
// that forwards what it receives).
//
// Transmit path (one state machine for every port kind): when the transmitter
// is free it sends, in this order, (1) a pending link-local frame of the flow
// control (pause; a credit update goes standalone only if no data is ready,
// else it rides on the data packet, see FabricFlowControl::CanPiggyback), (2)
// a data packet of the class its egress scheduler picks
// (fabric-egress-scheduler.h: strict priority, round robin or DWRR, chosen by
// the Scheduler attribute), skipping classes the flow control blocks. Within
// a class, packets queued with Send()/SendFabric() go before the packets
// pulled from a registered transmit source.
//
// Events: a departure schedules the peer's reception (ScheduleWithContext on
// the peer node) and, only if more work is queued, one event at the end of
// serialization to start the next packet. Packets are never copied on the way,
// except when a switch sets CE (the copy-on-write keeps a sender's retained
// reference intact).
//
// Contract for NICs (pull interface): register a TxSource. When the
// transmitter is free and class c is neither paused nor out of credit, the
// device calls source(c, maxBytes); the source returns a packet (beginning
// with a FabricHeader of priority c) whose size is at most maxBytes, or
// nullptr if it has nothing for c now. When the NIC later has a packet ready,
// it calls NotifyTxReady(). Received DATA packets go to the fabric receive
// callback with the FabricHeader still at the front of the packet and the
// parsed header beside it (ECN CE visible).
#ifndef HOCKNEY_FABRIC_NET_DEVICE_H
#define HOCKNEY_FABRIC_NET_DEVICE_H

#include "ecn-marker.h"
#include "fast-simulator-impl.h"
#include "fabric-egress-scheduler.h"
#include "fabric-flow-control.h"
#include "fabric-header.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <array>
#include <deque>
#include <optional>
#include <vector>

namespace ns3
{

class FabricChannel;
class FabricSwitch;

/// Link technology of a port; decides the pcap link type and framing only
/// (fabric-pcap-helper.h).
enum class FabricLinkType
{
    ETHERNET,   ///< RoCEv2: pcap DLT_EN10MB with synthesized Eth/IPv4/UDP(4791)
    INFINIBAND, ///< pcap DLT_USER0 (raw FabricHeader + payload)
    NVLINK,     ///< pcap DLT_USER1
    PCIE,       ///< pcap DLT_USER2
    GENERIC     ///< pcap DLT_USER3
};

/// Why a DATA packet was dropped (FabricPortCounters::dropsBy; fabric.md,
/// "Faults"). Counted at the port where it was lost.
enum FabricDropCause : uint8_t
{
    kDropBuffer = 0, ///< switch ingress admission: shared buffer and headroom full (lossy tail drop)
    kDropNoRoute,    ///< a switch had no route to the destination
    kDropLinkDown,   ///< sent onto, or in flight on, a link that is down (fault link_down)
    kDropCorrupt,    ///< corrupted on the wire into this port (ReceiveErrorModel; fault lossy_link)
    kFabricDropCauses
};

/// "buffer", "no_route", "link_down", "corrupt": the suffix of the rows' drops_* columns.
const char* FabricDropCauseName(uint8_t cause);
/// True for the causes a fault injects by design (a lossless fabric may
/// drop for them; the conservation check attributes instead of failing).
bool IsFaultDropCause(uint8_t cause);

/// Per-port counters; bytes are packet bytes after the FabricHeader
/// ("payload": what endpoints handed in) unless named wire.
struct FabricPortCounters
{
    uint64_t txPackets{0};     ///< DATA packets whose transmission started
    uint64_t txBytes{0};       ///< their payload bytes
    uint64_t txWireBytes{0};   ///< their on-wire bytes
    uint64_t txTransportControl{0}; ///< of txPackets: endpoint ACKs, NAKs, CNPs (no payload)
    uint64_t rxPackets{0};     ///< DATA packets received
    uint64_t rxBytes{0};       ///< their payload bytes
    // Those above and these four are counted per hop: two cache lines.
    uint64_t controlTx{0};     ///< link-local frames sent (pause, credit)
    uint64_t maxQueueBytes{0}; ///< largest summed queue (payload bytes) seen
    Time busyTime;             ///< time the transmitter was serializing
    /// INT hop records (int-header.h) this switch port added to packets it
    /// queued: payload bytes that no endpoint injected.
    uint64_t intBytes{0};
    uint64_t drops{0};         ///< DATA packets dropped here (ingress admission / no route / link down / corrupt)
    uint64_t dropBytes{0};     ///< their payload bytes
    /// Drops by FabricDropCause. dropsBy[kDropCorrupt]: received packets the
    /// ReceiveErrorModel corrupted on the wire into this port (they also
    /// count in rxPackets: they did arrive).
    std::array<uint64_t, kFabricDropCauses> dropsBy{};
    std::array<uint64_t, kFabricDropCauses> dropBytesBy{}; ///< their payload bytes by cause
    /// Of dropBytes: payload of packets the peer sent that the link lost
    /// before they arrived here (not received, no longer on the wire).
    uint64_t lostOnLinkBytes{0};
    uint64_t controlRx{0};     ///< link-local frames received
    uint64_t pausesSent{0};    ///< PFC frames with quanta > 0 sent (one per frame)
    uint64_t resumesSent{0};   ///< PFC frames that only resume (XON)
    uint64_t pausesReceived{0}; ///< PFC frames with quanta > 0 received
    Time pausedTime;           ///< summed over classes: time a class was held paused by the peer
    uint64_t ecnMarks{0};      ///< packets this port set to CE
};

/**
 * The receiver behind an endpoint port that can take some of its arrivals
 * without an event (RdmaNic, FoldSilentArrivals; fabric.md "Silent
 * arrivals at a NIC"). The port hands it every packet the peer sends
 * towards it, when the peer starts sending it and in the order they will
 * arrive (the link is a FIFO): JudgeArrival. A packet it calls silent is
 * not scheduled; the port keeps it and applies it, each with its own
 * arrival time, before anything could see the state it changes
 * (FabricNetDevice::SettleFoldedRx), or schedules its arrival event after
 * all when the port stops folding (UnfoldRx: the link goes down, a receive
 * error model, another receiver or a trace sink appears).
 */
class FabricArrivalFolder
{
  public:
    virtual ~FabricArrivalFolder() = default;
    /// A packet with \p header starts on its way to the port. The
    /// receiver follows it (every packet the port will receive passes
    /// here, in arrival order) and returns true if its arrival is silent:
    /// \p eligible (the port and the link allow it) and, for the receiver,
    /// an arrival that changes nothing but what ApplyFolded changes and
    /// schedules nothing. Then *qp, *len and *psn get what ApplyFolded needs.
    virtual bool JudgeArrival(const Ptr<Packet>& packet, const FabricHeaderFields& header, bool eligible,
                              uint32_t* qp, uint32_t* len, uint64_t* psn) = 0;
    /// The silent arrival judged with (qp, len, psn) takes place at \p at.
    virtual void ApplyFolded(uint32_t qp, uint32_t len, uint64_t psn, Time at) = 0;
};

class FabricNetDevice : public NetDevice
{
  public:
    /// Egress scheduler the Scheduler attribute installs (fabric-egress-scheduler.h).
    enum SchedulerType
    {
        ROUND_ROBIN,    ///< FabricRoundRobinScheduler: one packet per class per turn
        DWRR,           ///< FabricDwrrScheduler: deficit weighted round robin
        STRICT_PRIORITY ///< FabricStrictPriorityScheduler: every class strict
    };

    /// Pull source: (class, max packet bytes) -> packet or nullptr.
    using TxSource = Callback<Ptr<Packet>, uint8_t, uint32_t>;
    /// Receive: (device, packet with FabricHeader at the front, parsed header).
    using FabricRxCallback = Callback<void, Ptr<FabricNetDevice>, Ptr<Packet>, const FabricHeader&>;

    static TypeId GetTypeId();
    FabricNetDevice();
    ~FabricNetDevice() override;

    // ---- configuration -------------------------------------------------
    void SetDataRate(DataRate rate);
    DataRate GetDataRate() const { return m_rate; }
    /// Framing bytes per packet on the wire in place of the FabricHeader.
    void SetHeaderBytes(uint32_t bytes) { m_headerBytes = bytes; }
    uint32_t GetHeaderBytes() const { return m_headerBytes; }
    /// On-wire bytes of a link-local frame (pause, credit update).
    uint32_t GetControlFrameBytes() const { return m_controlFrameBytes; }
    /// Endpoint fabric address (kFabricNoAddress on switch ports).
    void SetFabricAddress(uint32_t address);
    uint32_t GetFabricAddress() const { return m_address; }
    /// Installs the flow-control strategy (replaces the current one).
    void SetFlowControl(Ptr<FabricFlowControl> fc);
    Ptr<FabricFlowControl> GetFlowControl() const { return m_fc; }
    /// Egress ECN marking (switch ports); nullptr = no marking.
    void SetEcnMarker(Ptr<FabricEcnMarker> marker) { m_ecn = marker; }
    Ptr<FabricEcnMarker> GetEcnMarker() const { return m_ecn; }
    void SetLinkType(FabricLinkType t) { m_linkType = t; }
    FabricLinkType GetLinkType() const { return m_linkType; }
    /// Receiving side of cut-through: packets are handed to this port once
    /// their header has arrived (the peer's channel honours it).
    bool IsCutThrough() const { return m_cutThrough; }
    void SetCutThrough(bool on) { m_cutThrough = on; }
    /// A store-and-forward switch port that takes a network transfer unit
    /// (h.GetLinkPackets() = n > 1) link packet by link packet, as the n
    /// packets it stands for would be stored and forwarded: handed to the
    /// switch when its first link packet is in, its last bit out no earlier
    /// than one link packet after its last bit came in (FabricSwitch
    /// attribute PipelinedUnits; fabric.md, "Network transfer units").
    void SetPipelinedUnits(bool on) { m_pipelinedUnits = on; }
    bool PipelinesUnit(const FabricHeaderFields& h) const
    {
        return m_pipelinedUnits && !m_cutThrough && h.GetLinkPackets() > 1;
    }
    /// Whether a packet with \p h is handed to this port before its last
    /// bit (its header at a cut-through port, a unit's first link packet at
    /// a pipelining one): the sender's channel times the arrival by the
    /// transmission's headerTime then, by its last bit otherwise.
    bool ReceivesBeforeLastBit(const FabricHeaderFields& h) const { return m_cutThrough || PipelinesUnit(h); }
    /// Installs a new scheduler of \p type with its default attributes.
    void SetSchedulerType(SchedulerType type);
    SchedulerType GetSchedulerType() const { return m_schedulerType; }
    /// Installs \p scheduler (its parameters are its own attributes).
    void SetEgressScheduler(Ptr<FabricEgressScheduler> scheduler);
    Ptr<FabricEgressScheduler> GetEgressScheduler() const { return m_scheduler; }
    void Attach(Ptr<FabricChannel> channel);
    /// Loss on the wire into this port (ns-3's ErrorModel, e.g. a
    /// RateErrorModel in packets or bits, as PointToPointNetDevice's
    /// ReceiveErrorModel): a received DATA packet (ACK/NAK/CNP included) it
    /// corrupts is dropped and counted as a corrupt drop; link-local frames
    /// (pause, credit) are exempt (fabric.md). Null: no loss.
    void SetReceiveErrorModel(Ptr<ErrorModel> em);
    Ptr<ErrorModel> GetReceiveErrorModel() const { return m_receiveErrorModel; }
    /// Fixes the random stream of a RateErrorModel receive error model to
    /// \p stream; returns the streams used (0 or 1).
    int64_t AssignStreams(int64_t stream);
    /// The device at the other end of the channel (nullptr before Attach of both).
    Ptr<FabricNetDevice> GetPeer() const;

    // ---- timing --------------------------------------------------------
    /// On-wire bytes of a packet of `packetSize` bytes (FabricHeader included).
    /// Inline: several calls per packet and hop.
    uint32_t WireBytes(uint32_t packetSize) const
    {
        constexpr uint32_t hdr = FabricHeader::kSerializedSize;
        const uint32_t payload = packetSize > hdr ? packetSize - hdr : 0;
        const uint32_t headers = m_headerGranule == 0 || payload <= m_headerGranule
                                     ? 1
                                     : (payload + m_headerGranule - 1) / m_headerGranule;
        return std::max(payload + headers * m_headerBytes, m_minWireBytes);
    }
    /// The same for a packet with header \p h: a network transfer unit
    /// (h.GetLinkPackets() = n > 1) is framed as its n link packets, n
    /// HeaderBytes (or the granule's count, if larger); the per-packet
    /// transport bytes are in its size (RdmaNic pads them).
    uint32_t WireBytes(uint32_t packetSize, const FabricHeaderFields& h) const
    {
        const uint32_t n = h.GetLinkPackets();
        if (n == 1)
        {
            return WireBytes(packetSize);
        }
        constexpr uint32_t hdr = FabricHeader::kSerializedSize;
        const uint32_t payload = packetSize > hdr ? packetSize - hdr : 0;
        const uint32_t granules =
            m_headerGranule == 0 ? 1 : (payload + m_headerGranule - 1) / m_headerGranule;
        return std::max(payload + std::max(n, granules) * m_headerBytes, m_minWireBytes);
    }
    /// On-wire bytes of the largest packet this port may carry: Mtu (or
    /// the max payload) framed as UnitLinkPackets link packets. The PFC
    /// headroom and the credit update threshold allow for it.
    uint32_t MaxFrameWireBytes() const;
    /// Payload limit above the 16-bit Mtu, for network transfer units of up
    /// to 256 MTU packets (a unit of 64 KiB of data and its transport bytes
    /// exceeds 65535); GetMtu() then reads 65535.
    void SetMaxPayloadBytes(uint32_t bytes);
    uint32_t GetMaxPayloadBytes() const { return m_mtu; }
    /// Attribute UnitLinkPackets.
    void SetUnitLinkPackets(uint32_t n) { m_unitLinkPackets = std::max<uint32_t>(1, n); }
    uint32_t GetUnitLinkPackets() const { return m_unitLinkPackets; }
    /// Serialization time of `wireBytes` at DataRate, exact in picoseconds
    /// (rounded to the nearest ps). The last answer is kept: most packets
    /// of a port are of one size, and the exact division is a 128-bit one.
    Time SerializationTime(uint64_t wireBytes) const
    {
        if (wireBytes != m_serBytes)
        {
            m_serTime = ComputeSerializationTime(wireBytes);
            m_serBytes = wireBytes;
        }
        return m_serTime;
    }

    // ---- endpoint sending ----------------------------------------------
    /// Queues a packet that already begins with a FabricHeader (class from the
    /// header). False (and MacTxDrop) if the class queue is full or the packet
    /// exceeds the MTU.
    bool SendFabric(Ptr<Packet> packet);
    /// As SendFabric(packet) for a packet whose leading FabricHeader the
    /// caller has just written from `header`: the fields are queued as given
    /// (no read back), with what the 16 bytes do not hold (the link transport
    /// fields, FabricLinkTransport).
    bool SendFabricWritten(Ptr<Packet> packet, const FabricHeaderFields& header);
    /// Adds `header` to `packet` and queues it (source address filled in if unset).
    bool SendFabric(Ptr<Packet> packet, const FabricHeader& header);
    /// Registers the NIC's pull source (replaces a previous one; null callback
    /// removes). The device asks it only for classes in `classMask`. The
    /// source's maxBytes bounds a packet's size plus (n - 1) HeaderBytes
    /// for a unit of n link packets: its wire bytes fit the budget then.
    void SetTxSource(TxSource source, uint8_t classMask = 0xFF);
    /// The classes of `classMask` the source may have a packet of now (a
    /// NIC: the classes of its queue pairs with work); the others are not
    /// asked, and with none the port schedules no start at the end of a
    /// transmission to ask. A source that gets a packet of a class it left
    /// out calls NotifyTxReady (default all: asked at every chance).
    void SetTxSourceClasses(uint8_t classes) { m_sourceClasses = classes; }
    /// The source hands over the FabricHeader of the packet it is about to
    /// return from this pull (the fields it wrote), so that the port does
    /// not read them back from the bytes. Good for that one pull only; a
    /// source that does not call it has the header read (PeekHeader).
    void SetPulledHeader(const FabricHeaderFields& h)
    {
        m_pulledHeader = h;
        m_hasPulledHeader = true;
    }
    /// The NIC has a packet ready: start transmitting if the port is idle.
    void NotifyTxReady();
    /// (A receive callback other than the folder's ends folding: the
    /// folder no longer sees what arrives.)
    void SetFabricReceiveCallback(FabricRxCallback cb);
    /// The receive callback installed (to chain another receiver in front).
    FabricRxCallback GetFabricReceiveCallback() const { return m_fabricRx; }
    /// Silent arrivals (FabricArrivalFolder): the receiver that judges
    /// this endpoint port's arrivals (null: none, every arrival its event).
    /// Set before the packets it judges are sent (RdmaNic::Attach); a null
    /// one forgets the kept arrivals (the receiver is going away).
    void SetArrivalFolder(FabricArrivalFolder* folder);
    /// Called by the channel when the peer starts sending \p packet here,
    /// instead of scheduling its arrival at \p at (tie key \p tie, link
    /// token \p token): true if it was kept as a silent arrival. Every
    /// packet to a port with a folder passes here (\p eligible false where
    /// the link does not allow folding), so that the folder follows them.
    bool FoldArrival(Ptr<Packet>& packet, const FabricHeaderFields& header, Time at, Time rxEnd, uint64_t tie,
                     uint64_t token, bool eligible, Time now);
    /// True if the channel must offer this port's arrivals to FoldArrival.
    bool HasArrivalFolder() const { return m_folder != nullptr && !m_foldOff; }
    /// Applies the kept silent arrivals that have arrived by now (before
    /// the running event, in tie-key order at equal times; all of this
    /// picosecond after the run stopped in an unkeyed event), each at its
    /// own time: what reads or changes the state they change calls it first.
    void SettleFoldedRx(Time now)
    {
        if (!m_foldedRx.empty())
        {
            ApplyFoldedRx(now);
        }
    }
    void SettleFoldedRx() { SettleFoldedRx(hotsim::Now()); }
    /// The kept arrivals that have not arrived by now get their arrival
    /// events after all (each at its time under its own tie key: they run
    /// where they would have run); those that have are applied first.
    void UnfoldRx();

    // ---- state and statistics -------------------------------------------
    /// True while the transmitter is serializing.
    bool IsBusy() const;
    /// Payload bytes queued in class cls (switch egress or Send() queue).
    uint64_t GetQueueBytes(uint8_t cls) const
    {
        Settle();
        return m_queues[cls].bytes;
    }
    uint32_t GetQueuePackets(uint8_t cls) const
    {
        Settle();
        return m_queues[cls].items.size();
    }
    uint64_t GetTotalQueueBytes() const
    {
        Settle();
        return m_queuedBytes;
    }
    /// Counters; pausedTime includes pauses still in progress.
    FabricPortCounters GetCounters() const;
    /// Bitmask of classes the flow control currently blocks.
    uint8_t GetBlockedClasses() const;
    /// The switch this port belongs to (nullptr on endpoints) and its index there.
    FabricSwitch* GetSwitch() const { return m_switch; }
    uint32_t GetPortIndex() const { return m_portIndex; }

    // ---- hooks used by the fabric's own classes -------------------------
    /// Called by FabricSwitch::AddPort.
    void SetSwitch(FabricSwitch* sw, uint32_t portIndex);
    /// Switch egress: queue a forwarded packet; it may start at `ready`;
    /// its last bit arrived (or will arrive, cut-through) at `rxEnd`;
    /// `now` is the caller's Simulator::Now() (read once per hop).
    void EnqueueForwarded(Ptr<Packet> packet, const FabricHeaderFields& header, uint32_t ingressPort,
                          uint32_t ingressWireBytes, Time ready, Time rxEnd, Time now)
    {
        EnqueueForwarded(std::move(packet), header, ingressPort, ingressWireBytes, ready, rxEnd, now, now,
                         RunningTie());
    }
    /// The tie key of the event running now (tie-keyed-events.h).
    static uint64_t RunningTie();
    /// The same for a packet that arrives at the switch at \p arrival under
    /// the tie key \p tie (its arrival event's): if \p arrival > \p now it
    /// is taken in early (TakeInArrived) and joins the queue as of its
    /// arrival; else now, as above.
    void EnqueueForwarded(Ptr<Packet> packet, const FabricHeaderFields& header, uint32_t ingressPort,
                          uint32_t ingressWireBytes, Time ready, Time rxEnd, Time now, Time arrival, uint64_t tie);
    /**
     * Early take-in (FabricSwitch::TakesInEarly: a credit port of a switch
     * whose ForwardingLatency is spent in its ingress pipeline). Called by
     * the channel when the peer starts sending the packet: the switch routes
     * and charges it now (credit admission does not depend on the time) and
     * its egress holds it aside until its arrival at \p arrival, when it
     * joins the egress queue in the place the arrival event (tie key \p tie)
     * would have given it (TakeInArrived). Returns the egress port (null if
     * the switch dropped it), whose ReleaseArrived the channel schedules at
     * the packet's ready time: the one event of this hop.
     */
    FabricNetDevice* ReceiveEarly(Ptr<Packet> packet, const FabricHeaderFields& header, Time rxEnd, Time arrival,
                                  uint64_t tie, Time now);
    /// The event at an early-taken-in packet's ready time: the packet has
    /// arrived and may start (the port starts it if idle).
    void ReleaseArrived();
    /// Moves the early-taken-in packets that have arrived by now (before
    /// the running event, in tie-key order at equal times) into the class
    /// queues, each as its arrival event would have queued it.
    void TakeInArrived(Time now);
    /// The link from the switch's port \p ingressPort went down at \p now:
    /// early-taken-in packets from it that had not arrived are lost, each
    /// at its arrival (as a packet on a dead link).
    void LoseIncoming(uint32_t ingressPort, Time now);
    /// An early-taken-in packet of \p bytes payload from this port arrived.
    void CountArrived(uint32_t bytes)
    {
        ++m_counters.rxPackets;
        m_counters.rxBytes += bytes;
    }
    /// Called by the channel in this node's context.
    /// `now`: Simulator::Now(), the arrival event's time.
    void Receive(Ptr<Packet> packet, const FabricHeaderFields& header, Time rxEnd, Time now)
    {
        Receive(std::move(packet), header, rxEnd, now, now);
    }
    /// The same for a packet that arrived at `arrival` and is taken in at
    /// `now` = `arrival` + the switch's ForwardingLatency (its ingress
    /// pipeline: IngressPipelineLatency).
    void Receive(Ptr<Packet> packet, const FabricHeaderFields& header, Time rxEnd, Time arrival, Time now);
    /**
     * How long after its arrival the channel should hand this port the
     * packet with \p header: the switch's ForwardingLatency if it takes
     * packets of this port in through an ingress pipeline
     * (FabricSwitch::PipelinesIngress), else 0 (at its arrival). Not for a
     * packet addressed to an in-switch reduction group, nor on a port whose
     * receive side is observed at the arrival (ReceiveErrorModel, PhyRxEnd,
     * Sniffer): those are taken in at their arrival as before.
     */
    Time IngressPipelineLatency(const FabricHeaderFields& header) const;
    /// A link-local frame from the peer (channel, this node's context).
    void ReceiveControl(FabricControlFrame frame);
    /**
     * A link-local frame from the peer that arrives at \p at (> now) in its
     * own event \p frameEvent (ReceiveControl), scheduled under tie key
     * \p tie, made known ahead of time: a credit update alone on the wire
     * when it is sent, one riding in a packet when the packet is sent (an
     * early-take-in port) or its header arrives (a cut-through port), on an
     * MPI rank when its message arrives. The port removes that event and
     * hands the frame to its flow control to count from \p at on
     * (FabricFlowControl::ReceiveControlAt) as soon as, before \p at, its
     * arrival is shown to change nothing but the flow control's state: the
     * transmitter is busy past \p at with its next-start event pending, so
     * the TryTransmit the frame triggers would return at once
     * (FoldLateControl), and nothing watches received frames (a sink
     * connected later sees only the frames not folded by then). Otherwise
     * the event runs as before. With \p check false the condition is not
     * looked at now (the caller just found it false).
     */
    void OfferLateControl(const FabricControlFrame& frame, Time at, uint64_t tie,
                          const hotsim::ScheduledEvent& frameEvent, bool check = true);
    /// True if a frame like \p frame from the peer may be folded
    /// (OfferLateControl): a credit update, with nothing watching received
    /// frames. The channel then offers it (FabricChannel::OfferControl).
    bool MayFoldControl(const FabricControlFrame& frame) const
    {
        return frame.kind == FabricHeader::CREDIT_UPDATE && m_snifferTrace.IsEmpty() && m_phyRxEndTrace.IsEmpty();
    }
    /**
     * OfferLateControl for a frame (MayFoldControl) whose arrival event on
     * \p channel (link token \p token, under the tie key set now) is not
     * scheduled yet. True if the frame needs no event now: folded at once
     * (the port is busy past \p at with its next start pending), or kept
     * without one (the port is busy until before \p at, not until \p at
     * itself, with its next start pending, tie keys on): the port decides when
     * that start has come (the end of TryTransmit's idle path:
     * ResolveDeferred), before \p at, folding the frame, keeping it for
     * the next start, or scheduling its event as the channel would have (a
     * keyed event's uid orders nothing). False: the caller schedules the
     * event and offers it (OfferLateControl, without a check: the condition
     * was just found false).
     */
    bool TakeControlEarly(FabricChannel* channel, const FabricControlFrame& frame, Time at, uint64_t token);
    /// A packet and the link-local frame piggybacked in it, arriving
    /// together (store-and-forward receiver): Receive, then ReceiveControl.
    void ReceiveWithControl(Ptr<Packet> packet, const FabricHeaderFields& header, Time rxEnd,
                            const FabricControlFrame& frame, Time now);
    /// Flow control: a frame is pending or a class unblocked; try to send.
    void NotifyFlowControl() { TryTransmit(); }
    /// Flow control: class cls is now held paused (true) or released (false) by the peer.
    void NotifyPauseState(uint8_t cls, bool paused);
    /// Counts a drop at this port (switch ingress admission / no route).
    void CountDrop(Ptr<const Packet> packet, uint32_t payloadBytes, FabricDropCause cause = kDropBuffer);
    /// The channel lost a DATA packet the peer sent towards this port (the
    /// link went down; this node's context). \p charged: the peer counted it
    /// against this port's credit (sent while the link was up), which is
    /// returned as if the packet had arrived and left.
    void LoseOnLink(Ptr<Packet> packet, const FabricHeaderFields& header, bool charged);
    /// The link went down or came up (FabricChannel::SetLinkUp). While down,
    /// the port keeps sending at its rate and the channel loses what it
    /// sends, with no flow control (a dead peer grants nothing and pauses
    /// nothing): queued packets drain into the void, as a switch drops what
    /// it forwards to a port whose link is down.
    void NotifyLinkState(bool up);
    /// PFC: a pause frame was sent (pause = some class got quanta > 0, else XON only).
    void CountPfcFrameSent(bool pause);
    /// PFC: a pause frame with quanta > 0 was received.
    void CountPfcFrameReceived() { ++m_counters.pausesReceived; }
    /// For the egress scheduler: takes the next packet of class cls if the
    /// class may send now (budget, forwarding-latency deadline), as the packet
    /// the port starts next; its payload bytes go to \p payloadBytes.
    bool TakeFromClass(uint8_t cls, uint32_t& payloadBytes);

    // ---- NetDevice -------------------------------------------------------
    void SetIfIndex(const uint32_t index) override { m_ifIndex = index; }
    uint32_t GetIfIndex() const override { return m_ifIndex; }
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override { return static_cast<uint16_t>(std::min<uint32_t>(m_mtu, 65535)); }
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override {}
    bool IsBroadcast() const override { return false; }
    Address GetBroadcast() const override;
    bool IsMulticast() const override { return false; }
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override { return false; }
    bool IsPointToPoint() const override { return true; }
    /// Adds a FabricHeader (dst from the Mac48 address, class 0, flow 0).
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet, const Address& source, const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override { return m_node; }
    /// GetNode()->GetId(), kept: the context of every event scheduled for
    /// this port (ns-3's Node::GetId checks a log component per call).
    uint32_t GetNodeId() const { return m_nodeId; }
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override { return false; }
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override { m_rxCallback = cb; }
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override {}
    bool SupportsSendFrom() const override { return false; }

    /// Mac48 address derived from a fabric address: 02:00:a3:a2:a1:a0.
    static Mac48Address AddressToMac(uint32_t address);

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    // The FabricHeader is an ns3::Header (a polymorphic ObjectBase): each
    // copy and destruction of an Item costs two out-of-line calls into ns-3,
    // so Items are built where they stay (emplaced in the class queue, or in
    // TryTransmit's optional only once a packet is taken), not copied through
    // temporaries.
    struct Item
    {
        Item() = default;
        Item(Ptr<Packet> p, const FabricHeaderFields& h, uint32_t payload, uint32_t ingress,
             uint32_t ingressWire, Time readyAt, Time rxEndAt, Time arrivalAt = Time(),
             uint64_t tieKey = ~uint64_t(0))
            : packet(std::move(p)),
              header(h),
              payloadBytes(payload),
              ingressPort(ingress),
              ingressWireBytes(ingressWire),
              ready(readyAt),
              rxEnd(rxEndAt),
              arrival(arrivalAt),
              tie(tieKey)
        {
        }

        /// Queued after \p o by a switch: later ready time (arrival), or the
        /// same one and a later arrival event (tie key) of that picosecond.
        bool After(const Item& o) const { return ready > o.ready || (ready == o.ready && tie > o.tie); }

        Ptr<Packet> packet;
        FabricHeaderFields header;
        uint32_t payloadBytes;     ///< packet size - FabricHeader
        uint32_t ingressPort;      ///< switch ingress port (UINT32_MAX on endpoints)
        uint32_t ingressWireBytes; ///< bytes charged to the ingress buffer
        Time ready;                ///< earliest start (forwarding latency)
        Time rxEnd;                ///< last bit at this node (cut-through bound)
        Time arrival;              ///< arrival at the switch (forwarded packets)
        uint64_t tie;              ///< tie key of that arrival (KeyedEvent::kNoKey: none)
    };

    struct ClassQueue
    {
        std::deque<Item> items;
        uint64_t bytes{0};
        uint64_t wireBytes{0}; ///< on-wire bytes of the same packets (ECN QueueBytes Wire)
    };

    /// ECN: sets CE on an ECT packet if the marker draws a mark for queue q.
    void MarkIfCongested(Item& item, const ClassQueue& q);

    Time ComputeSerializationTime(uint64_t wireBytes) const;
    void TryTransmit() { TryTransmit(hotsim::Now()); }
    /// \p now: Simulator::Now() of the caller.
    void TryTransmit(Time now);
    void TransmitReadyEvent();
    /// The event that runs TransmitReadyEvent (pooled: one per queued packet).
    EventImpl* MakeReadyEvent();
    void TransmitComplete(Ptr<const Packet> packet);
    void StartControl(const FabricControlFrame& frame);
    /// A link-local frame as a packet, for a trace and the Sniffer.
    Ptr<Packet> ShowControlFrame(const FabricControlFrame& frame, TracedCallback<Ptr<const Packet>>& trace);
    /// \p now: Simulator::Now() of the caller (read once per transmission).
    void ScheduleNext(Time end, Time now);
    /// When a start should look for the next packet, for a transmitter free
    /// at \p end: \p end, or the first forwarding-latency deadline of the
    /// queued heads if all are later and nothing else can send.
    Time NextStartAt(Time end) const;
    /// The source may have a packet now (SetTxSourceClasses).
    bool SourceMayHaveWork() const { return (m_sourceMask & m_sourceClasses) != 0; }
    void StartTransmission(Item& item, Time now);
    /// Appends a packet to its class queue (the Item built in place), with
    /// the ECN mark at enqueue when \p markAtEnqueue, and tries to send.
    void Enqueue(Item&& item, bool markAtEnqueue, Time now)
    {
        Queue(std::move(item), markAtEnqueue);
        TryTransmit(now);
    }
    /// Appends \p item to its class queue (a switch's in arrival order),
    /// with the ECN mark at enqueue when \p markAtEnqueue.
    void Queue(Item&& item, bool markAtEnqueue);
    /// TakeInArrived as of now, for the const readers of the queue.
    void Settle() const
    {
        if (!m_incoming.empty())
        {
            const_cast<FabricNetDevice*>(this)->TakeInArrived(hotsim::Now());
        }
    }

    /// A received packet the ReceiveErrorModel corrupted: counted and dropped.
    void DropCorrupt(Ptr<Packet> packet, const FabricHeaderFields& header, uint32_t payload);
    /// The Sniffer trace, at no cost while nothing is connected to it (by
    /// reference: not even a reference count changes then).
    void Sniff(const Ptr<Packet>& packet)
    {
        if (!m_snifferTrace.IsEmpty())
        {
            m_snifferTrace(packet);
        }
    }
    void UpdateMaxQueue();
    /// OfferLateControl: folds the offered frames whose condition holds now.
    void FoldLateControl();
    /// The fold's condition for a frame arriving at \p at (> now): the
    /// transmitter is busy past it with its next start pending then.
    bool BusyPast(Time at) const { return m_txPending && m_txWakeAt == m_txFreeAt && m_txFreeAt > at; }
    /// Forgets the offers arriving at or before \p now: their events run.
    void DropDueOffers(Time now);
    struct LateOffer;
    /// Keeps an offer in m_lateOffers, in arrival order.
    void KeepOffer(LateOffer&& offer);
    /// TakeControlEarly's frames, once the start they waited for has come: each
    /// folded, kept for the next start, or given its event.
    void ResolveDeferred(Time now);

    /// A silent arrival kept by FoldArrival: applied at `at` (ApplyFoldedRx)
    /// or scheduled after all (UnfoldRx).
    struct FoldedArrival
    {
        Ptr<Packet> packet;
        FabricHeaderFields header;
        Time at;
        Time rxEnd;
        uint64_t tie;   ///< its arrival event's tie key
        uint64_t token; ///< the link's token when it left (FabricChannel::Token)
        uint64_t psn;   ///< the folder's (RdmaNic: the PSN, the QP, the payload bytes)
        uint32_t qp;
        uint32_t len;
    };
    void ApplyFoldedRx(Time now);
    /// Folding ends for good on this port (what the folder follows is no
    /// longer every arrival): the kept arrivals not yet arrived get their events.
    void StopFolding();

    // Members in the order a packet's hop reads them, those of every hop
    // first. A large fabric's ports do not fit the caches (6 144 of them on
    // fat-tree-k16, each a miss away), so what a hop touches is kept in as
    // few cache lines as possible: the fields of the send and receive paths,
    // then the traces those paths test, then the counters, then the class
    // queues; configuration, fault and observer state last
    // (benchmarks/README.md, "Port fields in hop order").

    // ---- every hop: links, transmitter, queue totals, framing
    Ptr<FabricChannel> m_channel;
    FabricNetDevice* m_peer{nullptr}; ///< cached at attach: read only for IsCutThrough
    Ptr<FabricFlowControl> m_fc;
    FabricSwitch* m_switch{nullptr};
    Ptr<FabricEgressScheduler> m_scheduler;
    Ptr<FabricEcnMarker> m_ecn;
    Ptr<ErrorModel> m_receiveErrorModel;
    FabricArrivalFolder* m_folder{nullptr};
    std::optional<Item>* m_pickInto{nullptr}; ///< where TakeFromClass puts the packet it takes (TryTransmit's)
    Time m_txFreeAt;
    Time m_txWakeAt;            ///< when m_txEvent runs (if m_txPending)
    Time m_notBefore;           ///< earliest forwarding deadline TakeFromClass saw
    Time m_pickNow;             ///< TryTransmit's Simulator::Now(), for TakeFromClass
    hotsim::ScheduledEvent m_txEvent; ///< the pending next start, if m_txPending
    uint64_t m_bps{100000000000ull}; ///< m_rate in bit/s (SerializationTime calls no ns-3 function per packet)
    mutable uint64_t m_serBytes{~uint64_t(0)}; ///< SerializationTime's last question (none: ~0)
    mutable Time m_serTime;                    ///< and its answer
    uint64_t m_queuedBytes{0};
    uint64_t m_queuedPackets{0}; //!< packets in the class queues (some may carry 0 payload bytes)
    uint32_t m_nodeId{0}; ///< m_node's id (SetNode)
    uint32_t m_portIndex{0xFFFFFFFFu};
    uint32_t m_mtu{4096}; ///< Mtu, or SetMaxPayloadBytes above 65535
    uint32_t m_unitLinkPackets{1}; ///< attribute UnitLinkPackets
    uint32_t m_headerBytes{70};
    uint32_t m_minWireBytes{0};
    uint32_t m_headerGranule{0}; ///< attribute HeaderGranuleBytes
    bool m_txPending{false}; ///< m_txEvent is scheduled (cheaper than EventId::IsRunning)
    uint8_t m_nonEmptyMask{0}; ///< classes with a queued packet
    uint8_t m_sourceMask{0};
    uint8_t m_sourceClasses{0xFF}; ///< SetTxSourceClasses
    bool m_linkUp{true}; ///< FabricChannel::SetLinkUp (fault link_down)
    bool m_cutThrough{false};
    bool m_pipelinedUnits{false}; ///< SetPipelinedUnits (switch ports)
    bool m_schedulerVisitsLeaveState{false}; ///< m_scheduler->VisitsLeaveState(), read per packet
    bool m_lateOffered{false}; ///< m_lateOffers is not empty (tested per hop: kept in this line)
    bool m_foldOff{false}; ///< folding ended for good (StopFolding)
    bool m_hasPulledHeader{false};   ///< SetPulledHeader in the current pull
    /// Early-taken-in packets that have not arrived yet, in arrival order
    /// (time, then tie key): in no queue, count or statistic until then.
    std::deque<Item> m_incoming;
    /// Silent arrivals kept, in arrival order (time, then tie key).
    std::deque<FoldedArrival> m_foldedRx;

    // ---- traces a hop calls or tests (empty unless connected)
    TracedCallback<uint8_t, uint64_t> m_queueLengthTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxEndTrace;
    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxEndTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;

    FabricPortCounters m_counters;
    TxSource m_source;
    FabricRxCallback m_fabricRx;
    FabricHeaderFields m_pulledHeader;
    std::array<ClassQueue, kFabricClasses> m_queues;

    // ---- configuration, faults, control frames, observers
    Ptr<Node> m_node;
    uint32_t m_peerNodeId{0};
    uint32_t m_ifIndex{0};
    uint32_t m_address{kFabricNoAddress};
    uint32_t m_controlFrameBytes{84};
    DataRate m_rate{"100Gbps"};
    uint64_t m_maxQueueBytes{0}; ///< per class limit for Send(); 0 = unlimited
    FabricLinkType m_linkType{FabricLinkType::ETHERNET};
    SchedulerType m_schedulerType{ROUND_ROBIN};
    /// A frame offered by OfferLateControl or TakeControlEarly, not folded yet:
    /// its arrival (time, its event's tie key) and its event (none while
    /// deferred: then the link and token to schedule it with).
    struct LateOffer
    {
        FabricControlFrame frame;
        FabricFoldedArrival arrival;
        hotsim::ScheduledEvent event;
        FabricChannel* channel{nullptr}; ///< deferred: not null
        uint64_t token{0};
    };
    /// Offered frames in arrival order (frames on a link arrive in order;
    /// the offers need not come in that order: a frame alone on the wire is
    /// offered when sent, one riding in a packet when the packet is sent or
    /// its header arrives).
    std::vector<LateOffer> m_lateOffers;
    /// Offers in m_lateOffers without an event (TakeControlEarly).
    uint32_t m_deferred{0};
    NetDevice::ReceiveCallback m_rxCallback;
    std::array<Time, kFabricClasses> m_pauseStart{};
    uint8_t m_pausedMask{0};

    TracedCallback<Ptr<const Packet>> m_macTxDropTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace;
    TracedCallback<uint8_t> m_pfcPauseTrace;
    TracedCallback<uint8_t> m_pfcResumeTrace;
    TracedCallback<Ptr<const Packet>, uint64_t> m_ecnMarkTrace;
};

} // namespace ns3

#endif
