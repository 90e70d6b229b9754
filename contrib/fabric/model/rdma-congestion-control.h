// SPDX-License-Identifier: GPL-2.0-only
//
// Rate-based congestion control of an RDMA NIC as a strategy, in the shape of
// ns-3 TCP's TcpCongestionOps: the NIC owns the per-QP state (RdmaRateState)
// and hands it in; an algorithm keeps only its own variables, one fork per QP,
// and is chosen by TypeId (RdmaNic's CongestionControl attribute) or by the
// short name it registers (RdmaCcRegistration). The NIC names no algorithm:
// DCQCN is one subclass, HPCC, Timely or Swift are others. The NIC calls an
// algorithm when a QP starts, per packet sent, per data packet received
// (notification point), per CNP, per ACK (with an RdmaAckSample: acked
// bytes, RTT, ECN echo) and on the per-QP timeout the algorithm schedules;
// the algorithm answers through the QP's rate and window (RdmaRateState).
#ifndef HOCKNEY_RDMA_CONGESTION_CONTROL_H
#define HOCKNEY_RDMA_CONGESTION_CONTROL_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// One switch hop's in-band telemetry, in the fields HPCC reads (Li et al.,
/// "HPCC: High Precision Congestion Control", SIGCOMM 2019, section 3.2), as
/// read back from the wire (int-header.h): timestamp and txBytes wrap, so
/// compare two records of a hop with IntHeader::TimeDelta / BytesDelta.
struct RdmaIntHop
{
    Time timestamp;          ///< when the packet left the hop's egress (ns, mod 2^24)
    uint64_t txBytes{0};     ///< on-wire bytes the egress port has sent, this packet included (units of 128, wraps)
    uint64_t queueBytes{0};  ///< egress queue the packet left behind (units of 80)
    DataRate lineRate;       ///< egress port rate
};

/// What the NIC tells a congestion control about one ACK (or NAK).
struct RdmaAckSample
{
    /// Payload bytes this ACK newly acknowledged (ACKs are cumulative and
    /// coalesced: the sum over a message's ACKs is its size).
    uint64_t ackedBytes{0};
    /// From the transmission of the packet whose AckReq this ACK answers to
    /// the ACK's arrival, both read at the NIC (a resent packet counts from
    /// its latest transmission); zero when the ACK answers no timed packet
    /// (e.g. a repeated ACK for a duplicate).
    Time rtt;
    /// The responder saw a CE mark since its previous ACK.
    bool ecnEcho{false};
    bool nak{false};
    /// Payload bytes posted and not yet acknowledged after this ACK.
    uint64_t outstandingBytes{0};
    /// In-band telemetry of the path, one entry per switch hop, echoed from
    /// the data packet that made the responder send this ACK; empty unless
    /// WantsInt().
    std::vector<RdmaIntHop> intHops;
};

