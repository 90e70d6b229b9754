// SPDX-License-Identifier: GPL-2.0-only
//
// Hockney's alpha-beta model (R. W. Hockney, Parallel Computing 20(3), 1994)
// with its usual extensions: T(n) = alpha(n) + n / beta(n). Each of the five
// simplifying assumptions of the plain model that a single model can relax
// is a switch, so that an experiment can relax one at a time and see what it
// costs:
//   1 constant alpha    -> ProtocolSwitch (eager / rendezvous / pipeline steps)
//   2 constant beta     -> SCurve (beta_max (1 - exp(-n/n0))) and
//                          MultiResource (min(mem_read, link, mem_write) x eta)
//   3 no contention     -> the AnalyticChannel's contention policy
//   4 homogeneous       -> per-hop parameters (HopPath) and per-link routes
//   5 no software cost  -> SoftwareOverhead
// With every switch off the model is Hockney's T(n) = alpha + n / beta with the
// constant Alpha and Beta attributes. Formulas and sources: doc/analytic.md
// ("What it models" and "Sources", where the extensions' typical values are
// listed as rules of thumb, not measurements).
#ifndef HOCKNEY_ALPHA_BETA_MODEL_H
#define HOCKNEY_ALPHA_BETA_MODEL_H

#include "analytic-model.h"
#include "s-curve-fraction.h"

