// SPDX-License-Identifier: GPL-2.0-only
//
// The one parser and formatter for quantities with units, for flags, scenario
// fields and topology descriptions alike: sizes B KB MB GB TB (powers of 1000)
// and KiB MiB GiB TiB (powers of 1024); rates B/s KB/s MB/s GB/s TB/s (bytes,
// also written GBps) and bps Kbps Mbps Gbps Tbps (bits, also written Gb/s);
// times ps ns us ms s. Every parser throws InputError naming the field on a
// malformed, NaN, infinite or negative value.
#ifndef HOCKNEY_UNITS_H
#define HOCKNEY_UNITS_H

#include "input-error.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace units
{

/// A size in bytes: "4096", "4KB", "1.5MiB". Rounds to the nearest byte.
uint64_t ParseBytes(const std::string& text, const std::string& field);
/// A rate in bytes per second: "450GB/s", "400Gbps".
double ParseBytesPerSecond(const std::string& text, const std::string& field);
/// The same rate as an ns-3 DataRate (bits per second).
DataRate ParseDataRate(const std::string& text, const std::string& field);
/// A duration in seconds: "5us", "0.8us", "3ms", "0s".
double ParseSeconds(const std::string& text, const std::string& field);
/// The same duration as an ns-3 Time.
Time ParseTime(const std::string& text, const std::string& field);
/// A wall-clock limit: the units of ParseTime plus "min" and "h", up to
/// 168h ("600s", "30min", "2h", "0s").
Time ParseWallClockLimit(const std::string& text, const std::string& field);
/// A plain finite number: "0.95", "1e-3".
double ParseNumber(const std::string& text, const std::string& field);
/// A non-negative integer: "8".
uint64_t ParseCount(const std::string& text, const std::string& field);
/// Splits "a,b,c" into its items; an empty item is an error naming the field.
std::vector<std::string> SplitList(const std::string& text, const std::string& field);

/// "2.25 MB", "4 KiB", "1 GiB", "512 B", for tables: a whole number of KiB
/// (not of KB), MiB or GiB in those units, otherwise powers of 1000 to 4
/// significant digits.
std::string FormatBytes(uint64_t bytes);
/// "5 us", "2.5 ns", "12.3 ms", for tables (4 significant digits).
std::string FormatSeconds(double seconds);
/// "450 GB/s", "12.5 MB/s", for tables (4 significant digits).
std::string FormatBytesPerSecond(double bytesPerSecond);

} // namespace units
} // namespace ns3

#endif
