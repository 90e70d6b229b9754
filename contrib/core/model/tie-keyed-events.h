// SPDX-License-Identifier: GPL-2.0-only
//
// What hockney's two event queues (LazyHeapScheduler, RingCalendarScheduler)
// share: tie keys, the order they define, the uid a keyed event leaves
// under, and one binary heap with lazy removal (the lazy heap's whole queue,
// the calendar's far future).
//
// Tie keys. ns-3 runs events of equal time in the order they were scheduled
// (their uid). Under ns-3's distributed simulator that order is the order in
// which MPI messages happened to be read, so a partitioned run and one
// process would break ties differently. The fabric's links give each arrival
// a tie key (its link's creation order and direction, that direction's
// sequence number: FabricChannel) through SchedulerTieKey; with the
// schedulers' attribute TieKeys on (the default), events of equal time leave
// keyed ones first, in (major, minor) order, then the others by uid. The
// order of arrivals then no longer depends on when they were scheduled.
//
// The uid a keyed event leaves under. ns-3's simulators take the uid of the
// event they run for the current one and judge an event of the same time
// already run (EventId::IsExpired; Simulator::Remove and Cancel then do
// nothing) when its uid is not above it. Unkeyed events of one time leave in
// uid order, so those already run are exactly the ones whose uid is at most
// the last unkeyed uid that left at this time; every event of this time still
// pending has a larger uid (a keyed event pending now was scheduled after that
// unkeyed event left: keyed ones leave first). A keyed event therefore leaves
// under that uid (EventId::UID::RESERVED if no unkeyed event of this time has
// left): ns-3 then judges every unkeyed event of this time right, and every
// pending one pending. What it still misjudges: a keyed event of this time
// that has run reads as pending; TieKeyTracker::RanKeyed recognises those, so
// a Remove of one is answered as ns-3 answers an expired event's (the queue
// is left alone; the reference the simulator drops is given back).
//
// Changing the scheduler mid-run (Simulator::SetScheduler) moves the events
// by RemoveNext and Insert: a keyed event is handed over under its
// substituted uid, so the new queue takes its real uid, its key and the
// state above from the old one (between these two schedulers; another
// scheduler gets the substituted uid and no key).
#ifndef HOCKNEY_TIE_KEYED_EVENTS_H
#define HOCKNEY_TIE_KEYED_EVENTS_H

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ns3
{

/// The tie key of the events scheduled while it lives (one at a time: the
/// simulator inserts an event as it is scheduled). Events of equal time leave
/// keyed ones first, by (major, minor), then the others by uid, in the
/// schedulers that have TieKeys on; other schedulers ignore it. The key is
/// kept in one 64-bit word (an event in the queue: 32 bytes, not 40; the
/// queues sort and move them): major below 2^24 - 1, minor below 2^40, else
/// std::overflow_error (the fabric: major = kFirstMajor + 2 x link + direction, 8 M links;
/// minor = 2 x the direction's packets + 1, 5.5e11 packets).
class SchedulerTieKey
{
  public:
    static constexpr uint32_t kMinorBits = 40;
    static constexpr uint64_t kMajorLimit = (uint64_t(1) << (64 - kMinorBits)) - 1; ///< majors below it
    static constexpr uint64_t kMinorLimit = uint64_t(1) << kMinorBits;              ///< minors below it
    /// Major 0 is reserved for events that must leave before every other
    /// keyed event of their time (a partitioned run's agreed stop:
    /// PartitionedRunEnd::StopAt, key (0, 0)); keys of the model (the
    /// fabric's links) start at major kFirstMajor, so nothing ties with it.
    static constexpr uint64_t kReservedMajor = 0;
    static constexpr uint64_t kFirstMajor = 1;

    SchedulerTieKey(uint64_t major, uint64_t minor); // below: inline, one per link arrival
    ~SchedulerTieKey();
    SchedulerTieKey(const SchedulerTieKey&) = delete;
    SchedulerTieKey& operator=(const SchedulerTieKey&) = delete;

  private:
    [[noreturn]] static void OutOfRange(uint64_t major, uint64_t minor);
};

/// An event and its tie key.
struct KeyedEvent
{
    static constexpr uint64_t kNoKey = ~uint64_t(0); ///< the tie of an event without a key

    Scheduler::Event ev;
    uint64_t tie; ///< major << kMinorBits | minor, or kNoKey

    bool IsKeyed() const { return tie != kNoKey; }
};

/// The order of both schedulers: (time, tie key, uid); an event without a key
/// (kNoKey) comes after every keyed one of its time.
struct KeyedEarlier
{
    bool operator()(const KeyedEvent& a, const KeyedEvent& b) const
    {
        if (a.ev.key.m_ts != b.ev.key.m_ts)
        {
            return a.ev.key.m_ts < b.ev.key.m_ts;
        }
        if (a.tie != b.tie)
        {
            return a.tie < b.tie;
        }
        return a.ev.key.m_uid < b.ev.key.m_uid;
    }
};

/// Where an event stands in the order of a run: its time, its tie key
/// (kNoKey: none) and, for an event without a key, the place of the event
/// that scheduled it (null: scheduled before the run). Events of one time
/// run keyed ones first by key, then the others in the order they were
/// scheduled, which is the order in which the events that scheduled them
/// ran: so the order of two events is known from their places alone, on
/// whichever MPI rank each ran (EventLineage::Order), as far as their
/// ancestors' places differ.
struct EventPlace
{
    uint64_t ts;
    uint64_t tie;
    std::shared_ptr<const EventPlace> parent; ///< only for an event without a key
};

/// Records every event's place while it lives (tie_keys::g_lineage): a
/// partitioned run that must stop where one process stops (the delivery
/// end, doc/fabric.md "hockney compare under mpirun") learns the place of
/// the event that ends it. An allocation and a hash lookup an event; off
/// (null) otherwise.
class EventLineage
{
  public:
    /// The place of the event running now (null before the run).
    std::shared_ptr<const EventPlace> Current() const { return m_current; }
    /// -1: \p a runs before \p b in one process; 1: after; 0: not known
    /// from their places (both scheduled before the run at one time, or the same place).
    static int Order(const EventPlace* a, const EventPlace* b);

    void Admitted(uint32_t uid) { m_parents.emplace(uid, m_current); }
    void Left(const KeyedEvent& e);

  private:
    std::unordered_map<uint32_t, std::shared_ptr<const EventPlace>> m_parents; ///< pending event -> its scheduler's place
    std::shared_ptr<const EventPlace> m_current;
};

namespace tie_keys
{
/// The key SchedulerTieKey set for the events scheduled now (none: kNoKey).
/// ns-3's simulators run and schedule on one thread.
extern uint64_t g_tie;
/// The lineage being recorded (null: none, the default).
extern EventLineage* g_lineage;
/// The tie key of the event running now (kNoKey: it has none, or no
/// hockney scheduler hands out the events).
extern uint64_t g_running;
/// True while a hockney scheduler with TieKeys on hands out the events: the
/// place of an event of the current time among the keyed ones is g_running
/// (the fabric's early take-in, FabricNetDevice::TakeInArrived, needs it).
extern bool g_ordered;
} // namespace tie_keys

inline SchedulerTieKey::SchedulerTieKey(uint64_t major, uint64_t minor)
{
    if (major >= kMajorLimit || minor >= kMinorLimit)
    {
        OutOfRange(major, minor);
    }
    tie_keys::g_tie = major << kMinorBits | minor;
}

inline SchedulerTieKey::~SchedulerTieKey()
{
    tie_keys::g_tie = KeyedEvent::kNoKey;
}

/// A scheduler's tie-key state (see the top of this file): keys on the way
/// in, the uid on the way out, events of the current time already run.
class TieKeyTracker
{
  public:
    TieKeyTracker() = default;
    ~TieKeyTracker();
    TieKeyTracker(const TieKeyTracker&) = delete;
    TieKeyTracker& operator=(const TieKeyTracker&) = delete;

    /// The attribute TieKeys: with false, every key is ignored ((time, uid) order).
    bool on{true};

    /// \p ev with the key it is scheduled under (or a handed-over event's own).
    KeyedEvent Admit(const Scheduler::Event& ev)
    {
        // (The fabric's pooled events reuse the block of the event that
        // just left: the uid tells a handover from them.)
        if (ev.impl == s_handoff.impl && ev.key.m_uid == s_handoff.leftUid)
        {
            return Restore(ev);
        }
        if (tie_keys::g_lineage)
        {
            tie_keys::g_lineage->Admitted(ev.key.m_uid);
        }
        return KeyedEvent{ev, on ? tie_keys::g_tie : KeyedEvent::kNoKey};
    }

    /// The event as the simulator must see it leave (see the top of this file).
    Scheduler::Event Release(const KeyedEvent& e)
    {
        if (e.ev.key.m_ts != m_nowTs)
        {
            m_nowTs = e.ev.key.m_ts;
            m_lastUnkeyed = EventId::UID::RESERVED;
            m_ranKeyed.clear();
        }
        m_released = true;
        tie_keys::g_running = e.tie;
        tie_keys::g_ordered = on;
        if (tie_keys::g_lineage)
        {
            tie_keys::g_lineage->Left(e);
        }
        if (!e.IsKeyed())
        {
            m_lastUnkeyed = e.ev.key.m_uid;
            return e.ev;
        }
        return ReleaseKeyed(e);
    }

    /// The uid \p e would leave under now (PeekNext).
    Scheduler::Event Peek(const KeyedEvent& e) const
    {
        Scheduler::Event out = e.ev;
        if (e.IsKeyed())
        {
            out.key.m_uid = e.ev.key.m_ts == m_nowTs ? m_lastUnkeyed : uint32_t(EventId::UID::RESERVED);
        }
        return out;
    }

    /// Whether \p ev (as Simulator::Remove names it) is a keyed event of the
    /// current time that has left already (ns-3 misjudges it pending).
    bool RanKeyed(const Scheduler::Event& ev) const;

    /// Events of the current time that ran under a substituted uid (for tests).
    size_t GetRanKeyedCount() const { return m_ranKeyed.size(); }

  private:
    /// The last keyed event that left, as it left, and what the scheduler it
    /// may be handed to (SetScheduler) needs to restore it.
    struct Handoff
    {
        EventImpl* impl{nullptr};
        uint64_t ts{0};
        uint32_t leftUid{0}; ///< the uid it left under
        uint32_t uid{0};     ///< its own
        uint64_t tie{0};
        const TieKeyTracker* from{nullptr};
    };
    static Handoff s_handoff;

    Scheduler::Event ReleaseKeyed(const KeyedEvent& e);
    KeyedEvent Restore(const Scheduler::Event& ev);

    uint64_t m_nowTs{~uint64_t(0)};                    ///< time of the last event that left
    uint32_t m_lastUnkeyed{EventId::UID::RESERVED};    ///< uid of the last unkeyed one of that time
    std::vector<uint32_t> m_ranKeyed;                  ///< keyed ones of that time that left
    bool m_released{false};                            ///< an event left (else a handover may set the state)
};

/// A binary min-heap of keyed events in one array in KeyedEarlier order, with
/// lazy removal: a removed event stays, marked by its uid, and is dropped when
/// it reaches the top. Push, Pop and Remove are O(log n) amortised and
/// allocate nothing per event once the array has grown. ns-3's own heap
/// schedulers remove by a linear search; the fabric removes often (a port's
/// superseded wait, a NIC's superseded wake-up, PFC's pause timers).
class LazyEventHeap
{
  public:
    LazyEventHeap() = default;
    ~LazyEventHeap();
    LazyEventHeap(const LazyEventHeap&) = delete;
    LazyEventHeap& operator=(const LazyEventHeap&) = delete;

    void Push(const KeyedEvent& e);
    /// Whether no event that is not removed remains.
    bool Empty() const
    {
        DropRemoved();
        return m_heap.empty();
    }
    /// The first event that is not removed (not Empty()).
    const KeyedEvent& Top() const
    {
        DropRemoved();
        return m_heap.front();
    }
    /// Takes Top() out.
    KeyedEvent Pop();
    /// Marks \p ev removed. The simulator drops its reference right after
    /// Scheduler::Remove (and cancels the event): one is kept until the event
    /// is dropped.
    void MarkRemoved(const Scheduler::Event& ev)
    {
        ev.impl->Ref();
        m_removed.insert(ev.key.m_uid);
    }
    /// Events held, removed ones not yet dropped included.
    size_t Size() const { return m_heap.size(); }
    /// The top event, removed or not (Size() > 0): a cheap look at the earliest time.
    const KeyedEvent& RawTop() const { return m_heap.front(); }
    /// Removal marks held (for tests: one per removed event still held).
    size_t RemovedMarks() const { return m_removed.size(); }

  private:
    void DropRemoved() const
    {
        if (!m_heap.empty() && m_heap.front().ev.impl->IsCancelled())
        {
            DropRemovedSlow();
        }
    }
    void DropRemovedSlow() const;
    void PopTop() const;

    mutable std::vector<KeyedEvent> m_heap;         ///< heap on KeyedEarlier, earliest on top
    mutable std::unordered_set<uint32_t> m_removed; ///< uids of removed events still in m_heap
};

} // namespace ns3

#endif
