// SPDX-License-Identifier: GPL-2.0-only
#include "collective-ring-layout.h"

#include "collective-algorithm-blocks.h"
#include "input-error.h"

#include <algorithm>

namespace ns3
{

bool
RingLayout::Relayed() const
{
    return std::any_of(proxy.begin(), proxy.end(), [](uint32_t p) { return p != ScheduleOp::kNoProxy; });
}

RingLayout
RingOf(const CollectiveSpec& spec)
{
    RingLayout ring;
    const RankPlacement& pl = spec.placement;
    if (pl.Empty() || pl.rails == 0)
    {
        ring.order = collective::AllRanks(spec.ranks);
        ring.proxy.assign(spec.ranks, ScheduleOp::kNoProxy);
        return ring;
    }
    const uint32_t rails = pl.rails;
    ring.rail = spec.channel % rails;
    for (uint32_t s = 0; s < pl.servers; ++s)
    {
        for (uint32_t k = 0; k < rails; ++k)
        {
            ring.order.push_back(pl.RankOn(s, (ring.rail + k) % rails));
            ring.proxy.push_back(ScheduleOp::kNoProxy);
        }
        // The server's last GPU leaves through the NIC of the GPU that began
        // its path (rail `ring.rail`): PXN, unless it is that GPU.
        if (rails > 1 && pl.servers > 1)
        {
            ring.proxy.back() = pl.RankOn(s, ring.rail);
        }
    }
    return ring;
}

void
CheckRanksFillNodes(const CollectiveSpec& spec)
{
    if (spec.gpusPerNode > 0 && spec.ranks % spec.gpusPerNode != 0)
    {
        throw InputError("--ranks", "expected a multiple of the " + std::to_string(spec.gpusPerNode) +
                                        " GPUs per node, got " + std::to_string(spec.ranks));
    }
}

void
CheckWholeServers(const CollectiveSpec& spec)
{
    if (spec.placement.Empty())
    {
        CheckRanksFillNodes(spec);
    }
}

RankPlacement
PlacementOf(const CollectiveSpec& spec)
{
    if (!spec.placement.Empty())
    {
        return spec.placement;
    }
    const uint32_t g = spec.gpusPerNode > 0 ? spec.gpusPerNode : spec.ranks;
    RankPlacement p;
    p.servers = spec.ranks / g;
    p.rails = g;
    for (uint32_t r = 0; r < spec.ranks; ++r)
    {
        p.server.push_back(r / g);
        p.rail.push_back(r % g);
    }
    return p;
}

} // namespace ns3
