// SPDX-License-Identifier: GPL-2.0-only
//
// A collective as a schedule of messages: per rank, the
// sends it makes, each with the messages it must have received (or finished
// sending) first, its byte count, and the data chunks it carries. This is the
// shape of NCCL's ring steps or of an MSCCL / Chakra graph, and the only thing
// the executor runs: a schedule knows no transport, a transport no schedule.
//
// Data model for checking. The buffer is cut into chunks. A rank starts with
// its own contribution to some chunks (every chunk for a reduction, its own
// block for a gather or an all-to-all, all of them at a broadcast root) and must
// end holding some chunks complete, i.e. reduced over every contributor exactly
// once. A message either reduces its chunks into the receiver's copy (the
// contributions add; one counted twice is an error) or replaces the receiver's
// copy. What a message carries is what its sender is guaranteed to hold when it
// starts: its initial data plus the messages it received that the send depends
// on (directly, or through an earlier send of the same rank it depends on). A
// schedule that works only because of a lucky order of arrivals is rejected.
#ifndef HOCKNEY_COLLECTIVE_SCHEDULE_H
#define HOCKNEY_COLLECTIVE_SCHEDULE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// One message of a schedule.
struct ScheduleOp
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint64_t bytes = 0;
    /// Ops (indices into the schedule) that must be delivered before this one
    /// starts. Depending on a message this rank received gives it that data; on
    /// a message this rank sent, what the rank held then (and orders the two).
    std::vector<uint32_t> deps;
    /// Chunks carried; bytes must equal the sum of their sizes.
    std::vector<uint32_t> chunks;
    /// true: the receiver adds the incoming contributions to its copy (a
    /// reduction); false: the incoming copy replaces the receiver's.
    bool reduce = false;
    /// Algorithm step (ring step, tree level, ...) for per-step times.
    uint32_t step = 0;
    /// kNoSwitchGroup, or the in-switch reduction this op belongs to (NVLS):
    /// src sends its copy of the chunks up to the switch both ranks hang
    /// on, the switch adds the copies of every op of the group, and dst
    /// receives the sum (replacing its copy). Delivered when dst holds the
    /// sum, which needs every op of the group started: an op that depends
    /// on one op of a group depends on all of them. Ops of a group carry
    /// the same chunks and reduce; their contributions must be disjoint,
    /// except in a multicast: a group of one source, whose copy is sent
    /// once and reaches each op's dst. Sources and receivers may differ: a
    /// reduce-scatter into one head is every rank's op to the head, and an
    /// op of a group may go from a rank to itself (its copy up its link,
    /// the sum down it; NVLSTree, collective-algorithm-nvls-tree.cc).
    uint32_t group = kNoSwitchGroup;
    static constexpr uint32_t kNoSwitchGroup = 0xFFFFFFFFu;
    /// PXN (NCCL's "PCI x NVLink" proxy): a rank of the sender's server
    /// through which the message goes, src -> proxy over NVLink and proxy ->
    /// dst over the proxy's own NIC, so that it leaves the server on the
    /// proxy's rail. kNoProxy: straight from src to dst. The data model is
    /// src -> dst (the proxy only stages the bytes, as NCCL's proxy buffer
    /// does); the executor sends both legs (collective-executor.h).
    uint32_t proxy = kNoProxy;
    static constexpr uint32_t kNoProxy = UINT32_MAX;

    /// The messages on the wire: {src, dst}, or {src, proxy} and {proxy, dst}.
    std::vector<std::pair<uint32_t, uint32_t>> Legs() const;
};

/// What a schedule check found: ok, or the first problem, in one line.
struct ScheduleCheck
{
    bool ok = true;
    std::string error;
};

class CollectiveSchedule
{
  public:
    CollectiveSchedule() = default;
    /// \param name what it is ("ring allreduce"), for messages
    CollectiveSchedule(const std::string& name, uint32_t ranks);

    const std::string& GetName() const
    {
        return m_name;
    }

    uint32_t GetRanks() const
    {
        return m_ranks;
    }

    /// Adds a chunk of \p bytes; returns its id.
    uint32_t AddChunk(uint64_t bytes);
    /// Rank \p rank starts with its contribution to \p chunk.
    void AddContribution(uint32_t rank, uint32_t chunk);
    /// Rank \p rank must end with \p chunk complete.
    void AddNeed(uint32_t rank, uint32_t chunk);
    /// Adds an op; returns its index. Its bytes are the sum of its chunks'
    /// sizes; \p proxy: through a PXN proxy (ScheduleOp::proxy).
    uint32_t AddOp(uint32_t src,
                   uint32_t dst,
                   const std::vector<uint32_t>& chunks,
                   bool reduce,
                   const std::vector<uint32_t>& deps,
                   uint32_t step,
                   uint32_t proxy = ScheduleOp::kNoProxy);

    /// Adds an op of in-switch reduction \p group (ScheduleOp::group);
    /// returns its index.
    uint32_t AddSwitchOp(uint32_t src,
                         uint32_t dst,
                         const std::vector<uint32_t>& chunks,
                         uint32_t group,
                         const std::vector<uint32_t>& deps,
                         uint32_t step);
    /// Number of in-switch groups (1 + the largest group id; 0 if none).
    uint32_t GetSwitchGroupCount() const;

    const std::vector<ScheduleOp>& GetOps() const
    {
        return m_ops;
    }

    /// Mutable access, for tests that break a schedule on purpose.
    std::vector<ScheduleOp>& MutableOps()
    {
        return m_ops;
    }

    uint32_t GetChunkCount() const
    {
        return static_cast<uint32_t>(m_chunkBytes.size());
    }

    uint64_t GetChunkBytes(uint32_t chunk) const
    {
        return m_chunkBytes.at(chunk);
    }

    /// Number of distinct steps (1 + the largest op step; 0 when empty).
    uint32_t GetStepCount() const;
    /// Sum of the bytes of all ops.
    uint64_t GetTotalBytes() const;
    /// Largest number of messages one rank receives from distinct senders
    /// within one step (fan-in) and sends to distinct receivers (fan-out).
    uint32_t GetMaxFanIn() const;
    uint32_t GetMaxFanOut() const;

    /// Appends \p other's chunks, contributions, needs and ops (indices shifted);
    /// used to run independent channels side by side. Ranks must match.
    void Append(const CollectiveSchedule& other);

    /// Checks the schedule: indices in range, bytes equal to the chunks carried,
    /// no op waiting on itself, no dependency cycle, every message carrying data
    /// its sender is guaranteed to hold, no contribution reduced twice, and at
    /// the end every rank holding every chunk it needs, complete.
    ScheduleCheck Check() const;
    /// Check() that throws std::logic_error with the problem.
    void Validate() const;

    /// A topological order of the ops (ties by index); empty if there is a cycle.
    std::vector<uint32_t> TopologicalOrder() const;

  private:
    /// The parts of Check(), in its order; each returns the first problem, "" if none.
    /// Chunk, rank, byte and dependency indices.
    std::string CheckIndices() const;
    /// Dependency order, what every message carries, and what every rank ends with.
    std::string CheckDataFlow() const;

    std::string m_name;
    uint32_t m_ranks = 0;
    std::vector<uint64_t> m_chunkBytes;
    std::vector<std::vector<uint32_t>> m_contributions; // per rank, chunks
    std::vector<std::vector<uint32_t>> m_needs;         // per rank, chunks
    std::vector<ScheduleOp> m_ops;
};

} // namespace ns3

#endif
