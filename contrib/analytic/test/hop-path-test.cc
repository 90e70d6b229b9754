// SPDX-License-Identifier: GPL-2.0-only
//
// Multi-hop alpha-beta: exact sum(alpha_i + n / beta_i) against the
// approximation alpha_total + n / beta_bottleneck, by hand. Tolerance 1e-12
// relative (double rounding).
#include "hop-path.h"
#include "input-error.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(HopPath, ExactAndApproximateByHand)
{
    // NVLink hop 1 us at 450 GB/s, then an IB hop 2 us at 50 GB/s; 1 MB.
    HopPath p;
    p.AddHop(MicroSeconds(1), DataRate("3600Gbps")).AddHop(MicroSeconds(2), DataRate("400Gbps"));
    EXPECT_EQ(p.GetNHops(), 2u);
    // exact: 1 + 2.2222 + 2 + 20 = 25.2222 us; approx: 3 + 20 = 23 us.
    const double exact = 1e-6 + 1e6 / 450e9 + 2e-6 + 1e6 / 50e9;
    EXPECT_NEAR(p.ExactSeconds(1000000), exact, exact * 1e-12);
    EXPECT_NEAR(p.ApproxSeconds(1000000), 23e-6, 23e-6 * 1e-12);
    EXPECT_NEAR(p.TotalLatencySeconds(), 3e-6, 1e-18);
    EXPECT_NEAR(p.BottleneckBandwidth(), 50e9, 1e-3);
    EXPECT_NEAR(p.GetApproxTime(1000000).GetPicoSeconds(), 23000000, 1);
    // The approximation drops the non-bottleneck hops' n / beta_i, so it is never longer.
    EXPECT_LE(p.ApproxSeconds(1), p.ExactSeconds(1));
}

TEST(HopPath, IdenticalHopsDifferByStoreAndForward)
{
    // k identical hops: exact - approx = (k - 1) n / beta. 3 hops, 1 us, 100 GB/s, 1 MB:
    // 3 us + 30 us against 3 us + 10 us.
    HopPath p;
    for (int i = 0; i < 3; ++i)
    {
        p.AddHop(MicroSeconds(1), 100e9);
    }
    EXPECT_NEAR(p.ExactSeconds(1000000), 33e-6, 33e-6 * 1e-12);
    EXPECT_NEAR(p.ApproxSeconds(1000000), 13e-6, 13e-6 * 1e-12);
    // A single hop: both forms are the alpha-beta time.
    HopPath one;
    one.AddHop(MicroSeconds(5), 450e9);
    EXPECT_NEAR(one.ExactSeconds(2250000), 10e-6, 10e-6 * 1e-12);
    EXPECT_NEAR(one.ApproxSeconds(2250000), 10e-6, 10e-6 * 1e-12);
}

TEST(HopPath, RejectsZeroBandwidth)
{
    HopPath p;
    EXPECT_THROW(p.AddHop(MicroSeconds(1), 0.0), InputError);
}
