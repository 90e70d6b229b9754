// SPDX-License-Identifier: GPL-2.0-only
//
// A lossy link: random corruption on both directions of one fabric link,
// with ns-3's own error model (a RateErrorModel per receiving port, as
// PointToPointNetDevice's ReceiveErrorModel), so that a bit-error rate or a
// per-packet drop rate of a real wire (a bad cable or optic, FEC off) can be
// put on any link of a topology. The ports drop what it corrupts and count it
// as a corrupt drop (FabricPortCounters::dropsBy[kDropCorrupt]); the transport above
// recovers (RdmaNic's go-back-N; fabric.md, "Lossy links").
#ifndef HOCKNEY_FABRIC_LINK_LOSS_H
#define HOCKNEY_FABRIC_LINK_LOSS_H

#include "fabric-net-device.h"

#include "ns3/ptr.h"


namespace ns3
{

/// The loss of one link, the same in both directions.
struct FabricLinkLoss
{
    enum class Unit
    {
        PACKET, ///< rate: probability that a packet is lost
        BIT     ///< rate: bit-error rate; a packet of n bits is lost with 1-(1-rate)^n
    };

    double rate{0};
    Unit unit{Unit::PACKET};
};

/// Installs an independent ns3::RateErrorModel of \p loss as the
/// ReceiveErrorModel of both ends of a link (each end loses what it
/// receives). Bits are the simulated packet's (FabricHeader, transport
/// headers, payload), as RateErrorModel counts them. Streams come from the
/// run's seed through FabricNetwork::AssignStreams (or the devices' own).
/// \throws std::invalid_argument for a null device or a rate outside [0, 1).
void InstallLinkLoss(Ptr<FabricNetDevice> a, Ptr<FabricNetDevice> b, const FabricLinkLoss& loss);

} // namespace ns3

#endif
