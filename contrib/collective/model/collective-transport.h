// SPDX-License-Identifier: GPL-2.0-only
//
// What a collective needs from a network, and nothing more: send n bytes from
// rank i to rank j now, and say when the last byte has arrived. The analytic
// channel, the packet fabric's RDMA endpoints and the tests' ideal links each
// implement it; none of them knows what a collective is, and the executor that
// drives them knows no network: one schedule runs unchanged on every backend.
#ifndef HOCKNEY_COLLECTIVE_TRANSPORT_H
#define HOCKNEY_COLLECTIVE_TRANSPORT_H

#include "ns3/object.h"

#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{

class CollectiveTransport : public Object
{
  public:
    /// Called once, at the delivery of the message's last byte.
    using DeliveryCallback = std::function<void()>;

    static TypeId GetTypeId();
    ~CollectiveTransport() override;

    /// Sends \p bytes from rank \p src to rank \p dst at the current simulation
    /// time; \p onDelivered runs when the receiver has all of them.
    virtual void Send(uint32_t src, uint32_t dst, uint64_t bytes, DeliveryCallback onDelivered) = 0;
    /// Ranks this transport connects (0 .. GetRanks()-1).
    virtual uint32_t GetRanks() const = 0;
    /// Short name for rows and messages ("analytic", "packet", ...).
    virtual std::string GetTransportName() const = 0;
};

} // namespace ns3

#endif
