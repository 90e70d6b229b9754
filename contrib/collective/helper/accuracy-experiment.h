// SPDX-License-Identifier: GPL-2.0-only
//
// The accuracy map's experiments: each validation/*.json is one accuracy
// bound of the alpha-beta algebra stated as a reproducible comparison with
// its expected outcome (validation/README.md describes the format).
//
// Experiment file (one JSON object):
//   id, title, seed_claim (the bound under test: "about 5 %"),
//   why (one paragraph: the mechanism)
//   default      true: part of the default subset (validate, demo)
//   scenario     a compare scenario (collective-comparison.h ApplyScenario)
//   full         merge-patch applied to the scenario under --full
//   variants     [{label, patch}] : the scenario is run once per variant
//                (patch merged in); none: one run labelled "base"
//   cases        [{label, patch}] : optional; every variant is run in every
//                case (labelled "VARIANT CASE", the variant's patch merged
//                over the case's), e.g. algorithms x workloads
//   expect       {backend, params, metric: "max"|"median"|"min"|"packet_drop",
//                min, max}: the claim as a range of the symmetric error over
//                every point of the backend with those params; confirmed when
//                inside
//   recover      {backend, params, metric, min, max}: the same judgement of a
//                corrected answer (the flow backend's max-min sharing)
//   traces       true: the packet run of the last size of each variant is
//                repeated with time series (accuracy-traces.h)
//   assumptions  {n0}: the five-assumption ablation on the scenario's sizes
//                (accuracy-ablation.h)
//   plot_x       bytes | ranks: the x axis of its figures
#ifndef HOCKNEY_ACCURACY_EXPERIMENT_H
#define HOCKNEY_ACCURACY_EXPERIMENT_H

#include "collective-comparison.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

struct AccuracyExpectation
{
    std::string backend = "alphabeta";
    std::string params = "derived";
    std::string metric = "max"; ///< max | median | min of the symmetric error (expect: also packet_drop)
    double min = 0;
    double max = 1e300;
};

struct AccuracyExperiment
{
    std::string id;
    std::string title;
    std::string seedClaim; ///< the bound under test, as the file states it
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

/// Parses one experiment object; throws InputError naming "FILE: field".
AccuracyExperiment ParseAccuracyExperiment(const nlohmann::json& j, const std::string& file);

/// Every validation/*.json under \p dir (but the published cases file,
/// published-comparison.h), sorted by file name; throws InputError naming
/// "--validation-dir" when there is none.
std::vector<AccuracyExperiment> LoadAccuracyExperiments(const std::string& dir);

/// The JSON object in \p path; an unreadable file or invalid JSON is an
/// InputError naming the path.
nlohmann::json ReadValidationJson(const std::string& path);

/// The comparison of one variant: the scenario, under \p full with the "full"
/// patch, then the variant's patch; an InputError names "FILE: variant LABEL".
ComparisonConfig VariantConfig(const AccuracyExperiment& e,
                               const std::pair<std::string, nlohmann::json>& variant,
                               bool full);

} // namespace ns3

#endif
