// SPDX-License-Identifier: GPL-2.0-only
//
// Backend "alphabeta": the executor on the analytic channel with the
// alpha-beta model, contention policy model.contention (none or endpoint;
// links shared over the topology's routes are the flow backend).
#include "alpha-beta-model.h"
#include "comparison-backend.h"

namespace ns3
{

Ptr<AlphaBetaModel>
MakeAlphaBeta(const PointToPointParameters& p, Time extra)
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("Alpha", TimeValue(p.alpha + extra));
    m->SetAttribute("Beta", DataRateValue(p.beta));
    return m;
}

namespace
{

class AlphaBetaBackend : public ComparisonBackend
{
  public:
    std::string Name() const override { return "alphabeta"; }

    bool PerParameterSource() const override { return true; }

    BackendAnswer Run(const ComparisonPoint& point, ComparisonContext& context) const override
    {
        const ComparisonModel& model = context.Setup().config.model;
        const Time sw = model.softwareOverhead;
        BackendAnswer a;
        a.time = RunOnAnalyticChannel(
            point,
            [sw](const PointToPointParameters& q) { return MakeAlphaBeta(q, sw); },
            model.contention,
            RecordsOps(context.Setup()) ? &a.ops : nullptr);
        a.parameters = &point;
        return a;
    }
};

} // namespace

std::unique_ptr<ComparisonBackend>
MakeAlphaBetaBackend()
{
    return std::make_unique<AlphaBetaBackend>();
}

} // namespace ns3
