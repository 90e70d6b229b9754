// SPDX-License-Identifier: GPL-2.0-only
//
// Backend "loggp": the executor on the analytic channel with LogGP
// (Alexandrov et al., "LogGP: Incorporating Long Messages into the LogP
// Model", SPAA 1995): L = alpha - 2o, G = 1/beta, o from model.o (else the
// packet endpoint's per-message cost), g from model.g; endpoint policy, as
// LogGP's o, g and G serialize each rank's messages.
#include "comparison-backend.h"
#include "input-error.h"
#include "loggp-model.h"
#include "units.h"

#include "ns3/double.h"

namespace ns3
{

namespace
{

Ptr<LogGpModel>
MakeLogGp(const PointToPointParameters& p, const ComparisonModel& model, Time o, const std::string& oField)
{
    // LogGP's alpha is 2o + L: the overhead is carved out of the same alpha,
    // so an o above alpha / 2 would need a negative wire latency L.
    const Time alpha = p.alpha + model.softwareOverhead;
    if (o * 2 > alpha)
    {
        throw InputError(oField, "expected 2o <= alpha (LogGP's alpha is 2o + L), got 2 x " +
                                     units::FormatSeconds(o.GetSeconds()) + " > alpha " +
                                     units::FormatSeconds(alpha.GetSeconds()));
    }
    Ptr<LogGpModel> m = CreateObject<LogGpModel>();
    m->SetAttribute("L", TimeValue(alpha - o * 2));
    m->SetAttribute("o", TimeValue(o));
    m->SetAttribute("g", TimeValue(model.g));
    m->SetAttribute("GapPerByte", DoubleValue(8.0 / static_cast<double>(p.beta.GetBitRate())));
    return m;
}

class LogGpBackend : public ComparisonBackend
{
  public:
    std::string Name() const override { return "loggp"; }

    bool PerParameterSource() const override { return true; }

    BackendAnswer Run(const ComparisonPoint& point, ComparisonContext& context) const override
    {
        const ComparisonSetup& setup = context.Setup();
        const ComparisonConfig& c = setup.config;
        const ComparisonModel& model = c.model;
        // LogGP's o: given, else the endpoint's per-message CPU cost (half of
        // send + receive), which the packet layer serializes per rank.
        const Time o = model.o ? *model.o : (setup.given ? Time(0) : setup.endpointCost / 2);
        // Without a given o, only a calibrated alpha can fall below the
        // endpoint's 2o: name the parameter source then.
        const std::string oField = model.o ? c.FieldName("model.o", "model.o") : c.FieldName("params", "--params");
        BackendAnswer a;
        a.time = RunOnAnalyticChannel(
            point,
            [&model, o, &oField](const PointToPointParameters& q) { return MakeLogGp(q, model, o, oField); },
            AnalyticChannel::ENDPOINT,
            RecordsOps(setup) ? &a.ops : nullptr);
        a.parameters = &point;
        return a;
    }
};

} // namespace

std::unique_ptr<ComparisonBackend>
MakeLogGpBackend()
{
    return std::make_unique<LogGpBackend>();
}

} // namespace ns3
