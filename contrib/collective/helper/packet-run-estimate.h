// SPDX-License-Identifier: GPL-2.0-only
//
// What a packet-level run will cost, before it runs: events, memory and wall
// time estimated from the messages (a collective's schedule or a workload of
// flows) and the topology's routes, with per-hop costs measured on this
// project's machine (constants and their source in packet-run-estimate.cc;
// contrib/collective/doc/collective.md, "Resources: estimate, refusal,
// interrupts"). compare, validate and sweep points print one line per packet
// run on stderr and refuse (exit 2) a run whose memory estimate exceeds the
// memory available, unless forced (--force-memory, scenario
// fabric.force_memory).
#ifndef HOCKNEY_PACKET_RUN_ESTIMATE_H
#define HOCKNEY_PACKET_RUN_ESTIMATE_H

#include "collective-comparison.h"
#include "topology-graph.h"

#include <cstdint>
#include <string>
#include <functional>
#include <vector>

namespace ns3
{

/// One message of a packet run: a schedule op or a flow.
struct EstimateMessage
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint64_t bytes = 0;
};

/// The estimate of one packet run. Counts are doubles: a run too large to
/// start still has an estimate.
struct PacketRunEstimate
{
    uint64_t messages = 0;   ///< schedule ops or flows
    double nicMessages = 0;  ///< NIC work requests: data, RTS, CTS and pipeline chunks
    double dataHops = 0;     ///< link crossings of payload packets (the row's data_hops)
    double controlHops = 0;  ///< ACKs and credit updates (the row's control_hops)
    double events = 0;       ///< ns-3 events (the row's events)
    double memoryBytes = 0;  ///< peak resident memory of the process (the row's peak_rss_bytes)
    double wallSeconds = 0;  ///< wall time of the packet run (the row's wall_s)

    /// "packet run estimate: 3.2e+08 events, 1.1 GB, ~6 min (LABEL)".
    std::string Line(const std::string& label) const;
};

/// Estimates the packet run of \p messages on \p graph (the packet
/// fabric's topology, fabric knobs applied) with the fabric knobs \p f in
/// force (transfer units, NIC preset, congestion control: HPCC ACKs every packet).
PacketRunEstimate EstimatePacketRun(const TopologyGraph& graph,
                                    const ComparisonFabric& f,
                                    const std::vector<EstimateMessage>& messages);

/// The messages of a schedule, each of the bytes it puts on the wire
/// (\p wireBytes: NCCL's protocol framing; absent, the op's bytes).
std::vector<EstimateMessage> ScheduleMessages(const CollectiveSchedule& schedule,
                                              const std::function<uint64_t(uint64_t)>& wireBytes = {});

/// Memory a run may use, in bytes: the environment variable
/// HOCKNEY_MEMORY_AVAILABLE (a size: "8GB", "512MiB") when set, else
/// MemAvailable of /proc/meminfo; 0 when neither is readable (no check).
/// \throws InputError naming HOCKNEY_MEMORY_AVAILABLE when it is not a size.
uint64_t AvailableMemoryBytes();

/// Throws InputError naming \p forceField when \p e's memory exceeds what is
/// available (AvailableMemoryBytes) and \p force is false: the run is
/// refused before it starts (exit 2).
void CheckPacketRunMemory(const PacketRunEstimate& e,
                          const std::string& label,
                          bool force,
                          const std::string& forceField);

} // namespace ns3

#endif
