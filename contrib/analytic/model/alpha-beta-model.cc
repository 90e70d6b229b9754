// SPDX-License-Identifier: GPL-2.0-only
#include "alpha-beta-model.h"

#include "input-error.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyAlphaBetaModel");
NS_OBJECT_ENSURE_REGISTERED(AlphaBetaModel);

namespace
{
double
BytesPerSecond(const DataRate& r)
{
    return static_cast<double>(r.GetBitRate()) / 8.0;
}
} // namespace

TypeId
AlphaBetaModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AlphaBetaModel")
            .SetParent<AnalyticModel>()
            .SetGroupName("Analytic")
            .AddConstructor<AlphaBetaModel>()
            // Assumption 1 and its relaxation
            .AddAttribute("Alpha",
                          "Constant start-up latency alpha (used while ProtocolSwitch is off). "
                          "Default: the H100 NVLink example, 5 us (doc/analytic.md).",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&AlphaBetaModel::SetAlpha, &AlphaBetaModel::GetAlphaAttr),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ProtocolSwitch",
                          "Relax assumption 1: alpha steps with the protocol "
                          "(eager < EagerLimit <= rendezvous < RendezvousLimit <= pipeline).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&AlphaBetaModel::SetProtocolSwitch,
                                              &AlphaBetaModel::GetProtocolSwitch),
                          MakeBooleanChecker())
            .AddAttribute("EagerAlpha",
                          "alpha_eager: latency of an eager message (typical value 2 us, assumed).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&AlphaBetaModel::SetEagerAlpha, &AlphaBetaModel::GetEagerAlpha),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RendezvousRtt",
                          "alpha_RTT: the handshake round trip a rendezvous adds (typically 2-5 us; default 3 us, assumed).",
                          TimeValue(MicroSeconds(3)),
                          MakeTimeAccessor(&AlphaBetaModel::SetRendezvousRtt,
                                           &AlphaBetaModel::GetRendezvousRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PipelineSetup",
                          "alpha_pipeline: pipeline set-up a pipelined message adds (typical value 1 us, assumed).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&AlphaBetaModel::SetPipelineSetup,
                                           &AlphaBetaModel::GetPipelineSetup),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("EagerLimit",
                          "n1 in bytes: the smallest rendezvous message (typically about 8 KB).",
                          UintegerValue(8000),
                          MakeUintegerAccessor(&AlphaBetaModel::SetEagerLimit, &AlphaBetaModel::GetEagerLimit),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RendezvousLimit",
                          "n2 in bytes: the smallest pipelined message (typically about 512 KB).",
                          UintegerValue(512000),
                          MakeUintegerAccessor(&AlphaBetaModel::SetRendezvousLimit,
                                               &AlphaBetaModel::GetRendezvousLimit),
                          MakeUintegerChecker<uint64_t>())
            // Assumption 2 and its relaxations
            .AddAttribute("Beta",
                          "Link bandwidth beta (beta_link, beta_max of the S-curve). "
                          "Default: H100 NVLink 4, 450 GB/s per direction.",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&AlphaBetaModel::SetBeta, &AlphaBetaModel::GetBeta),
                          MakeDataRateChecker())
            .AddAttribute("SCurve",
                          "Relax assumption 2: beta(n) = beta_max (1 - exp(-n / N0)).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&AlphaBetaModel::SetSCurve, &AlphaBetaModel::GetSCurve),
                          MakeBooleanChecker())
            .AddAttribute("N0",
                          "n0 in bytes: the size at which beta reaches 63 % of beta_max "
                          "(assumed typical values: about 256 KB NVLink, 64 KB IB).",
                          UintegerValue(256000),
                          MakeUintegerAccessor(&AlphaBetaModel::SetN0, &AlphaBetaModel::GetN0),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("MultiResource",
                          "Relax assumption 2 differently: beta_max = min(MemReadBandwidth, Beta, "
                          "MemWriteBandwidth) x ProtocolEfficiency.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&AlphaBetaModel::SetMultiResource,
                                              &AlphaBetaModel::GetMultiResource),
                          MakeBooleanChecker())
            .AddAttribute("MemReadBandwidth",
                          "beta_mem_read: source memory read bandwidth. Default: H100 SXM HBM3, "
                          "3.35 TB/s (NVIDIA H100 datasheet).",
                          DataRateValue(DataRate("26800Gbps")),
                          MakeDataRateAccessor(&AlphaBetaModel::SetMemRead, &AlphaBetaModel::GetMemRead),
                          MakeDataRateChecker())
            .AddAttribute("MemWriteBandwidth",
                          "beta_mem_write: destination memory write bandwidth (default as MemReadBandwidth).",
                          DataRateValue(DataRate("26800Gbps")),
                          MakeDataRateAccessor(&AlphaBetaModel::SetMemWrite, &AlphaBetaModel::GetMemWrite),
                          MakeDataRateChecker())
            .AddAttribute("ProtocolEfficiency",
                          "eta_protocol: encoding, header and CRC efficiency (typically 0.92-0.97).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&AlphaBetaModel::SetEta, &AlphaBetaModel::GetEta),
                          MakeDoubleChecker<double>(0.0, 1.0))
            // Assumption 5
            .AddAttribute("SoftwareOverhead",
                          "Relax assumption 5: software cost per message (library call, "
                          "descriptor set-up, kernel launch) added to alpha and charged to the "
                          "sender's CPU. Default 0 (the plain model's assumption).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&AlphaBetaModel::SetSoftwareOverhead,
                                           &AlphaBetaModel::GetSoftwareOverhead),
                          MakeTimeChecker(Time(0)));
    return tid;
}

