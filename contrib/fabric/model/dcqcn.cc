// SPDX-License-Identifier: GPL-2.0-only
#include "dcqcn.h"
#include "tie-keyed-events.h"
#include "fast-simulator-impl.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
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
            // The three variant choices (doc/fabric.md, "DCQCN variants").
            // The paper (Zhu et al., SIGCOMM 2015, section 4) cuts on the CNP;
            // the public ns-3 simulators' "Mellanox version" (bobzhuyb/ns3-rdma,
            // alibaba-edu/High-Precision-Congestion-Control rdma-hw.cc) only
            // records the CNP and cuts in a check every RateDecreaseInterval.
            .AddAttribute("RateDecrease",
                          "OnCnp: a CNP cuts at once (at most one cut per "
                          "RateDecreaseInterval, later CNPs defer it); PeriodicCheck: a CNP "
                          "only arms a check at the next multiple of RateDecreaseInterval "
                          "after the flow's first CNP, which cuts once if any CNP came "
                          "(RateDecreaseInterval 0: every CNP cuts, in either mode)",
                          EnumValue(CUT_ON_CNP),
                          MakeEnumAccessor(&Dcqcn::m_decreaseMode),
                          MakeEnumChecker(CUT_ON_CNP, "OnCnp", PERIODIC_CHECK, "PeriodicCheck"))
            .AddAttribute("AlphaUpdate",
                          "PerCnp: alpha = (1-g) alpha + g on every CNP, (1-g) alpha after each "
                          "K without one; PerInterval: once per K from the first CNP, up if a "
                          "CNP came in that K, else down",
                          EnumValue(ALPHA_PER_CNP),
                          MakeEnumAccessor(&Dcqcn::m_alphaMode),
                          MakeEnumChecker(ALPHA_PER_CNP, "PerCnp", ALPHA_PER_INTERVAL,
                                          "PerInterval"))
            .AddAttribute("Notification",
                          "CnpPacket: the notification point sends a CNP packet (paced by "
                          "CnpInterval); AckEcho: no CNP packets, every ACK that echoes a CE "
                          "mark (BECN) acts as a CNP at the sender",
                          EnumValue(CNP_PACKET),
                          MakeEnumAccessor(&Dcqcn::m_notification),
                          MakeEnumChecker(CNP_PACKET, "CnpPacket", ACK_ECHO, "AckEcho"))
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
    CopyAttributesTo(d); // InitialAlpha's setter also starts the fork's alpha there
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
    m_lastAlphaTick = hotsim::Now();
    RdmaCongestionControl::FlowStart(state);
}

double
Dcqcn::GetAlpha() const
{
    CatchUp();
    if (m_alphaTimer.armed || !m_everCnp)
    {
        return m_alpha;
    }
    double n = std::floor((Now() - m_lastAlphaTick).GetDouble() /
                          m_alphaInterval.GetDouble());
    return m_alpha.Get() * std::pow(1 - m_g, n);
}

void
Dcqcn::CatchUpAlpha()
{
    if (m_alphaTimer.armed || !m_everCnp)
    {
        return;
    }
    // The timer was parked while the flow ran at line rate; apply the decays
    // it would have made (the flow saw no CNP in that time).
    auto n = static_cast<int64_t>(std::floor((Now() - m_lastAlphaTick).GetDouble() /
                                             m_alphaInterval.GetDouble()));
    if (n > 0)
    {
        m_alpha = m_alpha.Get() * std::pow(1 - m_g, static_cast<double>(n));
    }
    if (m_alphaMode == ALPHA_PER_INTERVAL)
    {
        // A free-running clock: its ticks stay on the grid of the first CNP.
        m_lastAlphaTick += TimeStep(m_alphaInterval.GetTimeStep() * n);
    }
}

void
Dcqcn::StartAlphaTimer()
{
    if (m_alphaTimer.armed)
    {
        return;
    }
    if (m_alphaMode == ALPHA_PER_INTERVAL && m_everCnp)
    {
        CatchUpAlpha();
        Arm(m_alphaTimer, m_lastAlphaTick + m_alphaInterval - Now(), &Dcqcn::AlphaTimer);
        return;
    }
    RestartAlphaClock();
}

