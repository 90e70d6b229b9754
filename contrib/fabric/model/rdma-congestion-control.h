// SPDX-License-Identifier: GPL-2.0-only
//
// Rate-based congestion control of an RDMA NIC as a strategy, in the shape of
// ns-3 TCP's TcpCongestionOps: the NIC owns the per-QP state (RdmaRateState)
// and hands it in; an algorithm keeps only its own variables, one fork per QP,
// and is chosen by TypeId (RdmaNic's CongestionControl attribute). The NIC
// names no algorithm: DCQCN is one subclass, HPCC, Timely or Swift are others.
#ifndef HOCKNEY_RDMA_CONGESTION_CONTROL_H
#define HOCKNEY_RDMA_CONGESTION_CONTROL_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <string>

namespace ns3
{

/// Per-QP sending state the NIC's rate limiter reads; a congestion control
/// writes it through SetRate / SetTargetRate.
class RdmaRateState : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaRateState();

    DataRate GetLineRate() const { return m_lineRate; }
    void SetLineRate(DataRate r) { m_lineRate = r; }
    DataRate GetRate() const { return m_rate.Get(); }
    DataRate GetTargetRate() const { return m_targetRate.Get(); }
    /// Sets the current sending rate RC and tells the NIC (to re-pace).
    void SetRate(DataRate r);
    void SetTargetRate(DataRate r) { m_targetRate = r; }
    /// The NIC's hook, called whenever the rate changes.
    void SetRateChangedCallback(Callback<void> cb) { m_rateChanged = cb; }

    uint32_t qpNumber{0}; ///< for logs and traces

    /// Signature of the Rate and TargetRate trace sources.
    typedef void (*DataRateTracedCallback)(DataRate oldValue, DataRate newValue);

  private:
    DataRate m_lineRate;
    TracedValue<DataRate> m_rate;       ///< RC
    TracedValue<DataRate> m_targetRate; ///< RT
    Callback<void> m_rateChanged;
};

class RdmaCongestionControl : public Object
{
  public:
    static TypeId GetTypeId();

    virtual std::string GetName() const = 0;
    /// A fresh copy with the same parameters and clean per-flow variables.
    virtual Ptr<RdmaCongestionControl> Fork() const = 0;

    // Reaction point (sender).
    /// A QP starts: flows start at line rate.
    virtual void FlowStart(Ptr<RdmaRateState> state);
    /// A congestion notification packet arrived for this QP.
    virtual void CnpReceived(Ptr<RdmaRateState> state);
    /// The NIC put `bytes` (wire bytes) of this QP on the port.
    virtual void BytesSent(Ptr<RdmaRateState> state, uint32_t bytes);

    // Notification point (receiver).
    /// A data packet arrived; returns true when the NIC must send a CNP now.
    virtual bool DataReceived(Ptr<RdmaRateState> state, bool ceMarked);

    /// Cancels the algorithm's timers (QP destroyed).
    virtual void Stop();
};

/// No congestion control: every QP sends at line rate; PFC alone keeps the
/// fabric lossless.
class RdmaCcNone : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override { return "None"; }
    Ptr<RdmaCongestionControl> Fork() const override;
};

} // namespace ns3

#endif
