// SPDX-License-Identifier: GPL-2.0-only
//
// The accuracy map (issue 6, `hockney validate` and `hockney demo`): each row
// of the seed's accuracy table (seed/003, tbl-model-ab-accuracy-bounds) is an
// experiment in validation/*.json, run through RunComparison (the analytic
// backends with derived and calibrated parameters against the packet fabric),
// and its outcome is stated as confirmed or refuted with the measured numbers.
//
// Error metric. compare's `error` is (T_analytic - T_packet) / T_packet, which
// cannot go below -100 % however optimistic the algebra is; the seed's "> 100 %"
// for AllToAll means the packet time is more than twice the predicted one. The
// map therefore judges by the symmetric error max(Ta/Tp, Tp/Ta) - 1 (equal to
// |error| for small errors, Tp/Ta - 1 when the algebra is optimistic) and
// prints both.
//
// Experiment file (one JSON object):
//   id, title, seed_claim ("about 5 %"), why (one paragraph: the mechanism)
//   default      true: part of the default subset (validate, demo)
//   scenario     a compare scenario (collective-comparison.h ApplyScenario)
//   full         merge-patch applied to the scenario under --full
//   variants     [{label, patch}] : the scenario is run once per variant
//                (patch merged in); none: one run labelled "base"
//   expect       {backend, params, metric: "max"|"median"|"min", min, max}: the
//                claim as a range of the symmetric error over every point of
//                the backend with those params; confirmed when inside
//   recover      {backend, params, metric, min, max}: the same judgement of a
//                corrected answer (the flow backend's max-min sharing)
//   traces       true: the packet run of the last size of each variant is
//                repeated with time series (queue at the receiver's switch
//                port, PFC-paused ports, DCQCN rate of each sender)
//   assumptions  {n0}: the five-assumption ablation on the scenario's sizes
//                (each relaxation of AlphaBetaModel and the channel alone)
#ifndef HOCKNEY_ACCURACY_MAP_H
#define HOCKNEY_ACCURACY_MAP_H

#include "collective-comparison.h"
#include "result-row.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

struct AccuracyExpectation
{
    std::string backend = "alphabeta";
    std::string params = "derived";
    std::string metric = "max"; ///< max | median | min of the symmetric error
    double min = 0;
    double max = 1e300;
};

struct AccuracyExperiment
{
    std::string id;
    std::string title;
    std::string seedClaim;
    std::string why;
    std::string file;
    bool inDefault = false;
    nlohmann::json scenario;
    nlohmann::json full;
    std::vector<std::pair<std::string, nlohmann::json>> variants;
    AccuracyExpectation expect;
    /// Optional second judgement: does a corrected answer (e.g. flow, the
    /// static contention correction) come within its range? metric as expect.
    bool hasRecovery = false;
    AccuracyExpectation recovery;
    bool traces = false;
    bool assumptions = false;
    uint64_t n0Bytes = 65536;
    std::string plotX = "bytes"; ///< x axis of its figure: bytes | ranks
};

/// max(a/p, p/a) - 1 (see the file comment); +inf when either is not positive.
double SymmetricError(double analyticSeconds, double packetSeconds);

/// Parses one experiment object; throws InputError naming "FILE: field".
AccuracyExperiment ParseAccuracyExperiment(const nlohmann::json& j, const std::string& file);
/// Every validation/*.json under \p dir, sorted by file name; throws InputError
/// naming "--validation-dir" when there is none.
std::vector<AccuracyExperiment> LoadAccuracyExperiments(const std::string& dir);

/// One time series sample of an incast run.
struct IncastSample
{
    double timeS;
    uint64_t queueBytes;   ///< the switch port towards the receiver
    uint32_t pausedPorts;  ///< ports with a paused class at that moment
    uint64_t pausesSent;   ///< PFC pause frames sent so far (all ports)
    std::vector<double> senderRateBps; ///< DCQCN RC of each sender's QP (line rate without CC)
};

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

/// Runs one experiment (all its variants and sizes; \p full applies "full").
ExperimentOutcome RunAccuracyExperiment(const AccuracyExperiment& e,
                                        bool full,
                                        std::function<void(const std::string&)> progress = {});

/// The time series of one incast packet run (\p config's last size, incast
/// collective, packet fabric as RunComparison builds it), sampled every \p step.
std::vector<IncastSample> RecordIncastTrace(const ComparisonConfig& config, Time step);

/// The ablation: per size, the packet time and the constant alpha-beta with
/// each relaxation alone (protocol, scurve, multiresource, software,
/// contention) and all together; rows carry backend "ab-<relaxation>", time_s,
/// error and sym_error against the packet time.
/// \p packetSeconds: the packet time per size when already measured (the
/// missing ones are run).
std::vector<ResultRow> RunAssumptionAblation(const ComparisonConfig& config,
                                             uint64_t n0Bytes,
                                             std::map<uint64_t, double> packetSeconds = {},
                                             std::function<void(const std::string&)> progress = {});

/// The published-measurement section: the dgx-h100 ring AllReduce and the
/// multi-node NDR presets against the published logs in validation/data.
struct PublishedComparison
{
    bool available = false;
    std::string note;                 ///< what was read, or why it was skipped
    std::vector<ResultRow> rows;      ///< size, measured, predicted, error per backend
    std::vector<ResultRow> bands;     ///< error per size band
};
PublishedComparison RunPublishedComparison(const std::string& measuredDir,
                                           bool full,
                                           std::function<void(const std::string&)> progress = {});

/// Writes report.md, accuracy-points.csv, assumptions.csv, incast-*.csv,
/// published.csv, the gnuplot script and its PNGs into \p dir (gnuplot runs;
/// a missing gnuplot is a std::runtime_error). Returns the report's path.
std::string WriteAccuracyReport(const std::string& dir,
                                const std::vector<ExperimentOutcome>& outcomes,
                                const PublishedComparison& published,
                                const std::vector<ResultRow>& extraSection,
                                const std::string& extraTitle,
                                double wallSeconds);

/// The one-row-per-experiment table (id, seed claim, measured, verdict).
std::vector<ResultRow> AccuracyTable(const std::vector<ExperimentOutcome>& outcomes);

} // namespace ns3

#endif
