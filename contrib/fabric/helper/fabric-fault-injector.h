// SPDX-License-Identifier: GPL-2.0-only
//
// Faults in a built fabric (FabricNetwork), at given simulated times:
//
//   link_down  the link's channel goes down (FabricChannel::SetLinkUp): what
//              is on the wire is lost, what its ports send is lost, both
//              counted as link_down drops at the receiving port. Reroute: every
//              switch's routes (ECMP sets) are recomputed without the link, as
//              a routing protocol converged at once would; blackhole: routes
//              stay, and what is forwarded onto the link is lost. Up again at
//              up_at (routes recomputed with it).
//   slow_link  both ports of the link send at a lower rate from `at` on (a
//              x4 link that trained down to x1).
//   pfc_storm  an endpoint's NIC keeps asserting PFC pause on its PFC ports
//              (as its receive pipeline were stuck) from `at` for `duration`
//              (or forever); the switch port it pauses is where the ports'
//              PFC watchdog (FabricPfcFlowControl, StormDetectionTime) sees it.
//   (lossy_link, random loss and bit errors on a link, adds its kind here.)
//
// The injector acts on ports, channels and switch tables from outside the
// data path, as a test harness does. Under ns-3's distributed simulator
// (the network partitioned over MPI ranks) a PFC storm acts on the rank that
// owns the storming NIC only; a link fault on every rank, each on its copy
// of the link and of the routes, at the same simulated time (Schedule says
// why that is one process's run; GetReplicaEvents).

#ifndef HOCKNEY_FABRIC_FAULT_INJECTOR_H
#define HOCKNEY_FABRIC_FAULT_INJECTOR_H

#include "topology-builder.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/// One fault on a built fabric, in the topology's ids.
struct FabricFault
{
    enum Kind
    {
        LINK_DOWN, ///< link down at `at`, up again at `until` (if before Time::Max())
        SLOW_LINK, ///< the link's rate is `rate` from `at` on
        PFC_STORM  ///< endpoint `node` pauses classMask from `at` to `until`
        // LOSSY_LINK: the lossy_link fault adds its kind here.
    };

    Kind kind{LINK_DOWN};
    uint32_t link{0};          ///< LINK_DOWN, SLOW_LINK: topology link id
    uint32_t node{0};          ///< PFC_STORM: topology node id of an endpoint
    Time at;                   ///< start
    Time until{Time::Max()};   ///< LINK_DOWN: up again; PFC_STORM: end; Max: never
    bool reroute{true};        ///< LINK_DOWN: recompute routes without the link (else blackhole)
    DataRate rate;             ///< SLOW_LINK: the degraded rate of both directions
    uint8_t classMask{0x01};   ///< PFC_STORM: the classes the NIC pauses
    std::string label;         ///< for messages ("fabric.faults[0]: link_down leaf0-spine0")
};

class FabricFaultInjector : public Object
{
  public:
    static TypeId GetTypeId();
    FabricFaultInjector();
    ~FabricFaultInjector() override;

    /// The fabric the faults act on (built).
    void SetNetwork(Ptr<FabricNetwork> network);
    /// Schedules every fault (the events keep the injector alive); one at
    /// the current time acts at once. Throws
    /// std::invalid_argument naming the fault's label for a link or node
    /// that does not exist, a storm on a node that is not an endpoint with a
    /// PFC port, a rate of 0.
    void Schedule(const std::vector<FabricFault>& faults);

    // ---- the mechanisms (tests call them directly) ----------------------
    /// Takes \p link down or up; \p reroute: the switches' routes avoid it
    /// while it is down (recomputed now).
    void SetLinkUp(uint32_t link, bool up, bool reroute);
    /// Both ports of \p link send at \p rate (packets already being
    /// serialized finish at the old one).
    void SetLinkRate(uint32_t link, DataRate rate);
    /// Endpoint \p node starts (on) or stops asserting PFC pause for the
    /// classes of \p classMask on each of its PFC ports.
    void SetPfcStorm(uint32_t node, uint8_t classMask, bool on);
    /// Recomputes every switch's routes: hop-count shortest paths, every
    /// equal-cost next hop kept, endpoints never transit (as the builder's
    /// TopologyGraph), over the links not rerouted around. A switch left
    /// with no path to an endpoint keeps its original route (its packets
    /// are then lost on the dead link, as link_down drops).
    void Reroute();
    /// Links the routes currently avoid.
    const std::set<uint32_t>& GetReroutedLinks() const { return m_avoid; }
    /// Under ns-3's MPI simulator with the network partitioned: the events
    /// of link faults this rank ran that one process runs once (every rank
    /// applies a link fault to its copy of the link and of the routes; rank
    /// 0's events are the ones counted). 0 in one process and on rank 0.
    uint64_t GetReplicaEvents() const { return m_replicaEvents; }

  protected:
    void DoDispose() override;

  private:
    /// The scheduled start or end of \p f; \p replica: counted in GetReplicaEvents.
    void ApplyEvent(FabricFault f, bool start, bool replica);
    void Apply(const FabricFault& f, bool start);
    void Check(const FabricFault& f) const;

    Ptr<FabricNetwork> m_network;
    std::set<uint32_t> m_avoid; ///< links down with reroute
    uint64_t m_replicaEvents{0};
    TracedCallback<std::string> m_faultTrace;
};

} // namespace ns3

#endif
