// SPDX-License-Identifier: GPL-2.0-only
//
// RunComparison: for each size, build the point (comparison-point.h), run the
// selected backends on it (comparison-backend.h), judge the point once
// (comparison-regime.h), and make one row per answer. The configuration's
// parsing and checking is comparison-scenario.cc.
#include "collective-comparison.h"

#include "attribute-defaults.h"
#include "collective-bandwidth.h"
#include "comparison-backend.h"
#include "comparison-flows.h"
#include "comparison-point.h"
#include "comparison-regime.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// The row of the answer \p a on a point of \p setup.
ResultRow
MakeRow(const ComparisonSetup& setup,
        uint64_t bytes,
        const BackendAnswer& a,
        const PointVerdict& verdict)
{
    const ComparisonConfig& c = setup.config;
    const Time t = a.time;
    const Time sw = c.model.softwareOverhead;
    ResultRow row;
    row.Set("collective", ToString(c.collective))
        .Set("algorithm", setup.algorithm)
        .Set("ranks", static_cast<uint64_t>(setup.ranks))
        .Set("bytes", bytes)
        .Set("backend", a.backend)
        .Set("time_s", t.GetSeconds())
        .Set("algbw_GBps", AlgorithmBandwidth(bytes, t) / 1e9)
        .Set("busbw_GBps", BusBandwidth(c.collective, setup.ranks, bytes, t) / 1e9)
        .SetNull("error")
        .Set("regime", verdict.regime);
    if (!a.stoppedAt.empty())
    {
        row.SetNull("time_s").SetNull("algbw_GBps").SetNull("busbw_GBps");
    }
    if (const std::optional<double> error = verdict.ErrorOf(a))
    {
        row.Set("error", *error);
    }
    if (const ComparisonPoint* p = a.parameters)
    {
        const PointToPointParameters& first = p->hierarchical ? p->level[0] : p->flat;
        row.Set("alpha_s", (first.alpha + sw).GetSeconds())
            .Set("beta_Bps", static_cast<double>(first.beta.GetBitRate()) / 8.0)
            .Set("params", p->params);
        if (p->hierarchical)
        {
            row.Set("inter_alpha_s", (p->level[1].alpha + sw).GetSeconds())
                .Set("inter_beta_Bps", static_cast<double>(p->level[1].beta.GetBitRate()) / 8.0);
        }
    }
    else
    {
        row.SetNull("alpha_s").SetNull("beta_Bps").SetNull("params");
    }
    row.Set("topology", c.topologyName.empty() ? std::string("none") : c.topologyName);
    for (const auto& [key, value] : a.columns.Fields())
    {
        row.Set(key, value);
    }
    return row;
}

/// The per-op row of \p op, one backend's run of a point of \p setup.
ResultRow
PerOpRow(const ComparisonSetup& setup, uint64_t bytes, const BackendAnswer& a, const ExecutedOp& op)
{
    const ComparisonConfig& c = setup.config;
    ResultRow row;
    row.Set("collective", ToString(c.collective))
        .Set("algorithm", setup.algorithm)
        .Set("ranks", static_cast<uint64_t>(setup.ranks))
        .Set("bytes", bytes)
        .Set("backend", a.backend);
    a.parameters ? row.Set("params", a.parameters->params) : row.SetNull("params");
    row.Set("op", static_cast<uint64_t>(op.op))
        .Set("step", static_cast<uint64_t>(op.step))
        .Set("rank", static_cast<uint64_t>(op.src))
        .Set("peer", static_cast<uint64_t>(op.dst))
        .Set("op_bytes", op.bytes)
        .Set("start_s", op.start.GetSeconds())
        .Set("end_s", op.end.GetSeconds())
        .Set("duration_s", (op.end - op.start).GetSeconds());
    return row;
}

/// The answer of a backend not run because an earlier size's run of it
/// stopped at the wall-clock limit: no time, status not-run-after-wall-limit.
BackendAnswer
NotRunAfterStop()
{
    BackendAnswer a;
    a.reference = true;
    a.stoppedAt = "not run";
    a.columns.Set("status", "not-run-after-wall-limit");
    return a;
}

} // namespace

std::vector<ResultRow>
RunComparison(const ComparisonConfig& c, std::function<void(const std::string&)> progress)
{
    // Before the setup: it creates the models whose defaults these may set.
    const ScopedAttributeDefaults attributes(c.attributes);
    if (!c.flows.empty())
    {
        return RunFlowComparison(c, std::move(progress));
    }
    const ComparisonSetup setup(c, std::move(progress));
    // The selected backends in registry order, which is row order.
    std::vector<const ComparisonBackend*> selected;
    for (const auto& b : ComparisonBackendRegistry())
    {
        if (setup.Selected(b->Name()))
        {
            selected.push_back(b.get());
        }
    }
    std::vector<ResultRow> rows;
    CalibrationCache calibrationCache;
    std::string stoppedAt;      // the first run stopped at the wall-clock limit: how far it got
    std::string stoppedBackend; // and its backend
    for (uint64_t bytes : c.sizes)
    {
        const ComparisonPoint pt = BuildPoint(setup, bytes);
        std::optional<ComparisonPoint> calibrated;
        if (std::find(c.params.begin(), c.params.end(), "calibrated") != c.params.end())
        {
            calibrated = CalibratedPoint(setup, pt, calibrationCache);
        }
        // The parameter sources, in the order asked for.
        std::vector<const ComparisonPoint*> sources;
        for (const auto& p : c.params)
        {
            sources.push_back(p == "derived" ? &pt : &*calibrated);
        }

        ComparisonContext context(setup, pt);
        std::vector<BackendAnswer> answers;
        auto run = [&](const ComparisonBackend* b, const ComparisonPoint& point) {
            // After a run stopped at the wall-clock limit, its backend is not
            // run again (a larger size would only stop again, after as long);
            // the others still answer every size.
            answers.push_back(b->Name() == stoppedBackend ? NotRunAfterStop() : b->Run(point, context));
            answers.back().backend = b->Name();
        };
        for (const ComparisonPoint* source : sources)
        {
            for (const ComparisonBackend* b : selected)
            {
                if (b->PerParameterSource())
                {
                    run(b, *source);
                }
            }
        }
        for (const ComparisonBackend* b : selected)
        {
            if (!b->PerParameterSource())
            {
                run(b, pt);
            }
        }

        const PointVerdict verdict = JudgePoint(pt, context, answers);
        for (const BackendAnswer& a : answers)
        {
            rows.push_back(MakeRow(setup, bytes, a, verdict));
            // In schedule order, not delivery order: a step's ops together.
            std::vector<ExecutedOp> ops = a.ops;
            std::sort(ops.begin(), ops.end(), [](const ExecutedOp& x, const ExecutedOp& y) { return x.op < y.op; });
            for (const ExecutedOp& op : ops)
            {
                c.perOp(PerOpRow(setup, bytes, a, op));
            }
            if (stoppedAt.empty() && !a.stoppedAt.empty())
            {
                stoppedAt = a.stoppedAt;
                stoppedBackend = a.backend;
            }
        }
    }
    if (!stoppedAt.empty())
    {
        throw PacketRunStopped(stoppedAt, std::move(rows));
    }
    return rows;
}

} // namespace ns3
