// SPDX-License-Identifier: GPL-2.0-only
#include "comparison-regime.h"

#include "collective-closed-form.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// Flow time above this multiple of the contention-free closed form: contention.
const double CONTENTION_THRESHOLD = 1.10;

/// The alpha terms and the n/beta terms of the closed form, apart.
std::pair<Time, Time>
ClosedParts(const ComparisonPoint& pt, Time extra)
{
    auto param = [&pt](uint32_t level) { return pt.hierarchical ? pt.level[level] : pt.flat; };
    Time lat = ClosedFormTime(pt.spec, [&](uint32_t level, double) { return param(level).alpha + extra; });
    Time bw = ClosedFormTime(pt.spec, [&](uint32_t level, double bytes) {
        return AlphaBetaTime(Time(0), param(level).beta, bytes);
    });
    return {lat, bw};
}

} // namespace

std::optional<double>
PointVerdict::ErrorOf(const BackendAnswer& a) const
{
    if (!reference || a.reference)
    {
        return std::nullopt;
    }
    return (a.time.GetSeconds() - reference->GetSeconds()) / reference->GetSeconds();
}

PointVerdict
JudgePoint(const ComparisonPoint& pt, ComparisonContext& context, const std::vector<BackendAnswer>& answers)
{
    const ComparisonSetup& setup = context.Setup();
    PointVerdict v;
    for (const BackendAnswer& a : answers)
    {
        if (a.reference && a.stoppedAt.empty())
        {
            v.reference = a.time;
        }
    }
    const Time sw = setup.config.model.softwareOverhead;
    const bool incast = pt.schedule.GetMaxFanIn() >= 2 && pt.schedule.GetMaxFanOut() <= 1;
    auto [lat, bw] = ClosedParts(pt, sw);
    v.closedRegime = incast ? "incast" : lat >= bw ? "latency-bound" : "bandwidth-bound";
    const bool congestionControl = std::any_of(answers.begin(), answers.end(), [](const BackendAnswer& a) {
        return a.congestionControlActed;
    });
    // The flow model is run here only for the contention rule, so not when
    // the rule is not reached (congestion control acted, or an incast): at
    // 256 GPUs it is seconds of max-min over the flows, beside the packets.
    // Otherwise it runs for every point with a topology (once: a flow
    // backend's row has run it already), except a large one whose packet
    // run was asked for without flow.
    std::optional<Time> flow;
    if (!congestionControl && !incast && setup.graph &&
        (setup.Selected("flow") || !pt.large || !setup.Selected("packet")))
    {
        flow = context.FlowModelTime();
    }
    if (congestionControl)
    {
        v.regime = "congestion-control";
    }
    // The structural answer (the contention-free closed form) decides contention.
    else if (!incast && flow && flow->GetSeconds() > CONTENTION_THRESHOLD * ClosedTime(pt, sw).GetSeconds())
    {
        v.regime = "contention";
    }
    else
    {
        v.regime = v.closedRegime;
    }
    return v;
}

} // namespace ns3
