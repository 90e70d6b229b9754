// SPDX-License-Identifier: GPL-2.0-only
//
// A fabric link whose two ends may live on different MPI ranks of ns-3's
// distributed simulator (DistributedSimulatorImpl or
// NullMessageSimulatorImpl; contrib/fabric/doc/fabric.md, "Past one machine:
// MPI"). Every rank builds the whole topology, each node with the system id
// (rank) that owns it; a packet or link-local frame whose receiving port is on
// this rank goes as on a FabricChannel, one whose receiving port is on another
// rank is serialised and handed to MpiInterface::SendPacket, and the
// MpiReceiver aggregated on the receiving port (InstallReceiver) schedules
// there what FabricChannel would have scheduled, with the same tie key
// (fabric-channel.h, "Equal times"). The channel's Delay is the lookahead:
// every crossing arrives at least Delay after it left.
//
// One time step early: the MPI message is due one step (1 ps) before the
// arrival, and its receipt schedules the arrival one step later with its tie
// key. ns-3's interfaces schedule a received message at its due time in the
// order messages were read, after any event of that time the rank has run
// already; the arrival itself must run before the node's own events of its
// picosecond, as in one process. The step comes out of the serialization
// time of what crosses (at least one step: Send checks), so the lookahead
// stays Delay. Each receipt is an event one process does not have
// (GetReceipts: the runs' event counts subtract them).
//
// What crosses: the packet (its bytes and tags, Packet::Serialize), the
// FabricHeader as the sender's port had it, the time its last bit arrives
// (cut-through receivers are handed it at its header), and a link-local frame
// (PFC pause, credit update) in its plain fields, alone or riding in the
// packet, and the link's state as it left (Token). Link faults (SetLinkUp)
// act on every rank's copy of the link at the same simulated time
// (FabricFaultInjector): the receiving rank's copy then compares the token
// with as many downs as one process's link would.
//
// Built only with ns-3's mpi module (NS3_MPI).
#ifndef HOCKNEY_FABRIC_REMOTE_CHANNEL_H
#define HOCKNEY_FABRIC_REMOTE_CHANNEL_H

#ifdef NS3_MPI

#include "fabric-channel.h"

#include "ns3/header.h"

namespace ns3
{

class FabricNetDevice;

/**
 * \brief What a packet or frame carries across ranks besides its own bytes:
 * the FabricHeader, the arrival and last-bit times, the sequence number, the
 * frame. Serialized layout (network order): u8 what (bit 0 packet, bit 1
 * frame), u64 arrival time and u64 last-bit time in simulator time steps, u64
 * the direction's sequence number, the FabricHeader (16 B), then the frame:
 * u8 kind, u32 source, u16 class-enable, 8 x u64 values.
 */
class FabricCrossingHeader : public Header
{
  public:
    static constexpr uint8_t kPacket = 1;
    static constexpr uint8_t kFrame = 2;
    /// The packet's header has link transport fields (FabricLinkTransport):
    /// they follow the frame (they are in no packet byte).
    static constexpr uint8_t kTransport = 4;
    static constexpr uint32_t kTransportSize = 20;
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t what{0};
    Time at;       ///< when it arrives (its header at a cut-through port)
    Time rxEnd;    ///< when its last bit arrives
    uint64_t sequence{0};
    uint64_t token{0}; ///< the sender's FabricChannel::Token() as it left (a link_down since: lost)
    FabricHeader header;
    FabricControlFrame frame;
};

class FabricRemoteChannel : public FabricChannel
{
  public:
    static TypeId GetTypeId();

    void Transmit(Ptr<Packet> packet, const FabricHeaderFields& header, const FabricNetDevice* src, Time txTime,
                  Time headerTime, Time now, const FabricControlFrame* ride = nullptr) override;
    void TransmitControl(const FabricControlFrame& frame, const FabricNetDevice* src, Time txTime) override;

    /// Aggregates the MpiReceiver that hands what other ranks send to
    /// \p device (a port on this rank whose peer is on another).
    static void InstallReceiver(Ptr<FabricNetDevice> device);
    /// True if \p device's node is this rank's (MpiInterface::GetSystemId).
    static bool IsLocal(const FabricNetDevice* device);
    /// MPI messages this process received from other ranks so far (each an
    /// event of its own, one step before the arrival it schedules).
    static uint64_t GetReceipts();
    /// GetReceipts plus SendMessage's empty events, so far in this process
    /// (a run takes its start's off: a process may run one partitioned run
    /// after another).
    static uint64_t GetMessageEvents();
    /// The events this rank ran that one process does not: GetMessageEvents, and
    /// the initialization events ns-3 schedules at time 0 for every node
    /// and device (Node::Initialize, NetDevice::Initialize) of the nodes
    /// other ranks own (every rank builds the whole topology). A run's
    /// events summed over ranks minus this, summed, are one process's
    /// (plus the one stop event each rank schedules, if any).
    static uint64_t GetMpiOnlyEvents();
    /// MpiInterface::SendPacket(\p packet, \p due, \p node, \p dev) as
    /// every MPI message of a fabric run must be sent (crossings,
    /// PartitionedRunEnd). Under null messages it first schedules an empty
    /// event now: ns-3.37's NullMessageMpiInterface::SendPacket promises the
    /// receiving rank nothing due before its guarantee, min(Next(), safe
    /// time) + lookahead, and Next() is the earliest event still queued,
    /// without the event now running - which may itself schedule, before
    /// the next queued one, events that send again (a port's next packet one
    /// serialization later). A rank that trusted such a guarantee ran past
    /// a message's due time, and ns-3 then runs the message in its past
    /// (doc/fabric.md, "Null messages and the guarantee"). With the empty
    /// event Next() is now and the guarantee now + lookahead, which every
    /// later message keeps. Those events are GetMpiOnlyEvents too.
    static void SendMessage(Ptr<Packet> packet, Time due, uint32_t node, uint32_t dev);

  protected:
    /// A crossing is scheduled when it is received, not when it is sent:
    /// its arrivals are not folded.
    bool FoldsArrivals() const override { return false; }

  private:
    /// Hands \p crossing (and the packet after it, if any) to \p peer on
    /// its rank, due one step before crossing.at.
    void Send(FabricNetDevice* peer, Ptr<Packet> packet, const FabricCrossingHeader& crossing);
    /// The MpiReceiver's callback: what a rank sent to \p device.
    static void Arrive(FabricNetDevice* device, Ptr<Packet> packet);
    /// Schedules what \p c says arrives at \p device (on this rank).
    void Schedule(FabricNetDevice* device, Ptr<Packet> packet, const FabricCrossingHeader& c);
};

} // namespace ns3

#endif // NS3_MPI

#endif
