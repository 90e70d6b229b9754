// SPDX-License-Identifier: GPL-2.0-only
//
// Calibrate: groups the samples, reduces each group to per-step points, and
// for every requested model fits it (calibration-fits.h), places its
// bootstrap intervals, computes the residuals and error bands, and states
// what the data cannot give (calibration-diagnostics.h).
#include "calibration.h"

#include "alpha-beta-model.h"
#include "calibration-diagnostics.h"
#include "calibration-fits.h"
#include "input-error.h"
#include "nccl-protocol.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyCalibration");

namespace
{

using namespace calibration;

std::string
Fmt(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::string
FormText(const std::string& collective, uint32_t ranks, const RingSteps& rs)
{
    std::ostringstream os;
    if (collective == "p2p" || collective == "sendrecv")
    {
        os << "point-to-point: T = t(S)";
    }
    else
    {
        os << collective << " per step of compare's closed form: T = " << Fmt(rs.steps) << " x t(m), m = "
           << Fmt(rs.bytesPerStep) << " x S (N = " << ranks << ")";
    }
    return os.str();
}

void
SetEstimate(ParameterEstimate& e, double v, const std::pair<double, double>& ci)
{
    e.value = v;
    // A percentile interval from few or skewed resamples can miss the estimate
    // itself; the reported interval always contains it.
    e.lo = std::isfinite(ci.first) ? std::min(ci.first, v) : NAN;
    e.hi = std::isfinite(ci.second) ? std::max(ci.second, v) : NAN;
}

struct GroupKey
{
    std::string collective;
    uint32_t ranks;
    std::string series;
    MeasurementKind kind;

    bool operator<(const GroupKey& o) const
    {
        return std::tie(collective, ranks, series, kind) < std::tie(o.collective, o.ranks, o.series, o.kind);
    }
};

// The samples by group, each group split by placement.
struct SampleGroups
{
    std::map<GroupKey, std::vector<const MeasurementSample*>> byPlacement[2]; ///< [0] out-of-place, [1] in-place
    std::map<GroupKey, uint32_t> excludedWrong;                              ///< rows with #wrong > 0
    std::set<std::string> defaultedP2p; ///< files read as point-to-point for naming no collective

    std::set<GroupKey> Keys() const
    {
        std::set<GroupKey> keys;
        for (const auto& g : byPlacement)
        {
            for (const auto& [k, v] : g)
            {
                keys.insert(k);
            }
        }
        return keys;
    }
};

void
CheckModels(const CalibrationOptions& opt)
{
    for (const auto& m : opt.models)
    {
        if (m != "alphabeta" && m != "scurve" && m != "protocol" && m != "loggp" && m != "launch")
        {
            throw InputError("--model", "expected alphabeta, scurve, protocol, loggp or launch, got '" + m + "'");
        }
    }
}

// The normalised --collective ("" when not given).
std::string
WantedCollective(const CalibrationOptions& opt)
{
    std::string wanted;
    if (!opt.collective.empty())
    {
        wanted = NormalizeCollectiveName(opt.collective);
        if (wanted.empty())
        {
            throw InputError("--collective",
                             "expected allreduce, allgather, reducescatter, alltoall, broadcast, reduce, "
                             "sendrecv or p2p, got '" +
                                 opt.collective + "'");
        }
    }
    return wanted;
}

// The collective \p s is fitted as; "" when the --collective filter drops it.
std::string
SampleCollective(const MeasurementSample& s, const std::string& wanted, std::set<std::string>& defaultedP2p)
{
    std::string coll = s.collective;
    if (coll.empty())
    {
        if (!wanted.empty())
        {
            coll = wanted;
        }
        else if (s.busbwBps < 0)
        {
            // A plain table of size and time: messages between two endpoints.
            coll = "p2p";
            defaultedP2p.insert(s.file);
        }
        else
        {
            throw InputError(s.Where(), "expected the log to name its collective (its busbw / algbw "
                                        "does not tell); give --collective");
        }
    }
    else if (!wanted.empty() && coll != wanted)
    {
        return "";
    }
    return coll;
}

uint32_t
SampleRanks(const MeasurementSample& s, const std::string& coll, const CalibrationOptions& opt)
{
    uint32_t ranks = s.ranks ? s.ranks : opt.ranks;
    if (coll == "p2p" || coll == "sendrecv")
    {
        ranks = ranks ? ranks : 2;
    }
    else if (ranks < 2)
    {
        throw InputError(s.Where(), "expected the number of ranks of the " + coll +
                                        " (no rank lines, and busbw / algbw do not tell); give --ranks");
    }
    return ranks;
}

SampleGroups
GroupSamples(const MeasurementSet& set, const CalibrationOptions& opt, const std::string& wanted)
{
    SampleGroups groups;
    for (const auto& s : set.samples)
    {
        std::string coll = SampleCollective(s, wanted, groups.defaultedP2p);
        if (coll.empty())
        {
            continue;
        }
        GroupKey key{coll, SampleRanks(s, coll, opt), s.series, s.kind};
        if (s.wrong > 0)
        {
            ++groups.excludedWrong[key];
            continue;
        }
        groups.byPlacement[s.inPlace ? 1 : 0][key].push_back(&s);
    }
    return groups;
}

// One group reduced to what every model's fit of it shares.
struct GroupData
{
    GroupKey key;
    bool useIp = false;
    RingSteps rs;
    Points pts;
    std::set<std::string> files;
    std::vector<std::string> common; ///< diagnostics of every model's fit
    uint32_t hosts = 1;              ///< the most hosts a log of the group names (1 when none does)
    bool hostsKnown = false;         ///< a log of the group has rank lines
    bool singleProcess = false;      ///< a log of the group is a single-process run
    bool processesKnown = false;     ///< a log of the group says how it was launched
};

// Each sample as `steps` messages of m bytes taking T / steps each.
void
AddPoints(GroupData& g, const std::vector<const MeasurementSample*>& samples, std::set<size_t>& srcIdx)
{
    for (const auto* s : samples)
    {
        FitPoint p;
        p.steps = g.rs.steps;
        p.m = g.rs.StepBytes(static_cast<double>(s->bytes));
        p.mBytes = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(p.m)));
        p.y = s->timeS / g.rs.steps;
        p.bytes = s->bytes;
        p.timeS = s->timeS;
        p.where = s->Where();
        g.pts.push_back(p);
        srcIdx.insert(s->source);
        g.files.insert(s->file);
    }
}

