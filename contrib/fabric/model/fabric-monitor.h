// SPDX-License-Identifier: GPL-2.0-only
//
// Run-wide observation of a fabric: per-port counters over a set of nodes,
// the conservation check (bytes entering = delivered + dropped + in flight;
// no buffer drop allowed on a lossless fabric, only corruption on a lossy
// wire), and a watchdog that stops a run in which nothing has moved for
// StallTime while packets are queued (a PFC or credit deadlock), naming the
// blocked ports.
//
// These read every node's ports; they are observers, not part of the data
// path (under the distributed simulator each rank checks its own nodes).
#ifndef HOCKNEY_FABRIC_MONITOR_H
#define HOCKNEY_FABRIC_MONITOR_H

#include "fabric-net-device.h"

#include "ns3/event-id.h"
#include "ns3/node-container.h"
#include "ns3/object.h"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// One port's counters with where it is.
struct FabricPortReport
{
    uint32_t nodeId{0};
    uint32_t deviceIndex{0}; ///< ifIndex on the node
    bool isSwitch{false};
    uint32_t address{kFabricNoAddress}; ///< endpoint address, or kFabricNoAddress
    uint32_t peerNodeId{0};
    FabricPortCounters counters;
    uint64_t queuedBytes{0}; ///< payload bytes queued now
};

/// Every FabricNetDevice on `nodes`, in node then device order.
std::vector<FabricPortReport> CollectFabricCounters(const NodeContainer& nodes);

/// Sum of the counters of `reports`.
FabricPortCounters SumFabricCounters(const std::vector<FabricPortReport>& reports);

/// Conservation over a closed set of nodes (every link's both ends included).
/// Payload bytes of DATA packets.
struct FabricConservation
{
    uint64_t injected{0};  ///< sent by endpoint ports, plus INT records switches added
    uint64_t delivered{0}; ///< received by endpoint ports
    uint64_t dropped{0};   ///< dropped anywhere
    std::array<uint64_t, kFabricDropCauses> droppedBy{}; ///< of dropped, by FabricDropCause
    /// Of dropped: what faults drop by design (IsFaultDropCause), allowed on
    /// a lossless fabric (attributed, not an error).
    uint64_t faultDropped{0};
    uint64_t inFlight{0};  ///< on wires (sent, not yet received) + queued at switches
    /// In-switch reduction (fabric-switch-reduction.h): contributions the
    /// switches consumed into sums, and the copies of sums they produced.
    /// Balanced: injected + replicated == delivered + consumed + dropped + inFlight.
    uint64_t consumed{0};
    uint64_t replicated{0};
    /// Credit links: per link and class, the gap, either way,
    /// between the sender's credit spent and the receiver's freed, summed;
    /// on a drained fabric (inFlight 0) every byte of credit spent must have
    /// been freed and no more, else a port's ingress counted a packet's
    /// wire bytes otherwise than its sender (credit leaked or made up) and
    /// the run is not ok.
    uint64_t creditUnfreed{0};
    std::string creditLink; ///< the first link with a gap, "node A dev i -> node B class c: spent S B, freed F B"
    bool lossless{true};   ///< every port's flow control is lossless for every class
    bool balanced{false};  ///< injected + replicated == delivered + consumed + dropped + inFlight
    bool ok{false};        ///< balanced, (not lossless or dropped == faultDropped), no credit gap when drained
    std::string message;   ///< one line; names the violation when !ok
};

FabricConservation CheckFabricConservation(const NodeContainer& nodes);

/// Adds numbers over MPI ranks in place, element by element (MPI_Allreduce
/// with MPI_SUM; the caller's, so that the fabric needs no MPI here).
using FabricSumOverRanks = std::function<void(std::vector<uint64_t>&)>;

/// Adds the numbers \p fields point to over the ranks with \p sum, in place.
void SumOverRanks(const FabricSumOverRanks& sum, const std::vector<uint64_t*>& fields);

