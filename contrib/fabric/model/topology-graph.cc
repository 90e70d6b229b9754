// SPDX-License-Identifier: GPL-2.0-only
#include "topology-graph.h"

#include "ns3/log.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/filtered_graph.hpp>

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyTopologyGraph");

namespace
{

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

[[noreturn]] void
Fail(const std::string& field, const std::string& what)
{
    throw std::invalid_argument(field + ": expected " + what);
}

// Breadth-first search towards one destination may pass forwarding nodes and end
// at the destination; other endpoints are leaves, never transit.
struct TransitFilter
{
    const std::vector<bool>* forwards = nullptr;
    Vertex dst = 0;

    bool operator()(Vertex v) const
    {
        return v == dst || (*forwards)[v];
    }
};

// Exact to the nearest picosecond, as the fabric's ports serialize.
Time
Serialization(uint64_t bytes, DataRate rate)
{
    const unsigned __int128 bps = rate.GetBitRate();
    const unsigned __int128 bitPs = static_cast<unsigned __int128>(bytes) * 8 * 1000000000000ull;
    return PicoSeconds(static_cast<int64_t>((bitPs + bps / 2) / bps));
}

} // namespace

Time
TopologyPath::TotalLatency() const
{
    Time t;
    for (const auto& h : hops)
    {
        t += h.delay + h.forwardingLatency;
    }
    return t;
}

DataRate
TopologyPath::BottleneckRate() const
{
    if (hops.empty())
    {
        return DataRate(0);
    }
    uint64_t r = hops.front().rate.GetBitRate();
    for (const auto& h : hops)
    {
        r = std::min(r, h.rate.GetBitRate());
    }
    return DataRate(r);
}

uint32_t
TopologyPath::MinMtuBytes() const
{
    uint32_t m = std::numeric_limits<uint32_t>::max();
    for (const auto& h : hops)
    {
        m = std::min(m, h.mtuBytes);
    }
    return hops.empty() ? 0 : m;
}

Time
TopologyPath::UnloadedPacketTime(uint32_t payloadBytes) const
{
    // start: first bit leaves the current hop's sender; tail: last bit arrives.
    Time start;
    Time tail;
    Time lastTailIn; // last-bit arrival at the current sender (cut-through bound)
    bool boundByIngress = false;
    for (size_t i = 0; i < hops.size(); ++i)
    {
        const auto& h = hops[i];
        Time ser = Serialization(uint64_t{payloadBytes} + h.headerBytes, h.rate);
        Time end = start + ser;
        if (boundByIngress)
        {
            // A cut-through node cannot send the last bit before it has it. The
            // forwarding latency is the header's (lookup, arbitration); the data
            // path adds none (as FabricNetDevice does it).
            end = std::max(end, lastTailIn);
        }
        tail = end + h.delay;
        if (h.forwards)
        {
            if (h.cutThrough)
            {
                start = start + Serialization(h.headerBytes, h.rate) + h.delay + h.forwardingLatency;
                lastTailIn = tail;
                boundByIngress = true;
            }
            else
            {
                start = tail + h.forwardingLatency;
                boundByIngress = false;
            }
        }
    }
    return tail;
}

TopologyGraph::TopologyGraph(TopologyDescription description)
    : m_d(std::move(description))
{
    m_d.Validate();
    const size_t n = m_d.nodes.size();
    m_nodeTier.assign(n, -1);
    m_rank.assign(n, -1);
    m_ports.assign(n, {});
    for (size_t i = 0; i < n; ++i)
    {
        m_nodeTier[i] = m_d.nodes[i].tier.empty() ? -1 : m_d.FindTier(m_d.nodes[i].tier);
        if (IsEndpointKind(m_d.nodes[i].kind))
        {
            m_rank[i] = static_cast<int>(m_endpoints.size());
            m_endpoints.push_back(static_cast<uint32_t>(i));
        }
    }
    for (size_t l = 0; l < m_d.links.size(); ++l)
    {
        const auto& link = m_d.links[l];
        m_linkA.push_back(static_cast<uint32_t>(m_d.FindNode(link.a)));
        m_linkB.push_back(static_cast<uint32_t>(m_d.FindNode(link.b)));
        m_linkTier.push_back(m_d.FindTier(link.tier));
        m_ports[m_linkA.back()].push_back(static_cast<uint32_t>(l));
        m_ports[m_linkB.back()].push_back(static_cast<uint32_t>(l));
    }
    Route();
}

bool
TopologyGraph::Forwards(uint32_t node) const
{
    return !IsEndpointKind(m_d.nodes[node].kind);
}

