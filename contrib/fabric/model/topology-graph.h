// SPDX-License-Identifier: GPL-2.0-only
//
// A validated topology with its routes: the graph of a TopologyDescription
// (Boost Graph Library), every equal-cost next hop per (node, destination
// endpoint) from breadth-first shortest paths, and the path of a (src, dst)
// pair as a list of hops with their rate, delay, header bytes, MTU and the
// forwarding latency of the node each hop enters. Routing is by hop count, as
// ECMP fabrics route; endpoints (GPUs, hosts) never forward.
//
// Deterministic: the same description gives the same node/link ids, ports and
// next-hop tables on every run and every MPI rank (ns-3's distributed simulator
// has each rank build the same graph and keep its own nodes): ids are
// description positions, a node's ports are its links in link-id order, next
// hops are sorted by link id.
#ifndef HOCKNEY_TOPOLOGY_GRAPH_H
#define HOCKNEY_TOPOLOGY_GRAPH_H

#include "topology-description.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/// One equal-cost next hop of a node towards a destination.
struct TopologyNextHop
{
    uint32_t link;     ///< link id (position in TopologyDescription::links)
    uint32_t port;     ///< port index at the node (position in TopologyGraph::PortsOf)
    uint32_t neighbor; ///< node id at the other end
};

/// A read-only view of the next hops of one (node, destination).
class TopologyNextHops
{
  public:
    TopologyNextHops(const TopologyNextHop* b, const TopologyNextHop* e)
        : m_begin(b),
          m_end(e)
    {
    }

    const TopologyNextHop* begin() const
    {
        return m_begin;
    }

    const TopologyNextHop* end() const
    {
        return m_end;
    }

    size_t size() const
    {
        return static_cast<size_t>(m_end - m_begin);
    }

    bool empty() const
    {
        return m_begin == m_end;
    }

    const TopologyNextHop& operator[](size_t i) const
    {
        return m_begin[i];
    }

  private:
    const TopologyNextHop* m_begin;
    const TopologyNextHop* m_end;
};

/// One hop of a path: the link from `from` to `to`, and how `to` treats the
/// packet if it forwards it.
struct TopologyHop
{
    uint32_t link = 0;
    uint32_t from = 0;
    uint32_t to = 0;
    std::string tier;
    DataRate rate;           ///< lanes x lane rate, per direction
    Time delay;              ///< propagation
    uint32_t headerBytes = 0;
    uint32_t mtuBytes = 0;   ///< payload bytes per packet on this link
    TopologyFlowControl flowControl = TopologyFlowControl::NONE;
    bool forwards = false;   ///< `to` is a switch or NIC (not the destination)
    Time forwardingLatency;  ///< of `to` when it forwards, else zero
    bool cutThrough = false; ///< of `to` when it forwards, else false
};

/// The route of one flow between two endpoints.
struct TopologyPath
{
    uint32_t srcRank = 0;
    uint32_t dstRank = 0;
    uint32_t srcNode = 0;
    uint32_t dstNode = 0;
    std::vector<TopologyHop> hops;

    size_t HopCount() const
    {
        return hops.size();
    }

    /// Propagation delays plus forwarding latencies: the zero-byte latency.
    Time TotalLatency() const;
    /// Slowest link rate on the path.
    DataRate BottleneckRate() const;
    /// Smallest payload per packet along the path.
    uint32_t MinMtuBytes() const;
    /// Arrival of the last bit of one packet of \p payloadBytes (plus each
    /// link's header bytes) on an idle path: serialization, propagation and
    /// forwarding latency per hop; a cut-through node starts sending its
    /// forwarding latency after the header has arrived, and (at a faster
    /// egress) finishes no earlier than the last bit arrives.
    Time UnloadedPacketTime(uint32_t payloadBytes) const;
};

class TopologyGraph
{
  public:
    static constexpr uint32_t UNREACHABLE = std::numeric_limits<uint32_t>::max();

    /// Validates the description (throws std::invalid_argument naming the
    /// field, including "links" for a disconnected graph or an endpoint pair
    /// without a route) and computes every route.
    explicit TopologyGraph(TopologyDescription description);

