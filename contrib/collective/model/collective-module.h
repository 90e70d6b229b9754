// SPDX-License-Identifier: GPL-2.0-only
//
// Umbrella header of the collective module: schedules, the executor and its
// transports, closed forms, bandwidths, and the comparison behind
// `hockney compare`.
#ifndef HOCKNEY_COLLECTIVE_MODULE_H
#define HOCKNEY_COLLECTIVE_MODULE_H

#include "analytic-transport.h"
#include "collective-algorithms.h"
#include "collective-bandwidth.h"
#include "collective-closed-form.h"
#include "collective-comparison.h"
#include "collective-executor.h"
#include "collective-schedule.h"
#include "collective-transport.h"
#include "packet-transport.h"
#include "topology-parameters.h"

#endif
