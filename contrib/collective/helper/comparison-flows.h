// SPDX-License-Identifier: GPL-2.0-only
//
// `hockney compare` on a workload of flows (flow-workload.h) instead of a
// collective: each flow is one message posted at its start time, run on
//   alphabeta  the analytic channel, each flow priced alpha + n / beta with its
//              own pair's derived (or the given) parameters, contention policy
//              model.contention (none: flows do not see each other)
//   flow       the analytic channel with the shared policy over the
//              topology's routes (max-min fair link sharing, recomputed as
//              flows start and end)
//   packet     the packet fabric: one reliable-connection QP per flow on the
//              NICs of its two hosts, one RDMA WRITE (or SEND) of all its
//              bytes posted at its start, no messaging layer (no rendezvous,
//              no per-message software overhead)
// One row per flow and backend, then one summary row per backend
// (contrib/collective/doc/collective.md, "Flows", defines every column).
#ifndef HOCKNEY_COMPARISON_FLOWS_H
#define HOCKNEY_COMPARISON_FLOWS_H

#include "collective-comparison.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// scenario.flows or scenario.flows_csv (relative to config.scenarioDirectory)
/// into config.flows. Throws InputError naming the field when both are given,
/// when either is given with a collective field (collective, algorithm, ranks,
/// sizes, channels, slices, root, gpus_per_node: flows replace the
/// collective), or for a bad flow.
void ApplyScenarioFlows(const nlohmann::json& scenario, ComparisonConfig& config);

/// The rows of a comparison whose config has flows (RunComparison calls it).
/// Throws InputError for bad input (an unknown host, a backend without a flow
/// form), std::runtime_error when the packet run fails its checks.
std::vector<ResultRow> RunFlowComparison(const ComparisonConfig& config,
                                         std::function<void(const std::string&)> progress);

} // namespace ns3

#endif
