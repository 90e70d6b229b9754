// SPDX-License-Identifier: GPL-2.0-only
//
// ns-3's event queue as a calendar queue (Brown, "Calendar queues: a fast
// O(1) priority queue implementation for the simulation event set problem",
// CACM 31(10), 1988): the near future is a ring of time buckets, the far
// future a binary heap. The scheduler hockney's packet runs use by default
// (ComparisonFabric::scheduler, --scheduler).
//
// Why: a packet run's events are almost all a few hundred nanoseconds ahead
// (a serialization, a link delay, a forwarding latency), and a binary heap
// (LazyHeapScheduler) pays log2(queue) levels of comparisons and cache
// misses for each of them, a cost that grows with the fabric (measured: the
// heap's pop from 294 to 456 instructions per hop from 16 to 64 hosts). Here
// an event is appended to the bucket of its time, and a bucket is sorted
// once, when the simulation reaches it: O(1) per event while buckets stay
// small, whatever the queue's size. Timers far ahead (retransmission checks)
// wait in the heap and move into the ring as it comes near them.
//
// Order: that of LazyHeapScheduler (tie-keyed-events.h): (time, uid) as
// every ns-3 scheduler (Scheduler::EventKey's operator<), except that with
// TieKeys on (the default) events of equal time that carry a tie key (the
// fabric's link arrivals) leave first, in key order, an order a run
// partitioned over MPI ranks keeps. Buckets hold disjoint time ranges, the
// ring only times before the heap's, and the bucket being consumed is kept
// sorted (event-queue-test.cc checks the order against LazyHeapScheduler with
// keyed events, and against MapScheduler without).
//
// Width: a bucket spans 2^k time steps. The width adapts to the run (it is a
// speed choice, never a result): when the buckets the simulation reaches hold
// more than 12 events on average it halves, below 3 it doubles; the ring is
// rebuilt then (O(queue), rarely). The far heap bounds both ways: it halves
// only if at most 1/16 of the inserts would then land beyond the ring, and
// it doubles while more than 1/8 do (up to 24 events a bucket). Events of
// one time share a bucket however narrow it is, and a packet run has many
// (symmetric ranks move in step): counting events alone narrowed the ring to
// about a picosecond and sent 78 % of a rail cluster's events to the heap. Removal (Simulator::Remove) takes an event out of its bucket at
// once, or, in the far heap (LazyEventHeap, shared with LazyHeapScheduler),
// marks it to be dropped when it would leave.
#ifndef HOCKNEY_RING_CALENDAR_SCHEDULER_H
#define HOCKNEY_RING_CALENDAR_SCHEDULER_H

#include "tie-keyed-events.h"

#include "ns3/nstime.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class RingCalendarScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    RingCalendarScheduler();

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// Events held, removed far events not yet dropped included (for tests).
    size_t GetStoredSize() const;
    /// The current bucket width in time steps (for tests).
    uint64_t GetBucketWidthSteps() const { return uint64_t(1) << m_shift; }
    /// With TieKeys false: (time, uid) order, every key ignored.
    void SetTieKeys(bool on) { m_keys.on = on; }
    bool GetTieKeys() const { return m_keys.on; }
    /// Keyed events of the current time that left under another uid (for tests).
    size_t GetRanKeyedCount() const { return m_keys.GetRanKeyedCount(); }

  private:
    void SetBuckets(uint32_t n);
    uint32_t GetBuckets() const { return static_cast<uint32_t>(m_ring.size()); }
    void SetInitialWidth(Time width);
    Time GetInitialWidth() const;

    uint64_t Index(uint64_t ts) const { return ts >> m_shift; }
    /// Makes the current bucket hold the next event at m_pos, sorted; false if none.
    bool Normalize() const
    {
        // The common case inline: the current bucket, already sorted, has more.
        return (m_sorted && m_pos < m_ring[m_base & m_mask].size()) || NormalizeSlow();
    }
    bool NormalizeSlow() const;
    /// Sorts a bucket the simulation reached (few events: by insertion).
    static void SortBucket(std::vector<KeyedEvent>& b);
    /// The first bucket index after `from` (absolute) whose bucket holds events.
    uint64_t NextOccupied(uint64_t from) const;
    /// Moves the heap's events that the ring now covers into their buckets.
    void MigrateFar() const
    {
        if (m_far.Size() != 0 && Index(m_far.RawTop().ev.key.m_ts) < m_base + m_buckets)
        {
            MigrateFarSlow();
        }
    }
    void MigrateFarSlow() const;
    void Place(const KeyedEvent& e) const;
    /// Adapts the width to the buckets seen since the last check (current bucket empty).
    void MaybeAdapt() const;
    void Rebuild(uint32_t shift) const;
    void SetOccupied(uint64_t slot) const { m_occupied[slot >> 6] |= uint64_t(1) << (slot & 63); }
    void ClearOccupied(uint64_t slot) const { m_occupied[slot >> 6] &= ~(uint64_t(1) << (slot & 63)); }

    TieKeyTracker m_keys;                                ///< attribute TieKeys (on)
    mutable std::vector<std::vector<KeyedEvent>> m_ring; ///< bucket of index i at i & m_mask
    mutable std::vector<uint64_t> m_occupied;       ///< a bit per non-empty bucket
    uint64_t m_buckets{0};                          ///< m_ring.size(), a power of two
    uint64_t m_mask{0};
    mutable uint32_t m_shift{13};  ///< bucket width 2^m_shift time steps
    mutable uint64_t m_base{0};    ///< absolute index of the current bucket
    mutable size_t m_pos{0};       ///< events of the current bucket already consumed
    mutable bool m_sorted{false};  ///< the current bucket is sorted from m_pos on
    mutable size_t m_ringCount{0}; ///< events in the ring not yet consumed
    mutable uint64_t m_lastTs{0};  ///< time of the last event that left (<= every pending one)
    mutable LazyEventHeap m_far;   ///< events of index >= m_base + buckets
    // Adaptation, since the last check: events in the buckets reached
    // (sorted) and those buckets; inserts, those that went to the far heap,
    // and those that would have at half the width.
    mutable uint64_t m_statEvents{0};
    mutable uint64_t m_statBuckets{0};
    mutable uint64_t m_statInserts{0};
    mutable uint64_t m_statFar{0};
    mutable uint64_t m_statFarIfHalved{0};
};

} // namespace ns3

#endif
