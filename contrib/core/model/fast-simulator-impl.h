// SPDX-License-Identifier: GPL-2.0-only
//
// FastSimulatorImpl: ns-3's simulator of one process (the semantics of
// ns3::DefaultSimulatorImpl, event for event) without the per-event costs
// that Debian's ns-3.37 build carries. That build has logging compiled in, so
// every DefaultSimulatorImpl::Schedule, every ScheduleWithContext and every
// Simulator:: front-end call checks a log component, and ProcessOneEvent
// builds an EventId for PreEventHook (a reference-count round trip and
// another log check) that nothing reads. Callgrind on a fat-tree-k4 pairwise
// AllToAll put that machinery at about a sixth of all instructions of a
// packet run (doc/core.md, "The simulator of a packet run").
//
// Two parts:
// - FastSimulatorImpl, a SimulatorImpl chosen with
//   SimulatorImplementationType = ns3::FastSimulatorImpl. Events leave in the
//   order the scheduler gives, with the uids, contexts, expiry rules and the
//   event count of DefaultSimulatorImpl, so a run's outputs are the same to
//   the picosecond and its `events` the same number.
// - The hot front end (namespace ns3::hotsim): Now, Schedule and
//   ScheduleWithContext for code on a packet's path, and ScheduleKept /
//   RemovePending for an event scheduled often and removed seldom (its
//   identity kept without ns-3's logged EventId constructor and getters). While a FastSimulatorImpl
//   runs events they go to it directly (no Simulator:: indirection, no log
//   check); under any other simulator (ns-3's distributed ones for MPI runs,
//   DefaultSimulatorImpl in tests) they are Simulator::'s own calls.
#ifndef HOCKNEY_FAST_SIMULATOR_IMPL_H
#define HOCKNEY_FAST_SIMULATOR_IMPL_H

#include "ns3/assert.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/make-event.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>

namespace ns3
{

class FastSimulatorImpl final : public SimulatorImpl
{
  public:
    static TypeId GetTypeId();
    FastSimulatorImpl();
    ~FastSimulatorImpl() override;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const Time& delay) override;
    /// Inline (the class is final: the hot front end's call is direct).
    EventId Schedule(const Time& delay, EventImpl* event) override
    {
        NS_ASSERT_MSG(m_mainThreadId == std::this_thread::get_id(),
                      "FastSimulatorImpl::Schedule off the simulation thread");
        NS_ASSERT_MSG(delay.IsPositive(), "FastSimulatorImpl::Schedule: negative delay");
        const uint64_t ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
        const uint32_t uid = Enter(m_currentContext, delay, event);
        return EventId(Ptr<EventImpl>(event), ts, m_currentContext, uid);
    }
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override { return TimeStep(m_currentTs); }
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override { return 0; }
    uint32_t GetContext() const override { return m_currentContext; }
    uint64_t GetEventCount() const override { return m_eventCount; }

    /// The FastSimulatorImpl whose Run() is executing events on this
    /// process, or nullptr (before and after a run, and under any other
    /// simulator). Only the thread that runs the events may use it.
    static FastSimulatorImpl* Running() { return s_running; }

    /// The current time in time steps.
    int64_t NowSteps() const { return static_cast<int64_t>(m_currentTs); }

    /// Schedule from the running thread: what Schedule and
    /// ScheduleWithContext do there, inline (the hot front end's path).
    uint32_t Enter(uint32_t context, const Time& delay, EventImpl* event)
    {
        Scheduler::Event ev;
        ev.impl = event;
        ev.key.m_ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
        ev.key.m_context = context;
        ev.key.m_uid = m_uid++;
        ++m_unscheduledEvents;
        m_events->Insert(ev);
        return ev.key.m_uid;
    }

    /// The context of the event being run.
    uint32_t CurrentContext() const { return m_currentContext; }

    /// Remove(EventId(impl, ts, context, uid)) for an event its caller
    /// knows is pending (not run, not removed, not cancelled): the same
    /// work without building an EventId and reading it back through its
    /// out-of-line, logged getters. The event is cancelled as Remove
    /// cancels it (the calendar's far heap recognises removed events by
    /// that mark).
    void RemovePending(EventImpl* impl, uint64_t ts, uint32_t context, uint32_t uid);

  private:
    void DoDispose() override;
    /// Moves the events other threads scheduled (ScheduleWithContext off the
    /// simulation thread) into the queue, timed from now, in their order.
    void TakeForeignEvents();

    /// An event scheduled from another thread, waiting for the simulation
    /// thread (its delay is counted from when that thread takes it).
    struct ForeignEvent
    {
        EventImpl* event;
        uint32_t context;
        int64_t delaySteps;
    };

    Ptr<Scheduler> m_events;
    std::list<EventId> m_destroyEvents;
    uint64_t m_currentTs{0};
    uint32_t m_currentContext;
    uint32_t m_currentUid;
    uint32_t m_uid;
    int64_t m_unscheduledEvents{0};
    uint64_t m_eventCount{0};
    bool m_stop{false};
    std::thread::id m_mainThreadId;
    std::mutex m_foreignMutex;
    std::deque<ForeignEvent> m_foreign;
    std::atomic<bool> m_foreignPending{false};

