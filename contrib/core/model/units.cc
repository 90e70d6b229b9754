// SPDX-License-Identifier: GPL-2.0-only
#include "units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace ns3
{
namespace units
{
namespace
{

std::string
Trim(const std::string& s)
{
    size_t b = s.find_first_not_of(" \t");
    size_t e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Splits "1.5MiB" into 1.5 and "MiB"; throws unless the number is finite and >= 0.
std::pair<double, std::string>
SplitNumberUnit(const std::string& raw, const std::string& field, const std::string& expected)
{
    std::string text = Trim(raw);
    if (text.empty())
    {
        throw InputError(field, "expected " + expected + ", got an empty value");
    }
    const char* begin = text.c_str();
    char* end = nullptr;
    double v = std::strtod(begin, &end);
    if (end == begin)
    {
        throw InputError(field, "expected " + expected + ", got '" + raw + "'");
    }
    if (!std::isfinite(v))
    {
        throw InputError(field, "expected " + expected + " (finite), got '" + raw + "'");
    }
    if (v < 0)
    {
        throw InputError(field, "expected " + expected + " (not negative), got '" + raw + "'");
    }
    return {v, Trim(std::string(end))};
}

template <typename Map>
double
Scale(const Map& table,
      const std::string& raw,
      const std::string& field,
      const std::string& expected,
      bool unitOptional)
{
    auto [v, unit] = SplitNumberUnit(raw, field, expected);
    if (unit.empty() && unitOptional)
    {
        return v;
    }
    auto it = table.find(unit);
    if (it == table.end())
    {
        throw InputError(field, "expected " + expected + ", got unit '" + unit + "' in '" + raw + "'");
    }
    return v * it->second;
}

const std::map<std::string, double> kBytes = {
    {"B", 1.0},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", 1024.0},
    {"MiB", 1024.0 * 1024},
    {"GiB", 1024.0 * 1024 * 1024},
    {"TiB", 1024.0 * 1024 * 1024 * 1024},
};

const std::map<std::string, double> kRates = {
    {"B/s", 1.0},     {"Bps", 1.0},     {"KB/s", 1e3},        {"KBps", 1e3},
    {"MB/s", 1e6},    {"MBps", 1e6},    {"GB/s", 1e9},        {"GBps", 1e9},
    {"TB/s", 1e12},   {"TBps", 1e12},   {"KiB/s", 1024.0},    {"MiB/s", 1048576.0},
    {"GiB/s", 1073741824.0},
    {"bps", 1.0 / 8}, {"b/s", 1.0 / 8}, {"Kbps", 1e3 / 8},    {"Kb/s", 1e3 / 8},
    {"Mbps", 1e6 / 8}, {"Mb/s", 1e6 / 8}, {"Gbps", 1e9 / 8},  {"Gb/s", 1e9 / 8},
    {"Tbps", 1e12 / 8}, {"Tb/s", 1e12 / 8},
};

const std::map<std::string, double> kTimes = {
    {"ps", 1e-12},
    {"ns", 1e-9},
    {"us", 1e-6},
    {"ms", 1e-3},
    {"s", 1.0},
};

const char* kSizeExpected = "a size like 4096, 4KB or 1MiB";
const char* kRateExpected = "a rate like 450GB/s or 400Gbps";
const char* kTimeExpected = "a duration like 5us, 800ns or 1ms";

// A duration in seconds from `units` (a bare 0 needs no unit; any other bare
// number is ambiguous), at most maxSeconds (written maxText in the error).
double
ParseDuration(const std::string& text,
              const std::string& field,
              const std::map<std::string, double>& units,
              const std::string& expected,
              double maxSeconds,
              const char* maxText)
{
    auto [v, unit] = SplitNumberUnit(text, field, expected);
    if (unit.empty() && v == 0)
    {
        return 0;
    }
    const double seconds = Scale(units, text, field, expected, false);
    if (seconds > maxSeconds)
    {
        throw InputError(field, "expected " + expected + " up to " + maxText + ", got '" + text + "'");
    }
    return seconds;
}

} // namespace

uint64_t
ParseBytes(const std::string& text, const std::string& field)
{
    double v = Scale(kBytes, text, field, kSizeExpected, true);
    if (v > 1.8e19)
    {
        throw InputError(field, std::string("expected ") + kSizeExpected + " below 16 EiB, got '" + text + "'");
    }
    // std::round, not std::llround: a long long ends at 9.2e18, and llround
    // of a larger size (up to the 1.8e19 above) returned 2^63.
    return static_cast<uint64_t>(std::round(v));
}

double
ParseBytesPerSecond(const std::string& text, const std::string& field)
{
    const double v = Scale(kRates, text, field, kRateExpected, false);
    // 1 PB/s is far above any link (NVLink 5: 900 GB/s) and keeps the rate in
    // bits per second exact in ns-3's 64-bit DataRate.
    if (v > 1e15)
    {
        throw InputError(field, std::string("expected ") + kRateExpected + " up to 1PB/s, got '" + text + "'");
    }
    return v;
}

DataRate
ParseDataRate(const std::string& text, const std::string& field)
{
    return DataRate(static_cast<uint64_t>(std::llround(ParseBytesPerSecond(text, field) * 8)));
}

double
ParseSeconds(const std::string& text, const std::string& field)
{
    // A communication parameter or limit of more than 1000 s is a typo; larger
    // values also overflow ns-3's Time (9.2e6 s at 1 ps) once summed.
    return ParseDuration(text, field, kTimes, kTimeExpected, 1000, "1000s");
}

Time
ParseTime(const std::string& text, const std::string& field)
{
    return Seconds(ParseSeconds(text, field));
}

Time
ParseWallClockLimit(const std::string& text, const std::string& field)
{
    // A wall-clock limit is not a communication parameter: a 1024-GPU
    // packet run takes tens of minutes, so it may be given in minutes or
    // hours and run up to a week (604 800 s; ns-3's Time at 1 ps holds
    // 9.2e6 s).
    static const std::map<std::string, double> kWall = {
        {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3},
        {"s", 1.0},    {"min", 60.0}, {"h", 3600.0},
    };
    return Seconds(ParseDuration(text, field, kWall, "a wall-clock time like 600s, 30min or 2h", 604800, "168h"));
}

double
ParseNumber(const std::string& text, const std::string& field)
{
    std::string t = Trim(text);
    const char* begin = t.c_str();
    char* end = nullptr;
    double v = std::strtod(begin, &end);
    if (t.empty() || end == begin || *end != '\0' || !std::isfinite(v))
    {
        throw InputError(field, "expected a finite number, got '" + text + "'");
    }
    return v;
}

uint64_t
ParseCount(const std::string& text, const std::string& field)
{
    std::string t = Trim(text);
    if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 18)
    {
        throw InputError(field, "expected a non-negative integer, got '" + text + "'");
    }
    return std::stoull(t);
}

std::vector<std::string>
SplitList(const std::string& text, const std::string& field)
{
    std::vector<std::string> items;
    size_t start = 0;
    while (true)
    {
        size_t comma = text.find(',', start);
        std::string item = Trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (item.empty())
        {
            throw InputError(field, "expected a comma-separated list without empty items, got '" + text + "'");
        }
        items.push_back(item);
        if (comma == std::string::npos)
        {
            break;
        }
        start = comma + 1;
    }
    return items;
}

std::string
FormatBytes(uint64_t bytes)
{
    char buf[64];
    const double b = static_cast<double>(bytes);
    if (bytes >= 1024 && bytes % (1024ULL * 1024 * 1024) == 0)
    {
        std::snprintf(buf, sizeof buf, "%g GiB", b / (1024.0 * 1024 * 1024));
    }
    else if (bytes >= 1024 && bytes % (1024ULL * 1024) == 0)
    {
        std::snprintf(buf, sizeof buf, "%g MiB", b / (1024.0 * 1024));
    }
    else if (bytes >= 1024 && bytes % 1024 == 0 && bytes % 1000 != 0)
    {
        std::snprintf(buf, sizeof buf, "%g KiB", b / 1024.0);
    }
    else if (b >= 1e9)
    {
        std::snprintf(buf, sizeof buf, "%.4g GB", b / 1e9);
    }
    else if (b >= 1e6)
    {
        std::snprintf(buf, sizeof buf, "%.4g MB", b / 1e6);
    }
    else if (b >= 1e3)
    {
        std::snprintf(buf, sizeof buf, "%.4g KB", b / 1e3);
    }
    else
    {
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    }
    return buf;
}

std::string
FormatSeconds(double s)
{
    char buf[64];
    double a = std::fabs(s);
    if (a == 0)
    {
        std::snprintf(buf, sizeof buf, "0 s");
    }
    else if (a < 1e-6)
    {
        std::snprintf(buf, sizeof buf, "%.4g ns", s * 1e9);
    }
    else if (a < 1e-3)
    {
        std::snprintf(buf, sizeof buf, "%.4g us", s * 1e6);
    }
    else if (a < 1)
    {
        std::snprintf(buf, sizeof buf, "%.4g ms", s * 1e3);
    }
    else
    {
        std::snprintf(buf, sizeof buf, "%.4g s", s);
    }
    return buf;
}

std::string
FormatBytesPerSecond(double r)
{
    char buf[64];
    if (r >= 1e9)
    {
        std::snprintf(buf, sizeof buf, "%.4g GB/s", r / 1e9);
    }
    else if (r >= 1e6)
    {
        std::snprintf(buf, sizeof buf, "%.4g MB/s", r / 1e6);
    }
    else
    {
        std::snprintf(buf, sizeof buf, "%.4g KB/s", r / 1e3);
    }
    return buf;
}

} // namespace units
} // namespace ns3
