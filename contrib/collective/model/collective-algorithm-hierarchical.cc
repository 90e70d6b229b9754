// SPDX-License-Identifier: GPL-2.0-only
//
// Hierarchical allreduce on nodes of G GPUs (CollectiveSpec::gpusPerNode):
// a ring reduce-scatter inside each node, a ring allreduce of each shard
// across nodes on its rail (the GPUs with the same local index), a ring
// all-gather inside each node, so the inter-node messages are 1/G of a flat
// ring's (the structure of Horovod's HOROVOD_HIERARCHICAL_ALLREDUCE: NCCL
// reduce-scatter in the node, allreduce across nodes, NCCL allgather in the node),
// pipelined by chunk (CollectiveSpec::chunkBytes) so that the three phases
// overlap, as NCCL's tree and CollNet algorithms pipeline their intra- and
// inter-node parts chunk by chunk.
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"
#include "collective-ring-layout.h"

#include "input-error.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{

using namespace collective;

/// The chunks a channel of \p m bytes is pipelined in (CollectiveSpec::chunkBytes).
uint32_t
HierarchicalChunks(const CollectiveSpec& spec, double m)
{
    uint32_t chunks = spec.slices;
    if (spec.chunkBytes > 0)
    {
        const double wanted = std::ceil(m / (static_cast<double>(spec.LocalRanks()) * spec.chunkBytes));
        // Every message keeps at least one byte: m >= ranks x chunks.
        const double most = std::min<double>(kMaxPipelineChunks, std::floor(m / spec.ranks));
        chunks = std::max(chunks, static_cast<uint32_t>(std::max(1.0, std::min(wanted, most))));
    }
    return chunks;
}

/// The pipeline: chunk c enters a phase on a rank once the rank holds its
/// data from the phase before (the ring pass's own dependencies) and has
/// finished its sends of chunk c - 1 in that phase (one chunk per phase at a
/// time, so the phases are the stages of collective-closed-form.h's flow
/// shop). Chunk c's rail allreduce thus overlaps chunk c + 1's reduce-scatter
/// in the node and chunk c - 1's all-gather, as NCCL's chunked loops do; one
/// chunk runs the three phases in sequence.
CollectiveSchedule
HierarchicalAllReduce(uint32_t nodes, uint32_t local, uint64_t bytes, uint32_t chunks)
{
    const uint32_t n = nodes * local;
    CollectiveSchedule sched("hierarchical allreduce", n);
    // Shard i of a chunk (kept by local rank i after the intra-node
    // reduce-scatter) is cut into one piece per node for the ring across
    // nodes on rail i.
    std::vector<uint64_t> sizes = SplitBytes(bytes, local * nodes * chunks);
    // piece[c][i][j]
    std::vector<std::vector<std::vector<uint32_t>>> piece(
        chunks,
        std::vector<std::vector<uint32_t>>(local, std::vector<uint32_t>(nodes)));
    std::vector<std::vector<std::vector<uint32_t>>> shard(chunks, std::vector<std::vector<uint32_t>>(local));
    for (uint32_t c = 0; c < chunks; ++c)
    {
        for (uint32_t i = 0; i < local; ++i)
        {
            for (uint32_t j = 0; j < nodes; ++j)
            {
                piece[c][i][j] = sched.AddChunk(sizes[(c * local + i) * nodes + j]);
                shard[c][i].push_back(piece[c][i][j]);
            }
        }
    }
    EveryRankContributesAndNeedsAll(sched, n);
    auto rankOf = [local](uint32_t node, uint32_t i) { return node * local + i; };
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
    // Per rank: the receives of the current chunk, handed from phase to
    // phase, and its last send of the previous chunk in each stage.
    std::vector<std::vector<uint32_t>> received(n);
    std::vector<std::vector<uint32_t>> lastSend(3, std::vector<uint32_t>(n, kNoOp));
    // One ring pass of the current chunk on groups (one slice), waiting for
    // what the phases before left on each rank and, with \p stage, for the
    // rank's sends of the previous chunk in that stage; collects its receives
    // and, with \p stage, its last sends.
    auto pass = [&](const std::vector<uint32_t>& ranks,
                    const std::vector<std::vector<uint32_t>>& groups,
                    bool reduce,
                    uint32_t firstStep,
                    int stage) {
        std::vector<std::vector<std::vector<uint32_t>>> in(ranks.size(), std::vector<std::vector<uint32_t>>(1));
        for (uint32_t p = 0; p < ranks.size(); ++p)
        {
            in[p][0] = received[ranks[p]];
            if (stage >= 0 && lastSend[stage][ranks[p]] != kNoOp)
            {
                in[p][0].push_back(lastSend[stage][ranks[p]]);
            }
        }
        const RingPass ring = AddRingPass(sched, ranks, {groups}, reduce, firstStep, in);
        for (uint32_t p = 0; p < ranks.size(); ++p)
        {
            auto& to = received[ranks[p]];
            to.insert(to.end(), ring.received[p][0].begin(), ring.received[p][0].end());
        }
        return ring;
    };
    auto closeStage = [&](const std::vector<uint32_t>& ranks, const RingPass& ring, uint32_t stage) {
        for (uint32_t p = 0; p < ranks.size() && ranks.size() > 1; ++p)
        {
            lastSend[stage][ranks[p]] = ring.op[p].back()[0];
        }
    };
    for (uint32_t c = 0; c < chunks; ++c)
    {
        for (auto& r : received)
        {
            r.clear();
        }
        // 1: reduce-scatter inside each node (NVLink), whole shards.
        for (uint32_t node = 0; node < nodes; ++node)
        {
            closeStage(nodeRanks[node], pass(nodeRanks[node], shard[c], true, 0, 0), 0);
        }
        // 2: allreduce of shard i across nodes on rail i (reduce-scatter, all-gather).
        std::vector<std::vector<std::vector<uint32_t>>> groups(local);
        for (uint32_t i = 0; i < local; ++i)
        {
            for (uint32_t j = 0; j < nodes; ++j)
            {
                groups[i].push_back({piece[c][i][j]});
            }
        }
        // Every rail's reduce-scatter, then every rail's all-gather (each
        // waits for its own rail's reduce-scatter only).
        for (uint32_t i = 0; i < local; ++i)
        {
            pass(railRanks[i], groups[i], true, intraSteps, 1);
        }
        for (uint32_t i = 0; i < local; ++i)
        {
            closeStage(railRanks[i], pass(railRanks[i], groups[i], false, intraSteps + interSteps, -1), 1);
        }
        // 3: all-gather of the shards inside each node.
        for (uint32_t node = 0; node < nodes; ++node)
        {
            closeStage(nodeRanks[node],
                       pass(nodeRanks[node], shard[c], false, intraSteps + 2 * interSteps, 2),
                       2);
        }
    }
    return sched;
}

