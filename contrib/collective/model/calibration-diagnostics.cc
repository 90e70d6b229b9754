// SPDX-License-Identifier: GPL-2.0-only
#include "calibration-diagnostics.h"

#include "units.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{
namespace calibration
{

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
                           "heterogeneous ring (the alpha-beta model assumes one kind of link)");
        }
        for (const auto& n : s.notes)
        {
            diag.push_back(n);
        }
    }
}

namespace
{

// An estimate whose interval is missing or wider than its value.
bool
Wide(const ParameterEstimate& e)
{
    return e.Known() && (!std::isfinite(e.lo) || !std::isfinite(e.hi) || e.hi - e.lo > e.value);
}

// What the kind of data or the collective's closed form means for every model.
void
DataDiagnostics(const CalibrationFit& fit, std::vector<std::string>& d)
{
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
}

// Whether the sizes below the crossover n* can pin alpha down.
void
AlphaDiagnostics(const CalibrationFit& fit, const Points& pts, std::vector<std::string>& d)
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
    else if (Wide(fit.alphaS))
    {
        d.push_back("alpha poorly determined: its interval is wider than its value");
    }
}

// Whether the sizes around n0 can pin the S-curve down.
void
SCurveDiagnostics(const CalibrationFit& fit, const Points& pts, std::vector<std::string>& d)
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
    else if (Wide(fit.n0Bytes))
    {
        d.push_back("n0 poorly determined: its interval is wider than its value");
    }
}

// Which LogGP parameters size and time identify.
void
LogGpDiagnostics(const CalibrationFit& fit, const CalibrationOptions& opt, std::vector<std::string>& d)
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

} // namespace

void
ModelDiagnostics(CalibrationFit& fit, const Points& pts, const CalibrationOptions& opt)
{
    auto& d = fit.diagnostics;
    DataDiagnostics(fit, d);
    if (fit.model != "loggp" && fit.alphaS.Known())
    {
        AlphaDiagnostics(fit, pts, d);
    }
    if (fit.model == "scurve" && fit.n0Bytes.Known())
    {
        SCurveDiagnostics(fit, pts, d);
    }
    if (fit.model == "protocol" && fit.ok)
    {
        d.push_back("thresholds are known only to lie between two measured sizes (per-step bytes)");
    }
    if (fit.model == "loggp" && fit.ok)
    {
        LogGpDiagnostics(fit, opt, d);
    }
}

} // namespace calibration
} // namespace ns3
