// SPDX-License-Identifier: GPL-2.0-only
//
// The packet-level fabric as compare builds it, shared by the packet backend
// (comparison-backend-packet.cc) and the calibration sweep of the
// "calibrated" parameters: one place for the knobs, the congestion control
// and the endpoint's software cost, so both runs are of the same fabric.
#ifndef HOCKNEY_COMPARISON_PACKET_FABRIC_H
#define HOCKNEY_COMPARISON_PACKET_FABRIC_H

#include "collective-comparison.h"
#include "comparison-congestion-control.h"
#include "packet-transport.h"
#include "rdma-congestion-control.h"
#include "topology-parameters.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{

/// RdmaEndpoint::EagerLimit and RendezvousLimit of NCCL's endpoints
/// (ComparisonFabric::ncclEndpoints): every message goes eager, into a
/// pre-registered buffer, without a rendezvous. A user's
/// --ns3::RdmaEndpoint:: value of either still wins (ApplyUserAttributes).
inline constexpr uint64_t kNcclEagerLimit = UINT64_MAX / 2;

/// Applies the transfer units and, on the ideal fabric, the zero endpoint and
/// NIC costs to a transport about to be built; NCCL's endpoints' costs and
/// limits (kNcclEagerLimit).
void ConfigurePacket(Ptr<PacketTransport> t, const ComparisonFabric& f);

/// The fabric of one packet run: the random seed set (\p seed, 0 read as
/// 1), a transport configured and built from \p desc with the congestion
/// control of \p f, the fabric's streams assigned from \p seed and its
/// watchdog installed (returned in \p watchdog when given). A bad
/// description is an InputError naming --topology.
Ptr<PacketTransport> BuildPacketRun(const TopologyDescription& desc,
                                    const ComparisonFabric& f,
                                    uint32_t seed,
                                    Ptr<FabricWatchdog>* watchdog = nullptr);

/// The wall-clock guard of a packet run (fabric.wall_limit) and its progress
/// lines: from Start(), every 5 us of simulated time until \p complete says
/// the run is done, it stops the simulator once the wall-clock time since
/// \p start reaches \p limit ("reached", not "passed": a limit of 0 stops at
/// the first check, deterministically), and every 3 wall-clock seconds hands
/// \p progress (if set) the line "PREFIX: STATUS, wall N s". It stops the
/// run at the same check when an interrupt was requested
/// (RequestPacketRunInterrupt: Ctrl-C, SIGTERM).
class PacketWallWatch
{
  public:
    using Clock = std::chrono::steady_clock;

    PacketWallWatch(Clock::time_point start,
                    Time limit,
                    std::function<std::string()> status,
                    std::function<bool()> complete,
                    std::function<void(const std::string&)> progress,
                    std::string prefix);
    /// Schedules the first check now.
    void Start();
    bool Stopped() const { return m_stopped; }
    /// Why it stopped the run: PacketStop::WALL_LIMIT or PacketStop::INTERRUPT.
    PacketStop Kind() const { return m_kind; }
    /// "stopped at the wall-clock limit of 10 s (--wall-limit)" or "stopped
    /// by an interrupt (SIGINT or SIGTERM)", \p wallField naming the limit.
    std::string Reason(const std::string& wallField) const;
    /// The status when it stopped the run.
    const std::string& StoppedAt() const { return m_stoppedAt; }
    /// Checks run so far (events of its own, one every 5 us of simulated time).
    uint64_t GetChecks() const { return m_checks; }

  private:
    void Check();

    Clock::time_point m_start;
    Clock::time_point m_lastPrint;
    std::chrono::nanoseconds m_limit;
    std::function<std::string()> m_status;
    std::function<bool()> m_complete;
    std::function<void(const std::string&)> m_progress;
    std::string m_prefix;
    bool m_stopped = false;
    PacketStop m_kind = PacketStop::WALL_LIMIT;
    std::string m_stoppedAt;
    uint64_t m_checks = 0;
};

/// The columns after "drops" on a packet row of a run with \p faults
/// (fabric.faults not empty): drops_<cause> for every FabricDropCause
/// (buffer, no_route, link_down, corrupt; packets), and pfc_storms, the NICs
/// the PFC watchdog caught storming (null when none). A run without faults
/// gets none of them (its rows stay as they were: every drop is a buffer's).
void SetDropColumns(ResultRow& row, const PacketRunCounters& counters, const std::vector<ScenarioFault>& faults);

/// The endpoint's software cost per message (send + receive overhead, the
/// RdmaEndpoint defaults); zero on the ideal fabric.
Time EndpointCost(const ComparisonFabric& f);

/// alpha and beta fitted to one message at a time from \p src to \p dst on
/// the packet fabric, sizes m/4 .. 4m around the point's message size m,
/// each run seeded with the point's \p seed (PacketTransport::SetSeed).
PointToPointParameters CalibratePair(const TopologyDescription& desc,
                                     const ComparisonFabric& f,
                                     uint32_t seed,
                                     uint32_t src,
                                     uint32_t dst,
                                     uint64_t m);

} // namespace ns3

#endif
