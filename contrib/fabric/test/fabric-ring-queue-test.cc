// SPDX-License-Identifier: GPL-2.0-only
//
// FabricRingQueue: the FIFO order of std::deque across wrap-around and growth,
// no memory until the first push and none after ReleaseIfEmpty, and every
// element constructed is destroyed exactly once.
#include "fabric-ring-queue.h"

#include "ns3/nstime.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <random>

using namespace ns3;

TEST(FabricRingQueue, NoMemoryUntilPushedAndAfterRelease)
{
    FabricRingQueue<Time> q;
    EXPECT_EQ(q.capacity(), 0u);
    EXPECT_TRUE(q.empty());
    q.push_back(NanoSeconds(5));
    EXPECT_EQ(q.capacity(), 4u); // the first block holds 4
    q.ReleaseIfEmpty();          // not empty: kept
    EXPECT_EQ(q.capacity(), 4u);
    EXPECT_EQ(q.front(), NanoSeconds(5));
    q.pop_front();
    q.ReleaseIfEmpty();
    EXPECT_EQ(q.capacity(), 0u);
    // Usable again after a release.
    q.push_back(NanoSeconds(7));
    EXPECT_EQ(q.size(), 1u);
    EXPECT_EQ(q.back(), NanoSeconds(7));
}

TEST(FabricRingQueue, GrowsByDoublingAcrossTheWrap)
{
    FabricRingQueue<uint64_t> q;
    // Head moved to slot 3 of 4, then 6 pushes: the wrap happens at the
    // 2nd push and the block doubles to 8 at the 5th element (order kept).
    for (uint64_t v = 0; v < 3; ++v)
    {
        q.push_back(v);
    }
    q.pop_front();
    q.pop_front();
    q.pop_front();
    for (uint64_t v = 10; v < 16; ++v)
    {
        q.push_back(v);
    }
    EXPECT_EQ(q.capacity(), 8u);
    ASSERT_EQ(q.size(), 6u);
    for (uint32_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(q[i], 10u + i);
    }
    q.pop_back();
    EXPECT_EQ(q.back(), 14u);
    EXPECT_EQ(q.front(), 10u);
}

TEST(FabricRingQueue, SameSequenceAsDeque)
{
    // A second method: std::deque under the same random operations.
    std::mt19937 rng(7);
    FabricRingQueue<uint64_t> q;
    std::deque<uint64_t> ref;
    for (uint64_t step = 0; step < 20000; ++step)
    {
        const uint32_t op = rng() % 8;
        if (op < 4 || ref.empty())
        {
            q.push_back(step);
            ref.push_back(step);
        }
        else if (op < 6)
        {
            q.pop_front();
            ref.pop_front();
        }
        else if (op < 7)
        {
            q.pop_back();
            ref.pop_back();
        }
        else
        {
            q.ReleaseIfEmpty();
        }
        ASSERT_EQ(q.size(), ref.size());
        if (!ref.empty())
        {
            ASSERT_EQ(q.front(), ref.front());
            ASSERT_EQ(q.back(), ref.back());
            const uint32_t i = rng() % ref.size();
            ASSERT_EQ(q[i], ref[i]);
        }
    }
}

TEST(FabricRingQueue, DestroysEveryElementOnce)
{
    // shared_ptr use counts: 1 (the test's) + the copies the queue holds.
    auto token = std::make_shared<int>(1);
    {
        FabricRingQueue<std::shared_ptr<int>> q;
        for (int i = 0; i < 9; ++i) // two growths: 4 -> 8 -> 16
        {
            q.push_back(token);
        }
        EXPECT_EQ(token.use_count(), 10);
        q.pop_front();
        q.pop_back();
        EXPECT_EQ(token.use_count(), 8);
        FabricRingQueue<std::shared_ptr<int>> moved(std::move(q));
        EXPECT_EQ(token.use_count(), 8);
        EXPECT_TRUE(q.empty());
        EXPECT_EQ(moved.size(), 7u);
    }
    EXPECT_EQ(token.use_count(), 1);
}
