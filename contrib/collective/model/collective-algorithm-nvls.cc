// SPDX-License-Identifier: GPL-2.0-only
//
// NVLS: AllReduce reduced in the switch (NVLink SHARP of the third-generation
// NVSwitch, NCCL's NVLS algorithm on one H100 / B200 NVSwitch domain). Every
// rank sends its whole buffer up to the NVSwitch once; the switch adds the N
// copies and multicasts the sum down to every rank once. As a schedule: per
// slice one chunk and one in-switch group of N ops, op r from rank r to rank
// r+1 mod N (ScheduleOp::group): r's copy goes up r's link, the sum comes
// down to r+1's link, so every link carries the slice once each way. A
// slice's ops wait for the previous slice's sum (one slot per rank, the
// pipelining rule of collective-algorithms.h).
//
// Closed form: one step of the whole slice, T = S (alpha + M/(S beta)): each
// GPU sends M bytes up and receives M bytes down once, against the ring's
// 2(N-1) steps of M/N; nccl-tests' busbw factor stays 2(N-1)/N, so busbw =
// 2(N-1)/N x M/T exceeds the link rate (NCCL's ~480 GB/s on 8 x H100 with
// 450 GB/s links; nccl-tests#212).
//
// Where it applies: only on ranks that share one NVSwitch that reduces
// (compare refuses other topologies, naming --algorithm); on a transport
// without such a switch (the analytic backends) the group is priced by what
// its links carry (CollectiveTransport::SendThroughSwitch).
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"

namespace ns3
{

namespace
{

using namespace collective;

CollectiveSchedule
NvlsAllReduce(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("nvls allreduce", n);
    std::vector<uint64_t> sizes = SplitBytes(bytes, slices);
    std::vector<uint32_t> prev(n, kNoOp);
    for (uint32_t s = 0; s < slices; ++s)
    {
        const uint32_t c = sched.AddChunk(sizes[s]);
        for (uint32_t r = 0; r < n; ++r)
        {
            sched.AddContribution(r, c);
            sched.AddNeed(r, c);
        }
        std::vector<uint32_t> ops(n);
        for (uint32_t r = 0; r < n; ++r)
        {
            std::vector<uint32_t> deps;
            if (prev[r] != kNoOp)
            {
                deps.push_back(prev[r]);
            }
            ops[r] = sched.AddSwitchOp(r, (r + 1) % n, {c}, s, deps, 0);
        }
        prev = ops;
    }
    return sched;
}

CollectiveAlgorithm
Nvls()
{
    CollectiveAlgorithm a;
    a.name = "nvls";
    a.aliases = {"nvlink-sharp"};
    a.collectives = {CollectiveKind::ALL_REDUCE};
    a.order = 4;
    a.minimumBytes = [](const CollectiveSpec& spec) { return PipelinePieces(spec); };
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) {
        return NvlsAllReduce(spec.ranks, bytes, spec.slices);
    };
    // One step: the whole slice up and its sum down.
    a.criticalPath = [](const CollectiveSpec& spec, double m) {
        return EqualSteps(1, 0, m / static_cast<double>(spec.slices));
    };
    return a;
}

const CollectiveAlgorithmRegistration kNvlsRegistration(Nvls());

} // namespace

} // namespace ns3
