// SPDX-License-Identifier: GPL-2.0-only
//
// HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019),
// Algorithm 1: a window-based congestion control driven by in-band telemetry.
// From two consecutive INT records of each hop on the path (int-header.h) it
// estimates the hop's normalized inflight bytes
//   u_i = min(qlen, qlen') / (B_i T) + txRate_i / B_i,
// takes the most loaded hop, smooths it as an EWMA over the base RTT T
// (weight tau/T, tau the records' time apart, at most T), and sets
//   W = W_c / (U / eta) + W_AI      (U >= eta or after MaxStage increases)
//   W = W_c + W_AI                  (otherwise: additive increase stage)
// on every ACK, with the reference window W_c taking the new W once per RTT
// (the first ACK of a packet sent after the previous update, the paper's
// ack.seq > lastUpdateSeq). The QP sends at most W bytes in flight at the
// rate W / T. The initial window is the line rate x T.
#ifndef HOCKNEY_HPCC_H
#define HOCKNEY_HPCC_H

#include "rdma-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

class Hpcc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    Hpcc();

    std::string GetName() const override { return "Hpcc"; }
    Ptr<RdmaCongestionControl> Fork() const override;
    bool WantsInt() const override { return true; }
    /// FlowStart reads only the parameters and the line rate. Never fresh
    /// once started (the window and U estimate move with every ACK): kept.
    bool StartsLazily() const override { return true; }

    void FlowStart(Ptr<RdmaRateState> state) override;
    void AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample) override;

    /// The smoothed normalized inflight U (1 before the first estimate).
    double GetUtilization() const { return m_u; }
    /// The reference window W_c in bytes.
    double GetReferenceWindow() const { return m_wc; }
    /// The current window W in bytes (before rounding to the QP's window).
    double GetWindowBytes() const { return m_w; }
    /// Additive-increase stages since the last multiplicative update.
    uint32_t GetIncreaseStage() const { return m_incStage; }
    /// W_AI in bytes for a QP of `lineRate` (WindowAi, or its default).
    double AdditiveIncrease(DataRate lineRate) const;

  private:
    /// MeasureInflight of Algorithm 1: updates m_u from the new records;
    /// false if no hop gave an estimate.
    bool MeasureInflight(const std::vector<RdmaIntHop>& hops);
    /// ComputeWind of Algorithm 1.
    double ComputeWind(bool updateWc);
    void Apply(Ptr<RdmaRateState> state);

    // parameters
    double m_eta;
    uint32_t m_maxStage;
    uint64_t m_windowAi;
    Time m_baseRtt;
    DataRate m_minRate;

    // per QP
    double m_winit{0};
    double m_wai{0};
    double m_wc{0};
    double m_w{0};
    double m_u{1};
    uint32_t m_incStage{0};
    std::vector<RdmaIntHop> m_hops; ///< the previous ACK's records
    Time m_lastUpdate;              ///< last update of W_c
};

} // namespace ns3

#endif
