// SPDX-License-Identifier: GPL-2.0-only
#include "fast-simulator-impl.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"

#include <limits>

namespace ns3
{

// No logging on the per-event paths: that is the point of this class.
NS_LOG_COMPONENT_DEFINE("FastSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(FastSimulatorImpl);

FastSimulatorImpl* FastSimulatorImpl::s_running = nullptr;

TypeId
FastSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FastSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("Hockney")
                            .AddConstructor<FastSimulatorImpl>();
    return tid;
}

FastSimulatorImpl::FastSimulatorImpl()
    // The uids DefaultSimulatorImpl starts from: the first event gets
    // VALID, and nothing has run yet (INVALID is below every uid).
    : m_currentContext(Simulator::NO_CONTEXT),
      m_currentUid(EventId::UID::INVALID),
      m_uid(EventId::UID::VALID),
      m_mainThreadId(std::this_thread::get_id())
{
    NS_LOG_FUNCTION(this);
}

FastSimulatorImpl::~FastSimulatorImpl()
{
    if (s_running == this)
    {
        s_running = nullptr;
    }
}

void
FastSimulatorImpl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_foreignPending.load(std::memory_order_acquire))
    {
        TakeForeignEvents();
    }
    while (m_events && !m_events->IsEmpty())
    {
        m_events->RemoveNext().impl->Unref();
    }
    m_events = nullptr;
    SimulatorImpl::DoDispose();
}

void
FastSimulatorImpl::Destroy()
{
    NS_LOG_FUNCTION(this);
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
FastSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    NS_LOG_FUNCTION(this << schedulerFactory);
    Ptr<Scheduler> next = schedulerFactory.Create<Scheduler>();
    while (m_events && !m_events->IsEmpty())
    {
        next->Insert(m_events->RemoveNext());
    }
    m_events = next;
}

bool
FastSimulatorImpl::IsFinished() const
{
    return m_stop || m_events->IsEmpty();
}

void
FastSimulatorImpl::TakeForeignEvents()
{
    std::deque<ForeignEvent> taken;
    {
        std::lock_guard<std::mutex> lock(m_foreignMutex);
        taken.swap(m_foreign);
        m_foreignPending.store(false, std::memory_order_release);
    }
    for (const ForeignEvent& f : taken)
    {
        Enter(f.context, TimeStep(f.delaySteps), f.event);
    }
}

void
FastSimulatorImpl::Run()
{
    NS_LOG_FUNCTION(this);
    m_mainThreadId = std::this_thread::get_id();
    if (m_foreignPending.load(std::memory_order_acquire))
    {
        TakeForeignEvents();
    }
    m_stop = false;
    // The hot front end schedules into this simulator while it runs; the
    // guard gives the previous one back even if an event throws.
    struct Running
    {
        FastSimulatorImpl* outer;
        explicit Running(FastSimulatorImpl* self)
            : outer(s_running)
        {
            s_running = self;
        }
        ~Running() { s_running = outer; }
    } running(this);
    while (!m_stop && !m_events->IsEmpty())
    {
        // DefaultSimulatorImpl::ProcessOneEvent without its PreEventHook
        // EventId (the base class's hook does nothing, and this class is
        // final) and without its log check. The queue is read anew each time:
        // an event may replace it (SetScheduler).
        const Scheduler::Event next = m_events->RemoveNext();
        NS_ASSERT(next.key.m_ts >= m_currentTs);
        --m_unscheduledEvents;
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        next.impl->Unref();
        if (m_foreignPending.load(std::memory_order_acquire))
        {
            TakeForeignEvents();
        }
    }
    NS_ASSERT(!m_events->IsEmpty() || m_unscheduledEvents == 0);
}

void
FastSimulatorImpl::Stop()
{
    NS_LOG_FUNCTION(this);
    m_stop = true;
}

void
FastSimulatorImpl::Stop(const Time& delay)
{
    NS_LOG_FUNCTION(this << delay.GetTimeStep());
    Simulator::Schedule(delay, &Simulator::Stop);
}

void
FastSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    if (m_mainThreadId == std::this_thread::get_id())
    {
        Enter(context, delay, event);
        return;
    }
    // Another thread (an emulated device's reader, say): queued for the
    // simulation thread, which times it from its own now when it takes it.
    std::lock_guard<std::mutex> lock(m_foreignMutex);
    m_foreign.push_back(ForeignEvent{event, context, delay.GetTimeStep()});
    m_foreignPending.store(true, std::memory_order_release);
}

EventId
FastSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return Schedule(Time(0), event);
}

EventId
FastSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    NS_ASSERT_MSG(m_mainThreadId == std::this_thread::get_id(),
                  "FastSimulatorImpl::ScheduleDestroy off the simulation thread");
    // The caller's reference passes to the EventId (not taken again), and a
    // destroy event takes a uid as DefaultSimulatorImpl's does.
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid;
    return id;
}

Time
FastSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    if (IsExpired(id))
    {
        return TimeStep(0);
    }
    return TimeStep(id.GetTs() - m_currentTs);
}

void
FastSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event event;
    event.impl = id.PeekEventImpl();
    event.key.m_ts = id.GetTs();
    event.key.m_context = id.GetContext();
    event.key.m_uid = id.GetUid();
    m_events->Remove(event);
    event.impl->Cancel();
    // The queue's reference to the event, given back with it.
    event.impl->Unref();
    --m_unscheduledEvents;
}

void
FastSimulatorImpl::RemovePending(EventImpl* impl, uint64_t ts, uint32_t context, uint32_t uid)
{
    // Remove's path for a pending event. The caller knows it is pending;
    // what IsExpired would read from the time and uid is checked here
    // (cheap), the cancelled flag only in debug builds (ns-3's getter logs).
    NS_ABORT_MSG_IF(ts < m_currentTs || (ts == m_currentTs && uid <= m_currentUid),
                    "FastSimulatorImpl::RemovePending: event " << uid << " at " << ts << " has run");
    NS_ASSERT(!impl->IsCancelled());
    Scheduler::Event event;
    event.impl = impl;
    event.key.m_ts = ts;
    event.key.m_context = context;
    event.key.m_uid = uid;
    m_events->Remove(event);
    impl->Cancel();
    impl->Unref();
    --m_unscheduledEvents;
}

void
FastSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
FastSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
        {
            return true;
        }
        for (const EventId& d : m_destroyEvents)
        {
            if (d == id)
            {
                return false;
            }
        }
        return true;
    }
    // Run already (earlier, or earlier at this time: uids of one time are
    // run in increasing order), never scheduled, or cancelled.
    return id.PeekEventImpl() == nullptr || id.GetTs() < m_currentTs ||
           (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) || id.PeekEventImpl()->IsCancelled();
}

Time
FastSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(std::numeric_limits<int64_t>::max());
}

} // namespace ns3