void
TopologyGraph::Route()
{
    const uint32_t n = NodeCount();
    const uint32_t e = EndpointCount();
    Graph g(n);
    for (uint32_t l = 0; l < LinkCount(); ++l)
    {
        boost::add_edge(m_linkA[l], m_linkB[l], g);
    }

    std::vector<int> component(n);
    int components = boost::connected_components(g, component.data());
    if (components > 1)
    {
        for (uint32_t v = 1; v < n; ++v)
        {
            if (component[v] != component[0])
            {
                Fail("links",
                     "a connected graph, node '" + m_d.nodes[v].name + "' is not connected to '" +
                         m_d.nodes[0].name + "'");
            }
        }
    }

    std::vector<bool> forwards(n);
    for (uint32_t v = 0; v < n; ++v)
    {
        forwards[v] = Forwards(v);
    }

    m_distance.assign(size_t{n} * e, UNREACHABLE);
    std::vector<std::vector<TopologyNextHop>> hops(size_t{n} * e);
    std::vector<uint32_t> dist(n);
    for (uint32_t r = 0; r < e; ++r)
    {
        const Vertex dst = m_endpoints[r];
        TransitFilter filter{&forwards, dst};
        boost::filtered_graph<Graph, boost::keep_all, TransitFilter> fg(g, boost::keep_all(), filter);
        std::fill(dist.begin(), dist.end(), UNREACHABLE);
        dist[dst] = 0;
        boost::breadth_first_search(
            fg,
            dst,
            boost::visitor(boost::make_bfs_visitor(
                boost::record_distances(dist.data(), boost::on_tree_edge()))));
        // Endpoints other than dst are not in the filtered graph: one hop more
        // than their nearest transit neighbour.
        for (uint32_t v = 0; v < n; ++v)
        {
            if (forwards[v] || v == dst)
            {
                continue;
            }
            for (uint32_t l : m_ports[v])
            {
                uint32_t w = Peer(l, v);
                if ((forwards[w] || w == dst) && dist[w] != UNREACHABLE)
                {
                    dist[v] = std::min(dist[v], dist[w] + 1);
                }
            }
        }
        for (uint32_t v = 0; v < n; ++v)
        {
            m_distance[size_t{v} * e + r] = dist[v];
            if (v == dst || dist[v] == UNREACHABLE)
            {
                continue;
            }
            auto& out = hops[size_t{v} * e + r];
            const auto& ports = m_ports[v];
            for (uint32_t p = 0; p < ports.size(); ++p)
            {
                uint32_t w = Peer(ports[p], v);
                if ((forwards[w] || w == dst) && dist[w] != UNREACHABLE && dist[w] + 1 == dist[v])
                {
                    out.push_back(TopologyNextHop{ports[p], p, w});
                }
            }
        }
    }
    for (uint32_t a = 0; a < e; ++a)
    {
        for (uint32_t b = 0; b < e; ++b)
        {
            if (a != b && m_distance[size_t{m_endpoints[a]} * e + b] == UNREACHABLE)
            {
                Fail("links",
                     "a route between every pair of endpoints, none from '" +
                         m_d.nodes[m_endpoints[a]].name + "' to '" +
                         m_d.nodes[m_endpoints[b]].name + "' (endpoints do not forward)");
            }
        }
    }
    m_offset.assign(hops.size() + 1, 0);
    for (size_t k = 0; k < hops.size(); ++k)
    {
        m_offset[k + 1] = m_offset[k] + static_cast<uint32_t>(hops[k].size());
    }
    m_hops.reserve(m_offset.back());
    for (const auto& h : hops)
    {
        m_hops.insert(m_hops.end(), h.begin(), h.end());
    }
    NS_LOG_INFO("routed " << n << " nodes, " << LinkCount() << " links, " << e << " endpoints, "
                          << m_hops.size() << " next-hop entries");
}

uint32_t
TopologyGraph::EndpointNode(uint32_t rank) const
{
    if (rank >= m_endpoints.size())
    {
        Fail("rank", "an endpoint rank below " + std::to_string(m_endpoints.size()) + ", got " +
                         std::to_string(rank));
    }
    return m_endpoints[rank];
}

int
TopologyGraph::RankOf(uint32_t node) const
{
    return m_rank.at(node);
}

uint32_t
TopologyGraph::NodeId(const std::string& name, const std::string& field) const
{
    int i = m_d.FindNode(name);
    if (i < 0)
    {
        Fail(field, "a node name, got '" + name + "'");
    }
    return static_cast<uint32_t>(i);
}

uint32_t
TopologyGraph::CountKind(TopologyNodeKind kind) const
{
    return static_cast<uint32_t>(std::count_if(m_d.nodes.begin(),
                                               m_d.nodes.end(),
                                               [kind](const TopologyNode& x) { return x.kind == kind; }));
}

