// SPDX-License-Identifier: GPL-2.0-only
#include "calibration.h"

#include "alpha-beta-model.h"
#include "input-error.h"
#include "loggp-model.h"
#include "units.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyCalibration");

namespace
{

// One sample reduced to one ring step: m bytes in y seconds.
struct FitPoint
{
    double m = 0;         // per-step message bytes
    uint64_t mBytes = 1;  // m rounded, >= 1 (the formulas take whole bytes)
    double y = 0;         // per-step time
    double steps = 1;
    uint64_t bytes = 0;   // the log's size
    double timeS = 0;     // the log's time
    std::string where;
};

using Points = std::vector<FitPoint>;

// Parameter vectors by model:
//   alphabeta [alpha, beta]   scurve [alpha, beta_max, n0]
//   protocol  [alpha_eager, rtt, pipeline, beta, n1, n2]
//   loggp     latency [2o+L, G]   throughput [floor, G]
using Params = std::vector<double>;

struct RawFit
{
    bool ok = false;
    Params p;
    double chi2 = std::numeric_limits<double>::infinity();
};

// --- model evaluation: the analytic module's formulas, nothing else --------

double
Predict(const std::string& model, MeasurementKind kind, const Params& p, const FitPoint& pt)
{
    if (model == "alphabeta")
    {
        return AlphaBetaModel::BaseTime(p[0], p[1], pt.m);
    }
    if (model == "scurve")
    {
        return AlphaBetaModel::BaseTime(p[0], AlphaBetaModel::SCurveBandwidth(p[1], pt.m, p[2]), pt.m);
    }
    if (model == "protocol")
    {
        double alpha = AlphaBetaModel::ProtocolAlpha(pt.mBytes,
                                                     static_cast<uint64_t>(p[4]),
                                                     static_cast<uint64_t>(p[5]),
                                                     p[0],
                                                     p[1],
                                                     p[2]);
        return AlphaBetaModel::BaseTime(alpha, p[3], pt.m);
    }
    // loggp. From size and time alone only 2o + L is identified: it is carried
    // in L's slot with o = 0, which leaves the formula's value unchanged.
    if (kind == MeasurementKind::LATENCY)
    {
        return LogGpModel::LogGpTime(p[0], 0.0, p[1], pt.mBytes);
    }
    // A stream's interval max(o, g + (n-1) G): its floor is max(o, g), carried in
    // o's slot with g = 0 (which of the two sets it is not identifiable).
    return LogGpModel::InjectionInterval(p[0], 0.0, p[1], pt.mBytes);
}

double
Chi2(const std::string& model, MeasurementKind kind, const Params& p, const Points& pts)
{
    double s = 0;
    for (const auto& pt : pts)
    {
        double r = (Predict(model, kind, p, pt) - pt.y) / pt.y;
        s += r * r;
    }
    return s;
}

// --- GSL least squares -----------------------------------------------------

// Minimises sum_i ((X_i . b - y_i) / y_i)^2 with gsl_multifit_wlinear (weights
// 1/y^2: relative error). X rows are given by a column function.
bool
RelativeLinearFit(const Points& pts,
                  size_t p,
                  const std::function<void(const FitPoint&, double*)>& row,
                  std::vector<double>& b)
{
    size_t n = pts.size();
    if (n < p)
    {
        return false;
    }
    gsl_matrix* X = gsl_matrix_alloc(n, p);
    gsl_vector* y = gsl_vector_alloc(n);
    gsl_vector* w = gsl_vector_alloc(n);
    gsl_vector* c = gsl_vector_alloc(p);
    gsl_matrix* cov = gsl_matrix_alloc(p, p);
    gsl_multifit_linear_workspace* work = gsl_multifit_linear_alloc(n, p);
    std::vector<double> r(p);
    for (size_t i = 0; i < n; ++i)
    {
        row(pts[i], r.data());
        for (size_t j = 0; j < p; ++j)
        {
            gsl_matrix_set(X, i, j, r[j]);
        }
        gsl_vector_set(y, i, pts[i].y);
        gsl_vector_set(w, i, 1.0 / (pts[i].y * pts[i].y));
    }
    double chisq = 0;
    int status = gsl_multifit_wlinear(X, w, y, c, cov, &chisq, work);
    b.assign(p, 0);
    bool ok = status == GSL_SUCCESS;
    for (size_t j = 0; j < p; ++j)
    {
        b[j] = gsl_vector_get(c, j);
        ok = ok && std::isfinite(b[j]);
    }
    gsl_multifit_linear_free(work);
    gsl_matrix_free(cov);
    gsl_vector_free(c);
    gsl_vector_free(w);
    gsl_vector_free(y);
    gsl_matrix_free(X);
    return ok;
}

struct NlinearData
{
    const Points* pts;
    std::function<double(const double*, const FitPoint&)> f;
};

int
NlinearResiduals(const gsl_vector* x, void* data, gsl_vector* out)
{
    auto* d = static_cast<NlinearData*>(data);
    for (size_t i = 0; i < d->pts->size(); ++i)
    {
        const FitPoint& pt = (*d->pts)[i];
        double v = d->f(x->data, pt);
        gsl_vector_set(out, i, std::isfinite(v) ? (v - pt.y) / pt.y : 1e30);
    }
    return GSL_SUCCESS;
}

// Levenberg-Marquardt (gsl_multifit_nlinear, finite-difference Jacobian) on
// the relative residuals of f; x is the start and the result.
bool
RelativeNonlinearFit(const Points& pts, std::function<double(const double*, const FitPoint&)> f, std::vector<double>& x)
{
    size_t n = pts.size();
    size_t p = x.size();
    if (n <= p)
    {
        return false;
    }
    NlinearData data{&pts, std::move(f)};
    gsl_multifit_nlinear_fdf fdf;
    fdf.f = NlinearResiduals;
    fdf.df = nullptr;
    fdf.fvv = nullptr;
    fdf.n = n;
    fdf.p = p;
    fdf.params = &data;
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace* w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, p);
    gsl_vector_view x0 = gsl_vector_view_array(x.data(), p);
    gsl_multifit_nlinear_init(&x0.vector, &fdf, w);
    int info = 0;
    int status = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, nullptr, nullptr, &info, w);
    bool ok = status == GSL_SUCCESS || status == GSL_EMAXITER;
    gsl_vector* xr = gsl_multifit_nlinear_position(w);
    for (size_t j = 0; j < p; ++j)
    {
        x[j] = gsl_vector_get(xr, j);
        ok = ok && std::isfinite(x[j]);
    }
    gsl_multifit_nlinear_free(w);
    return ok;
}

