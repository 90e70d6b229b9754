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
#include "packet-run-estimate.h"

#include <algorithm>
#include <csignal>
#include <iomanip>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

/// compare derives the analytic models' parameters for each link level (or
/// takes --alpha/--beta, model.o/model.g), so a default of those attributes
/// could not apply to any row: it is refused, naming what to set instead.
void
RefuseAnalyticAttributes()
{
    for (const char* a : {"Alpha", "Beta"})
    {
        RefuseUserAttribute(std::string("ns3::AlphaBetaModel::") + a,
                            "compare derives alpha and beta per link level from the topology; give --alpha and "
                            "--beta (or a scenario's model.alpha and model.beta) instead");
    }
    for (const char* a : {"L", "o", "g", "GapPerByte"})
    {
        RefuseUserAttribute(std::string("ns3::LogGpModel::") + a,
                            "the loggp backend derives L = alpha - 2o and G = 1/beta from alpha and beta; give "
                            "--alpha and --beta, or a scenario's model.o and model.g, instead");
    }
    RefuseUserAttribute("ns3::CollectiveExecutor::TimeLimit",
                        "compare sets each run's limit from a scenario's fabric.time_limit; set that instead");
    RefuseUserAttribute("ns3::CollectiveExecutor::CheckSchedule",
                        "compare checks each schedule once when it builds it and runs it unchecked");
}

/// A rank's busbw is the rate its own link must carry ((p-1)/p of the data of
/// an AllToAll or a ring step goes out through it), so an answer above the
/// fastest link a rank has cannot happen on the fabric: a contention-free
/// model (the closed form of all-at-once AllToAll, which sends the p - 1
/// messages in parallel at beta each) says so in the row.
std::optional<std::string>
CapacityWarning(const ResultRow& row, const BackendAnswer& a)
{
    const ComparisonPoint* p = a.parameters;
    if (!p || !a.stoppedAt.empty())
    {
        return std::nullopt;
    }
    double capacity = 0; // bytes per second
    for (const PointToPointParameters& level : {p->level[0], p->level[1], p->flat})
    {
        capacity = std::max(capacity, static_cast<double>(level.beta.GetBitRate()) / 8.0);
    }
    if (p->schedule.GetSwitchGroupCount() > 0 && p->spec.ranks > 1)
    {
        // In-switch reduction (nvls): a rank's link carries the buffer once
        // each way, so nccl-tests' busbw (factor 2(N-1)/N) reaches
        // 2(N-1)/N of the link on the fabric too.
        capacity *= 2.0 * (p->spec.ranks - 1) / p->spec.ranks;
    }
    const double busbw = row.GetDouble("busbw_GBps") * 1e9;
    if (capacity <= 0 || busbw <= capacity * (1 + 1e-9))
    {
        return std::nullopt;
    }
    std::ostringstream os;
    os << std::setprecision(4) << "busbw " << busbw / 1e9 << " GB/s exceeds the fastest link of a rank ("
       << capacity / 1e9 << " GB/s): the model runs a rank's messages in parallel, each at beta";
    return os.str();
}

/// The row's "protocol" when the NCCL model is on (rows without it keep the
/// columns they had): the point's, null for a point not built (interrupted).
void
SetProtocol(ResultRow& row, const ComparisonSetup& setup, const ComparisonPoint* pt)
{
    if (!setup.nccl)
    {
        return;
    }
    pt && pt->endpoint ? row.Set("protocol", ToString(pt->endpoint->protocol)) : row.SetNull("protocol");
}

