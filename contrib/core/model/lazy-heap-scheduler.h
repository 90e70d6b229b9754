// SPDX-License-Identifier: GPL-2.0-only
//
// ns-3's event queue as a binary heap in one array with lazy removal, with
// tie keys (below): the scheduler of partitioned (MPI) runs and of the
// one-process runs compared with them (--scheduler=ns3::LazyHeapScheduler;
// packet runs default to RingCalendarScheduler, which has no tie keys).
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
// order and its outputs are identical (event-queue-test.cc checks the
// order against MapScheduler) - except, with TieKeys on (the default), events
// inserted with a tie key (TieKey): at equal times they leave before every event without one, in
// the order of their keys. The fabric's links give each arrival a key (its
// link, direction and per-direction sequence number, FabricChannel) so that
// a node sees the packets that arrive at the same picosecond in an order
// that does not depend on which MPI rank sent them or when that rank's
// message was received: ns-3's uid is the order of scheduling, which under
// the distributed simulator is the order MPI messages happened to be read
// (contrib/fabric/doc/fabric.md, "Past one machine: MPI").
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

    /// With TieKeys false: (time, uid) order, every key ignored.
    void SetTieKeys(bool on) { m_tieKeys = on; }

    /// Events in the heap, removed ones not yet dropped included (for tests).
    size_t GetHeapSize() const { return m_heap.size(); }

    /// The tie key of the events scheduled while it lives (one at a time:
    /// the simulator inserts an event as it is scheduled). Events of equal
    /// time leave keyed ones first, by (major, minor), then the others by
    /// uid. Other schedulers ignore it.
    class TieKey
    {
      public:
        TieKey(uint64_t major, uint64_t minor);
        ~TieKey();
        TieKey(const TieKey&) = delete;
        TieKey& operator=(const TieKey&) = delete;
    };

  private:
    /// An event and its tie key (kNoKey for an event without one).
    struct Entry
    {
        Event ev;
        uint64_t major;
        uint64_t minor;
    };
    static constexpr uint64_t kNoKey = ~uint64_t(0);
    struct Later;

    /// Drops removed events from the top of the heap.
    void DropRemoved() const;
    void PopTop() const;

    bool m_tieKeys{true};                           ///< attribute TieKeys
    mutable std::vector<Entry> m_heap;              ///< min-heap on (time, tie key, uid)
    mutable std::unordered_set<uint32_t> m_removed; ///< uids of removed events still in m_heap
};

} // namespace ns3

#endif