// --- the four fits ---------------------------------------------------------

size_t
DistinctSizes(const Points& pts)
{
    std::set<uint64_t> s;
    for (const auto& p : pts)
    {
        s.insert(p.mBytes);
    }
    return s.size();
}

RawFit
FitAlphaBeta(const Points& pts)
{
    RawFit out;
    if (DistinctSizes(pts) < 2)
    {
        return out;
    }
    std::vector<double> b;
    if (!RelativeLinearFit(pts, 2, [](const FitPoint& pt, double* r) { r[0] = 1; r[1] = pt.m; }, b))
    {
        return out;
    }
    if (b[0] < 0)
    {
        // A negative startup time is no physics: alpha is below what the data
        // resolve; refit with alpha = 0 (reported as not identifiable).
        std::vector<double> b1;
        if (!RelativeLinearFit(pts, 1, [](const FitPoint& pt, double* r) { r[0] = pt.m; }, b1))
        {
            return out;
        }
        b = {0.0, b1[0]};
    }
    if (!(b[1] > 0))
    {
        return out;
    }
    out.p = {b[0], 1.0 / b[1]};
    out.chi2 = Chi2("alphabeta", MeasurementKind::LATENCY, out.p, pts);
    out.ok = true;
    return out;
}

RawFit
FitSCurve(const Points& pts)
{
    RawFit best;
    if (DistinctSizes(pts) < 3)
    {
        return best;
    }
    double mMin = pts[0].m;
    double mMax = pts[0].m;
    for (const auto& p : pts)
    {
        mMin = std::min(mMin, p.m);
        mMax = std::max(mMax, p.m);
    }
    // Profile: for a fixed n0 the model is linear in alpha and 1/beta_max.
    const int kGrid = 64;
    double lo = std::log(mMin / 100);
    double hi = std::log(mMax * 10);
    for (int k = 0; k <= kGrid; ++k)
    {
        double n0 = std::exp(lo + (hi - lo) * k / kGrid);
        auto col = [n0](const FitPoint& pt) { return pt.m / AlphaBetaModel::SCurveBandwidth(1.0, pt.m, n0); };
        std::vector<double> b;
        if (!RelativeLinearFit(pts, 2, [&](const FitPoint& pt, double* r) { r[0] = 1; r[1] = col(pt); }, b))
        {
            continue;
        }
        if (b[0] < 0)
        {
            std::vector<double> b1;
            if (!RelativeLinearFit(pts, 1, [&](const FitPoint& pt, double* r) { r[0] = col(pt); }, b1))
            {
                continue;
            }
            b = {0.0, b1[0]};
        }
        if (!(b[1] > 0))
        {
            continue;
        }
        Params p{b[0], 1.0 / b[1], n0};
        double c = Chi2("scurve", MeasurementKind::LATENCY, p, pts);
        if (c < best.chi2)
        {
            best.ok = true;
            best.p = p;
            best.chi2 = c;
        }
    }
    if (!best.ok)
    {
        return best;
    }
    // Refine all three together; scaled so that the steps are comparable:
    // x = (alpha / alpha_grid, ln beta_max, ln n0).
    double aScale = best.p[0] > 0 ? best.p[0] : pts[0].y;
    std::vector<double> x{best.p[0] / aScale, std::log(best.p[1]), std::log(best.p[2])};
    auto f = [aScale](const double* v, const FitPoint& pt) {
        return AlphaBetaModel::BaseTime(v[0] * aScale,
                                        AlphaBetaModel::SCurveBandwidth(std::exp(v[1]), pt.m, std::exp(v[2])),
                                        pt.m);
    };
    if (RelativeNonlinearFit(pts, f, x) && x[0] >= 0)
    {
        Params p{x[0] * aScale, std::exp(x[1]), std::exp(x[2])};
        double c = Chi2("scurve", MeasurementKind::LATENCY, p, pts);
        if (c <= best.chi2)
        {
            best.p = p;
            best.chi2 = c;
        }
    }
    return best;
}

