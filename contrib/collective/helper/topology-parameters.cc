// SPDX-License-Identifier: GPL-2.0-only
#include "topology-parameters.h"

#include "analytic-model.h"

#include <algorithm>
#include <set>

namespace ns3
{

Time
HopLatency(const TopologyHop& hop)
{
    Time t = hop.delay + hop.forwardingLatency;
    if (hop.forwards && !hop.cutThrough)
    {
        // A store-and-forward node holds a whole packet before sending it on.
        const double wireBits = 8.0 * (static_cast<double>(hop.mtuBytes) + hop.headerBytes);
        t += SecondsToTime(wireBits / static_cast<double>(hop.rate.GetBitRate()));
    }
    return t;
}

DataRate
HopPayloadRate(const TopologyHop& hop, uint32_t transportHeader)
{
    const double mtu = hop.mtuBytes > 0 ? hop.mtuBytes : 1.0;
    const double eta = mtu / (mtu + hop.headerBytes + transportHeader);
    return DataRate(static_cast<uint64_t>(static_cast<double>(hop.rate.GetBitRate()) * eta + 0.5));
}

uint32_t
TransportHeaderOf(const TopologyGraph& graph, const TopologyPath& path, uint32_t rdmaHeader)
{
    for (const TopologyHop& hop : path.hops)
    {
        if (graph.LinkTier(hop.link).protocol != "nvlink")
        {
            return rdmaHeader;
        }
    }
    return 0;
}

PointToPointParameters
DerivePathParameters(const TopologyPath& path, uint32_t transportHeader)
{
    PointToPointParameters p;
    p.alpha = Time(0);
    bool first = true;
    for (const TopologyHop& hop : path.hops)
    {
        p.alpha += HopLatency(hop);
        DataRate r = HopPayloadRate(hop, transportHeader);
        if (first || r < p.beta)
        {
            p.beta = r;
            first = false;
        }
    }
    return p;
}

TopologyPath
PairPath(const TopologyGraph& graph, uint32_t src, uint32_t dst)
{
    // splitmix64 of the pair index: a plain index would pick the same uplink for
    // every flow to one destination on regular fabrics (f mod n depends on dst
    // only), a collision pattern no ECMP hash has.
    uint64_t z = static_cast<uint64_t>(src) * graph.EndpointCount() + dst + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return graph.Path(src, dst, z);
}

bool
IsIntraNode(const TopologyPath& path)
{
    if (path.hops.empty())
    {
        return true;
    }
    const std::string& tier = path.hops.front().tier;
    for (const TopologyHop& hop : path.hops)
    {
        if (hop.tier != tier)
        {
            return false;
        }
    }
    return true;
}

uint32_t
RanksPerNode(const TopologyGraph& graph, uint32_t ranks)
{
    uint32_t n = 1;
    for (uint32_t r = 1; r < ranks; ++r)
    {
        if (IsIntraNode(graph.Path(0, r)))
        {
            ++n;
        }
    }
    return n;
}

std::vector<std::pair<uint32_t, uint32_t>>
SchedulePairs(const CollectiveSchedule& schedule)
{
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const ScheduleOp& op : schedule.GetOps())
    {
        for (auto leg : op.Legs())
        {
            if (leg.first != leg.second) // an in-switch op of a rank to itself has no path
            {
                pairs.insert(leg);
            }
        }
    }
    return {pairs.begin(), pairs.end()};
}

DerivedParameters
DeriveScheduleParameters(const TopologyGraph& graph, const CollectiveSchedule& schedule, uint32_t rdmaHeader)
{
    DerivedParameters d;
    for (auto [src, dst] : SchedulePairs(schedule))
    {
        TopologyPath path = PairPath(graph, src, dst);
        PointToPointParameters p = DerivePathParameters(path, TransportHeaderOf(graph, path, rdmaHeader));
        const int level = IsIntraNode(path) ? 0 : 1;
        if (!d.hasLevel[level])
        {
            d.level[level] = p;
            d.hasLevel[level] = true;
        }
        else
        {
            d.level[level].alpha = std::max(d.level[level].alpha, p.alpha);
            d.level[level].beta = std::min(d.level[level].beta, p.beta);
        }
    }
    for (int l = 0; l < 2; ++l)
    {
        if (!d.hasLevel[l] && d.hasLevel[1 - l])
        {
            d.level[l] = d.level[1 - l];
        }
    }
    return d;
}

void
SetScheduleRoutes(const TopologyGraph& graph,
                  const CollectiveSchedule& schedule,
                  Ptr<AnalyticChannel> channel,
                  uint32_t rdmaHeader)
{
    SetPairRoutes(graph, SchedulePairs(schedule), channel, rdmaHeader);
}

void
SetPairRoutes(const TopologyGraph& graph,
              const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
              Ptr<AnalyticChannel> channel,
              uint32_t rdmaHeader)
{
    for (auto [src, dst] : pairs)
    {
        TopologyPath path = PairPath(graph, src, dst);
        const uint32_t transport = TransportHeaderOf(graph, path, rdmaHeader);
        std::vector<AnalyticLink> links;
        for (const TopologyHop& hop : path.hops)
        {
            // One shared resource per link direction: a full-duplex link's two
            // directions do not compete.
            const uint32_t dir = graph.LinkA(hop.link) == hop.from ? 0 : 1;
            links.push_back(AnalyticLink{2 * hop.link + dir, HopPayloadRate(hop, transport), HopLatency(hop)});
        }
        channel->SetRoute(src, dst, links);
    }
}

} // namespace ns3
