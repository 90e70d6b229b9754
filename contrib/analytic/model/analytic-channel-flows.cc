// SPDX-License-Identifier: GPL-2.0-only
//
// The analytic channel's shared contention policy: a fluid model of max-min
// fair link sharing (progressive filling), the rates recomputed once per
// simulated instant in which flows start or end. The rest of the channel is in
// analytic-channel.cc.
#include "analytic-channel.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ns3
{

namespace
{
double
TickSeconds()
{
    static const double tick = 1.0 / static_cast<double>(Seconds(1).GetTimeStep());
    return tick;
}
} // namespace

// --- shared policy: a fluid model of max-min fair link sharing ---

void
AnalyticChannel::StartFlow(const AnalyticMessage& msg)
{
    AdvanceFlows();
    Flow f;
    f.msg = msg;
    f.remaining = static_cast<double>(msg.bytes);
    f.rate = 0;
    f.cap = m_model->GetBandwidth(msg.bytes);
    if (!(f.cap > 0))
    {
        f.cap = std::numeric_limits<double>::infinity();
    }
    f.latencySeconds = m_model->GetLatencySeconds(msg.bytes);
    auto it = m_routes.find((static_cast<uint64_t>(msg.src) << 32) | msg.dst);
    f.route = it == m_routes.end() ? nullptr : &it->second;
    if (f.route)
    {
        f.latencySeconds += f.route->latencySeconds;
    }
    if (msg.bytes == 0 || (std::isinf(f.cap) && (!f.route || f.route->links.empty())))
    {
        ScheduleDelivery(msg, Simulator::Now() + SecondsToTime(f.latencySeconds));
        return;
    }
    m_flows.push_back(f);
    RatesChanged();
}

void
AnalyticChannel::RatesChanged()
{
    // The flows starting now all join before the rates are worked out; the
    // rates of an instant are those of its final set of flows (no time
    // passes in between, so nothing else depends on the ones in between).
    if (!m_recompute.IsRunning())
    {
        m_recompute = Simulator::ScheduleNow(&AnalyticChannel::RecomputeRates, this);
    }
}

void
AnalyticChannel::RecomputeRates()
{
    ComputeRates();
    RescheduleCompletion();
}

void
AnalyticChannel::AdvanceFlows()
{
    const Time now = Simulator::Now();
    const double dt = TimeToSeconds(now - m_lastAdvance);
    m_lastAdvance = now;
    if (dt <= 0)
    {
        return;
    }
    for (Flow& f : m_flows)
    {
        f.remaining -= f.rate * dt;
    }
}

void
AnalyticChannel::ComputeRates()
{
    // Progressive filling: raise every unfrozen flow's rate together; a flow
    // freezes when it reaches its own cap (the model's beta(n)) or when a link
    // it crosses is full, which is max-min fairness (max-min-fair.h).
    const size_t n = m_flows.size();
    m_flowRoutes.resize(n);
    m_flowCaps.resize(n);
    for (size_t i = 0; i < n; ++i)
    {
        m_flowRoutes[i] = m_flows[i].route ? &m_flows[i].route->links : nullptr;
        m_flowCaps[i] = m_flows[i].cap;
    }
    m_maxMin.Compute(m_linkBandwidth, m_flowRoutes, m_flowCaps, m_flowRates);
    for (size_t i = 0; i < n; ++i)
    {
        m_flows[i].rate = m_flowRates[i];
    }
}

void
AnalyticChannel::RescheduleCompletion()
{
    m_completion.Cancel();
    if (m_flows.empty())
    {
        return;
    }
    double next = std::numeric_limits<double>::infinity();
    for (const Flow& f : m_flows)
    {
        if (f.rate > 0)
        {
            next = std::min(next, std::max(0.0, f.remaining) / f.rate);
        }
    }
    NS_ABORT_MSG_IF(std::isinf(next), "AnalyticChannel: active messages but none makes progress");
    m_completion = Simulator::Schedule(SecondsToTime(next), &AnalyticChannel::CompleteFlows, this);
}

void
AnalyticChannel::CompleteFlows()
{
    AdvanceFlows();
    // A flow is done when what is left would take at most one time step: the
    // completion time was rounded to the resolution.
    const double tick = TickSeconds();
    size_t w = 0;
    for (size_t i = 0; i < m_flows.size(); ++i)
    {
        Flow& f = m_flows[i];
        if (f.remaining <= f.rate * tick)
        {
            ScheduleDelivery(f.msg, Simulator::Now() + SecondsToTime(f.latencySeconds));
        }
        else
        {
            if (w != i)
            {
                m_flows[w] = std::move(f);
            }
            ++w;
        }
    }
    m_flows.resize(w);
    m_recompute.Cancel(); // done here, for every flow of this instant so far
    ComputeRates();
    RescheduleCompletion();
}

} // namespace ns3
