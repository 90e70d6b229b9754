// SPDX-License-Identifier: GPL-2.0-only
//
// The ring family: allreduce (a reduce-scatter pass then an all-gather pass
// around the ring), allgather and reducescatter (one pass each). Each of the
// 2(N-1) or N-1 steps moves 1/N of a channel's buffer from every rank to its
// successor, as NCCL's ring algorithm does (src/device/all_reduce.h). The
// ring of each channel is RingOf(spec) (collective-ring-layout.h): ranks in
// order, or on a rail-optimized cluster one rail per channel with PXN sends
// between servers.
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"
#include "collective-ring-layout.h"

namespace ns3
{

namespace
{

using namespace collective;

CollectiveSchedule
RingAllReduce(const RingLayout& ring, uint64_t bytes, uint32_t slices)
{
    const uint32_t n = static_cast<uint32_t>(ring.order.size());
    CollectiveSchedule sched("ring allreduce", n);
    auto groups = MakeGroups(sched, bytes, n, slices);
    EveryRankContributesAndNeedsAll(sched, n);
    RingPass rs = AddRingPass(sched, ring.order, groups, true, 0, {}, ring.proxy);
    // The all-gather starts from the group each position completed.
    std::vector<std::vector<std::vector<uint32_t>>> in(n, std::vector<std::vector<uint32_t>>(slices));
    for (uint32_t p = 0; p < n; ++p)
    {
        for (uint32_t s = 0; s < slices; ++s)
        {
            in[p][s] = {rs.received[p][s].back()};
        }
    }
    AddRingPass(sched, ring.order, groups, false, n - 1, in, ring.proxy);
    return sched;
}

// Position p of the ring starts with (allgather) or ends with (reducescatter)
// group p.
CollectiveSchedule
RingAllGather(const RingLayout& ring, uint64_t bytes, uint32_t slices)
{
    const uint32_t n = static_cast<uint32_t>(ring.order.size());
    CollectiveSchedule sched("ring allgather", n);
    auto groups = MakeGroups(sched, bytes, n, slices);
    for (uint32_t s = 0; s < slices; ++s)
    {
        for (uint32_t g = 0; g < n; ++g)
        {
            sched.AddContribution(ring.order[g], groups[s][g][0]);
            for (uint32_t r = 0; r < n; ++r)
            {
                sched.AddNeed(r, groups[s][g][0]);
            }
        }
    }
    AddRingPass(sched, ring.order, groups, false, 0, {}, ring.proxy);
    return sched;
}

CollectiveSchedule
RingReduceScatter(const RingLayout& ring, uint64_t bytes, uint32_t slices)
{
    const uint32_t n = static_cast<uint32_t>(ring.order.size());
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
            sched.AddNeed(ring.order[g], groups[s][g][0]);
        }
    }
    AddRingPass(sched, ring.order, groups, true, 0, {}, ring.proxy);
    return sched;
}

/// Allreduce: 2(N-1) steps (two passes), the others N-1, each 1/N of a
/// slice. On a rail layout every step has a PXN send between servers (level
/// 1, its NVLink leg alongside), which bounds the step.
std::vector<CriticalStep>
RingPath(const CollectiveSpec& spec, double m)
{
    const uint32_t n = spec.ranks;
    const double s = spec.slices;
    const uint32_t passes = spec.collective == CollectiveKind::ALL_REDUCE ? 2 : 1;
    const RingLayout ring = RingOf(spec);
    if (ring.rail == UINT32_MAX)
    {
        return EqualSteps(passes * (n - 1), 0, m / (n * s));
    }
    std::vector<CriticalStep> path = EqualSteps(passes * (n - 1), 1, m / (n * s));
    for (CriticalStep& step : path)
    {
        step.relayed = ring.Relayed();
    }
    return path;
}

CollectiveAlgorithm
Ring()
{
    CollectiveAlgorithm a;
    a.name = "ring";
    a.collectives = {CollectiveKind::ALL_REDUCE, CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER};
    a.order = 0;
    a.minimumBytes = [](const CollectiveSpec& spec) { return spec.ranks * PipelinePieces(spec); };
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) {
        const RingLayout ring = RingOf(spec);
        switch (spec.collective)
        {
        case CollectiveKind::ALL_GATHER:
            return RingAllGather(ring, bytes, spec.slices);
        case CollectiveKind::REDUCE_SCATTER:
            return RingReduceScatter(ring, bytes, spec.slices);
        default:
            return RingAllReduce(ring, bytes, spec.slices);
        }
    };
    a.criticalPath = RingPath;
    return a;
}

const CollectiveAlgorithmRegistration kRingRegistration(Ring());

} // namespace

} // namespace ns3
