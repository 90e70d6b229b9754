// SPDX-License-Identifier: GPL-2.0-only
//
// Internal to the calibration (calibration.h): the points a fit sees and the
// GSL least-squares solvers every model's fit is built on. All fits minimise
// the relative error, so each point weighs the same whatever its size (the
// alpha-beta model's accuracy bands are stated in relative terms:
// contrib/analytic/doc/analytic.md, Sources).
#ifndef HOCKNEY_CALIBRATION_LEAST_SQUARES_H
#define HOCKNEY_CALIBRATION_LEAST_SQUARES_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace calibration
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
    double floorS = 0;    // launch: NCCL's latency floor of the collective (NcclLatencyFloor)
    std::string where;
};

using Points = std::vector<FitPoint>;

// Minimises sum_i ((X_i . b - y_i) / y_i)^2 with gsl_multifit_wlinear (weights
// 1/y^2: relative error). X rows are given by a column function.
bool RelativeLinearFit(const Points& pts,
                       size_t p,
                       const std::function<void(const FitPoint&, double*)>& row,
                       std::vector<double>& b);

// y = b[0] + b[1] col(pt) by RelativeLinearFit, with the intercept held at 0
// (refit on col alone) when the free fit makes it negative: a negative
// startup time is no physics, the intercept is below what the data resolve.
bool NonNegativeInterceptFit(const Points& pts,
                             const std::function<double(const FitPoint&)>& col,
                             std::vector<double>& b);

// Levenberg-Marquardt (gsl_multifit_nlinear, finite-difference Jacobian) on
// the relative residuals of f; x is the start and the result.
bool RelativeNonlinearFit(const Points& pts,
                          std::function<double(const double*, const FitPoint&)> f,
                          std::vector<double>& x);

} // namespace calibration
} // namespace ns3

#endif
