// SPDX-License-Identifier: GPL-2.0-only
//
// The analytic side's parameters read off the same topology the packet fabric
// is built from ("derived"): per path, alpha is the sum over hops of
// propagation delay, the forwarding latency of each node the path enters, and
// for a store-and-forward node the serialization of one full packet it must
// receive before it sends (cut-through nodes forward after the header); beta is
// the bottleneck link's rate times eta = MTU / (MTU + header bytes) on that
// link, the share of the wire that carries payload. A collective uses several
// pairs; a closed form with one (alpha, beta) per level takes the worst of the
// pairs it uses, as its slowest step bounds every step of a synchronous
// algorithm.
//
// The same hops become the links of the analytic channel's shared policy (the
// `flow` backend): one AnalyticLink per link direction, its bandwidth the
// payload rate, its latency the hop's part of alpha.
#ifndef HOCKNEY_TOPOLOGY_PARAMETERS_H
#define HOCKNEY_TOPOLOGY_PARAMETERS_H

#include "analytic-channel.h"
#include "collective-schedule.h"
#include "topology-graph.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/// alpha and beta of one point-to-point message.
struct PointToPointParameters
{
    Time alpha;
    DataRate beta;
};

/// The latency a hop adds to a message's first byte (see the file comment).
Time HopLatency(const TopologyHop& hop);
/// The payload rate of a hop: rate x MTU / (MTU + header + \p transportHeader),
/// the last being the end-to-end transport header (RDMA BTH/RETH) every packet
/// of the message carries.
DataRate HopPayloadRate(const TopologyHop& hop, uint32_t transportHeader = 0);
/// alpha = sum of HopLatency, beta = the smallest HopPayloadRate.
PointToPointParameters DerivePathParameters(const TopologyPath& path, uint32_t transportHeader = 0);
/// The transport header bytes per packet of a message on \p path: none on an
/// NVLink-only path (its link header holds them), \p rdmaHeader otherwise.
uint32_t TransportHeaderOf(const TopologyGraph& graph, const TopologyPath& path, uint32_t rdmaHeader);

/// The ECMP path a message from \p src to \p dst takes in every backend (one
/// flow per ordered pair, spread by a hash of the pair as an ECMP hash spreads
/// queue pairs).
TopologyPath PairPath(const TopologyGraph& graph, uint32_t src, uint32_t dst);

/// Whether a pair stays inside a server: its path crosses no NIC and no tier
/// other than the first hop's (an NVSwitch domain).
bool IsIntraNode(const TopologyPath& path);

/// Ranks per server: how many ranks rank 0 reaches without leaving its server
/// (itself included). Servers are contiguous rank ranges in the presets.
uint32_t RanksPerNode(const TopologyGraph& graph, uint32_t ranks);

/// Parameters of level 0 (intra-node pairs) and level 1 (inter-node pairs),
/// each the worst (largest alpha, smallest beta) over the pairs \p schedule
/// uses; a level with no pair copies the other.
struct DerivedParameters
{
    PointToPointParameters level[2];
    bool hasLevel[2] = {false, false};
};

/// \p rdmaHeader: transport header bytes per packet off NVLink (see TransportHeaderOf).
DerivedParameters DeriveScheduleParameters(const TopologyGraph& graph,
                                           const CollectiveSchedule& schedule,
                                           uint32_t rdmaHeader = 0);

/// Sets on \p channel (shared policy) the route of each of \p pairs: one
/// AnalyticLink per link direction crossed.
void SetPairRoutes(const TopologyGraph& graph,
                   const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                   Ptr<AnalyticChannel> channel,
                   uint32_t rdmaHeader = 0);

/// Sets on \p channel (shared policy) the route of every pair \p schedule uses.
void SetScheduleRoutes(const TopologyGraph& graph,
                       const CollectiveSchedule& schedule,
                       Ptr<AnalyticChannel> channel,
                       uint32_t rdmaHeader = 0);

/// The distinct (src, dst) pairs of a schedule's messages on the wire (a PXN
/// op's two legs, ScheduleOp::Legs), sorted.
std::vector<std::pair<uint32_t, uint32_t>> SchedulePairs(const CollectiveSchedule& schedule);

} // namespace ns3

#endif
