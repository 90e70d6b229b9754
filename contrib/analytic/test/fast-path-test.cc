// SPDX-License-Identifier: GPL-2.0-only
//
// The speed work on AlphaBetaModel's fast path changed how T(n) is evaluated,
// not what it is. These tests pin the difference down:
//   - alpha(n) is now a table index instead of two branches: bit-identical to
//     the two branches it replaces, including inconsistent limits;
//   - the S-curve's 1 - e^{-x} is now SCurveFraction instead of
//     -std::expm1(-x): within 1 ulp of it at every size up to 40 n0, equal to
//     it for almost all sizes, and correctly rounded at reference points
//     computed with 200-bit arithmetic (mpmath);
//   - T(n) without the S-curve is bit-identical to alpha + n / beta evaluated
//     as before (n x (1 / beta)).
#include "alpha-beta-model.h"
#include "s-curve-fraction.h"

#include "ns3/boolean.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>

using namespace ns3;

namespace
{

/// Distance in units in the last place between two finite doubles of the same sign.
int64_t
UlpDistance(double a, double b)
{
    int64_t ia;
    int64_t ib;
    std::memcpy(&ia, &a, sizeof a);
    std::memcpy(&ib, &b, sizeof b);
    return ia > ib ? ia - ib : ib - ia;
}

/// The S-curve transfer time as it was computed before SCurveFraction.
double
OldTransferSeconds(double bytes, double betaMax, double n0)
{
    return bytes * (1.0 / betaMax) / -std::expm1(-bytes * (1.0 / n0));
}

} // namespace

TEST(FastPath, SCurveFractionIsCorrectlyRoundedAtReferencePoints)
{
    // 1 - e^{-x} rounded to double from 200-bit mpmath values.
    struct Point
    {
        double x;
        double exact;
    };

    const Point points[] = {
        {1e-300, 1e-300},
        {1e-9, 0x1.12e0be801f1d9p-30},
        {0.001, 0x1.0603521cac48cp-10},
        {0.0049570312500000005, 0x1.440f65e0d137dp-8},
        {0.3, 0x1.0966f2c7907f6p-2},
        {0.34657359027997264, 0x1.2bec333018867p-2}, // ln2 / 2, a reduction boundary
        {0.5, 0x1.92e9a0720d3ecp-2},
        {1.0, 0x1.43a54e4e98864p-1},
        {2.5, 0x1.d5f8f47ed617bp-1},
        {10.0, 0x1.fffa0ca192a6ep-1},
        {37.0, 0x1.fffffffffffffp-1},
        {39.9, 1.0},
    };
    for (const Point& p : points)
    {
        EXPECT_EQ(SCurveFraction(p.x), p.exact) << "x = " << p.x;
    }
    EXPECT_EQ(SCurveFraction(0.0), 0.0);
    EXPECT_EQ(SCurveFraction(40.0), 1.0);
    EXPECT_EQ(SCurveFraction(1e300), 1.0);
    EXPECT_EQ(SCurveFraction(std::numeric_limits<double>::infinity()), 1.0);
    EXPECT_TRUE(std::isnan(SCurveFraction(std::nan(""))));
}

TEST(FastPath, SCurveFractionWithinOneUlpOfExpm1AtEverySize)
{
    // Every integer size from 1 B to 40 n0 (beyond, both give exactly 1), for
    // the typical NVLink and IB n0 (256 KB, 64 KB) and an n0 that is not a round number.
    for (double n0 : {256000.0, 64000.0, 262147.0})
    {
        const double invN0 = 1.0 / n0;
        const uint64_t last = static_cast<uint64_t>(40 * n0) + 64;
        uint64_t same = 0;
        int64_t worst = 0;
        for (uint64_t n = 1; n <= last; ++n)
        {
            const double x = static_cast<double>(n) * invN0;
            const int64_t d = UlpDistance(SCurveFraction(x), -std::expm1(-x));
            worst = std::max(worst, d);
            same += d == 0;
        }
        EXPECT_LE(worst, 1) << "n0 = " << n0;
        // glibc's expm1 itself is not correctly rounded in about 3 % of cases;
        // a wrong reduction or polynomial would disagree far more often.
        EXPECT_GT(static_cast<double>(same) / static_cast<double>(last), 0.95) << "n0 = " << n0;
    }
}

TEST(FastPath, SCurveTimeWithinTwoUlpOfTheExpm1Formula)
{
    // T(n) = alpha(n) + n / (beta_max (1 - e^{-n/n0})): the one changed factor
    // is at most 1 ulp off, and the division can turn that into 2 ulps of the
    // transfer time (relative 4.4e-16, far below the 1 ps tick of a Time).
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("ProtocolSwitch", BooleanValue(true));
    m->SetAttribute("SCurve", BooleanValue(true));
    const double betaMax = 450e9;
    const double n0 = 256000;
    int64_t worstTransfer = 0;
    int64_t worstTime = 0;
    uint64_t sameTime = 0;
    uint64_t count = 0;
    for (uint64_t n = 1; n <= 16000000; n += 7)
    {
        const double bytes = static_cast<double>(n);
        const double oldTransfer = OldTransferSeconds(bytes, betaMax, n0);
        worstTransfer = std::max(worstTransfer, UlpDistance(m->TransferSeconds(bytes), oldTransfer));
        const double alpha = AlphaBetaModel::ProtocolAlpha(n, 8000, 512000, 2e-6, 3e-6, 1e-6);
        const int64_t d = UlpDistance(m->TimeSeconds(n), alpha + oldTransfer);
        worstTime = std::max(worstTime, d);
        sameTime += d == 0;
        ++count;
    }
    EXPECT_LE(worstTransfer, 2);
    EXPECT_LE(worstTime, 2);
    EXPECT_GT(static_cast<double>(sameTime) / static_cast<double>(count), 0.95);
    // As Times at 1 ps (the resolution the test main sets) nothing moves.
    for (uint64_t n : std::initializer_list<uint64_t>{1, 1000, 8000, 65536, 256000, 511999, 4000000})
    {
        const double alpha = AlphaBetaModel::ProtocolAlpha(n, 8000, 512000, 2e-6, 3e-6, 1e-6);
        EXPECT_EQ(m->GetTime(n), SecondsToTime(alpha + OldTransferSeconds(static_cast<double>(n), betaMax, n0)))
            << n << " B";
    }
}

