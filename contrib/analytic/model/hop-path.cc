// SPDX-License-Identifier: GPL-2.0-only
#include "hop-path.h"

#include "analytic-model.h"
#include "input-error.h"

#include <algorithm>

namespace ns3
{

HopPath&
HopPath::AddHop(Time latency, DataRate bandwidth)
{
    return AddHop(latency, static_cast<double>(bandwidth.GetBitRate()) / 8.0);
}

HopPath&
HopPath::AddHop(Time latency, double bytesPerSecond)
{
    if (!(bytesPerSecond > 0))
    {
        throw InputError("hop[" + std::to_string(m_latency.size()) + "].bandwidth", "expected a bandwidth > 0");
    }
    if (latency.IsStrictlyNegative())
    {
        throw InputError("hop[" + std::to_string(m_latency.size()) + "].latency", "expected a latency >= 0");
    }
    m_latency.push_back(TimeToSeconds(latency));
    m_bandwidth.push_back(bytesPerSecond);
    return *this;
}

double
HopPath::ExactSeconds(uint64_t bytes) const
{
    const double n = static_cast<double>(bytes);
    double t = 0;
    for (size_t i = 0; i < m_latency.size(); ++i)
    {
        t += m_latency[i] + n / m_bandwidth[i];
    }
    return t;
}

double
HopPath::ApproxSeconds(uint64_t bytes) const
{
    if (m_latency.empty())
    {
        return 0;
    }
    return TotalLatencySeconds() + static_cast<double>(bytes) / BottleneckBandwidth();
}

Time
HopPath::GetExactTime(uint64_t bytes) const
{
    return SecondsToTime(ExactSeconds(bytes));
}

Time
HopPath::GetApproxTime(uint64_t bytes) const
{
    return SecondsToTime(ApproxSeconds(bytes));
}

double
HopPath::TotalLatencySeconds() const
{
    double a = 0;
    for (double l : m_latency)
    {
        a += l;
    }
    return a;
}

double
HopPath::BottleneckBandwidth() const
{
    return m_bandwidth.empty() ? 0.0 : *std::min_element(m_bandwidth.begin(), m_bandwidth.end());
}

} // namespace ns3
