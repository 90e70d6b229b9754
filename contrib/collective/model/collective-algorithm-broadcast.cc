// SPDX-License-Identifier: GPL-2.0-only
//
// Broadcast from spec.root: the pipelined ring (a chain root, root+1, ...;
// N-1 steps of the whole slice, so S slices take N-2+S slice times) and the
// binomial tree (ceil(log2 N) rounds in which every rank holding the data
// sends it to the rank 2^k positions on), as in MPICH's MPIR_Bcast_intra_binomial.
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"

namespace ns3
{

namespace
{

using namespace collective;

/// Broadcast of every chunk from \p root: the receivers need them all.
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
    std::vector<std::vector<uint32_t>> op(n, std::vector<uint32_t>(slices, kNoOp));
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
    std::vector<std::vector<uint32_t>> sent(n, std::vector<uint32_t>(rounds, kNoOp)); // [pos][round]
    std::vector<uint32_t> recvRound(n, kNoOp);
    for (uint32_t s = 0; s < slices; ++s)
    {
        std::vector<uint32_t> recvOp(n, kNoOp);
        for (uint32_t k = 0; k < rounds; ++k)
        {
            const uint32_t stride = 1u << k;
            for (uint32_t v = 0; v < stride && v + stride < n; ++v)
            {
                std::vector<uint32_t> deps;
                if (k > 0 && sent[v][k - 1] != kNoOp && (v == 0 || recvRound[v] < k - 1))
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

/// Every broadcast message carries a whole slice of a channel.
uint64_t
BroadcastMinimumBytes(const CollectiveSpec& spec)
{
    return PipelinePieces(spec);
}

CollectiveAlgorithm
RingBroadcastAlgorithm()
{
    CollectiveAlgorithm a;
    a.name = "ring";
    a.aliases = {"pipelined", "chain"};
    a.collectives = {CollectiveKind::BROADCAST};
    a.order = 0;
    a.minimumBytes = BroadcastMinimumBytes;
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) {
        return RingBroadcast(spec.ranks, spec.root, bytes, spec.slices);
    };
    // N-1 hops of a whole slice.
    a.criticalPath = [](const CollectiveSpec& spec, double m) { return EqualSteps(spec.ranks - 1, 0, m / spec.slices); };
    return a;
}

CollectiveAlgorithm
BinomialBroadcastAlgorithm()
{
    CollectiveAlgorithm a;
    a.name = "binomial";
    a.aliases = {"tree"};
    a.collectives = {CollectiveKind::BROADCAST};
    a.order = 1;
    a.minimumBytes = BroadcastMinimumBytes;
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) {
        return BinomialBroadcast(spec.ranks, spec.root, bytes, spec.slices);
    };
    // ceil(log2 N) rounds of a whole slice.
    a.criticalPath = [](const CollectiveSpec& spec, double m) {
        return EqualSteps(CeilLog2(spec.ranks), 0, m / spec.slices);
    };
    return a;
}

const CollectiveAlgorithmRegistration kRingBroadcastRegistration(RingBroadcastAlgorithm());
const CollectiveAlgorithmRegistration kBinomialBroadcastRegistration(BinomialBroadcastAlgorithm());

} // namespace

} // namespace ns3
