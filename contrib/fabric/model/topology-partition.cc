// SPDX-License-Identifier: GPL-2.0-only
#include "topology-partition.h"

#include "input-error.h"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>

namespace ns3
{

namespace
{

/// Hops from each node to its nearest endpoint.
std::vector<uint32_t>
EndpointDistance(const TopologyGraph& g)
{
    std::vector<uint32_t> level(g.NodeCount(), TopologyGraph::UNREACHABLE);
    std::vector<uint32_t> todo;
    for (uint32_t r = 0; r < g.EndpointCount(); ++r)
    {
        level[g.EndpointNode(r)] = 0;
        todo.push_back(g.EndpointNode(r));
    }
    for (size_t i = 0; i < todo.size(); ++i)
    {
        const uint32_t v = todo[i];
        for (uint32_t link : g.PortsOf(v))
        {
            const uint32_t p = g.Peer(link, v);
            if (level[p] == TopologyGraph::UNREACHABLE)
            {
                level[p] = level[v] + 1;
                todo.push_back(p);
            }
        }
    }
    return level;
}

uint32_t
Find(std::vector<uint32_t>& parent, uint32_t v)
{
    while (parent[v] != v)
    {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

/// The units of nodes within \p depth hops of an endpoint joined by their
/// links (each other node a unit of its own), as lists of nodes in node order.
std::vector<std::vector<uint32_t>>
Units(const TopologyGraph& g, uint32_t depth)
{
    const std::vector<uint32_t> level = EndpointDistance(g);
    std::vector<uint32_t> parent(g.NodeCount());
    std::iota(parent.begin(), parent.end(), 0);
    for (uint32_t l = 0; l < g.LinkCount(); ++l)
    {
        const uint32_t a = g.LinkA(l);
        const uint32_t b = g.LinkB(l);
        if (level[a] <= depth && level[b] <= depth)
        {
            parent[Find(parent, a)] = Find(parent, b);
        }
    }
    std::vector<std::vector<uint32_t>> units;
    std::vector<int> index(g.NodeCount(), -1);
    for (uint32_t v = 0; v < g.NodeCount(); ++v)
    {
        const uint32_t root = Find(parent, v);
        if (index[root] < 0)
        {
            index[root] = static_cast<int>(units.size());
            units.emplace_back();
        }
        units[index[root]].push_back(v);
    }
    return units;
}

std::vector<uint32_t>
AssignUnits(const TopologyGraph& g, const std::vector<std::vector<uint32_t>>& units, uint32_t ranks)
{
    auto endpoints = [&g](const std::vector<uint32_t>& u) {
        return static_cast<uint32_t>(std::count_if(u.begin(), u.end(), [&g](uint32_t v) { return g.RankOf(v) >= 0; }));
    };
    // Largest first (by endpoints, then nodes), else in node order.
    std::vector<size_t> order(units.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const uint32_t ea = endpoints(units[a]);
        const uint32_t eb = endpoints(units[b]);
        return ea != eb ? ea > eb : units[a].size() > units[b].size();
    });
    std::vector<uint32_t> owner(g.NodeCount(), 0);
    std::vector<uint64_t> hosts(ranks, 0);
    std::vector<uint64_t> switches(ranks, 0);
    for (size_t u : order)
    {
        const uint32_t e = endpoints(units[u]);
        const std::vector<uint64_t>& load = e > 0 ? hosts : switches;
        const uint32_t r = static_cast<uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
        hosts[r] += e;
        switches[r] += units[u].size() - e;
        for (uint32_t v : units[u])
        {
            owner[v] = r;
        }
    }
    return owner;
}

std::vector<uint32_t>
ReadRankMap(const TopologyGraph& g, uint32_t ranks, const std::string& path, const std::string& field)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(field, "expected a readable rank map file, got '" + path + "'");
    }
    std::vector<int64_t> owner(g.NodeCount(), -1);
    std::string line;
    uint32_t number = 0;
    while (std::getline(in, line))
    {
        ++number;
        line = line.substr(0, line.find('#'));
        std::istringstream ls(line);
        std::string name;
        int64_t rank = -1;
        if (!(ls >> name))
        {
            continue;
        }
        const std::string where = path + ":" + std::to_string(number);
        std::string rest;
        if (!(ls >> rank) || (ls >> rest) || rank < 0 || rank >= ranks)
        {
            throw InputError(field, "expected '" + where + "' to be 'NODE RANK' with a rank below " +
                                        std::to_string(ranks) + ", got '" + line + "'");
        }
        uint32_t v = 0;
        try
        {
            v = g.NodeId(name, field);
        }
        catch (const std::invalid_argument&)
        {
            throw InputError(field, "expected a node of the topology at " + where + ", got '" + name + "'");
        }
        if (owner[v] >= 0)
        {
            throw InputError(field, "expected node " + name + " once, listed again at " + where);
        }
        owner[v] = rank;
    }
    std::vector<uint32_t> out(g.NodeCount());
    for (uint32_t v = 0; v < g.NodeCount(); ++v)
    {
        if (owner[v] < 0)
        {
            throw InputError(field, "expected every node in " + path + ", node " + g.Node(v).name + " is missing");
        }
        out[v] = static_cast<uint32_t>(owner[v]);
    }
    return out;
}

} // namespace

