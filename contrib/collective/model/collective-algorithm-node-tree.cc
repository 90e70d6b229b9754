// SPDX-License-Identifier: GPL-2.0-only
//
// NCCL's tree allreduce across servers (src/graph/trees.cc, connect.cc):
// two complementary binary trees over the *servers* (the double binary tree
// of DoubleBinaryTreeParents, on K servers instead of N ranks), each carrying
// half of the buffer, and inside every server a chain of its G GPUs hanging
// from the GPU that talks to the network (NCCL's tree pattern "NET -> GPU a
// -> GPU b -> ... -> GPU x": the chain head receives from the child servers
// and sends to the parent server, each other GPU only to its chain
// neighbours). A half is reduced up its tree (chain tail to head inside each
// server, child server heads to parent head) and broadcast back down.
//
// Rails: tree t of channel c enters every server at the GPU on rail
// (2c + t) mod R, so the two trees' server-to-server messages run on two
// different rails, each from rail-GPU to rail-GPU (NCCL gives each tree its
// own channels and NICs). The chain then takes the other GPUs by rail,
// cyclically.
//
// Closed form (one channel, one slice, M bytes, G GPUs a server, D the
// deeper of the two server trees' depths): a half climbs the chain of the
// deepest server (G - 1 steps inside, level 0), then D server hops (level 1),
// and comes back the same way:
//     2 (G - 1) (alpha_0 + M / (2 beta_0)) + 2 D (alpha_1 + M / (2 beta_1)).
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"
#include "collective-ring-layout.h"

#include <algorithm>

namespace ns3
{

namespace
{

using namespace collective;

/// Parents over the ranks of the two trees of channel spec.channel.
std::vector<std::vector<int>>
NodeTreeParents(const CollectiveSpec& spec)
{
    const RankPlacement pl = PlacementOf(spec);
    const std::vector<std::vector<int>> servers = DoubleBinaryTreeParents(pl.servers);
    std::vector<std::vector<int>> parents(2, std::vector<int>(spec.ranks, -1));
    for (uint32_t t = 0; t < 2; ++t)
    {
        const uint32_t head = (2 * spec.channel + t) % pl.rails;
        for (uint32_t s = 0; s < pl.servers; ++s)
        {
            // The chain: head, then the other rails in order.
            for (uint32_t k = 1; k < pl.rails; ++k)
            {
                parents[t][pl.RankOn(s, (head + k) % pl.rails)] =
                    static_cast<int>(pl.RankOn(s, (head + k - 1) % pl.rails));
            }
            const int up = servers[t][s];
            if (up >= 0)
            {
                parents[t][pl.RankOn(s, head)] = static_cast<int>(pl.RankOn(static_cast<uint32_t>(up), head));
            }
        }
    }
    return parents;
}

std::vector<CriticalStep>
NodeTreePath(const CollectiveSpec& spec, double m)
{
    const RankPlacement pl = PlacementOf(spec);
    const auto servers = DoubleBinaryTreeParents(pl.servers);
    const uint32_t d = std::max(TreeDepth(servers[0]), TreeDepth(servers[1]));
    const double half = m / (2.0 * spec.slices);
    const std::vector<CriticalStep> chain = EqualSteps(pl.rails - 1, 0, half);
    const std::vector<CriticalStep> hops = EqualSteps(d, 1, half);
    std::vector<CriticalStep> path = chain;
    path.insert(path.end(), hops.begin(), hops.end());
    path.insert(path.end(), hops.begin(), hops.end());
    path.insert(path.end(), chain.begin(), chain.end());
    return path;
}

CollectiveAlgorithm
NodeTree()
{
    CollectiveAlgorithm a;
    a.name = "node-tree";
    a.aliases = {"nccl-tree", "dbt-nodes"};
    a.collectives = {CollectiveKind::ALL_REDUCE};
    a.order = 4;
    a.usesNodes = true;
    a.minimumBytes = [](const CollectiveSpec& spec) { return 2 * PipelinePieces(spec); };
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) {
        return TwoTreeAllReduce("node-tree allreduce", NodeTreeParents(spec), bytes, spec.slices);
    };
    a.criticalPath = NodeTreePath;
    a.validate = CheckWholeServers;
    return a;
}

const CollectiveAlgorithmRegistration kNodeTreeRegistration(NodeTree());

} // namespace

} // namespace ns3
