// SPDX-License-Identifier: GPL-2.0-only
#include "dcqcn.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyDcqcn");
NS_OBJECT_ENSURE_REGISTERED(Dcqcn);

namespace
{
void
RequirePositive(const char* field, Time t)
{
    if (!t.IsStrictlyPositive())
    {
        std::ostringstream os;
        os << field << ": expected a time > 0, got " << t.As(Time::US);
        throw std::invalid_argument(os.str());
    }
}

void
RequireNonNegative(const char* field, Time t)
{
    if (t.IsStrictlyNegative())
    {
        std::ostringstream os;
        os << field << ": expected a time >= 0, got " << t.As(Time::US);
        throw std::invalid_argument(os.str());
    }
}

DataRate
Mbps(double v)
{
    return DataRate(static_cast<uint64_t>(std::llround(v * 1e6)));
}
} // namespace

TypeId
Dcqcn::GetTypeId()
{
    // Defaults: the SIGCOMM 2015 deployment values (Zhu et al., "Congestion
    // control for large-scale RDMA deployments"), as collected from secondary sources and the first author's simulator
    // (bobzhuyb/ns3-rdma); see ApplyPreset for the other named sets.
    static TypeId tid =
        TypeId("ns3::Dcqcn")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<Dcqcn>()
            .AddAttribute("G",
                          "EWMA gain g of alpha: alpha = (1-g) alpha + g on a CNP",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&Dcqcn::SetG, &Dcqcn::GetG),
                          MakeDoubleChecker<double>())
            .AddAttribute("InitialAlpha",
                          "alpha of a new flow",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&Dcqcn::SetInitialAlpha, &Dcqcn::GetInitialAlpha),
                          MakeDoubleChecker<double>())
            .AddAttribute("AlphaInterval",
                          "K: alpha = (1-g) alpha after each K without a CNP",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&Dcqcn::SetAlphaInterval, &Dcqcn::GetAlphaInterval),
                          MakeTimeChecker())
            .AddAttribute("RateIncreaseInterval",
                          "T: period of the rate-increase timer",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&Dcqcn::SetRateIncreaseInterval,
                                           &Dcqcn::GetRateIncreaseInterval),
                          MakeTimeChecker())
            .AddAttribute("ByteCounter",
                          "B: bytes sent per byte-counter increase event (0: timer only)",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&Dcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoverySteps",
                          "F: increase events of fast recovery before additive increase",
                          UintegerValue(5),
                          MakeUintegerAccessor(&Dcqcn::m_fastRecovery),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncrease",
                          "R_AI: target-rate step of additive increase",
                          DataRateValue(DataRate("40Mb/s")),
                          MakeDataRateAccessor(&Dcqcn::m_rai),
                          MakeDataRateChecker())
            // Not in the paper's deployment list: 10 x R_AI, the ratio the
            // HPCC authors' scripts keep (R_AI 5*bw/25, R_HAI 50*bw/25 Mb/s).
            .AddAttribute("HyperIncrease",
                          "R_HAI: target-rate step of hyper increase (times the stage above F "
                          "with the byte counter on; constant when timer-only)",
                          DataRateValue(DataRate("400Mb/s")),
                          MakeDataRateAccessor(&Dcqcn::m_rhai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Floor of the sending rate (HPCC repository MIN_RATE)",
                          DataRateValue(DataRate("100Mb/s")),
                          MakeDataRateAccessor(&Dcqcn::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("RateDecreaseInterval",
                          "At most one rate cut per interval; 0 cuts on every CNP (paper)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&Dcqcn::SetRateDecreaseInterval,
                                           &Dcqcn::GetRateDecreaseInterval),
                          MakeTimeChecker())
            .AddAttribute("ClampTargetRate",
                          "RT = RC on every cut (paper); false: only if the rate "
                          "increased since the last cut (ConnectX clamp_tgt_rate 0)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&Dcqcn::m_clampTargetRate),
                          MakeBooleanChecker())
            .AddAttribute("CnpInterval",
                          "N: notification point sends at most one CNP per N",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&Dcqcn::SetCnpInterval, &Dcqcn::GetCnpInterval),
                          MakeTimeChecker())
            .AddAttribute("CnpPerPort",
                          "Pace CNPs per NIC port instead of per flow (ConnectX)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&Dcqcn::m_cnpPerPort),
                          MakeBooleanChecker())
            .AddTraceSource("Alpha",
                            "alpha of the flow",
                            MakeTraceSourceAccessor(&Dcqcn::m_alpha),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

Dcqcn::Dcqcn()
    : m_alpha(1.0),
      m_np(std::make_shared<NpClock>())
{
}

void
Dcqcn::SetG(double g)
{
    if (!(g > 0 && g <= 1))
    {
        throw std::invalid_argument("Dcqcn::G: expected 0 < g <= 1, got " + std::to_string(g));
    }
    m_g = g;
}

void
Dcqcn::SetInitialAlpha(double a)
{
    if (!(a >= 0 && a <= 1))
    {
        throw std::invalid_argument("Dcqcn::InitialAlpha: expected 0 <= alpha <= 1, got " +
                                    std::to_string(a));
    }
    m_initialAlpha = a;
    m_alpha = a;
}

void
Dcqcn::SetAlphaInterval(Time t)
{
    RequirePositive("Dcqcn::AlphaInterval", t);
    m_alphaInterval = t;
}

void
Dcqcn::SetRateIncreaseInterval(Time t)
{
    RequirePositive("Dcqcn::RateIncreaseInterval", t);
    m_increaseInterval = t;
}

void
Dcqcn::SetCnpInterval(Time t)
{
    RequireNonNegative("Dcqcn::CnpInterval", t);
    m_cnpInterval = t;
}

void
Dcqcn::SetRateDecreaseInterval(Time t)
{
    RequireNonNegative("Dcqcn::RateDecreaseInterval", t);
    m_decreaseInterval = t;
}

Ptr<RdmaCongestionControl>
Dcqcn::Fork() const
{
    Ptr<Dcqcn> d = CreateObject<Dcqcn>();
    d->m_g = m_g;
    d->m_initialAlpha = m_initialAlpha;
    d->m_alpha = m_initialAlpha;
    d->m_alphaInterval = m_alphaInterval;
    d->m_increaseInterval = m_increaseInterval;
    d->m_byteCounter = m_byteCounter;
    d->m_fastRecovery = m_fastRecovery;
    d->m_rai = m_rai;
    d->m_rhai = m_rhai;
    d->m_minRate = m_minRate;
    d->m_decreaseInterval = m_decreaseInterval;
    d->m_clampTargetRate = m_clampTargetRate;
    d->m_cnpInterval = m_cnpInterval;
    d->m_cnpPerPort = m_cnpPerPort;
    if (m_cnpPerPort)
    {
        d->m_np = m_np;
    }
    return d;
}

void
Dcqcn::FlowStart(Ptr<RdmaRateState> state)
{
    if (m_minRate > state->GetLineRate())
    {
        throw std::invalid_argument("Dcqcn::MinRate: expected at most the line rate " +
                                    std::to_string(state->GetLineRate().GetBitRate()) +
                                    " b/s, got " + std::to_string(m_minRate.GetBitRate()) +
                                    " b/s");
    }
    m_state = state;
    m_alpha = m_initialAlpha;
    m_lastAlphaTick = Simulator::Now();
    RdmaCongestionControl::FlowStart(state);
}

double
Dcqcn::GetAlpha() const
{
    if (m_alphaEvent.IsRunning() || !m_everCut)
    {
        return m_alpha;
    }
    double n = std::floor((Simulator::Now() - m_lastAlphaTick).GetDouble() /
                          m_alphaInterval.GetDouble());
    return m_alpha.Get() * std::pow(1 - m_g, n);
}

void
Dcqcn::CatchUpAlpha()
{
    if (m_alphaEvent.IsRunning() || !m_everCut)
    {
        return;
    }
    // The timer was parked while the flow ran at line rate; apply the decays
    // it would have made (the flow saw no CNP in that time).
    double n = std::floor((Simulator::Now() - m_lastAlphaTick).GetDouble() /
                          m_alphaInterval.GetDouble());
    if (n > 0)
    {
        m_alpha = m_alpha.Get() * std::pow(1 - m_g, n);
    }
}

void
Dcqcn::CnpReceived(Ptr<RdmaRateState> state)
{
    m_state = state;
    CatchUpAlpha();
    // The paper's order: the cut uses alpha as it was, then alpha moves
    // toward 1. A cut deferred by RateDecreaseInterval uses alpha at its time.
    if (m_decreaseInterval.IsZero() || !m_everCut ||
        Simulator::Now() - m_lastCut >= m_decreaseInterval)
    {
        m_decreaseEvent.Cancel();
        Cut();
    }
    else
    {
        if (!m_cutPending)
        {
            m_cutPending = true;
            m_decreaseEvent = Simulator::Schedule(m_lastCut + m_decreaseInterval - Simulator::Now(),
                                                  &Dcqcn::Cut, this);
        }
        // Both increase triggers restart on every CNP (the paper), not only
        // when the deferred cut fires: congestion was seen now.
        ResetIncrease();
    }
    m_alpha = (1 - m_g) * m_alpha.Get() + m_g;
    m_alphaEvent.Cancel();
    m_lastAlphaTick = Simulator::Now();
    m_alphaEvent = Simulator::Schedule(m_alphaInterval, &Dcqcn::AlphaTimer, this);
}

void
Dcqcn::Cut()
{
    m_cutPending = false;
    double rc = static_cast<double>(m_state->GetRate().GetBitRate());
    if (m_clampTargetRate || m_increasedSinceCut || !m_everCut)
    {
        m_state->SetTargetRate(m_state->GetRate());
    }
    // The floor never lifts RC above the line rate (FlowStart rejects a
    // MinRate above it; a port may still be slower than a shared prototype).
    double cut = std::min(std::max(rc * (1 - m_alpha.Get() / 2),
                                   static_cast<double>(m_minRate.GetBitRate())),
                          static_cast<double>(m_state->GetLineRate().GetBitRate()));
    m_state->SetRate(DataRate(static_cast<uint64_t>(std::llround(cut))));
    NS_LOG_DEBUG("qp " << m_state->qpNumber << " cut to " << cut * 1e-9 << " Gb/s alpha "
                       << m_alpha);
    m_increasedSinceCut = false;
    m_limited = true;
    m_everCut = true;
    m_lastCut = Simulator::Now();
    ResetIncrease();
    if (!m_alphaEvent.IsRunning())
    {
        m_lastAlphaTick = Simulator::Now();
        m_alphaEvent = Simulator::Schedule(m_alphaInterval, &Dcqcn::AlphaTimer, this);
    }
}

void
Dcqcn::ResetIncrease()
{
    m_timerStage = 0;
    m_byteStage = 0;
    m_byteAcc = 0;
    m_increaseEvent.Cancel();
    m_increaseEvent = Simulator::Schedule(m_increaseInterval, &Dcqcn::IncreaseTimer, this);
}

void
Dcqcn::AlphaTimer()
{
    m_alpha = (1 - m_g) * m_alpha.Get();
    m_lastAlphaTick = Simulator::Now();
    if (m_limited)
    {
        m_alphaEvent = Simulator::Schedule(m_alphaInterval, &Dcqcn::AlphaTimer, this);
    }
}

void
Dcqcn::IncreaseTimer()
{
    ++m_timerStage;
    Increase();
    if (m_limited)
    {
        m_increaseEvent = Simulator::Schedule(m_increaseInterval, &Dcqcn::IncreaseTimer, this);
    }
}

void
Dcqcn::BytesSent(Ptr<RdmaRateState> state, uint32_t bytes)
{
    if (m_byteCounter == 0 || !m_limited)
    {
        return;
    }
    m_byteAcc += bytes;
    while (m_limited && m_byteAcc >= m_byteCounter)
    {
        m_byteAcc -= m_byteCounter;
        ++m_byteStage;
        Increase();
    }
}

void
Dcqcn::Increase()
{
    // Stage counts include the event being handled.
    double line = static_cast<double>(m_state->GetLineRate().GetBitRate());
    double rt = static_cast<double>(m_state->GetTargetRate().GetBitRate());
    double rc = static_cast<double>(m_state->GetRate().GetBitRate());
    if (m_byteCounter == 0)
    {
        // Timer only, as in the HPCC authors' simulator (alibaba-edu/High-
        // Precision-Congestion-Control, rdma-hw.cc RateIncEventMlx, which
        // tests the stage before counting the event): fast recovery for the
        // first F events, one additive step at the (F+1)-th, then hyper
        // increase by a constant R_HAI per event.
        if (m_timerStage == m_fastRecovery + 1)
        {
            rt += static_cast<double>(m_rai.GetBitRate());
        }
        else if (m_timerStage > m_fastRecovery + 1)
        {
            rt += static_cast<double>(m_rhai.GetBitRate());
        }
    }
    else
    {
        // Timer and byte counter (the paper; bobzhuyb/ns3-rdma): fast
        // recovery while both counters are at most F; hyper increase once
        // both exceed F, by (min stage - F) x R_HAI; additive in between.
        uint32_t hi = std::max(m_timerStage, m_byteStage);
        uint32_t lo = std::min(m_timerStage, m_byteStage);
        if (hi > m_fastRecovery)
        {
            rt += lo <= m_fastRecovery ? static_cast<double>(m_rai.GetBitRate())
                                       : static_cast<double>(lo - m_fastRecovery) *
                                             static_cast<double>(m_rhai.GetBitRate());
        }
    }
    rt = std::min(rt, line);
    rc = std::min((rt + rc) / 2, line);
    m_increasedSinceCut = true;
    auto rtInt = static_cast<uint64_t>(std::llround(rt));
    auto rcInt = static_cast<uint64_t>(std::llround(rc));
    m_state->SetTargetRate(DataRate(rtInt));
    m_state->SetRate(DataRate(rcInt));
    ParkIfAtLineRate();
}

void
Dcqcn::ParkIfAtLineRate()
{
    uint64_t line = m_state->GetLineRate().GetBitRate();
    if (m_state->GetRate().GetBitRate() >= line && m_state->GetTargetRate().GetBitRate() >= line)
    {
        // Back at line rate: the rate limiter is released and the timers stop
        // (no events for a flow that is not limited); alpha's decays while
        // parked are applied in closed form at the next CNP.
        m_limited = false;
        m_increaseEvent.Cancel();
        m_alphaEvent.Cancel();
    }
}

bool
Dcqcn::DataReceived(Ptr<RdmaRateState> state, bool ceMarked)
{
    if (!ceMarked)
    {
        return false;
    }
    Time now = Simulator::Now();
    if (m_np->sent && now - m_np->last < m_cnpInterval)
    {
        return false;
    }
    m_np->sent = true;
    m_np->last = now;
    return true;
}

void
Dcqcn::Stop()
{
    m_alphaEvent.Cancel();
    m_increaseEvent.Cancel();
    m_decreaseEvent.Cancel();
    RdmaCongestionControl::Stop();
}

void
Dcqcn::DoDispose()
{
    Stop();
    m_state = nullptr;
    RdmaCongestionControl::DoDispose();
}

std::vector<std::string>
Dcqcn::PresetNames()
{
    return {"paper", "production", "connectx"};
}

namespace
{
void
CheckPreset(const std::string& name, DataRate lineRate)
{
    auto names = Dcqcn::PresetNames();
    if (std::find(names.begin(), names.end(), name) == names.end())
    {
        throw std::invalid_argument("Dcqcn preset: expected paper, production or connectx, got '" +
                                    name + "'");
    }
    if (lineRate.GetBitRate() == 0)
    {
        throw std::invalid_argument("Dcqcn preset line rate: expected a rate > 0, got 0");
    }
}
} // namespace

void
Dcqcn::ApplyPreset(const std::string& name, DataRate lineRate)
{
    CheckPreset(name, lineRate);
    double bw = static_cast<double>(lineRate.GetBitRate()) * 1e-9; // Gb/s
    if (name == "paper")
    {
        // SIGCOMM 2015 deployment set (doc/fabric.md, Sources: secondary
        // sources and bobzhuyb/ns3-rdma): T 55 us, B 10 MB, F 5, g 1/256,
        // R_AI 40 Mb/s, K 55 us, N 50 us; a cut per CNP.
        SetAttribute("G", DoubleValue(1.0 / 256));
        SetAttribute("InitialAlpha", DoubleValue(1.0));
        SetAttribute("AlphaInterval", TimeValue(MicroSeconds(55)));
        SetAttribute("RateIncreaseInterval", TimeValue(MicroSeconds(55)));
        SetAttribute("ByteCounter", UintegerValue(10000000));
        SetAttribute("FastRecoverySteps", UintegerValue(5));
        SetAttribute("AdditiveIncrease", DataRateValue(DataRate("40Mb/s")));
        SetAttribute("HyperIncrease", DataRateValue(DataRate("400Mb/s")));
        SetAttribute("MinRate", DataRateValue(DataRate("100Mb/s")));
        SetAttribute("RateDecreaseInterval", TimeValue(Time(0)));
        SetAttribute("ClampTargetRate", BooleanValue(true));
        SetAttribute("CnpInterval", TimeValue(MicroSeconds(50)));
        SetAttribute("CnpPerPort", BooleanValue(false));
    }
    else if (name == "production")
    {
        // The HPCC authors' DCQCN set (alibaba-edu/High-Precision-Congestion-
        // Control simulation/run.py; doc/fabric.md, Sources), scaled with bw in Gb/s:
        // alpha interval 1 us, rate-decrease interval 4 us, increase timer
        // 300 us, g 1/256, R_AI 5*bw/25, R_HAI 50*bw/25 Mb/s, min 100 Mb/s;
        // their simulator has no byte counter (timer-only increase). Their NP
        // echoes ECN per ACK; N = 4 us matches the cut interval.
        SetAttribute("G", DoubleValue(1.0 / 256));
        SetAttribute("InitialAlpha", DoubleValue(1.0));
        SetAttribute("AlphaInterval", TimeValue(MicroSeconds(1)));
        SetAttribute("RateIncreaseInterval", TimeValue(MicroSeconds(300)));
        SetAttribute("ByteCounter", UintegerValue(0));
        SetAttribute("FastRecoverySteps", UintegerValue(5));
        SetAttribute("AdditiveIncrease", DataRateValue(Mbps(5 * bw / 25)));
        SetAttribute("HyperIncrease", DataRateValue(Mbps(50 * bw / 25)));
        SetAttribute("MinRate", DataRateValue(DataRate("100Mb/s")));
        SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(4)));
        SetAttribute("ClampTargetRate", BooleanValue(true));
        SetAttribute("CnpInterval", TimeValue(MicroSeconds(4)));
        SetAttribute("CnpPerPort", BooleanValue(false));
    }
    else // connectx
    {
        // NVIDIA ConnectX firmware defaults (sysfs ecn/roce_rp, roce_np and
        // mlxconfig dumps; doc/fabric.md, Sources): rpg_time_reset 300 us,
        // rpg_byte_reset 32767 x 64 B (the unit is not confirmed),
        // rpg_threshold 1, rpg_ai_rate 5 Mb/s, rpg_hai_rate 50 Mb/s,
        // rpg_min_rate 1 Mb/s, dce_tcp_g 1019/1024 (g = 5/1024) every
        // dce_tcp_rtt 1 us, initial alpha 1023/1024, rate_reduce_monitor_period
        // 4 us, clamp_tgt_rate 0, min_time_between_cnps 4 us per port.
        SetAttribute("G", DoubleValue(5.0 / 1024));
        SetAttribute("InitialAlpha", DoubleValue(1023.0 / 1024));
        SetAttribute("AlphaInterval", TimeValue(MicroSeconds(1)));
        SetAttribute("RateIncreaseInterval", TimeValue(MicroSeconds(300)));
        SetAttribute("ByteCounter", UintegerValue(32767ULL * 64));
        SetAttribute("FastRecoverySteps", UintegerValue(1));
        SetAttribute("AdditiveIncrease", DataRateValue(DataRate("5Mb/s")));
        SetAttribute("HyperIncrease", DataRateValue(DataRate("50Mb/s")));
        SetAttribute("MinRate", DataRateValue(DataRate("1Mb/s")));
        SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(4)));
        SetAttribute("ClampTargetRate", BooleanValue(false));
        SetAttribute("CnpInterval", TimeValue(MicroSeconds(4)));
        SetAttribute("CnpPerPort", BooleanValue(true));
    }
}

