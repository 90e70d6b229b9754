// SPDX-License-Identifier: GPL-2.0-only
//
// libFuzzer target: core's unit parser (units.h), which reads every size, rate
// and time of the flags, scenarios and topology descriptions. The input text
// goes to each parser in turn. Beyond "InputError or a value", an accepted
// value is checked against a second computation where one is at hand: a
// number without a unit is that many bytes (to the nearest byte), the
// DataRate and Time forms agree with the double forms, a count is the
// integer strtoull reads. A mismatch aborts like a crash. Pure parsing: no
// ns-3 state (fuzz-target.cc sets the Time resolution once, as the CLI's
// main does).
#include "fuzz-target.h"
#include "units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace
{

[[noreturn]] void
Wrong(const std::string& text, const std::string& what)
{
    std::fprintf(stderr, "==hockney-fuzz== units: '%s': %s\n", text.c_str(), what.c_str());
    std::abort();
}

// |a - b| within \p absolute or within double rounding of the larger.
bool
Near(double a, double b, double absolute)
{
    return std::fabs(a - b) <= std::max(absolute, 4e-16 * std::max(std::fabs(a), std::fabs(b)));
}

// The text's number when the whole (trimmed) text is one, as strtod reads it.
bool
WholeNumber(const std::string& text, double& v)
{
    const size_t b = text.find_first_not_of(" \t");
    if (b == std::string::npos || text.find('\0') != std::string::npos)
    {
        return false;
    }
    const size_t e = text.find_last_not_of(" \t");
    const std::string t = text.substr(b, e - b + 1);
    char* end = nullptr;
    v = std::strtod(t.c_str(), &end);
    return end != t.c_str() && *end == '\0';
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace ns3::units;
    using hockney::fuzz::RunParser;
    const std::string text = hockney::fuzz::Text(data, size);
    const std::string field = "--fuzz";

    RunParser("units", [&] {
        const uint64_t bytes = ParseBytes(text, field);
        double v = 0;
        if (WholeNumber(text, v) && !Near(static_cast<double>(bytes), v, 0.5))
        {
            Wrong(text, "ParseBytes gave " + std::to_string(bytes) + " for the number " + std::to_string(v));
        }
        FormatBytes(bytes);
    });
    RunParser("units", [&] {
        const double bps = ParseBytesPerSecond(text, field);
        const ns3::DataRate rate = ParseDataRate(text, field);
        if (!(bps >= 0) || !Near(static_cast<double>(rate.GetBitRate()), bps * 8, 0.5))
        {
            Wrong(text, "ParseDataRate gave " + std::to_string(rate.GetBitRate()) + " bit/s for " +
                            std::to_string(bps) + " B/s");
        }
        FormatBytesPerSecond(bps);
    });
    RunParser("units", [&] {
        const double s = ParseSeconds(text, field);
        const ns3::Time t = ParseTime(text, field);
        // Seconds() rounds to the 1 ps resolution.
        if (!(s >= 0) || !Near(static_cast<double>(t.GetPicoSeconds()), s * 1e12, 1.0))
        {
            Wrong(text, "ParseTime gave " + std::to_string(t.GetPicoSeconds()) + " ps for " + std::to_string(s) + " s");
        }
        FormatSeconds(s);
    });
    RunParser("units", [&] {
        // A wall-clock limit: never negative, never past a week.
        const ns3::Time t = ParseWallClockLimit(text, field);
        if (t.IsStrictlyNegative() || t > ns3::Seconds(604800))
        {
            Wrong(text, "ParseWallClockLimit gave " + std::to_string(t.GetPicoSeconds()) + " ps");
        }
    });
    RunParser("units", [&] {
        const double v = ParseNumber(text, field);
        if (!std::isfinite(v))
        {
            Wrong(text, "ParseNumber accepted a value that is not finite");
        }
    });
    RunParser("units", [&] {
        const uint64_t n = ParseCount(text, field);
        const size_t b = text.find_first_not_of(" \t");
        if (n != std::strtoull(text.c_str() + b, nullptr, 10))
        {
            Wrong(text, "ParseCount gave " + std::to_string(n));
        }
    });
    RunParser("units", [&] {
        const auto items = SplitList(text, field);
        const size_t commas = static_cast<size_t>(std::count(text.begin(), text.end(), ','));
        if (items.size() != commas + 1)
        {
            Wrong(text, "SplitList gave " + std::to_string(items.size()) + " items for " +
                            std::to_string(commas) + " commas");
        }
        for (const auto& item : items)
        {
            if (item.empty())
            {
                Wrong(text, "SplitList gave an empty item");
            }
        }
    });
    return 0;
}
