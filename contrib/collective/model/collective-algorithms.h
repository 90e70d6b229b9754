// SPDX-License-Identifier: GPL-2.0-only
//
// Collectives, their algorithms and the schedules they build: every builder
// produces a CollectiveSchedule the executor runs and Check() verifies.
//
// Sizes follow nccl-tests' "size" column (the bytes counted in algbw):
// allreduce and broadcast the buffer; allgather the total output (each rank
// contributes bytes/N); reducescatter the total input (each rank keeps bytes/N);
// alltoall each rank's send buffer (bytes/N to every peer); incast, like
// nccl-tests' gather, the total gathered at the root (bytes/N from each of the
// N-1 senders; "8-to-1" is ranks=9).
//
// Each algorithm is an entry of the registry (collective-algorithm-registry.h,
// which says how to add one); the functions below look it up, and a name a
// collective does not have is an InputError listing the ones it has.
//
// Pipelining, as NCCL does it: the buffer is split over `channels` independent
// copies of the algorithm (NCCL's channels), and each channel's data into
// `slices` pieces that follow each other through the algorithm. A slice waits
// for the same slice of the previous step (its data) and for the previous
// slice on the same connection to be delivered (one slot per connection,
// stop-and-wait), so a pipeline of K steps and S slices takes K + S - 1 slice
// times, the classic pipelined formula. Channels do not wait for each other.
#ifndef HOCKNEY_COLLECTIVE_ALGORITHMS_H
#define HOCKNEY_COLLECTIVE_ALGORITHMS_H

#include "collective-schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

enum class CollectiveKind
{
    ALL_REDUCE,
    ALL_GATHER,
    REDUCE_SCATTER,
    BROADCAST,
    ALL_TO_ALL,
    INCAST
};

/// "allreduce", "allgather", "reducescatter", "broadcast", "alltoall", "incast".
std::string ToString(CollectiveKind kind);
/// Parses the names above (also "all_reduce", "AllReduce", ...); throws
/// InputError naming \p field otherwise.
CollectiveKind ParseCollectiveKind(const std::string& text, const std::string& field);
/// The algorithms registered for a collective, the first being its default:
/// allreduce ring|tree|rhd|hierarchical|node-tree; allgather ring;
/// reducescatter ring; broadcast ring|binomial; alltoall
/// pairwise|all-at-once|pxn; incast direct.
std::vector<std::string> AlgorithmsOf(CollectiveKind kind);
/// The canonical name of \p algorithm for \p kind ("ring" for an alltoall is
/// the pairwise exchange, "double-binary-tree" is "tree", "halving-doubling"
/// is "rhd"); throws InputError naming \p field and listing AlgorithmsOf(kind)
/// if \p kind has no such algorithm.
std::string CanonicalAlgorithm(CollectiveKind kind, const std::string& algorithm, const std::string& field);

/// Where the ranks sit, as the topology says (EndpointLayout of the fabric
/// module, kept as plain data): per rank its server and its rail, rails
/// numbered 0..R-1, every server holding each rail once. Empty: unknown.
struct RankPlacement
{
    std::vector<uint32_t> server;
    std::vector<uint32_t> rail;
    uint32_t servers = 0;
    uint32_t rails = 0;

    bool Empty() const
    {
        return server.empty();
    }

    /// The rank of \p server on \p rail.
    uint32_t RankOn(uint32_t server, uint32_t rail) const;
};
/// NCCL's chunkSize of a ring AllReduce with the Simple protocol: a step of
/// NCCL_BUFFSIZE / NCCL_STEPS = 4 MiB / 8 = 512 KiB (DEFAULT_BUFFSIZE and
/// NCCL_STEPS in NVIDIA/nccl src/include), times ALLREDUCE_CHUNKSTEPS =
/// NCCL_STEPS / 2 = 4 steps (src/include/collectives.h): 2 MiB. The default of
/// compare's --chunk-bytes (CollectiveSpec::chunkBytes).
inline constexpr uint64_t kNcclChunkBytes = 2097152;
/// The most chunks a hierarchical pipeline is cut into: keeps the executed
/// schedule affordable at GB sizes (each chunk adds every message of the
/// three phases). With the three stages of the pipeline the fill costs at
/// most 2 / chunks of the time beyond the slowest stage, so the cap moves a
/// GB AllReduce by at most about 3 % against NCCL's uncapped chunking.
inline constexpr uint32_t kMaxPipelineChunks = 64;

