// SPDX-License-Identifier: GPL-2.0-only
//
// The fidelity table of `hockney validate --fidelity`: for every published
// curve the project holds (the logs under validation/data/raw, each named by
// a case of validation/published-cases.json or listed as not compared), per
// size band, the median error of the packet level and of the calibrated
// algebra (the closed form with alpha and beta fitted to packet-level
// point-to-point sweeps) against the measured time, and the goal of issue 15
// with a pass or fail per cell:
//   - packet level within 5 % of the 8 x H100 NVSwitch ring at >= 64 MB
//     (cases with "goal": "nvswitch-ring");
//   - within 10 % on the multi-node curves at >= 1 MB ("goal": "multi-node");
//   - within 15 % below 1 MB, on every curve.
// Errors are symmetric (accuracy-metric.h): max(p/m, m/p) - 1 bounds the
// busbw error |m/p - 1| and the time error |p/m - 1| alike, so a pass holds
// for either reading of "within x %".
//
// Only the packet level is judged; its runs are at the few sizes each case's
// "fidelity" object names (the affordable ones, one or two a band, up to its
// packet_up_to), under a wall limit of their own: a run stopped there leaves its cell "not run",
// the other cells stand. Whatever algorithms and protocols the build has are
// what the cases' models name (a model's algorithm may be a list, the first
// one the build knows is used), so the table improves as they do.
#ifndef HOCKNEY_PUBLISHED_FIDELITY_H
#define HOCKNEY_PUBLISHED_FIDELITY_H

#include "published-comparison.h"
#include "result-row.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/// The four bands, in order: "<64KB", "64KB-1MB", "1MB-64MB", ">=64MB"
/// (B, KB, MB powers of 1000 as everywhere in hockney; nccl-tests' power-of-two
/// sizes fall in the same bands with powers of 1024).
const std::vector<std::string>& FidelityBands();
/// The band of \p bytes.
std::string FidelityBand(uint64_t bytes);

/// The largest symmetric error the goal allows the packet level in \p band
/// of a curve of goal class \p goal ("nvswitch-ring", "multi-node" or ""),
/// none where issue 15 sets no goal.
std::optional<double> FidelityGoal(const std::string& goal, const std::string& band);

/// "pass" when \p median <= \p goal, "fail" above, "no goal" without one,
/// "not run" when there is no median (no packet point in the band).
std::string FidelityVerdict(std::optional<double> median, std::optional<double> goal);

/// One predicted point against the measurement.
struct FidelityPoint
{
    uint64_t bytes = 0;
    double measuredSeconds = 0;
    double predictedSeconds = 0;
    /// What ran, where the model leaves it to NCCL's choice: "algorithm/protocol"
    /// as the row names them (empty without the endpoint model).
    std::string ran;
};

/// The four band rows of one curve from its packet and calibrated points:
/// curve, band, sizes, points and median symmetric error of each, goal,
/// verdict (FidelityVerdict; "no points" for a band with a goal where
/// neither answer has a point). \p base gives the leading fields (curve, topology, model, ...).
std::vector<ResultRow> FidelityRows(const ResultRow& base,
                                    const std::string& goal,
                                    const std::vector<FidelityPoint>& packet,
                                    const std::vector<FidelityPoint>& calibrated,
                                    const std::string& note);

/// Runs the fidelity table: every case with a "fidelity" object whose log is
/// in \p measuredDir, each packet run limited to \p wallLimit of wall time;
/// then a row for every log under measuredDir/raw no case names. An
/// interrupt (PacketRunStopped of kind INTERRUPT) propagates.
std::vector<ResultRow> RunFidelityTable(const std::vector<PublishedCase>& cases,
                                        const std::string& measuredDir,
                                        Time wallLimit,
                                        bool forceMemory,
                                        std::function<void(const std::string&)> progress = {});

} // namespace ns3

#endif
