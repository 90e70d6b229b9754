// SPDX-License-Identifier: GPL-2.0-only
#include "lazy-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/boolean.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyLazyHeapScheduler");

NS_OBJECT_ENSURE_REGISTERED(LazyHeapScheduler);

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
                                          MakeBooleanAccessor(&LazyHeapScheduler::SetTieKeys,
                                                              &LazyHeapScheduler::GetTieKeys),
                                          MakeBooleanChecker());
    return tid;
}

void
LazyHeapScheduler::Insert(const Event& ev)
{
    m_heap.Push(m_keys.Admit(ev));
}

bool
LazyHeapScheduler::IsEmpty() const
{
    return m_heap.Empty();
}

Scheduler::Event
LazyHeapScheduler::PeekNext() const
{
    NS_ASSERT(!m_heap.Empty());
    return m_keys.Peek(m_heap.Top());
}

Scheduler::Event
LazyHeapScheduler::RemoveNext()
{
    NS_ASSERT(!m_heap.Empty());
    return m_keys.Release(m_heap.Pop());
}

void
LazyHeapScheduler::Remove(const Event& ev)
{
    if (m_keys.RanKeyed(ev))
    {
        // Run already (tie-keyed-events.h): nothing to remove; the
        // simulator drops the reference the queue held, which it gave up
        // when the event left.
        ev.impl->Ref();
        return;
    }
    m_heap.MarkRemoved(ev);
}

} // namespace ns3