GroupData
PrepareGroup(const MeasurementSet& set,
             const CalibrationOptions& opt,
             const SampleGroups& groups,
             const GroupKey& key)
{
    GroupData g;
    g.key = key;
    g.useIp = opt.inPlace ? groups.byPlacement[1].count(key) > 0 : groups.byPlacement[0].count(key) == 0;
    const auto& samples = groups.byPlacement[g.useIp ? 1 : 0].at(key);
    if (opt.inPlace && !g.useIp)
    {
        g.common.push_back("no in-place samples: the out-of-place ones are fitted");
    }
    else if (g.useIp && !opt.inPlace)
    {
        g.common.push_back("in-place samples only: the log has no out-of-place column");
    }
    if (groups.excludedWrong.count(key))
    {
        g.common.push_back(std::to_string(groups.excludedWrong.at(key)) + " rows with #wrong > 0 excluded");
    }
    g.rs = CollectiveRingSteps(key.collective, key.ranks, "--collective");
    std::set<size_t> srcIdx;
    AddPoints(g, samples, srcIdx);
    SourceDiagnostics(set, srcIdx, g.common);
    for (size_t i : srcIdx)
    {
        const MeasurementSource& src = set.sources[i];
        g.hosts = std::max(g.hosts, src.hosts);
        g.hostsKnown = g.hostsKnown || src.hosts > 0;
        g.singleProcess = g.singleProcess || src.SingleProcess();
        g.processesKnown = g.processesKnown || src.processes > 0 || src.gpusPerThread > 0 || src.threads > 0;
    }
    if (key.collective == "p2p")
    {
        for (const auto& f : g.files)
        {
            if (groups.defaultedP2p.count(f))
            {
                g.common.push_back(f + ": names no collective: read as point-to-point messages (give "
                                       "--collective otherwise)");
            }
        }
    }
    return g;
}

