// SPDX-License-Identifier: GPL-2.0-only
#include "calibration-fits.h"

#include "alpha-beta-model.h"
#include "loggp-model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>

namespace ns3
{
namespace calibration
{

double
Predict(const std::string& model, MeasurementKind kind, const Params& p, const FitPoint& pt)
{
    if (model == "alphabeta")
    {
        return AlphaBetaModel::BaseTime(p[0], p[1], pt.m);
    }
    if (model == "launch")
    {
        return (p[0] + pt.floorS) / pt.steps;
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

size_t
DistinctSizes(const Points& pts)
{
    return SortedSizes(pts).size();
}

namespace
{

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

// An admissible fit with parameters p and its chi2.
RawFit
Accepted(const std::string& model, MeasurementKind kind, const Params& p, const Points& pts)
{
    RawFit out;
    out.p = p;
    out.chi2 = Chi2(model, kind, out.p, pts);
    out.ok = true;
    return out;
}

// b[0] + b[1] col(pt) with b[0] >= 0 (held at 0 when the free fit makes it
// negative: reported as not identifiable) and b[1] > 0, from at least two sizes.
bool
FitIncreasingLine(const Points& pts, const std::function<double(const FitPoint&)>& col, std::vector<double>& b)
{
    return DistinctSizes(pts) >= 2 && NonNegativeInterceptFit(pts, col, b) && b[1] > 0;
}

RawFit
FitAlphaBeta(const Points& pts)
{
    std::vector<double> b;
    if (!FitIncreasingLine(pts, [](const FitPoint& pt) { return pt.m; }, b))
    {
        return RawFit();
    }
    return Accepted("alphabeta", MeasurementKind::LATENCY, {b[0], 1.0 / b[1]}, pts);
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
        if (!NonNegativeInterceptFit(pts, col, b) || !(b[1] > 0))
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
    return Accepted("protocol",
                    MeasurementKind::LATENCY,
                    {c[0], c[1], c[2], 1.0 / c[3], static_cast<double>(n1), static_cast<double>(n2)},
                    pts);
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
    std::vector<double> b;
    if (!FitIncreasingLine(pts, [](const FitPoint& pt) { return static_cast<double>(pt.mBytes - 1); }, b))
    {
        return RawFit();
    }
    return Accepted("loggp", MeasurementKind::LATENCY, {b[0], b[1]}, pts);
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

double
Percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    double pos = q * (v.size() - 1);
    size_t i = static_cast<size_t>(std::floor(pos));
    size_t j = std::min(i + 1, v.size() - 1);
    return v[i] + (pos - i) * (v[j] - v[i]);
}

// launch: the one constant of T = launch + floor, least squares on the
// relative error: sum_i w_i (T_i - floor_i) / sum_i w_i with w_i = 1/T_i^2
// (unconstrained; the caller reports a negative value). Two samples at
// least: one cannot tell a launch from noise.
RawFit
FitLaunch(const Points& pts)
{
    if (pts.size() < 2)
    {
        return RawFit();
    }
    double num = 0;
    double den = 0;
    for (const FitPoint& pt : pts)
    {
        const double w = 1.0 / (pt.timeS * pt.timeS);
        num += w * (pt.timeS - pt.floorS);
        den += w;
    }
    return Accepted("launch", MeasurementKind::LATENCY, {num / den}, pts);
}

} // namespace

RawFit
FitModel(const std::string& model, MeasurementKind kind, const Points& pts)
{
    if (model == "launch")
    {
        return FitLaunch(pts);
    }
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

} // namespace calibration
} // namespace ns3
