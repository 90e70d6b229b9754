// SPDX-License-Identifier: GPL-2.0-only
#include "collective-bandwidth.h"

#include "measurement-sample.h"

namespace ns3
{

double
BusBandwidthFactor(CollectiveKind kind, uint32_t ranks)
{
    if (kind == CollectiveKind::INCAST)
    {
        // nccl-tests' gather: count x typesize x n bytes, factor (n-1)/n.
        return (static_cast<double>(ranks) - 1) / ranks;
    }
    // The one table of nccl-tests factors (shared with calibration).
    return BusBwFactor(ToString(kind), ranks);
}

double
AlgorithmBandwidth(uint64_t bytes, Time time)
{
    const double s = time.GetSeconds();
    return s > 0 ? static_cast<double>(bytes) / s : 0.0;
}

double
BusBandwidth(CollectiveKind kind, uint32_t ranks, uint64_t bytes, Time time)
{
    return AlgorithmBandwidth(bytes, time) * BusBandwidthFactor(kind, ranks);
}

} // namespace ns3
