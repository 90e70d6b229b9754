// SPDX-License-Identifier: GPL-2.0-only
#include "collective-algorithm-blocks.h"

#include "collective-algorithms.h"

#include <algorithm>
#include <string>

namespace ns3
{
namespace collective
{

RingPass
AddRingPass(CollectiveSchedule& sched,
            const std::vector<uint32_t>& ranks,
            const std::vector<std::vector<std::vector<uint32_t>>>& groups,
            bool reduce,
            uint32_t firstStep,
            const std::vector<std::vector<std::vector<uint32_t>>>& inDeps,
            const std::vector<uint32_t>& proxies)
{
    const uint32_t n = static_cast<uint32_t>(ranks.size());
    const uint32_t slices = static_cast<uint32_t>(groups.size());
    RingPass pass;
    pass.op.assign(n, std::vector<std::vector<uint32_t>>(n > 0 ? n - 1 : 0, std::vector<uint32_t>(slices, kNoOp)));
    pass.received.assign(n, std::vector<std::vector<uint32_t>>(slices));
    for (uint32_t k = 0; k + 1 < n; ++k)
    {
        for (uint32_t s = 0; s < slices; ++s)
        {
            for (uint32_t p = 0; p < n; ++p)
            {
                const uint32_t prev = (p + n - 1) % n;
                const uint32_t g = reduce ? (p + 2 * n - 1 - k) % n : (p + n - k) % n;
                std::vector<uint32_t> deps;
                if (!inDeps.empty())
                {
                    deps = inDeps[p][s];
                }
                if (k > 0)
                {
                    deps.push_back(pass.op[prev][k - 1][s]);
                }
                if (s > 0)
                {
                    deps.push_back(pass.op[p][k][s - 1]);
                }
                pass.op[p][k][s] = sched.AddOp(ranks[p],
                                               ranks[(p + 1) % n],
                                               groups[s][g],
                                               reduce,
                                               deps,
                                               firstStep + k,
                                               proxies.empty() ? ScheduleOp::kNoProxy : proxies[p]);
            }
            for (uint32_t p = 0; p < n; ++p)
            {
                pass.received[(p + 1) % n][s].push_back(pass.op[p][k][s]);
            }
        }
    }
    return pass;
}

CollectiveSchedule
TwoTreeAllReduce(const std::string& name,
                 const std::vector<std::vector<int>>& parents,
                 uint64_t bytes,
                 uint32_t slices)
{
    const uint32_t n = static_cast<uint32_t>(parents[0].size());
    CollectiveSchedule sched(name, n);
    std::vector<uint64_t> sizes = SplitBytes(bytes, 2 * slices);
    std::vector<std::vector<uint32_t>> chunk(2, std::vector<uint32_t>(slices));
    for (uint32_t t = 0; t < 2; ++t)
    {
        for (uint32_t s = 0; s < slices; ++s)
        {
            chunk[t][s] = sched.AddChunk(sizes[t * slices + s]);
        }
    }
    EveryRankContributesAndNeedsAll(sched, n);
    for (uint32_t t = 0; t < 2; ++t)
    {
        const std::vector<int>& parent = parents[t];
        std::vector<std::vector<uint32_t>> children(n);
        std::vector<uint32_t> depth(n, 0);
        int root = -1;
        for (uint32_t v = 0; v < n; ++v)
        {
            if (parent[v] < 0)
            {
                root = static_cast<int>(v);
            }
            else
            {
                children[parent[v]].push_back(v);
            }
        }
        // Depths by walking up (the tree is shallow: about log2 N).
        for (uint32_t v = 0; v < n; ++v)
        {
            for (int u = parent[v]; u >= 0; u = parent[u])
            {
                ++depth[v];
            }
        }
        const uint32_t d = TreeDepth(parent);
        std::vector<uint32_t> byDepth = AllRanks(n); // deepest first: children before parents
        std::stable_sort(byDepth.begin(), byDepth.end(), [&depth](uint32_t a, uint32_t b) {
            return depth[a] > depth[b];
        });
        std::vector<std::vector<uint32_t>> up(n, std::vector<uint32_t>(slices, kNoOp));
        std::vector<std::vector<uint32_t>> down(n, std::vector<uint32_t>(slices, kNoOp));
        for (uint32_t s = 0; s < slices; ++s)
        {
            for (uint32_t v : byDepth)
            {
                if (static_cast<int>(v) == root)
                {
                    continue;
                }
                std::vector<uint32_t> deps;
                for (uint32_t c : children[v])
                {
                    deps.push_back(up[c][s]);
                }
                if (s > 0)
                {
                    deps.push_back(up[v][s - 1]);
                }
                up[v][s] = sched.AddOp(v, parent[v], {chunk[t][s]}, true, deps, d - depth[v]);
            }
        }
        std::vector<uint32_t> topDown(byDepth.rbegin(), byDepth.rend());
        for (uint32_t s = 0; s < slices; ++s)
        {
            for (uint32_t v : topDown)
            {
                if (static_cast<int>(v) == root)
                {
                    continue;
                }
                const uint32_t u = parent[v];
                std::vector<uint32_t> deps;
                if (static_cast<int>(u) == root)
                {
                    for (uint32_t c : children[u])
                    {
                        deps.push_back(up[c][s]);
                    }
                }
                else
                {
                    deps.push_back(down[u][s]);
                }
                if (s > 0)
                {
                    deps.push_back(down[v][s - 1]);
                }
                down[v][s] = sched.AddOp(u, v, {chunk[t][s]}, false, deps, d + depth[v] - 1);
            }
        }
    }
    return sched;
}

std::vector<std::vector<std::vector<uint32_t>>>
AllToAllChunks(CollectiveSchedule& sched, uint32_t n, uint64_t bytes, uint32_t slices)
{
    std::vector<uint64_t> sizes = SplitBytes(bytes, n * slices);
    std::vector<std::vector<std::vector<uint32_t>>> c(
        n,
        std::vector<std::vector<uint32_t>>(n, std::vector<uint32_t>(slices, kNoOp)));
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            if (i == j)
            {
                continue;
            }
            for (uint32_t s = 0; s < slices; ++s)
            {
                c[i][j][s] = sched.AddChunk(sizes[j * slices + s]);
                sched.AddContribution(i, c[i][j][s]);
                sched.AddNeed(j, c[i][j][s]);
            }
        }
    }
    return c;
}

std::vector<uint32_t>
AllRanks(uint32_t n)
{
    std::vector<uint32_t> r(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        r[i] = i;
    }
    return r;
}

void
EveryRankContributesAndNeedsAll(CollectiveSchedule& sched, uint32_t ranks)
{
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t c = 0; c < sched.GetChunkCount(); ++c)
        {
            sched.AddContribution(r, c);
            sched.AddNeed(r, c);
        }
    }
}

std::vector<std::vector<std::vector<uint32_t>>>
MakeGroups(CollectiveSchedule& sched, uint64_t bytes, uint32_t n, uint32_t slices)
{
    std::vector<uint64_t> sizes = SplitBytes(bytes, n * slices);
    std::vector<std::vector<std::vector<uint32_t>>> groups(slices, std::vector<std::vector<uint32_t>>(n));
    for (uint32_t s = 0; s < slices; ++s)
    {
        for (uint32_t g = 0; g < n; ++g)
        {
            groups[s][g].push_back(sched.AddChunk(sizes[s * n + g]));
        }
    }
    return groups;
}

} // namespace collective
} // namespace ns3
