// SPDX-License-Identifier: GPL-2.0-only
//
// The algebra as an ns-3 channel: N AnalyticNetDevices joined by an
// AnalyticModel. A message of n bytes handed to a device arrives at its peer
// after the model's time, delivered in the receiving node's context. What the
// algebra leaves out, contention, is the channel's ContentionPolicy:
//   none      the pure algebra: every message takes GetMessageTime(n), whatever
//             else is in flight (the no-contention assumption held).
//   endpoint  each device sends one message at a time and receives one at a
//             time (the model's EndpointTiming says for how long: LogGP's o, g
//             and G occupy the sender, o the receiver; alpha-beta's n / beta(n)
//             the NICs).
//   shared    links shared max-min fairly along routed paths (a static
//             contention correction: bandwidth shares, no dynamics), recomputed
//             whenever a message starts or ends. A message's bytes flow from its
//             send time at its max-min rate, capped by the model's beta(n); it
//             is delivered alpha(n) + sum of its links' latencies after its last
//             byte left. The channel knows no topology: SetRoute gives it, per
//             (src, dst), the links crossed (id, bandwidth, latency). A pair
//             without a route shares nothing and gets the model's time.
#ifndef HOCKNEY_ANALYTIC_CHANNEL_H
#define HOCKNEY_ANALYTIC_CHANNEL_H

#include "analytic-model.h"
#include "delivery-queue.h"
#include "max-min-fair.h"

#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

class AnalyticNetDevice;
class NodeContainer;

/// One message on an analytic channel, as the delivery callback and the traces see it.
struct AnalyticMessage
{
    uint64_t id = 0;     ///< unique per channel, returned by SendMessage, in send order from 0
    uint32_t src = 0;    ///< channel index of the sending device
    uint32_t dst = 0;    ///< channel index of the receiving device
    uint64_t bytes = 0;  ///< message size
    Time sendTime;       ///< when it was handed to the channel
    Time deliveryTime;   ///< when it was delivered (zero until then)
    Ptr<Packet> packet;  ///< the packet sent by AnalyticNetDevice::Send, or null
    uint16_t protocol = 0;
};

/// A link a routed message crosses (shared policy).
struct AnalyticLink
{
    uint32_t id = 0;    ///< the same id on two routes means the same link
    DataRate bandwidth; ///< capacity shared by the messages crossing it
    Time latency;       ///< added to the delivery of each message crossing it
};

class AnalyticChannel : public Channel
{
  public:
    enum ContentionPolicy
    {
        NONE,
        ENDPOINT,
        SHARED
    };

    using DeliveryCallback = std::function<void(const AnalyticMessage&)>;
    /// Trace signature of MessageDelivered: the message and the time it took.
    using DeliveredTracedCallback = void (*)(const AnalyticMessage& message, Time took);
    using SentTracedCallback = void (*)(const AnalyticMessage& message);

    static TypeId GetTypeId();
    AnalyticChannel();
    ~AnalyticChannel() override;

    // --- building ---

    /// Joins \p device; returns its channel index (0, 1, ... in attach order).
    /// Called by AnalyticNetDevice::Attach.
    uint32_t Attach(Ptr<AnalyticNetDevice> device);
    /// Creates one AnalyticNetDevice per node, adds it to the node and attaches
    /// it: device i is on nodes.Get(i). Returns the devices.
    std::vector<Ptr<AnalyticNetDevice>> Install(const NodeContainer& nodes);

    void SetModel(Ptr<AnalyticModel> model);
    Ptr<AnalyticModel> GetModel() const;
    void SetContentionPolicy(ContentionPolicy policy);
    ContentionPolicy GetContentionPolicy() const;

    /// The links a message from \p src to \p dst crosses (shared policy). A link
    /// id given again must come with the same bandwidth; throws InputError otherwise.
    void SetRoute(uint32_t src, uint32_t dst, const std::vector<AnalyticLink>& links);

    // --- sending ---

    /// Sends a message of \p bytes from device \p src to device \p dst now;
    /// returns its id. \p onDelivered (optional) is called at delivery, after
    /// the channel-wide delivery callback.
    uint64_t SendMessage(uint32_t src,
                         uint32_t dst,
                         uint64_t bytes,
                         DeliveryCallback onDelivered = nullptr,
                         Ptr<Packet> packet = nullptr,
                         uint16_t protocol = 0);

    /// Called at every delivery, in the receiving node's context.
    void SetDeliveryCallback(DeliveryCallback cb);

    uint64_t GetMessagesSent() const;
    uint64_t GetMessagesDelivered() const;
    uint64_t GetBytesDelivered() const;
    /// Messages in the shared policy's fluid model right now (for tests and progress).
    size_t GetActiveFlows() const;

    Ptr<AnalyticNetDevice> GetAnalyticDevice(uint32_t i) const;
    /// The channel index of the device with that address, or -1.
    int32_t FindDevice(const Address& address) const;

    // Channel
    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    struct EndpointState
    {
        Time cpuFree;   // sender CPU
        Time nicFree;   // next injection may start
        Time rxNicFree; // receiver NIC
        Time rxCpuFree; // receiver CPU
    };

