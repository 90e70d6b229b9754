// SPDX-License-Identifier: GPL-2.0-only
//
// The accuracy map against published measurements: each case of
// validation/published-cases.json names a published nccl-tests log (a copy
// under validation/data), the topology preset that stands for the machine it
// was measured on, and the ways hockney predicts it (algorithm, channels,
// backends, the sizes where a packet run is affordable). The predictions are
// compared with the measured out-of-place times; no preset is tuned to them.
#ifndef HOCKNEY_PUBLISHED_COMPARISON_H
#define HOCKNEY_PUBLISHED_COMPARISON_H

#include "ns3/nstime.h"
#include "collective-algorithms.h"
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

/// The cases file's name inside the validation directory (the experiment
/// loader leaves it out: it is not an experiment).
inline constexpr const char* kPublishedCasesFile = "published-cases.json";

/// One way of predicting a published run.
struct PublishedModel
{
    std::string label;
    std::string algorithm;
    uint32_t channels = 1;
    std::vector<std::string> backends;
    uint64_t packetUpTo = 0;     ///< packet runs for sizes up to this (0: none)
    uint64_t packetUpToFull = 0; ///< the same under --full
    /// NCCL's endpoint model ("protocol": simple | ll128 | ll | auto; empty:
    /// off) and its kernel launch ("launch_overhead", one per system:
    /// single-process runs, contrib/collective/doc/collective.md).
    std::string protocol;
    Time launchOverhead;
    /// NCCL's slots on a network connection ("net_slots": the executor's
    /// NetSlots, 8 x the NCCL channels a schedule channel stands for; 0:
    /// off, one message in flight a connection) and the credit's return
    /// ("net_credit_delay": NetCreditDelay; 0: the point's inter-node alpha).
    /// Set as attribute defaults while this model runs (a --ns3:: flag wins).
    uint32_t netSlots = 0;
    Time netCreditDelay;
};

/// What the fidelity table (published-fidelity.h) runs of a case.
struct PublishedFidelity
{
    bool present = false;
    std::string model;           ///< label of the model judged (one of the case's)
    std::string goal;            ///< "nvswitch-ring", "multi-node" or "" (only the < 1 MB goal)
    std::vector<uint64_t> sizes; ///< measured sizes the calibrated algebra (and the packet level) runs
    uint64_t packetUpTo = UINT64_MAX; ///< the packet level runs the sizes up to this
};

/// One published run and its predictions.
struct PublishedCase
{
    std::string name;
    std::string measurement; ///< the published log, relative to the measured directory
    std::string topology;    ///< a preset
    CollectiveKind collective = CollectiveKind::ALL_REDUCE;
    uint32_t ranks = 0;
    std::vector<PublishedModel> models;
    PublishedFidelity fidelity;
};

/// Parses the cases file's object {"cases": [...]}; throws InputError naming
/// "FILE: cases[i].field" (or "...models[k].field").
std::vector<PublishedCase> ParsePublishedCases(const nlohmann::json& j, const std::string& file);
/// Reads and parses \p path; a missing or malformed file is an InputError naming it.
std::vector<PublishedCase> LoadPublishedCases(const std::string& path);

/// The out-of-place time (s) per size of \p collective in the log at \p path
/// (the first row of each size).
std::map<uint64_t, double> PublishedMeasuredTimes(const std::string& path, CollectiveKind collective);
/// The comparison of one model of a case at the measured sizes large enough
/// to cut into every message (analytic backends, derived parameters).
ComparisonConfig PublishedModelConfig(const PublishedCase& pc,
                                      const PublishedModel& pm,
                                      const std::map<uint64_t, double>& measured);

/// The published-measurement section of the report.
struct PublishedComparison
{
    bool available = false;
    std::string note;                 ///< what was read, or why it was skipped
    std::vector<ResultRow> rows;      ///< size, measured, predicted, error per backend
    std::vector<ResultRow> bands;     ///< error per size band
    std::vector<ResultRow> fidelity;  ///< validate --fidelity: the fidelity table (published-fidelity.h)
};

/// Runs every case whose log is in \p measuredDir (a case whose log is absent
/// is named in the note; an absent directory skips the whole section).
PublishedComparison RunPublishedComparison(const std::vector<PublishedCase>& cases,
                                           const std::string& measuredDir,
                                           bool full,
                                           std::function<void(const std::string&)> progress = {});

} // namespace ns3

#endif
