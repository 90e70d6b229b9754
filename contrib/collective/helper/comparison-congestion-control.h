// SPDX-License-Identifier: GPL-2.0-only
//
// Named parameter sets of a scenario's packet fabric. The NIC: "nic":
// "roce-100g" (RdmaHelper's presets) on the Ethernet and InfiniBand ports
// (PacketTransport::SetNicPreset). The congestion control:
//   "congestion_control": "dcqcn"                       (default attributes)
//   "congestion_control": {"name": "dcqcn", "preset": "connectx",
//                          "G": "0.00390625", "CnpInterval": "4us"}
// name from RdmaCcRegistry, preset from the entry's presets (applied with each
// NIC port's line rate), and any other key an attribute of the algorithm's
// TypeId, set after the preset. A --ns3:: flag for the same attribute wins
// over both (ApplyUserAttributes); the same attribute in the scenario's
// "attributes" as well is refused, as two values for one parameter.
#ifndef HOCKNEY_COMPARISON_CONGESTION_CONTROL_H
#define HOCKNEY_COMPARISON_CONGESTION_CONTROL_H

#include "collective-comparison.h"
#include "packet-transport.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ns3
{

/// A scenario's value for an attribute as ns-3 reads it: a string, a number or
/// true/false. Throws InputError naming \p field otherwise.
std::string AttributeText(const nlohmann::json& v, const std::string& field);

/// Reads fabric.congestion_control (string or object) into \p fabric; every
/// error is an InputError naming the field (\p field, or \p field.KEY).
void ApplyCongestionControl(const nlohmann::json& v, const std::string& field, ComparisonFabric& fabric);

/// Reads fabric.nic (an RdmaHelper preset name) into \p fabric.
void ApplyNicPreset(const nlohmann::json& v, const std::string& field, ComparisonFabric& fabric);

/// Throws InputError when an attribute of the congestion control object is
/// also among the scenario's "attributes" (\p config.attributes).
void CheckCongestionControlAttributes(const ComparisonConfig& config);

/// The congestion control each NIC of a packet run of \p f gets, by the NIC
/// port's line rate: f's algorithm with its preset and attributes (an empty
/// function for "none" and on the ideal fabric).
PacketTransport::CongestionControlFactory MakeCongestionControl(const ComparisonFabric& f);

} // namespace ns3

#endif
