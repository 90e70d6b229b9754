// SPDX-License-Identifier: GPL-2.0-only
#include "collective-algorithm-blocks.h"

#include "collective-algorithms.h"

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
            const std::vector<std::vector<std::vector<uint32_t>>>& inDeps)
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
                pass.op[p][k][s] =
                    sched.AddOp(ranks[p], ranks[(p + 1) % n], groups[s][g], reduce, deps, firstStep + k);
            }
            for (uint32_t p = 0; p < n; ++p)
            {
                pass.received[(p + 1) % n][s].push_back(pass.op[p][k][s]);
            }
        }
    }
    return pass;
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
