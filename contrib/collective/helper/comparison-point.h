// SPDX-License-Identifier: GPL-2.0-only
//
// What RunComparison builds before any backend runs (collective-comparison.h):
// the comparison-wide setup (topology graph, ranks, algorithm, the fabric
// knobs in force) and, for each size, the point: the collective's spec and
// schedule with the alpha and beta of one parameter source (derived from the
// topology's paths, given, or calibrated on a packet-level sweep).
#ifndef HOCKNEY_COMPARISON_POINT_H
#define HOCKNEY_COMPARISON_POINT_H

#include "collective-comparison.h"
#include "nccl-protocol.h"
#include "topology-graph.h"
#include "topology-parameters.h"

#include <map>
#include <memory>
#include <tuple>

namespace ns3
{

/// Messages above which a packet-only comparison skips the builder's chunk
/// check and the regime's flow model (comparison-regime.h).
constexpr size_t kLargeScheduleOps = 65536;

/// "a, b, c" (the lists of known names in error messages).
std::string JoinNames(const std::vector<std::string>& names);

/// \p d with the fabric knobs of \p f applied to every tier (ideal fabric,
/// header, MTU, flow control).
TopologyDescription ApplyFabricKnobs(TopologyDescription d, const ComparisonFabric& f);

/// The facts every point of one comparison shares. Constructing it checks
/// the configuration (ValidateComparison, the ranks against the topology,
/// the algorithm) and throws InputError naming the field.
class ComparisonSetup
{
  public:
    ComparisonSetup(const ComparisonConfig& config, std::function<void(const std::string&)> progress);

    const ComparisonConfig& config;
    std::function<void(const std::string&)> progress; ///< long runs' progress lines (may be empty)
    std::unique_ptr<TopologyGraph> graph; ///< the topology with the fabric knobs; null without one
    bool given = false;                   ///< alpha and beta given (no topology needed)
    uint32_t ranks = 0;                   ///< resolved: the topology's endpoints when unset
    std::string algorithm;                ///< canonical name, or "auto" (chosen per point)
    /// NCCL's endpoint model is on (a protocol, or algorithm auto).
    bool nccl = false;
    /// The protocol asked for; nullopt: NCCL's choice per point.
    std::optional<NcclProtocol> protocol;
    /// Ranks per node for the endpoint's step latencies (0: one node).
    uint32_t nodeGpus = 0;
    uint32_t gpusPerNode = 0;             ///< hierarchical: resolved from the topology when unset
    /// The topology's servers and rails when it is rail-optimized
    /// (EndpointLayout::RailOptimized), else empty: every point's spec gets it.
    RankPlacement placement;
    Time endpointCost;                    ///< packet endpoint's send + receive overhead (EndpointCost)
    /// The fabric knobs in force: the configuration's, with the default NVLink
    /// transfer unit resolved against the topology's tiers.
    ComparisonFabric fabric;
    uint32_t rdmaHeader = 0;              ///< RDMA transport header off NVLink (0 on the ideal fabric)
    TopologyDescription packetDesc;       ///< what the packet fabric is built from

    /// Whether the configuration selected \p backend.
    bool Selected(const std::string& backend) const;
};

/// One point: the collective at one size, with one parameter source's alpha
/// and beta per level (level 0 intra-node, 1 inter-node; flat: the worst of
/// both, what a non-hierarchical algorithm is charged).
struct ComparisonPoint
{
    CollectiveSpec spec;
    CollectiveSchedule schedule;
    PointToPointParameters level[2];
    bool hierarchical = false;
    PointToPointParameters flat;
    std::string params;  ///< the parameter source: "derived", "given" or "calibrated"
    /// NCCL's endpoint costs every executor and closed form of the point
    /// applies (ComparisonSetup::nccl); unset: none.
    std::optional<NcclEndpoint> endpoint;
    bool large = false;  ///< more than kLargeScheduleOps messages
    /// In-switch reduction (NVLS): the rate the switch's reduction unit adds
    /// a port's contributions at (NvlsReductionRate of the NVSwitch's lanes,
    /// the packet fabric's ReductionRate); the point's betas (derived or
    /// calibrated) are at most this. 0: no switch group, or no limit.
    DataRate switchRate{0};
    /// The switch's rate caps level 0 only (NVLSTree: the switch inside each
    /// server, the network across); false: every level (NVLS).
    bool switchRateIntraOnly = false;
};

/// The point of \p bytes with the derived (or given) parameters; its spec is
/// checked, errors named by the flag or scenario field. With the NCCL
/// model on, its algorithm and protocol are the ones asked for or, for
/// "auto", NCCL's choice (ChooseNccl over the collective's registered
/// algorithms that fit the point x protocols, each priced by
/// NcclTuningTime, NCCL's model, with the point's derived parameters).
ComparisonPoint BuildPoint(const ComparisonSetup& setup, uint64_t bytes);

/// The point-to-point time of \p pt's parameters, \p extra added to alpha
/// (its hierarchical levels, else the flat worst).
PointToPointTime PointTime(const ComparisonPoint& pt, Time extra);

/// Fitted point-to-point parameters by (src, dst, message size): a sweep is
/// run once per comparison.
using CalibrationCache = std::map<std::tuple<uint32_t, uint32_t, uint64_t>, PointToPointParameters>;

/// \p derived with each level's alpha and beta fitted to the packet sweep of
/// that level's worst pair (CalibratePair), params "calibrated".
ComparisonPoint CalibratedPoint(const ComparisonSetup& setup, const ComparisonPoint& derived, CalibrationCache& cache);

} // namespace ns3

#endif
