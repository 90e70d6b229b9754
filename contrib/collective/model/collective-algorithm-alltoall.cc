// SPDX-License-Identifier: GPL-2.0-only
//
// AllToAll, each rank's send buffer cut in N blocks: pairwise exchange (step
// k = 1..N-1 sends to rank + k and receives from rank - k, each step a
// Sendrecv, as MPICH's MPIR_Alltoall_intra_pairwise) and all-at-once (every
// block posted at once, as nccl-tests' alltoall posts one grouped
// ncclSend/ncclRecv per peer).
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"

namespace ns3
{

namespace
{

using namespace collective;

CollectiveSchedule
PairwiseAllToAll(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("pairwise-exchange alltoall", n);
    auto c = AllToAllChunks(sched, n, bytes, slices);
    // op[r][k][s]: rank r's send at step k (to r + k).
    std::vector<std::vector<std::vector<uint32_t>>> op(
        n,
        std::vector<std::vector<uint32_t>>(n, std::vector<uint32_t>(slices, kNoOp)));
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
            uint32_t prev = kNoOp;
            for (uint32_t s = 0; s < slices; ++s)
            {
                std::vector<uint32_t> deps;
                if (prev != kNoOp)
                {
                    deps.push_back(prev);
                }
                prev = sched.AddOp(r, dst, {c[r][dst][s]}, false, deps, 0);
            }
        }
    }
    return sched;
}

/// \p steps steps of one block (1/N of a slice).
std::vector<CriticalStep>
BlockSteps(const CollectiveSpec& spec, double m, uint32_t steps)
{
    return EqualSteps(steps, 0, m / (spec.ranks * static_cast<double>(spec.slices)));
}

uint64_t
AllToAllMinimumBytes(const CollectiveSpec& spec)
{
    return spec.ranks * PipelinePieces(spec);
}

CollectiveAlgorithm
Pairwise()
{
    CollectiveAlgorithm a;
    a.name = "pairwise";
    a.aliases = {"ring", "pairwise-exchange"};
    a.collectives = {CollectiveKind::ALL_TO_ALL};
    a.order = 0;
    a.minimumBytes = AllToAllMinimumBytes;
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) { return PairwiseAllToAll(spec.ranks, bytes, spec.slices); };
    a.criticalPath = [](const CollectiveSpec& spec, double m) { return BlockSteps(spec, m, spec.ranks - 1); };
    return a;
}

CollectiveAlgorithm
AllAtOnce()
{
    CollectiveAlgorithm a;
    a.name = "all-at-once";
    a.aliases = {"allatonce", "direct"};
    a.collectives = {CollectiveKind::ALL_TO_ALL};
    a.order = 1;
    a.minimumBytes = AllToAllMinimumBytes;
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) { return AllAtOnceAllToAll(spec.ranks, bytes, spec.slices); };
    // One block: with no contention all of a rank's blocks travel at once.
    a.criticalPath = [](const CollectiveSpec& spec, double m) { return BlockSteps(spec, m, 1); };
    return a;
}

const CollectiveAlgorithmRegistration kPairwiseRegistration(Pairwise());
const CollectiveAlgorithmRegistration kAllAtOnceRegistration(AllAtOnce());

} // namespace

} // namespace ns3
