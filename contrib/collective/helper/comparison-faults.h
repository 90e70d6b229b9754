// SPDX-License-Identifier: GPL-2.0-only
//
// A scenario's faults, "fabric": {"faults": [...]}: parsed (every field
// checked, an InputError naming "scenario.fabric.faults[i].FIELD"), resolved
// against the topology's node names and links, and handed to the packet
// fabric (FabricFaultInjector). Only the packet backend sees them: the
// analytic backends, flow included (fault-free routes and link rates), run
// the fault-free algebra, so a comparison says how far the algebra is from
// the packets under the fault; each row names what its backend modelled
// (FaultsSeen: the column faults_seen).
//
//   {"type": "link_down", "link": ["leaf0", "spine0"], "at": "20us",
//    "up_at": "80us", "on_down": "reroute" | "blackhole"}
//   {"type": "slow_link", "link": ["host1", "leaf0"], "rate_factor": 0.25 | "rate": "25Gbps",
//    "at": "0s"}
//   {"type": "pfc_storm", "node": "host3", "at": "10us", "duration": "200us", "priority": 3}
//   {"type": "lossy_link", "link": ["host1", "leaf0"], "drop_rate": 0.001 | "bit_error_rate": 1e-9}
//
// "link" is a pair of node names joined by a link, with the link id (as
// `hockney topology --show=links` lists it) as a third element where the
// two are joined by parallel links. "at" defaults to 0; "up_at" and
// "duration" to never; "on_down" to reroute; "priority" to the class the
// endpoints send in (RdmaEndpoint::Priority).
//
// A lossy_link loses packets at random on both directions of its link for
// the whole run (fabric-link-loss.h): it is installed on the wires when the
// packet fabric is built (ApplyLossyLinks), not scheduled by the injector,
// and takes no "at". The gbn backend prices it too (ResolveLossyLinks).
#ifndef HOCKNEY_COMPARISON_FAULTS_H
#define HOCKNEY_COMPARISON_FAULTS_H

#include "fabric-fault-injector.h"
#include "fabric-link-loss.h"
#include "topology-builder.h"
#include "topology-graph.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/// One entry of fabric.faults as the scenario names it, before the names are
/// resolved against a topology.
struct ScenarioFault
{
    std::string type;                 ///< link_down, slow_link, pfc_storm, lossy_link
    std::string field;                ///< "scenario.fabric.faults[0]"
    std::string linkA;                ///< link_down, slow_link, lossy_link: one end's name
    std::string linkB;                ///< the other end's
    std::optional<uint32_t> linkId;   ///< the link's id where A and B have parallel links
    std::string node;                 ///< pfc_storm: the endpoint's name
    Time at;                          ///< start (default 0)
    std::optional<Time> upAt;         ///< link_down: up again
    bool reroute{true};               ///< link_down: on_down reroute (else blackhole)
    std::optional<double> rateFactor; ///< slow_link: fraction of the link's rate
    std::optional<DataRate> rate;     ///< slow_link: the degraded rate
    std::optional<Time> duration;     ///< pfc_storm: how long (default: to the end)
    std::optional<uint8_t> priority;  ///< pfc_storm: the class paused
    FabricLinkLoss loss;              ///< lossy_link: drop_rate (PACKET) or bit_error_rate (BIT)
};

/// A lossy_link resolved: the link's id in the topology and its loss.
struct ResolvedLossyLink
{
    uint32_t link;
    FabricLinkLoss loss;
};

/// Parses the "faults" array of a scenario's fabric object; \p field is its
/// name ("scenario.fabric.faults"). Throws InputError naming the entry's field.
std::vector<ScenarioFault> ParseScenarioFaults(const nlohmann::json& faults, const std::string& field);

/// The faults the injector schedules, in the fabric's ids: each link pair
/// must be a link of \p graph, each storm node an endpoint with a PFC link.
/// lossy_link entries are checked the same way but left out (they are on the
/// wires from the start: ApplyLossyLinks). \p defaultPriority: the class a
/// storm pauses when the scenario names none. Throws InputError naming the
/// field and listing what was expected.
std::vector<FabricFault> ResolveFaults(const std::vector<ScenarioFault>& faults,
                                       const TopologyGraph& graph,
                                       uint8_t defaultPriority);

/// The lossy_link entries of \p faults in \p graph's link ids (the one link
/// resolution of every fault type). Throws InputError naming FIELD.link.
std::vector<ResolvedLossyLink> ResolveLossyLinks(const std::vector<ScenarioFault>& faults,
                                                 const TopologyGraph& graph);

/// True when \p faults has a lossy_link entry.
bool HasLossyLinks(const std::vector<ScenarioFault>& faults);

/// Installs each lossy_link's loss on both devices of its link of \p network
/// (before the network's streams are assigned: they are seeded with the run).
void ApplyLossyLinks(const std::vector<ScenarioFault>& faults, FabricNetwork& network);

/// A row's faults_seen: the types of \p faults (in their order, each once)
/// that are among \p modelled, the fault types a backend models,
/// comma-separated; "none" when none is (the analytic backends run the
/// fault-free algebra; gbn prices lossy_link only; packet sees all).
std::string FaultsSeen(const std::vector<ScenarioFault>& faults, const std::vector<std::string>& modelled);

/// "link_down leaf0-spine0 at 20 us, up at 80 us (reroute); ..." for messages.
std::string DescribeFaults(const std::vector<ScenarioFault>& faults);

} // namespace ns3

#endif
