// SPDX-License-Identifier: GPL-2.0-only
//
// Incast: the N-1 ranks other than spec.root each send their 1/N of the
// bytes straight to the root at once (nccl-tests' gather sizes; "8-to-1" is
// N = 9), the many-to-one pattern of a parameter server or a storage read.
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"

namespace ns3
{

namespace
{

using namespace collective;

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
        uint32_t prev = kNoOp;
        for (uint32_t s = 0; s < slices; ++s)
        {
            uint32_t c = sched.AddChunk(sizes[i * slices + s]);
            sched.AddContribution(i, c);
            sched.AddNeed(root, c);
            std::vector<uint32_t> deps;
            if (prev != kNoOp)
            {
                deps.push_back(prev);
            }
            prev = sched.AddOp(i, root, {c}, false, deps, 0);
        }
    }
    return sched;
}

CollectiveAlgorithm
Direct()
{
    CollectiveAlgorithm a;
    a.name = "direct";
    a.collectives = {CollectiveKind::INCAST};
    a.order = 0;
    a.minimumBytes = [](const CollectiveSpec& spec) { return spec.ranks * PipelinePieces(spec); };
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) { return Incast(spec.ranks, spec.root, bytes, spec.slices); };
    // One message of 1/N of a slice: with no contention every sender's arrives at once.
    a.criticalPath = [](const CollectiveSpec& spec, double m) {
        return EqualSteps(1, 0, m / (spec.ranks * static_cast<double>(spec.slices)));
    };
    return a;
}

const CollectiveAlgorithmRegistration kDirectRegistration(Direct());

} // namespace

} // namespace ns3
