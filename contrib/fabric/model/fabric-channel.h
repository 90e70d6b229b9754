// SPDX-License-Identifier: GPL-2.0-only
//
// A full-duplex point-to-point link between two FabricNetDevices with a
// propagation Delay. The sending port serializes; the channel only schedules
// the reception on the peer node (ScheduleWithContext, as ns-3's distributed
// simulator requires: the Delay is the lookahead). A receiving port in
// cut-through mode is handed the packet once its header has arrived, with the
// time its last bit arrives; otherwise at the last bit.
//
// A link can go down and come up (SetLinkUp, fault link_down): a packet or
// link-local frame is lost if the link was down when it started, or went
// down before it arrived (at its header on a cut-through port); the
// receiving port counts a lost DATA packet as a link_down drop.
//
// Equal times: every arrival (packet, riding frame, link-local frame) is
// scheduled with a tie key (SchedulerTieKey): the link's creation
// order and direction, then the direction's sequence number of what was sent.
// At the same picosecond a node thus takes what arrives before its own
// events, and arrivals in the order of their links and of their sending: an
// order that is the same whether the link's far end is in this process or on
// another MPI rank (FabricRemoteChannel), where ns-3's uid, the order of
// scheduling, is the order MPI messages happened to be read.
#ifndef HOCKNEY_FABRIC_CHANNEL_H
#define HOCKNEY_FABRIC_CHANNEL_H

#include "fabric-header.h"
#include "fast-simulator-impl.h"
#include "tie-keyed-events.h"

#include "ns3/channel.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <vector>

namespace ns3
{

class FabricNetDevice;

class FabricChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    /// Channels this process has made so far: a run's links take their tie
    /// keys' majors from here on (PartitionedRunEnd::StopAfterPlace shifts
    /// a key of one run to another's by the difference).
    static uint64_t GetCreatedCount();
    FabricChannel();
    ~FabricChannel() override;

    /// Attaches a device; a channel takes exactly two. False if full.
    bool Attach(Ptr<FabricNetDevice> device);
    /// The other end of `device` (nullptr if not attached yet).
    Ptr<FabricNetDevice> GetPeer(const FabricNetDevice* device) const;

    /// Called by `src` when a packet starts serialization of `txTime`, whose
    /// header takes `headerTime` (<= txTime) to serialize; `now` is the
    /// caller's Simulator::Now() (read once per hop). `ride`, if given,
    /// is a link-local frame piggybacked in the packet's framing: it arrives
    /// with the last bit, as TransmitControl(*ride, src, txTime) would.
    /// (Virtual: FabricRemoteChannel sends to a peer on another MPI rank.)
    virtual void Transmit(Ptr<Packet> packet, const FabricHeaderFields& header, const FabricNetDevice* src,
                          Time txTime, Time headerTime, Time now, const FabricControlFrame* ride = nullptr);
    /// Delivers a link-local frame to src's peer `txTime` (its serialization,
    /// or the data packet it rides in) plus the delay from now.
    virtual void TransmitControl(const FabricControlFrame& frame, const FabricNetDevice* src, Time txTime);

    /// Takes the link down (both directions) or brings it up again, and
    /// tells both ports (FabricNetDevice::NotifyLinkState). A fault's
    /// control action, not data path: under ns-3's distributed simulator
    /// each rank applies it to its copy at the same simulated time
    /// (FabricFaultInjector), so both copies of a cut link count the same downs.
    void SetLinkUp(bool up);
    bool IsLinkUp() const { return m_up; }

    Time GetDelay() const { return m_delay; }
    void SetDelay(Time delay) { m_delay = delay; }

