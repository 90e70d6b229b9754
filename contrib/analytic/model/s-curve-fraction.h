// SPDX-License-Identifier: GPL-2.0-only
//
// 1 - e^{-x}, the fraction of beta_max the S-curve gives a message of x n0
// bytes (beta(n) = beta_max (1 - e^{-n/n0}), doc/analytic.md), inline and without a libm call.
//
// Why not -std::expm1(-x): the call cost about 60 % of an S-curve evaluation
// (perf on benchmarks/analytic-bench.cc), and libm's expm1 is an opaque call the
// compiler cannot overlap with the rest of T(n). This is the textbook
// table-driven exponential (Tang, ACM TOMS 15(2), 1989):
//   x = (64 k + j) ln2/64 + r, |r| <= ln2/128,
//   e^{-x} = 2^{-k} 2^{-j/64} e^{-r},
// with e^{-r} - 1 from its Taylor series to r^7 (the next term is below 2^-60
// of the result) and the subtraction from 1 carried out with the rounding error
// of 1 - 2^{-k} 2^{-j/64} kept (Fast2Sum), so that no cancellation is lost for
// small x. Against 200-bit arithmetic (mpmath), on 200 000 x drawn uniformly in
// [0, 40] or as sizes / 256 KB and 100 000 x uniform in [0, 0.02]: never off by
// more than 1 ulp; correctly rounded for 99.95 % of the first (glibc's expm1:
// 97.2 %) but only 89 % of the small x (glibc: 99.75 %), where the product
// 2^{-j/64} (e^{-r} - 1) is not carried to extra precision. fast-path-test
// compares it with -std::expm1(-x) at every size up to 40 n0 (at most 1 ulp
// apart).
#ifndef HOCKNEY_S_CURVE_FRACTION_H
#define HOCKNEY_S_CURVE_FRACTION_H

#include <cstdint>
#include <cstring>

