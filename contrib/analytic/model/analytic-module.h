// SPDX-License-Identifier: GPL-2.0-only
//
// Umbrella header of the analytic module (ns-3's <module>-module.h convention).
#ifndef HOCKNEY_ANALYTIC_MODULE_H
#define HOCKNEY_ANALYTIC_MODULE_H

#include "alpha-beta-model.h"
#include "alpha-budget.h"
#include "analytic-channel.h"
#include "analytic-model.h"
#include "analytic-net-device.h"
#include "go-back-n.h"
#include "hop-path.h"
#include "interconnect-presets.h"
#include "loggp-model.h"

#endif
