// SPDX-License-Identifier: GPL-2.0-only
#include "loggp-model.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyLogGpModel");
NS_OBJECT_ENSURE_REGISTERED(LogGpModel);

namespace
{
// (n - 1) with a zero-byte message charged as one byte.
double
BytesAfterFirst(uint64_t bytes)
{
    return bytes == 0 ? 0.0 : static_cast<double>(bytes - 1);
}
} // namespace

TypeId
LogGpModel::GetTypeId()
{
    // Defaults are illustrative: 2o + L = 5 us and 1/G = 450 GB/s reproduce the
    // H100 NVLink alpha-beta example (alpha 5 us, beta 450 GB/s); g < o would make it CPU-bound.
    static TypeId tid =
        TypeId("ns3::LogGpModel")
            .SetParent<AnalyticModel>()
            .SetGroupName("Analytic")
            .AddConstructor<LogGpModel>()
            .AddAttribute("L",
                          "Latency: network transit of a message, NIC to NIC.",
                          TimeValue(MicroSeconds(3)),
                          MakeTimeAccessor(&LogGpModel::m_L),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("o",
                          "Overhead: CPU busy time to send (and to receive) one message.",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&LogGpModel::m_o),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("g",
                          "Gap: minimum interval between consecutive messages (1 / injection rate).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&LogGpModel::m_g),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("GapPerByte",
                          "G in seconds per byte (1 / link bandwidth). Default 1/450e9.",
                          DoubleValue(1.0 / 450e9),
                          MakeDoubleAccessor(&LogGpModel::m_G),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("P",
                          "Number of processors (informational; the channel has its own devices).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&LogGpModel::m_P),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

LogGpModel::LogGpModel()
    : m_L(MicroSeconds(3)),
      m_o(MicroSeconds(1)),
      m_g(MicroSeconds(2)),
      m_G(1.0 / 450e9),
      m_P(2)
{
}

double
LogGpModel::LogPTime(double L, double o)
{
    return 2 * o + L;
}

double
LogGpModel::LogGpTime(double L, double o, double G, uint64_t bytes)
{
    return 2 * o + L + BytesAfterFirst(bytes) * G;
}

double
LogGpModel::InjectionInterval(double o, double g, double G, uint64_t bytes)
{
    return std::max(o, g + BytesAfterFirst(bytes) * G);
}

double
LogGpModel::TrainTime(double L, double o, double g, double G, uint64_t bytes, uint64_t k)
{
    if (k == 0)
    {
        return 0;
    }
    return LogGpTime(L, o, G, bytes) + static_cast<double>(k - 1) * InjectionInterval(o, g, G, bytes);
}

bool
LogGpModel::CpuBound(double o, double g)
{
    return o > g;
}

double
LogGpModel::TrainSeconds(uint64_t bytes, uint64_t k) const
{
    return TrainTime(TimeToSeconds(m_L), TimeToSeconds(m_o), TimeToSeconds(m_g), m_G, bytes, k);
}

Time
LogGpModel::GetTrainTime(uint64_t bytes, uint64_t k) const
{
    return SecondsToTime(TrainSeconds(bytes, k));
}

double
LogGpModel::InjectionIntervalSeconds(uint64_t bytes) const
{
    return InjectionInterval(TimeToSeconds(m_o), TimeToSeconds(m_g), m_G, bytes);
}

bool
LogGpModel::IsCpuBound() const
{
    return CpuBound(TimeToSeconds(m_o), TimeToSeconds(m_g));
}

bool
LogGpModel::IsCpuBound(uint64_t bytes) const
{
    return TimeToSeconds(m_o) > TimeToSeconds(m_g) + BytesAfterFirst(bytes) * m_G;
}

Time
LogGpModel::GetL() const
{
    return m_L;
}

Time
LogGpModel::GetO() const
{
    return m_o;
}

Time
LogGpModel::GetGap() const
{
    return m_g;
}

double
LogGpModel::GetGapPerByte() const
{
    return m_G;
}

uint32_t
LogGpModel::GetP() const
{
    return m_P;
}

double
LogGpModel::GetBandwidthBytesPerSecond() const
{
    return m_G > 0 ? 1.0 / m_G : std::numeric_limits<double>::infinity();
}

void
LogGpModel::SetBandwidth(DataRate rate)
{
    m_G = 8.0 / static_cast<double>(rate.GetBitRate());
}

double
LogGpModel::GetLatencySeconds(uint64_t bytes) const
{
    return std::max(0.0, LogPTime(TimeToSeconds(m_L), TimeToSeconds(m_o)) - m_G);
}

double
LogGpModel::GetBandwidth(uint64_t bytes) const
{
    return GetBandwidthBytesPerSecond();
}

EndpointTiming
LogGpModel::GetEndpointTiming(uint64_t bytes) const
{
    const double stream = BytesAfterFirst(bytes) * m_G;
    EndpointTiming t;
    t.senderCpuSeconds = TimeToSeconds(m_o);
    t.injectionSeconds = TimeToSeconds(m_g) + stream;
    t.flightSeconds = stream + TimeToSeconds(m_L);
    t.receiveStreamSeconds = stream;
    t.receiverCpuSeconds = TimeToSeconds(m_o);
    return t;
}

std::string
LogGpModel::GetModelName() const
{
    return "loggp";
}

} // namespace ns3