/// The same check over a fabric partitioned over MPI ranks, every rank
/// calling it alike: each adds up the ports of its own nodes (system id
/// \p systemId; the others are idle copies), \p sum adds that over the
/// ranks, and every rank gets the whole fabric's result and message, those
/// of CheckFabricConservation in one process. On the wires: what every port
/// sent minus what every port received or lost on its link (a link's two
/// ends may be on two ranks). Credit per link: the sender's rank gives what
/// it spent, the receiver's what it freed, added link by link over the ranks.
FabricConservation CheckFabricConservation(const NodeContainer& nodes, uint32_t systemId,
                                           const FabricSumOverRanks& sum);

/// The same with this rank's nodes those \p own accepts (the overload above:
/// the nodes of its system id; a test runs the ranks' parts in one process).
/// \p own and \p sum must both be set: each rank adds up its own part.
FabricConservation CheckFabricConservation(const NodeContainer& nodes, const std::function<bool(const Node&)>& own,
                                           const FabricSumOverRanks& sum);

/// A PFC storm the ports' PFC watchdog detected (FabricPfcFlowControl,
/// StormDetectionTime): the port, the peer that kept pausing it, when.
struct FabricPfcStorm
{
    uint32_t nodeId{0};      ///< the paused port's node
    uint32_t deviceIndex{0}; ///< its ifIndex there
    uint32_t peerNodeId{0};  ///< the node that sent the pauses (the storming NIC)
    uint8_t cls{0};
    Time detectedAt;
    Time pausedFor;          ///< how long the class had been paused at detection
    bool restored{false};
    Time restoredAt;
};

/// Stops the simulation when no packet moved for StallTime while packets were
/// queued. Checks every StallTime; stops checking when the fabric is idle and
/// nothing else is scheduled. Also collects the PFC storms the ports' PFC
/// watchdogs detect (every port with PFC), naming the storming peer.
class FabricWatchdog : public Object
{
  public:
    /// Name of a node in messages (ns-3 node id -> name); "node N" by default.
    using NodeNamer = std::function<std::string(uint32_t nodeId)>;

    static TypeId GetTypeId();
    FabricWatchdog();
    ~FabricWatchdog() override;

    /// Starts watching `nodes` (call before Simulator::Run).
    void Install(const NodeContainer& nodes);
    /// True once it stopped a run.
    bool HasFired() const { return m_fired; }
    /// "fabric watchdog: no packet moved for ... while N bytes queued; blocked ports: ..."
    const std::string& GetMessage() const { return m_message; }
    /// Names nodes in the messages (FabricNetwork: the topology's names).
    void SetNodeNamer(NodeNamer namer) { m_namer = std::move(namer); }
    /// The PFC storms detected so far, in detection order (storms detected
    /// in the same picosecond by node, port and class: an order that does
    /// not depend on which event of that picosecond ran first).
    const std::vector<FabricPfcStorm>& GetPfcStorms() const { return m_storms; }
    /// Under MPI: every rank's storms (each rank's watchdog sees its own
    /// ports), gathered by \p gather (the caller's MPI_Allgatherv of the
    /// numbers FabricPfcStorm's fields are written as), in the order above:
    /// every rank then reports what one process reports.
    void GatherPfcStorms(const std::function<std::vector<uint64_t>(const std::vector<uint64_t>&)>& gather);
    /// One line per storm ("PFC storm from h3: leaf0 dev 2 class 0 paused
    /// for 200 us, detected at 260 us, PFC restored at 900 us"), "; "-joined;
    /// empty without a storm.
    std::string GetPfcStormReport() const;
    /// The storming peers' names, comma-separated (the rows' pfc_storms).
    std::string GetPfcStormNodes() const;

  protected:
    void DoDispose() override;

  private:
    void Check();
    std::string Name(uint32_t nodeId) const;
    /// A port's PFC watchdog fired (FabricPfcFlowControl's PfcStorm trace).
    static void StormSink(FabricWatchdog* w, FabricNetDevice* d, uint8_t cls, Time pausedFor, bool detected);
    NodeContainer m_nodes;
    NodeNamer m_namer;
    std::vector<FabricPfcStorm> m_storms;
    std::vector<std::pair<Ptr<FabricFlowControl>, Callback<void, uint8_t, Time, bool>>> m_stormSinks;
    Time m_stallTime;
    EventId m_event;
    uint64_t m_lastMoves{0};
    bool m_fired{false};
    std::string m_message;
};

} // namespace ns3

#endif
