// SPDX-License-Identifier: GPL-2.0-only
//
// hockney topology: what a topology description builds, before anything runs.
// --topology=PRESET or --scenario=FILE; --show=summary|nodes|links|paths|hops.
// Paths and hops are those of --pairs (SRC:DST ranks; default: rank 0 to every
// other rank) for ECMP flow --flow: the hops, zero-byte latency, bottleneck
// rate and the number of equal-cost paths the analytic side reads. A bad
// description is a one-line error naming the field, exit 2.
#include "flags.h"

#include "input-error.h"
#include "result-row.h"
#include "topology-graph.h"
#include "topology-presets.h"

#include <cstdlib>
#include <ostream>
#include <sstream>
#include <utility>

namespace
{

using namespace ns3;

[[noreturn]] void
Fail(const std::string& field, const std::string& what)
{
    throw InputError(field, "expected " + what);
}

uint32_t
ParseRank(const std::string& text, uint32_t endpoints)
{
    char* end = nullptr;
    unsigned long v = std::strtoul(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || text[0] == '-' || v >= endpoints)
    {
        Fail("--pairs",
             "endpoint ranks 0 to " + std::to_string(endpoints - 1) + ", got '" + text + "'");
    }
    return static_cast<uint32_t>(v);
}

std::vector<std::pair<uint32_t, uint32_t>>
ParsePairs(const std::string& text, uint32_t endpoints)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    if (text.empty())
    {
        for (uint32_t d = 1; d < endpoints; ++d)
        {
            pairs.emplace_back(0, d);
        }
        return pairs;
    }
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        auto colon = item.find(':');
        if (colon == std::string::npos)
        {
            Fail("--pairs", "SRC:DST[,SRC:DST...] endpoint ranks, got '" + item + "'");
        }
        pairs.emplace_back(ParseRank(item.substr(0, colon), endpoints),
                           ParseRank(item.substr(colon + 1), endpoints));
    }
    return pairs;
}

// Exact picoseconds to seconds (Time::GetSeconds rounds 10 ns to 9.99999e-09).
double
Sec(Time t)
{
    return static_cast<double>(t.GetPicoSeconds()) / 1e12;
}

double
Bps(DataRate r)
{
    return r.GetBitRate() / 8.0;
}

std::string
RouteText(const TopologyGraph& g, const TopologyPath& p)
{
    std::string s = g.Node(p.srcNode).name;
    for (const auto& h : p.hops)
    {
        s += ">" + g.Node(h.to).name;
    }
    return s;
}

void
DeclareTopologyFlags(hockney::Flags& f)
{
    const std::string presets = hockney::Join(PresetNames(), "|");
    f.Add("topology", "", "preset (" + presets + "), options after ':' e.g. roce-leafspine:oversubscription=2")
        .Add("scenario", "", "JSON file: {\"preset\": NAME} or {\"tiers\", \"nodes\", \"links\"}")
        .Add("show", "summary", "summary|nodes|links|paths|hops")
        .Add("pairs", "", "SRC:DST endpoint ranks for paths/hops (default 0 to every other rank)")
        .Add("flow", "0", "ECMP flow index of the paths (flows 0, 1, ... enumerate the equal-cost paths)")
        .Add("format", "table", "table|csv|json");
}

// --flow: a decimal index >= 0 (strtoull alone would wrap "-1" around to 2^64 - 1).
unsigned long long
ParseFlowIndex(const std::string& flowText)
{
    char* end = nullptr;
    const unsigned long long flow = std::strtoull(flowText.c_str(), &end, 10);
    if (flowText.empty() || *end != '\0' || flowText[0] == '-')
    {
        Fail("--flow", "a flow index >= 0, got '" + flowText + "'");
    }
    return flow;
}

ResultRow
SummaryRow(const TopologyGraph& g)
{
    ResultRow r;
    r.Set("topology", g.Description().name)
        .Set("nodes", uint64_t{g.NodeCount()})
        .Set("links", uint64_t{g.LinkCount()})
        .Set("endpoints", uint64_t{g.EndpointCount()})
        .Set("gpus", uint64_t{g.CountKind(TopologyNodeKind::GPU)})
        .Set("hosts", uint64_t{g.CountKind(TopologyNodeKind::HOST)})
        .Set("nics", uint64_t{g.CountKind(TopologyNodeKind::NIC)})
        .Set("switches", uint64_t{g.CountKind(TopologyNodeKind::SWITCH)})
        .Set("tiers", uint64_t{g.Description().tiers.size()});
    return r;
}

ResultRow
NodeRow(const TopologyGraph& g, uint32_t v)
{
    const auto& n = g.Node(v);
    ResultRow r;
    r.Set("node", uint64_t{v}).Set("name", n.name).Set("kind", ToString(n.kind)).Set("tier", n.tier);
    if (g.RankOf(v) >= 0)
    {
        r.Set("rank", g.RankOf(v));
    }
    else
    {
        r.SetNull("rank");
    }
    r.Set("links", uint64_t{g.PortsOf(v).size()}).Set("lanes", g.LanesAt(v));
    if (n.ports > 0)
    {
        r.Set("ports", uint64_t{n.ports});
    }
    else
    {
        r.SetNull("ports");
    }
    return r;
}

