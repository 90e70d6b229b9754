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

/**
 * Events made once per hop whose objects are used again instead of being
 * built and destroyed: ns-3's EventImpl constructor and destructor are out
 * of line in Debian's logging build (a log check each), about 50
 * instructions an event with the allocation. A Derived object that ran
 * (Notify) goes back to its class's free list alive, holding one reference
 * of its own: it takes it at the end of Notify, and the queue drops its
 * reference right after Notify returns. Take() hands it out again with that
 * one reference, which the queue then takes over, as it takes a new
 * event's. An event removed or cancelled before it ran is never recycled:
 * its last reference goes and it is deleted as any event (a recycled object
 * therefore never carries ns-3's cancelled flag), and so are the events
 * still queued when the simulator is destroyed.
 *
 * Derived: default-constructible, with `void Run()` (the event's work,
 * which must drop any reference it holds, such as a packet's, so that a
 * recycled object holds nothing) and the fields its Take() caller sets.
 */
template <typename Derived>
class FabricRecycledEvent : public EventImpl
{
  public:
    /// A free object of this class, or a new one; reference count 1.
    static Derived* Take()
    {
        std::vector<Derived*>& list = FreeList();
        if (list.empty())
        {
            return new Derived();
        }
        Derived* d = list.back();
        list.pop_back();
        return d;
    }

  protected:
    void Notify() final
    {
        static_cast<Derived*>(this)->Run();
        this->Ref(); // the free list's, once the queue has dropped its own
        FreeList().push_back(static_cast<Derived*>(this));
    }

  private:
    /// Never destroyed (see FabricPooledEvent::FreeList).
    static std::vector<Derived*>& FreeList()
    {
        static auto* list = new std::vector<Derived*>;
        return *list;
    }
};

/// Calls (object->*Method)() when it runs: MakeEvent's member event, recycled.
template <typename T, void (T::*Method)()>
class FabricMemberEvent : public FabricRecycledEvent<FabricMemberEvent<T, Method>>
{
  public:
    /// An event calling object's Method, reference count 1 (the queue's).
    static FabricMemberEvent* Make(T* object)
    {
        FabricMemberEvent* e = FabricRecycledEvent<FabricMemberEvent>::Take();
        e->m_object = object;
        return e;
    }

    void Run() { (m_object->*Method)(); }

  private:
    T* m_object{nullptr};
};

} // namespace ns3

#endif