    static FastSimulatorImpl* s_running;
};

/// The simulator calls of code on a packet's path (see the file comment).
namespace hotsim
{

/// Simulator::Now().
inline Time
Now()
{
    if (const FastSimulatorImpl* s = FastSimulatorImpl::Running())
    {
        return TimeStep(s->NowSteps());
    }
    return Simulator::Now();
}

/// Simulator::ScheduleWithContext(context, delay, event).
inline void
ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    if (FastSimulatorImpl* s = FastSimulatorImpl::Running())
    {
        s->Enter(context, delay, event);
        return;
    }
    Simulator::ScheduleWithContext(context, delay, event);
}

/// Simulator::Schedule(delay, event): in the context of the current event.
/// The queue takes the caller's reference to `event` (as Simulator's
/// EventImpl* overloads do).
inline EventId
Schedule(const Time& delay, EventImpl* event)
{
    if (FastSimulatorImpl* s = FastSimulatorImpl::Running())
    {
        return s->Schedule(delay, event);
    }
    return Simulator::Schedule(delay, Ptr<EventImpl>(event, false));
}

/// A scheduled event's identity, kept without an EventId: ns-3's EventId
/// constructor is out of line and logged in Debian's build. It holds a
/// reference to the event, as an EventId does, so that Remove and Cancel
/// stay safe whatever ran since.
struct ScheduledEvent
{
    Ptr<EventImpl> impl;
    uint64_t ts{0};
    uint32_t context{0};
    uint32_t uid{0};

    /// The EventId ns-3 would have returned.
    EventId Id() const { return EventId(impl, ts, context, uid); }
};

/// Schedule(delay, event) returning a ScheduledEvent: for events scheduled
/// often and removed seldom (a port's next start).
inline ScheduledEvent
ScheduleKept(const Time& delay, EventImpl* event)
{
    if (FastSimulatorImpl* s = FastSimulatorImpl::Running())
    {
        ScheduledEvent e;
        e.context = s->CurrentContext();
        e.ts = static_cast<uint64_t>(s->NowSteps() + delay.GetTimeStep());
        e.impl = event; // the kept reference; the queue takes the caller's
        e.uid = s->Enter(e.context, delay, event);
        return e;
    }
    const EventId id = Simulator::Schedule(delay, Ptr<EventImpl>(event, false));
    return ScheduledEvent{id.PeekEventImpl(), id.GetTs(), id.GetContext(), id.GetUid()};
}

/// ScheduleWithContext(context, delay, event) returning a ScheduledEvent:
/// for an event that may be removed before it runs. Under another simulator
/// (MPI's) it is scheduled in the current event's context instead (ns-3.37's
/// ScheduleWithContext returns no EventId): the context names the node in
/// log lines and orders nothing.
inline ScheduledEvent
ScheduleKeptWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    if (FastSimulatorImpl* s = FastSimulatorImpl::Running())
    {
        ScheduledEvent e;
        e.context = context;
        e.ts = static_cast<uint64_t>(s->NowSteps() + delay.GetTimeStep());
        e.impl = event; // the kept reference; the queue takes the caller's
        e.uid = s->Enter(context, delay, event);
        return e;
    }
    return ScheduleKept(delay, event);
}

/// Simulator::Remove(e.Id()) for a kept event its caller knows is pending
/// (scheduled, and neither run, removed nor cancelled since).
inline void
RemovePending(const ScheduledEvent& e)
{
    if (FastSimulatorImpl* s = FastSimulatorImpl::Running())
    {
        s->RemovePending(PeekPointer(e.impl), e.ts, e.context, e.uid);
        return;
    }
    Simulator::Remove(e.Id());
}

/// Simulator::Schedule(delay, event) for an event the caller keeps a
/// reference to.
inline EventId
Schedule(const Time& delay, const Ptr<EventImpl>& event)
{
    if (FastSimulatorImpl::Running())
    {
        return Schedule(delay, GetPointer(event)); // the queue's reference
    }
    return Simulator::Schedule(delay, event);
}

/// Simulator::Schedule(delay, f, args...): a member function, function or
/// function object with its arguments, bound as ns-3's MakeEvent binds them
/// (not for events already made: the overloads above).
template <typename FUNC,
          typename std::enable_if<!std::is_convertible<FUNC, Ptr<EventImpl>>::value, int>::type = 0,
          typename... Ts>
EventId
Schedule(const Time& delay, FUNC f, Ts&&... args)
{
    return Schedule(delay, MakeEvent(f, std::forward<Ts>(args)...));
}

/// Simulator::ScheduleWithContext(context, delay, f, args...).
template <typename FUNC,
          typename std::enable_if<!std::is_convertible<FUNC, Ptr<EventImpl>>::value, int>::type = 0,
          typename... Ts>
void
ScheduleWithContext(uint32_t context, const Time& delay, FUNC f, Ts&&... args)
{
    ScheduleWithContext(context, delay, MakeEvent(f, std::forward<Ts>(args)...));
}

} // namespace hotsim
} // namespace ns3

#endif // HOCKNEY_FAST_SIMULATOR_IMPL_H
