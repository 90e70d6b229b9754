// SPDX-License-Identifier: GPL-2.0-only
//
// Recursive halving-doubling allreduce (Rabenseifner; Thakur, Rabenseifner
// and Gropp, "Optimization of Collective Communication Operations in MPICH",
// IJHPCA 2005): a reduce-scatter by recursive halving and an all-gather by
// recursive doubling on the largest power of two p2 <= N ranks; the N - p2
// others fold their whole buffer into a partner first and get the result back
// last.
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"

namespace ns3
{

namespace
{

using namespace collective;

CollectiveSchedule
RhdAllReduce(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("recursive halving-doubling allreduce", n);
    const uint32_t p2 = LargestPowerOfTwoAtMost(n);
    const uint32_t extras = n - p2;
    const uint32_t levels = CeilLog2(p2);
    std::vector<uint64_t> sizes = SplitBytes(bytes, p2 * slices);
    std::vector<std::vector<uint32_t>> chunk(slices, std::vector<uint32_t>(p2));
    for (uint32_t s = 0; s < slices; ++s)
    {
        for (uint32_t j = 0; j < p2; ++j)
        {
            chunk[s][j] = sched.AddChunk(sizes[s * p2 + j]);
        }
    }
    EveryRankContributesAndNeedsAll(sched, n);
    // received[r][s]: every receive of rank r in slice s so far; a send waits
    // for all of them because it carries their sum.
    std::vector<std::vector<std::vector<uint32_t>>> received(n, std::vector<std::vector<uint32_t>>(slices));
    const uint32_t firstStep = extras > 0 ? 1 : 0;
    // Ranks p2..n-1 first fold their whole buffer into a partner below p2.
    std::vector<uint32_t> prevPre(extras, kNoOp);
    for (uint32_t s = 0; s < slices && extras > 0; ++s)
    {
        for (uint32_t i = 0; i < extras; ++i)
        {
            std::vector<uint32_t> deps;
            if (s > 0)
            {
                deps.push_back(prevPre[i]);
            }
            prevPre[i] = sched.AddOp(p2 + i, i, chunk[s], true, deps, 0);
            received[i][s].push_back(prevPre[i]);
        }
    }
    // Reduce-scatter by recursive halving: at distance d a rank keeps the half
    // of its range whose bit d matches its own and sends the other half.
    auto rangeMatches = [](uint32_t j, uint32_t r, uint32_t fromBit) {
        // j agrees with r on every bit >= fromBit
        return (j & ~(fromBit - 1)) == (r & ~(fromBit - 1));
    };
    std::vector<std::vector<uint32_t>> prevOp(p2, std::vector<uint32_t>(levels * 2, kNoOp));
    // lastSend[s][r]: r's last doubling send of slice s (the result's return waits for it).
    std::vector<std::vector<uint32_t>> lastSend(slices, std::vector<uint32_t>(p2, kNoOp));
    for (uint32_t s = 0; s < slices; ++s)
    {
        std::vector<std::vector<uint32_t>> pending(p2); // receives to record after the step
        for (uint32_t k = 1; k <= levels; ++k)
        {
            const uint32_t d = p2 >> k;
            std::vector<std::pair<uint32_t, uint32_t>> made; // (receiver, op)
            for (uint32_t r = 0; r < p2; ++r)
            {
                const uint32_t q = r ^ d;
                std::vector<uint32_t> carried;
                for (uint32_t j = 0; j < p2; ++j)
                {
                    // Range before this step: agrees with r on bits >= 2d; send the half with bit d != r's.
                    if (rangeMatches(j, r, 2 * d) && ((j & d) != (r & d)))
                    {
                        carried.push_back(chunk[s][j]);
                    }
                }
                // An exchange is a Sendrecv: it starts when both partners hold
                // everything of the earlier steps. Without q's receives, rank 2
                // (no fold partner) would send into rank 0 while rank 4's fold
                // still streams into it: two flows on one link, which the
                // closed form does not have.
                std::vector<uint32_t> deps = received[r][s];
                deps.insert(deps.end(), received[q][s].begin(), received[q][s].end());
                if (s > 0)
                {
                    deps.push_back(prevOp[r][k - 1]);
                }
                uint32_t op = sched.AddOp(r, q, carried, true, deps, firstStep + k - 1);
                prevOp[r][k - 1] = op;
                made.emplace_back(q, op);
            }
            for (auto& [q, op] : made)
            {
                received[q][s].push_back(op);
            }
        }
        // All-gather by recursive doubling: at distance d a rank sends the range
        // it holds complete (agreeing with it on bits >= d).
        for (uint32_t k = levels; k >= 1; --k)
        {
            const uint32_t d = p2 >> k;
            const uint32_t idx = levels + (levels - k);
            std::vector<std::pair<uint32_t, uint32_t>> made;
            for (uint32_t r = 0; r < p2; ++r)
            {
                const uint32_t q = r ^ d;
                std::vector<uint32_t> carried;
                for (uint32_t j = 0; j < p2; ++j)
                {
                    if (rangeMatches(j, r, d))
                    {
                        carried.push_back(chunk[s][j]);
                    }
                }
                std::vector<uint32_t> deps = received[r][s];
                deps.insert(deps.end(), received[q][s].begin(), received[q][s].end()); // Sendrecv, as above
                if (s > 0)
                {
                    deps.push_back(prevOp[r][idx]);
                }
                uint32_t op = sched.AddOp(r, q, carried, false, deps, firstStep + idx);
                prevOp[r][idx] = op;
                if (k == 1)
                {
                    lastSend[s][r] = op;
                }
                made.emplace_back(q, op);
            }
            for (auto& [q, op] : made)
            {
                received[q][s].push_back(op);
            }
        }
    }
    // The folded ranks get the result back.
    std::vector<uint32_t> prevPost(extras, kNoOp);
    for (uint32_t s = 0; s < slices && extras > 0; ++s)
    {
        for (uint32_t i = 0; i < extras; ++i)
        {
            std::vector<uint32_t> deps = received[i][s];
            // After i's own last doubling send: otherwise both leave i's port
            // at once and share its uplink.
            if (lastSend[s][i] != kNoOp)
            {
                deps.push_back(lastSend[s][i]);
            }
            if (s > 0)
            {
                deps.push_back(prevPost[i]);
            }
            prevPost[i] = sched.AddOp(i, p2 + i, chunk[s], false, deps, firstStep + 2 * levels);
        }
    }
    return sched;
}

std::vector<CriticalStep>
RhdPath(const CollectiveSpec& spec, double m)
{
    const uint32_t n = spec.ranks;
    const double s = spec.slices;
    const uint32_t p2 = LargestPowerOfTwoAtMost(n);
    const uint32_t levels = CeilLog2(p2);
    // The fold in (if any), halving steps of 1/2, 1/4, ... of a slice, the
    // doubling steps back up, the fold out.
    std::vector<CriticalStep> path;
    if (p2 != n)
    {
        path.push_back(CriticalStep{0, m / s});
    }
    for (uint32_t k = 1; k <= levels; ++k)
    {
        path.push_back(CriticalStep{0, m / (s * (1u << k))});
    }
    for (uint32_t k = levels; k >= 1; --k)
    {
        path.push_back(CriticalStep{0, m / (s * (1u << k))});
    }
    if (p2 != n)
    {
        path.push_back(CriticalStep{0, m / s});
    }
    return path;
}

CollectiveAlgorithm
Rhd()
{
    CollectiveAlgorithm a;
    a.name = "rhd";
    a.aliases = {"halving-doubling", "recursive-halving-doubling", "rabenseifner"};
    a.collectives = {CollectiveKind::ALL_REDUCE};
    a.order = 2;
    a.minimumBytes = [](const CollectiveSpec& spec) { return LargestPowerOfTwoAtMost(spec.ranks) * PipelinePieces(spec); };
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) { return RhdAllReduce(spec.ranks, bytes, spec.slices); };
    a.criticalPath = RhdPath;
    return a;
}

const CollectiveAlgorithmRegistration kRhdRegistration(Rhd());

} // namespace

} // namespace ns3
