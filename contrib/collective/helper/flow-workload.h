// SPDX-License-Identifier: GPL-2.0-only
//
// Flows: a workload of `hockney compare` beside the collectives. A flow is one
// message from one host of the topology to another, started at its own time:
// the JSON form scenario.flows = [{"src", "dst", "bytes", "start", "class",
// "verb"}, ...] or a CSV file (scenario.flows_csv) with the columns
// src,dst,bytes,start[,class,verb]. Both forms go through one parser of the
// fields' text, so the same flow reads the same either way. Host names are
// checked against the topology when the comparison runs (the topology may
// come from a flag given after the scenario).
#ifndef HOCKNEY_FLOW_WORKLOAD_H
#define HOCKNEY_FLOW_WORKLOAD_H

#include "topology-description.h"

#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// The traffic class of a flow without one: RdmaEndpoint's default Priority,
/// the class the collectives' messages use.
constexpr uint8_t kDefaultFlowClass = 3;

/// One flow of the workload.
struct FlowSpec
{
    std::string src;                ///< host name (a GPU or host node of the topology)
    std::string dst;
    uint64_t bytes = 0;             ///< > 0
    Time start;                     ///< >= 0: when its one work request is posted
    uint8_t cls = kDefaultFlowClass; ///< traffic class (priority) 0..7 of its QP's packets
    bool write = true;              ///< RDMA WRITE (with immediate) or SEND
    /// Where the flow was given ("scenario.flows[2]", "scenario.flows_csv
    /// line 4"): errors found later name its fields from here.
    std::string field;
    uint32_t srcRank = 0;           ///< set by ResolveFlowHosts
    uint32_t dstRank = 0;
};

/// scenario.flows: a non-empty array of flow objects; every field checked,
/// an error naming it ("scenario.flows[1].bytes: ...").
std::vector<FlowSpec> ParseFlowsJson(const nlohmann::json& flows, const std::string& field);

/// A flow list CSV: a header naming src, dst, bytes, start and optionally
/// class and verb (any order; blank lines and lines starting with '#'
/// skipped), one flow per row. Errors name \p field and the line
/// ("scenario.flows_csv line 3.bytes: ..."); an unreadable file names \p field.
std::vector<FlowSpec> ReadFlowsCsv(const std::string& path, const std::string& field);
/// The same from the file's text.
std::vector<FlowSpec> ParseFlowsCsv(const std::string& text, const std::string& field);

/// Sets each flow's ranks from its host names (ranks count the topology's
/// GPU and host nodes in node order); throws InputError naming the flow's src
/// or dst for a name that is not an endpoint of \p topology.
void ResolveFlowHosts(std::vector<FlowSpec>& flows, const TopologyDescription& topology);

} // namespace ns3

#endif
