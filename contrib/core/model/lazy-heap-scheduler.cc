// SPDX-License-Identifier: GPL-2.0-only
#include "lazy-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/boolean.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyLazyHeapScheduler");

NS_OBJECT_ENSURE_REGISTERED(LazyHeapScheduler);

namespace
{
/// The tie key TieKey set for the events scheduled now (none: kNoKey). ns-3's
/// simulators run and schedule on one thread.
uint64_t g_major = ~uint64_t(0);
uint64_t g_minor = 0;
} // namespace

/// The heap's order: std::push_heap keeps the largest on top, so "later" is larger.
struct LazyHeapScheduler::Later
{
    bool operator()(const Entry& a, const Entry& b) const
    {
        if (a.ev.key.m_ts != b.ev.key.m_ts)
        {
            return a.ev.key.m_ts > b.ev.key.m_ts;
        }
        if (a.major != b.major)
        {
            return a.major > b.major;
        }
        if (a.minor != b.minor)
        {
            return a.minor > b.minor;
        }
        return a.ev.key.m_uid > b.ev.key.m_uid;
    }
};

LazyHeapScheduler::TieKey::TieKey(uint64_t major, uint64_t minor)
{
    g_major = major;
    g_minor = minor;
}

LazyHeapScheduler::TieKey::~TieKey()
{
    g_major = kNoKey;
    g_minor = 0;
}

TypeId
LazyHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LazyHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Hockney")
                            .AddConstructor<LazyHeapScheduler>()
                            .AddAttribute("TieKeys",
                                          "Events of equal time: those with a tie key (the fabric's link "
                                          "arrivals) first, in key order, then the others in scheduling "
                                          "order - an order a run partitioned over MPI ranks keeps; false: "
                                          "scheduling order only, as every ns-3 scheduler.",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&LazyHeapScheduler::m_tieKeys),
                                          MakeBooleanChecker());
    return tid;
}

LazyHeapScheduler::~LazyHeapScheduler()
{
    // A removed event still in the heap holds the reference Remove took.
    for (const Entry& e : m_heap)
    {
        if (m_removed.count(e.ev.key.m_uid))
        {
            e.ev.impl->Unref();
        }
    }
}

void
LazyHeapScheduler::Insert(const Event& ev)
{
    m_heap.push_back(m_tieKeys ? Entry{ev, g_major, g_minor} : Entry{ev, kNoKey, 0});
    std::push_heap(m_heap.begin(), m_heap.end(), Later());
}

void
LazyHeapScheduler::PopTop() const
{
    std::pop_heap(m_heap.begin(), m_heap.end(), Later());
    m_heap.pop_back();
}

void
LazyHeapScheduler::DropRemoved() const
{
    // Only a cancelled event can have been removed (the simulator cancels
    // what it removes), so the set is looked up for those alone.
    while (!m_heap.empty() && m_heap.front().ev.impl->IsCancelled() &&
           m_removed.erase(m_heap.front().ev.key.m_uid))
    {
        EventImpl* impl = m_heap.front().ev.impl;
        PopTop();
        impl->Unref();
    }
}

bool
LazyHeapScheduler::IsEmpty() const
{
    DropRemoved();
    return m_heap.empty();
}

Scheduler::Event
LazyHeapScheduler::PeekNext() const
{
    DropRemoved();
    NS_ASSERT(!m_heap.empty());
    return m_heap.front().ev;
}

Scheduler::Event
LazyHeapScheduler::RemoveNext()
{
    DropRemoved();
    NS_ASSERT(!m_heap.empty());
    Event e = m_heap.front().ev;
    if (m_heap.front().major != kNoKey)
    {
        // ns-3's simulators take the uid of the event they run for the
        // current one and judge an event of the same time expired (run
        // already: EventId::IsExpired, Simulator::Remove and Cancel do
        // nothing) if its uid is not above it. A keyed event leaves before
        // the unkeyed events of its time whatever their uids, so it is run
        // under the uid below every event's: an unkeyed event of this time,
        // still to run, reads as pending, as it is. (What this misjudges: a
        // keyed event of this time that has run reads as pending; the fabric
        // holds no EventId of an arrival but a riding frame's, which it
        // removes only before that frame's time, FabricNetDevice::
        // FoldLateControl.) The heap keeps the real uid for Remove.
        e.key.m_uid = EventId::UID::RESERVED;
    }
    PopTop();
    return e;
}

void
LazyHeapScheduler::Remove(const Event& ev)
{
    // The simulator drops its reference right after this call (and cancels
    // the event): keep one until the event is dropped from the heap.
    ev.impl->Ref();
    m_removed.insert(ev.key.m_uid);
}

} // namespace ns3
