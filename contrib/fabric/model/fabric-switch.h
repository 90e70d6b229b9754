// SPDX-License-Identifier: GPL-2.0-only
//
// A switch: a Node whose FabricNetDevice ports feed one forwarding engine.
// A packet received on port i (at its last bit, or at its header in
// cut-through mode) is looked up by destination in a precomputed table
// (dst -> equal-cost egress ports), one port chosen by a seedable hash of
// (src, dst, flow id, switch id), charged to the shared buffer's
// (ingress port, class) account (which may XOFF the ingress link or drop), and
// queued at the egress, where it may start ForwardingLatency later. With
// IngressPipeline the latency is spent before all of this instead, as an
// ingress pipeline (parser, lookup) ahead of the buffer: the packet is taken
// in at its arrival + ForwardingLatency (the channel delivers it then) and an
// idle egress starts it in that event. The buffer is released when the packet starts leaving; that drives credit
// returns on the ingress link and XON: of the packet's own (ingress port,
// class), and of every other paused one, whose threshold rose if the packet
// left the shared pool.
#ifndef HOCKNEY_FABRIC_SWITCH_H
#define HOCKNEY_FABRIC_SWITCH_H

#include "fabric-header.h"
#include "fabric-switch-reduction.h"
#include "switch-buffer.h"

#include "ns3/data-rate.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

class FabricNetDevice;

class FabricSwitch : public Node
{
  public:
    /// Where the ForwardingLatency is spent (attribute IngressPipeline).
    enum IngressPipelineMode
    {
        /// At the egress: the packet is charged, checked (PFC, ECN, INT) and
        /// queued at its arrival and may start ForwardingLatency later.
        PIPELINE_NONE,
        /// Before the buffer on ports with credit flow control (NVLink,
        /// InfiniBand, PCIe): admission there is unconditional, so taking
        /// the packet in ForwardingLatency later changes no decision.
        PIPELINE_CREDIT_PORTS,
        /// Before the buffer on every port: PFC's XOFF, ECN/RED and INT see
        /// the packet ForwardingLatency after its arrival (a model choice).
        PIPELINE_ALL_PORTS
    };

    static TypeId GetTypeId();
    FabricSwitch();
    /// A switch owned by MPI rank \p systemId (ns-3's distributed simulator).
    explicit FabricSwitch(uint32_t systemId);
    ~FabricSwitch() override;

    /// Adds `device` (already attached to its channel, with its flow control
    /// set) as the next port; returns its port index (0, 1, ...). The buffer
    /// account is LOSSLESS for PFC, CREDIT for credit links, LOSSY otherwise;
    /// headroom = HeadroomBytes if nonzero, else PfcHeadroomBytes of the
    /// link (its rate and delay, the larger max frame of its two ends, the
    /// port's control frame). Egress ECN marking is set up from the link rate
    /// when EcnEnabled.
    uint32_t AddPort(Ptr<FabricNetDevice> device);

    /// PFC headroom of a port: the bytes that can still arrive after the
    /// switch decides to pause (the delay model of IEEE 802.1Qbb-2011):
    ///   2 x rate x delay       the bytes on the wire towards the switch, and
    ///                          those sent while the pause propagates back;
    ///   + maxFrame + ctlFrame  the pause waits behind a max frame leaving
    ///                          the switch towards the sender, then is sent;
    ///   + maxFrame             the sender finishes the frame it has started;
    ///   + maxFrame             this model charges a packet whole at its last
    ///                          bit (store-and-forward), so the packet whose
    ///                          arrival trips XOFF is itself in the headroom.
    /// The sender reacts at the pause frame's last bit (no extra response
    /// time). 100 Gb/s, 1 us, 4166 B frames, 84 B pause: 37 582 B, which is
    /// the HPCC simulator's 3 x rate x delay rule (third.cc; 37 500 B) at that point; on 10 ns
    /// links the frames dominate (12 832 B instead of 375 B).
    static uint64_t PfcHeadroomBytes(DataRate rate, Time delay, uint32_t maxFrameWireBytes,
                                     uint32_t controlFrameWireBytes);
    uint32_t GetNPorts() const { return m_ports.size(); }
    Ptr<FabricNetDevice> GetPort(uint32_t index) const;

