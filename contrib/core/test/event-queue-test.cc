// SPDX-License-Identifier: GPL-2.0-only
//
// hockney's event queues (LazyHeapScheduler, RingCalendarScheduler) against
// ns-3's MapScheduler (the reference: ns-3's default, a std::map on (time,
// uid)): the same random inserts, removals, peeks and pops must give the same
// events in the same order, when no event has a tie key or TieKeys is off.
// With keyed events, the calendar against the lazy heap (two implementations
// of one order, tie-keyed-events.h). Then in a simulator: a removed event
// never runs nor counts, a cancelled one still counts as ns-3 counts it
// (Simulator::GetEventCount), the order of equal times, and what ns-3 judges
// run or pending around keyed events (the uid they leave under, a change of
// scheduler mid-run).
#include "lazy-heap-scheduler.h"
#include "ring-calendar-scheduler.h"

#include "ns3/boolean.h"
#include "ns3/event-impl.h"
#include "ns3/map-scheduler.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

using namespace ns3;

namespace
{

class Noop : public EventImpl
{
  protected:
    void Notify() override
    {
    }
};

struct Pending
{
    Scheduler::Event lazy; ///< the event as given to the scheduler under test
    Scheduler::Event map;  ///< the same key, its own impl, as given to the reference
};

/// Removes \p p from both schedulers as DefaultSimulatorImpl::Remove does:
/// Remove, then Cancel and drop the simulator's reference.
void
RemoveBoth(Scheduler& lazy, Scheduler& map, Pending& p)
{
    lazy.Remove(p.lazy);
    p.lazy.impl->Cancel();
    p.lazy.impl->Unref();
    map.Remove(p.map);
    p.map.impl->Cancel();
    p.map.impl->Unref();
}

/// Events the scheduler under test still holds, removed ones not yet dropped included.
size_t
Stored(const LazyHeapScheduler& s)
{
    return s.GetHeapSize();
}

size_t
Stored(const RingCalendarScheduler& s)
{
    return s.GetStoredSize();
}

size_t
Stored(const MapScheduler&)
{
    return 0;
}

/// Random inserts (times now + [0, spread]), removals, peeks and pops on
/// `lazy` and on the reference `map`: the same events leave in the same order,
/// under the same uid. `keyedPercent` of the inserts carry a tie key (majors
/// and minors from a small range, so that equal keys happen too).
template <typename S, typename R>
void
CompareQueues(Ptr<S> lazy, Ptr<R> map, uint64_t seed, int steps, uint64_t spread, uint64_t keyedPercent)
{
    std::mt19937_64 rng(seed);
    std::vector<Pending> pending; // inserted, neither popped nor removed
    uint32_t uid = 4;             // ns-3's first uid after its reserved ones
    uint64_t now = 0;
    for (int step = 0; step < steps; ++step)
    {
        const uint64_t r = rng() % 100;
        if (r < 50 || pending.empty())
        {
            Scheduler::Event e;
            e.key.m_ts = now + rng() % (spread + 1); // equal times are frequent when spread is small
            e.key.m_uid = uid++;
            e.key.m_context = static_cast<uint32_t>(rng() % 7);
            Pending p{e, e};
            p.lazy.impl = new Noop();
            p.map.impl = new Noop();
            if (rng() % 100 < keyedPercent)
            {
                const uint64_t major = rng() % 5;
                SchedulerTieKey key(major, rng() % 4);
                lazy->Insert(p.lazy);
                map->Insert(p.map);
            }
            else
            {
                lazy->Insert(p.lazy);
                map->Insert(p.map);
            }
            pending.push_back(p);
        }
        else if (r < 65)
        {
            const size_t k = rng() % pending.size();
            RemoveBoth(*lazy, *map, pending[k]);
            pending[k] = pending.back();
            pending.pop_back();
        }
        else if (r < 70)
        {
            // A look ahead without a pop (as Simulator::IsFinished or the
            // run loop's IsEmpty): the next insert may be earlier than the
            // event seen.
            ASSERT_EQ(lazy->IsEmpty(), map->IsEmpty());
            if (!map->IsEmpty())
            {
                ASSERT_EQ(lazy->PeekNext().key.m_uid, map->PeekNext().key.m_uid);
                ASSERT_EQ(lazy->PeekNext().key.m_ts, map->PeekNext().key.m_ts);
            }
        }
        else
        {
            ASSERT_EQ(lazy->IsEmpty(), map->IsEmpty());
            const Scheduler::Event peek = lazy->PeekNext();
            const Scheduler::Event a = lazy->RemoveNext();
            const Scheduler::Event b = map->RemoveNext();
            ASSERT_EQ(peek.key.m_uid, a.key.m_uid);
            ASSERT_EQ(a.key.m_uid, b.key.m_uid) << "seed " << seed << " step " << step;
            ASSERT_EQ(a.key.m_ts, b.key.m_ts);
            ASSERT_EQ(a.key.m_context, b.key.m_context);
            ASSERT_FALSE(a.impl->IsCancelled());
            now = a.key.m_ts;
            // The same event (a keyed one may leave under another uid: found by its impl).
            bool found = false;
            for (size_t k = 0; k < pending.size(); ++k)
            {
                if (pending[k].lazy.impl == a.impl)
                {
                    ASSERT_EQ(pending[k].map.impl, b.impl) << "seed " << seed << " step " << step;
                    pending[k] = pending.back();
                    pending.pop_back();
                    found = true;
                    break;
                }
            }
            ASSERT_TRUE(found);
            a.impl->Unref();
            b.impl->Unref();
        }
    }
    // Drain: the rest leave in the same order, and both end empty together.
    while (!map->IsEmpty())
    {
        ASSERT_FALSE(lazy->IsEmpty());
        const Scheduler::Event a = lazy->RemoveNext();
        const Scheduler::Event b = map->RemoveNext();
        ASSERT_EQ(a.key.m_uid, b.key.m_uid);
        ASSERT_EQ(a.key.m_ts, b.key.m_ts);
        a.impl->Unref();
        b.impl->Unref();
    }
    EXPECT_TRUE(lazy->IsEmpty());
    EXPECT_EQ(Stored(*lazy), 0u); // every removed event dropped
    EXPECT_EQ(Stored(*map), 0u);
}

template <typename S>
void
CompareWithMap(Ptr<S> lazy, uint64_t seed, int steps, uint64_t spread)
{
    CompareQueues(lazy, CreateObject<MapScheduler>(), seed, steps, spread, 0);
}

std::vector<int> g_ran;

void
Record(int what)
{
    g_ran.push_back(what);
}

} // namespace

