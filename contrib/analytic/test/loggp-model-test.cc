// SPDX-License-Identifier: GPL-2.0-only
//
// LogGpModel: LogP's 2o + L (Culler et al. 1993) and LogGP's 2o + L + (n-1) G
// (Alexandrov et al. 1995), the o > g
// diagnosis and the train formula of loggp-model.h, by hand with round numbers
// (G = 1 ns/B so that (n - 1) G = 1 us at n = 1001). Tolerance 1e-15 s.
#include "loggp-model.h"

#include "ns3/double.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

Ptr<LogGpModel>
Make(double oUs, double gUs)
{
    Ptr<LogGpModel> m = CreateObject<LogGpModel>();
    m->SetAttribute("L", TimeValue(MicroSeconds(3)));
    m->SetAttribute("o", TimeValue(SecondsToTime(oUs * 1e-6)));
    m->SetAttribute("g", TimeValue(SecondsToTime(gUs * 1e-6)));
    m->SetAttribute("GapPerByte", DoubleValue(1e-9));
    return m;
}

} // namespace

TEST(LogGpModel, PointToPoint)
{
    // LogP: 2 x 1 + 3 = 5 us. LogGP, 1001 B: 5 + 1000 x 1 ns = 6 us.
    EXPECT_NEAR(LogGpModel::LogPTime(3e-6, 1e-6), 5e-6, 1e-15);
    EXPECT_NEAR(LogGpModel::LogGpTime(3e-6, 1e-6, 1e-9, 1001), 6e-6, 1e-15);
    Ptr<LogGpModel> m = Make(1, 3);
    EXPECT_NEAR(m->TimeSeconds(1001), 6e-6, 1e-15);
    EXPECT_EQ(m->GetTime(1001).GetPicoSeconds(), 6000000);
    // One byte is LogP: (n - 1) G = 0.
    EXPECT_NEAR(m->TimeSeconds(1), 5e-6, 1e-15);
    // Large messages: LogGP meets alpha-beta with alpha = 2o + L, beta = 1/G (LogGP).
    EXPECT_NEAR(m->TimeSeconds(1000000001), 5e-6 + 1.0, 1e-12);
}

TEST(LogGpModel, CpuBoundDiagnosis)
{
    // LogP: o > g means the CPU limits the message rate.
    EXPECT_TRUE(LogGpModel::CpuBound(2e-6, 0.5e-6));
    EXPECT_FALSE(LogGpModel::CpuBound(1e-6, 3e-6));
    EXPECT_TRUE(Make(2, 0.5)->IsCpuBound());
    EXPECT_FALSE(Make(1, 3)->IsCpuBound());
    // For 1001-B messages the NIC needs g + 1 us: o = 2 > 0.5 + 1 still CPU-bound.
    EXPECT_TRUE(Make(2, 0.5)->IsCpuBound(1001));
    EXPECT_FALSE(Make(1.2, 0.5)->IsCpuBound(1001));
}

TEST(LogGpModel, TrainOfMessagesFromOneSender)
{
    // CPU-bound: o = 2, g = 0.5, 1001 B: interval max(2, 0.5 + 1) = 2 us;
    // T = 4 + 3 + 1 = 8 us; 5 messages end at 8 + 4 x 2 = 16 us.
    Ptr<LogGpModel> cpu = Make(2, 0.5);
    EXPECT_NEAR(cpu->InjectionIntervalSeconds(1001), 2e-6, 1e-15);
    EXPECT_NEAR(cpu->TrainSeconds(1001, 5), 16e-6, 1e-15);
    // Network-bound: o = 1, g = 3: interval 3 + 1 = 4 us; T = 6 us; 6 + 4 x 4 = 22 us.
    Ptr<LogGpModel> net = Make(1, 3);
    EXPECT_NEAR(net->TrainSeconds(1001, 5), 22e-6, 1e-15);
    EXPECT_NEAR(net->TrainSeconds(1001, 1), net->TimeSeconds(1001), 1e-15);
    EXPECT_EQ(net->TrainSeconds(1001, 0), 0.0);
    // LogP (n = 1): interval max(o, g).
    EXPECT_NEAR(LogGpModel::TrainTime(3e-6, 2e-6, 0.5e-6, 0, 1, 11), 7e-6 + 10 * 2e-6, 1e-15);
}

TEST(LogGpModel, MoreBandwidthDoesNotHelpWhenCpuBound)
{
    // Halving g and G (twice the network rate) leaves a CPU-bound train unchanged,
    // and shortens a network-bound one: o = 2 vs g + (n-1)G = 0.5 + 1 -> 0.25 + 0.5.
    Ptr<LogGpModel> cpu = Make(2, 0.5);
    const double before = cpu->TrainSeconds(1001, 100);
    cpu->SetAttribute("g", TimeValue(NanoSeconds(250)));
    cpu->SetAttribute("GapPerByte", DoubleValue(0.5e-9));
    // Only the single (n-1)G of the last message shrinks: 0.5 us.
    EXPECT_NEAR(before - cpu->TrainSeconds(1001, 100), 0.5e-6, 1e-15);
    Ptr<LogGpModel> net = Make(1, 3);
    const double netBefore = net->TrainSeconds(1001, 100); // 6 + 99 x 4 = 402 us
    EXPECT_NEAR(netBefore, 402e-6, 1e-15);
    net->SetAttribute("g", TimeValue(NanoSeconds(1500)));
    net->SetAttribute("GapPerByte", DoubleValue(0.5e-9));
    // 2 + 3 + 0.5 + 99 x max(1, 2) = 203.5 us.
    EXPECT_NEAR(net->TrainSeconds(1001, 100), 203.5e-6, 1e-15);
}

TEST(LogGpModel, AnalyticModelInterface)
{
    Ptr<LogGpModel> m = Make(1, 3);
    Ptr<AnalyticModel> base = m;
    // latency + n / bandwidth: (5 us - 1 ns) + 1001 ns = 6 us.
    EXPECT_NEAR(base->GetLatencySeconds(1001) + 1001 / base->GetBandwidth(1001), 6e-6, 1e-15);
    const EndpointTiming e = base->GetEndpointTiming(1001);
    EXPECT_NEAR(e.senderCpuSeconds, 1e-6, 1e-18);
    EXPECT_NEAR(e.injectionSeconds, 4e-6, 1e-15);
    EXPECT_NEAR(e.senderCpuSeconds + e.flightSeconds + e.receiverCpuSeconds, 6e-6, 1e-15);
    EXPECT_EQ(base->GetModelName(), "loggp");
    m->SetBandwidth(DataRate("400Gbps"));
    EXPECT_NEAR(m->GetGapPerByte(), 1 / 50e9, 1e-24);
}
