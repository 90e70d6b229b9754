// SPDX-License-Identifier: GPL-2.0-only
//
// Egress scheduling of a FabricNetDevice among its 8 priority classes, a
// small strategy in the way an ns-3 QueueDisc picks the next packet. The port
// owns the class queues and its NIC's pull source and knows whether a class
// can send now (flow-control budget, forwarding-latency deadline); the
// scheduler decides only the order in which classes are asked, through
// FabricNetDevice::TakeFromClass. A dequeue costs one virtual call (Dequeue),
// the classes are asked by plain member calls, and nothing is allocated.
//
// Every discipline first serves the strict-priority classes
// (StrictPriorityClasses, default class 7: ACKs and CNPs), highest class
// first, then the other classes in its own order:
//   FabricStrictPriorityScheduler  every class strict, highest first
//   FabricRoundRobinScheduler      one packet per class per turn
//   FabricDwrrScheduler            deficit round robin with per-class weights
//                                  (Shreedhar & Varghese, "Efficient fair
//                                  queuing using deficit round robin",
//                                  SIGCOMM 1995)
// A class the port cannot serve now is skipped, never waited for.
#ifndef HOCKNEY_FABRIC_EGRESS_SCHEDULER_H
#define HOCKNEY_FABRIC_EGRESS_SCHEDULER_H

#include "fabric-header.h"

#include "ns3/object.h"

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

class FabricNetDevice;

/**
 * \brief Base of the egress disciplines: the strict-priority stage.
 */
class FabricEgressScheduler : public Object
{
  public:
    static TypeId GetTypeId();
    ~FabricEgressScheduler() override;

    /// Serves one packet: asks the classes of \p candidates (bit c: class c
    /// has a queued packet or a source) in this discipline's order with
    /// port.TakeFromClass until one gives a packet; false if none did.
    virtual bool Dequeue(FabricNetDevice& port, uint8_t candidates) = 0;
    /// True if a Dequeue in which no class can send changes what a later
    /// one picks (DWRR: the deficits it resets). The port then never skips
    /// such a visit (FabricNetDevice::NextStartAt).
    virtual bool VisitsLeaveState() const { return false; }

    /// Classes served first, highest first (attribute StrictPriorityClasses).
    uint8_t GetStrictClasses() const { return m_strictMask; }

  protected:
    /// The strict stage: the classes of \p classes, highest first.
    static bool DequeueStrict(FabricNetDevice& port, uint8_t classes);

    uint8_t m_strictMask{0x80}; ///< attribute StrictPriorityClasses
};

/**
 * \brief Every class by strict priority, the highest class first.
 */
class FabricStrictPriorityScheduler : public FabricEgressScheduler
{
  public:
    static TypeId GetTypeId();
    bool Dequeue(FabricNetDevice& port, uint8_t candidates) override;
};

/**
 * \brief Strict classes first, then the others one packet per turn.
 */
class FabricRoundRobinScheduler : public FabricEgressScheduler
{
  public:
    static TypeId GetTypeId();
    bool Dequeue(FabricNetDevice& port, uint8_t candidates) override;

  private:
    uint8_t m_next{0}; ///< class the next turn starts at
};

/**
 * \brief Strict classes first, then deficit weighted round robin: a class may
 * send while its deficit is positive; a visit with an exhausted deficit adds
 * weight x Quantum payload bytes and moves on. Classes with nothing to send
 * lose their deficit, so an idle class banks nothing.
 */
class FabricDwrrScheduler : public FabricEgressScheduler
{
  public:
    static TypeId GetTypeId();
    FabricDwrrScheduler();
    bool Dequeue(FabricNetDevice& port, uint8_t candidates) override;
    bool VisitsLeaveState() const override { return true; }

    /// Weights of classes 0-7 as "w0,w1,...,w7"; throws std::invalid_argument.
    void SetClassWeights(std::string weights);
    std::string GetClassWeights() const;

  private:
    uint32_t m_quantum{4096}; ///< attribute Quantum
    std::array<uint32_t, kFabricClasses> m_weights{};
    std::array<int64_t, kFabricClasses> m_deficit{};
    uint8_t m_next{0}; ///< class the next visit starts at
};

} // namespace ns3

#endif
