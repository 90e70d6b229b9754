// SPDX-License-Identifier: GPL-2.0-only
#include "go-back-n.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
void
CheckProbability(double p, const char* name)
{
    if (!(p >= 0 && p < 1))
    {
        throw std::invalid_argument(std::string("GoBackNEfficiency ") + name +
                                    ": expected a probability in [0, 1), got " + std::to_string(p));
    }
}

/// ceil(a / b) of two times, in integer picoseconds: the ceiling of an exact
/// ratio, not of a rounded double.
double
CeilSlots(Time a, Time b)
{
    const int64_t t = b.GetPicoSeconds();
    const int64_t x = std::max<int64_t>(0, a.GetPicoSeconds());
    return double((x + t - 1) / t);
}
} // namespace

double
GoBackNWindow(const GoBackNLink& link)
{
    if (!link.packetTime.IsStrictlyPositive())
    {
        throw std::invalid_argument("GoBackNWindow packetTime: expected a time > 0");
    }
    return 2.0 + CeilSlots(link.nakLoop, link.packetTime);
}

double
GoBackNEffectiveWindow(double dataLoss, double controlLoss, const GoBackNLink& link)
{
    CheckProbability(dataLoss, "dataLoss");
    CheckProbability(controlLoss, "controlLoss");
    const double w = GoBackNWindow(link);
    if (link.nakInterval.IsStrictlyPositive())
    {
        const double wi = 2.0 + CeilSlots(link.nakLoop + link.nakInterval, link.packetTime);
        return (1 - controlLoss) * (1 - dataLoss) * w + (controlLoss + (1 - controlLoss) * dataLoss) * wi;
    }
    const double r = CeilSlots(link.retransmitTimeout, link.packetTime);
    const double a = link.ackInterval;
    const double p = dataLoss;
    const double q = controlLoss;
    return (1 - q) * w + q * (r + a - 1) + (1 - q) * p * (r + (a - 1) / 2);
}

double
GoBackNEfficiency(double dataLoss, double controlLoss, const GoBackNLink& link)
{
    const double weff = GoBackNEffectiveWindow(dataLoss, controlLoss, link);
    return (1 - dataLoss) / (1 + (weff - 1) * dataLoss);
}

double
PacketErrorRate(double bitErrorRate, uint64_t bits)
{
    // -expm1(n log1p(-b)): exact for the tiny rates of real links (1e-12),
    // where 1 - pow(1 - b, n) would cancel.
    return -std::expm1(double(bits) * std::log1p(-bitErrorRate));
}

} // namespace ns3