std::vector<uint64_t>
SortedSizes(const Points& pts)
{
    std::set<uint64_t> s;
    for (const auto& p : pts)
    {
        s.insert(p.mBytes);
    }
    return {s.begin(), s.end()};
}

// Levels (alpha_eager, rtt, pipeline) and 1/beta for thresholds n1 <= n2, by
// one linear fit; not admissible when a step is negative (protocol steps
// only add latency: a rendezvous handshake, a pipeline setup).
RawFit
FitProtocolLevels(const Points& pts, uint64_t n1, uint64_t n2)
{
    RawFit out;
    std::vector<double> c;
    auto row = [n1, n2](const FitPoint& pt, double* r) {
        r[0] = 1;
        r[1] = pt.mBytes >= n1 ? 1 : 0;
        r[2] = pt.mBytes >= n2 ? 1 : 0;
        r[3] = pt.m;
    };
    if (!RelativeLinearFit(pts, 4, row, c) || c[0] < 0 || c[1] < 0 || c[2] < 0 || !(c[3] > 0))
    {
        return out;
    }
    out.p = {c[0], c[1], c[2], 1.0 / c[3], static_cast<double>(n1), static_cast<double>(n2)};
    out.chi2 = Chi2("protocol", MeasurementKind::LATENCY, out.p, pts);
    out.ok = true;
    return out;
}

// Both thresholds at measured sizes, at least two sizes in each of the three
// segments; the admissible pair of least squares.
RawFit
FitProtocol(const Points& pts)
{
    RawFit best;
    auto u = SortedSizes(pts);
    size_t K = u.size();
    if (K < 6)
    {
        return best;
    }
    for (size_t a = 2; a + 4 <= K; ++a)
    {
        for (size_t b = a + 2; b + 2 <= K; ++b)
        {
            RawFit f = FitProtocolLevels(pts, u[a], u[b]);
            if (f.ok && f.chi2 < best.chi2)
            {
                best = f;
            }
        }
    }
    return best;
}

