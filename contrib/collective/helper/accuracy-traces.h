// SPDX-License-Identifier: GPL-2.0-only
//
// Time series of a packet run: every port's queue depth and pause state, the
// PFC pause frames sent, every QP's rate (DCQCN's RC, the line rate without
// congestion control) and window (Swift's), sampled at a fixed interval while the collective
// runs; and, with their timestamps, every ECN mark and every CNP. One
// recorder (PacketTraceRecorder) serves compare --traces on any scenario and
// the incast experiment of validate, whose figures show the mechanism behind
// the incast error (a queue that fills, pauses that spread, rates that are
// cut), which the alpha-beta algebra cannot express.
#ifndef HOCKNEY_ACCURACY_TRACES_H
#define HOCKNEY_ACCURACY_TRACES_H

#include "collective-comparison.h"
#include "collective-executor.h"
#include "packet-transport.h"
#include "topology-graph.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// Samples and events of one packet run (see the file comment).
class PacketTraceRecorder
{
  public:
    /// One moment of the fabric.
    struct Sample
    {
        double timeS;
        std::vector<uint64_t> queueBytes; ///< per port (PortNames order)
        uint32_t pausedPorts;             ///< ports with a paused class
        uint64_t pausesSent;              ///< PFC pause frames sent so far, all ports
        /// Every QP that exists then: its rate limiter and its congestion
        /// control's window (0: none, as without CC and with DCQCN).
        struct Qp
        {
            uint32_t rank;
            uint32_t qpn;
            double rateBps;
            uint64_t windowBytes;
        };
        std::vector<Qp> qps;
    };

    /// An ECN mark (at a port, with its class queue) or a CNP (sent by a rank's NIC for a QP).
    struct Event
    {
        double timeS;
        std::string kind;  ///< "ecn-mark" or "cnp"
        std::string where; ///< the port, or "rankR"
        uint32_t qpn;      ///< the CNP's QP (0 for a mark)
        uint64_t queueBytes; ///< the marking class's queue (0 for a CNP)
    };

    /// Attaches to the ports and NICs of \p t, built from \p graph's description.
    PacketTraceRecorder(const TopologyGraph& graph, Ptr<PacketTransport> t);

    /// Samples now and every \p interval until \p exec completes.
    void Start(Ptr<CollectiveExecutor> exec, Time interval);

    const std::vector<Sample>& Samples() const { return m_samples; }
    const std::vector<Event>& Events() const { return m_events; }
    /// "LINK:FROM>TO" of each port (both directions of every link).
    const std::vector<std::string>& PortNames() const { return m_names; }
    /// Index of the port that sends over \p link away from node \p from.
    static uint32_t PortIndex(const TopologyGraph& graph, uint32_t link, uint32_t from);

    /// Writes DIR/PREFIX-queues.csv (time_s, a column per port, bytes),
    /// PREFIX-pfc.csv (time_s, paused_ports, pfc_pauses_sent), PREFIX-rates.csv
    /// (time_s, rank, qpn, rate_bps, window_bytes) and PREFIX-events.csv (time_s, event,
    /// where, qpn, queue_bytes), each with the provenance comment lines.
    void WriteCsv(const std::string& dir, const std::string& prefix) const;

  private:
    void TakeSample();

    Ptr<PacketTransport> m_transport;
    std::vector<Ptr<FabricNetDevice>> m_ports;
    std::vector<std::string> m_names;
    Ptr<CollectiveExecutor> m_exec;
    Time m_interval;
    std::vector<Sample> m_samples;
    std::vector<Event> m_events;
};

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
