// SPDX-License-Identifier: GPL-2.0-only
//
// What the measurement targets check of a set a reader accepted, beyond "no
// crash": what calibration relies on (calibration.cc fits the times and
// divides by them for the relative residuals): every sample's time is a
// finite, positive number of seconds, and names a source of the set. A
// reader that let anything else through would fit nonsense without a word; a
// violation aborts like a crash.
#ifndef HOCKNEY_FUZZ_MEASUREMENT_CHECKS_H
#define HOCKNEY_FUZZ_MEASUREMENT_CHECKS_H

#include "measurement-sample.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace hockney
{
namespace fuzz
{

inline void
CheckSamples(const char* target, const ns3::MeasurementSet& set)
{
    for (const auto& s : set.samples)
    {
        if (!(std::isfinite(s.timeS) && s.timeS > 0) || s.source >= set.sources.size())
        {
            std::fprintf(stderr,
                         "==hockney-fuzz== %s: accepted sample at %s has time %g s, source %zu of %zu "
                         "(expected a finite time > 0 and a source of the set)\n",
                         target,
                         s.Where().c_str(),
                         s.timeS,
                         s.source,
                         set.sources.size());
            std::abort();
        }
    }
}

} // namespace fuzz
} // namespace hockney

#endif