RawFit
FitLogGpLatency(const Points& pts)
{
    RawFit out;
    if (DistinctSizes(pts) < 2)
    {
        return out;
    }
    auto col = [](const FitPoint& pt) { return static_cast<double>(pt.mBytes - 1); };
    std::vector<double> b;
    if (!RelativeLinearFit(pts, 2, [&](const FitPoint& pt, double* r) { r[0] = 1; r[1] = col(pt); }, b))
    {
        return out;
    }
    if (b[0] < 0)
    {
        std::vector<double> b1;
        if (!RelativeLinearFit(pts, 1, [&](const FitPoint& pt, double* r) { r[0] = col(pt); }, b1))
        {
            return out;
        }
        b = {0.0, b1[0]};
    }
    if (!(b[1] > 0))
    {
        return out;
    }
    out.p = {b[0], b[1]};
    out.chi2 = Chi2("loggp", MeasurementKind::LATENCY, out.p, pts);
    out.ok = true;
    return out;
}

RawFit
FitLogGpThroughput(const Points& pts)
{
    RawFit best;
    auto u = SortedSizes(pts);
    for (size_t k = 1; k < u.size(); ++k)
    {
        Points low;
        Points high;
        for (const auto& p : pts)
        {
            (p.mBytes < u[k] ? low : high).push_back(p);
        }
        std::vector<double> f;
        std::vector<double> g;
        if (!RelativeLinearFit(low, 1, [](const FitPoint&, double* r) { r[0] = 1; }, f) ||
            !RelativeLinearFit(high,
                               1,
                               [](const FitPoint& pt, double* r) { r[0] = static_cast<double>(pt.mBytes - 1); },
                               g))
        {
            continue;
        }
        if (!(f[0] > 0) || !(g[0] > 0))
        {
            continue;
        }
        Params p{f[0], g[0]};
        double c = Chi2("loggp", MeasurementKind::THROUGHPUT, p, pts);
        if (c < best.chi2)
        {
            best.ok = true;
            best.p = p;
            best.chi2 = c;
        }
    }
    return best;
}

RawFit
FitModel(const std::string& model, MeasurementKind kind, const Points& pts)
{
    if (model == "alphabeta")
    {
        return FitAlphaBeta(pts);
    }
    if (model == "scurve")
    {
        return FitSCurve(pts);
    }
    if (model == "protocol")
    {
        return FitProtocol(pts);
    }
    return kind == MeasurementKind::LATENCY ? FitLogGpLatency(pts) : FitLogGpThroughput(pts);
}

// --- bootstrap -------------------------------------------------------------

double
Percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    double pos = q * (v.size() - 1);
    size_t i = static_cast<size_t>(std::floor(pos));
    size_t j = std::min(i + 1, v.size() - 1);
    return v[i] + (pos - i) * (v[j] - v[i]);
}

