// SPDX-License-Identifier: GPL-2.0-only
//
// The ring of each channel, as NCCL lays it out (src/graph/search.cc,
// rings.cc, connect.cc). NCCL searches, per channel, a path through one
// server "NET n -> GPU a -> GPU b -> ... -> GPU x -> NET n": the channel
// enters the server at the GPU nearest NIC n and leaves it through the same
// NIC (crossNic off), and every server uses the same channel graph, so the
// ring across servers is the concatenation of the servers' paths. On a
// rail-optimized cluster (NIC i of every server on rail switch i) channel c
// then crosses between servers only on rail c: from NIC c of server k to
// NIC c of server k+1. The GPU that ends a server's path (x) is not the one
// beside NIC c, so its data goes over NVLink to the GPU beside the NIC,
// which posts it to its NIC: NCCL's PXN ("PCI x NVLink", the default since
// NCCL 2.12), here a ScheduleOp::proxy. With R rails, channel c uses rail
// c mod R ("one ring per NIC"; channels beyond R go round the rails again).
//
// Inside a server the order starts at the GPU on the channel's rail and takes
// the others by rail, cyclically (NVSwitch makes every order equally good;
// this one gives each GPU a different role on each channel, so that R
// channels load every GPU's NVLink port evenly). Without a placement
// (CollectiveSpec::placement empty) the ring is ranks 0..N-1 on every
// channel, as before.
#ifndef HOCKNEY_COLLECTIVE_RING_LAYOUT_H
#define HOCKNEY_COLLECTIVE_RING_LAYOUT_H

#include "collective-algorithms.h"

#include <cstdint>
#include <vector>

namespace ns3
{

struct RingLayout
{
    std::vector<uint32_t> order; ///< ranks in ring order
    /// Per position p: the PXN proxy of the send p -> p+1 (ScheduleOp::kNoProxy: direct).
    std::vector<uint32_t> proxy;
    /// The rail every cross-server send of the ring leaves and enters on
    /// (RankPlacement::rail numbering); UINT32_MAX without a placement.
    uint32_t rail = UINT32_MAX;
    /// Whether some send goes through a proxy.
    bool Relayed() const;
};

/// The ring of channel spec.channel over spec.ranks (see the file comment).
RingLayout RingOf(const CollectiveSpec& spec);

/// The servers and rails the node-aware algorithms (node tree, PXN) place
/// ranks by: spec.placement when the topology gave one; otherwise servers of
/// spec.gpusPerNode consecutive ranks, rank r on rail r mod gpusPerNode (the
/// rail presets' numbering); otherwise one server, rank r on rail r.
RankPlacement PlacementOf(const CollectiveSpec& spec);
/// InputError naming --ranks when ranks is not a multiple of
/// spec.gpusPerNode (servers of consecutive ranks; 0: no check).
void CheckRanksFillNodes(const CollectiveSpec& spec);
/// InputError naming --ranks when PlacementOf would cut a server: no
/// placement and CheckRanksFillNodes fails.
void CheckWholeServers(const CollectiveSpec& spec);

} // namespace ns3

#endif