/// One point to build: which collective, how, on how many ranks, how many bytes.
struct CollectiveSpec
{
    CollectiveKind collective = CollectiveKind::ALL_REDUCE;
    std::string algorithm = "ring";
    uint32_t ranks = 2;
    uint64_t bytes = 0;
    uint32_t channels = 1;
    uint32_t slices = 1;
    uint32_t root = 0;        ///< broadcast and incast
    uint32_t gpusPerNode = 0; ///< hierarchical: ranks = nodes x gpusPerNode (0: one node)
    /// A rail-optimized cluster's servers and rails (from the topology): the
    /// ring lays each channel on one rail (collective-ring-layout.h), the
    /// node tree and PXN place ranks by it. Empty: ranks in order.
    RankPlacement placement;
    /// The channel being built (BuildSchedule sets it for each channel's
    /// builder call): which rail a rail layout puts it on.
    uint32_t channel = 0;
    /// hierarchical: the pipeline chunk, as the bytes one rank sends per
    /// intra-node step of one chunk (NCCL's chunkSize); a channel of m bytes
    /// is cut into ceil(m / (gpusPerNode x chunkBytes)) chunks (at most
    /// kMaxPipelineChunks, at least `slices`) that follow each other through
    /// the three phases. 0: `slices` chunks, whatever the size (slices = 1:
    /// the phases in sequence, no overlap). nvls-tree: set (any value),
    /// its channel is cut into NCCL's own 128 KiB NVLS chunks (at most
    /// kMaxPipelineChunks, at least `slices`); 0: `slices` chunks.
    uint64_t chunkBytes = 0;

    /// Throws InputError naming the field ("--ranks", "--channels", ...) if the
    /// point cannot be built: fewer than 2 ranks, zero channels or slices, a
    /// root outside the ranks, ranks not a multiple of gpusPerNode, an unknown
    /// algorithm, or fewer bytes than messages to cut them into.
    void Validate() const;
    /// Nodes of a hierarchical point (ranks / gpusPerNode), 1 otherwise.
    uint32_t Nodes() const;
    /// GPUs per node of a hierarchical point (ranks when gpusPerNode is 0).
    uint32_t LocalRanks() const;
};

/// Smallest spec.bytes for which no message of \p spec is empty (InputError
/// naming --algorithm if the collective has no such algorithm).
uint64_t MinimumBytes(const CollectiveSpec& spec);

/// Builds the schedule of \p spec (after spec.Validate()).
CollectiveSchedule BuildSchedule(const CollectiveSpec& spec);

// Arithmetic the algorithm families share, in the module's namespace so that
// generic names (SplitBytes, CeilLog2) do not sit in ns3 itself.
namespace collective
{

/// The two trees of NCCL's double binary tree (collective-algorithm-tree.cc) on \p ranks ranks: parent of each
/// rank per tree (-1 at the root). Tree 0 is the in-order binary tree in which
/// a rank's level is its lowest set bit (odd ranks are leaves, rank 0 the root
/// with one child); tree 1 is tree 0 mirrored (even N) or shifted by one (odd
/// N), so that most ranks that are leaves in one tree are interior in the other.
std::vector<std::vector<int>> DoubleBinaryTreeParents(uint32_t ranks);
/// Depth (edges on the longest root-to-leaf path) of a tree given by parents.
uint32_t TreeDepth(const std::vector<int>& parents);
/// NVLSTree's fan-in on \p servers servers (collective-algorithm-nvls-tree.cc):
/// the pieces the busiest server's NIC carries each way per chunk of one
/// channel, its chunks alternating between the two trees of
/// DoubleBinaryTreeParents(servers): the mean over the trees of its children
/// plus its parent. 1 on 2 servers (a chain), 2 on 4 and 8 (interior in one
/// tree with two children and a parent, a leaf in the other).
double NvlsTreeNicLoad(uint32_t servers);

/// \p total bytes cut into \p parts sizes that differ by at most one byte
/// (the first total % parts get the extra byte).
std::vector<uint64_t> SplitBytes(uint64_t total, uint32_t parts);

/// The largest power of two <= n (n >= 1): the core of halving-doubling on n ranks.
uint32_t LargestPowerOfTwoAtMost(uint32_t n);
/// ceil(log2(n)) (n >= 1): rounds of a binomial tree or of halving-doubling.
uint32_t CeilLog2(uint32_t n);

} // namespace collective
} // namespace ns3

#endif