    /// Called by the packet's arrival event (built in place in the .cc):
    /// hands the packet, and the frame riding in it if any, to `peer` unless
    /// the link went down since `token` (then both are lost on the link);
    /// `now` is the event's time (Simulator::Now()).
    void Deliver(FabricNetDevice* peer, const Ptr<Packet>& packet, const FabricHeaderFields& header, Time rxEnd,
                 uint64_t token, const FabricControlFrame* ride, Time now);
    /// The same for a packet that arrived at `arrival` and is handed over
    /// through the switch's ingress pipeline at `now`: lost only if the link
    /// went down before `arrival`.
    void DeliverAfterPipeline(FabricNetDevice* peer, const Ptr<Packet>& packet, const FabricHeaderFields& header,
                              Time rxEnd, uint64_t token, Time arrival, Time now);
    /// The same for a cut-through receiver, whose frame riding in the packet
    /// arrives later, at rxEnd, in its own event `frameEvent`: if the packet
    /// arrived, the frame is offered to the peer ahead of time
    /// (FabricNetDevice::OfferLateControl), which may remove that event.
    void DeliverWithLateControl(FabricNetDevice* peer, const Ptr<Packet>& packet, const FabricHeaderFields& header,
                                Time rxEnd, uint64_t token, const FabricControlFrame& frame,
                                uint64_t frameTie, const hotsim::ScheduledEvent& frameEvent, Time now);
    /// Schedules the arrival event of a link-local frame to `peer` at \p at
    /// (sent with link token \p token), under the tie key set now, in
    /// `peer`'s context, and returns it (FabricNetDevice::ResolveDeferred).
    hotsim::ScheduledEvent ScheduleFrameArrival(FabricNetDevice* peer, const FabricControlFrame& frame, Time at,
                                                uint64_t token, Time now);
    /// Called by a link-local frame's arrival event: hands it to `peer`
    /// unless the link went down since `token`.
    void DeliverControl(FabricNetDevice* peer, FabricControlFrame frame, uint64_t token);

    /// Schedules the arrival at \p at of a packet a port kept as a silent
    /// arrival (FabricNetDevice::FoldArrival) after all, as ScheduleArrival
    /// would have: under its tie key \p tie, with the link's token \p token
    /// of when it left (lost if the link went down since). \p now:
    /// Simulator::Now() (<= at).
    void ScheduleUnfolded(FabricNetDevice* peer, Ptr<Packet> packet, const FabricHeaderFields& header, Time at,
                          Time rxEnd, uint64_t token, uint64_t tie, Time now);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;
    /// False for a link whose far end is on another MPI rank
    /// (FabricRemoteChannel): its arrivals are not folded (fabric.md,
    /// "Silent arrivals at a NIC").
    virtual bool FoldsArrivals() const { return true; }

    /// 0 if \p src is the first device attached, 1 otherwise.
    uint32_t Direction(const FabricNetDevice* src) const { return PeekPointer(m_dev[0]) == src ? 0 : 1; }
    /// The next sequence number of direction \p dir (what leaves src now).
    uint64_t NextSequence(uint32_t dir) { return m_sequence[dir]++; }
    /// Schedules what Transmit sends to \p peer in direction \p dir as
    /// sent \p seq-th: the packet at \p at (absolute), its last bit at
    /// \p rxEnd, a frame riding in it if any; \p token as Token() when it
    /// left; \p now is Simulator::Now(). FabricRemoteChannel calls it on
    /// the receiving rank.
    void ScheduleArrival(FabricNetDevice* peer, uint32_t dir, uint64_t seq, Ptr<Packet> packet,
                         const FabricHeaderFields& header, Time at, Time rxEnd, const FabricControlFrame* ride,
                         uint64_t token, Time now);
    /// The same for a link-local frame arriving at \p at.
    void ScheduleControlArrival(FabricNetDevice* peer, uint32_t dir, uint64_t seq, const FabricControlFrame& frame,
                                Time at, uint64_t token);
    /// A frame's arrival at \p peer at \p at, under the tie key the caller
    /// set: a frame \p peer may fold is folded at once or kept without an
    /// event (FabricNetDevice::TakeControlEarly), or its event is scheduled
    /// and offered (OfferLateControl); any other frame's event is
    /// scheduled. \p now is Simulator::Now().
    void OfferControl(FabricNetDevice* peer, const FabricControlFrame& frame, Time at, uint64_t token, Time now);
    /// Token of what leaves now: the down count while up, kLost while down.
    uint64_t Token() const { return m_up ? m_downs : kLost; }

  private:
    /// Token of what leaves now: the down count while up, kLost while down.
    static constexpr uint64_t kLost = ~uint64_t(0);
    /// The major tie key of direction \p dir of this link (its creation
    /// order and the direction); the minor is 2 x the direction's sequence
    /// number of the sending, + 1 for a frame riding in a packet to a
    /// cut-through port.
    /// Above SchedulerTieKey's reserved major (the agreed stop runs first).
    uint64_t TieMajor(uint32_t dir) const { return SchedulerTieKey::kFirstMajor + m_id * 2 + dir; }

    Time m_delay;
    bool m_up{true};
    uint64_t m_downs{0}; ///< times the link went down
    std::vector<Time> m_downAt; ///< when it went down, in order (a token's first down: m_downAt[token])
    Ptr<FabricNetDevice> m_dev[2];
    uint64_t m_id;             ///< creation order among the process's channels (tie keys)
    uint64_t m_sequence[2]{};  ///< per direction: what was sent so far (tie keys)
};

} // namespace ns3

#endif
