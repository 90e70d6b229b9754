// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-channel.h"
#include "fast-simulator-impl.h"

#include "fabric-log.h"
#include "fabric-net-device.h"
#include "fabric-pooled-event.h"
#include "fabric-switch.h"
#include "switch-buffer.h"
#include "tie-keyed-events.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

namespace
{
/// Channels created so far by the process: a channel's creation order. Every
/// MPI rank builds the whole topology in the same order, so that this order
/// is the same on every rank and in one process.
uint64_t g_channels = 0;

// What every arrival event carries: the packet's arrival at the peer port,
// built in place. ns-3's MakeEvent takes its arguments by value and copies
// the FabricHeader (an ns3::Header, whose constructor and virtual
// destructor are out of line and logged) three times per hop; this is the
// same call at the same time, without the copies.
struct ArrivalFields
{
    FabricChannel* channel{nullptr};
    uint64_t token{0}; ///< the link's down count when the packet left (FabricChannel::Token)
    FabricNetDevice* peer{nullptr};
    Ptr<Packet> packet;
    FabricHeaderFields header;
    Time at; ///< when it runs: the receiver's Simulator::Now(), handed on instead of read again
    Time rxEnd;

    void Set(FabricChannel* c, uint64_t t, FabricNetDevice* p, Ptr<Packet>&& pkt, const FabricHeaderFields& h,
             Time a, Time r)
    {
        channel = c;
        token = t;
        peer = p;
        packet = std::move(pkt);
        header = h;
        at = a;
        rxEnd = r;
    }
};

// One made per hop: recycled (fabric-pooled-event.h).
class ArrivalEvent : public FabricRecycledEvent<ArrivalEvent>
{
  public:
    static ArrivalEvent* Make(FabricChannel* channel, uint64_t token, FabricNetDevice* peer, Ptr<Packet>&& packet,
                              const FabricHeaderFields& header, Time at, Time rxEnd)
    {
        ArrivalEvent* e = Take();
        e->f.Set(channel, token, peer, std::move(packet), header, at, rxEnd);
        return e;
    }

    void Run()
    {
        f.channel->Deliver(f.peer, f.packet, f.header, f.rxEnd, f.token, nullptr, f.at);
        f.packet = nullptr;
    }

  private:
    ArrivalFields f;
};

// A packet taken in by a switch port through its ingress pipeline: it
// arrived at `arrival` and is handed over ForwardingLatency later, at f.at.
// One per RoCE switch hop: recycled.
class PipelinedArrivalEvent : public FabricRecycledEvent<PipelinedArrivalEvent>
{
  public:
    static PipelinedArrivalEvent* Make(FabricChannel* channel, uint64_t token, FabricNetDevice* peer,
                                       Ptr<Packet>&& packet, const FabricHeaderFields& header, Time at, Time rxEnd,
                                       Time arrival)
    {
        PipelinedArrivalEvent* e = Take();
        e->f.Set(channel, token, peer, std::move(packet), header, at, rxEnd);
        e->m_arrival = arrival;
        return e;
    }

    void Run()
    {
        f.channel->DeliverAfterPipeline(f.peer, f.packet, f.header, f.rxEnd, f.token, m_arrival, f.at);
        f.packet = nullptr;
    }

  private:
    ArrivalFields f;
    Time m_arrival;
};

// A link-local frame's arrival (alone on the wire, or riding in a packet
// and delivered at its last bit): one per credit update, recycled.
class ControlArrivalEvent : public FabricRecycledEvent<ControlArrivalEvent>
{
  public:
    static ControlArrivalEvent* Make(FabricChannel* channel, FabricNetDevice* peer, const FabricControlFrame& frame,
                                     uint64_t token)
    {
        ControlArrivalEvent* e = Take();
        e->m_channel = channel;
        e->m_peer = peer;
        e->m_frame = frame;
        e->m_token = token;
        return e;
    }

    void Run() { m_channel->DeliverControl(m_peer, m_frame, m_token); }

  private:
    FabricChannel* m_channel{nullptr};
    FabricNetDevice* m_peer{nullptr};
    FabricControlFrame m_frame;
    uint64_t m_token{0};
};

// The same with a link-local frame piggybacked in the packet.
class ArrivalWithControlEvent : public FabricPooledEvent<ArrivalWithControlEvent>
{
  public:
    ArrivalWithControlEvent(FabricChannel* channel, uint64_t token, FabricNetDevice* peer, Ptr<Packet>&& packet,
                            const FabricHeaderFields& header, Time at, Time rxEnd, const FabricControlFrame& frame)
        : m_frame(frame)
    {
        f.Set(channel, token, peer, std::move(packet), header, at, rxEnd);
    }

