// SPDX-License-Identifier: GPL-2.0-only
#include "hpcc.h"
#include "fast-simulator-impl.h"

#include "fabric-log.h"
#include "int-header.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyHpcc");
NS_OBJECT_ENSURE_REGISTERED(Hpcc);

TypeId
Hpcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Hpcc")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<Hpcc>()
            .AddAttribute("EtaTarget",
                          "Target utilization eta of the most loaded link (HPCC paper: 95 %).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&Hpcc::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "Additive-increase stages (per-RTT updates of W_c with U < eta) "
                          "before a multiplicative step is forced (HPCC paper: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&Hpcc::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("WindowAi",
                          "Additive increase W_AI in bytes per update. 0: line rate x BaseRtt "
                          "x 4e-4, the HPCC authors' simulator's RATE_AI (10 x bw / 25 Mb/s at "
                          "bw Gb/s, run.py) as a window (45 B at 100 Gb/s and 9 us).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&Hpcc::m_windowAi),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BaseRtt",
                          "T: the base round-trip time of the fabric (the simulator takes "
                          "the largest over host pairs); the initial window is line rate x T, "
                          "the rate W / T.",
                          TimeValue(MicroSeconds(9)),
                          MakeTimeAccessor(&Hpcc::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRate",
                          "Lowest sending rate (the simulator's MIN_RATE 1000 Mb/s); the "
                          "window never falls below MinRate x BaseRtt.",
                          DataRateValue(DataRate("1Gbps")),
                          MakeDataRateAccessor(&Hpcc::m_minRate),
                          MakeDataRateChecker());
    return tid;
}

Hpcc::Hpcc()
    : m_eta(0.95),
      m_maxStage(5),
      m_windowAi(0),
      m_baseRtt(MicroSeconds(9)),
      m_minRate(DataRate("1Gbps"))
{
}

Ptr<RdmaCongestionControl>
Hpcc::Fork() const
{
    Ptr<Hpcc> h = CreateObject<Hpcc>();
    CopyAttributesTo(h);
    return h;
}

double
Hpcc::AdditiveIncrease(DataRate lineRate) const
{
    if (m_windowAi > 0)
    {
        return double(m_windowAi);
    }
    return double(lineRate.GetBitRate()) / 8 * m_baseRtt.GetSeconds() * 4e-4;
}

void
Hpcc::FlowStart(Ptr<RdmaRateState> state)
{
    NS_LOG_FUNCTION(this << state->qpNumber);
    m_winit = double(state->GetLineRate().GetBitRate()) / 8 * m_baseRtt.GetSeconds();
    m_wai = AdditiveIncrease(state->GetLineRate());
    m_wc = m_winit;
    m_w = m_winit;
    m_u = 1;
    m_incStage = 0;
    m_hops.clear();
    state->SetTargetRate(state->GetLineRate());
    Apply(state);
}

bool
Hpcc::MeasureInflight(const std::vector<RdmaIntHop>& hops)
{
    const double T = m_baseRtt.GetSeconds();
    double u = 0;
    double tau = 0;
    bool any = false;
    for (size_t i = 0; i < hops.size(); ++i)
    {
        const double dt = IntHeader::TimeDelta(hops[i], m_hops[i]).GetSeconds();
        if (dt <= 0)
        {
            continue; // the same departure echoed twice: no new information
        }
        const double B = double(hops[i].lineRate.GetBitRate()) / 8; // bytes/s
        const double txRate = double(IntHeader::BytesDelta(hops[i], m_hops[i])) / dt;
        const double qlen = double(std::min(hops[i].queueBytes, m_hops[i].queueBytes));
        const double ui = qlen / (B * T) + txRate / B;
        if (ui > u) // as Algorithm 1: an idle path (u = 0 everywhere) leaves U as it is
        {
            u = ui;
            tau = dt;
        }
        any = true;
    }
    m_hops = hops;
    if (!any)
    {
        return false;
    }
    tau = std::min(tau, T);
    m_u = (1 - tau / T) * m_u + tau / T * u;
    return true;
}

double
Hpcc::ComputeWind(bool updateWc)
{
    double w;
    if (m_u >= m_eta || m_incStage >= m_maxStage)
    {
        w = m_wc / (m_u / m_eta) + m_wai;
    }
    else
    {
        w = m_wc + m_wai;
    }
    // The simulator bounds the rate to [MIN_RATE, line rate], so the window
    // to [MinRate x T, W_init].
    w = std::min(std::max(w, double(m_minRate.GetBitRate()) / 8 * m_baseRtt.GetSeconds()), m_winit);
    if (updateWc)
    {
        m_incStage = (m_u >= m_eta || m_incStage >= m_maxStage) ? 0 : m_incStage + 1;
        m_wc = w;
    }
    return w;
}

void
Hpcc::AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << state->qpNumber << sample.intHops.size());
    if (sample.intHops.empty())
    {
        return;
    }
    const Time now = hotsim::Now();
    if (m_hops.size() != sample.intHops.size())
    {
        // First ACK (or a new path): only the reference records.
        m_hops = sample.intHops;
        m_lastUpdate = now;
        return;
    }
    // ack.seq > lastUpdateSeq: the acknowledged packet left after the last
    // update of W_c (its RTT sample reaches back to its transmission).
    const bool newRtt = sample.rtt.IsStrictlyPositive() && now - sample.rtt >= m_lastUpdate;
    if (!MeasureInflight(sample.intHops))
    {
        return;
    }
    m_w = ComputeWind(newRtt);
    if (newRtt)
    {
        m_lastUpdate = now;
    }
    HOCKNEY_HOT_LOG_LOGIC("qp " << state->qpNumber << " U " << m_u << " W " << m_w << " Wc "
                                << m_wc << " stage " << m_incStage);
    Apply(state);
}

void
Hpcc::Apply(Ptr<RdmaRateState> state)
{
    state->SetWindow(uint64_t(std::llround(m_w)));
    const double bps = m_w * 8 / m_baseRtt.GetSeconds();
    state->SetRate(DataRate(std::min<uint64_t>(uint64_t(std::llround(bps)),
                                               state->GetLineRate().GetBitRate())));
}

namespace
{
const RdmaCcRegistration g_hpccRegistration({"hpcc", &Hpcc::GetTypeId, {}, "", {}});
} // namespace

} // namespace ns3
