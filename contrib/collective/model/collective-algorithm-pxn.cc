// SPDX-License-Identifier: GPL-2.0-only
//
// AllToAll with PXN, as NCCL sends between servers of a rail-optimized
// cluster (NCCL 2.12 "PXN": PCI x NVLink; src/graph/paths.cc lets a GPU reach
// a NIC through an NVLink peer, src/proxy.cc posts the send from that peer):
// every block is posted at once, as in all-at-once, but a block for a GPU j
// of another server on another rail first crosses NVLink to the sender's
// server-mate on j's rail, which sends it through its own NIC, so that every
// message between servers travels rail-local (NIC r to NIC r through rail
// switch r, never up to a spine) and a server's NIC r carries only traffic
// for rail r. Blocks inside a server, and to the same rail, go directly.
//
// NCCL also aggregates at the proxy the blocks several local GPUs send to one
// remote GPU (fewer queue pairs, larger messages); here each block keeps its
// own message through the proxy.
//
// Closed form (one channel, one slice, N ranks, M bytes a rank, no
// contention): every block is in flight at once, a relayed one on its two
// legs at once (collective-executor.h), so the time is one block:
//     max(alpha_0 + M/(N beta_0), alpha_1 + M/(N beta_1)),
// level 1 between servers, level 0 inside (one server: alpha_0 + M/(N beta_0)).
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"
#include "collective-ring-layout.h"

namespace ns3
{

namespace
{

using namespace collective;

CollectiveSchedule
PxnAllToAll(const CollectiveSpec& spec, uint64_t bytes)
{
    const uint32_t n = spec.ranks;
    const RankPlacement pl = PlacementOf(spec);
    CollectiveSchedule sched("pxn alltoall", n);
    auto c = AllToAllChunks(sched, n, bytes, spec.slices);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t k = 1; k < n; ++k)
        {
            const uint32_t dst = (r + k) % n;
            uint32_t proxy = ScheduleOp::kNoProxy;
            if (pl.server[r] != pl.server[dst] && pl.rail[r] != pl.rail[dst])
            {
                proxy = pl.RankOn(pl.server[r], pl.rail[dst]);
            }
            uint32_t prev = kNoOp;
            for (uint32_t s = 0; s < spec.slices; ++s)
            {
                std::vector<uint32_t> deps;
                if (prev != kNoOp)
                {
                    deps.push_back(prev);
                }
                prev = sched.AddOp(r, dst, {c[r][dst][s]}, false, deps, 0, proxy);
            }
        }
    }
    return sched;
}

std::vector<CriticalStep>
PxnPath(const CollectiveSpec& spec, double m)
{
    const RankPlacement pl = PlacementOf(spec);
    CriticalStep block;
    block.bytes = m / (spec.ranks * static_cast<double>(spec.slices));
    if (pl.servers > 1)
    {
        block.level = 1;
        block.relayed = pl.rails > 1;
    }
    return {block};
}

CollectiveAlgorithm
Pxn()
{
    CollectiveAlgorithm a;
    a.name = "pxn";
    a.aliases = {"pxn-all-at-once", "rail-local"};
    a.collectives = {CollectiveKind::ALL_TO_ALL};
    a.order = 2;
    a.usesNodes = true;
    a.minimumBytes = [](const CollectiveSpec& spec) { return spec.ranks * PipelinePieces(spec); };
    a.build = PxnAllToAll;
    a.criticalPath = PxnPath;
    a.validate = CheckWholeServers;
    return a;
}

const CollectiveAlgorithmRegistration kPxnRegistration(Pxn());

} // namespace

} // namespace ns3