// Percentile intervals of every parameter over resamples of the points. For
// the protocol model the thresholds' intervals come from the full search in
// each resample, the levels' and beta's from the fit with the thresholds held
// at \p best's (conditional on the step positions: otherwise a resample that
// moves a threshold by one size swaps rtt and pipeline and the intervals say
// nothing about either).
std::vector<std::pair<double, double>>
Bootstrap(const std::string& model,
          MeasurementKind kind,
          const Points& pts,
          const RawFit& best,
          const CalibrationOptions& opt,
          uint32_t& used)
{
    size_t nParams = best.p.size();
    std::mt19937_64 rng(opt.seed);
    std::uniform_int_distribution<size_t> pick(0, pts.size() - 1);
    std::vector<std::vector<double>> draws(nParams);
    used = 0;
    Points sample(pts.size());
    for (uint32_t r = 0; r < opt.resamples; ++r)
    {
        for (auto& s : sample)
        {
            s = pts[pick(rng)];
        }
        RawFit f = FitModel(model, kind, sample);
        if (!f.ok)
        {
            continue;
        }
        if (model == "protocol")
        {
            RawFit levels = FitProtocolLevels(sample,
                                              static_cast<uint64_t>(best.p[4]),
                                              static_cast<uint64_t>(best.p[5]));
            if (!levels.ok)
            {
                continue;
            }
            std::copy(levels.p.begin(), levels.p.begin() + 4, f.p.begin());
        }
        ++used;
        for (size_t j = 0; j < nParams; ++j)
        {
            draws[j].push_back(f.p[j]);
        }
    }
    std::vector<std::pair<double, double>> ci(nParams, {NAN, NAN});
    // Fewer than 20 successful resamples cannot place a 95 % interval.
    if (used < 20)
    {
        return ci;
    }
    double tail = (1 - opt.confidence) / 2;
    for (size_t j = 0; j < nParams; ++j)
    {
        ci[j] = {Percentile(draws[j], tail), Percentile(draws[j], 1 - tail)};
    }
    return ci;
}

// --- reporting -------------------------------------------------------------

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

