// SPDX-License-Identifier: GPL-2.0-only
//
// Backend "flow": the executor on the analytic channel with the shared
// policy, routed over the topology's paths (max-min fair link sharing). Its
// structure is the topology's, so it runs on the derived point only; the
// same model is the regime's contention evidence (comparison-regime.h).
#include "alpha-beta-model.h"
#include "analytic-transport.h"
#include "comparison-backend.h"

namespace ns3
{

Ptr<AnalyticTransport>
MakeFlowTransport(const ComparisonSetup& setup,
                  uint32_t ranks,
                  const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                  DataRate fastest,
                  Time extra)
{
    const TopologyGraph& graph = *setup.graph;
    const uint32_t rdmaHeader = setup.rdmaHeader;
    // The model adds only the software cost; the routes carry the hop
    // latencies and link rates, so a lone message takes exactly the derived
    // alpha + n / beta. Its beta caps no route: the fastest payload rate used.
    for (auto [src, dst] : pairs)
    {
        TopologyPath path = PairPath(graph, src, dst);
        fastest = std::max(fastest, DerivePathParameters(path, TransportHeaderOf(graph, path, rdmaHeader)).beta);
    }
    auto t = CreateObject<AnalyticTransport>();
    t->Install(ranks, MakeAlphaBeta(PointToPointParameters{Time(0), fastest}, extra), AnalyticChannel::SHARED);
    SetPairRoutes(graph, pairs, t->GetAnalyticChannel(), rdmaHeader);
    return t;
}

Time
RunFlowModel(const ComparisonPoint& pt, const ComparisonSetup& setup, std::vector<ExecutedOp>* ops)
{
    return RunScheduleOn(pt,
                         MakeFlowTransport(setup, pt.spec.ranks, SchedulePairs(pt.schedule), pt.level[0].beta,
                                           setup.config.model.softwareOverhead + setup.endpointCost),
                         ops);
}

namespace
{

class FlowBackend : public ComparisonBackend
{
  public:
    std::string Name() const override { return "flow"; }

    bool NeedsTopology() const override { return true; }

    BackendAnswer Run(const ComparisonPoint& point, ComparisonContext& context) const override
    {
        BackendAnswer a;
        a.time = context.FlowModelTime();
        a.ops = context.FlowModelOps();
        a.parameters = &point;
        return a;
    }
};

} // namespace

std::unique_ptr<ComparisonBackend>
MakeFlowBackend()
{
    return std::make_unique<FlowBackend>();
}

} // namespace ns3
