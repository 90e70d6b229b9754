// SPDX-License-Identifier: GPL-2.0-only
//
// Backend "closed": the algorithm's closed form (collective-closed-form.h)
// with the point's alpha and beta, no simulation.
#include "collective-closed-form.h"
#include "comparison-backend.h"

namespace ns3
{

Time
ClosedTime(const ComparisonPoint& pt, Time extra)
{
    if (pt.endpoint)
    {
        // The same endpoint costs the executor applies (nccl-protocol.h).
        return NcclClosedFormTime(pt.spec, *pt.endpoint, PointTime(pt, extra));
    }
    if (pt.hierarchical)
    {
        return ClosedFormTime(pt.spec, pt.level[0].alpha + extra, pt.level[0].beta, pt.level[1].alpha + extra,
                              pt.level[1].beta);
    }
    return ClosedFormTime(pt.spec, pt.flat.alpha + extra, pt.flat.beta);
}

namespace
{

class ClosedBackend : public ComparisonBackend
{
  public:
    std::string Name() const override { return "closed"; }

    bool PerParameterSource() const override { return true; }

    BackendAnswer Run(const ComparisonPoint& point, ComparisonContext& context) const override
    {
        BackendAnswer a;
        a.time = ClosedTime(point, context.Setup().config.model.softwareOverhead);
        a.parameters = &point;
        return a;
    }
};

} // namespace

std::unique_ptr<ComparisonBackend>
MakeClosedBackend()
{
    return std::make_unique<ClosedBackend>();
}

} // namespace ns3