#include "ns3/data-rate.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace ns3
{

class AlphaBetaModel : public AnalyticModel
{
  public:
    /// The transfer protocol chosen by size: eager below n1, rendezvous (one handshake
    /// round trip more) below n2, pipelined chunks from n2 (Liu, Wu, Panda, ICS 2003);
    /// CONSTANT when the protocol switch is off.
    enum Protocol
    {
        EAGER,
        RENDEZVOUS,
        PIPELINE,
        CONSTANT
    };

    /// Which term of T(n) dominates: n < n* = alpha beta latency-bound, n > n* bandwidth-bound
    /// (n* is Hockney's half-performance length n_1/2).
    enum Regime
    {
        LATENCY_BOUND,
        BANDWIDTH_BOUND
    };

    static TypeId GetTypeId();
    AlphaBetaModel();

    // --- The formulas, one function each (all SI: seconds, bytes, bytes/s; doc/analytic.md) ---

    /// Hockney 1994: T = alpha + n / beta.
    static double BaseTime(double alphaSeconds, double betaBytesPerSecond, double bytes);
    /// Crossover (Hockney's n_1/2): n* = alpha x beta, where the two terms are equal.
    static double Crossover(double alphaSeconds, double betaBytesPerSecond);
    /// Protocol steps: alpha_eager below n1, + alpha_RTT from n1,
    /// + alpha_pipeline from n2.
    static double ProtocolAlpha(uint64_t bytes,
                                uint64_t eagerLimit,
                                uint64_t rendezvousLimit,
                                double eagerSeconds,
                                double rttSeconds,
                                double pipelineSeconds);
    /// S-curve: beta(n) = beta_max (1 - exp(-n / n0)); beta(n0) = 63.2 % of beta_max.
    static double SCurveBandwidth(double betaMax, double bytes, double n0Bytes);
    /// Multi-resource bandwidth: min(mem_read, link, mem_write) x eta.
    static double MultiResourceBandwidth(double memRead, double link, double memWrite, double eta);

    // --- The configured model ---

    /// T(n) in seconds: the fast path (inline, no libm call, no branch on the
    /// protocol band; about 1e8 evaluations per second with the protocol switch
    /// and the S-curve on, 1/8 to 1/6 of the bare formula's rate: see
    /// benchmarks/analytic-bench.cc and the doc's Performance section).
    double TimeSeconds(uint64_t bytes) const
    {
        return AlphaSeconds(bytes) + TransferSeconds(static_cast<double>(bytes));
    }

    /// T(n) as a Time.
    Time GetTime(uint64_t bytes) const
    {
        return SecondsToTime(TimeSeconds(bytes));
    }

    /// alpha(n): constant Alpha or the protocol step, plus the software overhead.
    double AlphaSeconds(uint64_t bytes) const
    {
        // The band index as a sum of comparisons, not branches: sizes from a
        // workload cross n1 and n2 unpredictably (a mispredicted branch cost
        // about a quarter of an evaluation). With the switch off both limits
        // are UINT64_MAX and the three levels equal.
        return m_alphaLevel[(bytes >= m_bandLimit[0]) + (bytes >= m_bandLimit[1])];
    }

    Time GetAlpha(uint64_t bytes) const
    {
        return SecondsToTime(AlphaSeconds(bytes));
    }

    /// n / beta(n) in seconds. At n = 0 with the S-curve this is the limit n0 / beta_max.
    double TransferSeconds(double bytes) const
    {
        if (!m_sCurve)
        {
            return bytes * m_invBetaMax;
        }
        const double x = bytes * m_invN0;
        if (x == 0)
        {
            return m_n0 * m_invBetaMax;
        }
        // n / (beta_max (1 - e^{-x})); SCurveFraction keeps precision for n << n0
        // as expm1 does, inline (within 1 ulp of -std::expm1(-x)).
        return bytes * m_invBetaMax / SCurveFraction(x);
    }

    /// beta(n) in bytes per second (beta_max when the S-curve is off).
    double BetaBytesPerSecond(uint64_t bytes) const;
    /// beta_max: Beta, or the multi-resource beta_eff when that switch is on.
    double MaxBandwidth() const
    {
        return m_betaMax;
    }

    Protocol GetProtocol(uint64_t bytes) const;
    static std::string ProtocolName(Protocol protocol);

    /// The size n* at which the latency term equals the bandwidth term,
    /// alpha(n*) = n* / beta(n*); alpha x beta exactly for constant parameters.
    /// With the S-curve, 0 when even the smallest message is bandwidth-bound.
    double CrossoverBytes() const;
    Regime GetRegime(uint64_t bytes) const;
    static std::string RegimeName(Regime regime);

    /// Throws InputError naming the attribute if the parameters are inconsistent
    /// (EagerLimit > RendezvousLimit, zero bandwidth or n0, eta outside (0, 1]).
    void Validate() const;

    // AnalyticModel
    double GetMessageSeconds(uint64_t bytes) const override
    {
        return TimeSeconds(bytes);
    }

    double GetLatencySeconds(uint64_t bytes) const override
    {
        return AlphaSeconds(bytes);
    }

    double GetBandwidth(uint64_t bytes) const override
    {
        return BetaBytesPerSecond(bytes);
    }

    /// The software overhead occupies the sender's CPU; the NIC sends and
    /// receives one message at a time, each for n / beta(n).
    EndpointTiming GetEndpointTiming(uint64_t bytes) const override;
    std::string GetModelName() const override;

  private:
    void Update();

    // Attribute setters: each recomputes the cached doubles of the fast path.
    void SetAlpha(Time t);
    Time GetAlphaAttr() const;
    void SetEagerAlpha(Time t);
    Time GetEagerAlpha() const;
    void SetRendezvousRtt(Time t);
    Time GetRendezvousRtt() const;
    void SetPipelineSetup(Time t);
    Time GetPipelineSetup() const;
    void SetSoftwareOverhead(Time t);
    Time GetSoftwareOverhead() const;
    void SetProtocolSwitch(bool on);
    bool GetProtocolSwitch() const;
    void SetEagerLimit(uint64_t n);
    uint64_t GetEagerLimit() const;
    void SetRendezvousLimit(uint64_t n);
    uint64_t GetRendezvousLimit() const;
    void SetBeta(DataRate r);
    DataRate GetBeta() const;
    void SetSCurve(bool on);
    bool GetSCurve() const;
    void SetN0(uint64_t n);
    uint64_t GetN0() const;
    void SetMultiResource(bool on);
    bool GetMultiResource() const;
    void SetMemRead(DataRate r);
    DataRate GetMemRead() const;
    void SetMemWrite(DataRate r);
    DataRate GetMemWrite() const;
    void SetEta(double eta);
    double GetEta() const;

    // Attributes
    Time m_alpha;
    Time m_eagerAlpha;
    Time m_rendezvousRtt;
    Time m_pipelineSetup;
    Time m_softwareOverhead;
    bool m_protocolSwitch;
    uint64_t m_eagerLimit;
    uint64_t m_rendezvousLimit;
    DataRate m_beta;
    bool m_sCurve;
    uint64_t m_n0Bytes;
    bool m_multiResource;
    DataRate m_memRead;
    DataRate m_memWrite;
    double m_eta;

    // Cached for the fast path
    double m_alphaLevel[3]; // eager (or constant), rendezvous, pipeline; incl. software overhead
    uint64_t m_bandLimit[2]; // first size of band 1 and of band 2 (UINT64_MAX: no such band)
    double m_betaMax;       // bytes/s
    double m_invBetaMax;
    double m_n0;
    double m_invN0;
};

} // namespace ns3

#endif
