// SPDX-License-Identifier: GPL-2.0-only
//
// Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion
// Control in the Datacenter", SIGCOMM 2020): a window of packets (cwnd, may
// be fractional) driven by the round-trip delay the NIC measures against a
// target delay. Algorithm 1 of the paper: additive increase of ai packets per
// RTT while the delay is below the target, multiplicative decrease by
// max(1 - beta (delay - target) / delay, 1 - max_mdf) above it, at most once
// per RTT; a (1 - max_mdf) cut on a NAK (fast recovery) and on a retransmit
// timeout, min_cwnd after RetxResetThreshold timeouts in a row; below one
// packet the window becomes pacing, one packet per rtt / cwnd. The target
// (the paper's scaling of the fabric target delay) is base_target + hops x h + a flow-scaling term that grows as
// the window shrinks, max(0, min(alpha / sqrt(cwnd) + beta', fs_range)) with
// alpha = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd)) and
// beta' = -alpha / sqrt(fs_max_cwnd).
#ifndef HOCKNEY_SWIFT_H
#define HOCKNEY_SWIFT_H

#include "rdma-congestion-control.h"

#include "ns3/traced-value.h"

namespace ns3
{

class Swift : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    Swift();

    std::string GetName() const override { return "Swift"; }
    Ptr<RdmaCongestionControl> Fork() const override;
    /// FlowStart's clock (the last decrease) is read only after a decrease.
    /// Never fresh once started (the window moves with every ACK): kept.
    bool StartsLazily() const override { return true; }

    /// \throws std::invalid_argument if FsMinCwnd >= FsMaxCwnd or MinCwnd > MaxCwnd.
    void FlowStart(Ptr<RdmaRateState> state) override;
    void BytesSent(Ptr<RdmaRateState> state, uint32_t bytes) override;
    void AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample) override;
    /// The retransmit timer (RetransmitTimeout without progress) expired.
    void Timeout(Ptr<RdmaRateState> state) override;

    /// The fabric target delay for a window of `cwnd` packets on a path of
    /// `hops` switch hops (the paper's hop- and flow-based scaling).
    Time TargetDelay(double cwnd, uint32_t hops) const;
    /// The window in packets (of PacketBytes).
    double GetCwnd() const { return m_cwnd.Get(); }
    uint32_t GetRetransmitCount() const { return m_retransmits; }

  private:
    /// Algorithm 1's can_decrease: at least one RTT since the last decrease.
    bool CanDecrease(Time rtt) const;
    /// Algorithm 1's epilogue: clamp, note a decrease, and hand the window
    /// (or, below one packet, the pacing rate) to the NIC.
    void Apply(Ptr<RdmaRateState> state, double previous);
    /// The RTT the pacing rate and can_decrease use: the latest sample, the
    /// target before the first one.
    Time Rtt(uint32_t hops) const;

    // Parameters (attributes).
    Time m_baseTarget;
    Time m_hopScale; ///< h, per switch hop
    uint32_t m_fabricHops;
    Time m_fsRange;
    double m_fsMinCwnd;
    double m_fsMaxCwnd;
    double m_ai;
    double m_beta;
    double m_maxMdf;
    double m_minCwnd;
    double m_maxCwnd;
    double m_initialCwnd; ///< 0: one BaseTarget of the line rate
    uint32_t m_packetBytes;
    uint32_t m_retxResetThreshold;
    Time m_rto;

    // Per-flow variables.
    TracedValue<double> m_cwnd;
    Time m_lastDecrease;
    bool m_everDecreased{false};
    Time m_lastRtt;
    uint32_t m_lastHops{0};
    uint32_t m_retransmits{0};
};

} // namespace ns3

#endif
