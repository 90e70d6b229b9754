// SPDX-License-Identifier: GPL-2.0-only
#include "accuracy-runner.h"

#include "accuracy-ablation.h"
#include "accuracy-metric.h"
#include "input-error.h"

#include "ns3/nstime.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <sstream>

namespace ns3
{

bool
HasSymError(const ResultRow& r)
{
    return r.Has("sym_error") && !std::holds_alternative<std::monostate>(r.Get("sym_error"));
}

namespace
{

bool
IsJudged(const ResultRow& r, const AccuracyExpectation& x)
{
    return r.GetString("backend") == x.backend && r.GetString("params") == x.params;
}

/// Tags \p rows with experiment, variant and the symmetric error against the
/// packet row of the same size and appends them to \p out; the judged
/// backend's errors go to \p judged. Returns the packet time per size.
std::map<uint64_t, double>
AddVariantRows(const AccuracyExperiment& e,
               const std::string& label,
               std::vector<ResultRow> rows,
               std::vector<ResultRow>& out,
               std::vector<double>& judged)
{
    std::map<uint64_t, double> packet; // bytes -> packet time
    for (const ResultRow& r : rows)
    {
        if (r.GetString("backend") == "packet")
        {
            packet[static_cast<uint64_t>(r.GetDouble("bytes"))] = r.GetDouble("time_s");
        }
    }
    for (ResultRow& r : rows)
    {
        const uint64_t bytes = static_cast<uint64_t>(r.GetDouble("bytes"));
        r.Set("experiment", e.id).Set("variant", label);
        if (packet.count(bytes) && r.GetString("backend") != "packet")
        {
            const double sym = SymmetricError(r.GetDouble("time_s"), packet[bytes]);
            r.Set("sym_error", sym);
            if (IsJudged(r, e.expect))
            {
                judged.push_back(sym);
            }
        }
        else
        {
            r.SetNull("sym_error");
        }
        out.push_back(r);
    }
    return packet;
}

/// Runs one variant: its rows (AddVariantRows), its time series and its
/// ablation go to \p out; the judged backend's errors to \p judged.
void
RunVariant(const AccuracyExperiment& e,
           const std::pair<std::string, nlohmann::json>& variant,
           bool full,
           bool forceMemory,
           const std::function<void(const std::string&)>& progress,
           ExperimentOutcome& out,
           std::vector<double>& judged)
{
    const std::string& label = variant.first;
    ComparisonConfig c = VariantConfig(e, variant, full);
    c.fabric.forceMemory = forceMemory;
    if (progress)
    {
        progress(e.id + " / " + label + ": " + std::to_string(c.sizes.size()) + " size(s)");
    }
    const std::map<uint64_t, double> packet = AddVariantRows(e, label, RunComparison(c, progress), out.rows, judged);
    if (e.traces)
    {
        if (progress)
        {
            progress(e.id + " / " + label + ": packet run with time series");
        }
        out.traces.emplace_back(label, RecordIncastTrace(c, MicroSeconds(1)));
    }
    if (e.assumptions)
    {
        for (ResultRow& r : RunAssumptionAblation(c, e.n0Bytes, packet, progress))
        {
            r.Set("experiment", e.id).Set("variant", label);
            out.assumptionRows.push_back(r);
        }
    }
}

/// The largest fall of the time from one rank count to the next larger one,
/// per size, of the packet curve and of the judged backend's curve: > 0 is a
/// curve that goes down while N goes up (the non-monotone ring).
struct Falls
{
    double packet = -std::numeric_limits<double>::infinity();
    double analytic = -std::numeric_limits<double>::infinity();
};

Falls
LargestFalls(const std::vector<ResultRow>& rows, const AccuracyExpectation& expect)
{
    std::map<std::pair<std::string, uint64_t>, std::map<uint64_t, double>> curves; // (backend, bytes) -> ranks -> t
    for (const ResultRow& r : rows)
    {
        const std::string b = r.GetString("backend");
        if (b == "packet" || IsJudged(r, expect))
        {
            curves[{b, static_cast<uint64_t>(r.GetDouble("bytes"))}][static_cast<uint64_t>(r.GetDouble("ranks"))] =
                r.GetDouble("time_s");
        }
    }
    Falls falls;
    for (const auto& [key, curve] : curves)
    {
        double prev = -1;
        for (const auto& [n, t] : curve)
        {
            if (prev > 0)
            {
                double& d = key.first == "packet" ? falls.packet : falls.analytic;
                d = std::max(d, (prev - t) / prev);
            }
            prev = t;
        }
    }
    return falls;
}

/// max | min | median of \p v (not empty).
double
Statistic(const std::string& metric, const std::vector<double>& v)
{
    if (metric == "max")
    {
        return *std::max_element(v.begin(), v.end());
    }
    if (metric == "min")
    {
        return *std::min_element(v.begin(), v.end());
    }
    return MedianOf(v);
}

void
JudgeRecovery(const AccuracyExperiment& e, ExperimentOutcome& out)
{
    std::vector<double> v;
    for (const ResultRow& r : out.rows)
    {
        if (IsJudged(r, e.recovery) && HasSymError(r))
        {
            v.push_back(r.GetDouble("sym_error"));
        }
    }
    if (v.empty())
    {
        throw InputError(e.file + ": recover", "no " + e.recovery.backend + "/" + e.recovery.params + " rows");
    }
    out.recoveryMeasured = Statistic(e.recovery.metric, v);
    out.recovered = out.recoveryMeasured >= e.recovery.min && out.recoveryMeasured <= e.recovery.max;
}

/// backend/params -> the smallest and largest symmetric error of its points.
std::map<std::string, std::pair<double, double>>
ErrorSpans(const std::vector<ResultRow>& rows)
{
    std::map<std::string, std::pair<double, double>> span;
    for (const ResultRow& r : rows)
    {
        if (!HasSymError(r) || r.GetString("backend") == "packet")
        {
            continue;
        }
        const std::string key = r.GetString("backend") + "/" + r.GetString("params");
        const double v = r.GetDouble("sym_error");
        auto it = span.find(key);
        if (it == span.end())
        {
            span[key] = {v, v};
        }
        else
        {
            it->second.first = std::min(it->second.first, v);
            it->second.second = std::max(it->second.second, v);
        }
    }
    return span;
}

/// The paragraph: the claim, the measured value and verdict, the correction,
/// the range each analytic answer spans.
std::string
Summary(const AccuracyExperiment& e, const ExperimentOutcome& out, size_t judgedPoints, const Falls& falls)
{
    std::ostringstream p;
    if (e.expect.metric == "packet_drop")
    {
        p << "Claim: " << e.seedClaim << ". Largest fall of the packet-level time as N grows: **"
          << PercentText(falls.packet) << "** (the " << e.expect.backend << "/" << e.expect.params << " curve: "
          << (falls.analytic > 0 ? "falls by " + PercentText(falls.analytic) : std::string("never falls")) << ").";
        p << " Judged on the packet curve (" << judgedPoints << " points beside it): **" << PercentText(out.measured);
    }
    else
    {
        p << "Claim: " << e.seedClaim << ". Measured " << e.expect.metric << " symmetric error of " << e.expect.backend
          << " (" << e.expect.params << ") against packet over " << judgedPoints << " point(s): **"
          << PercentText(out.measured);
    }
    p << "** (expected " << PercentText(e.expect.min) << " .. "
      << (e.expect.max > 1e299 ? std::string("inf") : PercentText(e.expect.max)) << ") -> **"
      << (out.confirmed ? "confirmed" : "refuted") << "**.";
    if (e.hasRecovery)
    {
        p << " Correction: " << e.recovery.metric << " symmetric error of " << e.recovery.backend << " ("
          << e.recovery.params << ") **" << PercentText(out.recoveryMeasured) << "** (expected at most "
          << PercentText(e.recovery.max) << ") -> **" << (out.recovered ? "recovers" : "does not recover") << "**.";
    }
    p << " Range per answer:";
    bool first = true;
    for (const auto& [k, v] : ErrorSpans(out.rows))
    {
        p << (first ? " " : "; ") << k << " " << PercentText(v.first) << " .. " << PercentText(v.second);
        first = false;
    }
    p << ".";
    return p.str();
}

} // namespace

ExperimentOutcome
RunAccuracyExperiment(const AccuracyExperiment& e,
                      bool full,
                      std::function<void(const std::string&)> progress,
                      bool forceMemory)
{
    const auto t0 = std::chrono::steady_clock::now();
    ExperimentOutcome out;
    out.experiment = e;
    std::vector<double> judged;
    for (const auto& variant : e.variants)
    {
        RunVariant(e, variant, full, forceMemory, progress, out, judged);
    }
    const Falls falls = LargestFalls(out.rows, e.expect);
    if (judged.empty())
    {
        throw InputError(e.file + ": expect", "no " + e.expect.backend + " rows with params " + e.expect.params +
                                                  " beside a packet row; expected the scenario to run both");
    }
    out.measured = e.expect.metric == "packet_drop" ? falls.packet : Statistic(e.expect.metric, judged);
    out.confirmed = out.measured >= e.expect.min && out.measured <= e.expect.max;
    if (e.hasRecovery)
    {
        JudgeRecovery(e, out);
    }
    out.summary = Summary(e, out, judged.size(), falls);
    out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

std::vector<ResultRow>
AccuracyTable(const std::vector<ExperimentOutcome>& outcomes)
{
    std::vector<ResultRow> rows;
    for (const auto& o : outcomes)
    {
        const AccuracyExperiment& e = o.experiment;
        ResultRow r;
        r.Set("experiment", e.id)
            .Set("seed_claim", e.seedClaim)
            .Set("judged", e.expect.backend + "/" + e.expect.params + " " + e.expect.metric)
            .Set("measured_error", o.measured)
            .Set("expected_min_error", e.expect.min)
            .Set("expected_max_error", e.expect.max > 1e299 ? std::numeric_limits<double>::infinity() : e.expect.max)
            .Set("verdict", o.confirmed ? "confirmed" : "refuted")
            .Set("correction", e.hasRecovery ? e.recovery.backend + " " + PercentText(o.recoveryMeasured) +
                                                   (o.recovered ? " (recovers)" : " (does not recover)")
                                             : std::string("-"))
            .Set("points", static_cast<uint64_t>(o.rows.size()))
            .Set("wall_s", o.wallSeconds);
        rows.push_back(r);
    }
    return rows;
}

} // namespace ns3