AlphaBetaModel::AlphaBetaModel()
    : m_alpha(MicroSeconds(5)),
      m_eagerAlpha(MicroSeconds(2)),
      m_rendezvousRtt(MicroSeconds(3)),
      m_pipelineSetup(MicroSeconds(1)),
      m_softwareOverhead(Time(0)),
      m_protocolSwitch(false),
      m_eagerLimit(8000),
      m_rendezvousLimit(512000),
      m_beta(DataRate("3600Gbps")),
      m_sCurve(false),
      m_n0Bytes(256000),
      m_multiResource(false),
      m_memRead(DataRate("26800Gbps")),
      m_memWrite(DataRate("26800Gbps")),
      m_eta(0.95)
{
    Update();
}

// --- the formulas (doc/analytic.md, "What it models") ---

double
AlphaBetaModel::BaseTime(double alphaSeconds, double betaBytesPerSecond, double bytes)
{
    return alphaSeconds + bytes / betaBytesPerSecond;
}

double
AlphaBetaModel::Crossover(double alphaSeconds, double betaBytesPerSecond)
{
    return alphaSeconds * betaBytesPerSecond;
}

double
AlphaBetaModel::ProtocolAlpha(uint64_t bytes,
                              uint64_t eagerLimit,
                              uint64_t rendezvousLimit,
                              double eagerSeconds,
                              double rttSeconds,
                              double pipelineSeconds)
{
    if (bytes < eagerLimit)
    {
        return eagerSeconds;
    }
    if (bytes < rendezvousLimit)
    {
        return eagerSeconds + rttSeconds;
    }
    return eagerSeconds + rttSeconds + pipelineSeconds;
}

double
AlphaBetaModel::SCurveBandwidth(double betaMax, double bytes, double n0Bytes)
{
    return betaMax * -std::expm1(-bytes / n0Bytes);
}

double
AlphaBetaModel::MultiResourceBandwidth(double memRead, double link, double memWrite, double eta)
{
    return std::min({memRead, link, memWrite}) * eta;
}

// --- the configured model ---

void
AlphaBetaModel::Update()
{
    const double sw = TimeToSeconds(m_softwareOverhead);
    if (m_protocolSwitch)
    {
        // Evaluate the protocol step function once per band so the fast path only compares.
        const uint64_t probes[3] = {0, m_eagerLimit, m_rendezvousLimit};
        for (int i = 0; i < 3; ++i)
        {
            m_alphaLevel[i] = sw + ProtocolAlpha(probes[i],
                                                 m_eagerLimit,
                                                 m_rendezvousLimit,
                                                 TimeToSeconds(m_eagerAlpha),
                                                 TimeToSeconds(m_rendezvousRtt),
                                                 TimeToSeconds(m_pipelineSetup));
        }
        // An empty eager band (n1 = 0) must not leave level 0 at alpha_eager.
        if (m_eagerLimit == 0)
        {
            m_alphaLevel[0] = m_alphaLevel[1];
        }
        // Band 2 starts at n2, or at n1 if n1 > n2 (then n < n1 is eager and
        // n >= n1 pipelined, as ProtocolAlpha's comparisons in that order say).
        m_bandLimit[0] = m_eagerLimit;
        m_bandLimit[1] = std::max(m_eagerLimit, m_rendezvousLimit);
    }
    else
    {
        m_alphaLevel[0] = m_alphaLevel[1] = m_alphaLevel[2] = sw + TimeToSeconds(m_alpha);
        m_bandLimit[0] = m_bandLimit[1] = std::numeric_limits<uint64_t>::max();
    }
    const double link = BytesPerSecond(m_beta);
    m_betaMax = m_multiResource
                    ? MultiResourceBandwidth(BytesPerSecond(m_memRead), link, BytesPerSecond(m_memWrite), m_eta)
                    : link;
    m_invBetaMax = m_betaMax > 0 ? 1.0 / m_betaMax : std::numeric_limits<double>::infinity();
    m_n0 = static_cast<double>(m_n0Bytes);
    m_invN0 = m_n0 > 0 ? 1.0 / m_n0 : std::numeric_limits<double>::infinity();
}

