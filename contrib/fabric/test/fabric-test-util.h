// SPDX-License-Identifier: GPL-2.0-only
//
// What the fabric tests record at a receiving port: the arrival time and the
// FabricHeader of every packet handed up; a host - switch - host line.
#ifndef HOCKNEY_FABRIC_TEST_UTIL_H
#define HOCKNEY_FABRIC_TEST_UTIL_H

#include "fabric-header.h"
#include "fabric-helper.h"
#include "fabric-net-device.h"

#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <utility>
#include <vector>

namespace hockney
{

struct Arrivals
{
    std::vector<ns3::Time> at;
    std::vector<ns3::FabricHeader> headers;

    void Rx(ns3::Ptr<ns3::FabricNetDevice>, ns3::Ptr<ns3::Packet>, const ns3::FabricHeader& h)
    {
        at.push_back(ns3::Simulator::Now());
        headers.push_back(h);
    }
};

// A (address 0) - sw - B (address 1) over two links of \p cfg, A's node
// created first; B's arrivals are recorded in \p rx.
inline std::pair<ns3::FabricLink, ns3::FabricLink>
ConnectThrough(ns3::FabricHelper& h, ns3::Ptr<ns3::FabricSwitch> sw, const ns3::FabricLinkConfig& cfg,
               Arrivals& rx)
{
    ns3::Ptr<ns3::Node> a = ns3::CreateObject<ns3::Node>();
    ns3::Ptr<ns3::Node> b = ns3::CreateObject<ns3::Node>();
    ns3::FabricLink la = h.Connect(a, sw, cfg);
    ns3::FabricLink lb = h.Connect(sw, b, cfg);
    la.devA->SetFabricAddress(0);
    lb.devB->SetFabricAddress(1);
    sw->AddRoute(0, {la.portB});
    sw->AddRoute(1, {lb.portA});
    lb.devB->SetFabricReceiveCallback(ns3::MakeCallback(&Arrivals::Rx, &rx));
    return {la, lb};
}

} // namespace hockney

#endif