TEST(LazyHeapSchedulerTest, SameOrderAsMapScheduler)
{
    for (uint64_t seed = 1; seed <= 30; ++seed)
    {
        // many ties, then few
        CompareWithMap(CreateObject<LazyHeapScheduler>(), seed, 4000, seed % 3 == 0 ? 3 : 1000);
    }
}

namespace
{
/// A RingCalendarScheduler of `buckets` buckets starting `width` time steps wide.
Ptr<RingCalendarScheduler>
MakeRing(uint32_t buckets, int64_t width)
{
    ObjectFactory f("ns3::RingCalendarScheduler");
    f.Set("Buckets", UintegerValue(buckets));
    f.Set("InitialBucketWidth", TimeValue(TimeStep(width)));
    return f.Create<RingCalendarScheduler>();
}
} // namespace

TEST(RingCalendarSchedulerTest, SameOrderAsMapScheduler)
{
    // Spreads against the width and the ring's reach (buckets x width): ties
    // within one bucket, a few events per bucket, most of them beyond the
    // ring (its heap, the jumps over an empty ring and the moves into it);
    // 20 000 steps cross several adaptations of the width (every 1024
    // buckets reached).
    const uint64_t spreads[] = {3, 1000, 100000, 1000000000};
    for (uint64_t seed = 1; seed <= 24; ++seed)
    {
        const uint64_t spread = spreads[seed % 4];
        CompareWithMap(MakeRing(64, int64_t(1) << (seed % 12)), seed, 20000, spread);
        CompareWithMap(MakeRing(4096, 8192), seed + 100, 4000, spread);
    }
}

