// SPDX-License-Identifier: GPL-2.0-only
#include "time-conversion.h"

#include "input-error.h"

#include <string>

namespace ns3
{

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

} // namespace ns3
