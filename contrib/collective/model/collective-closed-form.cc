// SPDX-License-Identifier: GPL-2.0-only
#include "collective-closed-form.h"

#include "collective-algorithm-registry.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

std::vector<CriticalStep>
CriticalPath(const CollectiveSpec& spec)
{
    const CollectiveAlgorithm& algorithm =
        CollectiveAlgorithmRegistry::Get(spec.collective, spec.algorithm, "--algorithm");
    // The largest channel: the first (SplitBytes gives it the extra byte).
    const double m = static_cast<double>(collective::SplitBytes(spec.bytes, spec.channels).front());
    return algorithm.criticalPath(spec, m);
}

Time
ClosedFormTime(const CollectiveSpec& spec, const PointToPointTime& p2p, PortLoads loads)
{
    // A pipeline of identical pieces through stages that hold one piece at a
    // time (a flow shop): the first piece crosses every stage (the fill), each
    // later one leaves the slowest stage one stage time after the previous.
    // Once the pipeline is full a stage's port also carries the other
    // stages' and channels' pieces that share it (CriticalStep::load). Inside
    // a node (level 0) they stream through the port: the time of load x the
    // bytes. Across nodes (level 1) each piece is a message of its own that
    // pays its own latency (a network connection keeps one message in
    // flight, NcclEndpoint::netStepsInFlight): load x the time of one.
    auto price = [&p2p](const CriticalStep& step, double bytes) {
        Time t = p2p(step.level, bytes);
        if (step.relayed)
        {
            t = std::max(t, p2p(0, bytes));
        }
        return t;
    };
    Time sum(0);
    Time longest(0);     // the slowest stage, loaded
    Time longestBare(0); // the same stage's time for one piece alone
    Time stage(0);
    Time stageBare(0);
    for (const CriticalStep& step : CriticalPath(spec))
    {
        const Time t = price(step, step.bytes);
        sum += t;
        Time loaded = t;
        if (loads == PortLoads::CHARGED && step.load != 1.0)
        {
            loaded = step.level == 0 ? price(step, step.load * step.bytes) : Seconds(step.load * t.GetSeconds());
        }
        stage = step.sameStage ? stage + loaded : loaded;
        stageBare = step.sameStage ? stageBare + t : t;
        if (stage > longest)
        {
            longest = stage;
            longestBare = stageBare;
        }
    }
    const double m = static_cast<double>(collective::SplitBytes(spec.bytes, spec.channels).front());
    // Every piece through the slowest stage at its loaded time, the first
    // too (the channels and the pipelines that load its port start together):
    // the fill less that stage's bare time, plus S loaded stage times. With
    // no load: sum + (S - 1) x the slowest stage.
    return sum - longestBare + longest * static_cast<int64_t>(PipelineDepth(spec, m));
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
