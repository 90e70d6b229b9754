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

} // namespace measurement
} // namespace ns3

#endif
