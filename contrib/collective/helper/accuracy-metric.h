// SPDX-License-Identifier: GPL-2.0-only
//
// The error measure of the accuracy map and the formats its tables share.
//
// compare's `error` is (T_analytic - T_packet) / T_packet, which cannot go
// below -100 % however optimistic the algebra is, while an error "above
// 100 %" (AllToAll on an oversubscribed fabric) means a packet time more than
// twice the predicted one. The map therefore judges by the symmetric error
// max(Ta/Tp, Tp/Ta) - 1: equal to |error| for small errors, Tp/Ta - 1 when the
// algebra is optimistic. Both are reported.
#ifndef HOCKNEY_ACCURACY_METRIC_H
#define HOCKNEY_ACCURACY_METRIC_H

#include <string>
#include <vector>

namespace ns3
{

/// max(a/p, p/a) - 1; +inf when either is not positive.
double SymmetricError(double analyticSeconds, double packetSeconds);

/// The median of \p values (the mean of the middle two for an even count);
/// NaN when empty.
double MedianOf(std::vector<double> values);

/// A fraction as a percentage: "5.0 %" below 10 % in magnitude (one decimal),
/// "37 %" above, "inf" when not finite.
std::string PercentText(double fraction);

} // namespace ns3

#endif
