// SPDX-License-Identifier: GPL-2.0-only
//
// FabricRecycledEvent (fabric-pooled-event.h): an event object that ran is
// handed out again by its class, alive and uncancelled; one that was
// removed or cancelled before it ran is not; each runs exactly when and as
// often as scheduled; and a kept ScheduledEvent (hotsim::ScheduleKept)
// removes its event as an EventId does. Under ns-3's DefaultSimulatorImpl and
// hockney's FastSimulatorImpl.
#include "fabric-pooled-event.h"
#include "fast-simulator-impl.h"

#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;

namespace
{

/// Records the time of each call.
struct Recorder
{
    std::vector<int64_t> at;

    void Hit() { at.push_back(Simulator::Now().GetNanoSeconds()); }
};

using HitEvent = FabricMemberEvent<Recorder, &Recorder::Hit>;

class RecycledEventTest : public ::testing::TestWithParam<const char*>
{
};

INSTANTIATE_TEST_SUITE_P(Simulators,
                         RecycledEventTest,
                         ::testing::Values("ns3::DefaultSimulatorImpl", "ns3::FastSimulatorImpl"));

TEST_P(RecycledEventTest, ARunEventIsReusedARemovedOrCancelledOneIsNot)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue(GetParam()));
    Recorder r;
    HitEvent* first = HitEvent::Make(&r);
    hotsim::Schedule(NanoSeconds(10), first);
    Simulator::Run();
    EXPECT_EQ(r.at, (std::vector<int64_t>{10}));
    // It ran: the next Make hands the same object out again, and it runs
    // again at its new time.
    HitEvent* again = HitEvent::Make(&r);
    EXPECT_EQ(again, first);
    EXPECT_FALSE(again->IsCancelled());
    hotsim::Schedule(NanoSeconds(5), again); // 10 + 5
    // Removed before it runs (kept identity): never runs, not reused.
    HitEvent* removed = HitEvent::Make(&r);
    EXPECT_NE(removed, first);
    const hotsim::ScheduledEvent kept = hotsim::ScheduleKept(NanoSeconds(7), removed);
    EXPECT_FALSE(Simulator::IsExpired(kept.Id()));
    EXPECT_EQ(Simulator::GetDelayLeft(kept.Id()), NanoSeconds(7));
    Simulator::Remove(kept.Id());
    EXPECT_TRUE(Simulator::IsExpired(kept.Id()));
    // Cancelled: popped and counted by ns-3, never run, not reused.
    HitEvent* cancelled = HitEvent::Make(&r);
    const EventId c = hotsim::Schedule(NanoSeconds(8), cancelled);
    Simulator::Cancel(c);
    const uint64_t before = Simulator::GetEventCount();
    Simulator::Run();
    EXPECT_EQ(r.at, (std::vector<int64_t>{10, 15}));
    EXPECT_EQ(Simulator::GetEventCount() - before, 2u); // `again` and the cancelled one
    // The free list holds the one object that ran (twice), not the removed
    // or the cancelled one (deleted: a new object may reuse their memory,
    // so only its state is checked).
    HitEvent* a = HitEvent::Make(&r);
    HitEvent* b = HitEvent::Make(&r);
    EXPECT_EQ(a, first);
    EXPECT_NE(b, first);
    EXPECT_FALSE(b->IsCancelled());
    hotsim::Schedule(NanoSeconds(1), a);
    hotsim::Schedule(NanoSeconds(2), b);
    Simulator::Run();
    // From 18 ns: the cancelled event, popped at 10 + 8, moved the clock there.
    EXPECT_EQ(r.at, (std::vector<int64_t>{10, 15, 19, 20}));
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

TEST_P(RecycledEventTest, RemovePendingInsideARunRemovesAsSimulatorRemoveDoes)
{
    // At 1 ns an event schedules two kept events (at 4 and 6 ns) and removes
    // the first through hotsim::RemovePending (FastSimulatorImpl's direct
    // path while it runs, Simulator::Remove under ns-3's simulator): only
    // the one at 6 ns runs, and ns-3's count is 2 (the removed one neither
    // runs nor counts).
    GlobalValue::Bind("SimulatorImplementationType", StringValue(GetParam()));
    Recorder r;
    hotsim::ScheduledEvent gone;
    Simulator::Schedule(NanoSeconds(1), [&]() {
        gone = hotsim::ScheduleKept(NanoSeconds(3), HitEvent::Make(&r));
        hotsim::ScheduleKept(NanoSeconds(5), HitEvent::Make(&r));
        EXPECT_FALSE(Simulator::IsExpired(gone.Id()));
        hotsim::RemovePending(gone);
        EXPECT_TRUE(Simulator::IsExpired(gone.Id()));
    });
    const uint64_t before = Simulator::GetEventCount();
    Simulator::Run();
    EXPECT_EQ(r.at, (std::vector<int64_t>{6}));
    EXPECT_EQ(Simulator::GetEventCount() - before, 2u);
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

} // namespace
