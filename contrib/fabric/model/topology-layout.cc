// SPDX-License-Identifier: GPL-2.0-only
#include "topology-layout.h"

#include <algorithm>
#include <map>
#include <set>

namespace ns3
{

namespace
{

bool
IsNvLink(const TopologyGraph& g, uint32_t link)
{
    return g.LinkTier(link).protocol == "nvlink";
}

/// The endpoints reachable from \p node through NVLink links and switches.
std::set<uint32_t>
NvLinkDomain(const TopologyGraph& g, uint32_t node)
{
    std::set<uint32_t> seen{node};
    std::vector<uint32_t> todo{node};
    while (!todo.empty())
    {
        const uint32_t v = todo.back();
        todo.pop_back();
        // Endpoints never forward: only the start and switches are expanded.
        if (v != node && g.Node(v).kind != TopologyNodeKind::SWITCH)
        {
            continue;
        }
        for (uint32_t link : g.PortsOf(v))
        {
            const uint32_t u = g.Peer(link, v);
            if (IsNvLink(g, link) && seen.insert(u).second)
            {
                todo.push_back(u);
            }
        }
    }
    return seen;
}

/// The switches an endpoint's network traffic enters first: over its
/// non-NVLink links, through a NIC (kind NIC) to the switches beyond it.
std::set<uint32_t>
FirstSwitches(const TopologyGraph& g, uint32_t node)
{
    std::set<uint32_t> out;
    for (uint32_t link : g.PortsOf(node))
    {
        if (IsNvLink(g, link))
        {
            continue;
        }
        const uint32_t u = g.Peer(link, node);
        if (g.Node(u).kind == TopologyNodeKind::SWITCH)
        {
            out.insert(u);
        }
        else if (g.Node(u).kind == TopologyNodeKind::NIC)
        {
            for (uint32_t l2 : g.PortsOf(u))
            {
                const uint32_t w = g.Peer(l2, u);
                if (w != node && g.Node(w).kind == TopologyNodeKind::SWITCH)
                {
                    out.insert(w);
                }
            }
        }
    }
    return out;
}

/// A cluster of scalable units (rail-h100-<N>n past one leaf per rail: a
/// leaf per rail in each unit) has as many first switches per rail as it
/// has units. A rail, as NCCL uses the word, is a NIC's position in its
/// server (its channels and PXN pair NIC i with NIC i), and the leaves of
/// one position across units are one rail joined through the spines. So
/// when every first switch serves ranks of one position only, the
/// switches of a position become one rail (numbered by first appearance
/// in rank order, its first switch standing for it in railSwitch); kept
/// only if the result is rail-optimized with two rails or more.
void
MergeRailsByPosition(EndpointLayout& l)
{
    const size_t n = l.rail.size();
    std::vector<uint32_t> positionOfRail(l.railSwitch.size(), EndpointLayout::kNoRail);
    for (size_t r = 0; r < n; ++r)
    {
        if (l.rail[r] == EndpointLayout::kNoRail)
        {
            return;
        }
        uint32_t& pos = positionOfRail[l.rail[r]];
        if (pos != EndpointLayout::kNoRail && pos != l.local[r])
        {
            return; // a switch of two positions: not rails of positions
        }
        pos = l.local[r];
    }
    EndpointLayout merged = l;
    merged.railSwitch.clear();
    std::map<uint32_t, uint32_t> railOfPosition;
    for (size_t r = 0; r < n; ++r)
    {
        auto [it, added] =
            railOfPosition.emplace(l.local[r], static_cast<uint32_t>(railOfPosition.size()));
        if (added)
        {
            merged.railSwitch.push_back(l.railSwitch[l.rail[r]]);
        }
        merged.rail[r] = it->second;
    }
    // One position per server (hosts of one NIC on several leaves) makes
    // one rail of every leaf: nothing a rail layout would place by.
    if (merged.railSwitch.size() >= 2 && merged.RailOptimized())
    {
        l = std::move(merged);
    }
}

} // namespace

EndpointLayout
ComputeEndpointLayout(const TopologyGraph& g, uint32_t ranks)
{
    const uint32_t n = ranks == 0 ? g.EndpointCount() : std::min(ranks, g.EndpointCount());
    EndpointLayout l;
    l.server.assign(n, 0);
    l.local.assign(n, 0);
    l.rail.assign(n, EndpointLayout::kNoRail);
    std::map<uint32_t, uint32_t> serverOfNode; // endpoint node -> server
    std::vector<uint32_t> sizes;
    std::map<uint32_t, uint32_t> railOfSwitch;
    for (uint32_t r = 0; r < n; ++r)
    {
        const uint32_t node = g.EndpointNode(r);
        auto it = serverOfNode.find(node);
        if (it == serverOfNode.end())
        {
            const uint32_t s = l.servers++;
            sizes.push_back(0);
            for (uint32_t v : NvLinkDomain(g, node))
            {
                if (g.RankOf(v) >= 0)
                {
                    serverOfNode[v] = s;
                }
            }
            it = serverOfNode.find(node);
        }
        l.server[r] = it->second;
        l.local[r] = sizes[it->second]++;
        const std::set<uint32_t> first = FirstSwitches(g, node);
        if (first.size() == 1)
        {
            auto [sw, added] = railOfSwitch.emplace(*first.begin(), static_cast<uint32_t>(railOfSwitch.size()));
            if (added)
            {
                l.railSwitch.push_back(sw->first);
            }
            l.rail[r] = sw->second;
        }
    }
    if (!l.RailOptimized())
    {
        MergeRailsByPosition(l);
    }
    return l;
}

bool
EndpointLayout::RailOptimized() const
{
    if (servers < 2 || railSwitch.empty())
    {
        return false;
    }
    // Every server holds each rail exactly once.
    const uint32_t rails = static_cast<uint32_t>(railSwitch.size());
    std::vector<std::vector<uint32_t>> count(servers, std::vector<uint32_t>(rails, 0));
    for (uint32_t r = 0; r < server.size(); ++r)
    {
        if (rail[r] == kNoRail)
        {
            return false;
        }
        ++count[server[r]][rail[r]];
    }
    for (const auto& c : count)
    {
        if (std::any_of(c.begin(), c.end(), [](uint32_t k) { return k != 1; }))
        {
            return false;
        }
    }
    return true;
}

uint32_t
EndpointLayout::RankOn(uint32_t s, uint32_t r) const
{
    for (uint32_t k = 0; k < server.size(); ++k)
    {
        if (server[k] == s && rail[k] == r)
        {
            return k;
        }
    }
    return kNoRail;
}

} // namespace ns3
