// SPDX-License-Identifier: GPL-2.0-only
//
// NCCL's double binary tree allreduce (src/graph/trees.cc): the buffer is
// split in two halves, each reduced up one of two complementary binary trees
// and broadcast back down it, so a step moves half a channel's buffer and the
// critical path is 2D steps, D the trees' depth.
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"

#include <algorithm>

namespace ns3
{

namespace
{

using namespace collective;

CollectiveSchedule
TreeAllReduce(uint32_t n, uint64_t bytes, uint32_t slices)
{
    return TwoTreeAllReduce("double-binary-tree allreduce", DoubleBinaryTreeParents(n), bytes, slices);
}

std::vector<CriticalStep>
TreePath(const CollectiveSpec& spec, double m)
{
    const double s = spec.slices;
    const auto parents = DoubleBinaryTreeParents(spec.ranks);
    const uint32_t d = std::max(TreeDepth(parents[0]), TreeDepth(parents[1]));
    return EqualSteps(2 * d, 0, m / (2 * s));
}

CollectiveAlgorithm
Tree()
{
    CollectiveAlgorithm a;
    a.name = "tree";
    a.aliases = {"double-binary-tree", "dbtree", "doublebinarytree"};
    a.collectives = {CollectiveKind::ALL_REDUCE};
    a.order = 1;
    a.minimumBytes = [](const CollectiveSpec& spec) { return 2 * PipelinePieces(spec); };
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) { return TreeAllReduce(spec.ranks, bytes, spec.slices); };
    a.criticalPath = TreePath;
    return a;
}

const CollectiveAlgorithmRegistration kTreeRegistration(Tree());

} // namespace

std::vector<std::vector<int>>
collective::DoubleBinaryTreeParents(uint32_t ranks)
{
    // Tree 0: a rank v > 0 with lowest set bit b hangs below the rank that
    // clears b and sets 2b (its in-order parent one level up), or, when that
    // rank does not exist, below v - b. Each step up strictly raises the lowest
    // set bit, so every chain ends at rank 0.
    std::vector<int> t0(ranks, -1);
    for (uint32_t v = 1; v < ranks; ++v)
    {
        const uint32_t b = v & (~v + 1);
        uint32_t up = (v & ~b) | (b << 1);
        if (up >= ranks)
        {
            up = v & ~b;
        }
        t0[v] = static_cast<int>(up);
    }
    // Tree 1: relabel rank v of tree 0 as m(v); mirroring swaps odd (leaf) and
    // even (interior) ranks when N is even, a shift by one does when N is odd.
    auto m = [ranks](uint32_t v) { return ranks % 2 == 0 ? ranks - 1 - v : (v + 1) % ranks; };
    std::vector<int> t1(ranks, -1);
    for (uint32_t v = 0; v < ranks; ++v)
    {
        if (t0[v] >= 0)
        {
            t1[m(v)] = static_cast<int>(m(static_cast<uint32_t>(t0[v])));
        }
    }
    return {t0, t1};
}

uint32_t
collective::TreeDepth(const std::vector<int>& parents)
{
    uint32_t best = 0;
    for (uint32_t v = 0; v < parents.size(); ++v)
    {
        uint32_t d = 0;
        for (int u = parents[v]; u >= 0; u = parents[u])
        {
            ++d;
        }
        best = std::max(best, d);
    }
    return best;
}

} // namespace ns3
