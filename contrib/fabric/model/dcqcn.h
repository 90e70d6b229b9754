// SPDX-License-Identifier: GPL-2.0-only
//
// DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
// SIGCOMM 2015): the reaction point (rate cut on a CNP, alpha EWMA, rate
// increase by a timer AND a byte counter through fast recovery, additive and
// hyper increase) and the notification point (at most one CNP per flow per N).
// The switch side (RED/ECN marking on the egress queue) is the switch's.
// Three choices where implementations differ are attributes (RateDecrease,
// AlphaUpdate, Notification): the paper's reading is the default, the
// firmware-style reading of the public ns-3 RDMA simulators the alternative
// (doc/fabric.md, "DCQCN variants").
#ifndef HOCKNEY_DCQCN_H
#define HOCKNEY_DCQCN_H

#include "fast-simulator-impl.h"
#include "rdma-congestion-control.h"

#include "ns3/event-id.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// ECN marking values that belong with a DCQCN preset (they are set on the
/// switches, not on the NIC).
struct DcqcnMarking
{
    uint64_t kminBytes;
    uint64_t kmaxBytes;
    double pmax;
};

class Dcqcn : public RdmaCongestionControl
{
  public:
    /// When a rate cut happens.
    enum RateDecreaseMode
    {
        CUT_ON_CNP,    ///< a CNP cuts at once, at most one cut per RateDecreaseInterval (paper)
        PERIODIC_CHECK ///< a CNP only arms a check every RateDecreaseInterval (firmware-style)
    };

    /// When alpha moves toward 1.
    enum AlphaUpdateMode
    {
        ALPHA_PER_CNP,     ///< on every CNP; decays after K without one (paper)
        ALPHA_PER_INTERVAL ///< once per K: up if a CNP came in it, else down (firmware-style)
    };

    /// How the notification point tells the reaction point.
    enum NotificationMode
    {
        CNP_PACKET, ///< a CNP packet, paced per N per flow or per port
        ACK_ECHO    ///< the CE echo (BECN) on the ACKs is the CNP; no CNP packets
    };

    static TypeId GetTypeId();
    Dcqcn();

    std::string GetName() const override { return "Dcqcn"; }
    Ptr<RdmaCongestionControl> Fork() const override;

