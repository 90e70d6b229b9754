// SPDX-License-Identifier: GPL-2.0-only
#include "topology-presets.h"

#include "input-error.h"

#include "ns3/log.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyTopologyPresets");

namespace
{

[[noreturn]] void
Fail(const std::string& field, const std::string& what)
{
    throw InputError(field, "expected " + what);
}

std::string
Str(uint64_t v)
{
    return std::to_string(v);
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

// Whole number of uplinks that realizes a down/up capacity ratio exactly.
uint32_t
Uplinks(double downBps, double ratio, double upLinkBps, const std::string& field)
{
    if (!(ratio > 0) || !std::isfinite(ratio))
    {
        Fail(field, "a positive oversubscription ratio");
    }
    double u = downBps / (ratio * upLinkBps);
    double whole = std::round(u);
    if (whole < 1 || std::fabs(u - whole) > 1e-9 * u)
    {
        std::ostringstream os;
        os << "a ratio giving a whole number of uplinks per leaf (down capacity / (ratio x "
              "uplink rate) = "
           << u << ")";
        Fail(field, os.str());
    }
    return static_cast<uint32_t>(whole);
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

using Options = std::map<std::string, std::string>;

Options
ParseOptions(const std::string& text)
{
    Options o;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        auto eq = item.find('=');
        if (item.empty() || eq == std::string::npos || eq == 0)
        {
            Fail("preset", "options as key=value[,key=value...], got '" + text + "'");
        }
        o[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return o;
}

uint32_t
OptCount(const Options& o, const std::string& key, uint32_t fallback)
{
    auto it = o.find(key);
    if (it == o.end())
    {
        return fallback;
    }
    const std::string& v = it->second;
    char* end = nullptr;
    unsigned long n = std::strtoul(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || v[0] == '-' || n > 1000000)
    {
        Fail("preset." + key, "a whole number, got '" + v + "'");
    }
    return static_cast<uint32_t>(n);
}

double
OptNumber(const Options& o, const std::string& key, double fallback)
{
    auto it = o.find(key);
    if (it == o.end())
    {
        return fallback;
    }
    const std::string& v = it->second;
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(x) || x <= 0)
    {
        Fail("preset." + key, "a positive number, got '" + v + "'");
    }
    return x;
}

void
CheckOptions(const Options& o, const std::vector<std::string>& allowed, const std::string& base)
{
    for (const auto& [k, v] : o)
    {
        bool ok = false;
        std::string list;
        for (const auto& a : allowed)
        {
            ok = ok || a == k;
            list += (list.empty() ? "" : ", ") + a;
        }
        if (!ok)
        {
            Fail("preset." + k,
                 "an option of " + base + " (" + (list.empty() ? "none" : list) + ")");
        }
    }
}

// Parses "<prefix><N><suffix>", N >= 1; false if the prefix does not match.
bool
ParseCountedName(const std::string& base, const std::string& prefix, const std::string& suffix,
                 uint32_t& n)
{
    if (base.compare(0, prefix.size(), prefix) != 0)
    {
        return false;
    }
    std::string mid = base.substr(prefix.size());
    bool ok = mid.size() > suffix.size() &&
              mid.compare(mid.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (ok)
    {
        mid = mid.substr(0, mid.size() - suffix.size());
        ok = !mid.empty() && mid.size() <= 6 && mid.find_first_not_of("0123456789") == std::string::npos;
    }
    unsigned long v = ok ? std::strtoul(mid.c_str(), nullptr, 10) : 0;
    if (!ok || v == 0)
    {
        Fail("preset",
             prefix + "<N>" + suffix + " with a whole N >= 1, got '" + base + "'");
    }
    n = static_cast<uint32_t>(v);
    return true;
}

void
ApplyDomainOptions(const Options& o, NvSwitchDomainParams& p)
{
    uint32_t chips = OptCount(o, "nvswitch-chips", 1);
    if (chips != 1 && chips != p.chipLanes.size())
    {
        Fail("preset.nvswitch-chips",
             "1 (one logical switch) or " + Str(p.chipLanes.size()) + " (one switch per chip)");
    }
    p.splitChips = chips != 1;
}

} // namespace

TopologyTier
NvLinkTier(int generation)
{
    if (generation != 4 && generation != 5)
    {
        Fail("nvlink", "NVLink generation 4 or 5, got " + std::to_string(generation));
    }
    TopologyTier t;
    t.name = "nvlink";
    t.protocol = "nvlink";
    // NVLink 4: 18 links x 25 GB/s per direction = 450 GB/s per GPU; NVLink 5:
    // 18 x 50 GB/s = 900 GB/s (NVIDIA Hopper and NVLink pages; hardware_anchors.csv).
    t.laneRate = generation == 4 ? DataRate("25GB/s") : DataRate("50GB/s");
    // Assumption: about 1 m of board trace and cable at 5 ns/m.
    t.delay = NanoSeconds(5);
    // A packet is one 16-byte header flit and up to 16 data flits (256 B), as
    // published for NVLink 1/2 (Foley and Danskin, IEEE Micro 37(2), 2017);
    // assumed unchanged in later generations. Goodput 256/272 = 94 % of line rate.
    t.mtuBytes = 256;
    t.headerBytes = 16;
    t.flowControl = TopologyFlowControl::CREDIT;
    // Assumption: enough credits per port for 900 GB/s over a 200 ns credit loop.
    t.portBufferBytes = 256 * 1024;
    // Assumption: NVIDIA publishes no NVSwitch port-to-port latency; 100 ns,
    // forwarded cut-through (also an assumption; doc/fabric.md, Sources).
    t.forwardingLatency = NanoSeconds(100);
    t.cutThrough = true;
    return t;
}

TopologyTier
PcieGen5Tier()
{
    TopologyTier t;
    t.name = "pcie";
    t.protocol = "pcie";
    // 32 GT/s per lane with 128b/130b coding: x16 = 63.0 GB/s per direction raw
    // (hardware_anchors.csv "PCIe Gen5 x16 raw", derived).
    t.laneRate = DataRate(static_cast<uint64_t>(std::llround(32e9 * 128.0 / 130.0)));
    t.delay = NanoSeconds(5); // assumption: short board trace
    // Max payload 256 B (a common server setting, assumption); per TLP: 4-DW
    // header 16 B, sequence number 2 B, LCRC 4 B, framing token 4 B.
    t.mtuBytes = 256;
    t.headerBytes = 26;
    t.flowControl = TopologyFlowControl::CREDIT; // PCIe has credit-based flow control
    // The tier's forwarding nodes are NICs: assumption of 300 ns of NIC pipeline
    // between PCIe and the wire, store-and-forward (a DMA read completes first).
    t.forwardingLatency = NanoSeconds(300);
    t.cutThrough = false;
    return t;
}

TopologyTier
InfinibandNdrTier(const std::string& name)
{
    TopologyTier t;
    t.name = name;
    t.protocol = "infiniband";
    t.laneRate = DataRate("400Gbps"); // NDR port (hardware_anchors.csv, QM97X0 manual)
    // Assumption: 2 m copper at a rail leaf (10 ns), 20 m fibre leaf-spine (100 ns).
    t.delay = name == "spine" ? NanoSeconds(100) : NanoSeconds(10);
    // IB MTU 4096 is the IBTA path MTU of the data payload; link framing per
    // packet LRH 8 + ICRC 4 + VCRC 2 = 14 B (IBTA spec). The transport headers
    // (BTH 12 + RETH 16 + ImmDt 4 = 32 B) are the RDMA NIC's and travel as port
    // payload (fabric-header.h), so the port MTU is 4096 + 32 B.
    t.mtuBytes = kRdmaPortMtuBytes;
    t.headerBytes = 14;
    t.flowControl = TopologyFlowControl::CREDIT; // IB link-level credits
    t.portBufferBytes = 128 * 1024;             // assumption
    // Quantum-2 port-to-port latency: third-party figures 130-400 ns
    // (hardware_anchors.csv, unverified); 200 ns, cut-through.
    t.forwardingLatency = NanoSeconds(200);
    t.cutThrough = true;
    return t;
}

TopologyTier
RoceTier(const std::string& name, DataRate rate)
{
    TopologyTier t;
    t.name = name;
    t.protocol = "roce";
    t.laneRate = rate;
    // Assumption: 2 m copper below a leaf (10 ns), 20 m fibre above (100 ns).
    t.delay = name == "leaf" || name == "edge" ? NanoSeconds(10) : NanoSeconds(100);
    // Jumbo frames carrying 4096 B RDMA payloads; per packet Ethernet 14 + IPv4
    // 20 + UDP 8 + ICRC 4 + FCS 4 = 50 B, plus preamble/SFD 8 and inter-frame
    // gap 12 that occupy the wire too: 70 B. The transport headers are port
    // payload, as for IB: 4096 B of data + 32 B (a 4200 B jumbo IP MTU fits it).
    t.mtuBytes = kRdmaPortMtuBytes;
    t.headerBytes = 70;
    t.flowControl = TopologyFlowControl::PFC;
    // Assumption: 500 ns through a store-and-forward shared-buffer switch.
    t.forwardingLatency = NanoSeconds(500);
    t.cutThrough = false;
    // 12-32 MB per switch in public RDMA simulations (doc/fabric.md, Sources).
    t.switchBufferBytes = 32 * 1000 * 1000;
    return t;
}

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
    const uint32_t rails = p.gpusPerNode;
    const uint32_t up = Uplinks(double(p.nodes) * p.rail.laneRate.GetBitRate(),
                                p.oversubscription,
                                double(p.spine.laneRate.GetBitRate()),
                                "oversubscription");
    if (p.nodes + up > p.switchPorts)
    {
        Fail("nodes",
             "at most the servers one rail leaf of " + Str(p.switchPorts) +
                 " ports holds with its uplinks (" + Str(p.nodes) + " down + " + Str(up) +
                 " up)");
    }
    uint32_t spines = p.spines;
    if (spines > up)
    {
        Fail("spines", "at most one spine per rail-leaf uplink (" + Str(up) + " uplinks), got " +
                           Str(spines) + " (a spine without links is disconnected)");
    }
    if (spines == 0)
    {
        // Fewest spines (two at least, for ECMP, when a leaf has two uplinks)
        // that take the same number of uplinks from every leaf and fit their ports.
        spines = up >= 2 ? 2 : 1;
        while (spines <= up && (up % spines != 0 || uint64_t{rails} * (up / spines) > p.switchPorts))
        {
            ++spines;
        }
        if (spines > up)
        {
            Fail("spines", "a spine count whose switches hold " + Str(rails) + " x " + Str(up) +
                               " uplinks");
        }
    }

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
    for (uint32_t r = 0; r < rails; ++r)
    {
        AddNode(d, "rail" + Str(r), TopologyNodeKind::SWITCH, p.rail.name, p.switchPorts);
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
            AddLink(d, nic, "rail" + Str(r), p.rail.name);
        }
    }
    for (uint32_t r = 0; r < rails; ++r)
    {
        for (uint32_t u = 0; u < up; ++u)
        {
            AddLink(d, "rail" + Str(r), "spine" + Str(u % spines), p.spine.name);
        }
    }
    return d;
}

std::vector<std::string>
PresetNames()
{
    return {"dgx-h100", "dgx-b200", "rail-h100-<N>n", "rail-b200-<N>n", "roce-leafspine",
            "fat-tree", "fat-tree-k<K>"};
}

TopologyDescription
MakePreset(const std::string& name)
{
    auto colon = name.find(':');
    const std::string base = name.substr(0, colon);
    const Options o = colon == std::string::npos ? Options{} : ParseOptions(name.substr(colon + 1));
    const std::vector<std::string> domainOpts = {"gpus", "nvswitch-chips"};
    TopologyDescription d;
    uint32_t n = 0;
    try
    {
        if (base == "dgx-h100" || base == "dgx-b200")
        {
            CheckOptions(o, domainOpts, base);
            NvSwitchDomainParams p;
            if (base == "dgx-b200")
            {
                // DGX B200: two NVLink 5 switch chips of 72 ports, 9 + 9 lanes per GPU
                // (assumption from NVIDIA's published system diagram).
                p.nvlink = NvLinkTier(5);
                p.chipLanes = {9, 9};
                p.chipPorts = 72;
            }
            p.gpus = OptCount(o, "gpus", p.gpus);
            ApplyDomainOptions(o, p);
            d = BuildNvSwitchDomain(p);
        }
        else if (ParseCountedName(base, "rail-h100-", "n", n) ||
                 ParseCountedName(base, "rail-b200-", "n", n))
        {
            CheckOptions(o, {"spines", "oversubscription", "nvswitch-chips", "pcie", "gpus-per-node"},
                         base);
            RailOptimizedParams p;
            p.nodes = n;
            if (base.compare(0, 10, "rail-b200-") == 0)
            {
                p.domain.nvlink = NvLinkTier(5);
                p.domain.chipLanes = {9, 9};
                p.domain.chipPorts = 72;
            }
            p.spines = OptCount(o, "spines", 0);
            p.oversubscription = OptNumber(o, "oversubscription", 1.0);
            p.gpusPerNode = OptCount(o, "gpus-per-node", 8);
            p.pcie = OptCount(o, "pcie", 1) != 0;
            ApplyDomainOptions(o, p.domain);
            d = BuildRailOptimized(p);
        }
        else if (base == "roce-leafspine")
        {
            CheckOptions(o, {"oversubscription", "leaves", "spines", "hosts-per-leaf"}, base);
            LeafSpineParams p;
            p.oversubscription = OptNumber(o, "oversubscription", 1.0);
            p.leaves = OptCount(o, "leaves", p.leaves);
            p.spines = OptCount(o, "spines", p.spines);
            p.hostsPerLeaf = OptCount(o, "hosts-per-leaf", p.hostsPerLeaf);
            d = BuildLeafSpine(p);
        }
        else if (base == "fat-tree" || ParseCountedName(base, "fat-tree-k", "", n))
        {
            CheckOptions(o, base == "fat-tree" ? std::vector<std::string>{"k"}
                                               : std::vector<std::string>{},
                         base);
            FatTreeParams p;
            p.k = base == "fat-tree" ? OptCount(o, "k", 4) : n;
            d = BuildFatTree(p);
        }
        else
        {
            std::string list;
            for (const auto& s : PresetNames())
            {
                list += (list.empty() ? "" : ", ") + s;
            }
            Fail("preset", "one of " + list + ", got '" + name + "'");
        }
    }
    catch (const InputError& e)
    {
        // Builder parameters become preset fields; preset fields stay as they are.
        if (e.Field().compare(0, 6, "preset") == 0)
        {
            throw;
        }
        throw InputError("preset." + e.Field(), e);
    }
    d.name = name;
    return d;
}

TopologyDescription
TopologyFromScenarioJson(const nlohmann::json& j)
{
    if (!j.is_object())
    {
        Fail("scenario", "a JSON object");
    }
    if (j.contains("topology"))
    {
        const auto& t = j.at("topology");
        if (t.is_string())
        {
            return MakePreset(t.get<std::string>());
        }
        try
        {
            return TopologyFromScenarioJson(t);
        }
        catch (const InputError& e)
        {
            throw InputError("topology." + e.Field(), e);
        }
    }
    if (j.contains("preset"))
    {
        if (!j.at("preset").is_string())
        {
            Fail("preset", "a preset name string");
        }
        return MakePreset(j.at("preset").get<std::string>());
    }
    return TopologyDescriptionFromJson(j);
}

TopologyDescription
TopologyFromScenarioFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        Fail("scenario", "a readable file, cannot open '" + path + "'");
    }
    nlohmann::json j;
    try
    {
        in >> j;
    }
    catch (const nlohmann::json::exception& e)
    {
        Fail("scenario", "valid JSON in '" + path + "' (" + e.what() + ")");
    }
    return TopologyFromScenarioJson(j);
}

} // namespace ns3