// The fit's fields that do not depend on the fitted parameters.
CalibrationFit
NewFit(const GroupData& g, const std::string& model)
{
    CalibrationFit fit;
    fit.model = model;
    fit.collective = g.key.collective;
    fit.ranks = g.key.ranks;
    fit.series = g.key.series;
    fit.kind = g.key.kind;
    fit.inPlace = g.useIp;
    fit.steps = g.rs.steps;
    fit.busbwFactor = g.rs.busbwFactor;
    fit.form = FormText(g.key.collective, g.key.ranks, g.rs);
    fit.samples = static_cast<uint32_t>(g.pts.size());
    fit.sources.assign(g.files.begin(), g.files.end());
    fit.diagnostics = g.common;
    fit.bands = CalibrationBands();
    return fit;
}

std::string
NoFitDiagnostic(const std::string& model, const Points& pts)
{
    size_t need = model == "protocol" ? 6 : (model == "scurve" ? 3 : 2);
    return model + ": no admissible fit (" + std::to_string(DistinctSizes(pts)) +
           " distinct sizes; needs at least " + std::to_string(need) +
           (model == "protocol" ? ", two per segment, with steps >= 0" : "") + ")";
}

// The protocol thresholds n1, n2 (p[4], p[5]): a threshold is only known to
// lie in (previous size, size].
void
SetThresholdEstimates(CalibrationFit& fit,
                      const Points& pts,
                      const Params& p,
                      const std::vector<std::pair<double, double>>& ci)
{
    auto u = SortedSizes(pts);
    for (int t = 0; t < 2; ++t)
    {
        double v = p[4 + t];
        auto it = std::lower_bound(u.begin(), u.end(), static_cast<uint64_t>(v));
        double prev = it == u.begin() ? v : static_cast<double>(*(it - 1) + 1);
        auto c = ci[4 + t];
        c.first = std::isfinite(c.first) ? std::min(c.first, prev) : prev;
        c.second = std::isfinite(c.second) ? std::max(c.second, v) : v;
        SetEstimate(t == 0 ? fit.eagerLimitBytes : fit.rendezvousLimitBytes, v, c);
    }
}

// n* of the fitted alpha-beta family model, by the analytic model itself.
double
CrossoverOf(const std::string& model, const Params& p, size_t bi)
{
    Ptr<AlphaBetaModel> ab = CreateObject<AlphaBetaModel>();
    ab->SetAttribute("Alpha", TimeValue(SecondsToTime(p[0])));
    ab->SetAttribute("Beta", DataRateValue(DataRate(static_cast<uint64_t>(std::llround(p[bi] * 8)))));
    if (model == "alphabeta")
    {
        return AlphaBetaModel::Crossover(p[0], p[1]);
    }
    if (model == "scurve")
    {
        ab->SetAttribute("SCurve", BooleanValue(true));
        ab->SetAttribute("N0", UintegerValue(std::max<uint64_t>(1, std::llround(p[2]))));
        return ab->CrossoverBytes();
    }
    ab->SetAttribute("ProtocolSwitch", BooleanValue(true));
    ab->SetAttribute("EagerAlpha", TimeValue(SecondsToTime(p[0])));
    ab->SetAttribute("RendezvousRtt", TimeValue(SecondsToTime(p[1])));
    ab->SetAttribute("PipelineSetup", TimeValue(SecondsToTime(p[2])));
    ab->SetAttribute("EagerLimit", UintegerValue(static_cast<uint64_t>(p[4])));
    ab->SetAttribute("RendezvousLimit", UintegerValue(static_cast<uint64_t>(p[5])));
    return ab->CrossoverBytes();
}

