// SPDX-License-Identifier: GPL-2.0-only
#include "ring-calendar-scheduler.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyRingCalendarScheduler");

NS_OBJECT_ENSURE_REGISTERED(RingCalendarScheduler);

namespace
{
// Adaptation (see the header): checked after this many buckets reached; the
// width halves above kMaxPerBucket events per bucket reached and doubles
// below kMinPerBucket. A few events a bucket: moving to the next bucket costs
// about as much as sorting a handful, so fewer than 3 wastes moves and more
// than 12 sorts. The bounds are more than 2x apart, so halving from above
// the one does not fall below the other.
//
// The far heap: an event beyond the ring costs a heap push and pop
// (O(log n)) and a migration into the ring. Events of one time stay in one
// bucket however narrow it gets, so a run with many ties (a packet run's
// symmetric ranks start and forward in step) kept halving on the event
// count alone: rail-h100-4n's hierarchical AllReduce ran at 1-2 ps buckets
// with 78 % of its inserts in the heap. So the width halves only if at most
// kMaxFarShareToHalve of the inserts would have gone to the heap at half
// the width (those at least half a ring ahead), and doubles while more than
// kMaxFarShare went there, unless the buckets then held more than
// 2 x kMaxPerBucket events (timers far ahead of everything else should not
// widen it without bound). Halving and doubling for the heap cannot
// alternate: 1/16 < 1/8.
constexpr uint64_t kAdaptEvery = 1024;
constexpr double kMaxPerBucket = 12.0;
constexpr double kMinPerBucket = 3.0;
constexpr double kMaxFarShare = 1.0 / 8;
constexpr double kMaxFarShareToHalve = 1.0 / 16;
constexpr uint32_t kMaxShift = 40;

// Bucket storage, recycled most recently freed first. A bucket's vector
// kept its block after it was consumed, and the ring came back to it a whole
// rotation (Buckets x the width, a few microseconds of simulated time) later:
// by then the block had left the caches, and the event written into it cost
// a last-level write miss, about one a hop on a 256-GPU fat tree (58 % of the
// write misses; callgrind's cache simulation, benchmarks/README.md "Memory
// traffic per hop"). A consumed bucket now hands its block here, and a bucket
// that receives its first event takes the block freed last, still in cache.
// Storage only: which block holds a bucket changes no order. Process-wide,
// as FabricPooledEvent's free lists (the simulator is single-threaded).
std::vector<std::vector<KeyedEvent>>&
SpareBuckets()
{
    static auto* spare = new std::vector<std::vector<KeyedEvent>>;
    return *spare;
}

/// Bucket \p b, given recycled storage if it has none, ready for a push.
std::vector<KeyedEvent>&
Fill(std::vector<KeyedEvent>& b)
{
    if (b.capacity() == 0)
    {
        std::vector<std::vector<KeyedEvent>>& spare = SpareBuckets();
        if (!spare.empty())
        {
            b.swap(spare.back());
            spare.pop_back();
        }
    }
    return b;
}

/// Empties bucket \p b and gives its storage back.
void
Recycle(std::vector<KeyedEvent>& b)
{
    b.clear();
    if (b.capacity() != 0)
    {
        SpareBuckets().push_back(std::move(b)); // leaves b empty, without storage
    }
}
} // namespace

TypeId
RingCalendarScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RingCalendarScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("Hockney")
            .AddConstructor<RingCalendarScheduler>()
            .AddAttribute("Buckets",
                          "Buckets in the ring (a power of two, at least 64): the ring covers "
                          "Buckets x the bucket width ahead of the current time; later events "
                          "wait in a heap.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RingCalendarScheduler::SetBuckets,
                                               &RingCalendarScheduler::GetBuckets),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("InitialBucketWidth",
                          "Time one bucket spans at the start, rounded down to a power of two "
                          "time steps (at least one); it adapts to the run from there (a speed choice: the "
                          "order of the events does not depend on it).",
                          TimeValue(NanoSeconds(8)),
                          MakeTimeAccessor(&RingCalendarScheduler::SetInitialWidth,
                                           &RingCalendarScheduler::GetInitialWidth),
                          MakeTimeChecker())
            .AddAttribute("TieKeys",
                          "Events of equal time: those with a tie key (the fabric's link "
                          "arrivals) first, in key order, then the others in scheduling "
                          "order - an order a run partitioned over MPI ranks keeps, and "
                          "LazyHeapScheduler's; false: scheduling order only, as every ns-3 scheduler.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RingCalendarScheduler::SetTieKeys,
                                              &RingCalendarScheduler::GetTieKeys),
                          MakeBooleanChecker());
    return tid;
}