/// Per-QP sending state the NIC's rate limiter reads; a congestion control
/// writes it through SetRate / SetTargetRate and SetWindow.
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
    /// The NIC's hook, called with qpNumber whenever the rate changes (one
    /// callback serves all of a NIC's QPs: none is bound per QP).
    void SetRateChangedCallback(Callback<void, uint32_t> cb) { m_rateChanged = cb; }
    /// Cap on bytes in flight (0: no window): the NIC stops sending new
    /// packets while (packets sent - packets acknowledged) x MTU reaches the
    /// smaller of this and its own WindowBytes, whichever are non-zero.
    uint64_t GetWindow() const { return m_window; }
    /// Sets the window and tells the NIC.
    void SetWindow(uint64_t bytes);
    /// The NIC's hook, called with qpNumber whenever the window changes.
    void SetWindowChangedCallback(Callback<void, uint32_t> cb) { m_windowChanged = cb; }

    uint32_t qpNumber{0}; ///< for logs and traces
    /// Payload bytes of the QP's packets (the NIC's Mtu; 0 when no NIC set
    /// it), for an algorithm that counts its window in packets.
    uint32_t mtuBytes{0};

    /// Signature of the Rate and TargetRate trace sources.
    typedef void (*DataRateTracedCallback)(DataRate oldValue, DataRate newValue);

  private:
    DataRate m_lineRate;
    TracedValue<DataRate> m_rate;       ///< RC
    TracedValue<DataRate> m_targetRate; ///< RT
    Callback<void, uint32_t> m_rateChanged;
    uint64_t m_window{0};
    Callback<void, uint32_t> m_windowChanged;
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

    /// An ACK or NAK for this QP arrived (after the NIC moved its
    /// acknowledged PSN and completed messages).
    virtual void AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample);
    /// The timeout set by ScheduleTimeout expired.
    virtual void Timeout(Ptr<RdmaRateState> state);

    // Notification point (receiver).
    /// A data packet arrived; returns true when the NIC must send a CNP now.
    /// An unmarked one (ceMarked false) must change nothing and return
    /// false: the NIC does not call it for a silent arrival
    /// (RdmaNic::FoldSilentArrivals), whose packet is never CE-marked.
    virtual bool DataReceived(Ptr<RdmaRateState> state, bool ceMarked);

    /// True when the algorithm reads in-band telemetry: the QP's data
    /// packets then ask switches for INT hop records (int-header.h) and its
    /// ACKs echo them in RdmaAckSample::intHops. Read once per QP.
    virtual bool WantsInt() const { return false; }

    /// The QP has nothing to send (every posted message acknowledged) and
    /// nobody holds its state (RdmaNic::GetRateState): until Resume the NIC
    /// reads neither its rate nor its window, so an algorithm may stop
    /// running its timers as events and replay their ticks, in order and
    /// at their own times, when an input comes (a late CNP or ACK) or at
    /// Resume. Default: nothing (the timers run on).
    virtual void Pause(Ptr<RdmaRateState> state) {}
    /// The NIC will read the rate again (a message is about to be posted,
    /// or the state is being handed out): the state must be as if the
    /// timers had run all along.
    virtual void Resume(Ptr<RdmaRateState> state) {}

    /// Cancels the algorithm's timers (QP destroyed). An override calls
    /// this one too (it cancels the ScheduleTimeout timer).
    virtual void Stop();

    // Lazy per-QP state (RdmaNic::LazyCongestionState, doc/fabric.md
    // "Lazy per-QP congestion state"): a NIC forks the algorithm for a QP at
    // the QP's first use instead of at its creation, and may drop the fork
    // after the QP's last message when the fork says it is fresh.

    /// True when FlowStart's outcome does not depend on when it runs, until
    /// the flow's first input (a CNP, an ACK, a data packet, bytes sent):
    /// the NIC may then fork and start the algorithm at the QP's first use.
    /// False (the default): forked and started when the QP is created.
    virtual bool StartsLazily() const { return false; }
    /// True when this fork and its QP's rate state are, for every later
    /// sequence of inputs, indistinguishable from a new Fork() after
    /// FlowStart: the NIC may then drop them (or hand them to another QP of
    /// its own after a new FlowStart) and start a fresh one at the QP's next
    /// use. An algorithm says so only when it can prove it (no timer
    /// pending, every per-flow variable at its FlowStart value or at one
    /// that acts the same from now on). Default false: kept for the QP's life.
    virtual bool IsFresh(const RdmaRateState& state) const { return false; }

  protected:
    /// Calls Timeout(state) after `delay`; one timer per fork (per QP), a new
    /// call replaces a pending one. Lets an algorithm keep a per-QP timer
    /// without its own event bookkeeping.
    void ScheduleTimeout(Ptr<RdmaRateState> state, Time delay);
    /// Sets on \p to every attribute of this algorithm's TypeId (up to
    /// RdmaCongestionControl) as it is here: the parameter half of Fork, so a
    /// new attribute reaches every QP's fork without a hand-written copy.
    void CopyAttributesTo(Ptr<RdmaCongestionControl> to) const;
    void CancelTimeout();
    bool IsTimeoutPending() const;
    void DoDispose() override;

  private:
    void FireTimeout(Ptr<RdmaRateState> state);

    EventId m_timeout;
};

/// No congestion control: every QP sends at line rate; PFC alone keeps the
/// fabric lossless.
class RdmaCcNone : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override { return "None"; }
    Ptr<RdmaCongestionControl> Fork() const override;
    /// No per-flow variables: FlowStart only puts the QP at line rate.
    bool StartsLazily() const override { return true; }
    /// At line rate with no window, as FlowStart left it.
    bool IsFresh(const RdmaRateState& state) const override;
};

/**
 * An algorithm by short name: `name` selects it (and "name:preset" one of its
 * parameter sets), `typeId` creates it with default attributes. A preset is
 * applied with the port's line rate, since some sets scale with it.
 */
struct RdmaCcEntry
{
    std::string name;
    TypeId (*typeId)();
    std::vector<std::string> presets;
    /// Applied when the spec names no preset ("" = default attributes).
    std::string defaultPreset;
    /// Sets a preset's parameters; throws std::invalid_argument for an
    /// unknown preset. Empty when there are no presets.
    std::function<void(Ptr<RdmaCongestionControl>, const std::string&, DataRate)> applyPreset;
};

/// The registered algorithms. "none" (RdmaCcNone) is always the first.
class RdmaCcRegistry
{
  public:
    /// \throws std::invalid_argument if the name is taken.
    static void Register(const RdmaCcEntry& entry);
    /// nullptr for an unknown name.
    static const RdmaCcEntry* Find(const std::string& name);
    /// The registered short names: "none" first, then by name (not in the
    /// order of registration, which the linker decides).
    static std::vector<std::string> Names();
    /// Names() as one line for messages: "none, dcqcn".
    static std::string NameList();
    /// Every accepted spec in the order of Names(): each name, then name:preset
    /// for its presets.
    static std::vector<std::string> Specs();
    /**
     * "name" or "name:preset" for a port of `lineRate`: the algorithm with its
     * default preset or the one named. \throws std::invalid_argument listing
     * the accepted specs for an unknown name, or for a rate of 0.
     */
    static Ptr<RdmaCongestionControl> Create(const std::string& spec, DataRate lineRate);
};

/// Registers an algorithm at load time: a static object in the algorithm's .cc.
struct RdmaCcRegistration
{
    explicit RdmaCcRegistration(const RdmaCcEntry& entry) { RdmaCcRegistry::Register(entry); }
};

/**
 * The algorithm registered as `name` with its default attributes (no preset,
 * no line rate needed), nullptr for "none" (callers pass nullptr for "no
 * congestion control"). \throws std::invalid_argument listing the registered
 * names for an unknown one.
 */
Ptr<RdmaCongestionControl> CreateRdmaCongestionControl(const std::string& name);

} // namespace ns3

#endif