uint32_t
TopologyGraph::Peer(uint32_t link, uint32_t node) const
{
    return m_linkA.at(link) == node ? m_linkB[link] : m_linkA[link];
}

DataRate
TopologyGraph::LinkRate(uint32_t link) const
{
    return DataRate(LinkTier(link).laneRate.GetBitRate() * m_d.links.at(link).lanes);
}

const TopologyTier&
TopologyGraph::LinkTier(uint32_t link) const
{
    return m_d.tiers[m_linkTier.at(link)];
}

const TopologyTier*
TopologyGraph::NodeTier(uint32_t node) const
{
    int t = m_nodeTier.at(node);
    return t < 0 ? nullptr : &m_d.tiers[t];
}

uint32_t
TopologyGraph::PortIndex(uint32_t node, uint32_t link) const
{
    const auto& ports = m_ports.at(node);
    auto it = std::lower_bound(ports.begin(), ports.end(), link);
    if (it == ports.end() || *it != link)
    {
        Fail("link", "a link attached to node '" + m_d.nodes[node].name + "'");
    }
    return static_cast<uint32_t>(it - ports.begin());
}

uint64_t
TopologyGraph::LanesAt(uint32_t node) const
{
    uint64_t lanes = 0;
    for (uint32_t l : m_ports.at(node))
    {
        lanes += m_d.links[l].lanes;
    }
    return lanes;
}

TopologyNextHops
TopologyGraph::NextHops(uint32_t node, uint32_t dstRank) const
{
    size_t k = size_t{node} * EndpointCount() + dstRank;
    const TopologyNextHop* base = m_hops.data();
    return TopologyNextHops(base + m_offset.at(k), base + m_offset.at(k + 1));
}

uint32_t
TopologyGraph::Distance(uint32_t node, uint32_t dstRank) const
{
    return m_distance.at(size_t{node} * EndpointCount() + dstRank);
}

TopologyHop
TopologyGraph::MakeHop(uint32_t link, uint32_t from, uint32_t dstNode) const
{
    const TopologyTier& t = LinkTier(link);
    TopologyHop h;
    h.link = link;
    h.from = from;
    h.to = Peer(link, from);
    h.tier = t.name;
    h.rate = LinkRate(link);
    h.delay = t.delay;
    h.headerBytes = t.headerBytes;
    h.mtuBytes = t.mtuBytes;
    h.flowControl = t.flowControl;
    const TopologyTier* nt = NodeTier(h.to);
    h.forwards = h.to != dstNode && Forwards(h.to);
    if (h.forwards)
    {
        h.forwardingLatency = nt->forwardingLatency;
        h.cutThrough = nt->cutThrough;
    }
    return h;
}

TopologyPath
TopologyGraph::Path(uint32_t srcRank, uint32_t dstRank, uint64_t flow) const
{
    TopologyPath path;
    path.srcRank = srcRank;
    path.dstRank = dstRank;
    path.srcNode = EndpointNode(srcRank);
    path.dstNode = EndpointNode(dstRank);
    uint32_t at = path.srcNode;
    while (at != path.dstNode)
    {
        TopologyNextHops nh = NextHops(at, dstRank);
        const TopologyNextHop& pick = nh[flow % nh.size()];
        flow /= nh.size();
        path.hops.push_back(MakeHop(pick.link, at, path.dstNode));
        at = pick.neighbor;
    }
    return path;
}

uint64_t
TopologyGraph::EqualCostPathCount(uint32_t srcRank, uint32_t dstRank) const
{
    // Paths from each node to dst, summed over next hops in order of distance.
    const uint32_t dstNode = EndpointNode(dstRank);
    const uint32_t srcNode = EndpointNode(srcRank);
    std::vector<uint32_t> order;
    for (uint32_t v = 0; v < NodeCount(); ++v)
    {
        if (Distance(v, dstRank) != UNREACHABLE)
        {
            order.push_back(v);
        }
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        return Distance(x, dstRank) < Distance(y, dstRank);
    });
    std::vector<uint64_t> count(NodeCount(), 0);
    count[dstNode] = 1;
    const uint64_t cap = std::numeric_limits<uint64_t>::max();
    for (uint32_t v : order)
    {
        if (v == dstNode)
        {
            continue;
        }
        uint64_t c = 0;
        for (const auto& h : NextHops(v, dstRank))
        {
            c = (cap - c < count[h.neighbor]) ? cap : c + count[h.neighbor];
        }
        count[v] = c;
    }
    return srcNode == dstNode ? 1 : count[srcNode];
}

} // namespace ns3
