// SPDX-License-Identifier: GPL-2.0-only
//
// The AnalyticChannel's pending deliveries: entries (delivery tick, message
// slot, receiver context) taken out earliest first, entries due at the same
// tick in the order they were put in.
//
// Why a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan, J. ACM 37(2), 1990) and not
// a binary heap: delivery times never lie before the simulator's clock and
// entries leave at the clock, so the keys taken out never decrease. A radix
// heap uses exactly that: entry x waits in bucket msb(x XOR last) + 1, where
// last is a key taken out (never above the clock), so every bucket holds only
// keys above those of the buckets below it. When the next entries run out, the
// nearest bucket's minimum becomes last and its entries move to lower buckets,
// along arrays read front to back. Buckets of at most 32 entries are instead
// sorted (stable insertion sort) into the run of next entries, bucket 0, which
// saves each entry its last few moves. At 1e5 messages in flight a binary heap
// missed the cache on most of its 17 levels at every pop; here a message costs
// a few sequential moves (queue alone, 1e3 / 1e5 in flight: 41 / 54 ns per
// message against 82 / 146 ns for std::push_heap / pop_heap, on this machine).
//
// Ties: entries with equal keys always sit in the same bucket (its index
// depends on the key and last only), appended in the order they were put in,
// and moved or sorted stably; an entry put into the run goes after those of
// equal time. They leave first in, first out, which is the order (time, order
// queued) the binary heap gave with an explicit counter.
#ifndef HOCKNEY_DELIVERY_QUEUE_H
#define HOCKNEY_DELIVERY_QUEUE_H

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

class DeliveryQueue
{
  public:
    struct Entry
    {
        int64_t ticks;    ///< delivery time in simulator ticks (>= 0)
        uint32_t slot;    ///< where the message waits
        uint32_t context; ///< the receiving node, for ScheduleWithContext
    };

    bool Empty() const
    {
        return m_size == 0;
    }

    std::size_t Size() const
    {
        return m_size;
    }

    /// Queues \p e. Its ticks must not be earlier than those of the last entry
    /// taken out (the simulator's clock guarantees it); returns false, queuing
    /// nothing, if they are.
    bool Push(const Entry& e)
    {
        // m_last <= m_lastPopped: a key at or after the last one taken out is
        // at or after last, as the buckets need.
        if (e.ticks < 0 || e.ticks < m_lastPopped)
        {
            return false;
        }
        const uint64_t key = static_cast<uint64_t>(e.ticks);
        std::vector<Entry>& run = m_buckets[0].items;
        if (m_head0 < run.size() && e.ticks < run.back().ticks)
        {
            // Inside the sorted run: after the entries of equal or earlier time.
            auto at = std::upper_bound(run.begin() + static_cast<std::ptrdiff_t>(m_head0),
                                       run.end(),
                                       e.ticks,
                                       [](int64_t t, const Entry& x) { return t < x.ticks; });
            run.insert(at, e);
        }
        else
        {
            Append(BucketOf(key), e);
        }
        ++m_size;
        return true;
    }

    /// The entry taken out next if it is due at the ticks last taken out, or null.
    const Entry* DueNow() const
    {
        if (m_size == 0)
        {
            return nullptr;
        }
        const Entry& next = Peek();
        return next.ticks == m_lastPopped ? &next : nullptr;
    }

    /// The entry taken out next. Only when not Empty().
    const Entry& Peek() const
    {
        if (m_head0 < m_buckets[0].items.size())
        {
            return m_buckets[0].items[m_head0];
        }
        const Bucket& b = m_buckets[Nearest()];
        return b.items[b.minIndex];
    }

    /// Takes out the earliest entry. Only when not Empty().
    Entry Pop()
    {
        if (m_head0 == m_buckets[0].items.size())
        {
            Refill();
        }
        Bucket& b0 = m_buckets[0];
        const Entry e = b0.items[m_head0++];
        m_lastPopped = e.ticks;
        if (m_head0 == b0.items.size())
        {
            b0.items.clear();
            m_head0 = 0;
        }
        --m_size;
        return e;
    }

    void Clear()
    {
        for (Bucket& b : m_buckets)
        {
            b.items.clear();
        }
        m_occupied = 0;
        m_head0 = 0;
        m_size = 0;
        m_last = 0;
        m_lastPopped = -1;
    }

  private:
    struct Bucket
    {
        std::vector<Entry> items;
        uint64_t minKey = 0;
        std::size_t minIndex = 0; // first entry with minKey: the earliest queued of the earliest
        // (kept for buckets 1..64; bucket 0, the run, is sorted and read from the front)
    };

    std::size_t BucketOf(uint64_t key) const
    {
        return key == m_last ? 0 : 64 - static_cast<std::size_t>(__builtin_clzll(key ^ m_last));
    }

    void Append(std::size_t index, const Entry& e)
    {
        Bucket& b = m_buckets[index];
        const uint64_t key = static_cast<uint64_t>(e.ticks);
        if (index > 0 && (b.items.empty() || key < b.minKey))
        {
            b.minKey = key;
            b.minIndex = b.items.size();
        }
        b.items.push_back(e);
        if (index > 0)
        {
            m_occupied |= uint64_t(1) << (index - 1);
        }
    }

    /// The lowest non-empty bucket above 0.
    std::size_t Nearest() const
    {
        return static_cast<std::size_t>(__builtin_ctzll(m_occupied)) + 1;
    }

    /// The run is used up: the nearest bucket's minimum becomes last. A small
    /// bucket becomes the next run by a stable sort (its entries would
    /// otherwise move down a few more levels each, the radix heap's main cost
    /// at 1e3 messages in flight); a larger one moves down, in order, its
    /// minimum entries forming the run.
    void Refill()
    {
        const std::size_t index = Nearest();
        Bucket& from = m_buckets[index];
        m_last = from.minKey;
        std::vector<Entry>& run = m_buckets[0].items;
        run.clear();
        m_head0 = 0;
        m_occupied &= ~(uint64_t(1) << (index - 1));
        if (from.items.size() <= kSortLimit)
        {
            run.swap(from.items);
            // Insertion sort: stable, and quick on a few entries.
            for (std::size_t i = 1; i < run.size(); ++i)
            {
                const Entry x = run[i];
                std::size_t j = i;
                for (; j > 0 && x.ticks < run[j - 1].ticks; --j)
                {
                    run[j] = run[j - 1];
                }
                run[j] = x;
            }
        }
        else
        {
            for (const Entry& e : from.items)
            {
                Append(BucketOf(static_cast<uint64_t>(e.ticks)), e);
            }
        }
        from.items.clear();
    }

    static constexpr std::size_t kSortLimit = 32;

    std::array<Bucket, 65> m_buckets;
    uint64_t m_occupied = 0; // bit i - 1 set: bucket i (1..64) holds entries
    std::size_t m_head0 = 0; // the run (bucket 0, sorted by time) is read from here on
    std::size_t m_size = 0;
    uint64_t m_last = 0;
    int64_t m_lastPopped = -1; // ticks of the entry taken out last
};

} // namespace ns3

#endif
