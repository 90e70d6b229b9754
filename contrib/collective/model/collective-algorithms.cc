// SPDX-License-Identifier: GPL-2.0-only
#include "collective-algorithms.h"

#include "input-error.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace ns3
{

namespace
{

const uint32_t NONE = UINT32_MAX;

std::string
Lower(const std::string& s)
{
    std::string out;
    for (char c : s)
    {
        if (c != '_' && c != ' ')
        {
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return out;
}

/// Ops of one ring pass, indexed [position][step][slice], and for each position
/// and slice the receives it made, in step order.
struct RingPass
{
    std::vector<std::vector<std::vector<uint32_t>>> op;
    std::vector<std::vector<std::vector<uint32_t>>> received; // [position][slice] -> ops
};

/// One ring pass over \p ranks (in ring order) on groups of chunks
/// groups[slice][g]: a reduce-scatter (reduce = true; position p sends group
/// (p - 1 - k) mod n at step k and ends holding group p complete) or an
/// all-gather (reduce = false; p starts holding group p and sends group
/// (p - k) mod n). Every op of position p, slice s also waits for
/// inDeps[p][s] (the data an earlier phase left there).
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
    pass.op.assign(n, std::vector<std::vector<uint32_t>>(n > 0 ? n - 1 : 0, std::vector<uint32_t>(slices, NONE)));
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

/// A reduction over every rank: each contributes to every chunk and needs all.
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

/// groups[s][g] = {chunk} with chunks cut from \p bytes in n x slices pieces.
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

CollectiveSchedule
RingAllReduce(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("ring allreduce", n);
    auto groups = MakeGroups(sched, bytes, n, slices);
    EveryRankContributesAndNeedsAll(sched, n);
    RingPass rs = AddRingPass(sched, AllRanks(n), groups, true, 0, {});
    // The all-gather starts from the group each position completed.
    std::vector<std::vector<std::vector<uint32_t>>> in(n, std::vector<std::vector<uint32_t>>(slices));
    for (uint32_t p = 0; p < n; ++p)
    {
        for (uint32_t s = 0; s < slices; ++s)
        {
            in[p][s] = {rs.received[p][s].back()};
        }
    }
    AddRingPass(sched, AllRanks(n), groups, false, n - 1, in);
    return sched;
}

CollectiveSchedule
RingAllGather(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("ring allgather", n);
    auto groups = MakeGroups(sched, bytes, n, slices);
    for (uint32_t s = 0; s < slices; ++s)
    {
        for (uint32_t g = 0; g < n; ++g)
        {
            sched.AddContribution(g, groups[s][g][0]);
            for (uint32_t r = 0; r < n; ++r)
            {
                sched.AddNeed(r, groups[s][g][0]);
            }
        }
    }
    AddRingPass(sched, AllRanks(n), groups, false, 0, {});
    return sched;
}

CollectiveSchedule
RingReduceScatter(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("ring reducescatter", n);
    auto groups = MakeGroups(sched, bytes, n, slices);
    for (uint32_t s = 0; s < slices; ++s)
    {
        for (uint32_t g = 0; g < n; ++g)
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                sched.AddContribution(r, groups[s][g][0]);
            }
            sched.AddNeed(g, groups[s][g][0]);
        }
    }
    AddRingPass(sched, AllRanks(n), groups, true, 0, {});
    return sched;
}

CollectiveSchedule
TreeAllReduce(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("double-binary-tree allreduce", n);
    std::vector<std::vector<int>> parents = DoubleBinaryTreeParents(n);
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
        std::vector<std::vector<uint32_t>> up(n, std::vector<uint32_t>(slices, NONE));
        std::vector<std::vector<uint32_t>> down(n, std::vector<uint32_t>(slices, NONE));
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
    std::vector<uint32_t> prevPre(extras, NONE);
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
    std::vector<std::vector<uint32_t>> prevOp(p2, std::vector<uint32_t>(levels * 2, NONE));
    // lastSend[s][r]: r's last doubling send of slice s (the result's return waits for it).
    std::vector<std::vector<uint32_t>> lastSend(slices, std::vector<uint32_t>(p2, NONE));
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
    std::vector<uint32_t> prevPost(extras, NONE);
    for (uint32_t s = 0; s < slices && extras > 0; ++s)
    {
        for (uint32_t i = 0; i < extras; ++i)
        {
            std::vector<uint32_t> deps = received[i][s];
            // After i's own last doubling send: otherwise both leave i's port
            // at once and share its uplink.
            if (lastSend[s][i] != NONE)
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

/// Broadcast of every chunk from rank order[0]: the receivers need them all.
CollectiveSchedule
BroadcastBase(const std::string& name,
              uint32_t n,
              uint32_t root,
              uint64_t bytes,
              uint32_t slices,
              std::vector<uint32_t>& chunk)
{
    CollectiveSchedule sched(name, n);
    std::vector<uint64_t> sizes = SplitBytes(bytes, slices);
    chunk.resize(slices);
    for (uint32_t s = 0; s < slices; ++s)
    {
        chunk[s] = sched.AddChunk(sizes[s]);
        sched.AddContribution(root, chunk[s]);
        for (uint32_t r = 0; r < n; ++r)
        {
            sched.AddNeed(r, chunk[s]);
        }
    }
    return sched;
}

CollectiveSchedule
RingBroadcast(uint32_t n, uint32_t root, uint64_t bytes, uint32_t slices)
{
    std::vector<uint32_t> chunk;
    CollectiveSchedule sched = BroadcastBase("pipelined ring broadcast", n, root, bytes, slices, chunk);
    std::vector<std::vector<uint32_t>> op(n, std::vector<uint32_t>(slices, NONE));
    for (uint32_t s = 0; s < slices; ++s)
    {
        for (uint32_t i = 0; i + 1 < n; ++i)
        {
            std::vector<uint32_t> deps;
            if (i > 0)
            {
                deps.push_back(op[i - 1][s]);
            }
            if (s > 0)
            {
                deps.push_back(op[i][s - 1]);
            }
            op[i][s] = sched.AddOp((root + i) % n, (root + i + 1) % n, {chunk[s]}, false, deps, i);
        }
    }
    return sched;
}

CollectiveSchedule
BinomialBroadcast(uint32_t n, uint32_t root, uint64_t bytes, uint32_t slices)
{
    std::vector<uint32_t> chunk;
    CollectiveSchedule sched = BroadcastBase("binomial tree broadcast", n, root, bytes, slices, chunk);
    const uint32_t rounds = CeilLog2(n);
    // Positions relative to the root: in round k, positions below 2^k send to
    // position + 2^k. A rank sends one message at a time (its previous send
    // delivered), the single-port model of the binomial tree.
    std::vector<std::vector<uint32_t>> sent(n, std::vector<uint32_t>(rounds, NONE)); // [pos][round]
    std::vector<uint32_t> recvRound(n, NONE);
    for (uint32_t s = 0; s < slices; ++s)
    {
        std::vector<uint32_t> recvOp(n, NONE);
        for (uint32_t k = 0; k < rounds; ++k)
        {
            const uint32_t stride = 1u << k;
            for (uint32_t v = 0; v < stride && v + stride < n; ++v)
            {
                std::vector<uint32_t> deps;
                if (k > 0 && sent[v][k - 1] != NONE && (v == 0 || recvRound[v] < k - 1))
                {
                    deps.push_back(sent[v][k - 1]);
                }
                else if (v != 0)
                {
                    deps.push_back(recvOp[v]);
                }
                if (s > 0)
                {
                    deps.push_back(sent[v][k]);
                }
                uint32_t op = sched.AddOp((root + v) % n, (root + v + stride) % n, {chunk[s]}, false, deps, k);
                sent[v][k] = op;
                recvOp[v + stride] = op;
                recvRound[v + stride] = k;
            }
        }
    }
    return sched;
}

/// chunk (i -> j, slice s) of an all-to-all: each rank's buffer cut in n blocks.
std::vector<std::vector<std::vector<uint32_t>>>
AllToAllChunks(CollectiveSchedule& sched, uint32_t n, uint64_t bytes, uint32_t slices)
{
    std::vector<uint64_t> sizes = SplitBytes(bytes, n * slices);
    std::vector<std::vector<std::vector<uint32_t>>> c(
        n,
        std::vector<std::vector<uint32_t>>(n, std::vector<uint32_t>(slices, NONE)));
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

CollectiveSchedule
PairwiseAllToAll(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("pairwise-exchange alltoall", n);
    auto c = AllToAllChunks(sched, n, bytes, slices);
    // op[r][k][s]: rank r's send at step k (to r + k).
    std::vector<std::vector<std::vector<uint32_t>>> op(
        n,
        std::vector<std::vector<uint32_t>>(n, std::vector<uint32_t>(slices, NONE)));
    for (uint32_t k = 1; k < n; ++k)
    {
        for (uint32_t s = 0; s < slices; ++s)
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                std::vector<uint32_t> deps;
                if (k > 1)
                {
                    // Like MPI_Sendrecv: the next exchange starts when both
                    // halves of this one are done.
                    deps.push_back(op[r][k - 1][s]);
                    deps.push_back(op[(r + n - (k - 1)) % n][k - 1][s]);
                }
                if (s > 0)
                {
                    deps.push_back(op[r][k][s - 1]);
                }
                const uint32_t dst = (r + k) % n;
                op[r][k][s] = sched.AddOp(r, dst, {c[r][dst][s]}, false, deps, k - 1);
            }
        }
    }
    return sched;
}

CollectiveSchedule
AllAtOnceAllToAll(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("all-at-once alltoall", n);
    auto c = AllToAllChunks(sched, n, bytes, slices);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t k = 1; k < n; ++k)
        {
            const uint32_t dst = (r + k) % n;
            uint32_t prev = NONE;
            for (uint32_t s = 0; s < slices; ++s)
            {
                std::vector<uint32_t> deps;
                if (prev != NONE)
                {
                    deps.push_back(prev);
                }
                prev = sched.AddOp(r, dst, {c[r][dst][s]}, false, deps, 0);
            }
        }
    }
    return sched;
}

CollectiveSchedule
Incast(uint32_t n, uint32_t root, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("incast", n);
    std::vector<uint64_t> sizes = SplitBytes(bytes, n * slices);
    for (uint32_t i = 0; i < n; ++i)
    {
        if (i == root)
        {
            continue;
        }
        uint32_t prev = NONE;
        for (uint32_t s = 0; s < slices; ++s)
        {
            uint32_t c = sched.AddChunk(sizes[i * slices + s]);
            sched.AddContribution(i, c);
            sched.AddNeed(root, c);
            std::vector<uint32_t> deps;
            if (prev != NONE)
            {
                deps.push_back(prev);
            }
            prev = sched.AddOp(i, root, {c}, false, deps, 0);
        }
    }
    return sched;
}

CollectiveSchedule
HierarchicalAllReduce(uint32_t nodes, uint32_t local, uint64_t bytes, uint32_t slices)
{
    const uint32_t n = nodes * local;
    CollectiveSchedule sched("hierarchical allreduce", n);
    // Shard i (kept by local rank i after the intra-node reduce-scatter) is cut
    // into one piece per node for the ring across nodes on rail i.
    std::vector<uint64_t> sizes = SplitBytes(bytes, local * nodes * slices);
    // piece[s][i][j]
    std::vector<std::vector<std::vector<uint32_t>>> piece(
        slices,
        std::vector<std::vector<uint32_t>>(local, std::vector<uint32_t>(nodes)));
    std::vector<std::vector<std::vector<uint32_t>>> shard(slices, std::vector<std::vector<uint32_t>>(local));
    for (uint32_t s = 0; s < slices; ++s)
    {
        for (uint32_t i = 0; i < local; ++i)
        {
            for (uint32_t j = 0; j < nodes; ++j)
            {
                piece[s][i][j] = sched.AddChunk(sizes[(s * local + i) * nodes + j]);
                shard[s][i].push_back(piece[s][i][j]);
            }
        }
    }
    EveryRankContributesAndNeedsAll(sched, n);
    auto rankOf = [local](uint32_t node, uint32_t i) { return node * local + i; };
    // Receives of each rank per slice, handed from phase to phase.
    std::vector<std::vector<std::vector<uint32_t>>> received(n, std::vector<std::vector<uint32_t>>(slices));
    auto collect = [&](const std::vector<uint32_t>& ranks, const RingPass& pass) {
        for (uint32_t p = 0; p < ranks.size(); ++p)
        {
            for (uint32_t s = 0; s < slices; ++s)
            {
                auto& to = received[ranks[p]][s];
                to.insert(to.end(), pass.received[p][s].begin(), pass.received[p][s].end());
            }
        }
    };
    auto inDepsOf = [&](const std::vector<uint32_t>& ranks) {
        std::vector<std::vector<std::vector<uint32_t>>> in(ranks.size());
        for (uint32_t p = 0; p < ranks.size(); ++p)
        {
            in[p] = received[ranks[p]];
        }
        return in;
    };
    std::vector<std::vector<uint32_t>> nodeRanks(nodes), railRanks(local);
    for (uint32_t node = 0; node < nodes; ++node)
    {
        for (uint32_t i = 0; i < local; ++i)
        {
            nodeRanks[node].push_back(rankOf(node, i));
            railRanks[i].push_back(rankOf(node, i));
        }
    }
    const uint32_t intraSteps = local - 1;
    const uint32_t interSteps = nodes - 1;
    // 1: reduce-scatter inside each node (NVLink), whole shards.
    std::vector<RingPass> phase(nodes);
    for (uint32_t node = 0; node < nodes; ++node)
    {
        phase[node] = AddRingPass(sched, nodeRanks[node], shard, true, 0, {});
    }
    for (uint32_t node = 0; node < nodes; ++node)
    {
        collect(nodeRanks[node], phase[node]);
    }
    // 2: allreduce of shard i across nodes on rail i (reduce-scatter, all-gather).
    for (uint32_t pass = 0; pass < 2; ++pass)
    {
        std::vector<RingPass> rail(local);
        for (uint32_t i = 0; i < local; ++i)
        {
            std::vector<std::vector<std::vector<uint32_t>>> groups(slices);
            for (uint32_t s = 0; s < slices; ++s)
            {
                for (uint32_t j = 0; j < nodes; ++j)
                {
                    groups[s].push_back({piece[s][i][j]});
                }
            }
            rail[i] = AddRingPass(sched,
                                  railRanks[i],
                                  groups,
                                  pass == 0,
                                  intraSteps + pass * interSteps,
                                  inDepsOf(railRanks[i]));
        }
        for (uint32_t i = 0; i < local; ++i)
        {
            collect(railRanks[i], rail[i]);
        }
    }
    // 3: all-gather of the shards inside each node.
    for (uint32_t node = 0; node < nodes; ++node)
    {
        phase[node] = AddRingPass(sched, nodeRanks[node], shard, false, intraSteps + 2 * interSteps,
                                  inDepsOf(nodeRanks[node]));
    }
    return sched;
}

/// Smallest --bytes for which no message of \p spec is empty.
uint64_t
MinimumBytes(const CollectiveSpec& spec)
{
    const uint64_t n = spec.ranks;
    const uint64_t cs = static_cast<uint64_t>(spec.channels) * spec.slices;
    const std::string& a = spec.algorithm;
    switch (spec.collective)
    {
    case CollectiveKind::ALL_REDUCE:
        if (a == "tree")
        {
            return 2 * cs;
        }
        if (a == "rhd")
        {
            return LargestPowerOfTwoAtMost(spec.ranks) * cs;
        }
        return n * cs;
    case CollectiveKind::BROADCAST:
        return cs;
    default:
        return n * cs;
    }
}

} // namespace

std::vector<uint64_t>
SplitBytes(uint64_t total, uint32_t parts)
{
    std::vector<uint64_t> out(parts, parts ? total / parts : 0);
    for (uint32_t i = 0; parts && i < total % parts; ++i)
    {
        ++out[i];
    }
    return out;
}

std::string
ToString(CollectiveKind kind)
{
    switch (kind)
    {
    case CollectiveKind::ALL_REDUCE:
        return "allreduce";
    case CollectiveKind::ALL_GATHER:
        return "allgather";
    case CollectiveKind::REDUCE_SCATTER:
        return "reducescatter";
    case CollectiveKind::BROADCAST:
        return "broadcast";
    case CollectiveKind::ALL_TO_ALL:
        return "alltoall";
    case CollectiveKind::INCAST:
        return "incast";
    }
    return "?";
}

CollectiveKind
ParseCollectiveKind(const std::string& text, const std::string& field)
{
    const std::string t = Lower(text);
    for (CollectiveKind k : {CollectiveKind::ALL_REDUCE,
                             CollectiveKind::ALL_GATHER,
                             CollectiveKind::REDUCE_SCATTER,
                             CollectiveKind::BROADCAST,
                             CollectiveKind::ALL_TO_ALL,
                             CollectiveKind::INCAST})
    {
        if (t == ToString(k))
        {
            return k;
        }
    }
    throw InputError(field,
                     "expected allreduce, allgather, reducescatter, broadcast, alltoall or incast, got '" +
                         text + "'");
}

std::vector<std::string>
AlgorithmsOf(CollectiveKind kind)
{
    switch (kind)
    {
    case CollectiveKind::ALL_REDUCE:
        return {"ring", "tree", "rhd", "hierarchical"};
    case CollectiveKind::ALL_GATHER:
    case CollectiveKind::REDUCE_SCATTER:
        return {"ring"};
    case CollectiveKind::BROADCAST:
        return {"ring", "binomial"};
    case CollectiveKind::ALL_TO_ALL:
        return {"pairwise", "all-at-once"};
    case CollectiveKind::INCAST:
        return {"direct"};
    }
    return {};
}

std::string
CanonicalAlgorithm(CollectiveKind kind, const std::string& algorithm, const std::string& field)
{
    std::string a = Lower(algorithm);
    if (kind == CollectiveKind::ALL_REDUCE)
    {
        if (a == "double-binary-tree" || a == "dbtree" || a == "doublebinarytree")
        {
            a = "tree";
        }
        if (a == "halving-doubling" || a == "recursive-halving-doubling" || a == "rabenseifner")
        {
            a = "rhd";
        }
    }
    if (kind == CollectiveKind::ALL_TO_ALL && (a == "ring" || a == "pairwise-exchange"))
    {
        a = "pairwise";
    }
    if (kind == CollectiveKind::ALL_TO_ALL && (a == "allatonce" || a == "direct"))
    {
        a = "all-at-once";
    }
    if (kind == CollectiveKind::BROADCAST && (a == "pipelined" || a == "chain" || a == "tree"))
    {
        a = a == "tree" ? "binomial" : "ring";
    }
    std::vector<std::string> known = AlgorithmsOf(kind);
    if (std::find(known.begin(), known.end(), a) != known.end())
    {
        return a;
    }
    std::string list;
    for (const auto& k : known)
    {
        list += (list.empty() ? "" : ", ") + k;
    }
    throw InputError(field, "expected an algorithm of " + ToString(kind) + " (" + list + "), got '" +
                                algorithm + "'");
}

uint32_t
CollectiveSpec::Nodes() const
{
    return gpusPerNode > 0 ? ranks / gpusPerNode : 1;
}

uint32_t
CollectiveSpec::LocalRanks() const
{
    return gpusPerNode > 0 ? gpusPerNode : ranks;
}

void
CollectiveSpec::Validate() const
{
    if (ranks < 2)
    {
        throw InputError("--ranks", "expected at least 2 ranks, got " + std::to_string(ranks));
    }
    if (channels == 0)
    {
        throw InputError("--channels", "expected at least 1 channel");
    }
    if (slices == 0)
    {
        throw InputError("--slices", "expected at least 1 slice");
    }
    if (root >= ranks)
    {
        throw InputError("--root", "expected a rank below " + std::to_string(ranks) + ", got " +
                                       std::to_string(root));
    }
    const std::string canonical = CanonicalAlgorithm(collective, algorithm, "--algorithm");
    if (canonical != algorithm)
    {
        throw InputError("--algorithm", "expected the canonical name '" + canonical + "', got '" +
                                            algorithm + "'");
    }
    if (algorithm == "hierarchical" && gpusPerNode > 0 && ranks % gpusPerNode != 0)
    {
        throw InputError("--ranks", "expected a multiple of the " + std::to_string(gpusPerNode) +
                                        " GPUs per node, got " + std::to_string(ranks));
    }
    const uint64_t minimum = MinimumBytes(*this);
    if (bytes < minimum)
    {
        throw InputError("--bytes", "expected at least " + std::to_string(minimum) + " bytes for " +
                                        ToString(collective) + " " + algorithm + " on " +
                                        std::to_string(ranks) + " ranks with " +
                                        std::to_string(channels) + " channel(s) x " +
                                        std::to_string(slices) + " slice(s), got " +
                                        std::to_string(bytes));
    }
}

uint32_t
LargestPowerOfTwoAtMost(uint32_t n)
{
    uint32_t p = 1;
    while (p * 2 <= n)
    {
        p *= 2;
    }
    return p;
}

uint32_t
CeilLog2(uint32_t n)
{
    uint32_t k = 0;
    while ((1u << k) < n)
    {
        ++k;
    }
    return k;
}

CollectiveSchedule
BuildSchedule(const CollectiveSpec& spec)
{
    spec.Validate();
    const uint32_t n = spec.ranks;
    std::vector<uint64_t> perChannel = SplitBytes(spec.bytes, spec.channels);
    CollectiveSchedule all;
    for (uint32_t c = 0; c < spec.channels; ++c)
    {
        const uint64_t b = perChannel[c];
        const uint32_t s = spec.slices;
        CollectiveSchedule one;
        switch (spec.collective)
        {
        case CollectiveKind::ALL_REDUCE:
            if (spec.algorithm == "ring")
            {
                one = RingAllReduce(n, b, s);
            }
            else if (spec.algorithm == "tree")
            {
                one = TreeAllReduce(n, b, s);
            }
            else if (spec.algorithm == "rhd")
            {
                one = RhdAllReduce(n, b, s);
            }
            else
            {
                one = HierarchicalAllReduce(spec.Nodes(), spec.LocalRanks(), b, s);
            }
            break;
        case CollectiveKind::ALL_GATHER:
            one = RingAllGather(n, b, s);
            break;
        case CollectiveKind::REDUCE_SCATTER:
            one = RingReduceScatter(n, b, s);
            break;
        case CollectiveKind::BROADCAST:
            one = spec.algorithm == "binomial" ? BinomialBroadcast(n, spec.root, b, s)
                                               : RingBroadcast(n, spec.root, b, s);
            break;
        case CollectiveKind::ALL_TO_ALL:
            one = spec.algorithm == "all-at-once" ? AllAtOnceAllToAll(n, b, s) : PairwiseAllToAll(n, b, s);
            break;
        case CollectiveKind::INCAST:
            one = Incast(n, spec.root, b, s);
            break;
        }
        if (c == 0)
        {
            all = one;
        }
        else
        {
            all.Append(one);
        }
    }
    return all;
}

std::vector<std::vector<int>>
DoubleBinaryTreeParents(uint32_t ranks)
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
TreeDepth(const std::vector<int>& parents)
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