TEST(RingCalendarSchedulerTest, SameOrderAsLazyHeapWithTieKeys)
{
    // The two implementations of one order (tie-keyed-events.h), a third of
    // the events keyed: the same events leave in the same order under the
    // same uids, over the spreads of the test above.
    const uint64_t spreads[] = {3, 1000, 100000, 1000000000};
    for (uint64_t seed = 1; seed <= 24; ++seed)
    {
        const uint64_t spread = spreads[seed % 4];
        CompareQueues(MakeRing(64, int64_t(1) << (seed % 12)), CreateObject<LazyHeapScheduler>(), seed, 20000,
                      spread, 33);
    }
}

TEST(RingCalendarSchedulerTest, SameOrderAsMapSchedulerWithTieKeysOff)
{
    // TieKeys false: keys ignored, ns-3's (time, uid) order, keyed events or not.
    const uint64_t spreads[] = {3, 1000, 100000};
    for (uint64_t seed = 1; seed <= 6; ++seed)
    {
        Ptr<RingCalendarScheduler> ring = MakeRing(64, 8);
        ring->SetAttribute("TieKeys", BooleanValue(false));
        Ptr<LazyHeapScheduler> lazy = CreateObject<LazyHeapScheduler>();
        lazy->SetAttribute("TieKeys", BooleanValue(false));
        CompareQueues(ring, CreateObject<MapScheduler>(), seed, 8000, spreads[seed % 3], 50);
        CompareQueues(lazy, CreateObject<MapScheduler>(), seed, 8000, spreads[seed % 3], 50);
    }
}

namespace
{
/// `rounds` times: `times` distinct times `gap` steps apart from `first`
/// (each round 4096 steps after the last), `ties` events at each, inserted,
/// then all popped.
void
RunRounds(Ptr<RingCalendarScheduler> s, uint32_t& uid, int rounds, uint64_t first, uint64_t times,
          uint64_t gap, uint64_t ties)
{
    for (int round = 0; round < rounds; ++round)
    {
        for (uint64_t k = 0; k < times * ties; ++k)
        {
            Scheduler::Event e;
            e.key.m_ts = first + uint64_t(round) * 4096 + (k / ties) * gap;
            e.key.m_uid = uid++;
            e.key.m_context = 0;
            e.impl = new Noop();
            s->Insert(e);
        }
        while (!s->IsEmpty())
        {
            s->RemoveNext().impl->Unref();
        }
    }
}
} // namespace

TEST(RingCalendarSchedulerTest, WidthAdaptsToTheEvents)
{
    // 64 events a bucket at the start: it narrows until a bucket reached
    // holds at most 12 on average; then one event every 64 steps: it widens
    // until one holds at least 3 (the bounds in the .cc). Only the speed
    // depends on it. 4096 buckets: the ring reaches every event at every
    // width here (4096 x 8 steps > a round's 4096), so the far heap's share
    // (the next tests) stays out of it.
    Ptr<RingCalendarScheduler> s = MakeRing(4096, 64);
    const uint64_t start = s->GetBucketWidthSteps();
    uint32_t uid = 4;
    RunRounds(s, uid, 40, 0, 64 * 64, 1, 1);
    // 64 a bucket at 64 steps, halved while above 12: 8 at 8 steps.
    EXPECT_EQ(start, 64u);
    EXPECT_EQ(s->GetBucketWidthSteps(), 8u);
    RunRounds(s, uid, 400, 1000000, 64, 64, 1);
    // One event a bucket reached up to 64 steps, two at 128: doubled while
    // below 3, so 4 at 256 steps.
    EXPECT_EQ(s->GetBucketWidthSteps(), 256u);
}

