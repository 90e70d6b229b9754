// SPDX-License-Identifier: GPL-2.0-only
//
// One description of a fabric topology: tiers, nodes and links, as a plain C++
// struct with a JSON form.
// The same description gives the packet simulator its devices and switches and
// the analytic side its paths (hops, per-hop latency, bottleneck bandwidth).
//
// A tier is one level of the hierarchy: the links below its switches and the
// switches themselves (an NVSwitch and its GPU links; a leaf and its NIC links;
// a spine and its leaf links; a NIC and its PCIe link to the GPU). Link
// parameters (lane rate, delay, MTU, header bytes, flow control, port buffer)
// apply to the tier's links; forwarding parameters (latency, cut-through, shared
// buffer) to the forwarding nodes (switches, NICs) that name the tier.
//
// Validation and parsing throw InputError (a std::invalid_argument) with a
// one-line message "FIELD: expected ..." naming the JSON field path (e.g.
// "links[3].tier").
#ifndef HOCKNEY_TOPOLOGY_DESCRIPTION_H
#define HOCKNEY_TOPOLOGY_DESCRIPTION_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// Link-level flow control of a tier's ports.
enum class TopologyFlowControl
{
    NONE,   ///< lossy: tail drop, counted
    PFC,    ///< IEEE 802.1Qbb priority pause (RoCE)
    CREDIT, ///< credit-based link-level flow control (InfiniBand, NVLink, PCIe)
};

/// What a node is. GPUs and hosts are endpoints (they source and sink traffic and
/// never forward); NICs and switches forward.
enum class TopologyNodeKind
{
    GPU,
    NIC,
    HOST,
    SWITCH,
};

std::string ToString(TopologyFlowControl fc);  ///< "none" | "pfc" | "credit"
std::string ToString(TopologyNodeKind kind);   ///< "gpu" | "nic" | "host" | "switch"
/// Parses "none"|"pfc"|"credit"; throws InputError naming \p field.
TopologyFlowControl ParseTopologyFlowControl(const std::string& text, const std::string& field);
/// Parses "gpu"|"nic"|"host"|"switch"; throws InputError naming \p field.
TopologyNodeKind ParseTopologyNodeKind(const std::string& text, const std::string& field);
/// True for the kinds that source and sink traffic (GPU, host).
bool IsEndpointKind(TopologyNodeKind kind);

/// One tier: its links' physical layer and its forwarding nodes' behaviour.
struct TopologyTier
{
    std::string name;                       ///< unique; links and nodes refer to it
    std::string protocol;                   ///< label: nvlink, pcie, infiniband, roce, ethernet
    DataRate laneRate;                      ///< per lane and direction; a link bundles `lanes`
    Time delay;                             ///< propagation delay of one link
    uint32_t mtuBytes = 4096;               ///< payload bytes per packet (segment size)
    uint32_t headerBytes = 0;               ///< bytes added to every packet on the wire
    uint64_t portBufferBytes = 0;           ///< receive buffer per port (credit pool); 0 = model default
    TopologyFlowControl flowControl = TopologyFlowControl::NONE;
    Time forwardingLatency;                 ///< per forwarding node of this tier
    bool cutThrough = false;                ///< forwarding nodes start sending after the header
    uint64_t switchBufferBytes = 0;         ///< shared buffer per switch of this tier; 0 = model default
};

/// One node. Forwarding nodes (switch, NIC) name their tier; `ports` bounds the
/// lanes attached to a switch (0 = unbounded).
struct TopologyNode
{
    std::string name;
    TopologyNodeKind kind = TopologyNodeKind::SWITCH;
    std::string tier;   ///< required for switches and NICs, empty for endpoints
    uint32_t ports = 0; ///< lane ports of a switch (e.g. 64 for an NVSwitch chip); 0 = unbounded
};

/// One full-duplex link between two nodes, bundling `lanes` lanes of its tier
/// into one port on each side (an H100 GPU's 18 NVLinks into an NVSwitch domain
/// are one link of 18 lanes).
struct TopologyLink
{
    std::string a;
    std::string b;
    std::string tier;
    uint32_t lanes = 1;
};

/// The whole topology. Node and link ids are their positions in `nodes` and
/// `links`; endpoint ranks count the GPU/host nodes in node order. Building the
/// same description always gives the same ids.
struct TopologyDescription
{
    std::string name;
    std::vector<TopologyTier> tiers;
    std::vector<TopologyNode> nodes;
    std::vector<TopologyLink> links;

    /// Index of a tier by name, or -1.
    int FindTier(const std::string& tierName) const;
    /// Index of a node by name, or -1.
    int FindNode(const std::string& nodeName) const;
    /// Rate of a link: its tier's lane rate times its lanes.
    DataRate LinkRate(uint32_t linkId) const;

    /// Throws InputError naming the first bad field: duplicate or
    /// empty names, zero rate or MTU, unknown tier or node, self loops, a switch
    /// with more lanes attached than ports, no endpoint. Connectivity is checked
    /// by TopologyGraph, which needs the routes anyway.
    void Validate() const;
};

/// JSON form. Rates and times are strings in core's units (units.h): rates in
/// bits or bytes per second ("400Gbps", "25GB/s"), times ps|ns|us|ms|s ("5ns",
/// "0.2us"); bytes are integers in fields named *_bytes. Output rates as
/// "<n>bps", times as "<n>ps", so a round trip is exact.
nlohmann::json ToJson(const TopologyDescription& d);
/// Parses the explicit form ({"tiers", "nodes", "links"}); does not Validate().
/// Throws InputError naming the field path on a missing, mistyped or
/// malformed field.
TopologyDescription TopologyDescriptionFromJson(const nlohmann::json& j);

} // namespace ns3

#endif