// alphabeta, scurve and protocol: alpha, beta and the model's own parameters.
void
SetAlphaBetaEstimates(CalibrationFit& fit,
                      const Points& pts,
                      const Params& p,
                      const std::vector<std::pair<double, double>>& ci)
{
    const std::string& model = fit.model;
    SetEstimate(fit.alphaS, p[0], ci[0]);
    size_t bi = model == "protocol" ? 3 : 1;
    SetEstimate(fit.betaBps, p[bi], ci[bi]);
    if (model == "scurve")
    {
        SetEstimate(fit.n0Bytes, p[2], ci[2]);
    }
    if (model == "protocol")
    {
        SetEstimate(fit.rendezvousRttS, p[1], ci[1]);
        SetEstimate(fit.pipelineSetupS, p[2], ci[2]);
        SetThresholdEstimates(fit, pts, p, ci);
    }
    fit.crossoverBytes = CrossoverOf(model, p, bi);
}

void
SetLogGpEstimates(CalibrationFit& fit,
                  const Params& p,
                  const std::vector<std::pair<double, double>>& ci,
                  const CalibrationOptions& opt)
{
    if (fit.kind == MeasurementKind::LATENCY)
    {
        SetEstimate(fit.twoOPlusLS, p[0], ci[0]);
        SetEstimate(fit.GSPerByte, p[1], ci[1]);
        if (opt.overheadS >= 0)
        {
            fit.oS.value = opt.overheadS;
            SetEstimate(fit.LS,
                        p[0] - 2 * opt.overheadS,
                        {ci[0].first - 2 * opt.overheadS, ci[0].second - 2 * opt.overheadS});
        }
    }
    else
    {
        SetEstimate(fit.gS, p[0], ci[0]);
        SetEstimate(fit.GSPerByte, p[1], ci[1]);
    }
}

// Residuals and the error by band, on the log's own size and time.
void
SetResiduals(CalibrationFit& fit, const Points& pts, const Params& p)
{
    double sum = 0;
    double mx = 0;
    std::vector<double> bandSum(fit.bands.size(), 0);
    for (const auto& pt : pts)
    {
        CalibrationResidual r;
        r.bytes = pt.bytes;
        r.stepBytes = pt.m;
        r.timeS = pt.timeS;
        r.fittedS = pt.steps * Predict(fit.model, fit.kind, p, pt);
        r.relative = (r.fittedS - r.timeS) / r.timeS;
        r.where = pt.where;
        fit.residuals.push_back(r);
        sum += r.relative * r.relative;
        mx = std::max(mx, std::fabs(r.relative));
        for (size_t b = 0; b < fit.bands.size(); ++b)
        {
            if (pt.bytes >= fit.bands[b].loBytes && pt.bytes < fit.bands[b].hiBytes)
            {
                ++fit.bands[b].count;
                bandSum[b] += r.relative * r.relative;
            }
        }
    }
    fit.rmsError = std::sqrt(sum / pts.size());
    fit.maxError = mx;
    for (size_t b = 0; b < fit.bands.size(); ++b)
    {
        if (fit.bands[b].count)
        {
            fit.bands[b].rms = std::sqrt(bandSum[b] / fit.bands[b].count);
        }
    }
}