void
AddParameterFields(ResultRow& row, const std::string& name, const ParameterEstimate& e)
{
    auto put = [&](const std::string& key, double v) {
        if (std::isfinite(v))
        {
            row.Set(key, ResultRow::Value(v));
        }
        else
        {
            row.SetNull(key);
        }
    };
    put(name, e.value);
    put(name + "_lo", e.lo);
    put(name + "_hi", e.hi);
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

// What the log's provenance says the fit cannot give.
void
SourceDiagnostics(const MeasurementSet& set, const std::set<size_t>& sources, std::vector<std::string>& diag)
{
    for (size_t si : sources)
    {
        const MeasurementSource& s = set.sources[si];
        std::string where = s.file + ":" + std::to_string(s.firstLine);
        if (s.SingleProcess())
        {
            std::ostringstream os;
            os << where << ": single-process run (";
            if (s.gpusPerThread > 1)
            {
                os << "nGpus " << s.gpusPerThread;
            }
            else if (s.threads > 1)
            {
                os << "nThread " << s.threads;
            }
            else
            {
                os << s.ranks << " ranks in " << s.processes << " process(es)";
            }
            os << "): one host process launches every GPU's kernels, so the small-message time and alpha "
                  "include that launch overhead; alpha is an upper bound for a one-process-per-GPU job";
            diag.push_back(os.str());
        }
        else if (s.headerless && s.collective != "p2p")
        {
            diag.push_back(where + ": table without its nccl-tests header: whether one process drove several "
                                   "GPUs (-g > 1, launch overhead in alpha) cannot be told");
        }
        if (s.hosts > 1)
        {
            diag.push_back(where + ": ranks span " + std::to_string(s.hosts) +
                           " hosts: the ring mixes NVLink and network steps, so alpha and beta average a "
                           "heterogeneous ring (seed assumption 4)");
        }
        for (const auto& n : s.notes)
        {
            diag.push_back(n);
        }
    }
}

void
ModelDiagnostics(CalibrationFit& fit, const Points& pts, const CalibrationOptions& opt)
{
    auto& d = fit.diagnostics;
    auto wide = [](const ParameterEstimate& e) {
        return e.Known() && (!std::isfinite(e.lo) || !std::isfinite(e.hi) || e.hi - e.lo > e.value);
    };
    if (fit.kind == MeasurementKind::THROUGHPUT && fit.model != "loggp")
    {
        d.push_back("bandwidth-test data: the time is bytes / bandwidth of a stream, so alpha is the "
                    "per-message gap of a pipelined stream, not a one-message latency");
    }
    if ((fit.collective == "broadcast" || fit.collective == "reduce") && fit.ok)
    {
        d.push_back("per step of compare's unsliced chain, (N-1) steps of the whole buffer: NCCL pipelines "
                    "it, so beta here is (N-1) x the link's");
    }
    if (fit.model != "loggp" && fit.alphaS.Known())
    {
        double nStar = fit.crossoverBytes;
        size_t below = 0;
        for (const auto& p : pts)
        {
            below += (std::isfinite(nStar) && p.m < nStar) ? 1 : 0;
        }
        if (!(nStar > 0))
        {
            d.push_back("alpha not identifiable: every size is bandwidth-bound under the fitted model "
                        "(no crossover)");
        }
        else if (fit.alphaS.value == 0)
        {
            d.push_back("alpha not identifiable: the unconstrained fit is negative, so alpha is set to 0 "
                        "(sizes too far above the crossover)");
        }
        else if (below < 2)
        {
            d.push_back("alpha not identifiable: " + std::to_string(below) +
                        " sizes below the crossover n* = " + units::FormatBytes(static_cast<uint64_t>(nStar)) +
                        " (per step); alpha rests on the bandwidth regime");
        }
        else if (wide(fit.alphaS))
        {
            d.push_back("alpha poorly determined: its interval is wider than its value");
        }
    }
    if (fit.model == "scurve" && fit.n0Bytes.Known())
    {
        double n0 = fit.n0Bytes.value;
        size_t near = 0;
        double mMin = pts[0].m;
        double mMax = pts[0].m;
        for (const auto& p : pts)
        {
            near += (p.m > n0 / 3 && p.m < 3 * n0) ? 1 : 0;
            mMin = std::min(mMin, p.m);
            mMax = std::max(mMax, p.m);
        }
        if (n0 < mMin)
        {
            d.push_back("n0 not identifiable: the fitted n0 is below the smallest size, the data show no "
                        "S-curve (beta constant over the measured sizes)");
        }
        else if (mMin > 3 * n0)
        {
            d.push_back("n0 not identifiable: every size is above 3 n0, where beta(n) is within 5 % of "
                        "beta_max");
        }
        else if (mMax < 3 * n0)
        {
            d.push_back("beta_max not identifiable: no size reaches 3 n0; the curve never saturates");
        }
        else if (near < 2)
        {
            d.push_back("alpha and n0 not separable: fewer than 2 sizes within n0/3..3 n0; below n0 the "
                        "S-curve adds n0 / beta_max to alpha");
        }
        else if (wide(fit.n0Bytes))
        {
            d.push_back("n0 poorly determined: its interval is wider than its value");
        }
    }
    if (fit.model == "protocol" && fit.ok)
    {
        d.push_back("thresholds are known only to lie between two measured sizes (per-step bytes)");
    }
    if (fit.model == "loggp" && fit.ok)
    {
        if (fit.kind == MeasurementKind::LATENCY)
        {
            if (opt.overheadS < 0)
            {
                d.push_back("LogGP: from size and time only 2o + L and G are identifiable; o, L (and g, "
                            "which needs a message stream) are not, give --o to split 2o + L");
            }
            else
            {
                d.push_back("LogGP: L = (2o + L) - 2o with o given (--o); g needs a message stream");
            }
        }
        else
        {
            d.push_back("LogGP from a bandwidth test: the interval's floor max(o, g) is reported as g "
                        "(o <= g assumed); L and o need a latency test");
        }
        if (fit.collective != "p2p" && fit.collective != "sendrecv")
        {
            d.push_back("LogGP parameters of one ring step (a point-to-point message of m bytes)");
        }
    }
}

} // namespace

std::vector<BandError>
CalibrationBands()
{
    const uint64_t KiB = 1024;
    const uint64_t MiB = 1024 * KiB;
    return {{"lt_64KiB", 0, 64 * KiB, 0, NAN},
            {"64KiB_1MiB", 64 * KiB, MiB, 0, NAN},
            {"1MiB_64MiB", MiB, 64 * MiB, 0, NAN},
            {"ge_64MiB", 64 * MiB, std::numeric_limits<uint64_t>::max(), 0, NAN}};
}

