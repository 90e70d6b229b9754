// SPDX-License-Identifier: GPL-2.0-only
//
// IEEE 802.1Qbb priority flow control. Receiver side: when the local switch's
// ingress accounting for (this port, class) crosses XOFF, the port sends a
// pause frame for that class with PauseQuanta x 512 bit times, re-sends it
// before it expires while the class stays congested, and sends a zero-quanta
// frame (XON) when the accounting falls to the resume level. Sender side: a
// pause frame stops the class for quanta x 512 bit times at the link rate,
// counted from the end of the frame's reception; a packet already being
// serialized is not interrupted (the peer's headroom absorbs it).
#ifndef HOCKNEY_PFC_FLOW_CONTROL_H
#define HOCKNEY_PFC_FLOW_CONTROL_H

#include "fabric-flow-control.h"

#include "ns3/event-id.h"

#include <array>

namespace ns3
{

class FabricPfcFlowControl : public FabricFlowControl
{
  public:
    static TypeId GetTypeId();
    FabricPfcFlowControl();
    ~FabricPfcFlowControl() override;

    /// LosslessClasses from the link parameters.
    void SetParameters(const FabricFlowControlParameters& params) override;
    /// Lossless accounting (reserve + shared + headroom, XOFF/XON) for the
    /// LosslessClasses; headroom 0 = FabricSwitch::PfcHeadroomBytes of this link.
    void AddSwitchIngress(FabricSwitchBuffer& buffer, uint32_t port,
                          uint64_t headroomBytes) const override;
    bool IsLossless(uint8_t cls) const override;
    uint64_t GetSendBudget(uint8_t cls) const override
    {
        return IsPaused(cls) ? 0 : kUnlimited;
    }
    void ReceiveControl(const FabricControlFrame& frame) override;
    void IngressCongested(uint8_t cls) override;
    void IngressUncongested(uint8_t cls) override;
    bool HasControlFrame() const override { return m_pendingMask != 0; }
    bool TakeControlFrame(FabricControlFrame& frame) override;

    /// Pause duration of `quanta` at the owning port's rate (512 bit times each).
    Time QuantaToTime(uint16_t quanta) const;
    /// True while the peer holds class cls paused (sender side).
    bool IsPaused(uint8_t cls) const { return (m_pausedMask >> cls) & 1u; }
    /// True while this port asks the peer to hold class cls (receiver side).
    bool IsAsserting(uint8_t cls) const { return (m_assertMask >> cls) & 1u; }

  private:
    void DoDispose() override;
    void PauseExpired(uint8_t cls);
    void Refresh(uint8_t cls);

    uint8_t m_losslessMask{0xFF};  ///< attribute LosslessClasses
    uint16_t m_pauseQuanta{0xFFFF}; ///< attribute PauseQuanta
    double m_refreshFraction{0.5};  ///< attribute RefreshFraction

    // receiver side
    uint8_t m_assertMask{0};  ///< classes held paused at the peer
    uint8_t m_pendingMask{0}; ///< classes whose state must be (re)sent
    std::array<EventId, kFabricClasses> m_refresh;
    // sender side
    uint8_t m_pausedMask{0}; ///< classes the peer holds paused
    std::array<EventId, kFabricClasses> m_expire;
};

} // namespace ns3

#endif
