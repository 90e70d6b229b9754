// SPDX-License-Identifier: GPL-2.0-only
//
// FabricRingQueue<T>: a FIFO (push at the back, pop at either end, read by
// position) in one heap block that is allocated at the first push and can be
// given back when the queue is empty. An idle queue is 16 bytes and owns no
// memory, where std::deque is 80 bytes and allocates a 512-byte node and a
// 64-byte map as it is constructed: about 1.7 KB for the three queues of each
// RDMA queue pair, most of which never send (a 1024-GPU AllToAll has about a
// million QPs; issue 9). The capacity is a power of two and doubles when
// full, so a push is amortised O(1) and a position is one mask away.
#ifndef HOCKNEY_FABRIC_RING_QUEUE_H
#define HOCKNEY_FABRIC_RING_QUEUE_H

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

namespace ns3
{

template <typename T>
class FabricRingQueue
{
  public:
    FabricRingQueue() = default;
    ~FabricRingQueue() { Release(); }
    FabricRingQueue(const FabricRingQueue&) = delete;
    FabricRingQueue& operator=(const FabricRingQueue&) = delete;

    FabricRingQueue(FabricRingQueue&& o) noexcept
        : m_block(o.m_block),
          m_head(o.m_head),
          m_size(o.m_size)
    {
        o.m_block = nullptr;
        o.m_head = 0;
        o.m_size = 0;
    }

    bool empty() const { return m_size == 0; }
    uint32_t size() const { return m_size; }
    /// Elements the block holds before it grows (0: no block).
    uint32_t capacity() const { return m_block ? Capacity() : 0; }

    /// The element at position i from the front (i < size()).
    T& operator[](uint32_t i) { return Items()[(m_head + i) & (Capacity() - 1)]; }
    const T& operator[](uint32_t i) const { return Items()[(m_head + i) & (Capacity() - 1)]; }
    T& front() { return (*this)[0]; }
    const T& front() const { return (*this)[0]; }
    T& back() { return (*this)[m_size - 1]; }
    const T& back() const { return (*this)[m_size - 1]; }

    template <typename... Args>
    T& emplace_back(Args&&... args)
    {
        if (!m_block || m_size == Capacity())
        {
            Grow();
        }
        T* slot = &Items()[(m_head + m_size) & (Capacity() - 1)];
        new (slot) T(std::forward<Args>(args)...);
        ++m_size;
        return *slot;
    }

    void push_back(T v) { emplace_back(std::move(v)); }

    void pop_front()
    {
        front().~T();
        m_head = (m_head + 1) & (Capacity() - 1);
        --m_size;
    }

    void pop_back()
    {
        back().~T();
        --m_size;
    }

    void clear()
    {
        while (m_size > 0)
        {
            pop_back();
        }
        m_head = 0;
    }

    /// Gives the block back if the queue is empty (the next push allocates
    /// again): for a queue pair that has finished its work.
    void ReleaseIfEmpty()
    {
        if (m_size == 0)
        {
            Release();
        }
    }

  private:
    // The block: a header holding the capacity, then the elements. The
    // header is 16 bytes, operator new's alignment on x86-64 and AArch64, so
    // the elements are aligned as any T this holds.
    static constexpr std::size_t kHeader = 16;
    static_assert(alignof(T) <= kHeader, "FabricRingQueue: element alignment above 16");
    static constexpr uint32_t kFirstCapacity = 4;

    uint32_t Capacity() const { return *reinterpret_cast<const uint32_t*>(m_block); }
    T* Items() const { return reinterpret_cast<T*>(m_block + kHeader); }

    void Grow()
    {
        const uint32_t cap = m_block ? 2 * Capacity() : kFirstCapacity;
        auto* block = static_cast<unsigned char*>(::operator new(kHeader + sizeof(T) * cap));
        *reinterpret_cast<uint32_t*>(block) = cap;
        T* items = reinterpret_cast<T*>(block + kHeader);
        for (uint32_t i = 0; i < m_size; ++i)
        {
            T& old = (*this)[i];
            new (&items[i]) T(std::move(old));
            old.~T();
        }
        if (m_block)
        {
            ::operator delete(m_block);
        }
        m_block = block;
        m_head = 0;
    }

    void Release()
    {
        if (m_block)
        {
            clear();
            ::operator delete(m_block);
            m_block = nullptr;
        }
    }

    unsigned char* m_block{nullptr};
    uint32_t m_head{0};
    uint32_t m_size{0};
};

} // namespace ns3

#endif
