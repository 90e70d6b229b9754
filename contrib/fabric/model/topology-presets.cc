// SPDX-License-Identifier: GPL-2.0-only
//
// The named presets of topology-presets.h: a name with its ":key=value"
// options to builder parameters (MakePreset), and a scenario's topology
// (TopologyFromScenarioJson). The tiers are in topology-presets-tiers.cc, the
// builders in topology-presets-builders.cc.
#include "topology-presets-internal.h"
#include "topology-presets.h"

#include "ns3/log.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyTopologyPresets");

using topology_presets::Fail;
using topology_presets::Str;

namespace
{

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

// dgx-h100 and dgx-b200: one NVSwitch domain.
TopologyDescription
MakeDgxPreset(const std::string& base, const Options& o)
{
    CheckOptions(o, {"gpus", "nvswitch-chips"}, base);
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
    return BuildNvSwitchDomain(p);
}

// rail-h100-<N>n and rail-b200-<N>n: N servers on InfiniBand NDR rails.
TopologyDescription
MakeRailPreset(const std::string& base, uint32_t nodes, const Options& o)
{
    CheckOptions(o, {"spines", "oversubscription", "nvswitch-chips", "pcie", "gpus-per-node", "su-nodes"}, base);
    RailOptimizedParams p;
    p.nodes = nodes;
    if (base.compare(0, 10, "rail-b200-") == 0)
    {
        p.domain.nvlink = NvLinkTier(5);
        p.domain.chipLanes = {9, 9};
        p.domain.chipPorts = 72;
    }
    p.spines = OptCount(o, "spines", 0);
    p.oversubscription = OptNumber(o, "oversubscription", 1.0);
    p.gpusPerNode = OptCount(o, "gpus-per-node", 8);
    p.unitNodes = OptCount(o, "su-nodes", 0);
    p.pcie = OptCount(o, "pcie", 1) != 0;
    ApplyDomainOptions(o, p.domain);
    return BuildRailOptimized(p);
}

// roce-leafspine: hosts on a two-tier RoCEv2 leaf-spine.
TopologyDescription
MakeLeafSpinePreset(const std::string& base, const Options& o)
{
    CheckOptions(o, {"oversubscription", "leaves", "spines", "hosts-per-leaf"}, base);
    LeafSpineParams p;
    p.oversubscription = OptNumber(o, "oversubscription", 1.0);
    p.leaves = OptCount(o, "leaves", p.leaves);
    p.spines = OptCount(o, "spines", p.spines);
    p.hostsPerLeaf = OptCount(o, "hosts-per-leaf", p.hostsPerLeaf);
    return BuildLeafSpine(p);
}

// fat-tree (k = 4, or option k) and fat-tree-k<K>: the k-ary fat tree.
TopologyDescription
MakeFatTreePreset(const std::string& base, uint32_t k, const Options& o)
{
    CheckOptions(o, base == "fat-tree" ? std::vector<std::string>{"k"} : std::vector<std::string>{}, base);
    FatTreeParams p;
    p.k = base == "fat-tree" ? OptCount(o, "k", 4) : k;
    return BuildFatTree(p);
}

// The preset of base name \p base (its counted forms parsed here), without
// the renaming of builder fields that MakePreset adds.
TopologyDescription
MakeNamedPreset(const std::string& name, const std::string& base, const Options& o)
{
    uint32_t n = 0;
    if (base == "dgx-h100" || base == "dgx-b200")
    {
        return MakeDgxPreset(base, o);
    }
    if (ParseCountedName(base, "rail-h100-", "n", n) || ParseCountedName(base, "rail-b200-", "n", n))
    {
        return MakeRailPreset(base, n, o);
    }
    if (base == "roce-leafspine")
    {
        return MakeLeafSpinePreset(base, o);
    }
    if (base == "fat-tree" || ParseCountedName(base, "fat-tree-k", "", n))
    {
        return MakeFatTreePreset(base, n, o);
    }
    std::string list;
    for (const auto& s : PresetNames())
    {
        list += (list.empty() ? "" : ", ") + s;
    }
    Fail("preset", "one of " + list + ", got '" + name + "'");
}

} // namespace

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
    TopologyDescription d;
    try
    {
        d = MakeNamedPreset(name, base, o);
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
