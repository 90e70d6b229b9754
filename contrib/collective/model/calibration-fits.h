// SPDX-License-Identifier: GPL-2.0-only
//
// Internal to the calibration (calibration.h): the four models' fits to the
// per-step points and their bootstrap intervals. Each model is evaluated
// through the analytic module's formula functions only (Predict).
#ifndef HOCKNEY_CALIBRATION_FITS_H
#define HOCKNEY_CALIBRATION_FITS_H

#include "calibration-least-squares.h"
#include "calibration.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace calibration
{

// Parameter vectors by model:
//   alphabeta [alpha, beta]   scurve [alpha, beta_max, n0]
//   protocol  [alpha_eager, rtt, pipeline, beta, n1, n2]
//   loggp     latency [2o+L, G]   throughput [floor, G]
//   launch    [launch]: T = launch + floor (FitPoint::floorS), per step / steps
using Params = std::vector<double>;

struct RawFit
{
    bool ok = false;
    Params p;
    double chi2 = std::numeric_limits<double>::infinity();
};

// The model's per-step time at pt (the analytic module's formulas, nothing else).
double Predict(const std::string& model, MeasurementKind kind, const Params& p, const FitPoint& pt);

// Number of distinct per-step sizes (whole bytes) among pts.
size_t DistinctSizes(const Points& pts);

// The distinct per-step sizes (whole bytes), ascending.
std::vector<uint64_t> SortedSizes(const Points& pts);

// The least-squares fit of \p model ("alphabeta", "scurve", "protocol",
// "loggp", "launch"); ok false when the points cannot give one.
RawFit FitModel(const std::string& model, MeasurementKind kind, const Points& pts);

// Percentile intervals of every parameter over resamples of the points. For
// the protocol model the thresholds' intervals come from the full search in
// each resample, the levels' and beta's from the fit with the thresholds held
// at \p best's (conditional on the step positions: otherwise a resample that
// moves a threshold by one size swaps rtt and pipeline and the intervals say
// nothing about either). \p used: the resamples that gave a fit.
std::vector<std::pair<double, double>> Bootstrap(const std::string& model,
                                                 MeasurementKind kind,
                                                 const Points& pts,
                                                 const RawFit& best,
                                                 const CalibrationOptions& opt,
                                                 uint32_t& used);

} // namespace calibration
} // namespace ns3

#endif