  protected:
    void Notify() override
    {
        f.channel->Deliver(f.peer, f.packet, f.header, f.rxEnd, f.token, &m_frame, f.at);
    }

  private:
    ArrivalFields f;
    FabricControlFrame m_frame;
};

// A packet to a cut-through receiver with a frame riding in it: the frame
// has its own arrival event at the packet's last bit (frameEvent, scheduled
// right after this one, as before), which Deliver may remove.
class ArrivalWithLateControlEvent : public FabricPooledEvent<ArrivalWithLateControlEvent>
{
  public:
    ArrivalWithLateControlEvent(FabricChannel* channel, uint64_t token, FabricNetDevice* peer,
                                Ptr<Packet>&& packet, const FabricHeaderFields& header, Time at, Time rxEnd,
                                const FabricControlFrame& frame)
        : m_frame(frame)
    {
        f.Set(channel, token, peer, std::move(packet), header, at, rxEnd);
    }

    hotsim::ScheduledEvent frameEvent;
    uint64_t frameTie{KeyedEvent::kNoKey}; ///< the tie key frameEvent was scheduled under

  protected:
    void Notify() override
    {
        f.channel->DeliverWithLateControl(f.peer, f.packet, f.header, f.rxEnd, f.token, m_frame, frameTie, frameEvent,
                                          f.at);
    }

  private:
    ArrivalFields f;
    FabricControlFrame m_frame;
};
} // namespace

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the link (each direction).",
                                          TimeValue(NanoSeconds(1000)),
                                          MakeTimeAccessor(&FabricChannel::m_delay),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

FabricChannel::FabricChannel()
    : m_id(g_channels++)
{
}

uint64_t
FabricChannel::GetCreatedCount()
{
    return g_channels;
}

FabricChannel::~FabricChannel() = default;

void
FabricChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_dev[0] = nullptr;
    m_dev[1] = nullptr;
    Channel::DoDispose();
}

bool
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    for (auto& d : m_dev)
    {
        if (!d)
        {
            d = device;
            return true;
        }
    }
    return false;
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(const FabricNetDevice* device) const
{
    if (PeekPointer(m_dev[0]) == device)
    {
        return m_dev[1];
    }
    if (PeekPointer(m_dev[1]) == device)
    {
        return m_dev[0];
    }
    return nullptr;
}

void
FabricChannel::Transmit(Ptr<Packet> packet, const FabricHeaderFields& header, const FabricNetDevice* src,
                        Time txTime, Time headerTime, Time now, const FabricControlFrame* ride)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << packet << src << txTime);
    const uint32_t dir = Direction(src);
    FabricNetDevice* peer = PeekPointer(m_dev[1 - dir]);
    const Time at = now + m_delay + (peer->ReceivesBeforeLastBit(header) ? headerTime : txTime);
    ScheduleArrival(peer, dir, NextSequence(dir), std::move(packet), header, at, now + m_delay + txTime, ride,
                    Token(), now);
}

