// SPDX-License-Identifier: GPL-2.0-only
#include "analytic-model.h"

#include "input-error.h"

#include "ns3/log.h"

#include <cmath>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyAnalyticModel");
NS_OBJECT_ENSURE_REGISTERED(AnalyticModel);

double
TicksPerSecond()
{
    return static_cast<double>(Seconds(1).GetTimeStep());
}

void
ThrowTimeOutOfRange(double seconds)
{
    throw InputError("time", "expected a result within ns-3's Time range (+-9.2e6 s at 1 ps), got " +
                                 std::to_string(seconds) + " s; check the sizes and rates");
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
