// SPDX-License-Identifier: GPL-2.0-only
//
// The lossy_link entry of a scenario's fabric.faults list:
//   {"type": "lossy_link", "link": ["NODE_A", "NODE_B"], "drop_rate": p}
// or "bit_error_rate": b instead of drop_rate. Both directions of the link
// lose packets (fabric-link-loss.h); only the packet backend sees it.
//
// A minimal reader of this one entry type, kept apart from the rest of the
// scenario so that the fault list's other entries (link down, slow link, ...)
// can be read beside it; doc/collective.md, "fabric.faults".
#ifndef HOCKNEY_COMPARISON_FAULT_LOSSY_H
#define HOCKNEY_COMPARISON_FAULT_LOSSY_H

#include "fabric-link-loss.h"
#include "topology-builder.h"
#include "topology-graph.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ns3
{

/// One lossy link of a scenario, by node names (resolved against the
/// topology when the run is set up).
struct ComparisonLossyLink
{
    std::string nodeA;
    std::string nodeB;
    FabricLinkLoss loss;
    std::string field; ///< where it was read, e.g. "scenario.fabric.faults[0]"
};

/// Reads the list at \p field (fabric.faults). Every entry must be a
/// lossy_link with a link of two node names and exactly one of drop_rate
/// or bit_error_rate in [0, 1). \throws InputError naming FIELD[i].KEY.
std::vector<ComparisonLossyLink> ParseLossyLinkFaults(const nlohmann::json& faults, const std::string& field);

/// The link id each entry names in \p graph. \throws InputError naming
/// FIELD[i].link for an unknown node or two nodes without a link.
std::vector<uint32_t> ResolveLossyLinks(const std::vector<ComparisonLossyLink>& links, const TopologyGraph& graph);

/// Installs each entry's loss on both devices of its link of \p network
/// (before the network's streams are assigned: they are seeded with the run).
void ApplyLossyLinks(const std::vector<ComparisonLossyLink>& links, FabricNetwork& network);

} // namespace ns3

#endif
