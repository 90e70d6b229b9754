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
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/// An in-switch reduction (NVLS) as the executor hands it over: the group's
/// id in the schedule, the ranks that send a copy up, the ranks the sum goes
/// down to, and how many ops (src, dst pairs) make it up.
struct SwitchGroup
{
    uint32_t id = 0;
    std::vector<uint32_t> sources;   ///< distinct, ascending
    std::vector<uint32_t> receivers; ///< distinct, ascending
    uint32_t ops = 0;
};

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
    /// One op of in-switch reduction \p group (ScheduleOp::group): \p src
    /// sends its \p bytes up, the switch adds the copies of every source of
    /// the group, and \p onDelivered runs when \p dst holds the sum.
    /// A transport without a switch that reduces (the analytic channel, the
    /// tests' ideal links) prices it, by default, as what the links carry:
    /// the op's bytes from src to dst (up src's link, down dst's: with one
    /// op per source and per receiver, every link carries the bytes once,
    /// as through the switch) and the sum ready once every op of the group
    /// has arrived. A group's id is reused only after it completed.
    virtual void SendThroughSwitch(uint32_t src,
                                   uint32_t dst,
                                   uint64_t bytes,
                                   const SwitchGroup& group,
                                   DeliveryCallback onDelivered);
    /// Send() of a message the receiver can name by \p tag (unique per
    /// sender): a partitioned (MPI) run's receiving rank registers its
    /// callback with ExpectTagged, the sending rank passes an empty one.
    /// Default: Send(), the tag unused (one process).
    virtual void SendTagged(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t tag, DeliveryCallback onDelivered);
    /// The receiving side of SendTagged when the sender runs on another MPI
    /// rank: \p onDelivered runs when message \p tag of \p src arrives at
    /// \p dst. Default: throws std::logic_error (a transport of one process).
    virtual void ExpectTagged(uint32_t src, uint32_t dst, uint32_t tag, DeliveryCallback onDelivered);
    /// Sets up the connection from \p src to \p dst before any message is
    /// sent. The executor calls it for every message of a schedule, in the
    /// schedule's order, before the first op starts: a transport that numbers
    /// its connections (the packet fabric's queue pairs, which its ECMP hash
    /// and its NICs' round robin read) then numbers them by the schedule, not
    /// by which message happened to be sent first, so that the numbering is
    /// the same however the run is split over MPI ranks. Default: nothing.
    virtual void Connect(uint32_t src, uint32_t dst);
    /// Ranks this transport connects (0 .. GetRanks()-1).
    virtual uint32_t GetRanks() const = 0;
    /// Short name for rows and messages ("analytic", "packet", ...).
    virtual std::string GetTransportName() const = 0;

  private:
    /// Per group in progress (the default SendThroughSwitch): ops arrived,
    /// and the callbacks waiting for the sum.
    struct PendingGroup
    {
        uint32_t arrived = 0;
        std::vector<DeliveryCallback> waiting;
    };

    std::map<uint32_t, PendingGroup> m_switchGroups;
};

} // namespace ns3

#endif