    const TopologyDescription& Description() const
    {
        return m_d;
    }

    uint32_t NodeCount() const
    {
        return static_cast<uint32_t>(m_d.nodes.size());
    }

    uint32_t LinkCount() const
    {
        return static_cast<uint32_t>(m_d.links.size());
    }

    uint32_t EndpointCount() const
    {
        return static_cast<uint32_t>(m_endpoints.size());
    }

    /// Node id of an endpoint rank (ranks count GPU/host nodes in node order).
    uint32_t EndpointNode(uint32_t rank) const;
    /// Rank of an endpoint node, or -1 for a forwarding node.
    int RankOf(uint32_t node) const;
    /// Node id by name; throws std::invalid_argument naming \p field if unknown.
    uint32_t NodeId(const std::string& name, const std::string& field = "node") const;
    /// Number of nodes of a kind.
    uint32_t CountKind(TopologyNodeKind kind) const;

    const TopologyNode& Node(uint32_t node) const
    {
        return m_d.nodes.at(node);
    }

    const TopologyLink& Link(uint32_t link) const
    {
        return m_d.links.at(link);
    }

    /// The two node ids of a link (a, b).
    uint32_t LinkA(uint32_t link) const
    {
        return m_linkA.at(link);
    }

    uint32_t LinkB(uint32_t link) const
    {
        return m_linkB.at(link);
    }

    /// The other end of \p link seen from \p node.
    uint32_t Peer(uint32_t link, uint32_t node) const;
    DataRate LinkRate(uint32_t link) const;
    const TopologyTier& LinkTier(uint32_t link) const;
    /// Tier of a forwarding node (or of an endpoint that names one); nullptr otherwise.
    const TopologyTier* NodeTier(uint32_t node) const;
    /// The node's ports: its link ids in increasing order. Port i is PortsOf(node)[i].
    const std::vector<uint32_t>& PortsOf(uint32_t node) const
    {
        return m_ports.at(node);
    }

    /// Port index of \p link at \p node.
    uint32_t PortIndex(uint32_t node, uint32_t link) const;
    /// Lanes attached to a node (what its `ports` bound).
    uint64_t LanesAt(uint32_t node) const;

    /// Every equal-cost next hop from \p node towards endpoint \p dstRank,
    /// sorted by link id; empty at the destination itself.
    TopologyNextHops NextHops(uint32_t node, uint32_t dstRank) const;
    /// Hops from \p node to endpoint \p dstRank (UNREACHABLE if none).
    uint32_t Distance(uint32_t node, uint32_t dstRank) const;

    /// The path of flow \p flow from \p srcRank to \p dstRank: at each node
    /// with n equal-cost next hops it takes hop (f mod n) and continues with
    /// f / n, so flows 0, 1, 2, ... enumerate distinct paths of a tree-like
    /// fabric before repeating. Throws std::invalid_argument on a bad rank.
    TopologyPath Path(uint32_t srcRank, uint32_t dstRank, uint64_t flow = 0) const;
    /// The hop over \p link leaving \p from, on a path ending at node \p dstNode.
    TopologyHop MakeHop(uint32_t link, uint32_t from, uint32_t dstNode) const;
    /// Number of distinct equal-cost paths (saturates at UINT64_MAX).
    uint64_t EqualCostPathCount(uint32_t srcRank, uint32_t dstRank) const;

  private:
    void Route();
    bool Forwards(uint32_t node) const;

    TopologyDescription m_d;
    std::vector<uint32_t> m_linkA;
    std::vector<uint32_t> m_linkB;
    std::vector<int> m_linkTier;
    std::vector<int> m_nodeTier;
    std::vector<std::vector<uint32_t>> m_ports;
    std::vector<uint32_t> m_endpoints; ///< rank -> node
    std::vector<int> m_rank;           ///< node -> rank or -1
    // Next hops, flat: entries [m_offset[k], m_offset[k+1]) for k = node * E + rank.
    std::vector<uint32_t> m_offset;
    std::vector<TopologyNextHop> m_hops;
    std::vector<uint32_t> m_distance; ///< node * E + rank
};

} // namespace ns3

#endif
