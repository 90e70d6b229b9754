// SPDX-License-Identifier: GPL-2.0-only
//
// Reader of perftest output (linux-rdma/perftest: ib_write_bw, ib_send_bw,
// ib_read_bw, ib_write_lat, ib_send_lat, ib_read_lat; also -a sweeps): the
// dashed banner with the test title ("RDMA_Write BW Test", "Send Latency
// Test"), the "#bytes #iterations ..." heading and one row per size.
//
// Latency tests print one-way latency (RTT/2 for send/write; read is a round
// trip by nature): the sample time is t_typical (the median; t_avg when there is
// no t_typical column), kind LATENCY. Bandwidth tests stream messages: the
// sample time is bytes / BW average, the inverse message rate, kind THROUGHPUT
// (LogGP's per-message gap max(g, n G), not a latency). perftest's MB/sec is
// 2^20 bytes per second and Gb/sec (--report_gbits) 10^9 bits (its report's
// format_factor: 0x100000 or 125000000 bytes per unit, perftest_parameters.c).
#ifndef HOCKNEY_PERFTEST_LOG_H
#define HOCKNEY_PERFTEST_LOG_H

#include "measurement-sample.h"

#include <string>

namespace ns3
{

/// True when \p text has a perftest "#bytes" heading.
bool LooksLikePerftestLog(const std::string& text);

/// Parses every perftest run in \p text (collective "p2p", ranks 2).
/// Throws InputError "FILE:LINE: expected ..." on a row it cannot read.
MeasurementSet ParsePerftestLog(const std::string& text, const std::string& file);

} // namespace ns3

#endif
