// SPDX-License-Identifier: GPL-2.0-only
//
// Small text helpers shared by the measurement-log readers (nccl-tests,
// perftest, CSV): strict number parsing, so that "71.9x" or "1e" in a log is an
// error rather than a silently truncated value.
#ifndef HOCKNEY_MEASUREMENT_TEXT_H
#define HOCKNEY_MEASUREMENT_TEXT_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{
namespace measurement
{

std::vector<std::string> SplitLines(const std::string& text); ///< drops '\r'
std::vector<std::string> SplitWhitespace(const std::string& line);
std::string Trim(const std::string& s);
/// One CSV row's fields, trimmed (RFC 4180 quotes); an unclosed quote is
/// an InputError naming \p where.
std::vector<std::string> SplitCsv(const std::string& line, const std::string& where);
std::string Lower(const std::string& s);
/// The whole token is a finite number ("12.5", "1e-3"); otherwise nullopt.
std::optional<double> ParseDouble(const std::string& token);
/// The whole token is a non-negative integer; otherwise nullopt.
std::optional<uint64_t> ParseUnsigned(const std::string& token);
/// A count a log states ("nGpus 8", "Rank 7", a CSV ranks column) as a
/// uint32_t; an InputError naming \p where ("expected WHAT below 2^32") when
/// \p token is not a whole number below 2^32.
uint32_t ParseCount32(const std::string& token, const std::string& what, const std::string& where);
/// nccl-tests' #wrong column read by ParseDouble ("0", "0e+00" before 2.0) as
/// a count: -1 when absent or negative, saturated at 9.2e18 (a double beyond
/// int64_t converted as it is would be undefined behaviour).
int64_t WrongCount(const std::optional<double>& value);

} // namespace measurement
} // namespace ns3

#endif
