// SPDX-License-Identifier: GPL-2.0-only
#include "lazy-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyLazyHeapScheduler");

NS_OBJECT_ENSURE_REGISTERED(LazyHeapScheduler);

namespace
{
/// The heap's order: std::push_heap keeps the largest on top, so "later" is larger.
struct Later
{
    bool operator()(const Scheduler::Event& a, const Scheduler::Event& b) const
    {
        return b.key < a.key;
    }
};
} // namespace

TypeId
LazyHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LazyHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Hockney")
                            .AddConstructor<LazyHeapScheduler>();
    return tid;
}

LazyHeapScheduler::~LazyHeapScheduler()
{
    // A removed event still in the heap holds the reference Remove took.
    for (const Event& e : m_heap)
    {
        if (m_removed.count(e.key.m_uid))
        {
            e.impl->Unref();
        }
    }
}

void
LazyHeapScheduler::Insert(const Event& ev)
{
    m_heap.push_back(ev);
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
    while (!m_heap.empty() && m_heap.front().impl->IsCancelled() && m_removed.erase(m_heap.front().key.m_uid))
    {
        EventImpl* impl = m_heap.front().impl;
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
    return m_heap.front();
}

Scheduler::Event
LazyHeapScheduler::RemoveNext()
{
    DropRemoved();
    NS_ASSERT(!m_heap.empty());
    Event e = m_heap.front();
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
