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

#include "time-conversion.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace ns3
{


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
