// SPDX-License-Identifier: GPL-2.0-only
//
// Link-level flow control as a small strategy a FabricNetDevice consults
// before it sends (as ns-3 TCP consults TcpCongestionOps). One transmit state
// machine serves every port kind; the strategy says how many bytes a class may
// send now, consumes the peer's link-local frames (pause, credit) and produces
// its own when the local ingress accounting asks for it.
//
//   sender side   : GetSendBudget(c), NotifyTransmit(c, bytes), ReceiveControl(frame)
//   receiver side : IngressCongested(c) / IngressUncongested(c)  (PFC XOFF / XON)
//                   IngressFreed(c, bytes)                         (credit return)
//                   HasControlFrame() / TakeControlFrame()         (polled by the port)
//   set-up        : SetParameters(link parameters), AddSwitchIngress(buffer, ...)
//
// What differs between the schemes is behind these virtual methods, so no
// caller asks a strategy which scheme it is.
//
// All byte counts are on-wire bytes of the link (see fabric-header.h).
#ifndef HOCKNEY_FABRIC_FLOW_CONTROL_H
#define HOCKNEY_FABRIC_FLOW_CONTROL_H

#include "fabric-header.h"
#include "tie-keyed-events.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class FabricSwitchBuffer;

/// Link parameters a strategy takes from the link configuration; each
/// strategy reads the fields that concern it and ignores the others.
struct FabricFlowControlParameters
{
    uint64_t creditBufferBytes{65536}; ///< credit: PeerBufferBytes
    bool creditPiggyback{true};        ///< credit: Piggyback
    uint8_t losslessClasses{0xFF};     ///< PFC: LosslessClasses
};

/**
 * When a link-local frame whose arrival event was not run (folded:
 * FabricNetDevice::OfferLateControl) arrives: at \p at, in the place its
 * event would have had, tie key \p tie.
 */
struct FabricFoldedArrival
{
    Time at;
    uint64_t tie{KeyedEvent::kNoKey};

    /// Arrived for the event running now: before now, or now in an event
    /// that runs after the frame's would have (with tie keys, keyed events
    /// of a picosecond run first, in key order, and unkeyed ones after
    /// them; without, a frame due now counts as arrived).
    bool Arrived(Time now) const
    {
        return at < now || (at == now && (!tie_keys::g_ordered || tie < tie_keys::g_running));
    }
    /// Lost if its link goes down now: not arrived before the fault's
    /// event (with tie keys as Arrived; without, the fault's event,
    /// scheduled at set-up, runs before a frame due at the same instant).
    bool LostWithLinkDownNow(Time now) const
    {
        return !(at < now || (at == now && tie_keys::g_ordered && tie < tie_keys::g_running));
    }
    /// Arrival order: time, then tie key.
    bool After(const FabricFoldedArrival& o) const { return at > o.at || (at == o.at && tie > o.tie); }
};

/// Inserts \p x into \p v, kept in arrival order (`arrival(element)`: its
/// FabricFoldedArrival); usually at the end.
template <typename T, typename Arrival>
void
InsertInArrivalOrder(std::vector<T>& v, T&& x, Arrival arrival)
{
    auto pos = v.end();
    while (pos != v.begin() && arrival(*std::prev(pos)).After(arrival(x)))
    {
        --pos;
    }
    v.insert(pos, std::move(x));
}

/// Flow-control scheme of a link (both ends use the same one).
enum class FabricFlowControlMode
{
    NONE,  ///< lossy: tail drop at the switch buffer, counted
    PFC,   ///< IEEE 802.1Qbb priority flow control (RoCE)
    CREDIT ///< credit-based link-level flow control (InfiniBand, NVLink)
};

/// "none" / "pfc" / "credit".
std::string ToString(FabricFlowControlMode m);
/// Parses "none", "pfc", "credit"; throws std::invalid_argument
/// ("flow-control: expected none, pfc or credit") otherwise.
FabricFlowControlMode ParseFabricFlowControlMode(const std::string& s);

/**
 * \brief Base of the flow-control strategies; on its own it is "none":
 * never blocks, produces no frames, is not lossless.
 */