    /// Route to endpoint `dst` over the equal-cost egress `ports` (replaces a
    /// previous route). Throws std::invalid_argument for an empty list or an
    /// unknown port.
    void AddRoute(uint32_t dst, const std::vector<uint32_t>& ports);
    /// Egress candidates for `dst` (empty if no route), a copy.
    std::vector<uint32_t> GetRoute(uint32_t dst) const;
    /// The egress port ECMP picks for this header (UINT32_MAX if no route).
    uint32_t SelectEgress(const FabricHeaderFields& header) const;
    void ClearRoutes();

    Ptr<FabricSwitchBuffer> GetBuffer() const { return m_buffer; }
    Time GetForwardingLatency() const { return m_latency; }
    bool IsCutThrough() const { return m_cutThrough; }
    IngressPipelineMode GetIngressPipeline() const { return m_pipeline; }
    /// Whether a packet arriving on `inPort` is taken in after the
    /// ForwardingLatency (IngressPipeline and the port's flow control).
    bool PipelinesIngress(uint32_t inPort) const
    {
        return m_latency.IsStrictlyPositive() &&
               (m_pipeline == PIPELINE_ALL_PORTS ||
                (m_pipeline == PIPELINE_CREDIT_PORTS &&
                 m_buffer->GetPortMode(inPort) == FabricSwitchBuffer::CREDIT));
    }
    /// Appends HPCC's INT hop to packets that request it (IntStamping).
    bool StampsInt() const { return m_intStamping; }

    /// Fixes the random streams of every port's ECN marker; returns the count used.
    int64_t AssignStreams(int64_t stream);

    // ---- called by this switch's ports ----------------------------------
    /// A DATA packet that arrived on port `inPort` at `arrival` is taken in
    /// at `now` (Simulator::Now()): `now` == `arrival`, or `arrival` +
    /// ForwardingLatency through the ingress pipeline (PipelinesIngress).
    /// Early take-in (TakesInEarly): \p now < \p arrival, and \p tie is
    /// the tie key its arrival event would have had. Returns the egress
    /// port the packet was queued at (null: dropped, or an in-switch
    /// reduction's).
    FabricNetDevice* Receive(uint32_t inPort, Ptr<Packet> packet, const FabricHeaderFields& header,
                             uint32_t inWireBytes, Time rxEnd, Time arrival, Time now,
                             uint64_t tie = ~uint64_t(0));
    /// Whether a packet to port `inPort` is taken in when it is sent
    /// (FabricNetDevice::ReceiveEarly): a credit port whose ForwardingLatency
    /// is spent in the ingress pipeline (IngressPipeline CreditPorts, the
    /// default, or AllPorts), unless SetEarlyTakeIn(false).
    bool TakesInEarly(uint32_t inPort) const
    {
        return m_earlyTakeIn && m_pipeline != PIPELINE_NONE && m_latency.IsStrictlyPositive() &&
               m_buffer->GetPortMode(inPort) == FabricSwitchBuffer::CREDIT;
    }
    /// Off: packets to credit ports are taken in at their arrival and
    /// started ForwardingLatency later (two events, as IngressPipeline
    /// None). The fault injector turns it off: a packet taken in early was
    /// routed when it was sent, and a fault may reroute before it arrives.
    void SetEarlyTakeIn(bool on) { m_earlyTakeIn = on; }
    /// Every port's TakeInArrived as of now (for counters read mid-run).
    void SettleArrived() const;
    /// The link of port `inPort` went down: early-taken-in packets from it
    /// that had not arrived are lost (FabricNetDevice::LoseIncoming).
    void LoseEarly(uint32_t inPort, Time now);
    /// Releases the buffer of such a lost packet (no credit: the port's
    /// LoseOnLink returns it at the packet's arrival).
    void ReleaseEarly(uint32_t inPort, uint8_t cls, uint32_t inWireBytes)
    {
        m_buffer->Release(inPort, cls, inWireBytes);
    }
    /// A forwarded packet from `inPort` started leaving: release its buffer.
    void NotifyDequeued(uint32_t inPort, uint8_t cls, uint32_t inWireBytes);

