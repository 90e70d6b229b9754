// SPDX-License-Identifier: GPL-2.0-only
//
// Internal to the calibration (calibration.h): the diagnostics of a fit, the
// texts that say what the data cannot give and why.
#ifndef HOCKNEY_CALIBRATION_DIAGNOSTICS_H
#define HOCKNEY_CALIBRATION_DIAGNOSTICS_H

#include "calibration-least-squares.h"
#include "calibration.h"

#include <set>
#include <string>
#include <vector>

namespace ns3
{
namespace calibration
{

// What the logs' provenance (set.sources[i] for i in \p sources) says the fit
// cannot give: single-process runs, headerless tables, multi-host rings, and
// the readers' notes; appended to \p diag.
void SourceDiagnostics(const MeasurementSet& set, const std::set<size_t>& sources, std::vector<std::string>& diag);

// What the fitted model's parameters leave undetermined on \p pts (per-step
// points); appended to fit.diagnostics.
void ModelDiagnostics(CalibrationFit& fit, const Points& pts, const CalibrationOptions& opt);

} // namespace calibration
} // namespace ns3

#endif
