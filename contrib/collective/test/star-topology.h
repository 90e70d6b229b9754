// SPDX-License-Identifier: GPL-2.0-only
//
// A test topology built by hand: hosts h0..h(n-1) on one switch "s", every
// link of the one given tier, so that paths and times are easy to derive.
#ifndef HOCKNEY_COLLECTIVE_TEST_STAR_TOPOLOGY_H
#define HOCKNEY_COLLECTIVE_TEST_STAR_TOPOLOGY_H

#include "topology-description.h"

#include <string>

namespace hockney
{

inline ns3::TopologyDescription
StarTopology(uint32_t hosts, const ns3::TopologyTier& tier, const std::string& name)
{
    using namespace ns3;
    TopologyDescription d;
    d.name = name;
    d.tiers.push_back(tier);
    for (uint32_t i = 0; i < hosts; ++i)
    {
        d.nodes.push_back(TopologyNode{"h" + std::to_string(i), TopologyNodeKind::HOST, "", 0});
    }
    d.nodes.push_back(TopologyNode{"s", TopologyNodeKind::SWITCH, tier.name, 0});
    for (uint32_t i = 0; i < hosts; ++i)
    {
        d.links.push_back(TopologyLink{"h" + std::to_string(i), "s", tier.name, 1});
    }
    return d;
}

} // namespace hockney

#endif
