// SPDX-License-Identifier: GPL-2.0-only
//
// Time series of an incast packet run: the queue of the switch port towards
// the receiver, the ports paused by PFC and the pause frames sent, and each
// sender's rate (DCQCN's RC) or window (Swift). They show the mechanism behind the incast error (a
// queue that fills, pauses that spread, rates that are cut), which the
// alpha-beta algebra cannot express.
#ifndef HOCKNEY_ACCURACY_TRACES_H
#define HOCKNEY_ACCURACY_TRACES_H

#include "collective-comparison.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// One time series sample of an incast run.
struct IncastSample
{
    double timeS;
    uint64_t queueBytes;   ///< the switch port towards the receiver
    uint32_t pausedPorts;  ///< ports with a paused class at that moment
    uint64_t pausesSent;   ///< PFC pause frames sent so far (all ports)
    std::vector<double> senderRateBps; ///< DCQCN RC of each sender's QP (line rate without CC)
    /// The congestion control's window of each sender's QP, bytes (0: none,
    /// as without CC and with DCQCN; Swift's cwnd x packet bytes).
    std::vector<uint64_t> senderWindowBytes;
};

/// True if some sample has a sender with a window (a window-based control).
bool HasSenderWindows(const std::vector<IncastSample>& samples);

/// The time series of one incast packet run (\p config's last size, incast
/// collective, packet fabric as RunComparison builds it), sampled every \p step.
std::vector<IncastSample> RecordIncastTrace(const ComparisonConfig& config, Time step);

/// Writes \p samples as CSV: time_s, queue_bytes, paused_ports,
/// pfc_pauses_sent, then senderI_rate_bps per sender, then, only if some
/// sender has a window, senderI_window_bytes per sender.
void WriteIncastTraceCsv(const std::string& path, const std::vector<IncastSample>& samples);

} // namespace ns3

#endif
