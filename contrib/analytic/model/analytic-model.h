// SPDX-License-Identifier: GPL-2.0-only
//
// The interface every algebraic communication model offers to its users: the
// analytic channel (one message at a time, or messages contending at the
// endpoints or on shared links) and the collective module's closed forms. A
// model answers for one message of n bytes alone on its path; contention is the
// channel's business, which is why the model also exposes the parts of its time
// that a contention policy needs to take apart.
#ifndef HOCKNEY_ANALYTIC_MODEL_H
#define HOCKNEY_ANALYTIC_MODEL_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace ns3
{

/// Ticks of the current resolution per second (read once, after main() fixed it).
double TicksPerSecond();

/// Throws InputError for a duration outside ns-3's Time range (SecondsToTime).
[[noreturn]] void ThrowTimeOutOfRange(double seconds);

/// A duration in seconds as a Time, rounded to the nearest tick of the current
/// resolution (ns-3's Seconds(double) truncates: 2.25e-6 s would become 2249999 ps).
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

/// How one message occupies its two endpoints, for the channel's "endpoint"
/// contention policy. A message is: the sender's CPU busy for senderCpuSeconds
/// (serialised with the sender's other messages), then injection, which holds
/// the sender's NIC for injectionSeconds (the next message cannot start
/// injecting earlier), the last byte arriving flightSeconds after injection
/// started; the receiver is busy receiving for receiveStreamSeconds ending at
/// the arrival (a NIC receives one message at a time) and then for
/// receiverCpuSeconds (the receive overhead). Alone, a message takes
/// senderCpu + flight + receiverCpu, which every model keeps equal to its
/// GetMessageSeconds().
struct EndpointTiming
{
    double senderCpuSeconds = 0;
    double injectionSeconds = 0;
    double flightSeconds = 0;
    double receiveStreamSeconds = 0;
    double receiverCpuSeconds = 0;
};

class AnalyticModel : public Object
{
  public:
    static TypeId GetTypeId();

    /// Time of one message of \p bytes alone on its path (no contention).
    Time GetMessageTime(uint64_t bytes) const
    {
        return SecondsToTime(GetMessageSeconds(bytes));
    }

    /// The same in seconds, the fast path (no Time arithmetic).
    virtual double GetMessageSeconds(uint64_t bytes) const = 0;

    /// The size-independent part of the time for a message of \p bytes (alpha(n)
    /// of the alpha-beta model, 2o + L - G of LogGP): the part a shared link does
    /// not stretch. GetMessageSeconds(n) == GetLatencySeconds(n) + n / GetBandwidth(n).
    virtual double GetLatencySeconds(uint64_t bytes) const = 0;

    /// The bandwidth in bytes per second a message of \p bytes gets alone
    /// (beta(n), or 1/G): the per-message ceiling under link sharing.
    virtual double GetBandwidth(uint64_t bytes) const = 0;

    /// How a message of \p bytes occupies sender and receiver.
    virtual EndpointTiming GetEndpointTiming(uint64_t bytes) const = 0;

    /// Short name of the model ("alpha-beta", "loggp").
    virtual std::string GetModelName() const = 0;
};

} // namespace ns3

#endif