    struct Route
    {
        std::vector<uint32_t> links; // internal link indices
        double latencySeconds = 0;   // sum of the links' latencies
    };

    struct Flow
    {
        AnalyticMessage msg;
        double remaining; // bytes
        double rate;      // bytes per second
        double cap;       // the model's beta(n)
        double latencySeconds;
        const Route* route; // null: shares no link
    };

    /// Queues \p msg for delivery at the absolute time \p deliveryTime.
    void ScheduleDelivery(AnalyticMessage msg, Time deliveryTime);
    /// Queues the message to \p dst already in \p slot for delivery at
    /// \p deliveryTime; \p now is the clock.
    void QueueSlot(uint32_t slot, uint32_t dst, Time deliveryTime, Time now);
    /// Schedules the event for the queue's next delivery; \p now is the clock.
    void ScheduleNextDelivery(Time now);
    void DeliverNext(uint64_t generation);

    /// The simulator event that calls DeliverNext. One is reused for every
    /// delivery instead of a MakeEvent allocation per message; a spare is taken
    /// while one is still queued (superseded) or running.
    class DeliveryEvent : public EventImpl
    {
      public:
        explicit DeliveryEvent(AnalyticChannel* channel)
            : m_channel(channel),
              m_generation(0)
        {
        }

        void SetGeneration(uint64_t generation)
        {
            m_generation = generation;
        }

      protected:
        void Notify() override
        {
            m_channel->DeliverNext(m_generation);
        }

      private:
        AnalyticChannel* m_channel;
        uint64_t m_generation;
    };

    DeliveryEvent* FreeDeliveryEvent();
    /// Delivers \p msg now (the simulator's clock \p now).
    void Deliver(AnalyticMessage& msg, Time now);
    void EndpointArrive(AnalyticMessage msg, EndpointTiming timing);
    void StartFlow(const AnalyticMessage& msg);
    void AdvanceFlows();
    void ComputeRates();
    void RescheduleCompletion();
    /// Rates are recomputed once per instant, after every flow that starts
    /// in it: an all-at-once AllToAll starts N(N-1) flows at one time, and a
    /// max-min recomputation per start made that quadratic.
    void RatesChanged();
    void RecomputeRates();
    void CompleteFlows();
    uint32_t ContextOf(uint32_t device) const;

    std::vector<Ptr<AnalyticNetDevice>> m_devices;
    mutable std::vector<uint32_t> m_contexts; // node id per device, filled on first use
    Ptr<AnalyticModel> m_model;
    ContentionPolicy m_policy;
    uint64_t m_nextId;
    uint64_t m_delivered;
    uint64_t m_bytesDelivered;
    DeliveryCallback m_deliveryCallback;
    std::unordered_map<uint64_t, DeliveryCallback> m_perMessage;

    // Deliveries wait in a heap ordered by (time, order queued) and the
    // channel keeps one simulator event, for the earliest, in its receiver's
    // context: the simulator's map then holds one entry per channel instead of
    // one per message in flight (8x faster at 1e5 messages in flight).
    DeliveryQueue m_pending;
    // Messages waiting for delivery, in chunks that never move: a message is
    // delivered from its slot by reference while the callbacks may send, and so
    // add slots.
    // A slot per cache line: a 56-byte message at a 56-byte stride straddled
    // two lines, both missing at 1e5 messages in flight.
    struct alignas(64) SlotCell
    {
        AnalyticMessage msg;
    };

    static constexpr uint32_t kSlotChunkBits = 10;
    std::vector<std::unique_ptr<SlotCell[]>> m_slotChunks;
    uint32_t m_slotCount;
    std::vector<uint32_t> m_freeSlots;

    AnalyticMessage& Slot(uint32_t slot)
    {
        return m_slotChunks[slot >> kSlotChunkBits][slot & ((1u << kSlotChunkBits) - 1)].msg;
    }

    uint32_t NewSlot();
    // ScheduleWithContext returns no EventId: a superseded event is recognised by
    // its generation and ignored.
    uint64_t m_deliveryGeneration;
    bool m_deliveryScheduled;
    int64_t m_deliveryEventTicks;
    std::vector<Ptr<DeliveryEvent>> m_deliveryEvents; // ours hold one reference each

    std::vector<EndpointState> m_endpoint;

    std::vector<double> m_linkBandwidth; // bytes per second, by internal index
    std::unordered_map<uint32_t, uint32_t> m_linkIndex; // link id -> internal index
    std::unordered_map<uint64_t, Route> m_routes;       // (src << 32 | dst)
    std::vector<Flow> m_flows;
    MaxMinFair m_maxMin; ///< the rates of m_flows, with its scratch space
    std::vector<const std::vector<uint32_t>*> m_flowRoutes; ///< m_flows' links, for m_maxMin
    std::vector<double> m_flowCaps;                          ///< m_flows' caps, for m_maxMin
    std::vector<double> m_flowRates;                         ///< m_maxMin's answer
    Time m_lastAdvance;
    EventId m_completion;
    EventId m_recompute; ///< pending RecomputeRates of this instant

    TracedCallback<const AnalyticMessage&> m_sentTrace;
    TracedCallback<const AnalyticMessage&, Time> m_deliveredTrace;
};

} // namespace ns3

#endif
