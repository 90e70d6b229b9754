// SPDX-License-Identifier: GPL-2.0-only
//
// What the fabric tests record at a receiving port: the arrival time and the
// FabricHeader of every packet handed up.
#ifndef HOCKNEY_FABRIC_TEST_UTIL_H
#define HOCKNEY_FABRIC_TEST_UTIL_H

#include "fabric-header.h"
#include "fabric-net-device.h"

#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

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

} // namespace hockney

#endif
