// SPDX-License-Identifier: GPL-2.0-only
//
// The accuracy map behind `hockney validate` and `hockney demo`: each accuracy
// bound of the alpha-beta algebra is an experiment in validation/*.json, run
// through RunComparison (the analytic backends with derived and calibrated
// parameters against the packet fabric), and its outcome is stated as
// confirmed or refuted with the measured numbers. One header for its parts:
//   accuracy-metric.h      the symmetric error, the percentage format
//   accuracy-experiment.h  the experiment files
//   accuracy-runner.h      running and judging one experiment, the map table
//   accuracy-traces.h      incast time series (queue, PFC, DCQCN rate)
//   accuracy-ablation.h    the five assumptions relaxed one at a time
//   published-comparison.h against published nccl-tests measurements
//   published-fidelity.h   the fidelity table (validate --fidelity)
//   accuracy-report.h      report.md, CSV files and figures (accuracy-plot.h)
#ifndef HOCKNEY_ACCURACY_MAP_H
#define HOCKNEY_ACCURACY_MAP_H

#include "accuracy-ablation.h"
#include "accuracy-experiment.h"
#include "accuracy-metric.h"
#include "accuracy-report.h"
#include "accuracy-runner.h"
#include "accuracy-traces.h"
#include "published-comparison.h"
#include "published-fidelity.h"

#endif
