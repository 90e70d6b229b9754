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
//
// PFC watchdog (storm detection, as switches' PFC watchdogs do, e.g.
// SONiC's pfcwd): on the sender side, a class the peer has held paused
// without a break for StormDetectionTime, seen when a pause frame extends
// it, is a PFC storm from the peer (a NIC that keeps pausing). The
// PfcStorm trace reports it (FabricWatchdog names the peer); with
// StormAction Forward the port then ignores the peer's pauses for that
// class (PFC off on the queue, its packets flow) until StormRestorationTime
// passes without a pause frame of that class.
#ifndef HOCKNEY_PFC_FLOW_CONTROL_H
#define HOCKNEY_PFC_FLOW_CONTROL_H

#include "fabric-flow-control.h"

#include "ns3/event-id.h"
#include "ns3/traced-callback.h"

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
    /// True while the watchdog ignores the peer's pauses of class cls (storm mitigated).
    bool IsIgnoringPauses(uint8_t cls) const { return (m_ignoreMask >> cls) & 1u; }
    /// Link down: the classes the dead peer paused resume (their packets
    /// drain into the void); link up: the classes this port pauses are
    /// announced again.
    void NotifyLinkState(bool up) override;

    /// What the storm watchdog does once it detects a storm.
    enum StormAction
    {
        STORM_ALERT,  ///< report only (the class stays paused)
        STORM_FORWARD ///< ignore the peer's pauses of the class until restoration
    };
    /// PfcStorm trace: (class, how long it had been paused, true at detection /
    /// false at restoration).
    using StormCallback = void (*)(uint8_t cls, Time pausedFor, bool detected);

  private:
    void DoDispose() override;
    void PauseExpired(uint8_t cls);
    void Refresh(uint8_t cls);
    /// Class cls has been paused for StormDetectionTime: a storm.
    void DetectStorm(uint8_t cls);
    /// Restores PFC on cls if no pause arrived for StormRestorationTime.
    void CheckRestoration(uint8_t cls);
    /// STORM_ALERT: the paused class resumed, which ends its storm.
    void EndAlertedStorm(uint8_t cls);

    // The masks a hop reads (HasControlFrame, GetSendBudget) first: with
    // the vtable pointer, one cache line of a port's flow control.
    uint8_t m_pendingMask{0}; ///< receiver side: classes whose state must be (re)sent
    uint8_t m_pausedMask{0};  ///< sender side: classes the peer holds paused
    uint8_t m_assertMask{0};  ///< receiver side: classes held paused at the peer
    uint8_t m_losslessMask{0xFF};  ///< attribute LosslessClasses
    uint16_t m_pauseQuanta{0xFFFF}; ///< attribute PauseQuanta
    double m_refreshFraction{0.5};  ///< attribute RefreshFraction

    std::array<EventId, kFabricClasses> m_refresh; ///< receiver side
    std::array<EventId, kFabricClasses> m_expire;  ///< sender side
    // storm watchdog (sender side)
    Time m_stormDetection;   ///< attribute StormDetectionTime
    Time m_stormRestoration; ///< attribute StormRestorationTime
    StormAction m_stormAction{STORM_FORWARD}; ///< attribute StormAction
    std::array<Time, kFabricClasses> m_pausedSince{}; ///< start of the current pause per class
    uint8_t m_ignoreMask{0};                          ///< classes whose pauses are ignored
    uint8_t m_stormMask{0};                           ///< classes in a detected storm
    std::array<Time, kFabricClasses> m_lastStormPause{}; ///< last pause frame during a storm
    std::array<EventId, kFabricClasses> m_restore;
    TracedCallback<uint8_t, Time, bool> m_stormTrace;
};

} // namespace ns3

#endif
