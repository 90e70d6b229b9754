// SPDX-License-Identifier: GPL-2.0-only
//
// Reader of nccl-tests text output (all_reduce_perf, all_gather_perf,
// reduce_scatter_perf, alltoall_perf, sendrecv_perf, broadcast_perf,
// reduce_perf) as users paste it: the '#' header (version, "Collective test
// starting", "nThread .. nGpus ..", one "Rank .. Pid .. on HOST" line per rank),
// the column heading (size count type redop [root] time algbw busbw #wrong, once
// per out-of-place / in-place group, units line "(B) .. (us) (GB/s)"), the table
// rows, and several tests one after the other in one file. A bare table (rows
// only, as copied into an issue) is read with the modern 13-column layout (12
// without root); its collective and ranks come from the caller or from
// busbw / algbw.
//
// Tolerated and reported in the source's notes: truncated rows (a field is kept
// only when another field follows it, since the last one may be cut), N/A
// fields, non-zero #wrong (kept, marked; calibration excludes them), NCCL INFO /
// WARN lines between the rows. Errors (InputError "FILE:LINE: expected ..."):
// a row whose size or time is not a number, different time units in one heading.
#ifndef HOCKNEY_NCCL_TESTS_LOG_H
#define HOCKNEY_NCCL_TESTS_LOG_H

#include "measurement-sample.h"

#include <string>

namespace ns3
{

/// True when \p text has an nccl-tests header or heading, or its first data
/// line looks like a bare nccl-tests row (size count type redop ...).
bool LooksLikeNcclTestsLog(const std::string& text);

/// Parses every test block of \p text; \p file names the source in samples and
/// errors. Samples carry the block's normalized collective and ranks (0 when
/// neither rank lines nor busbw / algbw tell).
MeasurementSet ParseNcclTestsLog(const std::string& text, const std::string& file);

} // namespace ns3

#endif