RingCalendarScheduler::RingCalendarScheduler()
{
    SetBuckets(4096);
}

void
RingCalendarScheduler::SetBuckets(uint32_t n)
{
    if (n < 64 || (n & (n - 1)) != 0)
    {
        throw std::invalid_argument("--ns3::RingCalendarScheduler::Buckets: expected a power of two >= 64, got " +
                                    std::to_string(n));
    }
    if (GetStoredSize() > 0)
    {
        throw std::invalid_argument("--ns3::RingCalendarScheduler::Buckets: expected to be set before any event is inserted");
    }
    m_ring.assign(n, {});
    m_occupied.assign(n / 64, 0);
    m_buckets = n;
    m_mask = n - 1;
}

void
RingCalendarScheduler::SetInitialWidth(Time width)
{
    const uint64_t steps = std::max<int64_t>(width.GetTimeStep(), 1);
    m_shift = 63 - static_cast<uint32_t>(__builtin_clzll(steps));
}

Time
RingCalendarScheduler::GetInitialWidth() const
{
    return TimeStep(int64_t(1) << m_shift);
}

size_t
RingCalendarScheduler::GetStoredSize() const
{
    return m_ringCount + m_far.Size();
}

void
RingCalendarScheduler::Place(const KeyedEvent& e) const
{
    const uint64_t idx = Index(e.ev.key.m_ts);
    NS_ASSERT(idx >= m_base && idx < m_base + m_buckets);
    const uint64_t slot = idx & m_mask;
    Fill(m_ring[slot]).push_back(e);
    SetOccupied(slot);
    ++m_ringCount;
}

void
RingCalendarScheduler::MigrateFarSlow() const
{
    const uint64_t end = m_base + m_buckets;
    while (!m_far.Empty() && Index(m_far.Top().ev.key.m_ts) < end)
    {
        Place(m_far.Pop());
    }
}

void
RingCalendarScheduler::Insert(const Event& ev)
{
    const KeyedEvent e = m_keys.Admit(ev);
    const uint64_t idx = Index(ev.key.m_ts);
    ++m_statInserts;
    if (idx >= m_base + (m_buckets >> 1))
    {
        ++m_statFarIfHalved;
    }
    if (idx >= m_base + m_buckets)
    {
        ++m_statFar;
        m_far.Push(e);
        return;
    }
    if (idx > m_base)
    {
        const uint64_t slot = idx & m_mask;
        Fill(m_ring[slot]).push_back(e);
        SetOccupied(slot);
        ++m_ringCount;
        return;
    }
    // The current bucket. An event before it (idx < m_base: the ring moved
    // on to the next event's bucket while this one's time was still to
    // come) is earlier than everything the ring holds, so it goes to the
    // front of the current bucket, which is consumed first.
    const uint64_t slot = m_base & m_mask;
    std::vector<KeyedEvent>& b = Fill(m_ring[slot]);
    if (m_sorted)
    {
        b.insert(std::upper_bound(b.begin() + m_pos, b.end(), e, KeyedEarlier()), e);
    }
    else
    {
        b.push_back(e);
    }
    SetOccupied(slot);
    ++m_ringCount;
}

uint64_t
RingCalendarScheduler::NextOccupied(uint64_t from) const
{
    // Circular scan of the bitmap; the caller knows a bucket holds events.
    const uint64_t start = from & m_mask;
    const size_t words = m_occupied.size();
    size_t w = start >> 6;
    uint64_t bits = m_occupied[w] & (~uint64_t(0) << (start & 63));
    while (bits == 0)
    {
        w = (w + 1) % words;
        bits = m_occupied[w];
    }
    const uint64_t slot = (uint64_t(w) << 6) + static_cast<uint64_t>(__builtin_ctzll(bits));
    const uint64_t dist = (slot - start) & m_mask;
    return from + dist;
}

void
RingCalendarScheduler::Rebuild(uint32_t shift) const
{
    NS_LOG_FUNCTION(this << shift);
    std::vector<KeyedEvent> all;
    all.reserve(m_ringCount);
    for (size_t w = 0; w < m_occupied.size(); ++w)
    {
        for (uint64_t bits = m_occupied[w]; bits; bits &= bits - 1)
        {
            std::vector<KeyedEvent>& b = m_ring[(w << 6) + static_cast<size_t>(__builtin_ctzll(bits))];
            all.insert(all.end(), b.begin(), b.end());
            b.clear();
        }
        m_occupied[w] = 0;
    }
    m_shift = shift;
    m_base = Index(m_lastTs); // every pending event is at or after m_lastTs
    m_pos = 0;
    m_sorted = false;
    m_ringCount = 0;
    for (const KeyedEvent& e : all)
    {
        if (Index(e.ev.key.m_ts) >= m_base + m_buckets)
        {
            m_far.Push(e);
        }
        else
        {
            Place(e);
        }
    }
    MigrateFar();
}

