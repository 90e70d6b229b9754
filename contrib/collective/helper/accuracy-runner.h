// SPDX-License-Identifier: GPL-2.0-only
//
// Runs one experiment of the accuracy map (accuracy-experiment.h) through
// RunComparison, judges its points by the symmetric error
// (accuracy-metric.h) and states the outcome as confirmed or refuted with the
// measured numbers.
#ifndef HOCKNEY_ACCURACY_RUNNER_H
#define HOCKNEY_ACCURACY_RUNNER_H

#include "accuracy-experiment.h"
#include "accuracy-traces.h"
#include "result-row.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

struct ExperimentOutcome
{
    AccuracyExperiment experiment;
    std::vector<ResultRow> rows;        ///< every point, with "experiment", "variant", "sym_error"
    std::vector<ResultRow> assumptionRows; ///< the ablation, when asked
    std::vector<std::pair<std::string, std::vector<IncastSample>>> traces; ///< per variant
    double measured = 0;                ///< the expectation's metric
    bool confirmed = false;
    double recoveryMeasured = 0;        ///< the recovery's metric (hasRecovery)
    bool recovered = false;
    std::string summary;                ///< one paragraph with the numbers
    double wallSeconds = 0;
};

/// Runs one experiment (all its variants and sizes; \p full applies "full";
/// \p forceMemory starts a packet run whose memory estimate exceeds the
/// memory available instead of refusing it). A packet run that stops
/// (PacketStop) throws PacketRunStopped out of it.
ExperimentOutcome RunAccuracyExperiment(const AccuracyExperiment& e,
                                        bool full,
                                        std::function<void(const std::string&)> progress = {},
                                        bool forceMemory = false);

/// Whether a point carries a symmetric error (the packet rows and points
/// without a packet row beside them carry null).
bool HasSymError(const ResultRow& r);

/// The one-row-per-experiment table (id, claim, measured, verdict).
std::vector<ResultRow> AccuracyTable(const std::vector<ExperimentOutcome>& outcomes);

} // namespace ns3

#endif