ResultRow
CalibrationFit::ToRow() const
{
    ResultRow row;
    row.Set("model", model);
    row.Set("collective", collective);
    row.Set("ranks", static_cast<uint64_t>(ranks));
    if (series.empty())
    {
        row.SetNull("series");
    }
    else
    {
        row.Set("series", series);
    }
    row.Set("kind", kind == MeasurementKind::LATENCY ? "latency" : "throughput");
    row.Set("in_place", ResultRow::Value(inPlace));
    row.Set("samples", static_cast<uint64_t>(samples));
    AddParameterFields(row, "alpha_s", alphaS);
    AddParameterFields(row, "beta_Bps", betaBps);
    AddParameterFields(row, "n0_bytes", n0Bytes);
    AddParameterFields(row, "eager_limit_bytes", eagerLimitBytes);
    AddParameterFields(row, "rendezvous_limit_bytes", rendezvousLimitBytes);
    AddParameterFields(row, "rendezvous_rtt_s", rendezvousRttS);
    AddParameterFields(row, "pipeline_setup_s", pipelineSetupS);
    AddParameterFields(row, "L_s", LS);
    AddParameterFields(row, "o_s", oS);
    AddParameterFields(row, "g_s", gS);
    AddParameterFields(row, "G_s_per_byte", GSPerByte);
    AddParameterFields(row, "two_o_plus_L_s", twoOPlusLS);
    auto put = [&](const std::string& key, double v) {
        if (std::isfinite(v))
        {
            row.Set(key, ResultRow::Value(v));
        }
        else
        {
            row.SetNull(key);
        }
    };
    put("crossover_bytes", crossoverBytes);
    put("error_rms", rmsError);
    put("error_max", maxError);
    for (const auto& b : bands)
    {
        put("error_" + b.name, b.rms);
    }
    row.Set("resamples", static_cast<uint64_t>(resamples));
    row.Set("form", form);
    std::string joined;
    for (const auto& d : diagnostics)
    {
        joined += (joined.empty() ? "" : "; ") + d;
    }
    row.Set("diagnostics", joined);
    return row;
}