void
RingCalendarScheduler::MaybeAdapt() const
{
    if (m_statBuckets < kAdaptEvery)
    {
        return;
    }
    const double perBucket = double(m_statEvents) / double(m_statBuckets);
    const double inserts = double(std::max<uint64_t>(m_statInserts, 1));
    const double farShare = double(m_statFar) / inserts;
    const double farShareIfHalved = double(m_statFarIfHalved) / inserts;
    m_statEvents = 0;
    m_statBuckets = 0;
    m_statInserts = 0;
    m_statFar = 0;
    m_statFarIfHalved = 0;
    if (perBucket > kMaxPerBucket && farShareIfHalved <= kMaxFarShareToHalve && m_shift > 0)
    {
        Rebuild(m_shift - 1);
    }
    else if ((perBucket < kMinPerBucket ||
              (farShare > kMaxFarShare && perBucket <= 2 * kMaxPerBucket)) &&
             m_shift < kMaxShift)
    {
        Rebuild(m_shift + 1);
    }
}

void
RingCalendarScheduler::SortBucket(std::vector<KeyedEvent>& b)
{
    if (b.size() > 16)
    {
        std::sort(b.begin(), b.end(), KeyedEarlier());
        return;
    }
    for (size_t i = 1; i < b.size(); ++i)
    {
        const KeyedEvent e = b[i];
        size_t j = i;
        for (; j > 0 && KeyedEarlier()(e, b[j - 1]); --j)
        {
            b[j] = b[j - 1];
        }
        b[j] = e;
    }
}

bool
RingCalendarScheduler::NormalizeSlow() const
{
    for (;;)
    {
        const uint64_t slot = m_base & m_mask;
        std::vector<KeyedEvent>& b = m_ring[slot];
        if (m_pos < b.size())
        {
            if (!m_sorted)
            {
                // Reached: sorted once (m_pos is 0 here); later inserts into
                // it keep the order (Insert).
                m_statEvents += b.size();
                ++m_statBuckets;
                SortBucket(b);
                m_sorted = true;
            }
            return true;
        }
        Recycle(b);
        m_pos = 0;
        m_sorted = false;
        ClearOccupied(slot);
        const uint32_t shift = m_shift;
        MaybeAdapt();
        if (m_shift != shift)
        {
            continue; // rebuilt around m_lastTs: look at the new current bucket
        }
        if (m_ringCount == 0)
        {
            if (m_far.Empty())
            {
                return false;
            }
            m_base = Index(m_far.Top().ev.key.m_ts);
        }
        else
        {
            m_base = NextOccupied(m_base + 1);
        }
        MigrateFar();
    }
}

bool
RingCalendarScheduler::IsEmpty() const
{
    return !Normalize();
}

Scheduler::Event
RingCalendarScheduler::PeekNext() const
{
    const bool any = Normalize();
    NS_ASSERT(any);
    return m_keys.Peek(m_ring[m_base & m_mask][m_pos]);
}

Scheduler::Event
RingCalendarScheduler::RemoveNext()
{
    const bool any = Normalize();
    NS_ASSERT(any);
    const KeyedEvent& e = m_ring[m_base & m_mask][m_pos++];
    --m_ringCount;
    m_lastTs = e.ev.key.m_ts;
    return m_keys.Release(e);
}

void
RingCalendarScheduler::Remove(const Event& ev)
{
    if (m_keys.RanKeyed(ev))
    {
        // Run already (tie-keyed-events.h): nothing to remove; the
        // simulator drops the reference the queue held, which it gave up
        // when the event left.
        ev.impl->Ref();
        return;
    }
    const uint64_t idx = Index(ev.key.m_ts);
    if (idx >= m_base + m_buckets)
    {
        m_far.MarkRemoved(ev); // dropped when it would leave the heap
        return;
    }
    const uint64_t at = std::max(idx, m_base); // see Insert: earlier events wait in the current bucket
    const uint64_t slot = at & m_mask;
    std::vector<KeyedEvent>& b = m_ring[slot];
    for (size_t i = at == m_base ? m_pos : 0; i < b.size(); ++i)
    {
        if (b[i].ev.key.m_uid == ev.key.m_uid)
        {
            b.erase(b.begin() + static_cast<std::ptrdiff_t>(i));
            --m_ringCount;
            if (b.empty())
            {
                ClearOccupied(slot);
            }
            return;
        }
    }
    NS_ASSERT_MSG(false, "RingCalendarScheduler::Remove: event " << ev.key.m_uid << " not found");
}

} // namespace ns3
