// SPDX-License-Identifier: GPL-2.0-only
#include "collective-closed-form.h"

#include "collective-algorithms.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

std::vector<CriticalStep>
CriticalPath(const CollectiveSpec& spec)
{
    const uint32_t n = spec.ranks;
    const double s = spec.slices;
    // The largest channel: the first (SplitBytes gives it the extra byte).
    const double m = static_cast<double>(SplitBytes(spec.bytes, spec.channels).front());
    std::vector<CriticalStep> path;
    auto add = [&path](uint32_t count, uint32_t level, double bytes) {
        for (uint32_t i = 0; i < count; ++i)
        {
            path.push_back(CriticalStep{level, bytes});
        }
    };
    switch (spec.collective)
    {
    case CollectiveKind::ALL_REDUCE:
        if (spec.algorithm == "ring")
        {
            add(2 * (n - 1), 0, m / (n * s));
        }
        else if (spec.algorithm == "tree")
        {
            const auto parents = DoubleBinaryTreeParents(n);
            const uint32_t d = std::max(TreeDepth(parents[0]), TreeDepth(parents[1]));
            add(2 * d, 0, m / (2 * s));
        }
        else if (spec.algorithm == "rhd")
        {
            const uint32_t p2 = LargestPowerOfTwoAtMost(n);
            const uint32_t levels = CeilLog2(p2);
            if (p2 != n)
            {
                add(1, 0, m / s);
            }
            for (uint32_t k = 1; k <= levels; ++k)
            {
                add(1, 0, m / (s * (1u << k)));
            }
            for (uint32_t k = levels; k >= 1; --k)
            {
                add(1, 0, m / (s * (1u << k)));
            }
            if (p2 != n)
            {
                add(1, 0, m / s);
            }
        }
        else
        {
            const uint32_t g = spec.LocalRanks();
            const uint32_t nodes = spec.Nodes();
            add(g - 1, 0, m / (g * s));
            add(2 * (nodes - 1), 1, m / (static_cast<double>(g) * nodes * s));
            add(g - 1, 0, m / (g * s));
        }
        break;
    case CollectiveKind::ALL_GATHER:
    case CollectiveKind::REDUCE_SCATTER:
        add(n - 1, 0, m / (n * s));
        break;
    case CollectiveKind::BROADCAST:
        add(spec.algorithm == "binomial" ? CeilLog2(n) : n - 1, 0, m / s);
        break;
    case CollectiveKind::ALL_TO_ALL:
        add(spec.algorithm == "pairwise" ? n - 1 : 1, 0, m / (n * s));
        break;
    case CollectiveKind::INCAST:
        add(1, 0, m / (n * s));
        break;
    }
    return path;
}

Time
ClosedFormTime(const CollectiveSpec& spec, const PointToPointTime& p2p)
{
    Time sum(0);
    Time longest(0);
    for (const CriticalStep& step : CriticalPath(spec))
    {
        Time t = p2p(step.level, step.bytes);
        sum += t;
        longest = std::max(longest, t);
    }
    return sum + longest * static_cast<int64_t>(spec.slices - 1);
}

Time
AlphaBetaTime(Time alpha, DataRate beta, double bytes)
{
    return alpha + SecondsToTime(bytes * 8.0 / static_cast<double>(beta.GetBitRate()));
}

Time
ClosedFormTime(const CollectiveSpec& spec, Time alpha, DataRate beta)
{
    return ClosedFormTime(spec, [alpha, beta](uint32_t, double bytes) { return AlphaBetaTime(alpha, beta, bytes); });
}

Time
ClosedFormTime(const CollectiveSpec& spec, Time alpha0, DataRate beta0, Time alpha1, DataRate beta1)
{
    return ClosedFormTime(spec, [=](uint32_t level, double bytes) {
        return level == 0 ? AlphaBetaTime(alpha0, beta0, bytes) : AlphaBetaTime(alpha1, beta1, bytes);
    });
}

Time
ClosedFormTime(const CollectiveSpec& spec, Ptr<const AnalyticModel> intra, Ptr<const AnalyticModel> inter)
{
    return ClosedFormTime(spec, [intra, inter](uint32_t level, double bytes) {
        Ptr<const AnalyticModel> m = (level == 1 && inter) ? inter : intra;
        return m->GetMessageTime(static_cast<uint64_t>(std::llround(bytes)));
    });
}

} // namespace ns3
