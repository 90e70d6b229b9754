// SPDX-License-Identifier: GPL-2.0-only
//
// DeliveryQueue against the order the channel promises: earliest time first,
// equal times in the order queued. The reference is an ordered set on
// (ticks, order queued), driven by the same random clock: entries are queued
// at or after the clock, the clock moves to each entry taken out.
#include "delivery-queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <utility>

using namespace ns3;

namespace
{

/// Runs \p steps random operations; \p spread is the largest delay, \p tieEvery
/// makes every tieEvery-th delay repeat an earlier one (ties), \p burst queues
/// that many entries per push step.
void
CompareWithReference(uint64_t seed, int steps, int64_t spread, int tieEvery, int burst)
{
    std::mt19937_64 rng(seed);
    DeliveryQueue q;
    std::set<std::pair<int64_t, uint32_t>> reference; // (ticks, order queued)
    uint32_t order = 0;
    int64_t clock = 0;
    int64_t lastDelay = 0;
    for (int step = 0; step < steps; ++step)
    {
        const bool push = reference.empty() || rng() % 100 < 55;
        if (push)
        {
            for (int b = 0; b < burst; ++b)
            {
                int64_t delay = static_cast<int64_t>(rng() % static_cast<uint64_t>(spread + 1));
                if (tieEvery > 0 && rng() % tieEvery == 0)
                {
                    delay = lastDelay; // the same time as an earlier entry, or now
                }
                lastDelay = delay;
                ASSERT_TRUE(q.Push(DeliveryQueue::Entry{clock + delay, order, order % 7}));
                reference.emplace(clock + delay, order);
                ++order;
            }
        }
        else
        {
            const auto expected = *reference.begin();
            reference.erase(reference.begin());
            ASSERT_EQ(q.Peek().slot, expected.second) << "step " << step;
            const DeliveryQueue::Entry e = q.Pop();
            ASSERT_EQ(e.ticks, expected.first) << "step " << step;
            ASSERT_EQ(e.slot, expected.second) << "step " << step;
            ASSERT_EQ(e.context, expected.second % 7);
            clock = e.ticks;
            // DueNow: the next entry exactly when it is due at this same time.
            const DeliveryQueue::Entry* due = q.DueNow();
            if (!reference.empty() && reference.begin()->first == clock)
            {
                ASSERT_NE(due, nullptr) << "step " << step;
                ASSERT_EQ(due->slot, reference.begin()->second);
            }
            else
            {
                ASSERT_EQ(due, nullptr) << "step " << step;
            }
        }
        ASSERT_EQ(q.Size(), reference.size());
    }
    // Drain.
    while (!reference.empty())
    {
        const auto expected = *reference.begin();
        reference.erase(reference.begin());
        const DeliveryQueue::Entry e = q.Pop();
        ASSERT_EQ(e.ticks, expected.first);
        ASSERT_EQ(e.slot, expected.second);
    }
    EXPECT_TRUE(q.Empty());
}

} // namespace

TEST(DeliveryQueue, SpreadOutTimes)
{
    // Times as in the benchmark (5-14 us at 1 ps), few ties.
    CompareWithReference(1, 200000, 14000000, 0, 1);
}

TEST(DeliveryQueue, ManyTiesAndZeroDelays)
{
    // Short delays and repeated ones: equal times must leave in queue order,
    // including entries queued for "now" after the clock reached them.
    CompareWithReference(2, 200000, 8, 3, 1);
    CompareWithReference(3, 200000, 1000, 2, 1);
}

TEST(DeliveryQueue, BurstsLikeCollectiveSteps)
{
    // Bursts of 100 entries, half of them at one time: large buckets (moved
    // down) and small ones (sorted into the run) both occur.
    CompareWithReference(4, 20000, 1 << 20, 2, 100);
    CompareWithReference(5, 20000, 40, 0, 50);
}

TEST(DeliveryQueue, RefusesATimeBeforeTheLastTakenOut)
{
    DeliveryQueue q;
    ASSERT_TRUE(q.Push(DeliveryQueue::Entry{1000, 0, 0}));
    ASSERT_TRUE(q.Push(DeliveryQueue::Entry{5000, 1, 0}));
    EXPECT_EQ(q.Pop().ticks, 1000);
    EXPECT_TRUE(q.Push(DeliveryQueue::Entry{1000, 2, 0})); // at the clock: allowed
    EXPECT_FALSE(q.Push(DeliveryQueue::Entry{-1, 3, 0}));
    EXPECT_EQ(q.Pop().slot, 2u);
    EXPECT_EQ(q.Pop().slot, 1u);
    EXPECT_FALSE(q.Push(DeliveryQueue::Entry{4999, 4, 0})); // before 5000, taken out
    EXPECT_TRUE(q.Empty());
}
