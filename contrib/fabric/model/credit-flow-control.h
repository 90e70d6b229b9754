// SPDX-License-Identifier: GPL-2.0-only
//
// Credit-based link-level flow control as InfiniBand (per-VL flow-control
// packets with cumulative credit limits) and NVLink do it: the sender starts
// with credits equal to the receiver's buffer for each class (PeerBufferBytes)
// and sends a packet only when its on-wire bytes fit the remaining credit; the
// receiver returns credits as its buffer drains, in cumulative credit-update
// frames that merge while one is waiting to be sent. No packet is ever
// dropped on such a link, by construction.
#ifndef HOCKNEY_CREDIT_FLOW_CONTROL_H
#define HOCKNEY_CREDIT_FLOW_CONTROL_H

#include "fabric-flow-control.h"

#include <array>
#include <vector>

namespace ns3
{

class FabricCreditFlowControl : public FabricFlowControl
{
  public:
    static TypeId GetTypeId();
    FabricCreditFlowControl();
    ~FabricCreditFlowControl() override;

    /// PeerBufferBytes and Piggyback from the link parameters.
    void SetParameters(const FabricFlowControlParameters& params) override;
    /// Always admitted: the port's space is the credit the peer was granted.
    void AddSwitchIngress(FabricSwitchBuffer& buffer, uint32_t port,
                          uint64_t headroomBytes) const override;
    bool IsLossless(uint8_t cls) const override { return true; }
    uint64_t GetSendBudget(uint8_t cls) const override;
    void NotifyTransmit(uint8_t cls, uint32_t wireBytes) override;
    void ReceiveControl(const FabricControlFrame& frame) override;
    /// Holds the update until \p at: GetSendBudget counts it from then on.
    bool ReceiveControlAt(const FabricControlFrame& frame, const FabricFoldedArrival& at) override;
    uint64_t GetFoldedArrived() const override;
    void IngressFreed(uint8_t cls, uint32_t wireBytes) override;
    bool CountsIngressFreed() const override { return true; }
    /// Link up: the cumulative freed counts go out again (updates sent while
    /// the link was down were lost; a packet lost in flight was freed by
    /// FabricNetDevice::LoseOnLink). Link down: an update held by
    /// ReceiveControlAt and not yet due is lost, as it would have been on
    /// the wire.
    void NotifyLinkState(bool up) override;
    bool HasControlFrame() const override { return m_pending; }
    bool CanPiggyback() const override { return m_piggyback; }
    bool TakeControlFrame(FabricControlFrame& frame) override;

    /// Receiver buffer per class that the peer grants (attribute PeerBufferBytes).
    uint64_t GetPeerBufferBytes() const { return m_peerBuffer; }
    /// Sender: on-wire bytes of class \p cls sent, the credit spent.
    uint64_t GetCreditSpent(uint8_t cls) const { return m_sent[cls]; }
    /// Receiver: on-wire bytes of class \p cls freed from this port's
    /// ingress, the credit returned or to return. On a drained link it
    /// equals the peer's GetCreditSpent (CheckFabricConservation).
    uint64_t GetCreditFreed(uint8_t cls) const { return m_freed[cls]; }

  private:
    uint64_t m_peerBuffer{65536};     ///< attribute PeerBufferBytes (per class)
    uint32_t m_updateThreshold{8192}; ///< attribute UpdateThresholdBytes
    bool m_piggyback{true};           ///< attribute Piggyback
    std::array<uint64_t, kFabricClasses> m_sent{};       ///< sender: bytes sent
    std::array<uint64_t, kFabricClasses> m_peerFreed{};  ///< sender: latest cumulative freed
    /// Sender: an update received ahead of its arrival (ReceiveControlAt),
    /// counted from `at` on.
    struct HeldUpdate
    {
        FabricFoldedArrival at;
        std::array<uint64_t, kFabricClasses> freed;
    };
    /// Held updates in arrival order. Usually none or one; several when
    /// updates on the wire are folded while the port is busy past all of
    /// them (FabricNetDevice::FoldLateControl).
    std::vector<HeldUpdate> m_held;
    uint64_t m_heldSettled{0}; ///< held updates that arrived and left m_held
    /// Folds the held updates that are due into m_peerFreed.
    void SettleLate();
    std::array<uint64_t, kFabricClasses> m_freed{};      ///< receiver: cumulative freed
    std::array<uint64_t, kFabricClasses> m_reported{};   ///< receiver: last value sent
    bool m_pending{false};
};

} // namespace ns3

#endif
