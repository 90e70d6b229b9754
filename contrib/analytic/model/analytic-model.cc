// SPDX-License-Identifier: GPL-2.0-only
#include "analytic-model.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyAnalyticModel");
NS_OBJECT_ENSURE_REGISTERED(AnalyticModel);

Time
SecondsToTime(double seconds)
{
    // Computed on first use, after main() has fixed the resolution.
    static const double ticksPerSecond = static_cast<double>(Seconds(1).GetTimeStep());
    return Time(static_cast<int64_t>(std::llround(seconds * ticksPerSecond)));
}

double
TimeToSeconds(Time t)
{
    static const double ticksPerSecond = static_cast<double>(Seconds(1).GetTimeStep());
    return static_cast<double>(t.GetTimeStep()) / ticksPerSecond;
}

TypeId
AnalyticModel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AnalyticModel").SetParent<Object>().SetGroupName("Analytic");
    return tid;
}

} // namespace ns3