std::vector<CalibrationFit>
Calibrate(const MeasurementSet& set, const CalibrationOptions& opt)
{
    for (const auto& m : opt.models)
    {
        if (m != "alphabeta" && m != "scurve" && m != "protocol" && m != "loggp")
        {
            throw InputError("--model", "expected alphabeta, scurve, protocol or loggp, got '" + m + "'");
        }
    }
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
    // Groups, each split by placement.
    std::map<GroupKey, std::vector<const MeasurementSample*>> groups[2];
    std::map<GroupKey, uint32_t> excludedWrong;
    std::set<std::string> defaultedP2p;
    for (const auto& s : set.samples)
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
            continue;
        }
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
        GroupKey key{coll, ranks, s.series, s.kind};
        if (s.wrong > 0)
        {
            ++excludedWrong[key];
            continue;
        }
        groups[s.inPlace ? 1 : 0][key].push_back(&s);
    }
    std::set<GroupKey> keys;
    for (const auto& g : groups)
    {
        for (const auto& [k, v] : g)
        {
            keys.insert(k);
        }
    }
    if (keys.empty())
    {
        throw InputError("--collective", "expected samples of '" + wanted + "', the input has none");
    }
    std::vector<CalibrationFit> fits;
    for (const auto& key : keys)
    {
        bool useIp = opt.inPlace ? groups[1].count(key) > 0 : groups[0].count(key) == 0;
        const auto& samples = groups[useIp ? 1 : 0][key];
        std::vector<std::string> common;
        if (opt.inPlace && !useIp)
        {
            common.push_back("no in-place samples: the out-of-place ones are fitted");
        }
        else if (useIp && !opt.inPlace)
        {
            common.push_back("in-place samples only: the log has no out-of-place column");
        }
        if (excludedWrong.count(key))
        {
            common.push_back(std::to_string(excludedWrong[key]) + " rows with #wrong > 0 excluded");
        }
        RingSteps rs = CollectiveRingSteps(key.collective, key.ranks, "--collective");
        Points pts;
        std::set<size_t> srcIdx;
        std::set<std::string> files;
        for (const auto* s : samples)
        {
            FitPoint p;
            p.steps = rs.steps;
            p.m = rs.StepBytes(static_cast<double>(s->bytes));
            p.mBytes = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(p.m)));
            p.y = s->timeS / rs.steps;
            p.bytes = s->bytes;
            p.timeS = s->timeS;
            p.where = s->Where();
            pts.push_back(p);
            srcIdx.insert(s->source);
            files.insert(s->file);
        }
        SourceDiagnostics(set, srcIdx, common);
        if (key.collective == "p2p")
        {
            for (const auto& f : files)
            {
                if (defaultedP2p.count(f))
                {
                    common.push_back(f + ": names no collective: read as point-to-point messages (give "
                                         "--collective otherwise)");
                }
            }
        }
        for (const auto& model : opt.models)
        {
            CalibrationFit fit;
            fit.model = model;
            fit.collective = key.collective;
            fit.ranks = key.ranks;
            fit.series = key.series;
            fit.kind = key.kind;
            fit.inPlace = useIp;
            fit.steps = rs.steps;
            fit.busbwFactor = rs.busbwFactor;
            fit.form = FormText(key.collective, key.ranks, rs);
            fit.samples = static_cast<uint32_t>(pts.size());
            fit.sources.assign(files.begin(), files.end());
            fit.diagnostics = common;
            fit.bands = CalibrationBands();
            RawFit raw = pts.empty() ? RawFit() : FitModel(model, key.kind, pts);
            if (!raw.ok)
            {
                size_t need = model == "protocol" ? 6 : (model == "scurve" ? 3 : 2);
                fit.diagnostics.push_back(model + ": no admissible fit (" + std::to_string(DistinctSizes(pts)) +
                                          " distinct sizes; needs at least " + std::to_string(need) +
                                          (model == "protocol" ? ", two per segment, with steps >= 0" : "") + ")");
                fits.push_back(fit);
                continue;
            }
            fit.ok = true;
            auto ci = Bootstrap(model, key.kind, pts, raw, opt, fit.resamples);
            const Params& p = raw.p;
            if (model == "alphabeta" || model == "scurve" || model == "protocol")
            {
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
                    // A threshold is only known to lie in (previous size, size].
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
                Ptr<AlphaBetaModel> ab = CreateObject<AlphaBetaModel>();
                ab->SetAttribute("Alpha", TimeValue(SecondsToTime(p[0])));
                ab->SetAttribute("Beta", DataRateValue(DataRate(static_cast<uint64_t>(std::llround(p[bi] * 8)))));
                if (model == "alphabeta")
                {
                    fit.crossoverBytes = AlphaBetaModel::Crossover(p[0], p[1]);
                }
                else if (model == "scurve")
                {
                    ab->SetAttribute("SCurve", BooleanValue(true));
                    ab->SetAttribute("N0", UintegerValue(std::max<uint64_t>(1, std::llround(p[2]))));
                    fit.crossoverBytes = ab->CrossoverBytes();
                }
                else
                {
                    ab->SetAttribute("ProtocolSwitch", BooleanValue(true));
                    ab->SetAttribute("EagerAlpha", TimeValue(SecondsToTime(p[0])));
                    ab->SetAttribute("RendezvousRtt", TimeValue(SecondsToTime(p[1])));
                    ab->SetAttribute("PipelineSetup", TimeValue(SecondsToTime(p[2])));
                    ab->SetAttribute("EagerLimit", UintegerValue(static_cast<uint64_t>(p[4])));
                    ab->SetAttribute("RendezvousLimit", UintegerValue(static_cast<uint64_t>(p[5])));
                    fit.crossoverBytes = ab->CrossoverBytes();
                }
            }
            else if (key.kind == MeasurementKind::LATENCY)
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
            // Residuals and the error by band, on the log's own size and time.
            double sum = 0;
            double mx = 0;
            std::vector<double> bandSum(fit.bands.size(), 0);
            for (const auto& pt : pts)
            {
                CalibrationResidual r;
                r.bytes = pt.bytes;
                r.stepBytes = pt.m;
                r.timeS = pt.timeS;
                r.fittedS = pt.steps * Predict(model, key.kind, p, pt);
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
            ModelDiagnostics(fit, pts, opt);
            NS_LOG_INFO(model << " " << key.collective << " N=" << key.ranks << ": rms " << fit.rmsError);
            fits.push_back(fit);
        }
    }
    return fits;
}

} // namespace ns3
