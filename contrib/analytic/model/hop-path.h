// SPDX-License-Identifier: GPL-2.0-only
//
// A message crossing several links (multi-hop alpha-beta):
//   T_multihop = sum_i (alpha_i + n / beta_i)  ~  alpha_total + n / beta_bottleneck.
// The exact sum is store-and-forward (each hop receives the whole message before
// sending it on); the approximation is cut-through (the bytes stream through
// every hop at the narrowest link's rate). Both are reported because their
// difference is the price of assuming a homogeneous path (one alpha, one beta).
#ifndef HOCKNEY_HOP_PATH_H
#define HOCKNEY_HOP_PATH_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class HopPath
{
  public:
    /// Appends a hop with latency alpha_i and bandwidth beta_i.
    HopPath& AddHop(Time latency, DataRate bandwidth);
    /// The same with the bandwidth in bytes per second.
    HopPath& AddHop(Time latency, double bytesPerSecond);

    size_t GetNHops() const
    {
        return m_latency.size();
    }

    /// sum_i (alpha_i + n / beta_i), seconds: the exact (store-and-forward) form.
    double ExactSeconds(uint64_t bytes) const;
    /// alpha_total + n / beta_bottleneck, seconds: the approximate (cut-through) form.
    double ApproxSeconds(uint64_t bytes) const;
    Time GetExactTime(uint64_t bytes) const;
    Time GetApproxTime(uint64_t bytes) const;

    /// alpha_total = sum_i alpha_i, seconds.
    double TotalLatencySeconds() const;
    /// beta_bottleneck = min_i beta_i, bytes per second (0 for an empty path).
    double BottleneckBandwidth() const;

  private:
    std::vector<double> m_latency;   // seconds
    std::vector<double> m_bandwidth; // bytes per second
};

} // namespace ns3

#endif
