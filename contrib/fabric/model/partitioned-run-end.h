// SPDX-License-Identifier: GPL-2.0-only
//
// The end of a packet run that every MPI rank agrees on (doc/fabric.md,
// "hockney compare under mpirun"): each rank says when its own part is done
// (LocalDone, at T_r) with an MPI message due at every other rank at
// T_r + Delay, so every rank knows the last one, T = max T_r, by T + Delay
// and calls the end callback with T there; the caller stops every rank at
// the same time after it. Delay must be at least the partition's lookahead
// (an MPI message must not be due sooner). One process (no MPI, or one
// rank): the callback runs at LocalDone with T = now. Each rank adds one
// node (its own system id), after the fabric's nodes, the same on every
// rank, and every two of them are joined by a point-to-point link of Delay
// (a SimpleChannel): under null messages ns-3 talks only to ranks it shares
// such a link with, and the fabric's partition need not join every two.
#ifndef HOCKNEY_PARTITIONED_RUN_END_H
#define HOCKNEY_PARTITIONED_RUN_END_H

#include "tie-keyed-events.h"

#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

class PartitionedRunEnd : public Object
{
  public:
    static TypeId GetTypeId();
    PartitionedRunEnd();

    /// Every rank alike, before the run: the ranks' message nodes.
    void Setup(Time delay, std::function<void(Time)> atEnd);
    /// This rank's part is done now.
    void LocalDone();
    /// T, once known (zero before).
    Time GetEnd() const;
    /// Events the protocol adds to a rank's count: one receipt per other
    /// rank, the announcement, its node's and devices' initialization (0
    /// in one process).
    uint64_t GetOwnEvents() const;
    /// Stops the run at \p at (absolute, not before now), before every
    /// other event of that time: the stop has SchedulerTieKey's reserved
    /// key, below every link arrival's (whatever each rank scheduled at
    /// \p at, in whatever order, stays unrun on every rank alike).
    static void StopAt(Time at);

    // The delivery end over ranks (doc/fabric.md, "hockney compare under
    // mpirun"): one process stops right after the event of the last
    // delivery, E, so the events of E's time before E have run and those
    // after not, on whichever rank they are. A first run (to the drain end,
    // recording EventLineage) learns E's place; a second stops every rank
    // there: the rank that runs E stops in it, every other rank in an event
    // that takes E's place among its own events (StopAfterPlace).

    /// \p place as numbers for an MPI gather: the count of places from it
    /// outward to its keyed ancestor (or the one scheduled before the run),
    /// then each one's time step and tie key. Null: the count 0.
    static std::vector<uint64_t> EncodePlace(const EventPlace* place);
    /// The place EncodePlace wrote at \p v[\p at], \p at moved past it.
    static std::shared_ptr<const EventPlace> DecodePlace(const std::vector<uint64_t>& v, size_t& at);
    /// Before the run, on a rank that does not run the event at \p place:
    /// stops the run where that event would run among this rank's events
    /// (Simulator::Stop from an event in its place): its keyed ancestor's
    /// place is taken by an event with that key, which schedules one in the
    /// place of the unkeyed event it scheduled, and so on down to \p place.
    /// \p channelShift: the channels made between the run \p place was
    /// recorded in and this one (FabricChannel::GetCreatedCount at each
    /// one's start): a link's tie key major counts the process's channels,
    /// so the same link's is 2 x that larger here.
    /// \return the events added (one per place of the chain). Throws
    /// std::runtime_error when the chain has no keyed ancestor (its first
    /// event was scheduled before the run, in an order of calls this rank
    /// cannot place it in).
    static uint64_t StopAfterPlace(const std::shared_ptr<const EventPlace>& place, uint64_t channelShift);

  protected:
    void DoDispose() override;

  private:
    void Receive(Ptr<Packet> p);
    /// Tells every other rank this rank is done (an event at LocalDone's time).
    void Announce();
    void Check();

    Time m_delay;
    std::function<void(Time)> m_atEnd;
    std::vector<Ptr<Node>> m_nodes;
    std::vector<Ptr<NetDevice>> m_devices; ///< [rank x ranks + other]: rank's device towards other
    uint32_t m_ranks = 1;
    uint32_t m_heard = 0; ///< other ranks done
    bool m_localDone = false;
    bool m_ended = false;
    Time m_last;          ///< max T_r so far
};

} // namespace ns3

#endif
