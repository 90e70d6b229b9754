// SPDX-License-Identifier: GPL-2.0-only
//
// LogP (Culler et al., PPoPP 1993) and LogGP (Alexandrov et al., SPAA 1995;
// JPDC 1997): alpha split into L (network latency, NIC to NIC), o (CPU
// busy time per message, at sender and receiver), g (minimum gap between
// consecutive messages, 1 / injection rate), G (gap per byte, 1 / beta_link), P
// (processors). Point to point:
//   LogP    T = 2o + L
//   LogGP   T(n) = 2o + L + (n - 1) G
// and the diagnosis alpha-beta cannot make: o > g means the CPU, not the
// network, limits the message rate; more bandwidth (smaller g) will not help.
//
// A train of k messages of n bytes, all posted at time 0 by one sender, follows
// the LogGOPSim convention (Hoefler, Schneider, Lumsdaine, HPDC 2010), in which
// a send keeps the CPU busy for o and the NIC for g + (n - 1) G: the CPU posts
// message i at (i + 1) o, the NIC starts injecting it at
//   s_i = o + i * max(o, g + (n - 1) G)
// (o and g serialize: whichever is longer sets the pace), its last byte arrives
// (n - 1) G + L later and the receiver spends o on it, so the train ends at
//   T_train(k, n) = 2o + L + (n - 1) G + (k - 1) max(o, g + (n - 1) G).
// For k = 1 this is T(n); for n = 1 the interval is LogP's max(o, g).
// Zero-byte messages are charged as one byte ((n - 1) taken as 0).
#ifndef HOCKNEY_LOGGP_MODEL_H
#define HOCKNEY_LOGGP_MODEL_H

#include "analytic-model.h"

#include "ns3/data-rate.h"

namespace ns3
{

class LogGpModel : public AnalyticModel
{
  public:
    static TypeId GetTypeId();
    LogGpModel();

    // --- The formulas (seconds, bytes) ---

    /// LogP point to point: 2o + L.
    static double LogPTime(double L, double o);
    /// LogGP point to point: 2o + L + (n - 1) G.
    static double LogGpTime(double L, double o, double G, uint64_t bytes);
    /// Interval between the injection starts of consecutive messages of one sender: max(o, g + (n - 1) G).
    static double InjectionInterval(double o, double g, double G, uint64_t bytes);
    /// End of a train of k messages from one sender (formula in the file comment).
    static double TrainTime(double L, double o, double g, double G, uint64_t bytes, uint64_t k);
    /// LogP's CPU-bound diagnosis: o > g.
    static bool CpuBound(double o, double g);

    // --- The configured model ---

    double TimeSeconds(uint64_t bytes) const
    {
        return LogGpTime(TimeToSeconds(m_L), TimeToSeconds(m_o), m_G, bytes);
    }

    Time GetTime(uint64_t bytes) const
    {
        return SecondsToTime(TimeSeconds(bytes));
    }

    double TrainSeconds(uint64_t bytes, uint64_t k) const;
    Time GetTrainTime(uint64_t bytes, uint64_t k) const;
    double InjectionIntervalSeconds(uint64_t bytes) const;
    /// o > g (LogP): the sender's CPU limits the message rate.
    bool IsCpuBound() const;
    /// o > g + (n - 1) G: the CPU limits a train of n-byte messages.
    bool IsCpuBound(uint64_t bytes) const;

    Time GetL() const;
    Time GetO() const;
    Time GetGap() const;
    double GetGapPerByte() const; ///< seconds per byte
    uint32_t GetP() const;
    /// 1 / G in bytes per second.
    double GetBandwidthBytesPerSecond() const;
    /// Sets G = 1 / rate.
    void SetBandwidth(DataRate rate);

    // AnalyticModel
    double GetMessageSeconds(uint64_t bytes) const override
    {
        return TimeSeconds(bytes);
    }

    /// 2o + L - G, so that latency + n G is T(n) for n >= 1 (never below 0).
    double GetLatencySeconds(uint64_t bytes) const override;
    /// 1 / G.
    double GetBandwidth(uint64_t bytes) const override;
    /// Sender CPU o, NIC injection g + (n - 1) G, flight (n - 1) G + L, receiver
    /// NIC (n - 1) G (one message at a time), receiver CPU o.
    EndpointTiming GetEndpointTiming(uint64_t bytes) const override;
    std::string GetModelName() const override;

  private:
    Time m_L;
    Time m_o;
    Time m_g;
    double m_G; // seconds per byte: below the picosecond resolution of Time at 450 GB/s (2.2 ps/B)
    uint32_t m_P;
};

} // namespace ns3

#endif
