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
// node (its own system id) with one device receiving the messages, after
// the fabric's nodes, the same on every rank.
#ifndef HOCKNEY_PARTITIONED_RUN_END_H
#define HOCKNEY_PARTITIONED_RUN_END_H

#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <functional>
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
    /// Events the protocol adds to a rank's count: one receipt per other rank.
    uint64_t GetOwnEvents() const;

  protected:
    void DoDispose() override;

  private:
    void Receive(Ptr<Packet> p);
    void Check();

    Time m_delay;
    std::function<void(Time)> m_atEnd;
    std::vector<Ptr<Node>> m_nodes;
    std::vector<Ptr<NetDevice>> m_devices;
    uint32_t m_ranks = 1;
    uint32_t m_heard = 0; ///< other ranks done
    bool m_localDone = false;
    bool m_ended = false;
    Time m_last;          ///< max T_r so far
};

} // namespace ns3

#endif