TEST(RingCalendarSchedulerTest, NarrowsOnlyWhileTheRingReachesTheEvents)
{
    // 64 buckets of 64 steps reach 4096 steps, a round's span: 64 events a
    // bucket reached (above 12), but at half the width about half of the
    // inserts (those 32 or more buckets ahead: ts from 1984 of 4096 on in a
    // round, 52 %) would go to the far heap, above the 1/16 allowed: it stays
    // at 64. The far share at 64 is 64 of 4096 (1.6 %, below 1/8): it does
    // not widen either. (Counting events alone, it narrowed to 8 steps and
    // sent 7/8 of them to the heap.)
    Ptr<RingCalendarScheduler> s = MakeRing(64, 64);
    uint32_t uid = 4;
    RunRounds(s, uid, 40, 0, 4096, 1, 1);
    EXPECT_EQ(s->GetBucketWidthSteps(), 64u);
}

TEST(RingCalendarSchedulerTest, WidensWhileEventsPassTheRing)
{
    // 16 events at each of 64 times 64 steps apart (a round spans 4096
    // steps), 64 buckets from 1 step wide: every bucket reached holds one
    // time's 16 events (above 12 at every width up to 64 steps, so counting
    // events alone it stayed at 1 step, 98 % of the events in the far heap).
    // The ring reaches 64 x width steps: the far share is about 1 - width/64,
    // above 1/8 up to 32 steps, so it doubles to 64 (far share 1/64) and
    // stops: halving again would send half of them back (above 1/16).
    Ptr<RingCalendarScheduler> s = MakeRing(64, 1);
    uint32_t uid = 4;
    RunRounds(s, uid, 200, 0, 64, 64, 16);
    EXPECT_EQ(s->GetBucketWidthSteps(), 64u);
}

TEST(RingCalendarSchedulerTest, BucketsMustBeAPowerOfTwo)
{
    // Set on a scheduler a Ptr holds (built by an ObjectFactory with the bad
    // value, the half-made object would leak when the setter throws), the
    // error names the attribute; a power of two is taken.
    Ptr<RingCalendarScheduler> s = CreateObject<RingCalendarScheduler>();
    try
    {
        s->SetAttribute("Buckets", UintegerValue(100));
        ADD_FAILURE() << "a ring of 100 buckets was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("--ns3::RingCalendarScheduler::Buckets: expected a power of two"),
                  std::string::npos)
            << e.what();
    }
    s->SetAttribute("Buckets", UintegerValue(128));
    UintegerValue b;
    s->GetAttribute("Buckets", b);
    EXPECT_EQ(b.Get(), 128u);
}

class InASimulator : public ::testing::TestWithParam<const char*>
{
};

INSTANTIATE_TEST_SUITE_P(EventQueues,
                         InASimulator,
                         ::testing::Values("ns3::LazyHeapScheduler", "ns3::RingCalendarScheduler"));

/// Each scheduler and the other (SetScheduler mid-run).
class SwitchedInASimulator : public ::testing::TestWithParam<std::pair<const char*, const char*>>
{
};

INSTANTIATE_TEST_SUITE_P(
    EventQueues,
    SwitchedInASimulator,
    ::testing::Values(std::make_pair("ns3::LazyHeapScheduler", "ns3::RingCalendarScheduler"),
                      std::make_pair("ns3::RingCalendarScheduler", "ns3::LazyHeapScheduler"),
                      std::make_pair("ns3::RingCalendarScheduler", "ns3::RingCalendarScheduler"),
                      std::make_pair("ns3::LazyHeapScheduler", "ns3::LazyHeapScheduler")));

