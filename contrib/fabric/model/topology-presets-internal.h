// SPDX-License-Identifier: GPL-2.0-only
//
// Helpers shared by the files of topology-presets.h (tiers, builders, named
// presets); not part of its API.
#ifndef HOCKNEY_TOPOLOGY_PRESETS_INTERNAL_H
#define HOCKNEY_TOPOLOGY_PRESETS_INTERNAL_H

#include "input-error.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace topology_presets
{

/// Bad input: an InputError naming \p field, "expected " + \p what.
[[noreturn]] inline void
Fail(const std::string& field, const std::string& what)
{
    throw InputError(field, "expected " + what);
}

inline std::string
Str(uint64_t v)
{
    return std::to_string(v);
}

} // namespace topology_presets
} // namespace ns3

#endif
