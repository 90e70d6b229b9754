// SPDX-License-Identifier: GPL-2.0-only
//
// Reader of measurement tables as CSV: '#' comment lines, then a header, then
// rows (RFC 4180 quoting). Recognised columns (exact names, the unit is the
// suffix):
//   size:  bytes | size_bytes | size (a bare "size" may carry units: 4KB, 1MiB)
//   time:  time_s | time_ms | time_us | time_ns | time (each value with its unit:
//          5us) ; nccl-tests tables: oop_time_us and ip_time_us (one sample
//          each) ; perftest latency: t_typical_us (else t_avg_us) ; perftest
//          bandwidth: bw_avg_Gbps (bits) or bw_avg_GBps (bytes), read as the
//          inverse message rate (THROUGHPUT)
//   optional: test | collective, ranks, run (a series key), [oop_|ip_]algbw_GBps,
//          [oop_|ip_]busbw_GBps, oop_wrong, ip_wrong
// The tables of validation/data (nccl_*.csv, perftest_*.csv) have these
// columns. A value without a unit under a header that names none, or with a
// unit under one that does, is a mixed-units InputError naming file:line.
#ifndef HOCKNEY_MEASUREMENT_CSV_H
#define HOCKNEY_MEASUREMENT_CSV_H

#include "measurement-sample.h"

#include <string>

namespace ns3
{

/// Parses \p text; every (test, run) pair becomes one MeasurementSource.
MeasurementSet ParseMeasurementCsv(const std::string& text, const std::string& file);

} // namespace ns3

#endif
