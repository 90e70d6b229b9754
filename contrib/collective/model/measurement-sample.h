// SPDX-License-Identifier: GPL-2.0-only
//
// One measured point as calibration sees it, whatever log it came from
// (nccl-tests text, perftest text, a CSV of size and time), and the facts about
// each log that decide what a fit may conclude from it (process layout, ranks,
// truncation, failed validation).
//
// The per-step reduction (CollectiveRingSteps) is the bridge to compare's closed
// forms: it takes the critical path of the collective's default algorithm from
// CriticalPath() (collective-closed-form.h, one slice, one channel), so that a
// fitted alpha and beta mean exactly what they mean there. A collective of N
// ranks on S bytes (nccl-tests' "size" column) is `steps` point-to-point
// messages of m bytes each:
//   allreduce (ring)          2(N-1) steps of S/N
//   allgather, reducescatter  N-1 steps of S/N
//   alltoall (pairwise)       N-1 steps of S/N
//   broadcast (ring chain)    N-1 steps of S (unsliced; NCCL pipelines it)
//   reduce                    as broadcast (the same chain, reversed)
//   sendrecv, p2p             1 step of S
// busbwFactor is nccl-tests' busbw / algbw (BusBwFactor, which compare's
// BusBandwidthFactor uses too).
#ifndef HOCKNEY_MEASUREMENT_SAMPLE_H
#define HOCKNEY_MEASUREMENT_SAMPLE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// What the time of a sample is: the completion time of one operation
/// (nccl-tests, ib_*_lat), or the inverse message rate of a stream of them
/// (ib_*_bw: bytes / average bandwidth, LogGP's per-message gap).
enum class MeasurementKind
{
    LATENCY,
    THROUGHPUT
};

struct MeasurementSample
{
    std::string collective;  ///< allreduce, allgather, ..., sendrecv, p2p
    uint32_t ranks = 0;      ///< 0: unknown
    uint64_t bytes = 0;      ///< the log's size column (nccl-tests: bytes counted in algbw)
    double timeS = 0;        ///< seconds
    double algbwBps = -1;    ///< bytes/s, -1 when the log has none (or N/A)
    double busbwBps = -1;    ///< bytes/s, -1 when absent
    bool inPlace = false;    ///< nccl-tests in-place column
    int64_t wrong = -1;      ///< nccl-tests #wrong; -1 when N/A or absent
    MeasurementKind kind = MeasurementKind::LATENCY;
    std::string series;      ///< a run key inside one source (CSV "run" column), else ""
    std::string file;        ///< the file (or name) it was read from
    uint32_t line = 0;       ///< 1-based line in that file
    size_t source = 0;       ///< index of its MeasurementSource in the set

    std::string Where() const; ///< "file:line"
};

/// Facts about one test block of a log (one nccl-tests run, one perftest run,
/// one CSV), kept so that calibration can say what the log cannot give.
struct MeasurementSource
{
    std::string file;
    uint32_t firstLine = 0;
    std::string test;            ///< all_reduce_perf, ib_write_bw, csv, ...
    std::string collective;      ///< normalized, as in the samples
    uint32_t ranks = 0;          ///< rank lines counted (0: no header)
    uint32_t processes = 0;      ///< distinct Pids among the rank lines
    uint32_t hosts = 0;          ///< distinct host names among the rank lines
    uint32_t gpusPerThread = 0;  ///< nccl-tests -g (nGpus), 0 unknown
    uint32_t threads = 0;        ///< nccl-tests -t (nThread), 0 unknown
    bool headerless = false;     ///< a bare table: no header, no rank lines
    bool ranksInferred = false;  ///< ranks derived from busbw/algbw
    bool collectiveInferred = false;
    std::vector<std::string> notes; ///< "file:line: what happened" (truncation, #wrong, ...)

    /// One process drives several GPUs (nccl-tests -g > 1 or -t > 1, or rank
    /// lines sharing a Pid): its launch overhead is serialized on one host
    /// thread and inflates the small-message time, hence alpha.
    bool SingleProcess() const;
};

struct MeasurementSet
{
    std::vector<MeasurementSample> samples;
    std::vector<MeasurementSource> sources;

    void Append(const MeasurementSet& other);
};

/// Per-step decomposition of a collective on N ranks (see the file comment).
struct RingSteps
{
    double steps = 1;        ///< point-to-point steps on the critical path
    double bytesPerStep = 1; ///< m / S
    double busbwFactor = 1;  ///< nccl-tests' busbw / algbw

    /// bytes of one step's message for a buffer of \p bytes
    double StepBytes(double bytes) const
    {
        return bytesPerStep * bytes;
    }
};

/// Throws InputError(field, ...) for an unknown collective or a rank count the
/// collective needs but does not have (N < 2 for the collectives).
RingSteps CollectiveRingSteps(const std::string& collective, uint32_t ranks, const std::string& field);

/// "all_reduce_perf", "all_reduce", "AllReduce", "allreduce" -> "allreduce";
/// "sendrecv_perf" -> "sendrecv", "broadcast_perf" -> "broadcast", ...
/// Returns "" when the name is none of the known collectives.
std::string NormalizeCollectiveName(const std::string& name);

/// The nccl-tests busbw factor of \p collective on \p ranks ranks: allreduce
/// 2(N-1)/N; allgather, reducescatter, alltoall (N-1)/N; broadcast, reduce,
/// sendrecv, p2p 1. (compare's BusBandwidthFactor uses it too.)
double BusBwFactor(const std::string& collective, uint32_t ranks);

/// Ranks from a measured busbw / algbw (nccl-tests prints both, rounded to
/// \p halfUlpBps, e.g. 0.005 GB/s): the ratio is 2(N-1)/N for allreduce, (N-1)/N
/// for allgather, reducescatter, alltoall. Returns N when exactly one integer
/// N >= 2 is consistent with both printed values, else 0 (factor-1 collectives,
/// too few digits).
uint32_t InferRanksFromBandwidths(const std::string& collective,
                                  double algbwBps,
                                  double busbwBps,
                                  double halfUlpBps);

/// Completes one source after reading: normalizes src.collective (from
/// src.test), infers allreduce from busbw > algbw when the log names no test,
/// infers ranks from busbw / algbw when there are no rank lines (with a note;
/// a note too when both disagree), and copies collective and ranks into the
/// samples that carry none.
void ResolveCollectiveAndRanks(MeasurementSource& src, std::vector<MeasurementSample>& samples);

} // namespace ns3

#endif