namespace ns3
{

/// 2^{-j/64} for j = 0..63 as {high, low} doubles (high + low to about 2^-106):
/// mpmath at 200 bits, hi = float(v), lo = float(v - hi).
alignas(64) inline constexpr double kExp2NegSixtyFourths[64][2] = {
    {0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.fa7c1819e90d8p-1, 0x1.74853f3a5931ep-56},
    {0x1.f50765b6e4540p-1, 0x1.9d3e12dd8a18bp-55},
    {0x1.efa1bee615a27p-1, 0x1.dc7f486a4b6b0p-55},
    {0x1.ea4afa2a490dap-1, -0x1.e9c23179c2893p-55},
    {0x1.e502ee78b3ff6p-1, 0x1.39e8980a9cc8fp-56},
    {0x1.dfc97337b9b5fp-1, -0x1.1a5cd4f184b5cp-55},
    {0x1.da9e603db3285p-1, 0x1.c2300696db532p-55},
    {0x1.d5818dcfba487p-1, 0x1.2ed02d75b3707p-56},
    {0x1.d072d4a07897cp-1, -0x1.cbc3743797a9cp-55},
    {0x1.cb720dcef9069p-1, 0x1.503cbd1e949dbp-57},
    {0x1.c67f12e57d14bp-1, 0x1.2884dff483cadp-55},
    {0x1.c199bdd85529cp-1, 0x1.11065895048ddp-56},
    {0x1.bcc1e904bc1d2p-1, 0x1.23dd07a2d9e84p-56},
    {0x1.b7f76f2fb5e47p-1, -0x1.5584f7e54ac3bp-57},
    {0x1.b33a2b84f15fbp-1, -0x1.2805e3084d708p-58},
    {0x1.ae89f995ad3adp-1, 0x1.7a1cd345dcc81p-55},
    {0x1.a9e6b5579fdbfp-1, 0x1.0fac90ef7fd31p-55},
    {0x1.a5503b23e255dp-1, -0x1.d2f6edb8d41e1p-55},
    {0x1.a0c667b5de565p-1, -0x1.359495d1cd533p-55},
    {0x1.9c49182a3f090p-1, 0x1.c7c46b071f2bep-57},
    {0x1.97d829fde4e50p-1, -0x1.d185b7c1b85d1p-55},
    {0x1.93737b0cdc5e5p-1, -0x1.75fc781b57ebcp-58},
    {0x1.8f1ae99157736p-1, 0x1.5cc13a2e3976cp-56},
    {0x1.8ace5422aa0dbp-1, 0x1.6e9f156864b27p-55},
    {0x1.868d99b4492edp-1, -0x1.fc6f89bd4f6bap-55},
    {0x1.82589994cce13p-1, -0x1.d4c1dd41532d8p-55},
    {0x1.7e2f336cf4e62p-1, 0x1.05d02ba15797ep-57},
    {0x1.7a11473eb0187p-1, -0x1.41577ee04992fp-56},
    {0x1.75feb564267c9p-1, -0x1.0245957316dd3p-55},
    {0x1.71f75e8ec5f74p-1, -0x1.16e4786887a99p-56},
    {0x1.6dfb23c651a2fp-1, -0x1.bbe3a683c88abp-58},
    {0x1.6a09e667f3bcdp-1, -0x1.bdd3413b26456p-55},
    {0x1.6623882552225p-1, -0x1.bb60987591c34p-55},
    {0x1.6247eb03a5585p-1, -0x1.383c17e40b497p-55},
    {0x1.5e76f15ad2148p-1, 0x1.ba6f93080e65ep-55},
    {0x1.5ab07dd485429p-1, 0x1.6324c054647adp-55},
    {0x1.56f4736b527dap-1, 0x1.9bb2c011d93adp-55},
    {0x1.5342b569d4f82p-1, -0x1.07abe1db13cadp-56},
    {0x1.4f9b2769d2ca7p-1, -0x1.4b309d25957e3p-55},
    {0x1.4bfdad5362a27p-1, 0x1.d4397afec42e2p-57},
    {0x1.486a2b5c13cd0p-1, 0x1.3c1a3b69062f0p-57},
    {0x1.44e086061892dp-1, 0x1.89b7a04ef80d0p-60},
    {0x1.4160a21f72e2ap-1, -0x1.ef3691c309278p-59},
    {0x1.3dea64c123422p-1, 0x1.ada0911f09ebcp-56},
    {0x1.3a7db34e59ff7p-1, -0x1.5e436d661f5e3p-57},
    {0x1.371a7373aa9cbp-1, -0x1.63aeabf42eae2p-55},
    {0x1.33c08b26416ffp-1, 0x1.32721843659a6p-55},
    {0x1.306fe0a31b715p-1, 0x1.6f46ad23182e4p-56},
    {0x1.2d285a6e4030bp-1, 0x1.0024754db41d5p-55},
    {0x1.29e9df51fdee1p-1, 0x1.612e8afad1255p-56},
    {0x1.26b4565e27cddp-1, 0x1.2bd339940e9d9p-56},
    {0x1.2387a6e756238p-1, 0x1.9b07eb6c70573p-55},
    {0x1.2063b88628cd6p-1, 0x1.dc775814a8495p-56},
    {0x1.1d4873168b9aap-1, 0x1.e016e00a2643cp-55},
    {0x1.1a35beb6fcb75p-1, 0x1.e5b4c7b4968e4p-56},
    {0x1.172b83c7d517bp-1, -0x1.19041b9d78a76p-56},
    {0x1.1429aaea92de0p-1, -0x1.32fbf9af1369ep-55},
    {0x1.11301d0125b51p-1, -0x1.6c51039449b3ap-55},
    {0x1.0e3ec32d3d1a2p-1, 0x1.03a1727c57b53p-60},
    {0x1.0b5586cf9890fp-1, 0x1.8a62e4adc610bp-55},
    {0x1.0874518759bc8p-1, 0x1.186be4bb284ffp-58},
    {0x1.059b0d3158574p-1, 0x1.d73e2a475b465p-56},
    {0x1.02c9a3e778061p-1, -0x1.19083535b085dp-57},
};

/// 1 - e^{-x} for x >= 0 (NaN passes through). Within 1 ulp of -std::expm1(-x).
inline double
SCurveFraction(double x)
{
    constexpr double kSixtyFourOverLn2 = 0x1.71547652b82fep+6;
    // ln2/64 split so that n x kLn2Hi is exact for n < 2^21 (x < 40 needs n < 3700).
    constexpr double kLn2OverSixtyFourHi = 0x1.62e42fee00000p-7;
    constexpr double kLn2OverSixtyFourLo = 0x1.a39ef35793c76p-39;
    constexpr double kRoundShift = 0x1.8p52; // adding it rounds to an integer
    if (!(x < 40.0))
    {
        // e^{-40} < 2^-57: 1 - e^{-x} rounds to 1 (as -expm1(-x) does).
        return x >= 40.0 ? 1.0 : x;
    }
    const double nd = (x * kSixtyFourOverLn2 + kRoundShift) - kRoundShift;
    const int n = static_cast<int>(nd);
    const int k = n >> 6;
    const int j = n & 63;
    // r = x - n ln2/64 as r + c (Cody and Waite); the first difference is exact.
    const double hi = x - nd * kLn2OverSixtyFourHi;
    const double lo = nd * kLn2OverSixtyFourLo;
    const double r = hi - lo;
    const double c = (hi - r) - lo;
    // e^{u} - 1 for u = -(r + c): u + u^2/2 + u^3 (1/6 + u/24 + u^2/120 + u^3/720 + u^4/5040).
    const double u = -r;
    const double u2 = u * u;
    const double p =
        (1.0 / 6 + u * (1.0 / 24)) + u2 * ((1.0 / 120 + u * (1.0 / 720)) + u2 * (1.0 / 5040));
    const double em1 = u + (u2 * (0.5 + u * p) - c * (1 + u));
    // 2^{-k} by its bit pattern (k <= 57 here, no subnormals).
    const uint64_t bits = static_cast<uint64_t>(1023 - k) << 52;
    double scale;
    std::memcpy(&scale, &bits, sizeof scale);
    const double th = kExp2NegSixtyFourths[j][0] * scale;
    const double tl = kExp2NegSixtyFourths[j][1] * scale;
    // 1 - (th + tl)(1 + em1), with 1 - th split into a + ea exactly (|th| <= 1).
    const double a = 1.0 - th;
    const double ea = (1.0 - a) - th;
    return a + (ea - (tl + (th + tl) * em1));
}

} // namespace ns3

#endif