/// The row of the answer \p a on \p pt (null: not built, the setup's algorithm) of \p setup.
ResultRow
MakeRow(const ComparisonSetup& setup,
        uint64_t bytes,
        const BackendAnswer& a,
        const PointVerdict& verdict,
        const ComparisonPoint* pt)
{
    const ComparisonConfig& c = setup.config;
    const Time t = a.time;
    const Time sw = c.model.softwareOverhead;
    ResultRow row;
    row.Set("collective", ToString(c.collective))
        .Set("algorithm", pt ? pt->spec.algorithm : setup.algorithm);
    SetProtocol(row, setup, pt);
    row.Set("ranks", static_cast<uint64_t>(setup.ranks))
        .Set("bytes", bytes)
        .Set("backend", a.backend)
        .Set("time_s", t.GetSeconds())
        .Set("algbw_GBps", AlgorithmBandwidth(bytes, t) / 1e9)
        .Set("busbw_GBps", BusBandwidth(c.collective, setup.ranks, bytes, t) / 1e9)
        .SetNull("error")
        .Set("regime", a.backend == "closed" ? verdict.closedRegime : verdict.regime);
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
    if (const std::optional<std::string> w = CapacityWarning(row, a))
    {
        row.Set("warning", *w);
    }
    row.Set("topology", c.topologyName.empty() ? std::string("none") : c.topologyName);
    for (const auto& [key, value] : a.columns.Fields())
    {
        row.Set(key, value);
    }
    if (!c.fabric.faults.empty() && !row.Has("faults_seen"))
    {
        // The analytic backends run the fault-free algebra; a backend that
        // models a fault type says so in its columns (packet, gbn).
        row.Set("faults_seen", "none");
    }
    return row;
}

/// The per-op row of \p op, one backend's run of a point of \p setup.
ResultRow
PerOpRow(const ComparisonSetup& setup,
         uint64_t bytes,
         const BackendAnswer& a,
         const ExecutedOp& op,
         const ComparisonPoint& pt)
{
    const ComparisonConfig& c = setup.config;
    ResultRow row;
    row.Set("collective", ToString(c.collective)).Set("algorithm", pt.spec.algorithm);
    SetProtocol(row, setup, &pt);
    row.Set("ranks", static_cast<uint64_t>(setup.ranks))
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

/// The answer of a backend not run because an earlier run stopped (at the
/// wall-clock limit: the packet backend; by an interrupt: every backend): no
/// time, status not-run-after-wall-limit or not-run-after-interrupt.
BackendAnswer
NotRunAfterStop(PacketStop kind)
{
    BackendAnswer a;
    a.reference = true;
    a.stoppedAt = "not run";
    a.stop = kind;
    a.columns.Set("status", kind == PacketStop::INTERRUPT ? "not-run-after-interrupt" : "not-run-after-wall-limit");
    return a;
}

volatile std::sig_atomic_t g_interrupt = 0;

/// How severe a stop is: the comparison reports its most severe one.
int
Severity(PacketStop kind)
{
    return kind == PacketStop::INTERRUPT ? 2 : kind == PacketStop::WALL_LIMIT ? 1 : 0;
}

/// Estimates every packet run of the comparison and refuses, before any
/// runs, one whose memory estimate exceeds the memory available
/// (CheckPacketRunMemory). Returns the estimate line of each size.
std::map<uint64_t, std::string>
EstimatePacketRuns(const ComparisonSetup& setup)
{
    const ComparisonConfig& c = setup.config;
    std::map<uint64_t, std::string> lines;
    if (!setup.Selected("packet") || !setup.graph)
    {
        return lines;
    }
    // The packet fabric is built from the graph's description (packetDesc).
    const TopologyGraph& packetGraph = *setup.graph;
    for (uint64_t bytes : c.sizes)
    {
        const ComparisonPoint pt = BuildPoint(setup, bytes);
        const std::string label = ToString(c.collective) + " " + pt.spec.algorithm + " " + std::to_string(bytes) +
                                  " B on " + std::to_string(setup.ranks) + " ranks";
        const PacketRunEstimate e = EstimatePacketRun(
            packetGraph, setup.fabric, ScheduleMessages(pt.schedule, [&pt](uint64_t b) {
                return pt.endpoint ? pt.endpoint->WireBytes(b) : b; // what the executor sends
            }));
        // A refusal is the one line on stderr (it names the estimate).
        CheckPacketRunMemory(e, label, setup.fabric.forceMemory, "--force-memory");
        lines[bytes] = e.Line(label);
    }
    return lines;
}

} // namespace

