// SPDX-License-Identifier: GPL-2.0-only
#include "tie-keyed-events.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace tie_keys
{
uint64_t g_tie = KeyedEvent::kNoKey;
EventLineage* g_lineage = nullptr;
uint64_t g_running = KeyedEvent::kNoKey;
bool g_ordered = false;
} // namespace tie_keys

void
EventLineage::Left(const KeyedEvent& e)
{
    std::shared_ptr<const EventPlace> parent;
    auto it = m_parents.find(e.ev.key.m_uid);
    if (it != m_parents.end())
    {
        parent = std::move(it->second);
        m_parents.erase(it);
    }
    // A keyed event's place is its key: what scheduled it does not order it.
    m_current = std::make_shared<const EventPlace>(
        EventPlace{e.ev.key.m_ts, e.tie, e.IsKeyed() ? nullptr : std::move(parent)});
}

int
EventLineage::Order(const EventPlace* a, const EventPlace* b)
{
    if (a == b)
    {
        return 0;
    }
    // Scheduled before the run: before every event scheduled by one that ran
    // (uids are handed out in scheduling order); two such are not ordered
    // here (the setup's order of calls is not recorded).
    if (!a || !b)
    {
        return !a && !b ? 0 : (!a ? -1 : 1);
    }
    if (a->ts != b->ts)
    {
        return a->ts < b->ts ? -1 : 1;
    }
    if (a->tie != b->tie)
    {
        return a->tie < b->tie ? -1 : 1; // kNoKey, the largest, after every key
    }
    if (a->tie != KeyedEvent::kNoKey)
    {
        return 0; // one key, one event
    }
    // Two unkeyed events of one time: in the order they were scheduled, the
    // order in which what scheduled them ran.
    return Order(a->parent.get(), b->parent.get());
}

void
SchedulerTieKey::OutOfRange(uint64_t major, uint64_t minor)
{
    throw std::overflow_error("SchedulerTieKey: expected major < " + std::to_string(kMajorLimit) + " and minor < " +
                              std::to_string(kMinorLimit) + ", got (" + std::to_string(major) + ", " +
                              std::to_string(minor) + ")");
}

TieKeyTracker::Handoff TieKeyTracker::s_handoff;

Scheduler::Event
TieKeyTracker::ReleaseKeyed(const KeyedEvent& e)
{
    Scheduler::Event out = e.ev;
    out.key.m_uid = m_lastUnkeyed;
    m_ranKeyed.push_back(e.ev.key.m_uid);
    s_handoff.impl = e.ev.impl;
    s_handoff.ts = e.ev.key.m_ts;
    s_handoff.leftUid = m_lastUnkeyed;
    s_handoff.uid = e.ev.key.m_uid;
    s_handoff.tie = e.tie;
    s_handoff.from = this;
    return out;
}

KeyedEvent
TieKeyTracker::Restore(const Scheduler::Event& ev)
{
    const Handoff h = s_handoff;
    if (ev.key.m_ts != h.ts)
    {
        // Another event at the address of one that left and was freed.
        return KeyedEvent{ev, on ? tie_keys::g_tie : KeyedEvent::kNoKey};
    }
    // The event that just left another queue (SetScheduler moves every event
    // by RemoveNext and Insert, one at a time): its own uid and key back.
    s_handoff.impl = nullptr;
    Scheduler::Event real = ev;
    real.key.m_uid = h.uid;
    if (!m_released && h.from != nullptr && h.from != this)
    {
        // The first event handed over, the earliest keyed one pending: it
        // left the old queue before any unkeyed event of its time, under the
        // state of the time the simulator is at (or, if it is later, a state
        // replaced as soon as this queue reaches that time).
        m_released = true;
        m_nowTs = h.ts;
        m_lastUnkeyed = h.leftUid;
        m_ranKeyed = h.from->m_ranKeyed;
    }
    if (ev.key.m_ts == m_nowTs)
    {
        // Handed over, not run.
        auto it = std::find(m_ranKeyed.begin(), m_ranKeyed.end(), h.uid);
        if (it != m_ranKeyed.end())
        {
            m_ranKeyed.erase(it);
        }
    }
    return KeyedEvent{real, on ? h.tie : KeyedEvent::kNoKey};
}

bool
TieKeyTracker::RanKeyed(const Scheduler::Event& ev) const
{
    return ev.key.m_ts == m_nowTs && std::find(m_ranKeyed.begin(), m_ranKeyed.end(), ev.key.m_uid) != m_ranKeyed.end();
}

TieKeyTracker::~TieKeyTracker()
{
    // The next run (or queue) says again whether events leave in key order.
    tie_keys::g_ordered = false;
    tie_keys::g_running = KeyedEvent::kNoKey;
    if (s_handoff.from == this)
    {
        s_handoff = Handoff{};
    }
}

LazyEventHeap::~LazyEventHeap()
{
    // A removed event still in the heap holds the reference MarkRemoved took.
    for (const KeyedEvent& e : m_heap)
    {
        if (m_removed.count(e.ev.key.m_uid))
        {
            e.ev.impl->Unref();
        }
    }
}

namespace
{
/// std::push_heap keeps the largest on top, so "later" is larger.
struct KeyedLater
{
    bool operator()(const KeyedEvent& a, const KeyedEvent& b) const { return KeyedEarlier()(b, a); }
};
} // namespace

void
LazyEventHeap::Push(const KeyedEvent& e)
{
    m_heap.push_back(e);
    std::push_heap(m_heap.begin(), m_heap.end(), KeyedLater());
}

void
LazyEventHeap::PopTop() const
{
    std::pop_heap(m_heap.begin(), m_heap.end(), KeyedLater());
    m_heap.pop_back();
}

KeyedEvent
LazyEventHeap::Pop()
{
    DropRemoved();
    const KeyedEvent e = m_heap.front();
    PopTop();
    return e;
}

void
LazyEventHeap::DropRemovedSlow() const
{
    // Only a cancelled event can have been removed (the simulator cancels
    // what it removes), so the set is looked up for those alone.
    while (!m_heap.empty() && m_heap.front().ev.impl->IsCancelled() && m_removed.erase(m_heap.front().ev.key.m_uid))
    {
        EventImpl* impl = m_heap.front().ev.impl;
        PopTop();
        impl->Unref();
    }
}

} // namespace ns3