void
FabricChannel::ScheduleArrival(FabricNetDevice* peer, uint32_t dir, uint64_t seq, Ptr<Packet> packet,
                               const FabricHeaderFields& header, Time at, Time rxEnd, const FabricControlFrame* ride,
                               uint64_t token, Time now)
{
    const uint32_t context = peer->GetNodeId();
    SchedulerTieKey key(TieMajor(dir), seq * 2);
    if (peer->HasArrivalFolder())
    {
        // An endpoint port whose receiver may take the packet without an
        // event (a silent arrival: FabricNetDevice::FoldArrival). Every
        // packet to it passes, in arrival order (the link is a FIFO), so
        // that the receiver follows them; only one alone on a link that
        // is up, in tie-key order (its place is its key), may be kept.
        const bool eligible = ride == nullptr && token == m_downs && tie_keys::g_ordered && FoldsArrivals();
        if (peer->FoldArrival(packet, header, at, rxEnd, tie_keys::g_tie, token, eligible, now))
        {
            return;
        }
    }
    const Time pipeline = peer->IngressPipelineLatency(header);
    // Credit ports take packets in early or at their arrival (IngressPipeline
    // None's two events), never through the take-in below.
    const bool credit = pipeline.IsStrictlyPositive() &&
                        peer->GetSwitch()->GetBuffer()->GetPortMode(peer->GetPortIndex()) == FabricSwitchBuffer::CREDIT;
    if (credit && token == m_downs && tie_keys::g_ordered && peer->GetSwitch()->TakesInEarly(peer->GetPortIndex()))
    {
        // A credit port (admission does not depend on the time): the switch
        // routes and charges the packet now, and its egress holds it aside
        // until its arrival, when it joins the queue in the place this
        // arrival event would have given it (FabricNetDevice::TakeInArrived:
        // every event from then on sees it, as before). The one event of the
        // hop is at its ready time, under the arrival's key: the egress then
        // starts it if idle (ReleaseArrived). Only while events leave in
        // tie-key order (g_ordered): the place of the arrival is its key.
        FabricNetDevice* egress = peer->ReceiveEarly(std::move(packet), header, rxEnd, at, tie_keys::g_tie, now);
        if (egress)
        {
            hotsim::ScheduleWithContext(
                context, at + pipeline - now,
                FabricMemberEvent<FabricNetDevice, &FabricNetDevice::ReleaseArrived>::Make(egress));
        }
        if (ride)
        {
            // Its own event at its last bit, offered to the port to fold
            // (OfferControl): offered when the packet is sent here, when it
            // is received on an MPI rank; the port folds the same frames
            // either way (FabricNetDevice::FoldLateControl).
            SchedulerTieKey late(TieMajor(dir), seq * 2 + 1);
            OfferControl(peer, *ride, rxEnd, token, now);
        }
        return;
    }
    if (pipeline.IsStrictlyPositive() && !credit)
    {
        // Taken in by the switch ForwardingLatency after its arrival (its
        // ingress pipeline), under the arrival's key: arrivals into the
        // switch keep their order, and the egress may start the packet in
        // this one event. A frame riding in it arrives with its last bit,
        // in its own event, offered to the port at once to be folded
        // (FabricNetDevice::OfferLateControl) as a cut-through port's late
        // frame is.
        hotsim::ScheduleWithContext(
            context, at + pipeline - now,
            PipelinedArrivalEvent::Make(this, token, peer, std::move(packet), header, at + pipeline, rxEnd, at));
        if (ride)
        {
            SchedulerTieKey late(TieMajor(dir), seq * 2 + 1);
            const hotsim::ScheduledEvent frameEvent =
                hotsim::ScheduleKept(rxEnd - now, ControlArrivalEvent::Make(this, peer, *ride, token));
            if (token == m_downs)
            {
                peer->OfferLateControl(*ride, rxEnd, tie_keys::g_tie, frameEvent);
            }
        }
        return;
    }
    if (ride && !peer->ReceivesBeforeLastBit(header))
    {
        // The frame would arrive in an event of its own at the same time,
        // scheduled right after this packet's (nothing can run between the
        // two): one event doing both in that order is the same simulation.
        hotsim::ScheduleWithContext(
            context, at - now, new ArrivalWithControlEvent(this, token, peer, std::move(packet), header, at, rxEnd, *ride));
        return;
    }
    if (ride)
    {
        // Scheduled in the same order as an arrival and a TransmitControl.
        auto* arrival = new ArrivalWithLateControlEvent(this, token, peer, std::move(packet), header, at, rxEnd, *ride);
        hotsim::ScheduleWithContext(context, at - now, arrival);
        // ScheduleWithContext returns no EventId (ns-3.37), and the arrival
        // may remove this event: it is scheduled in the current context
        // (the same time and order; the context only names the node in log
        // lines, and the next hop's arrival is scheduled in its own).
        SchedulerTieKey late(TieMajor(dir), seq * 2 + 1);
        arrival->frameEvent = hotsim::ScheduleKept(rxEnd - now, ControlArrivalEvent::Make(this, peer, *ride, token));
        arrival->frameTie = tie_keys::g_tie;
        return;
    }
    hotsim::ScheduleWithContext(context, at - now, ArrivalEvent::Make(this, token, peer, std::move(packet), header, at, rxEnd));
}

void
FabricChannel::ScheduleUnfolded(FabricNetDevice* peer, Ptr<Packet> packet, const FabricHeaderFields& header, Time at,
                                Time rxEnd, uint64_t token, uint64_t tie, Time now)
{
    // The tie key as ScheduleArrival set it (SchedulerTieKey without its
    // range check: the key was made by one).
    tie_keys::g_tie = tie;
    hotsim::ScheduleWithContext(peer->GetNodeId(), at - now,
                                ArrivalEvent::Make(this, token, peer, std::move(packet), header, at, rxEnd));
    tie_keys::g_tie = KeyedEvent::kNoKey;
}

void
FabricChannel::Deliver(FabricNetDevice* peer, const Ptr<Packet>& packet, const FabricHeaderFields& header, Time rxEnd,
                       uint64_t token, const FabricControlFrame* ride, Time now)
{
    if (token == m_downs)
    {
        if (ride)
        {
            peer->ReceiveWithControl(packet, header, rxEnd, *ride, now);
        }
        else
        {
            peer->Receive(packet, header, rxEnd, now);
        }
        return;
    }
    // Sent while up and lost on the way (charged to the peer's credit), or
    // sent onto the dead link. A frame riding in it is lost with it, as a
    // frame of its own on the same wire would be (DeliverControl).
    peer->LoseOnLink(packet, header, token != kLost);
}