void
Dcqcn::RestartAlphaClock()
{
    m_lastAlphaTick = Now();
    Arm(m_alphaTimer, m_alphaInterval, &Dcqcn::AlphaTimer);
}

void
Dcqcn::AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample)
{
    if (m_notification == ACK_ECHO && sample.ecnEcho)
    {
        CnpReceived(state);
    }
}

void
Dcqcn::CnpReceived(Ptr<RdmaRateState> state)
{
    CatchUp();
    m_state = state;
    CatchUpAlpha();
    const bool first = !m_everCnp;
    m_everCnp = true;
    if (m_decreaseMode == PERIODIC_CHECK && !m_decreaseInterval.IsZero())
    {
        // Firmware-style: the CNP is recorded; the check cuts. The increase
        // stages keep running until that cut (the HPCC simulator's
        // CheckRateDecreaseMlx resets them only when it cuts).
        if (first)
        {
            m_firstCnp = Now();
        }
        m_cutPending = true;
        ArmDecreaseCheck();
    }
    // The paper's order: the cut uses alpha as it was, then alpha moves
    // toward 1. A cut deferred by RateDecreaseInterval uses alpha at its time.
    else if (m_decreaseInterval.IsZero() || !m_everCut ||
             Now() - m_lastCut >= m_decreaseInterval)
    {
        Disarm(m_decreaseTimer);
        Cut();
    }
    else
    {
        if (!m_cutPending)
        {
            m_cutPending = true;
            Arm(m_decreaseTimer, m_lastCut + m_decreaseInterval - Now(), &Dcqcn::Cut);
        }
        // Both increase triggers restart on every CNP (the paper), not only
        // when the deferred cut fires: congestion was seen now.
        ResetIncrease();
    }
    if (m_alphaMode == ALPHA_PER_CNP)
    {
        m_alpha = (1 - m_g) * m_alpha.Get() + m_g;
        RestartAlphaClock();
        return;
    }
    // PerInterval: the first CNP starts the clock with alpha = InitialAlpha
    // (rdma-hw.cc cnp_received_mlx sets alpha and clears the CNP bit); a
    // later CNP only marks the current K.
    if (first)
    {
        m_alphaCnp = false;
        RestartAlphaClock();
        return;
    }
    m_alphaCnp = true;
    StartAlphaTimer();
}

void
Dcqcn::ArmDecreaseCheck()
{
    if (m_decreaseTimer.armed)
    {
        return;
    }
    // The check of a periodic clock started at the first CNP: the next tick
    // strictly after now (a tick at this instant has already run, or it is
    // still pending and will see this CNP). No events while no CNP comes.
    const int64_t period = m_decreaseInterval.GetTimeStep();
    const int64_t k = (Now() - m_firstCnp).GetTimeStep() / period + 1;
    const Time at = m_firstCnp + TimeStep(period * k);
    Arm(m_decreaseTimer, at - Now(), &Dcqcn::DecreaseCheck);
}

void
Dcqcn::DecreaseCheck()
{
    // An alpha tick at this same instant goes first, so the cut uses the
    // alpha of the interval that just ended (rdma-hw.cc delays its check by
    // 1 ns for the same reason).
    if (m_alphaTimer.armed && m_alphaTimer.at == Now())
    {
        Disarm(m_alphaTimer);
        AlphaTimer();
    }
    if (m_cutPending)
    {
        Cut();
    }
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
    m_lastCut = Now();
    ResetIncrease();
    StartAlphaTimer();
}

void
Dcqcn::ResetIncrease()
{
    m_timerStage = 0;
    m_byteStage = 0;
    m_byteAcc = 0;
    Arm(m_increaseTimer, m_increaseInterval, &Dcqcn::IncreaseTimer);
}

