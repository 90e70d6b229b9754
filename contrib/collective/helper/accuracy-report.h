// SPDX-License-Identifier: GPL-2.0-only
//
// The accuracy map's report: report.md (the map, one section per experiment
// with its paragraph, points and figures, the ablation, the published
// comparison), the CSV files of every point and the figures (accuracy-plot.h).
#ifndef HOCKNEY_ACCURACY_REPORT_H
#define HOCKNEY_ACCURACY_REPORT_H

#include "accuracy-runner.h"
#include "published-comparison.h"
#include "result-row.h"

#include <string>
#include <vector>

namespace ns3
{

/// Writes report.md, accuracy-points.csv, assumptions.csv, incast-*.csv,
/// published.csv, the gnuplot script and its PNGs into \p dir (gnuplot runs;
/// a missing gnuplot is a std::runtime_error). Returns the report's path.
std::string WriteAccuracyReport(const std::string& dir,
                                const std::vector<ExperimentOutcome>& outcomes,
                                const PublishedComparison& published,
                                const std::vector<ResultRow>& extraSection,
                                const std::string& extraTitle,
                                double wallSeconds);

} // namespace ns3

#endif