void
FabricChannel::DeliverAfterPipeline(FabricNetDevice* peer, const Ptr<Packet>& packet,
                                    const FabricHeaderFields& header, Time rxEnd, uint64_t token, Time arrival,
                                    Time now)
{
    // Lost only if the link went down before the packet arrived: one that
    // went down while it was in the switch's pipeline found it received
    // (a down at its arrival's picosecond runs after it, as a fault's
    // unkeyed event runs after the keyed arrivals of its time).
    if (token == m_downs || (token < m_downAt.size() && m_downAt[token] >= arrival))
    {
        peer->Receive(packet, header, rxEnd, arrival, now);
        return;
    }
    peer->LoseOnLink(packet, header, token != kLost);
}

void
FabricChannel::DeliverWithLateControl(FabricNetDevice* peer, const Ptr<Packet>& packet, const FabricHeaderFields& header,
                                      Time rxEnd, uint64_t token, const FabricControlFrame& frame,
                                      uint64_t frameTie, const hotsim::ScheduledEvent& frameEvent, Time now)
{
    Deliver(peer, packet, header, rxEnd, token, nullptr, now);
    // The link was up until now (else the packet was lost and so will the
    // frame be, in its own event); if it goes down before rxEnd the port
    // forgets the offer, and the flow control drops a frame it took
    // (FabricCreditFlowControl::NotifyLinkState).
    if (token == m_downs)
    {
        peer->OfferLateControl(frame, rxEnd, frameTie, frameEvent);
    }
}

void
FabricChannel::DeliverControl(FabricNetDevice* peer, FabricControlFrame frame, uint64_t token)
{
    if (token == m_downs)
    {
        peer->ReceiveControl(frame);
    }
}

void
FabricChannel::SetLinkUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up == m_up)
    {
        return;
    }
    m_up = up;
    if (!up)
    {
        ++m_downs; // whatever is on the wire now is lost
        m_downAt.push_back(hotsim::Now());
        for (auto& d : m_dev)
        {
            if (d && d->GetSwitch())
            {
                // Taken in early by the switch, not arrived yet: lost too.
                d->GetSwitch()->LoseEarly(d->GetPortIndex(), hotsim::Now());
            }
        }
    }
    for (auto& d : m_dev)
    {
        if (d)
        {
            d->NotifyLinkState(up);
        }
    }
}

void
FabricChannel::TransmitControl(const FabricControlFrame& frame, const FabricNetDevice* src, Time txTime)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(frame.kind) << src << txTime);
    const uint32_t dir = Direction(src);
    ScheduleControlArrival(PeekPointer(m_dev[1 - dir]), dir, NextSequence(dir), frame,
                           hotsim::Now() + m_delay + txTime, Token());
}

void
FabricChannel::ScheduleControlArrival(FabricNetDevice* peer, uint32_t dir, uint64_t seq,
                                      const FabricControlFrame& frame, Time at, uint64_t token)
{
    SchedulerTieKey key(TieMajor(dir), seq * 2);
    OfferControl(peer, frame, at, token, hotsim::Now());
}

void
FabricChannel::OfferControl(FabricNetDevice* peer, const FabricControlFrame& frame, Time at, uint64_t token,
                            Time now)
{
    // Under the tie key the caller set. A frame the port may fold (a credit
    // update, nothing watching, sent while the link was up) is folded now
    // if the port is busy past its arrival, or kept without an event until
    // the port's pending start if that comes first (TakeControlEarly: no
    // event at all either way); else its event is scheduled and offered,
    // for the port to remove if it folds the frame later. A link that goes
    // down meanwhile makes the port forget the offer.
    if (token == m_downs && peer->MayFoldControl(frame))
    {
        if (!peer->TakeControlEarly(this, frame, at, token))
        {
            peer->OfferLateControl(frame, at, tie_keys::g_tie, ScheduleFrameArrival(peer, frame, at, token, now), false);
        }
        return;
    }
    hotsim::ScheduleWithContext(peer->GetNodeId(), at - now, ControlArrivalEvent::Make(this, peer, frame, token));
}

hotsim::ScheduledEvent
FabricChannel::ScheduleFrameArrival(FabricNetDevice* peer, const FabricControlFrame& frame, Time at, uint64_t token,
                                    Time now)
{
    return hotsim::ScheduleKeptWithContext(peer->GetNodeId(), at - now,
                                           ControlArrivalEvent::Make(this, peer, frame, token));
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_dev[1] ? 2 : (m_dev[0] ? 1 : 0);
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return i < 2 ? m_dev[i] : nullptr;
}

} // namespace ns3
