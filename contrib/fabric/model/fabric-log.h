// SPDX-License-Identifier: GPL-2.0-only
//
// Logging on the per-packet paths. NS_LOG_* costs a call into libns3-core
// for every packet even when logging is off (Debian's ns-3 is built with
// NS3_LOG_ENABLE), a few per cent of a packet run; these statements are
// compiled in only when the build asks for them:
//   cmake -DHOCKNEY_HOT_PATH_LOG=ON ...   (then NS_LOG=HockneyRdmaNic=logic works as usual)
// Rare events (timeouts, NAKs, drops, posts) keep plain NS_LOG_*.
#ifndef HOCKNEY_FABRIC_LOG_H
#define HOCKNEY_FABRIC_LOG_H

#include "ns3/log.h"

#ifdef HOCKNEY_HOT_PATH_LOG
#define HOCKNEY_HOT_LOG_LOGIC(msg) NS_LOG_LOGIC(msg)
#define HOCKNEY_HOT_LOG_FUNCTION(parameters) NS_LOG_FUNCTION(parameters)
#else
#define HOCKNEY_HOT_LOG_LOGIC(msg)                                                                 \
    do                                                                                             \
    {                                                                                              \
    } while (false)
#define HOCKNEY_HOT_LOG_FUNCTION(parameters)                                                       \
    do                                                                                             \
    {                                                                                              \
    } while (false)
#endif

#endif