// launch: the software floor, T = launch + NCCL's latency floor
// (NcclLatencyFloor over the group's hosts) on the sizes below 64 KiB,
// where the floor is the time; the launch is what the log has above
// NCCL's own latencies (a single process's serialized kernel launches).
CalibrationFit
FitLaunchGroup(const GroupData& g, const CalibrationOptions& opt)
{
    CalibrationFit fit = NewFit(g, "launch");
    const uint64_t below = 64 * 1024;
    std::optional<Time> floor;
    const uint32_t nodes =
        opt.gpusPerNode ? std::max<uint32_t>(1, (g.key.ranks + opt.gpusPerNode - 1) / opt.gpusPerNode) : g.hosts;
    if (!opt.gpusPerNode && !g.hostsKnown && g.key.ranks > 1)
    {
        fit.diagnostics.push_back("launch: the log names no hosts: one node assumed (give --gpus-per-node)");
    }
    try
    {
        floor = NcclLatencyFloor(ParseCollectiveKind(g.key.collective, "--collective"), g.key.ranks, nodes);
    }
    catch (const InputError&)
    {
        // p2p and sendrecv: no collective, no NCCL floor (below).
    }
    Points pts;
    for (FitPoint pt : g.pts)
    {
        if (floor && pt.bytes < below)
        {
            pt.floorS = floor->GetSeconds();
            pts.push_back(pt);
        }
    }
    fit.samples = static_cast<uint32_t>(pts.size());
    if (!floor)
    {
        fit.diagnostics.push_back("launch: NCCL's latency floor is known for allreduce, allgather and "
                                  "reducescatter only");
        return fit;
    }
    fit.form = "T = launch + " + Fmt(floor->GetMicroSeconds()) + " us (NCCL's LL latency, " +
               std::to_string(g.key.ranks) + " ranks on " + std::to_string(nodes) + " node(s)), sizes < 64 KiB";
    RawFit raw = FitModel("launch", g.key.kind, pts);
    if (!raw.ok)
    {
        fit.diagnostics.push_back("launch: no admissible fit (" + std::to_string(pts.size()) +
                                  " samples below 64 KiB; need 2)");
        return fit;
    }
    fit.ok = true;
    auto ci = Bootstrap("launch", g.key.kind, pts, raw, opt, fit.resamples);
    if (raw.p[0] < 0)
    {
        fit.diagnostics.push_back("launch: the log's floor is below NCCL's latencies (" + Fmt(raw.p[0] * 1e6) +
                                  " us): no launch overhead, held at 0");
        raw.p[0] = 0;
    }
    fit.launchOverheadS.value = raw.p[0];
    fit.launchOverheadS.lo = ci[0].first;
    fit.launchOverheadS.hi = ci[0].second;
    fit.diagnostics.push_back(
        g.singleProcess    ? "launch: a single-process run: the host launches every GPU's kernel in turn; "
                             "use it as --launch-overhead for single-process runs only"
        : g.processesKnown ? "launch: one process per GPU: expected near 0 (NCCL's baseLat is the floor)"
                           : "launch: the log does not say how it was launched (single-process runs have a "
                             "launch of tens of us, one process per GPU about 0)");
    SetResiduals(fit, pts, raw.p);
    return fit;
}

CalibrationFit
FitGroup(const GroupData& g, const std::string& model, const CalibrationOptions& opt)
{
    if (model == "launch")
    {
        return FitLaunchGroup(g, opt);
    }
    CalibrationFit fit = NewFit(g, model);
    RawFit raw = g.pts.empty() ? RawFit() : FitModel(model, g.key.kind, g.pts);
    if (!raw.ok)
    {
        fit.diagnostics.push_back(NoFitDiagnostic(model, g.pts));
        return fit;
    }
    fit.ok = true;
    auto ci = Bootstrap(model, g.key.kind, g.pts, raw, opt, fit.resamples);
    if (model == "alphabeta" || model == "scurve" || model == "protocol")
    {
        SetAlphaBetaEstimates(fit, g.pts, raw.p, ci);
    }
    else
    {
        SetLogGpEstimates(fit, raw.p, ci, opt);
    }
    SetResiduals(fit, g.pts, raw.p);
    ModelDiagnostics(fit, g.pts, opt);
    NS_LOG_INFO(model << " " << g.key.collective << " N=" << g.key.ranks << ": rms " << fit.rmsError);
    return fit;
}

} // namespace

std::vector<CalibrationFit>
Calibrate(const MeasurementSet& set, const CalibrationOptions& opt)
{
    CheckModels(opt);
    std::string wanted = WantedCollective(opt);
    SampleGroups groups = GroupSamples(set, opt, wanted);
    std::set<GroupKey> keys = groups.Keys();
    if (keys.empty())
    {
        throw InputError("--collective", "expected samples of '" + wanted + "', the input has none");
    }
    std::vector<CalibrationFit> fits;
    for (const auto& key : keys)
    {
        GroupData g = PrepareGroup(set, opt, groups, key);
        for (const auto& model : opt.models)
        {
            fits.push_back(FitGroup(g, model, opt));
        }
    }
    return fits;
}

} // namespace ns3