double
AlphaBetaModel::BetaBytesPerSecond(uint64_t bytes) const
{
    if (!m_sCurve)
    {
        return m_betaMax;
    }
    return SCurveBandwidth(m_betaMax, static_cast<double>(bytes), m_n0);
}

AlphaBetaModel::Protocol
AlphaBetaModel::GetProtocol(uint64_t bytes) const
{
    if (!m_protocolSwitch)
    {
        return CONSTANT;
    }
    return bytes < m_eagerLimit ? EAGER : (bytes < m_rendezvousLimit ? RENDEZVOUS : PIPELINE);
}

std::string
AlphaBetaModel::ProtocolName(Protocol protocol)
{
    switch (protocol)
    {
    case EAGER:
        return "eager";
    case RENDEZVOUS:
        return "rendezvous";
    case PIPELINE:
        return "pipeline";
    case CONSTANT:
        break;
    }
    return "constant";
}

double
AlphaBetaModel::CrossoverBytes() const
{
    // Within one protocol band alpha is constant and n / beta(n) increases with n
    // (linearly, or as n / (1 - e^{-n/n0}) on the S-curve), so the first band
    // whose upper end is bandwidth-bound holds the crossover.
    struct Band
    {
        double lo;
        double hi;
        double alpha;
    };

    const double inf = std::numeric_limits<double>::infinity();
    Band bands[3];
    int nBands = 0;
    if (m_protocolSwitch)
    {
        bands[nBands++] = {0.0, static_cast<double>(m_eagerLimit), m_alphaLevel[0]};
        bands[nBands++] = {static_cast<double>(m_eagerLimit),
                           static_cast<double>(std::max(m_eagerLimit, m_rendezvousLimit)),
                           m_alphaLevel[1]};
        bands[nBands++] = {static_cast<double>(std::max(m_eagerLimit, m_rendezvousLimit)), inf, m_alphaLevel[2]};
    }
    else
    {
        bands[nBands++] = {0.0, inf, m_alphaLevel[0]};
    }
    for (int i = 0; i < nBands; ++i)
    {
        const Band& b = bands[i];
        if (b.hi <= b.lo)
        {
            continue;
        }
        if (TransferSeconds(b.lo) >= b.alpha)
        {
            return b.lo; // the band starts bandwidth-bound
        }
        if (!m_sCurve)
        {
            const double root = Crossover(b.alpha, m_betaMax); // n* = alpha x beta
            if (root < b.hi)
            {
                return root;
            }
            continue;
        }
        // S-curve: bisection on the monotone n / beta(n) - alpha.
        double lo = b.lo;
        double hi = std::isinf(b.hi) ? std::max(2 * b.lo, 1.0) : b.hi;
        if (std::isinf(b.hi))
        {
            while (TransferSeconds(hi) < b.alpha)
            {
                hi *= 2;
            }
        }
        else if (TransferSeconds(hi) < b.alpha)
        {
            continue;
        }
        for (int it = 0; it < 200 && hi - lo > 1e-9 * hi; ++it)
        {
            const double mid = 0.5 * (lo + hi);
            (TransferSeconds(mid) < b.alpha ? lo : hi) = mid;
        }
        return 0.5 * (lo + hi);
    }
    return inf;
}

AlphaBetaModel::Regime
AlphaBetaModel::GetRegime(uint64_t bytes) const
{
    return AlphaSeconds(bytes) > TransferSeconds(static_cast<double>(bytes)) ? LATENCY_BOUND : BANDWIDTH_BOUND;
}

std::string
AlphaBetaModel::RegimeName(Regime regime)
{
    return regime == LATENCY_BOUND ? "latency-bound" : "bandwidth-bound";
}