void
Dcqcn::AlphaTimer()
{
    const bool up = m_alphaMode == ALPHA_PER_INTERVAL && m_alphaCnp;
    m_alpha = (1 - m_g) * m_alpha.Get() + (up ? m_g : 0.0);
    m_alphaCnp = false;
    m_lastAlphaTick = Now();
    // PerInterval keeps ticking until an armed check has cut (its cut uses
    // the alpha of the ticks since the first CNP).
    if (m_limited || (m_alphaMode == ALPHA_PER_INTERVAL && m_cutPending))
    {
        Arm(m_alphaTimer, m_alphaInterval, &Dcqcn::AlphaTimer);
    }
}

void
Dcqcn::IncreaseTimer()
{
    ++m_timerStage;
    Increase();
    if (m_limited)
    {
        Arm(m_increaseTimer, m_increaseInterval, &Dcqcn::IncreaseTimer);
    }
}

void
Dcqcn::BytesSent(Ptr<RdmaRateState> state, uint32_t bytes)
{
    CatchUp();
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
        Disarm(m_increaseTimer);
        if (m_alphaMode == ALPHA_PER_CNP || !(m_cutPending || m_alphaCnp))
        {
            Disarm(m_alphaTimer);
        }
    }
}

bool
Dcqcn::DataReceived(Ptr<RdmaRateState> state, bool ceMarked)
{
    if (!ceMarked || m_notification == ACK_ECHO)
    {
        return false;
    }
    Time now = Now();
    if (m_np->sent && now - m_np->last < m_cnpInterval)
    {
        return false;
    }
    m_np->sent = true;
    m_np->last = now;
    return true;
}

bool
Dcqcn::IsFresh(const RdmaRateState& state) const
{
    CatchUp();
    // Reaction point: alpha, RC and RT, the stages, the byte counter, the
    // cut flags and every timer move only from a CNP (a cut, an increase,
    // an alpha tick all follow one), so without one they are FlowStart's;
    // the alpha clock FlowStart set is read only after a CNP (CatchUpAlpha,
    // GetAlpha). The rest is checked too, so that a later change to the
    // algorithm that breaks this reasoning keeps the state instead of
    // dropping it.
    if (m_everCnp || m_everCut || m_cutPending || m_limited || m_alpha.Get() != m_initialAlpha ||
        m_alphaTimer.armed || m_increaseTimer.armed || m_decreaseTimer.armed ||
        IsTimeoutPending())
    {
        return false;
    }
    if (state.GetRate() != state.GetLineRate() || state.GetTargetRate() != state.GetLineRate() ||
        state.GetWindow() != 0)
    {
        return false;
    }
    // Notification point: a per-flow clock whose last CNP is at least N old
    // lets the next CE mark through, as a new clock does, now and at every
    // later time. A per-port clock is the NIC's (every fork shares it), so
    // dropping one fork loses none of it.
    return m_cnpPerPort || !m_np->sent || Now() - m_np->last >= m_cnpInterval;
}

void
Dcqcn::Stop()
{
    for (Timer* t : Timers())
    {
        Disarm(*t);
    }
    m_paused = false;
    RdmaCongestionControl::Stop();
}

void
Dcqcn::Arm(Timer& t, Time delay, void (Dcqcn::*fire)())
{
    Disarm(t);
    t.at = Now() + delay;
    t.seq = ++m_armSeq;
    t.fire = fire;
    t.armed = true;
    if (!m_paused)
    {
        ScheduleTimer(t);
    }
}

void
Dcqcn::Disarm(Timer& t)
{
    if (t.live)
    {
        t.event.Cancel(); // as the events were cancelled before (same queue work)
    }
    t.armed = false;
    t.live = false;
}

void
Dcqcn::ScheduleTimer(Timer& t)
{
    t.event = hotsim::Schedule(t.at - hotsim::Now(), &Dcqcn::Fire, this, &t);
    t.live = true;
}

