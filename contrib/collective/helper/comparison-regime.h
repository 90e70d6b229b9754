// SPDX-License-Identifier: GPL-2.0-only
//
// What the rows of one point share, decided in one place once every backend
// has answered: the point's regime (the rules in collective-comparison.h)
// and the reference time each row's error is measured against.
#ifndef HOCKNEY_COMPARISON_REGIME_H
#define HOCKNEY_COMPARISON_REGIME_H

#include "comparison-backend.h"

#include <optional>
#include <string>
#include <vector>

namespace ns3
{

struct PointVerdict
{
    std::string regime;
    /// The regime of the closed form itself: contention-free and without
    /// congestion control by construction, so "incast" (the schedule's
    /// fan-in, which the closed form prices) or latency- or bandwidth-bound
    /// from its own alpha and n/beta terms, never "contention" or
    /// "congestion-control", which only a simulated run can show.
    std::string closedRegime;
    /// The reference answer's time (the packet run), when one completed.
    std::optional<Time> reference;
    /// \p a's relative error against the reference; none without one, or
    /// for the reference itself.
    std::optional<double> ErrorOf(const BackendAnswer& a) const;
};

/// The verdict on \p pt (the derived point) from the backends' \p answers;
/// the flow model (context.FlowModelTime) runs for the contention rule when
/// no backend ran it and the rule is reached (no congestion control acted,
/// not an incast), unless the point is large and a packet run was asked
/// for without flow: max-min over a million flows would cost more than the
/// packets.
PointVerdict JudgePoint(const ComparisonPoint& pt,
                        ComparisonContext& context,
                        const std::vector<BackendAnswer>& answers);

} // namespace ns3

#endif
