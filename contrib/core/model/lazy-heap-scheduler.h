// SPDX-License-Identifier: GPL-2.0-only
//
// ns-3's event queue as a binary heap in one array with lazy removal: the
// scheduler hockney's packet runs use by default (ComparisonFabric::scheduler,
// --scheduler).
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
// order and its outputs are identical (lazy-heap-scheduler-test.cc checks the
// order against MapScheduler).
#ifndef HOCKNEY_LAZY_HEAP_SCHEDULER_H
#define HOCKNEY_LAZY_HEAP_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <unordered_set>
#include <vector>

namespace ns3
{

class LazyHeapScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    LazyHeapScheduler() = default;
    ~LazyHeapScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// Events in the heap, removed ones not yet dropped included (for tests).
    size_t GetHeapSize() const { return m_heap.size(); }

  private:
    /// Drops removed events from the top of the heap.
    void DropRemoved() const;
    void PopTop() const;

    mutable std::vector<Event> m_heap;              ///< min-heap on (time, uid)
    mutable std::unordered_set<uint32_t> m_removed; ///< uids of removed events still in m_heap
};

} // namespace ns3

#endif