void
AlphaBetaModel::Validate() const
{
    if (m_protocolSwitch && m_eagerLimit > m_rendezvousLimit)
    {
        throw InputError("EagerLimit",
                         "expected EagerLimit <= RendezvousLimit, got " + std::to_string(m_eagerLimit) + " > " +
                             std::to_string(m_rendezvousLimit));
    }
    if (m_beta.GetBitRate() == 0)
    {
        throw InputError("Beta", "expected a bandwidth > 0");
    }
    if (m_multiResource)
    {
        if (m_memRead.GetBitRate() == 0)
        {
            throw InputError("MemReadBandwidth", "expected a bandwidth > 0");
        }
        if (m_memWrite.GetBitRate() == 0)
        {
            throw InputError("MemWriteBandwidth", "expected a bandwidth > 0");
        }
        if (!(m_eta > 0 && m_eta <= 1))
        {
            throw InputError("ProtocolEfficiency", "expected 0 < eta <= 1, got " + std::to_string(m_eta));
        }
    }
    if (m_sCurve && m_n0Bytes == 0)
    {
        throw InputError("N0", "expected n0 > 0 bytes");
    }
}

EndpointTiming
AlphaBetaModel::GetEndpointTiming(uint64_t bytes) const
{
    const double sw = TimeToSeconds(m_softwareOverhead);
    const double transfer = TransferSeconds(static_cast<double>(bytes));
    EndpointTiming t;
    t.senderCpuSeconds = sw;
    t.injectionSeconds = transfer;
    t.flightSeconds = AlphaSeconds(bytes) - sw + transfer;
    t.receiveStreamSeconds = transfer;
    t.receiverCpuSeconds = 0;
    return t;
}

std::string
AlphaBetaModel::GetModelName() const
{
    return "alpha-beta";
}

// --- attribute accessors ---

#define HOCKNEY_AB_ACCESSOR(Type, Name, member)                                                       \
    void AlphaBetaModel::Set##Name(Type v)                                                             \
    {                                                                                                  \
        member = v;                                                                                    \
        Update();                                                                                      \
    }

HOCKNEY_AB_ACCESSOR(Time, Alpha, m_alpha)
HOCKNEY_AB_ACCESSOR(Time, EagerAlpha, m_eagerAlpha)
HOCKNEY_AB_ACCESSOR(Time, RendezvousRtt, m_rendezvousRtt)
HOCKNEY_AB_ACCESSOR(Time, PipelineSetup, m_pipelineSetup)
HOCKNEY_AB_ACCESSOR(Time, SoftwareOverhead, m_softwareOverhead)
HOCKNEY_AB_ACCESSOR(bool, ProtocolSwitch, m_protocolSwitch)
HOCKNEY_AB_ACCESSOR(uint64_t, EagerLimit, m_eagerLimit)
HOCKNEY_AB_ACCESSOR(uint64_t, RendezvousLimit, m_rendezvousLimit)
HOCKNEY_AB_ACCESSOR(DataRate, Beta, m_beta)
HOCKNEY_AB_ACCESSOR(bool, SCurve, m_sCurve)
HOCKNEY_AB_ACCESSOR(uint64_t, N0, m_n0Bytes)
HOCKNEY_AB_ACCESSOR(bool, MultiResource, m_multiResource)
HOCKNEY_AB_ACCESSOR(DataRate, MemRead, m_memRead)
HOCKNEY_AB_ACCESSOR(DataRate, MemWrite, m_memWrite)
HOCKNEY_AB_ACCESSOR(double, Eta, m_eta)
#undef HOCKNEY_AB_ACCESSOR

Time
AlphaBetaModel::GetAlphaAttr() const
{
    return m_alpha;
}

Time
AlphaBetaModel::GetEagerAlpha() const
{
    return m_eagerAlpha;
}

Time
AlphaBetaModel::GetRendezvousRtt() const
{
    return m_rendezvousRtt;
}

Time
AlphaBetaModel::GetPipelineSetup() const
{
    return m_pipelineSetup;
}

Time
AlphaBetaModel::GetSoftwareOverhead() const
{
    return m_softwareOverhead;
}

bool
AlphaBetaModel::GetProtocolSwitch() const
{
    return m_protocolSwitch;
}

uint64_t
AlphaBetaModel::GetEagerLimit() const
{
    return m_eagerLimit;
}

uint64_t
AlphaBetaModel::GetRendezvousLimit() const
{
    return m_rendezvousLimit;
}

DataRate
AlphaBetaModel::GetBeta() const
{
    return m_beta;
}

bool
AlphaBetaModel::GetSCurve() const
{
    return m_sCurve;
}

uint64_t
AlphaBetaModel::GetN0() const
{
    return m_n0Bytes;
}

bool
AlphaBetaModel::GetMultiResource() const
{
    return m_multiResource;
}

DataRate
AlphaBetaModel::GetMemRead() const
{
    return m_memRead;
}

DataRate
AlphaBetaModel::GetMemWrite() const
{
    return m_memWrite;
}

double
AlphaBetaModel::GetEta() const
{
    return m_eta;
}

} // namespace ns3
