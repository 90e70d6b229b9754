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
    uint64_t corrupted{0}; ///< of dropped: corrupted on a wire (ReceiveErrorModel)
    uint64_t inFlight{0};  ///< on wires (sent, not yet received) + queued at switches
    bool lossless{true};   ///< every port's flow control is lossless for every class
    bool balanced{false};  ///< injected == delivered + dropped + inFlight
    bool ok{false};        ///< balanced and (not lossless or dropped == corrupted)
    std::string message;   ///< one line; names the violation when !ok
};

FabricConservation CheckFabricConservation(const NodeContainer& nodes);

/// Stops the simulation when no packet moved for StallTime while packets were
/// queued. Checks every StallTime; stops checking when the fabric is idle and
/// nothing else is scheduled.
class FabricWatchdog : public Object
{
  public:
    static TypeId GetTypeId();
    FabricWatchdog();
    ~FabricWatchdog() override;

    /// Starts watching `nodes` (call before Simulator::Run).
    void Install(const NodeContainer& nodes);
    /// True once it stopped a run.
    bool HasFired() const { return m_fired; }
    /// "fabric watchdog: no packet moved for ... while N bytes queued; blocked ports: ..."
    const std::string& GetMessage() const { return m_message; }

  protected:
    void DoDispose() override;

  private:
    void Check();
    NodeContainer m_nodes;
    Time m_stallTime;
    EventId m_event;
    uint64_t m_lastMoves{0};
    bool m_fired{false};
    std::string m_message;
};

} // namespace ns3

#endif
