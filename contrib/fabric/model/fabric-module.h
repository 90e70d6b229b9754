// SPDX-License-Identifier: GPL-2.0-only
//
// Umbrella header of the hockney fabric module (ns-3 convention: <module>-module.h).
#ifndef HOCKNEY_FABRIC_MODULE_H
#define HOCKNEY_FABRIC_MODULE_H

#include "bth-header.h"
#include "credit-flow-control.h"
#include "dcqcn.h"
#include "ecn-marker.h"
#include "fabric-channel.h"
#include "fabric-fault-injector.h"
#include "fabric-flow-control.h"
#include "fabric-header.h"
#include "fabric-helper.h"
#include "fabric-monitor.h"
#include "fabric-net-device.h"
#include "fabric-switch.h"
#include "pfc-flow-control.h"
#include "rdma-congestion-control.h"
#include "rdma-endpoint.h"
#include "rdma-helper.h"
#include "rdma-nic.h"
#include "switch-buffer.h"
#include "topology-builder.h"
#include "topology-description.h"
#include "topology-graph.h"
#include "topology-layout.h"
#include "topology-presets.h"

#endif
