// SPDX-License-Identifier: GPL-2.0-only
//
// ns-3's event queue as a binary heap in one array with lazy removal
// (LazyEventHeap, tie-keyed-events.h), with tie keys: the scheduler
// --scheduler=ns3::LazyHeapScheduler picks (packet runs default to
// RingCalendarScheduler, which keeps the same order).
//
// ns-3's default, MapScheduler, is a red-black tree: a node allocated and freed
// per event and a pointer chase per level. Its HeapScheduler and
// PriorityQueueScheduler keep an array but remove an event by a linear search,
// and the fabric removes events often (a port's superseded forwarding-latency
// wait, a NIC's superseded wake-up, PFC's pause timers: Simulator::Remove), so
// at 1024 ranks each removal would scan the whole queue. Here a removed event
// stays in the heap, marked by its uid, and is dropped when it reaches the
// top: Insert, RemoveNext and Remove are O(log n) amortised and allocate
// nothing per event once the array has grown.
//
// Order: events leave in (time, uid) order, as with every ns-3 scheduler
// (Scheduler::EventKey's operator<), so a run's events execute in the same
// order and its outputs are identical (event-queue-test.cc checks the order
// against MapScheduler) - except, with TieKeys on (the default), events
// inserted with a tie key (SchedulerTieKey): at equal times they leave before
// every event without one, in the order of their keys, so that a node sees
// the packets that arrive at the same picosecond in an order that does not
// depend on which MPI rank sent them or when that rank's message was
// received (tie-keyed-events.h; contrib/fabric/doc/fabric.md, "Past one
// machine: MPI").
#ifndef HOCKNEY_LAZY_HEAP_SCHEDULER_H
#define HOCKNEY_LAZY_HEAP_SCHEDULER_H

#include "tie-keyed-events.h"

#include "ns3/scheduler.h"


namespace ns3
{

class LazyHeapScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    LazyHeapScheduler() = default;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// With TieKeys false: (time, uid) order, every key ignored.
    void SetTieKeys(bool on) { m_keys.on = on; }
    bool GetTieKeys() const { return m_keys.on; }

    /// Events in the heap, removed ones not yet dropped included (for tests).
    size_t GetHeapSize() const { return m_heap.Size(); }
    /// Removal marks held (for tests: one per removed event still in the heap).
    size_t GetRemovedMarks() const { return m_heap.RemovedMarks(); }
    /// Keyed events of the current time that left under another uid (for tests).
    size_t GetRanKeyedCount() const { return m_keys.GetRanKeyedCount(); }

  private:
    TieKeyTracker m_keys; ///< attribute TieKeys (on)
    LazyEventHeap m_heap;
};

} // namespace ns3

#endif