TEST_P(InASimulator, RemovedEventsNeitherRunNorCount)
{
    Simulator::SetScheduler(ObjectFactory(GetParam()));
    g_ran.clear();
    const uint64_t before = Simulator::GetEventCount();
    Simulator::Schedule(NanoSeconds(5), &Record, 1);
    EventId removed = Simulator::Schedule(NanoSeconds(3), &Record, 2);
    EventId cancelled = Simulator::Schedule(NanoSeconds(4), &Record, 3);
    Simulator::Schedule(NanoSeconds(5), &Record, 4); // same time as 1: after it
    Simulator::Schedule(NanoSeconds(1), [&removed]() { Simulator::Remove(removed); });
    Simulator::Schedule(NanoSeconds(2), [&cancelled]() { Simulator::Cancel(cancelled); });
    EventId late = Simulator::Schedule(Seconds(1), &Record, 5);
    Simulator::Schedule(NanoSeconds(6), [&late]() { Simulator::Remove(late); });
    Simulator::Run();
    EXPECT_EQ(g_ran, (std::vector<int>{1, 4}));
    // Executed by ns-3's count: 1, 4, the three lambdas and the cancelled
    // event (ns-3 pops a cancelled event and counts it); not the two removed.
    EXPECT_EQ(Simulator::GetEventCount() - before, 6u);
    EXPECT_EQ(Simulator::Now(), NanoSeconds(6));
    Simulator::Destroy();
}

TEST_P(InASimulator, TieKeysOrderEqualTimesBeforeUnkeyedEvents)
{
    // At 5 ns: two unkeyed events (scheduled first and last), and three keyed
    // ones scheduled in the order (2, 0), (1, 7), (1, 3). By hand: keyed
    // first by (major, minor) - (1, 3), (1, 7), (2, 0) - then the unkeyed in
    // scheduling order; an event at 4 ns with a key still runs first (time
    // wins), and a key lives only while its TieKey does.
    Simulator::SetScheduler(ObjectFactory(GetParam()));
    g_ran.clear();
    Simulator::Schedule(NanoSeconds(5), &Record, 1);
    {
        SchedulerTieKey key(2, 0);
        Simulator::Schedule(NanoSeconds(5), &Record, 2);
    }
    {
        SchedulerTieKey key(1, 7);
        Simulator::Schedule(NanoSeconds(5), &Record, 3);
    }
    {
        SchedulerTieKey key(1, 3);
        Simulator::Schedule(NanoSeconds(5), &Record, 4);
    }
    {
        SchedulerTieKey key(0, 0);
        Simulator::Schedule(NanoSeconds(4), &Record, 5);
    }
    Simulator::Schedule(NanoSeconds(5), &Record, 6);
    Simulator::Run();
    EXPECT_EQ(g_ran, (std::vector<int>{5, 4, 3, 2, 1, 6}));
    Simulator::Destroy();
}

TEST_P(InASimulator, AKeyedEventCanRemoveAnEarlierScheduledEventOfItsTime)
{
    // Event 1 at 5 ns is scheduled before the keyed event 2 of the same time
    // (smaller uid) but runs after it. ns-3 judges an event of the current
    // time expired when its uid is not above the running event's: 2 must
    // still be able to remove 1 (and 1 must read as pending), so nothing
    // but 2 runs. By hand: {2}, and 1 was pending when 2 asked.
    Simulator::SetScheduler(ObjectFactory(GetParam()));
    g_ran.clear();
    EventId first = Simulator::Schedule(NanoSeconds(5), &Record, 1);
    bool pending = false;
    {
        SchedulerTieKey key(0, 0);
        Simulator::Schedule(NanoSeconds(5), [&first, &pending]() {
            Record(2);
            pending = first.IsRunning();
            Simulator::Remove(first);
        });
    }
    Simulator::Run();
    EXPECT_EQ(g_ran, (std::vector<int>{2}));
    EXPECT_TRUE(pending);
    Simulator::Destroy();
}