TEST(FastPath, AlphaBandIndexEqualsTheBranches)
{
    // alpha(n) as it was: the three levels are ProtocolAlpha at 0, n1 and n2,
    // chosen by n < n1 ? eager : (n < n2 ? rendezvous : pipeline). Checked for
    // consistent limits, an empty eager band, equal limits and n1 > n2 (which
    // Validate rejects but the model must still evaluate as before).
    struct Limits
    {
        uint64_t eager;
        uint64_t rendezvous;
    };

    for (Limits l : {Limits{8000, 512000}, Limits{0, 512000}, Limits{512000, 8000}, Limits{4096, 4096}})
    {
        Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
        m->SetAttribute("ProtocolSwitch", BooleanValue(true));
        m->SetAttribute("EagerLimit", UintegerValue(l.eager));
        m->SetAttribute("RendezvousLimit", UintegerValue(l.rendezvous));
        double level[3];
        const uint64_t probes[3] = {0, l.eager, l.rendezvous};
        for (int i = 0; i < 3; ++i)
        {
            level[i] = AlphaBetaModel::ProtocolAlpha(probes[i], l.eager, l.rendezvous, 2e-6, 3e-6, 1e-6);
        }
        if (l.eager == 0)
        {
            level[0] = level[1];
        }
        for (uint64_t n : std::initializer_list<uint64_t>{0, 1, 4095, 4096, 7999, 8000, 8001, 511999, 512000,
                           512001, uint64_t(1) << 40, std::numeric_limits<uint64_t>::max()})
        {
            const double before = n < l.eager ? level[0] : (n < l.rendezvous ? level[1] : level[2]);
            EXPECT_EQ(m->AlphaSeconds(n), before) << "n1 " << l.eager << " n2 " << l.rendezvous << " n " << n;
        }
    }
    // Switch off: the constant alpha at every size.
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    for (uint64_t n : std::initializer_list<uint64_t>{0, 8000, 512000, std::numeric_limits<uint64_t>::max()})
    {
        EXPECT_EQ(m->AlphaSeconds(n), 5e-6);
    }
}

TEST(FastPath, ConstantBetaTimeIsBitIdenticalToTheBareFormula)
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    const double invBeta = 1.0 / 450e9;
    for (uint64_t n = 0; n <= 10000000; n += 997)
    {
        EXPECT_EQ(m->TimeSeconds(n), 5e-6 + static_cast<double>(n) * invBeta);
    }
}

TEST(FastPath, SecondsToTimeRoundsAsLlround)
{
    // SecondsToTime rounds inline instead of calling std::llround; the tick
    // counts must be the same, halves included (away from zero), for small and
    // large, positive and negative durations. The test main runs at 1 ps.
    const double ticksPerSecond = 1e12;
    std::mt19937_64 rng(11);
    int halves = 0;
    for (int i = 0; i < 2000000; ++i)
    {
        double seconds;
        switch (i % 4)
        {
        case 0: // around k + 1/2 ticks
            seconds = (static_cast<double>(rng() % 100000000) + 0.5) / ticksPerSecond;
            seconds = i % 8 == 0 ? std::nextafter(seconds, 1.0) : seconds;
            break;
        case 1: // any duration up to 1000 s
            seconds = std::ldexp(static_cast<double>(rng() >> 11), -53) * 1000;
            break;
        case 2: // up to the Time range, where every tick count is an integer
            seconds = std::ldexp(static_cast<double>(rng() >> 11), -53) * 9.1e6;
            break;
        default: // negative
            seconds = -std::ldexp(static_cast<double>(rng() >> 11), -53) * 1e-3;
            break;
        }
        const double ticks = seconds * ticksPerSecond;
        halves += std::fabs(ticks - std::trunc(ticks)) == 0.5;
        ASSERT_EQ(SecondsToTime(seconds).GetTimeStep(), std::llround(ticks)) << seconds << " s";
    }
    EXPECT_GT(halves, 1000); // exact halves did occur
    for (double t : {0.5, 1.5, 2.5, -0.5, -1.5, 0.49999999999999994, -0.49999999999999994, 4503599627370495.5,
                     4503599627370497.0, 0.0, -0.0})
    {
        EXPECT_EQ(SecondsToTime(t / ticksPerSecond).GetTimeStep(), std::llround((t / ticksPerSecond) * ticksPerSecond))
            << t << " ticks";
    }
    EXPECT_THROW(SecondsToTime(1e7), std::exception);
    EXPECT_THROW(SecondsToTime(std::nan("")), std::exception);
}