ResultRow
LinkRow(const TopologyGraph& g, uint32_t l)
{
    const auto& t = g.LinkTier(l);
    ResultRow r;
    r.Set("link", uint64_t{l})
        .Set("a", g.Link(l).a)
        .Set("b", g.Link(l).b)
        .Set("tier", t.name)
        .Set("lanes", uint64_t{g.Link(l).lanes})
        .Set("rate_Bps", Bps(g.LinkRate(l)))
        .Set("delay_s", Sec(t.delay))
        .Set("header_bytes", uint64_t{t.headerBytes})
        .Set("mtu_bytes", uint64_t{t.mtuBytes})
        .Set("flow_control", ToString(t.flowControl));
    return r;
}

ResultRow
PathRow(const TopologyGraph& g, uint32_t src, uint32_t dst, const TopologyPath& p)
{
    ResultRow r;
    r.Set("src", uint64_t{src})
        .Set("dst", uint64_t{dst})
        .Set("hops", uint64_t{p.HopCount()})
        .Set("latency_s", Sec(p.TotalLatency()))
        .Set("bottleneck_Bps", Bps(p.BottleneckRate()))
        .Set("min_mtu_bytes", uint64_t{p.MinMtuBytes()})
        .Set("equal_cost_paths", g.EqualCostPathCount(src, dst))
        .Set("route", RouteText(g, p));
    return r;
}

ResultRow
HopRow(const TopologyGraph& g, uint32_t src, uint32_t dst, const TopologyPath& p, size_t i)
{
    const auto& h = p.hops[i];
    ResultRow r;
    r.Set("src", uint64_t{src})
        .Set("dst", uint64_t{dst})
        .Set("hop", uint64_t{i})
        .Set("link", uint64_t{h.link})
        .Set("from", g.Node(h.from).name)
        .Set("to", g.Node(h.to).name)
        .Set("tier", h.tier)
        .Set("rate_Bps", Bps(h.rate))
        .Set("delay_s", Sec(h.delay))
        .Set("header_bytes", uint64_t{h.headerBytes})
        .Set("mtu_bytes", uint64_t{h.mtuBytes})
        .Set("forwarding_latency_s", Sec(h.forwardingLatency))
        .Set("cut_through", h.cutThrough);
    return r;
}

// The rows of --show: one for the summary, one per node, link or path, or one
// per hop of each path.
std::vector<ResultRow>
ShowRows(const TopologyGraph& g, const std::string& show, const std::string& pairs, unsigned long long flow)
{
    std::vector<ResultRow> rows;
    if (show == "summary")
    {
        rows.push_back(SummaryRow(g));
    }
    else if (show == "nodes")
    {
        for (uint32_t v = 0; v < g.NodeCount(); ++v)
        {
            rows.push_back(NodeRow(g, v));
        }
    }
    else if (show == "links")
    {
        for (uint32_t l = 0; l < g.LinkCount(); ++l)
        {
            rows.push_back(LinkRow(g, l));
        }
    }
    else if (show == "paths" || show == "hops")
    {
        for (const auto& [src, dst] : ParsePairs(pairs, g.EndpointCount()))
        {
            TopologyPath p = g.Path(src, dst, flow);
            if (show == "paths")
            {
                rows.push_back(PathRow(g, src, dst, p));
                continue;
            }
            for (size_t i = 0; i < p.hops.size(); ++i)
            {
                rows.push_back(HopRow(g, src, dst, p, i));
            }
        }
    }
    else
    {
        Fail("--show", "summary, nodes, links, paths or hops, got '" + show + "'");
    }
    return rows;
}

int
TopologyCommand(const std::vector<std::string>& args, std::ostream& out)
{
    hockney::Flags f;
    DeclareTopologyFlags(f);
    if (!f.Parse(args, out))
    {
        return 0;
    }
    const OutputFormat format = ParseOutputFormat(f.Get("format"));
    if (f.IsSet("topology") == f.IsSet("scenario"))
    {
        Fail("--topology", "a preset name, or --scenario=FILE instead (exactly one of the two)");
    }
    TopologyDescription d = f.IsSet("topology") ? MakePreset(f.Get("topology"))
                                                : TopologyFromScenarioFile(f.Get("scenario"));
    const TopologyGraph g(std::move(d));
    const unsigned long long flow = ParseFlowIndex(f.Get("flow"));
    WriteRows(out, "topology", ShowRows(g, f.Get("show"), f.Get("pairs"), flow), format);
    return 0;
}

hockney::CommandRegistrar registrar("topology",
                                    "nodes, links and paths of a topology preset or scenario",
                                    &TopologyCommand);

} // namespace
