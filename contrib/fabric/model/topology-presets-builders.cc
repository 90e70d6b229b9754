// SPDX-License-Identifier: GPL-2.0-only
//
// The builders of topology-presets.h: an NVSwitch domain, a two-tier
// leaf-spine, a three-tier k-ary fat tree and a rail-optimized GPU cluster,
// each a TopologyDescription of named nodes and links over its tiers.
#include "topology-presets-internal.h"
#include "topology-presets.h"

#include <cmath>
#include <sstream>

namespace ns3
{

using topology_presets::Fail;
using topology_presets::Str;

namespace
{

// The most endpoints a builder makes: the largest fat tree's (k = 64, 65 536
// hosts; BuildFatTree). The options of the other builders multiply (leaves x
// hosts per leaf, servers x GPUs per server): unchecked, 10^6 x 10^6 hosts
// ran out of memory building the description, before Validate could refuse
// its switches' ports.
constexpr uint64_t kMaxEndpoints = 65536;

void
CheckEndpoints(uint64_t endpoints, const std::string& field, const std::string& product)
{
    if (endpoints > kMaxEndpoints)
    {
        Fail(field, "at most " + Str(kMaxEndpoints) + " endpoints (the largest fat tree's, k = 64), got " +
                        product + " = " + Str(endpoints));
    }
}

void
AddNode(TopologyDescription& d, const std::string& name, TopologyNodeKind kind,
        const std::string& tier = "", uint32_t ports = 0)
{
    d.nodes.push_back(TopologyNode{name, kind, tier, ports});
}

void
AddLink(TopologyDescription& d, const std::string& a, const std::string& b,
        const std::string& tier, uint32_t lanes = 1)
{
    d.links.push_back(TopologyLink{a, b, tier, lanes});
}

void
AddTier(TopologyDescription& d, const TopologyTier& t)
{
    if (d.FindTier(t.name) < 0)
    {
        d.tiers.push_back(t);
    }
}

// The uplinks per leaf for a down/up capacity ratio: down / (ratio x
// uplink rate).
double
UplinkShare(double downBps, double ratio, double upLinkBps)
{
    return downBps / (ratio * upLinkBps);
}

// True if \p u uplinks are a whole number, one at least.
bool
WholeUplinks(double u)
{
    return std::round(u) >= 1 && std::fabs(u - std::round(u)) <= 1e-9 * u;
}

// Whole number of uplinks that realizes a down/up capacity ratio exactly.
uint32_t
Uplinks(double downBps, double ratio, double upLinkBps, const std::string& field)
{
    if (!(ratio > 0) || !std::isfinite(ratio))
    {
        Fail(field, "a positive oversubscription ratio");
    }
    const double u = UplinkShare(downBps, ratio, upLinkBps);
    if (!WholeUplinks(u))
    {
        std::ostringstream os;
        os << "a ratio giving a whole number of uplinks per leaf (down capacity / (ratio x "
              "uplink rate) = "
           << u << ")";
        Fail(field, os.str());
    }
    return static_cast<uint32_t>(std::round(u));
}

// The NVSwitch domain's nodes and links appended to d (GPUs first, then the
// switches, so GPU ranks follow the server order in a cluster).
void
AppendDomain(TopologyDescription& d, const NvSwitchDomainParams& p)
{
    if (p.gpus == 0)
    {
        Fail("gpus", "at least one GPU");
    }
    CheckEndpoints(p.gpus, "gpus", Str(p.gpus) + " GPUs");
    if (p.chipLanes.empty())
    {
        Fail("chip_lanes", "at least one NVSwitch chip");
    }
    uint32_t lanes = 0;
    for (uint32_t l : p.chipLanes)
    {
        if (l == 0)
        {
            Fail("chip_lanes", "at least one lane per chip");
        }
        lanes += l;
    }
    AddTier(d, p.nvlink);
    for (uint32_t g = 0; g < p.gpus; ++g)
    {
        AddNode(d, p.prefix + "gpu" + Str(g), TopologyNodeKind::GPU);
    }
    if (p.splitChips)
    {
        for (size_t c = 0; c < p.chipLanes.size(); ++c)
        {
            AddNode(d, p.prefix + "nvswitch" + Str(c), TopologyNodeKind::SWITCH, p.nvlink.name,
                    p.chipPorts);
        }
        for (uint32_t g = 0; g < p.gpus; ++g)
        {
            for (size_t c = 0; c < p.chipLanes.size(); ++c)
            {
                AddLink(d, p.prefix + "gpu" + Str(g), p.prefix + "nvswitch" + Str(c), p.nvlink.name,
                        p.chipLanes[c]);
            }
        }
    }
    else
    {
        // One logical switch with the ports of all chips; each GPU one bundled port.
        AddNode(d, p.prefix + "nvswitch", TopologyNodeKind::SWITCH, p.nvlink.name,
                p.chipPorts * static_cast<uint32_t>(p.chipLanes.size()));
        for (uint32_t g = 0; g < p.gpus; ++g)
        {
            AddLink(d, p.prefix + "gpu" + Str(g), p.prefix + "nvswitch", p.nvlink.name, lanes);
        }
    }
}

// The spines above the rail leaves, each rail leaf having \p up uplinks:
// p.spines checked, or chosen when 0.
uint32_t
RailSpineCount(const RailOptimizedParams& p, uint32_t leaves, uint32_t up)
{
    uint32_t spines = p.spines;
    if (spines > up)
    {
        Fail("spines", "at most one spine per rail-leaf uplink (" + Str(up) + " uplinks), got " +
                           Str(spines) + " (a spine without links is disconnected)");
    }
    if (spines == 0)
    {
        // Fewest spines (two at least, for ECMP, when a leaf has two uplinks)
        // that take the same number of uplinks from every leaf and fit their
        // ports. For scalable units of 32 DGX H100 at 1:1 this is NVIDIA's
        // SuperPOD count: 2 / 4 / 8 units, 8 / 16 / 32 spines.
        spines = up >= 2 ? 2 : 1;
        while (spines <= up && (up % spines != 0 || uint64_t{leaves} * (up / spines) > p.switchPorts))
        {
            ++spines;
        }
        if (spines > up)
        {
            Fail("spines", "a spine count whose switches hold " + Str(leaves) + " x " + Str(up) +
                               " uplinks");
        }
    }
    return spines;
}

// The uplinks of a rail leaf of \p n servers, or 0 if they are not whole.
uint32_t
RailUplinksOrZero(const RailOptimizedParams& p, uint32_t n)
{
    const double u = UplinkShare(double(n) * double(p.rail.laneRate.GetBitRate()), p.oversubscription,
                                 double(p.spine.laneRate.GetBitRate()));
    return WholeUplinks(u) ? static_cast<uint32_t>(std::round(u)) : 0;
}

} // namespace

TopologyDescription
BuildNvSwitchDomain(const NvSwitchDomainParams& p)
{
    TopologyDescription d;
    d.name = "nvswitch-domain";
    AppendDomain(d, p);
    return d;
}

TopologyDescription
BuildLeafSpine(const LeafSpineParams& p)
{
    if (p.leaves == 0)
    {
        Fail("leaves", "at least one leaf");
    }
    if (p.spines == 0)
    {
        Fail("spines", "at least one spine");
    }
    if (p.hostsPerLeaf == 0)
    {
        Fail("hosts_per_leaf", "at least one host per leaf");
    }
    CheckEndpoints(uint64_t{p.leaves} * p.hostsPerLeaf, "hosts_per_leaf",
                   Str(p.leaves) + " leaves x " + Str(p.hostsPerLeaf) + " hosts");
    uint32_t up = Uplinks(double(p.hostsPerLeaf) * p.leaf.laneRate.GetBitRate(),
                          p.oversubscription,
                          double(p.spine.laneRate.GetBitRate()),
                          "oversubscription");
    if (up < p.spines)
    {
        Fail("spines", "at most one spine per leaf uplink (" + Str(up) + " uplinks), got " +
                           Str(p.spines) + " (a spine without links is disconnected)");
    }
    TopologyDescription d;
    d.name = "leaf-spine";
    AddTier(d, p.leaf);
    AddTier(d, p.spine);
    for (uint32_t l = 0; l < p.leaves; ++l)
    {
        for (uint32_t h = 0; h < p.hostsPerLeaf; ++h)
        {
            AddNode(d, "host" + Str(l * p.hostsPerLeaf + h), TopologyNodeKind::HOST);
        }
    }
    for (uint32_t l = 0; l < p.leaves; ++l)
    {
        AddNode(d, "leaf" + Str(l), TopologyNodeKind::SWITCH, p.leaf.name, p.switchPorts);
    }
    for (uint32_t s = 0; s < p.spines; ++s)
    {
        AddNode(d, "spine" + Str(s), TopologyNodeKind::SWITCH, p.spine.name, p.switchPorts);
    }
    for (uint32_t l = 0; l < p.leaves; ++l)
    {
        for (uint32_t h = 0; h < p.hostsPerLeaf; ++h)
        {
            AddLink(d, "host" + Str(l * p.hostsPerLeaf + h), "leaf" + Str(l), p.leaf.name);
        }
    }
    for (uint32_t l = 0; l < p.leaves; ++l)
    {
        for (uint32_t u = 0; u < up; ++u)
        {
            AddLink(d, "leaf" + Str(l), "spine" + Str(u % p.spines), p.spine.name);
        }
    }
    return d;
}

TopologyDescription
BuildFatTree(const FatTreeParams& p)
{
    // k^3 / 4 hosts: k = 64 is 65 536 hosts and 5 120 switches, beyond the
    // largest fat trees deployed; a larger k only builds a description (and
    // paths) of millions of nodes that no run can simulate.
    if (p.k < 2 || p.k % 2 != 0 || p.k > 64)
    {
        Fail("k", "an even number of switch ports k from 2 to 64, got " + Str(p.k));
    }
    const uint32_t h = p.k / 2;
    TopologyDescription d;
    d.name = "fat-tree-k" + Str(p.k);
    AddTier(d, p.edge);
    AddTier(d, p.aggregation);
    AddTier(d, p.core);
    for (uint32_t pod = 0; pod < p.k; ++pod)
    {
        for (uint32_t e = 0; e < h; ++e)
        {
            for (uint32_t x = 0; x < h; ++x)
            {
                AddNode(d, "host" + Str((pod * h + e) * h + x), TopologyNodeKind::HOST);
            }
        }
    }
    auto edge = [](uint32_t pod, uint32_t e) { return "pod" + Str(pod) + ".edge" + Str(e); };
    auto agg = [](uint32_t pod, uint32_t a) { return "pod" + Str(pod) + ".agg" + Str(a); };
    for (uint32_t pod = 0; pod < p.k; ++pod)
    {
        for (uint32_t e = 0; e < h; ++e)
        {
            AddNode(d, edge(pod, e), TopologyNodeKind::SWITCH, p.edge.name, p.k);
        }
        for (uint32_t a = 0; a < h; ++a)
        {
            AddNode(d, agg(pod, a), TopologyNodeKind::SWITCH, p.aggregation.name, p.k);
        }
    }
    for (uint32_t c = 0; c < h * h; ++c)
    {
        AddNode(d, "core" + Str(c), TopologyNodeKind::SWITCH, p.core.name, p.k);
    }
    for (uint32_t pod = 0; pod < p.k; ++pod)
    {
        for (uint32_t e = 0; e < h; ++e)
        {
            for (uint32_t x = 0; x < h; ++x)
            {
                AddLink(d, "host" + Str((pod * h + e) * h + x), edge(pod, e), p.edge.name);
            }
        }
    }
    for (uint32_t pod = 0; pod < p.k; ++pod)
    {
        for (uint32_t e = 0; e < h; ++e)
        {
            for (uint32_t a = 0; a < h; ++a)
            {
                AddLink(d, edge(pod, e), agg(pod, a), p.aggregation.name);
            }
        }
    }
    // Aggregation switch a of every pod reaches cores a*h .. a*h + h-1.
    for (uint32_t pod = 0; pod < p.k; ++pod)
    {
        for (uint32_t a = 0; a < h; ++a)
        {
            for (uint32_t c = 0; c < h; ++c)
            {
                AddLink(d, agg(pod, a), "core" + Str(a * h + c), p.core.name);
            }
        }
    }
    return d;
}

TopologyDescription
BuildRailOptimized(const RailOptimizedParams& p)
{
    if (p.nodes == 0)
    {
        Fail("nodes", "at least one server");
    }
    if (p.gpusPerNode == 0)
    {
        Fail("gpus_per_node", "at least one GPU per server");
    }
    CheckEndpoints(uint64_t{p.nodes} * p.gpusPerNode, "gpus_per_node",
                   Str(p.nodes) + " servers x " + Str(p.gpusPerNode) + " GPUs");
    const uint32_t rails = p.gpusPerNode;
    if (!(p.oversubscription > 0) || !std::isfinite(p.oversubscription))
    {
        Fail("oversubscription", "a positive oversubscription ratio");
    }
    // One unit when one leaf per rail holds every server with its uplinks
    // (the servers' whole down capacity over the ratio, rounded up here; it
    // must come out whole, below).
    const double allUp = UplinkShare(double(p.nodes) * double(p.rail.laneRate.GetBitRate()), p.oversubscription,
                                     double(p.spine.laneRate.GetBitRate()));
    uint32_t unit = p.unitNodes;
    if (unit == 0)
    {
        unit = p.nodes;
        if (double(p.nodes) + std::ceil(allUp - 1e-9 * allUp) > double(p.switchPorts))
        {
            // Scalable units: the most servers whose whole uplinks fit a leaf with them.
            unit = std::min(p.nodes, p.switchPorts);
            for (uint32_t up = RailUplinksOrZero(p, unit); unit > 0 && (up == 0 || unit + up > p.switchPorts);
                 up = RailUplinksOrZero(p, unit))
            {
                --unit;
            }
            if (unit == 0)
            {
                Fail("oversubscription", "a ratio giving a whole number of uplinks per rail leaf of at most " +
                                             Str(p.switchPorts) + " ports");
            }
        }
    }
    else if (unit > p.nodes)
    {
        Fail("su-nodes", "at most the " + Str(p.nodes) + " servers, got " + Str(unit));
    }
    const uint32_t units = (p.nodes + unit - 1) / unit;
    const uint32_t up = Uplinks(double(unit) * p.rail.laneRate.GetBitRate(),
                                p.oversubscription,
                                double(p.spine.laneRate.GetBitRate()),
                                "oversubscription");
    if (unit + up > p.switchPorts)
    {
        Fail(units == 1 ? "nodes" : "su-nodes",
             "at most the servers one rail leaf of " + Str(p.switchPorts) +
                 " ports holds with its uplinks (" + Str(unit) + " down + " + Str(up) +
                 " up)");
    }
    const uint32_t leaves = units * rails;
    if (units > 1 && p.spines == 0 && uint64_t{leaves} > p.switchPorts)
    {
        // Every leaf needs a link to every spine: two tiers end at one
        // leaf per spine port (a core tier is not modelled).
        Fail("nodes", "at most " + Str(uint64_t{p.switchPorts / rails} * unit) + " servers (" +
                          Str(p.switchPorts / rails) + " scalable units of " + Str(unit) +
                          ": every rail leaf on every " + Str(p.switchPorts) +
                          "-port spine; no core tier), got " + Str(p.nodes));
    }
    const uint32_t spines = RailSpineCount(p, leaves, up);
    auto leafName = [&](uint32_t u, uint32_t r) {
        return (units == 1 ? std::string() : "su" + Str(u) + ".") + "rail" + Str(r);
    };

    TopologyDescription d;
    d.name = "rail-optimized";
    for (uint32_t n = 0; n < p.nodes; ++n)
    {
        NvSwitchDomainParams dom = p.domain;
        dom.gpus = p.gpusPerNode;
        dom.prefix = "n" + Str(n) + ".";
        AppendDomain(d, dom);
        if (p.pcie)
        {
            AddTier(d, p.pcieTier);
            for (uint32_t g = 0; g < p.gpusPerNode; ++g)
            {
                AddNode(d, dom.prefix + "nic" + Str(g), TopologyNodeKind::NIC, p.pcieTier.name);
                AddLink(d, dom.prefix + "gpu" + Str(g), dom.prefix + "nic" + Str(g),
                        p.pcieTier.name, p.pcieLanes);
            }
        }
    }
    AddTier(d, p.rail);
    AddTier(d, p.spine);
    for (uint32_t u = 0; u < units; ++u)
    {
        for (uint32_t r = 0; r < rails; ++r)
        {
            AddNode(d, leafName(u, r), TopologyNodeKind::SWITCH, p.rail.name, p.switchPorts);
        }
    }
    for (uint32_t s = 0; s < spines; ++s)
    {
        AddNode(d, "spine" + Str(s), TopologyNodeKind::SWITCH, p.spine.name, p.switchPorts);
    }
    for (uint32_t n = 0; n < p.nodes; ++n)
    {
        for (uint32_t r = 0; r < rails; ++r)
        {
            // Without PCIe the NIC is part of the GPU endpoint.
            std::string nic = "n" + Str(n) + (p.pcie ? ".nic" : ".gpu") + Str(r);
            AddLink(d, nic, leafName(n / unit, r), p.rail.name);
        }
    }
    // Every leaf has the uplinks of a full unit (a last, partial unit's
    // too: cabled for its unit, as SuperPOD units are).
    for (uint32_t u = 0; u < units; ++u)
    {
        for (uint32_t r = 0; r < rails; ++r)
        {
            for (uint32_t k = 0; k < up; ++k)
            {
                AddLink(d, leafName(u, r), "spine" + Str(k % spines), p.spine.name);
            }
        }
    }
    return d;
}

} // namespace ns3
