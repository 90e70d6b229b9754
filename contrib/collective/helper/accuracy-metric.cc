// SPDX-License-Identifier: GPL-2.0-only
#include "accuracy-metric.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

double
SymmetricError(double a, double p)
{
    if (!(a > 0) || !(p > 0))
    {
        return std::numeric_limits<double>::infinity();
    }
    return std::max(a / p, p / a) - 1.0;
}

double
MedianOf(std::vector<double> v)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string
PercentText(double x)
{
    if (!std::isfinite(x))
    {
        return "inf";
    }
    std::ostringstream o;
    o << std::fixed << std::setprecision(x < 0.1 && x > -0.1 ? 1 : 0) << 100.0 * x << " %";
    return o.str();
}

} // namespace ns3