int
ExitStatusOf(PacketStop kind)
{
    return kind == PacketStop::INTERRUPT ? 130 : kind == PacketStop::WALL_LIMIT ? 3 : 4;
}

void
RequestPacketRunInterrupt()
{
    g_interrupt = 1;
}

bool
PacketRunInterrupted()
{
    return g_interrupt != 0;
}

void
ClearPacketRunInterrupt()
{
    g_interrupt = 0;
}

std::vector<ResultRow>
RunComparison(const ComparisonConfig& c, std::function<void(const std::string&)> progress)
{
    // Before the setup: it creates the models whose defaults these may set.
    const ScopedAttributeDefaults attributes(c.attributes);
    RefuseAnalyticAttributes();
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
    const std::map<uint64_t, std::string> estimates = EstimatePacketRuns(setup);
    std::vector<ResultRow> rows;
    CalibrationCache calibrationCache;
    std::string stoppedAt;      // the most severe stop so far: how far it got
    std::optional<PacketStop> stop; // and its kind
    std::string stoppedBackend; // the backend not run again (wall limit, interrupt)
    for (uint64_t bytes : c.sizes)
    {
        if (PacketRunInterrupted())
        {
            // Interrupted: no other size runs; each backend's row says so.
            if (!stop || Severity(*stop) < Severity(PacketStop::INTERRUPT))
            {
                stop = PacketStop::INTERRUPT;
                stoppedAt = "interrupted (SIGINT or SIGTERM) before " + std::to_string(bytes) + " B";
            }
            auto notRun = [&](const ComparisonBackend* b) {
                BackendAnswer a = NotRunAfterStop(PacketStop::INTERRUPT);
                a.backend = b->Name();
                rows.push_back(MakeRow(setup, bytes, a, PointVerdict{}, nullptr));
                rows.back().SetNull("regime");
            };
            // In the row order of a size that runs.
            for (size_t k = 0; k < c.params.size(); ++k)
            {
                for (const ComparisonBackend* b : selected)
                {
                    if (b->PerParameterSource())
                    {
                        notRun(b);
                    }
                }
            }
            for (const ComparisonBackend* b : selected)
            {
                if (!b->PerParameterSource())
                {
                    notRun(b);
                }
            }
            continue;
        }
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
        if (auto it = estimates.find(bytes); it != estimates.end())
        {
            context.packetEstimateLine = it->second;
        }
        std::vector<BackendAnswer> answers;
        auto run = [&](const ComparisonBackend* b, const ComparisonPoint& point) {
            // The backend of a run stopped at the wall-clock limit is not
            // run again; the others still answer every size.
            answers.push_back(b->Name() == stoppedBackend ? NotRunAfterStop(*stop) : b->Run(point, context));
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
            rows.push_back(MakeRow(setup, bytes, a, verdict, &pt));
            if (rows.back().Has("warning") && setup.progress)
            {
                setup.progress("warning: " + a.backend + " " + std::to_string(bytes) +
                               " B: " + rows.back().GetString("warning"));
            }
            // In schedule order, not delivery order: a step's ops together.
            std::vector<ExecutedOp> ops = a.ops;
            std::sort(ops.begin(), ops.end(), [](const ExecutedOp& x, const ExecutedOp& y) { return x.op < y.op; });
            for (const ExecutedOp& op : ops)
            {
                c.perOp(PerOpRow(setup, bytes, a, op, pt));
            }
            if (!a.stoppedAt.empty() && a.stoppedAt != "not run" && (!stop || Severity(a.stop) > Severity(*stop)))
            {
                stoppedAt = a.stoppedAt;
                stop = a.stop;
            }
            // After a run stopped by its wall-clock limit or an interrupt,
            // its backend is not run again (a larger size would only stop
            // again, after as long); one that did not finish in simulated
            // time says nothing of the next size, which runs.
            if (!a.stoppedAt.empty() && a.stop != PacketStop::UNFINISHED && stoppedBackend.empty())
            {
                stoppedBackend = a.backend;
            }
        }
    }
    if (stop)
    {
        throw PacketRunStopped(stoppedAt, std::move(rows), *stop);
    }
    return rows;
}

} // namespace ns3
