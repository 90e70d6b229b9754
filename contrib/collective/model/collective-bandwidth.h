// SPDX-License-Identifier: GPL-2.0-only
//
// algbw and busbw as nccl-tests defines them (doc/PERFORMANCE.md; see
// validation/data/nccl_busbw_factors.csv): algbw = bytes / time with
// bytes the "size" column (collective-algorithms.h says what it counts per
// collective); busbw = algbw x factor, the factor making the ring algorithm's
// busbw equal to the per-link bandwidth: allreduce 2(n-1)/n; allgather,
// reducescatter, alltoall (n-1)/n; broadcast 1; incast, counted like
// nccl-tests' gather, (n-1)/n (busbw is then the root's ingress rate).
#ifndef HOCKNEY_COLLECTIVE_BANDWIDTH_H
#define HOCKNEY_COLLECTIVE_BANDWIDTH_H

#include "collective-algorithms.h"

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/// nccl-tests' busbw / algbw for \p kind on \p ranks ranks.
double BusBandwidthFactor(CollectiveKind kind, uint32_t ranks);
/// bytes / time in bytes per second (0 for a zero time).
double AlgorithmBandwidth(uint64_t bytes, Time time);
/// AlgorithmBandwidth x BusBandwidthFactor, bytes per second.
double BusBandwidth(CollectiveKind kind, uint32_t ranks, uint64_t bytes, Time time);

} // namespace ns3

#endif