DcqcnMarking
Dcqcn::PresetMarking(const std::string& name, DataRate lineRate)
{
    CheckPreset(name, lineRate);
    if (name == "paper")
    {
        // Paper deployment: Kmin 5 KB, Kmax 200 KB, Pmax 1 %.
        return {5000, 200000, 0.01};
    }
    // HPCC authors' set, Kmin 100*bw/25 KB, Kmax 400*bw/25 KB, Pmax 0.2 (the
    // per-link-rate table of public ns-3 RDMA configurations; doc/fabric.md, Sources).
    double bw = static_cast<double>(lineRate.GetBitRate()) * 1e-9;
    return {static_cast<uint64_t>(std::llround(100 * bw / 25 * 1000)),
            static_cast<uint64_t>(std::llround(400 * bw / 25 * 1000)),
            0.2};
}

namespace
{
// "dcqcn" alone is the paper's set, as the SIGCOMM 2015 deployment defines it.
const RdmaCcRegistration g_dcqcnRegistration({"dcqcn",
                                              &Dcqcn::GetTypeId,
                                              Dcqcn::PresetNames(),
                                              "paper",
                                              [](Ptr<RdmaCongestionControl> cc,
                                                 const std::string& preset,
                                                 DataRate lineRate) {
                                                  DynamicCast<Dcqcn>(cc)->ApplyPreset(preset,
                                                                                      lineRate);
                                              }});
} // namespace

} // namespace ns3