class FabricFlowControl : public Object
{
  public:
    static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();

    static TypeId GetTypeId();
    ~FabricFlowControl() override;

    /// Called once by the device that owns the strategy.
    virtual void Attach(FabricNetDevice* device);
    FabricNetDevice* GetDevice() const { return m_device; }

    /// Applies the fields of \p params that concern this scheme (none here).
    virtual void SetParameters(const FabricFlowControlParameters& params) {}
    /// Registers the owning port, switch port `port`, as an ingress of the
    /// switch buffer, accounted as this scheme needs (here: lossy, reserve +
    /// shared, then drop). \p headroomBytes: the switch's HeadroomBytes
    /// attribute (0 = the scheme's default).
    virtual void AddSwitchIngress(FabricSwitchBuffer& buffer, uint32_t port,
                                  uint64_t headroomBytes) const;
    /// True when packets of class cls are never dropped on this link.
    virtual bool IsLossless(uint8_t cls) const { return false; }

    /// On-wire bytes class cls may start sending now; 0 = blocked (paused or
    /// out of credits), kUnlimited = not limited.
    virtual uint64_t GetSendBudget(uint8_t cls) const { return kUnlimited; }
    /// A data packet of wireBytes in class cls started transmission.
    virtual void NotifyTransmit(uint8_t cls, uint32_t wireBytes) {}
    /// A link-local frame arrived from the peer.
    virtual void ReceiveControl(const FabricControlFrame& frame) {}
    /**
     * The peer's frame \p frame arrives at \p at (after now) and the port has
     * shown that its arrival there would change nothing but this strategy's
     * state (FabricNetDevice::OfferLateControl). A strategy that accepts it
     * acts from \p at on as if ReceiveControl(frame) had run then, with no
     * event; false (the default): not supported, the frame keeps its event.
     */
    virtual bool ReceiveControlAt(const FabricControlFrame& frame, const FabricFoldedArrival& at) { return false; }
    /// Frames taken by ReceiveControlAt that have arrived by now (the port's
    /// controlRx counts them from their arrival on; none lost with a link).
    virtual uint64_t GetFoldedArrived() const { return 0; }

    /// Local ingress accounting of class cls on this port crossed XOFF.
    virtual void IngressCongested(uint8_t cls) {}
    /// Local ingress accounting of class cls on this port fell back to XON.
    virtual void IngressUncongested(uint8_t cls) {}
    /// wireBytes of class cls that arrived on this port left the local buffer.
    virtual void IngressFreed(uint8_t cls, uint32_t wireBytes) {}
    /// True if IngressFreed does something (a credit return): an endpoint
    /// port then takes no arrival without its event (FabricNetDevice::
    /// FoldArrival), since the return is sent at the arrival.
    virtual bool CountsIngressFreed() const { return false; }
    /// The port's link went down or came up again (fault link_down): the
    /// scheme drops what a dead peer can no longer change (pauses it sent)
    /// and re-announces its own state at link up (as a link's flow control
    /// is re-initialised when it retrains).
    virtual void NotifyLinkState(bool up) {}

    /// True while a link-local frame waits to be sent (strict priority on the port).
    virtual bool HasControlFrame() const { return false; }
    /// True if a pending frame may ride on an outgoing data packet at no wire
    /// cost (NVLink credits travel in flit headers); it is then delivered with
    /// that packet's last bit (a network transfer unit's first link packet:
    /// FabricNetDevice::StartTransmission). A standalone frame is sent only when no data is
    /// ready. PFC pause frames never piggyback.
    virtual bool CanPiggyback() const { return false; }
    /// Fills \p frame with the pending frame, built from the current state
    /// (so frames merge), and clears the pending flag; false if none.
    virtual bool TakeControlFrame(FabricControlFrame& frame) { return false; }

  protected:
    void DoDispose() override;
    FabricNetDevice* m_device{nullptr}; ///< owner; same node, never null after Attach
};

/**
 * \brief Creates the strategy for a mode with its default attributes.
 */
Ptr<FabricFlowControl> CreateFabricFlowControl(FabricFlowControlMode mode);

} // namespace ns3

#endif
