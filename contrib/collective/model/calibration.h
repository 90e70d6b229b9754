// SPDX-License-Identifier: GPL-2.0-only
//
// Calibration: fits the algebra's parameters to measured (size, time) samples,
// by least squares on the relative error (each point weighs the same whatever
// its size, as the alpha-beta model's accuracy bands are stated in relative
// terms: contrib/analytic/doc/analytic.md, Sources), with GSL:
//
//   alphabeta  T = alpha + n / beta                       (gsl_multifit_wlinear)
//   scurve     T = alpha + n / (beta_max (1 - e^{-n/n0}))  (linear in alpha and
//              1/beta_max for fixed n0: profile over a log grid of n0, then
//              gsl_multifit_nlinear on all three)
//   protocol   T = alpha(n) + n / beta with eager / rendezvous /
//              pipeline steps: both thresholds searched over the measured sizes
//              (at least two sizes per segment), levels and beta fitted linearly
//              for each pair, steps constrained >= 0
//   loggp      latency data: T = 2o + L + (n-1) G ; bandwidth-test data: the
//              per-message interval max(o, g + (n-1) G) read as max(g_floor,
//              (n-1) G) (breakpoint searched, each side linear)
//   launch     the software floor: T = launch + NCCL's latency floor of the
//              collective (nccl-protocol.h, NcclLatencyFloor) on the sizes
//              below 64 KiB (one constant, relative least squares); not in
//              the default list
//
// Every model is evaluated through the analytic module's formula functions
// (AlphaBetaModel::BaseTime, SCurveBandwidth, ProtocolAlpha, LogGpModel::
// LogGpTime, InjectionInterval): one piece of code per formula.
//
// Collectives are fitted per step of compare's closed form (measurement-
// sample.h): a sample of S bytes and time T becomes `steps` messages of m
// bytes taking T / steps each, T = steps x (alpha(m) + m / beta(m)): the alpha
// and beta of compare's closed forms, e.g. ring allreduce
// 2(N-1)(alpha + S/(N beta)). Protocol thresholds and n0 are then in per-step
// message bytes, as the model applies them to each message.
//
// Intervals: percentile bootstrap over samples (resampled with replacement,
// fixed seed, default 200 resamples, 95 %); the protocol levels' intervals are
// conditional on the fitted thresholds, the thresholds' come from the full
// search (and always span the gap between the two sizes around the step). Residuals per sample and the RMS
// relative error by size band of the log's size S: < 64 KiB, 64 KiB - 1 MiB,
// 1 MiB - 64 MiB, >= 64 MiB.
#ifndef HOCKNEY_CALIBRATION_H
#define HOCKNEY_CALIBRATION_H

#include "measurement-sample.h"
#include "result-row.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// A fitted value with its bootstrap interval; NaN where not applicable or not
/// identifiable (printed as null).
struct ParameterEstimate
{
    double value = NAN;
    double lo = NAN;
    double hi = NAN;

    bool Known() const
    {
        return std::isfinite(value);
    }
};

struct CalibrationResidual
{
    uint64_t bytes = 0;      ///< the log's size S
    double stepBytes = 0;    ///< per-step message m
    double timeS = 0;        ///< measured T
    double fittedS = 0;      ///< steps x model(m)
    double relative = 0;     ///< (fitted - measured) / measured
    std::string where;       ///< file:line
};

struct BandError
{
    std::string name;        ///< "lt_64KiB", "64KiB_1MiB", "1MiB_64MiB", "ge_64MiB"
    uint64_t loBytes = 0;    ///< inclusive
    uint64_t hiBytes = 0;    ///< exclusive (UINT64_MAX for the last)
    uint32_t count = 0;
    double rms = NAN;        ///< RMS relative error of the band's samples
};

struct CalibrationOptions
{
    /// Models to fit: any of "alphabeta", "scurve", "protocol", "loggp", "launch".
    std::vector<std::string> models{"alphabeta", "scurve", "protocol", "loggp"};
    /// Keep only this collective; also the collective of samples whose log names
    /// none. "" keeps all; a log that names none is then read as p2p when it has
    /// no busbw column (a plain size/time table), else it is an InputError.
    std::string collective;
    /// Ranks of samples whose log does not tell (0: required from the log).
    uint32_t ranks = 0;
    /// Fit the in-place columns (default: out-of-place, in-place when a log has no other).
    bool inPlace = false;
    uint32_t resamples = 200;
    uint64_t seed = 1;
    double confidence = 0.95;
    /// launch: GPUs a node, for the nodes of NCCL's latency floor (0: the
    /// hosts the log's rank lines name, one when they name none).
    uint32_t gpusPerNode = 0;
    /// LogGP's o when known from elsewhere (seconds; < 0: unknown), to split 2o + L.
    double overheadS = -1;
};

/// One model fitted to one group of samples (same collective, ranks, series,
/// kind and placement).
struct CalibrationFit
{
    std::string model;          ///< alphabeta | scurve | protocol | loggp
    std::string collective;
    uint32_t ranks = 0;
    std::string series;
    MeasurementKind kind = MeasurementKind::LATENCY;
    bool inPlace = false;
    std::string form;           ///< the fitted formula in words
    double steps = 1;
    double busbwFactor = 1;
    uint32_t samples = 0;
    uint32_t resamples = 0;     ///< bootstrap resamples that gave a fit
    bool ok = false;            ///< false: too few points; parameters null

    // Parameters, per ring step, SI units (NaN: not part of this model / not identifiable)
    ParameterEstimate alphaS;             ///< alpha, or the eager alpha of protocol
    ParameterEstimate betaBps;            ///< beta, or beta_max of scurve
    ParameterEstimate n0Bytes;
    ParameterEstimate eagerLimitBytes;    ///< n1
    ParameterEstimate rendezvousLimitBytes; ///< n2
    ParameterEstimate rendezvousRttS;     ///< alpha_RTT step at n1
    ParameterEstimate pipelineSetupS;     ///< alpha_pipeline step at n2
    ParameterEstimate LS;
    ParameterEstimate oS;
    ParameterEstimate gS;
    ParameterEstimate GSPerByte;
    ParameterEstimate twoOPlusLS;         ///< 2o + L, what latency data identify
    ParameterEstimate launchOverheadS;    ///< launch: the collective's launch above NCCL's latencies
    double crossoverBytes = NAN;          ///< n* of the fitted alpha-beta models (per step)

    std::vector<CalibrationResidual> residuals;
    std::vector<BandError> bands;
    double rmsError = NAN;
    double maxError = NAN;
    std::vector<std::string> sources;     ///< files the samples came from
    std::vector<std::string> diagnostics; ///< what the data cannot give, and why

    /// The calibration row (field names carry units, as in every hockney
    /// row): model, collective, ranks,
    /// parameters with _lo / _hi, crossover_bytes, error_rms, error_max,
    /// error_<band>, samples, form, diagnostics ("; "-joined).
    ResultRow ToRow() const;
};

/// Fits every requested model to every group of \p set. Throws InputError when
/// a sample's collective (with a busbw) or ranks are unknown and not given in \p options
/// (naming the sample's file:line and the flag to give), when a requested model
/// is unknown, or when no sample is left after the collective filter.
std::vector<CalibrationFit> Calibrate(const MeasurementSet& set, const CalibrationOptions& options);

/// The size bands of the error report.
std::vector<BandError> CalibrationBands();

} // namespace ns3

#endif