void
Dcqcn::Pause(Ptr<RdmaRateState> state)
{
    if (m_paused)
    {
        return;
    }
    // A QP with nothing to send does not read its rate: its ticks change
    // nothing anyone sees until its next input, so they need not be events.
    // A cut QP of a pairwise AllToAll sends one message and keeps its
    // alpha and increase timers (one event per 55 us each) for the rest of
    // the run otherwise: at 1024 GPUs most of the run's events. The events
    // pending now stay and run (they keep their place among the events of
    // their instant); the timers they and the replays re-arm are not events.
    m_paused = true;
}

void
Dcqcn::Resume(Ptr<RdmaRateState> state)
{
    if (!m_paused)
    {
        return;
    }
    CatchUp();
    m_paused = false;
    // In the order they were armed: the scheduler then orders the ones due
    // at the same instant as it would have.
    std::array<Timer*, 3> timers = Timers();
    std::sort(timers.begin(), timers.end(), [](const Timer* a, const Timer* b) { return a->seq < b->seq; });
    for (Timer* t : timers)
    {
        if (t->armed && !t->live)
        {
            ++m_rescheduled;
            ScheduleTimer(*t);
        }
    }
}

void
Dcqcn::CatchUp() const
{
    if (!m_paused || m_replaying)
    {
        return;
    }
    auto* self = const_cast<Dcqcn*>(this);
    // A tick is an event without a tie key: the events of its instant that
    // have one (the fabric's packet arrivals, tie-keyed-events.h) run
    // before it, so a tick due now stays for later when such an event
    // asks. An event without a key asks after the tick when it was
    // scheduled after the tick was armed, which is the usual case (a post
    // or a NIC step is scheduled less than an interval ahead): the tick
    // due now runs first, unless a timer due now whose event is pending
    // was armed before it (that event runs after the input).
    const Time now = hotsim::Now();
    uint64_t seqLimit = ~uint64_t(0);
    if (tie_keys::g_ordered && tie_keys::g_running != KeyedEvent::kNoKey)
    {
        seqLimit = 0;
    }
    for (const Timer* t : self->Timers())
    {
        if (t->live && t->at == now)
        {
            seqLimit = std::min(seqLimit, t->seq);
        }
    }
    self->Replay(now, seqLimit, true);
}

void
Dcqcn::Replay(Time until, uint64_t seqLimit, bool input)
{
    m_replaying = true;
    for (;;)
    {
        // The earliest due tick, ties by arming order: the order in which
        // the scheduler would have run the events. Timers whose event is
        // pending run by themselves.
        Timer* next = nullptr;
        for (Timer* t : Timers())
        {
            if (t->armed && !t->live && t->at <= until &&
                (!next || t->at < next->at || (t->at == next->at && t->seq < next->seq)))
            {
                next = t;
            }
        }
        if (!next)
        {
            break;
        }
        if (next->at == until && next->seq >= seqLimit)
        {
            m_tiesLeft += input ? 1 : 0;
            break;
        }
        m_tiedTicks += input && next->at == until ? 1 : 0;
        m_replayAt = next->at;
        ++m_replayedTicks;
        next->armed = false;
        (this->*next->fire)();
    }
    m_replaying = false;
}

void
Dcqcn::Fire(Timer* timer)
{
    Timer& t = *timer;
    if (m_paused)
    {
        // A pending event of a paused fork: the re-armed ticks due before
        // it (earlier, or at its instant and armed before it) go first,
        // with this timer still armed as it was then. One of them may have
        // disarmed or re-armed it: as events, this one was cancelled.
        const uint64_t seq = t.seq;
        Replay(t.at, t.seq, false);
        if (!t.armed || !t.live || t.seq != seq)
        {
            return;
        }
    }
    ++m_timerEvents;
    t.armed = false;
    t.live = false;
    (this->*t.fire)();
}

uint32_t
Dcqcn::GetTimerStage() const
{
    CatchUp();
    return m_timerStage;
}

uint32_t
Dcqcn::GetByteStage() const
{
    CatchUp();
    return m_byteStage;
}

void
Dcqcn::DoDispose()
{
    Stop();
    m_state = nullptr;
    RdmaCongestionControl::DoDispose();
}

} // namespace ns3
