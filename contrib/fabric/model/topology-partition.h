// SPDX-License-Identifier: GPL-2.0-only
//
// Which MPI rank (ns-3 system id) owns each node of a topology, for a packet
// run over ns-3's distributed simulator (contrib/fabric/doc/fabric.md, "Past
// one machine: MPI"). A link whose ends are owned by different ranks crosses
// between them (FabricRemoteChannel); the smallest delay of such a link is
// the lookahead the synchronisation can grant.
//
// Modes (FabricNetwork::Partition, --partition):
//  - "auto": units of the nodes within one hop of an endpoint, joined by
//    the links among them - each leaf/ToR (edge) switch with its hosts, each
//    server's GPUs with its NVSwitches and NICs - so that the busy short
//    links stay inside a rank; the units with endpoints go to the rank with
//    the fewest endpoints so far (largest first), then every other switch to
//    the rank with the fewest switches so far (spines spread).
//  - "pod": the same with nodes within two hops (a fat-tree's pods: edge and
//    aggregation switches with their hosts); the topology needs at least as
//    many such units as ranks.
//  - "rank-map:FILE": each line "NODE RANK" (node name as in the topology,
//    '#' starts a comment); every node listed once.
// Deterministic: the same on every rank and every run.
#ifndef HOCKNEY_TOPOLOGY_PARTITION_H
#define HOCKNEY_TOPOLOGY_PARTITION_H

#include "topology-graph.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

struct TopologyPartition
{
    uint32_t ranks = 1;
    std::vector<uint32_t> owner; ///< per topology node: its rank
    uint32_t cutLinks = 0;       ///< links whose ends are on different ranks
    Time lookahead;              ///< smallest delay of a cut link (0 without one)
    /// "2 ranks, 8 of 32 links cut, lookahead 1000 ns, rank 0: 8 endpoints 3 switches, ..."
    std::string Describe() const;
};

/// Checks \p mode without a topology (one process, where nothing is split):
/// auto, pod, or rank-map:FILE with FILE readable. Throws InputError naming
/// \p field otherwise. PartitionTopology checks the rest (pods, the map's lines).
void CheckPartitionMode(const std::string& mode, const std::string& field);

/// Partitions \p g over \p ranks ranks by \p mode (see above). Throws
/// InputError naming \p field for an unknown mode, an unreadable or
/// incomplete rank map, or a "pod" partition with fewer pods than ranks.
TopologyPartition PartitionTopology(const TopologyGraph& g, uint32_t ranks, const std::string& mode,
                                    const std::string& field);

} // namespace ns3

#endif
