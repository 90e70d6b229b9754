// SPDX-License-Identifier: GPL-2.0-only
//
// Hierarchical allreduce on nodes of G GPUs (CollectiveSpec::gpusPerNode):
// a ring reduce-scatter inside each node, a ring allreduce of each shard
// across nodes on its rail (the GPUs with the same local index), a ring
// all-gather inside each node, so the inter-node messages are 1/G of a flat
// ring's (the structure of Horovod's HOROVOD_HIERARCHICAL_ALLREDUCE: NCCL
// reduce-scatter in the node, allreduce across nodes, NCCL allgather in the node).
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"

#include "input-error.h"

namespace ns3
{

namespace
{

using namespace collective;

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

std::vector<CriticalStep>
HierarchicalPath(const CollectiveSpec& spec, double m)
{
    const double s = spec.slices;
    const uint32_t g = spec.LocalRanks();
    const uint32_t nodes = spec.Nodes();
    // Reduce-scatter in the node, allreduce on the rail, all-gather in the node.
    const std::vector<CriticalStep> node = EqualSteps(g - 1, 0, m / (g * s));
    std::vector<CriticalStep> path = node;
    const auto rail = EqualSteps(2 * (nodes - 1), 1, m / (static_cast<double>(g) * nodes * s));
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
        return HierarchicalAllReduce(spec.Nodes(), spec.LocalRanks(), bytes, spec.slices);
    };
    a.criticalPath = HierarchicalPath;
    a.validate = [](const CollectiveSpec& spec) {
        if (spec.gpusPerNode > 0 && spec.ranks % spec.gpusPerNode != 0)
        {
            throw InputError("--ranks", "expected a multiple of the " + std::to_string(spec.gpusPerNode) +
                                            " GPUs per node, got " + std::to_string(spec.ranks));
        }
    };
    return a;
}

const CollectiveAlgorithmRegistration kHierarchicalRegistration(Hierarchical());

} // namespace

} // namespace ns3
