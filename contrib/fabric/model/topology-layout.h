// SPDX-License-Identifier: GPL-2.0-only
//
// Where each endpoint of a topology sits, as a collective library lays out
// its rings and trees (NCCL's src/graph: a "node" is a server, a NIC's rail
// the switch it plugs into): its server (the endpoints one NVLink domain
// joins), its position in the server, and its rail (the first switch its
// network traffic enters: through its NIC when it has one, directly when the
// NIC is part of the endpoint). Derived from the links alone, so presets and
// explicit scenario topologies are read the same way; the one place the
// collective layer asks about servers and rails.
#ifndef HOCKNEY_TOPOLOGY_LAYOUT_H
#define HOCKNEY_TOPOLOGY_LAYOUT_H

#include "topology-graph.h"

#include <cstdint>
#include <vector>

namespace ns3
{

struct EndpointLayout
{
    static constexpr uint32_t kNoRail = UINT32_MAX;
    /// Per rank: its server, numbered by first appearance in rank order.
    std::vector<uint32_t> server;
    /// Per rank: its position among its server's ranks (rank order).
    std::vector<uint32_t> local;
    /// Per rank: its rail, numbered by first appearance in rank order
    /// (kNoRail: no network port, or more than one first switch). A rail is
    /// its first switch, or, in a cluster of scalable units (a leaf per rail
    /// in each unit), its NIC's position in the server, whose leaves the
    /// spines join (ComputeEndpointLayout).
    std::vector<uint32_t> rail;
    /// Node id of each rail's switch (of its first, in rank order, when a
    /// rail spans a leaf per scalable unit: a NIC position's leaves).
    std::vector<uint32_t> railSwitch;
    uint32_t servers = 0;

    /// Rail-optimized: more than one server, every rank on a rail, and every
    /// server with the same number of ranks, one on each of the same rails.
    bool RailOptimized() const;
    /// The rank of \p server on \p rail (RailOptimized() only).
    uint32_t RankOn(uint32_t server, uint32_t rail) const;
};

/// The layout of the first \p ranks endpoints of \p graph (all when 0).
/// Servers: endpoints joined through NVLink-tier switches (tier protocol
/// "nvlink"); an endpoint without NVLink is a server of its own.
EndpointLayout ComputeEndpointLayout(const TopologyGraph& graph, uint32_t ranks = 0);

} // namespace ns3

#endif