    /// In-switch reduction (NVLS, fabric-switch-reduction.h): packets addressed
    /// to a group go to \p reduction instead of the route table (null: none).
    void SetReduction(Ptr<FabricSwitchReduction> reduction);
    Ptr<FabricSwitchReduction> GetReduction() const { return m_reduction; }

    /// Packets dropped by ingress admission or for lack of a route.
    uint64_t GetDrops() const { return m_drops; }

  protected:
    void DoDispose() override;

  private:
    /// Asserts XOFF for (port, cls) and remembers the pair as paused.
    void Pause(uint32_t port, uint8_t cls);
    /// Sends XON for every paused pair whose XON condition now holds.
    void ResumeWhereXon();

    std::vector<Ptr<FabricNetDevice>> m_ports;
    // The route table, flat: a forwarded packet reads one 4-byte entry of
    // m_routes and the port list it points to in m_routeLists, instead of a
    // vector header and a separately allocated port list per destination
    // (two scattered cache lines a hop, 56+ bytes a destination). Port
    // lists are stored once however many destinations share them (a
    // fat-tree switch has a handful: each down port alone, the up ports).
    /// Endpoint ids below this index a flat table (one lookup per hop);
    /// larger, sparse ids go to a hash map.
    static constexpr uint32_t kDenseRouteLimit = 1u << 20;
    /// By dst id (ids < 2^20): 0 = no route, else 1 + the offset in
    /// m_routeLists of the list's length, followed by its ports.
    std::vector<uint32_t> m_routes;
    std::vector<uint32_t> m_routeLists; ///< [n, port_1 .. port_n] per distinct list
    std::map<std::vector<uint32_t>, uint32_t> m_routeListIndex; ///< list -> its m_routes entry (set-up only)
    std::unordered_map<uint32_t, uint32_t> m_sparseRoutes; ///< larger ids -> entry as in m_routes
    /// The entry of `dst` (0: no route).
    uint32_t RouteEntry(uint32_t dst) const
    {
        if (dst < m_routes.size())
        {
            return m_routes[dst];
        }
        return dst < kDenseRouteLimit ? 0 : SparseRouteEntry(dst);
    }
    uint32_t SparseRouteEntry(uint32_t dst) const;
    Ptr<FabricSwitchBuffer> m_buffer;
    /// The node id's hash for ECMP (SelectEgress), kept: Node::GetId tests
    /// a log component per call, once per forwarded packet.
    const uint64_t m_idMix;
    Ptr<FabricSwitchReduction> m_reduction;
    Time m_latency;
    bool m_cutThrough{false};
    bool m_pipelinedUnits{true}; ///< attribute PipelinedUnits
    IngressPipelineMode m_pipeline{PIPELINE_CREDIT_PORTS};
    bool m_earlyTakeIn{true};
    bool m_intStamping{true};
    bool m_ecnEnabled{true};
    uint32_t m_seed{0};
    uint64_t m_headroomOverride{0};
    uint64_t m_drops{0};
    /// (ingress port, class) pairs this switch holds paused, and per port the
    /// same as a class mask (membership in O(1)).
    std::vector<std::pair<uint32_t, uint8_t>> m_paused;
    std::vector<uint8_t> m_pausedMask;
    TracedCallback<Ptr<const Packet>, uint32_t> m_dropTrace;
};

} // namespace ns3

#endif