TEST_P(InASimulator, AnEventRunBeforeAKeyedOneOfItsTimeStaysRun)
{
    // At 5 ns the unkeyed event A runs and schedules, for the same
    // picosecond, the keyed event K and the unkeyed B. By ns-3's rule (an
    // event of the current time is run if its uid is not above the running
    // one's), seen from K: A has run (it ran before K), B is pending; so K's
    // Remove of A does nothing (A's reference count stays the one our EventId
    // holds: 1) and its Remove of B removes B. By hand: ran {A, K}.
    Simulator::SetScheduler(ObjectFactory(GetParam()));
    g_ran.clear();
    EventId a;
    EventId b;
    bool aRun = false;
    bool bPending = false;
    a = Simulator::Schedule(NanoSeconds(5), [&]() {
        Record(1);
        {
            SchedulerTieKey key(0, 0);
            Simulator::Schedule(Time(0), [&]() {
                Record(2);
                aRun = a.IsExpired();
                bPending = b.IsRunning(); // ns-3.37: "running" is pending
                Simulator::Remove(a);
                Simulator::Remove(b);
            });
        }
        b = Simulator::Schedule(Time(0), &Record, 3);
    });
    Simulator::Run();
    EXPECT_EQ(g_ran, (std::vector<int>{1, 2}));
    EXPECT_TRUE(aRun);
    EXPECT_TRUE(bPending);
    EXPECT_EQ(a.PeekEventImpl()->GetReferenceCount(), 1u);
    EXPECT_EQ(b.PeekEventImpl()->GetReferenceCount(), 1u);
    Simulator::Destroy();
}

