// SPDX-License-Identifier: GPL-2.0-only
//
// The five-assumption ablation: the constant alpha-beta model T = alpha + n/beta
// rests on (1) a constant alpha, (2) a constant beta, (3) no contention,
// (4) homogeneous links and (5) no software cost. Each is relaxed alone
// (AlphaBetaModel's protocol steps, S-curve, multi-resource bandwidth, the
// shared channel, the endpoint overhead) and all together, against the packet
// time of the same schedule. (4) is relaxed in every row: each pair's own hops
// give its alpha and beta.
#ifndef HOCKNEY_ACCURACY_ABLATION_H
#define HOCKNEY_ACCURACY_ABLATION_H

#include "collective-comparison.h"
#include "result-row.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/// The ablation: per size, the packet time and the constant alpha-beta with
/// each relaxation alone (protocol, scurve, multiresource, software,
/// contention) and all together; rows carry backend "ab-<relaxation>", time_s,
/// error and sym_error against the packet time.
/// \p packetSeconds: the packet time per size when already measured (the
/// missing ones are run).
std::vector<ResultRow> RunAssumptionAblation(const ComparisonConfig& config,
                                             uint64_t n0Bytes,
                                             std::map<uint64_t, double> packetSeconds = {},
                                             std::function<void(const std::string&)> progress = {});

} // namespace ns3

#endif