/// One stage of \p count equal steps.
std::vector<CriticalStep>
Stage(uint32_t count, uint32_t level, double bytes)
{
    std::vector<CriticalStep> steps = EqualSteps(count, level, bytes);
    for (uint32_t k = 1; k < steps.size(); ++k)
    {
        steps[k].sameStage = true;
    }
    return steps;
}

std::vector<CriticalStep>
HierarchicalPath(const CollectiveSpec& spec, double m)
{
    const double c = HierarchicalChunks(spec, m);
    const uint32_t g = spec.LocalRanks();
    const uint32_t nodes = spec.Nodes();
    // Per chunk: reduce-scatter in the node, allreduce on the rail, all-gather
    // in the node; each phase a stage of the pipeline.
    const std::vector<CriticalStep> node = Stage(g - 1, 0, m / (g * c));
    std::vector<CriticalStep> path = node;
    const auto rail = Stage(2 * (nodes - 1), 1, m / (static_cast<double>(g) * nodes * c));
    path.insert(path.end(), rail.begin(), rail.end());
    path.insert(path.end(), node.begin(), node.end());
    return path;
}

CollectiveAlgorithm
Hierarchical()
{
    CollectiveAlgorithm a;
    a.name = "hierarchical";
    a.collectives = {CollectiveKind::ALL_REDUCE};
    a.order = 3;
    a.usesNodes = true;
    a.minimumBytes = [](const CollectiveSpec& spec) { return spec.ranks * PipelinePieces(spec); };
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) {
        return HierarchicalAllReduce(spec.Nodes(), spec.LocalRanks(), bytes,
                                     HierarchicalChunks(spec, static_cast<double>(bytes)));
    };
    a.criticalPath = HierarchicalPath;
    a.pipelineDepth = HierarchicalChunks;
    a.validate = CheckRanksFillNodes;
    return a;
}

const CollectiveAlgorithmRegistration kHierarchicalRegistration(Hierarchical());

} // namespace

} // namespace ns3
