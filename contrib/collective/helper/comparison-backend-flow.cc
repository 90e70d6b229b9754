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

Time
RunFlowModel(const ComparisonPoint& pt, const ComparisonSetup& setup, std::vector<ExecutedOp>* ops)
{
    const TopologyGraph& graph = *setup.graph;
    const uint32_t rdmaHeader = setup.rdmaHeader;
    // The model adds only the software cost; the routes carry the hop
    // latencies and link rates, so a lone message takes exactly the derived
    // alpha + n / beta. Its beta caps no route: the fastest payload rate used.
    DataRate fastest = pt.level[0].beta;
    for (auto [src, dst] : SchedulePairs(pt.schedule))
    {
        TopologyPath path = PairPath(graph, src, dst);
        fastest = std::max(fastest, DerivePathParameters(path, TransportHeaderOf(graph, path, rdmaHeader)).beta);
    }
    auto t = CreateObject<AnalyticTransport>();
    t->Install(pt.spec.ranks,
               MakeAlphaBeta(PointToPointParameters{Time(0), fastest},
                             setup.config.model.softwareOverhead + setup.endpointCost),
               AnalyticChannel::SHARED);
    SetScheduleRoutes(graph, pt.schedule, t->GetAnalyticChannel(), rdmaHeader);
    return RunScheduleOn(pt, t, ops);
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