    /// \throws std::invalid_argument if MinRate is above the state's line rate.
    void FlowStart(Ptr<RdmaRateState> state) override;
    void CnpReceived(Ptr<RdmaRateState> state) override;
    /// With Notification = AckEcho an ACK carrying the CE echo is a CNP.
    void AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample) override;
    void BytesSent(Ptr<RdmaRateState> state, uint32_t bytes) override;
    bool DataReceived(Ptr<RdmaRateState> state, bool ceMarked) override;
    void Stop() override;
    /// The QP has nothing to send: the timer events pending now still run,
    /// but what is armed from now on is not an event; those ticks are
    /// replayed, tick by tick in their order, at the next input (a CNP, an
    /// ECN-echo ACK with AckEcho, a read of alpha or a stage), before a
    /// pending event, or at Resume (doc/fabric.md, "Deferred DCQCN timers").
    void Pause(Ptr<RdmaRateState> state) override;
    /// Replays the ticks due by now and gives the armed timers without an
    /// event one, in arming order.
    void Resume(Ptr<RdmaRateState> state) override;
    /// FlowStart's alpha clock is read only after the flow's first CNP.
    bool StartsLazily() const override { return true; }
    /// No CNP ever reached the reaction point (so alpha, RC, RT, the stages
    /// and the timers are FlowStart's) and the notification point sent no
    /// CNP within the last CnpInterval (one sent earlier paces nothing more).
    bool IsFresh(const RdmaRateState& state) const override;

    /**
     * Sets every parameter to a named set, scaled to the port's line rate where
     * the set is defined that way: "paper", "production", "connectx".
     * \throws std::invalid_argument for an unknown name or a zero rate.
     */
    void ApplyPreset(const std::string& name, DataRate lineRate);
    /// The switch ECN marking that goes with a preset at a link rate.
    static DcqcnMarking PresetMarking(const std::string& name, DataRate lineRate);
    static std::vector<std::string> PresetNames();

    /// alpha now, including the decays of K intervals that passed while the
    /// flow was at line rate and the timer was parked.
    double GetAlpha() const;
    uint32_t GetTimerStage() const;
    uint32_t GetByteStage() const;
    /// Timer ticks run as events, and ticks replayed after a Pause.
    uint64_t GetTimerEvents() const { return m_timerEvents; }
    uint64_t GetReplayedTicks() const { return m_replayedTicks; }
    /// Replayed ticks due at the very instant of an input without a tie key
    /// that replayed them: run before it (CatchUp), the scheduler's order
    /// when the input's event was scheduled after the tick was armed.
    uint64_t GetTiedTicks() const { return m_tiedTicks; }
    /// Ticks due at the very instant of an input with a tie key (a packet
    /// arrival), left to run after it, as the scheduler runs them.
    uint64_t GetTiesLeft() const { return m_tiesLeft; }
    /// Timers re-armed while paused that Resume made events again: each
    /// joins the events of its instant as scheduled at the Resume, not
    /// where it was armed (with GetTiedTicks, where a same-instant order
    /// may differ from the timers as events all along; doc/fabric.md).
    uint64_t GetRescheduled() const { return m_rescheduled; }

  protected:
    void DoDispose() override;

  private:
    /// One of the algorithm's timers: an event when armed while not paused
    /// (`live`), a due time only when armed while paused (Pause). `seq`
    /// orders timers due at the same instant as the scheduler orders
    /// events: by when they were armed.
    struct Timer
    {
        Time at;
        uint64_t seq{0};
        bool armed{false};
        bool live{false}; ///< `event` is pending
        void (Dcqcn::*fire)(){nullptr};
        EventId event;
    };

    /// The three timers, in one place for those that visit them all.
    std::array<Timer*, 3> Timers() { return {&m_alphaTimer, &m_increaseTimer, &m_decreaseTimer}; }
    /// Now, or the due time of the tick being replayed.
    Time Now() const { return m_replaying ? m_replayAt : hotsim::Now(); }
    /// Arms `t` to call `fire` after `delay` (replacing a pending arming).
    void Arm(Timer& t, Time delay, void (Dcqcn::*fire)());
    void Disarm(Timer& t);
    /// The event of an armed timer (it runs Fire).
    void ScheduleTimer(Timer& t);
    /// Paused: runs every tick without an event due before now, and those
    /// due now that the scheduler would run before the current event, in
    /// the order the events would have run. Logically const: it only
    /// applies what already happened.
    void CatchUp() const;
    /// Runs the re-armed ticks due before `until`, and those due at it
    /// armed before `seqLimit`, earliest first (ties by arming order).
    /// `input`: for an input (counts the ties), not a pending event.
    void Replay(Time until, uint64_t seqLimit, bool input);
    /// A timer's event: the ticks due before it, then its handler.
    void Fire(Timer* timer);

    void SetG(double g);
    void SetInitialAlpha(double a);
    void SetAlphaInterval(Time t);
    void SetRateIncreaseInterval(Time t);
    void SetCnpInterval(Time t);
    void SetRateDecreaseInterval(Time t);
    double GetG() const { return m_g; }
    double GetInitialAlpha() const { return m_initialAlpha; }
    Time GetAlphaInterval() const { return m_alphaInterval; }
    Time GetRateIncreaseInterval() const { return m_increaseInterval; }
    Time GetCnpInterval() const { return m_cnpInterval; }
    Time GetRateDecreaseInterval() const { return m_decreaseInterval; }

    void CatchUpAlpha();
    /// Starts the alpha timer if it is parked (PerInterval: on its grid).
    void StartAlphaTimer();
    /// The alpha clock restarts now: next tick one K from now.
    void RestartAlphaClock();
    void AlphaTimer();
    /// PeriodicCheck: a check at the next multiple of RateDecreaseInterval
    /// after the flow's first CNP.
    void ArmDecreaseCheck();
    void DecreaseCheck();
    void IncreaseTimer();
    void Cut();
    /// Stage counters and byte accumulator to 0, increase timer restarted.
    void ResetIncrease();
    void Increase();
    void ParkIfAtLineRate();

    // Parameters (attributes).
    double m_g;
    double m_initialAlpha;
    Time m_alphaInterval;    ///< K
    Time m_increaseInterval; ///< T
    uint64_t m_byteCounter;  ///< B, 0 = timer-only increase
    uint32_t m_fastRecovery; ///< F
    DataRate m_rai;
    DataRate m_rhai;
    DataRate m_minRate;
    Time m_decreaseInterval; ///< 0: cut on every CNP
    bool m_clampTargetRate;
    Time m_cnpInterval; ///< N
    bool m_cnpPerPort;
    RateDecreaseMode m_decreaseMode{CUT_ON_CNP};
    AlphaUpdateMode m_alphaMode{ALPHA_PER_CNP};
    NotificationMode m_notification{CNP_PACKET};

    // Per-flow variables.
    Ptr<RdmaRateState> m_state;
    TracedValue<double> m_alpha;
    Time m_lastAlphaTick;
    bool m_limited{false}; ///< rate limiter engaged (below line rate)
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
    uint64_t m_byteAcc{0};
    bool m_increasedSinceCut{false};
    bool m_cutPending{false};
    Time m_lastCut;
    bool m_everCut{false};
    bool m_everCnp{false};
    bool m_alphaCnp{false}; ///< AlphaUpdate PerInterval: a CNP came in this K
    Time m_firstCnp;        ///< origin of the PeriodicCheck grid
    Timer m_alphaTimer;
    Timer m_increaseTimer;
    Timer m_decreaseTimer; ///< a deferred Cut, or DecreaseCheck
    uint64_t m_armSeq{0};
    bool m_paused{false};
    bool m_replaying{false};
    Time m_replayAt;
    uint64_t m_timerEvents{0};
    uint64_t m_replayedTicks{0};
    uint64_t m_tiedTicks{0};
    uint64_t m_tiesLeft{0};
    uint64_t m_rescheduled{0};
    /// Time of the last CNP this notification point sent (shared between the
    /// forks of one NIC when CNPs are paced per port, as ConnectX does).
    struct NpClock
    {
        bool sent{false};
        Time last;
    };

    std::shared_ptr<NpClock> m_np;
};

} // namespace ns3

#endif
