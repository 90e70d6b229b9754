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

namespace ns3
{

/// Applies the transfer units and, on the ideal fabric, the zero endpoint and
/// NIC costs to a transport about to be built.
void ConfigurePacket(Ptr<PacketTransport> t, const ComparisonFabric& f);

/// The endpoint's software cost per message (send + receive overhead, the
/// RdmaEndpoint defaults); zero on the ideal fabric.
Time EndpointCost(const ComparisonFabric& f);

/// alpha and beta fitted to one message at a time from \p src to \p dst on
/// the packet fabric, sizes m/4 .. 4m around the point's message size m.
PointToPointParameters CalibratePair(const TopologyDescription& desc,
                                     const ComparisonFabric& f,
                                     uint32_t src,
                                     uint32_t dst,
                                     uint64_t m);

} // namespace ns3

#endif