std::string
TopologyPartition::Describe() const
{
    std::ostringstream os;
    os << ranks << " ranks, " << cutLinks << " links cut, lookahead " << lookahead.GetNanoSeconds() << " ns";
    return os.str();
}

void
CheckPartitionMode(const std::string& mode, const std::string& field)
{
    const std::string mapPrefix = "rank-map:";
    if (mode.rfind(mapPrefix, 0) == 0)
    {
        const std::string path = mode.substr(mapPrefix.size());
        if (!std::ifstream(path))
        {
            throw InputError(field, "expected a readable rank map file, got '" + path + "'");
        }
    }
    else if (mode != "auto" && mode != "pod")
    {
        throw InputError(field, "expected auto, pod or rank-map:FILE, got '" + mode + "'");
    }
}

TopologyPartition
PartitionTopology(const TopologyGraph& g, uint32_t ranks, const std::string& mode, const std::string& field)
{
    CheckPartitionMode(mode, field);
    TopologyPartition p;
    p.ranks = std::max<uint32_t>(ranks, 1);
    const std::string mapPrefix = "rank-map:";
    if (mode == "auto" || mode == "pod")
    {
        const std::vector<std::vector<uint32_t>> units = Units(g, mode == "auto" ? 1 : 2);
        if (mode == "pod")
        {
            const size_t pods = std::count_if(units.begin(), units.end(), [&g](const std::vector<uint32_t>& u) {
                return std::any_of(u.begin(), u.end(), [&g](uint32_t v) { return g.RankOf(v) >= 0; });
            });
            if (pods < p.ranks)
            {
                throw InputError(field, "expected a topology with at least " + std::to_string(p.ranks) +
                                            " pods (switches within two hops of their endpoints) for partition "
                                            "pod, got " + std::to_string(pods) + " (try auto)");
            }
        }
        p.owner = AssignUnits(g, units, p.ranks);
    }
    else // rank-map:FILE (CheckPartitionMode)
    {
        p.owner = ReadRankMap(g, p.ranks, mode.substr(mapPrefix.size()), field);
    }
    for (uint32_t l = 0; l < g.LinkCount(); ++l)
    {
        if (p.owner[g.LinkA(l)] != p.owner[g.LinkB(l)])
        {
            const Time delay = g.LinkTier(l).delay;
            p.lookahead = p.cutLinks == 0 ? delay : std::min(p.lookahead, delay);
            ++p.cutLinks;
        }
    }
    return p;
}

} // namespace ns3
