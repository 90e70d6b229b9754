// SPDX-License-Identifier: GPL-2.0-only
//
// Building blocks the schedule builders of several algorithm families share:
// the chunk and contribution set-ups of a reduction and the ring pass (ring
// allreduce, allgather, reducescatter, and the phases of hierarchical).
#ifndef HOCKNEY_COLLECTIVE_ALGORITHM_BLOCKS_H
#define HOCKNEY_COLLECTIVE_ALGORITHM_BLOCKS_H

#include "collective-schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace collective
{

/// An op index not set yet.
const uint32_t kNoOp = UINT32_MAX;

/// 0, 1, ..., n-1.
std::vector<uint32_t> AllRanks(uint32_t n);

/// A reduction over every rank: each contributes to every chunk and needs all.
void EveryRankContributesAndNeedsAll(CollectiveSchedule& sched, uint32_t ranks);

/// groups[s][g] = {chunk} with chunks cut from \p bytes in n x slices pieces.
std::vector<std::vector<std::vector<uint32_t>>> MakeGroups(CollectiveSchedule& sched,
                                                           uint64_t bytes,
                                                           uint32_t n,
                                                           uint32_t slices);

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
/// inDeps[p][s] (the data an earlier phase left there). \p proxies, when
/// not empty, gives per position the PXN proxy of its send to the next
/// position (ScheduleOp::proxy; kNoProxy for a direct send).
RingPass AddRingPass(CollectiveSchedule& sched,
                     const std::vector<uint32_t>& ranks,
                     const std::vector<std::vector<std::vector<uint32_t>>>& groups,
                     bool reduce,
                     uint32_t firstStep,
                     const std::vector<std::vector<std::vector<uint32_t>>>& inDeps,
                     const std::vector<uint32_t>& proxies = {});

/// The chunks (i -> j, slice s) of an all-to-all, each rank's buffer of
/// \p bytes cut in n x slices blocks (c[i][i] unused): rank i contributes
/// c[i][j][s], rank j needs it.
std::vector<std::vector<std::vector<uint32_t>>> AllToAllChunks(CollectiveSchedule& sched,
                                                               uint32_t n,
                                                               uint64_t bytes,
                                                               uint32_t slices);

/// An allreduce over two trees given by their parents over the ranks (-1 at
/// each tree's root): the buffer in two halves, each reduced up one tree and
/// broadcast back down it, \p slices pipelined (the double binary tree of
/// collective-algorithm-tree.cc and the node tree of
/// collective-algorithm-node-tree.cc).
CollectiveSchedule TwoTreeAllReduce(const std::string& name,
                                    const std::vector<std::vector<int>>& parents,
                                    uint64_t bytes,
                                    uint32_t slices);

} // namespace collective
} // namespace ns3

#endif
