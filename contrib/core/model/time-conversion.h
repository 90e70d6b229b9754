// SPDX-License-Identifier: GPL-2.0-only
//
// Seconds (double) <-> ns3::Time with correct rounding, shared by every module
// that turns algebra (seconds) into simulated time and back.
#ifndef HOCKNEY_TIME_CONVERSION_H
#define HOCKNEY_TIME_CONVERSION_H

#include "ns3/nstime.h"

#include <cmath>
#include <cstdint>

namespace ns3
{

/// Ticks of the current resolution per second (read once, after main() fixed it).
double TicksPerSecond();

/// Throws InputError for a duration outside ns-3's Time range (SecondsToTime).
[[noreturn]] void ThrowTimeOutOfRange(double seconds);

/// A duration in seconds as a Time, rounded to the nearest tick of the current
/// resolution in plain double arithmetic (2.25e-6 s, 2249999.9999999995 ps as a
/// double, is 2250000 ps), and refuses a result outside Time's range.
/// Inline because the analytic channel converts every message's time: it
/// rounds as std::llround does (halves away from zero), without the libm call.
inline Time
SecondsToTime(double seconds)
{
    static const double ticksPerSecond = TicksPerSecond();
    const double ticks = seconds * ticksPerSecond;
    // ns-3's Time is an int64 count of ticks (9.2e6 s at 1 ps): a larger result
    // (1 GB at 1 B/s, say) would wrap silently to a negative time.
    if (!(std::fabs(ticks) < 9.2e18))
    {
        ThrowTimeOutOfRange(seconds);
    }
    // Truncate, then step away from zero on a remainder of one half or more.
    // The remainder is exact: below 2^52 the integer part converts back
    // exactly, and from 2^52 on every double is an integer (remainder 0).
    int64_t whole = static_cast<int64_t>(ticks);
    const double rest = ticks - static_cast<double>(whole);
    whole += (rest >= 0.5) - (rest <= -0.5);
    return Time(whole);
}
/// A Time in seconds as the correctly rounded double (Time::GetSeconds() goes
/// through int64x64 and returns 1.9999999999999944e-06 for 2 us).
double TimeToSeconds(Time t);

} // namespace ns3

#endif
