// SPDX-License-Identifier: GPL-2.0-only
//
// The parameter file `hockney calibrate --output=FILE` writes and `model` /
// `compare` read: JSON,
//   {"format": "hockney-calibration", "version": 1,
//    "fits": [ {"model": "scurve", "collective": "allreduce", "ranks": 8,
//               "kind": "latency", "in_place": false, "samples": 31,
//               "steps": 14, "busbw_factor": 1.75, "form": "...",
//               "alpha_s": 5e-6, "alpha_s_lo": ..., "alpha_s_hi": ...,
//               "beta_Bps": ..., "n0_bytes": ..., "eager_limit_bytes": ...,
//               "rendezvous_limit_bytes": ..., "rendezvous_rtt_s": ...,
//               "pipeline_setup_s": ..., "L_s": ..., "o_s": ..., "g_s": ...,
//               "G_s_per_byte": ..., "two_o_plus_L_s": ... (each with _lo/_hi,
//               null when not part of the model or not identifiable),
//               "crossover_bytes", "error_rms", "error_max", "error_lt_64KiB",
//               "error_64KiB_1MiB", "error_1MiB_64MiB", "error_ge_64MiB",
//               "sources": [...], "diagnostics": [...],
//               "residuals": [{"bytes", "step_bytes", "time_s", "fitted_s",
//                              "relative", "where"}]} ]}
// The keys are the calibration row's (alpha_s, beta_Bps, n0_bytes, L_s, ...:
// units in the names, as in every hockney row; doc/collective.md, Output). Parameters are
// those of one ring step (calibration.h): a collective's fit applies to each
// point-to-point message of a schedule, which is what compare's closed forms
// and the analytic channel charge.
#ifndef HOCKNEY_CALIBRATION_PARAMETERS_H
#define HOCKNEY_CALIBRATION_PARAMETERS_H

#include "alpha-beta-model.h"
#include "calibration.h"
#include "loggp-model.h"

#include "ns3/ptr.h"

#include <cmath>
#include <string>
#include <vector>

namespace ns3
{

/// One fit read back from a parameter file (NaN: null in the file).
struct CalibratedParameters
{
    std::string model;       ///< alphabeta | scurve | protocol | loggp
    std::string collective;
    uint32_t ranks = 0;
    std::string kind;        ///< latency | throughput
    double alphaS = NAN;
    double betaBps = NAN;
    double n0Bytes = NAN;
    double eagerLimitBytes = NAN;
    double rendezvousLimitBytes = NAN;
    double rendezvousRttS = NAN;
    double pipelineSetupS = NAN;
    double LS = NAN;
    double oS = NAN;
    double gS = NAN;
    double GSPerByte = NAN;
    double twoOPlusLS = NAN;

    /// An AlphaBetaModel with these parameters: Alpha and Beta; SCurve and N0
    /// for scurve; ProtocolSwitch, EagerAlpha, RendezvousRtt, PipelineSetup,
    /// EagerLimit, RendezvousLimit for protocol. Throws InputError for a loggp
    /// fit or missing alpha / beta.
    Ptr<AlphaBetaModel> MakeAlphaBetaModel() const;
    /// A LogGpModel: GapPerByte = G; L and o when both are known, otherwise
    /// L = 2o + L and o = 0 (same point-to-point time; o unidentified); g when
    /// known. Throws InputError for a non-loggp fit.
    Ptr<LogGpModel> MakeLogGpModel() const;
};

/// Writes \p fits as the JSON parameter file; throws std::runtime_error if the
/// file cannot be written.
void WriteCalibrationFile(const std::string& path, const std::vector<CalibrationFit>& fits);

/// Reads a parameter file. Throws InputError naming \p path (and the fit index
/// or key) when it cannot be read, is not JSON, or is not a hockney calibration.
/// With \p flag ("--calibration"), the message starts with the flag too.
std::vector<CalibratedParameters> LoadCalibratedParameters(const std::string& path, const std::string& flag = "");

/// The first fit of \p model (and \p collective, unless empty) with parameters;
/// throws InputError naming \p field ("--params") when there is none.
const CalibratedParameters& SelectCalibratedParameters(const std::vector<CalibratedParameters>& all,
                                                       const std::string& model,
                                                       const std::string& collective,
                                                       const std::string& field);

} // namespace ns3

#endif
