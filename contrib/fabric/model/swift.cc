// SPDX-License-Identifier: GPL-2.0-only
#include "swift.h"
#include "fast-simulator-impl.h"

#include "fabric-log.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneySwift");
NS_OBJECT_ENSURE_REGISTERED(Swift);

TypeId
Swift::GetTypeId()
{
    // The paper gives the algorithm (Algorithm 1, its loss recovery and the
    // hop- and flow-based scaling of the fabric target) and names the
    // parameters; we found no published table of its deployment values
    // (public reproductions mark theirs as guesses). Each default's comment
    // says where it comes from (doc/fabric.md, "Swift", lists them all).
    static TypeId tid =
        TypeId("ns3::Swift")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Fabric")
            .AddConstructor<Swift>()
            // The paper defines base_target as the least target that keeps a
            // one-hop path with a few flows at 100 % utilization; 25 us is our
            // choice for the 1 us links of hockney's RoCE presets (base RTT
            // about 5 us), leaving ~20 us of queue for the AIMD sawtooth.
            .AddAttribute("BaseTarget",
                          "base_target: the target delay of a one-hop path",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&Swift::m_baseTarget),
                          MakeTimeChecker(Time(0)))
            // Assumption: one MTU at 100 Gb/s (0.33 us) plus a switch's
            // forwarding latency and slack, rounded to 1 us.
            .AddAttribute("PerHopScaling",
                          "h: target delay added per switch hop of the path",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&Swift::m_hopScale),
                          MakeTimeChecker(Time(0)))
            // The paper counts hops from the IP TTL of the ACKed packet. The
            // NIC's sample carries no TTL: the hop count is the sample's INT
            // hop count when switches stamp it, else this attribute (one
            // switch: a star / one leaf).
            .AddAttribute("FabricHops",
                          "Switch hops of the path when the ACK carries no per-hop telemetry",
                          UintegerValue(1),
                          MakeUintegerAccessor(&Swift::m_fabricHops),
                          MakeUintegerChecker<uint32_t>())
            // Assumption (not in the paper): 5 x BaseTarget, as public
            // reproductions of Swift use.
            .AddAttribute("FsRange",
                          "fs_range: the most flow scaling adds to the target",
                          TimeValue(MicroSeconds(125)),
                          MakeTimeAccessor(&Swift::m_fsRange),
                          MakeTimeChecker(Time(0)))
            // fs_min_cwnd 0.1, fs_max_cwnd 100 packets: the values public
            // reproductions of the flow scaling use.
            .AddAttribute("FsMinCwnd",
                          "fs_min_cwnd: window (packets) at which flow scaling reaches FsRange",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&Swift::m_fsMinCwnd),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("FsMaxCwnd",
                          "fs_max_cwnd: window (packets) at which flow scaling reaches 0",
                          DoubleValue(100),
                          MakeDoubleAccessor(&Swift::m_fsMaxCwnd),
                          MakeDoubleChecker<double>(1e-9))
            // ai 1, beta 0.8, max_mdf 0.5: the values public reproductions
            // of Algorithm 1 use; the paper names the parameters only.
            .AddAttribute("AdditiveIncrease",
                          "ai: packets added to the window per RTT below the target",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&Swift::m_ai),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Beta",
                          "beta: multiplicative decrease constant, the window times "
                          "1 - beta (delay - target) / delay above the target",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&Swift::m_beta),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("MaxMdf",
                          "max_mdf: the largest fraction one decrease removes",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&Swift::m_maxMdf),
                          MakeDoubleChecker<double>(0, 1))
            // The paper lets the window go below one packet (pacing) for
            // large incasts; 0.001 packets is our floor (a 4 KiB packet every
            // 1000 RTTs).
            .AddAttribute("MinCwnd",
                          "min_cwnd: the smallest window, packets",
                          DoubleValue(0.001),
                          MakeDoubleAccessor(&Swift::m_minCwnd),
                          MakeDoubleChecker<double>(1e-9))
            // Assumption: 2 MB of 4 KiB packets, several BDPs at 400 Gb/s.
            .AddAttribute("MaxCwnd",
                          "max_cwnd: the largest window, packets",
                          DoubleValue(512),
                          MakeDoubleAccessor(&Swift::m_maxCwnd),
                          MakeDoubleChecker<double>(1e-9))
            // RDMA NICs start a flow at line rate; one BaseTarget of it is the
            // window of a line-rate flow at the target (as HPCC's W_init =
            // B x T).
            .AddAttribute("InitialCwnd",
                          "Window of a new flow, packets (0: line rate x BaseTarget)",
                          DoubleValue(0),
                          MakeDoubleAccessor(&Swift::m_initialCwnd),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("PacketBytes",
                          "Payload bytes of one packet of the window (0: the NIC's Mtu, "
                          "4096 without a NIC)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&Swift::m_packetBytes),
                          MakeUintegerChecker<uint32_t>())
            // Assumption (the paper names RETX_RESET_THRESHOLD only).
            .AddAttribute("RetxResetThreshold",
                          "RETX_RESET_THRESHOLD: consecutive timeouts after which the window "
                          "drops to MinCwnd",
                          UintegerValue(5),
                          MakeUintegerAccessor(&Swift::m_retxResetThreshold),
                          MakeUintegerChecker<uint32_t>(1))
            // Assumption: far above any queueing delay Swift allows, so that
            // only a lost ACK or a long PFC pause fires it.
            .AddAttribute("RetransmitTimeout",
                          "Swift's retransmit timer: no ACK progress for this long with bytes "
                          "outstanding",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&Swift::m_rto),
                          MakeTimeChecker(Time(1)))
            .AddTraceSource("Cwnd",
                            "The window, packets",
                            MakeTraceSourceAccessor(&Swift::m_cwnd),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

Swift::Swift()
    : m_cwnd(0)
{
}

Ptr<RdmaCongestionControl>
Swift::Fork() const
{
    Ptr<Swift> s = CreateObject<Swift>();
    CopyAttributesTo(s);
    return s;
}

Time
Swift::TargetDelay(double cwnd, uint32_t hops) const
{
    const double range = m_fsRange.GetSeconds();
    const double alpha = range / (1 / std::sqrt(m_fsMinCwnd) - 1 / std::sqrt(m_fsMaxCwnd));
    const double beta = -alpha / std::sqrt(m_fsMaxCwnd);
    const double fs = std::max(0.0, std::min(alpha / std::sqrt(cwnd) + beta, range));
    return m_baseTarget + m_hopScale * static_cast<int64_t>(hops) + Seconds(fs);
}

void
Swift::FlowStart(Ptr<RdmaRateState> state)
{
    if (!(m_fsMinCwnd < m_fsMaxCwnd))
    {
        throw std::invalid_argument("Swift::FsMinCwnd: expected below FsMaxCwnd " +
                                    std::to_string(m_fsMaxCwnd) + ", got " +
                                    std::to_string(m_fsMinCwnd));
    }
    if (m_minCwnd > m_maxCwnd)
    {
        throw std::invalid_argument("Swift::MinCwnd: expected at most MaxCwnd " +
                                    std::to_string(m_maxCwnd) + ", got " +
                                    std::to_string(m_minCwnd));
    }
    RdmaCongestionControl::FlowStart(state);
    // A window of packets is a window of the NIC's packets: its MTU, unless
    // the user set PacketBytes (4096 for a state without a NIC, in tests).
    if (m_packetBytes == 0)
    {
        m_packetBytes = state->mtuBytes > 0 ? state->mtuBytes : 4096;
    }
    m_cwnd = m_initialCwnd > 0
                 ? m_initialCwnd
                 : static_cast<double>(state->GetLineRate().GetBitRate()) *
                       m_baseTarget.GetSeconds() / 8 / m_packetBytes;
    m_lastDecrease = hotsim::Now();
    m_everDecreased = false;
    m_lastRtt = Time(0);
    m_lastHops = m_fabricHops;
    m_retransmits = 0;
    Apply(state, m_cwnd);
}

bool
Swift::CanDecrease(Time rtt) const
{
    return !m_everDecreased || hotsim::Now() - m_lastDecrease >= rtt;
}

Time
Swift::Rtt(uint32_t hops) const
{
    return m_lastRtt.IsStrictlyPositive() ? m_lastRtt : TargetDelay(m_cwnd, hops);
}

void
Swift::BytesSent(Ptr<RdmaRateState> state, uint32_t bytes)
{
    if (!IsTimeoutPending())
    {
        ScheduleTimeout(state, m_rto);
    }
}

void
Swift::AckReceived(Ptr<RdmaRateState> state, const RdmaAckSample& sample)
{
    const double previous = m_cwnd;
    if (sample.outstandingBytes == 0)
    {
        CancelTimeout();
    }
    else if (sample.ackedBytes > 0 || sample.nak)
    {
        ScheduleTimeout(state, m_rto); // progress: the timer restarts
    }
    m_lastHops = sample.intHops.empty() ? m_fabricHops : uint32_t(sample.intHops.size());
    m_retransmits = 0;
    if (sample.nak)
    {
        // Fast recovery (the paper's loss recovery): a hole in the sequence, one cut per RTT.
        if (CanDecrease(Rtt(m_lastHops)))
        {
            m_cwnd = (1 - m_maxMdf) * m_cwnd;
        }
        Apply(state, previous);
        return;
    }
    if (!sample.rtt.IsStrictlyPositive())
    {
        return; // no delay measured (a repeated ACK): nothing to compare
    }
    m_lastRtt = sample.rtt;
    const double delay = sample.rtt.GetSeconds();
    const double target = TargetDelay(m_cwnd, m_lastHops).GetSeconds();
    const double acked = static_cast<double>(sample.ackedBytes) / m_packetBytes;
    if (delay < target)
    {
        // Additive increase: ai packets per window's worth of ACKs.
        m_cwnd = m_cwnd >= 1 ? m_cwnd + m_ai / m_cwnd * acked : m_cwnd + m_ai * acked;
    }
    else if (CanDecrease(sample.rtt))
    {
        m_cwnd = std::max(1 - m_beta * (delay - target) / delay, 1 - m_maxMdf) * m_cwnd;
    }
    Apply(state, previous);
}

void
Swift::Timeout(Ptr<RdmaRateState> state)
{
    const double previous = m_cwnd;
    ++m_retransmits;
    if (m_retransmits >= m_retxResetThreshold)
    {
        m_cwnd = m_minCwnd;
    }
    else if (CanDecrease(Rtt(m_lastHops)))
    {
        m_cwnd = (1 - m_maxMdf) * m_cwnd;
    }
    Apply(state, previous);
    // Still nothing back: the timer runs again (the NIC resends on its own
    // transport timer; this one only sets the window).
    ScheduleTimeout(state, m_rto);
}

void
Swift::Apply(Ptr<RdmaRateState> state, double previous)
{
    m_cwnd = std::min(std::max(m_cwnd.Get(), m_minCwnd), m_maxCwnd);
    // Algorithm 1 stamps t_last_decrease when cwnd <= cwnd_prev; with "<=" a
    // decrease blocked by can_decrease (cwnd unchanged) would restart the
    // RTT and block every later one while the delay stays high, so only an
    // actual decrease counts.
    if (m_cwnd < previous)
    {
        m_lastDecrease = hotsim::Now();
        m_everDecreased = true;
    }
    const double mss = m_packetBytes;
    if (m_cwnd >= 1)
    {
        // The NIC lets ceil(window / Mtu) packets be in flight.
        state->SetRate(state->GetLineRate());
        state->SetWindow(static_cast<uint64_t>(std::llround(m_cwnd * mss)));
    }
    else
    {
        // Below one packet: one packet in flight, sent every rtt / cwnd
        // (the rate the NIC's limiter applies to the packet's wire bytes).
        const double bps = m_cwnd * mss * 8 / Rtt(m_lastHops).GetSeconds();
        const double line = static_cast<double>(state->GetLineRate().GetBitRate());
        state->SetWindow(m_packetBytes);
        // At least 1 b/s: a zero rate would stop the QP for ever.
        state->SetRate(DataRate(static_cast<uint64_t>(std::llround(std::max(1.0, std::min(bps, line))))));
    }
    // Per ACK: compiled in only with HOCKNEY_HOT_PATH_LOG (fabric-log.h).
    HOCKNEY_HOT_LOG_LOGIC("qp " << state->qpNumber << " cwnd " << m_cwnd << " rtt "
                                << m_lastRtt.As(Time::US));
}

namespace
{
const RdmaCcRegistration g_swiftRegistration({"swift", &Swift::GetTypeId, {}, "", {}});
} // namespace

} // namespace ns3
