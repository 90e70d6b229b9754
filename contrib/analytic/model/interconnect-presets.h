// SPDX-License-Identifier: GPL-2.0-only
//
// Named alpha-beta parameter sets for common interconnects, from vendor pages,
// datasheets and perftest measurements (validation/data/hardware_anchors.csv
// names each). Data, not code paths: one table, each row with its source. beta
// is the per-direction line rate (the 450 GB/s of the H100 NVLink example:
// NVIDIA Hopper architecture page, 900 GB/s bidirectional); the efficiency a
// library reaches on it (NCCL's about 370 of 450 GB/s on NVLink 4, an NCCL
// maintainer in NVIDIA/nccl-tests issue #212) is ProtocolEfficiency's business.
#ifndef HOCKNEY_INTERCONNECT_PRESETS_H
#define HOCKNEY_INTERCONNECT_PRESETS_H

#include "alpha-beta-model.h"

#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

struct InterconnectPreset
{
    std::string name;        ///< "h100-nvlink", "ib-ndr", ...
    std::string description;
    double alphaUs;          ///< start-up latency, microseconds
    double betaBytesPerSecond; ///< per-direction bandwidth
    uint64_t n0Bytes;        ///< S-curve characteristic size
    std::string source;      ///< where alpha and beta come from
};

/// The table, in a fixed order.
const std::vector<InterconnectPreset>& InterconnectPresets();
/// The preset of that name; throws InputError naming \p field otherwise (listing the names).
const InterconnectPreset& FindInterconnectPreset(const std::string& name, const std::string& field = "preset");
/// Sets Alpha, Beta and N0 of \p model (the switches stay as they are).
void ApplyInterconnectPreset(Ptr<AlphaBetaModel> model, const InterconnectPreset& preset);
/// A new constant alpha-beta model with the preset's parameters.
Ptr<AlphaBetaModel> CreateAlphaBetaModel(const std::string& presetName);

} // namespace ns3

#endif