TEST_P(InASimulator, RemovingAKeyedEventThatRanLeavesTheQueueAlone)
{
    // At 5 ns keyed K1 (key 0) runs before keyed K2 (key 1). ns-3 misjudges
    // K1 pending from K2 (tie-keyed-events.h); K2's Remove of K1 must leave
    // the queue as it is and K1's references right: after the run, only our
    // EventId holds K1 (count 1; a Remove that took a reference for a later
    // drop that never comes would leave 2, one that took none 0), the queue
    // keeps no trace of it (no keyed event of an earlier time remembered once
    // the time moved on), and the 6 ns event still runs.
    ObjectFactory f(GetParam());
    Simulator::SetScheduler(f);
    g_ran.clear();
    EventId k1;
    {
        SchedulerTieKey key(0, 0);
        k1 = Simulator::Schedule(NanoSeconds(5), &Record, 1);
    }
    {
        SchedulerTieKey key(1, 0);
        Simulator::Schedule(NanoSeconds(5), [&k1]() {
            Record(2);
            Simulator::Remove(k1);
        });
    }
    Simulator::Schedule(NanoSeconds(6), &Record, 3);
    Simulator::Run();
    EXPECT_EQ(g_ran, (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(k1.PeekEventImpl()->GetReferenceCount(), 1u);
    Simulator::Destroy();
}

TEST(TieKeyedEventsTest, RemovingAKeyedEventThatRanMarksNothing)
{
    // The same as above on the scheduler itself, as the simulator drives it:
    // the Remove of a keyed event that left at the current time must not
    // leave a removal mark (a uid kept for ever), and the event's reference
    // count must come back to what its holders hold.
    for (const char* name : {"ns3::LazyHeapScheduler", "ns3::RingCalendarScheduler"})
    {
        ObjectFactory f(name);
        Ptr<Scheduler> s = f.Create<Scheduler>();
        Scheduler::Event k1;
        k1.key.m_ts = 5;
        k1.key.m_uid = 4;
        k1.key.m_context = 0;
        k1.impl = new Noop(); // the queue's reference
        k1.impl->Ref();       // an EventId's
        Scheduler::Event k2 = k1;
        k2.key.m_uid = 5;
        k2.impl = new Noop();
        {
            SchedulerTieKey key(0, 0);
            s->Insert(k1);
        }
        {
            SchedulerTieKey key(1, 0);
            s->Insert(k2);
        }
        const Scheduler::Event left = s->RemoveNext();
        EXPECT_EQ(left.impl, k1.impl) << name;
        EXPECT_EQ(left.key.m_uid, uint32_t(EventId::UID::RESERVED)) << name; // no unkeyed event of 5 left
        left.impl->Unref();                                                   // run: the queue's reference dropped
        // Simulator::Remove(k1) while k2 would run: K1 still reads pending.
        s->Remove(k1);
        k1.impl->Cancel();
        k1.impl->Unref();
        EXPECT_EQ(k1.impl->GetReferenceCount(), 1u) << name;
        const Scheduler::Event next = s->RemoveNext();
        EXPECT_EQ(next.impl, k2.impl) << name;
        next.impl->Unref();
        EXPECT_TRUE(s->IsEmpty()) << name;
        if (Ptr<LazyHeapScheduler> lazy = DynamicCast<LazyHeapScheduler>(s))
        {
            EXPECT_EQ(lazy->GetRemovedMarks(), 0u);
        }
        k1.impl->Unref();
    }
}

TEST_P(SwitchedInASimulator, KeysAndUidsSurviveAChangeOfScheduler)
{
    // At 5 ns, after the unkeyed A ran, A schedules the keyed K for the same
    // picosecond and the simulator changes its queue (Simulator::
    // SetScheduler moves the events by RemoveNext and Insert). Pending: K, at
    // 7 ns the unkeyed U (scheduled first) and the keyed K7b (key 2) and K7a
    // (key 1), at 6 ns an event that removes K7b. By hand, with the keys kept:
    // A, K (where A reads run), then at 7 ns K7a before U (keyed first); K7b
    // removed (it neither runs nor counts); its reference count back to our
    // EventId's 1. Events counted: A, K, the remover, K7a, U = 5.
    Simulator::SetScheduler(ObjectFactory(GetParam().first));
    g_ran.clear();
    const uint64_t before = Simulator::GetEventCount();
    EventId a;
    EventId k7b;
    bool aRun = false;
    Simulator::Schedule(NanoSeconds(7), &Record, 5); // U
    {
        SchedulerTieKey key(2, 0);
        k7b = Simulator::Schedule(NanoSeconds(7), &Record, 6);
    }
    {
        SchedulerTieKey key(1, 0);
        Simulator::Schedule(NanoSeconds(7), &Record, 4);
    }
    Simulator::Schedule(NanoSeconds(6), [&k7b]() { Simulator::Remove(k7b); });
    const char* next = GetParam().second;
    a = Simulator::Schedule(NanoSeconds(5), [&, next]() {
        Record(1);
        {
            SchedulerTieKey key(0, 0);
            Simulator::Schedule(Time(0), [&]() {
                Record(2);
                aRun = a.IsExpired();
            });
        }
        Simulator::SetScheduler(ObjectFactory(next));
    });
    Simulator::Run();
    EXPECT_EQ(g_ran, (std::vector<int>{1, 2, 4, 5}));
    EXPECT_TRUE(aRun);
    EXPECT_EQ(Simulator::GetEventCount() - before, 5u);
    EXPECT_EQ(k7b.PeekEventImpl()->GetReferenceCount(), 1u);
    Simulator::Destroy();
}

TEST(TieKeyedEventsTest, KeysOutsideTheirRangeAreRefused)
{
    // One 64-bit word holds a key (tie-keyed-events.h): major below
    // 2^24 - 1, minor below 2^40. The largest key is still a key, ordered
    // before an unkeyed event of its time and after a smaller key.
    EXPECT_THROW(SchedulerTieKey(SchedulerTieKey::kMajorLimit, 0), std::overflow_error);
    EXPECT_THROW(SchedulerTieKey(0, SchedulerTieKey::kMinorLimit), std::overflow_error);
    Ptr<RingCalendarScheduler> s = CreateObject<RingCalendarScheduler>();
    std::vector<Scheduler::Event> in(3);
    for (uint32_t k = 0; k < 3; ++k)
    {
        in[k].key.m_ts = 7;
        in[k].key.m_uid = 4 + k;
        in[k].key.m_context = 0;
        in[k].impl = new Noop();
    }
    s->Insert(in[0]); // unkeyed, scheduled first
    {
        SchedulerTieKey key(SchedulerTieKey::kMajorLimit - 1, SchedulerTieKey::kMinorLimit - 1);
        s->Insert(in[1]);
    }
    {
        SchedulerTieKey key(SchedulerTieKey::kMajorLimit - 1, SchedulerTieKey::kMinorLimit - 2);
        s->Insert(in[2]);
    }
    for (uint32_t want : {2u, 1u, 0u})
    {
        const Scheduler::Event e = s->RemoveNext();
        EXPECT_EQ(e.impl, in[want].impl);
        e.impl->Unref();
    }
}
