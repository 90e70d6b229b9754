// SPDX-License-Identifier: GPL-2.0-only
//
// Events the fabric makes and frees once per hop (a packet's arrival, a
// port's next start) reuse the blocks of freed ones: a class deriving from
// FabricPooledEvent<Class> takes a block of its own size from a free list
// instead of malloc, and gives it back there (about 100 instructions of
// malloc and free per event). The list holds at most the events that were
// once pending together. A subclass of a different size uses the ordinary
// allocator. Process-wide lists: ns-3 runs a simulation on one thread.
#ifndef HOCKNEY_FABRIC_POOLED_EVENT_H
#define HOCKNEY_FABRIC_POOLED_EVENT_H

#include "ns3/event-impl.h"

#include <cstddef>
#include <new>
#include <vector>

namespace ns3
{

template <typename Derived>
class FabricPooledEvent : public EventImpl
{
  public:
    static void* operator new(std::size_t size)
    {
        std::vector<void*>& list = FreeList();
        if (size == sizeof(Derived) && !list.empty())
        {
            void* p = list.back();
            list.pop_back();
            return p;
        }
        return ::operator new(size);
    }

    static void operator delete(void* p, std::size_t size)
    {
        if (size == sizeof(Derived))
        {
            FreeList().push_back(p);
            return;
        }
        ::operator delete(p);
    }

  private:
    /// Never destroyed, so the blocks stay reachable to the end (no leak for
    /// LeakSanitizer, no use after a static destructor).
    static std::vector<void*>& FreeList()
    {
        static auto* list = new std::vector<void*>;
        return *list;
    }
};

/// Calls (object->*Method)() when it runs: MakeEvent's member event, pooled.
template <typename T, void (T::*Method)()>
class FabricMemberEvent : public FabricPooledEvent<FabricMemberEvent<T, Method>>
{
  public:
    explicit FabricMemberEvent(T* object)
        : m_object(object)
    {
    }

  protected:
    void Notify() override
    {
        (m_object->*Method)();
    }

  private:
    T* m_object;
};

} // namespace ns3

#endif
