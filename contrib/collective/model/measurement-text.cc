// SPDX-License-Identifier: GPL-2.0-only
#include "measurement-text.h"

#include "input-error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace ns3
{
namespace measurement
{

std::vector<std::string>
SplitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::string cur;
    for (char c : text)
    {
        if (c == '\n')
        {
            lines.push_back(cur);
            cur.clear();
        }
        else if (c != '\r')
        {
            cur += c;
        }
    }
    if (!cur.empty())
    {
        lines.push_back(cur);
    }
    return lines;
}

std::vector<std::string>
SplitWhitespace(const std::string& line)
{
    std::vector<std::string> out;
    std::istringstream is(line);
    std::string tok;
    while (is >> tok)
    {
        out.push_back(tok);
    }
    return out;
}

std::string
Trim(const std::string& s)
{
    size_t b = s.find_first_not_of(" \t");
    size_t e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string
Lower(const std::string& s)
{
    std::string out = s;
    for (char& c : out)
    {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

std::optional<double>
ParseDouble(const std::string& token)
{
    if (token.empty())
    {
        return std::nullopt;
    }
    const char* begin = token.c_str();
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(begin, &end);
    if (end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    {
        return std::nullopt;
    }
    return v;
}

std::optional<uint64_t>
ParseUnsigned(const std::string& token)
{
    if (token.empty() || token.size() > 19)
    {
        return std::nullopt;
    }
    uint64_t v = 0;
    for (char c : token)
    {
        if (!std::isdigit(static_cast<unsigned char>(c)))
        {
            return std::nullopt;
        }
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return v;
}

uint32_t
ParseCount32(const std::string& token, const std::string& what, const std::string& where)
{
    const auto v = ParseUnsigned(token);
    if (!v || *v > UINT32_MAX)
    {
        throw InputError(where, "expected " + what + " below 2^32, got '" + token + "'");
    }
    return static_cast<uint32_t>(*v);
}

int64_t
WrongCount(const std::optional<double>& value)
{
    if (!value)
    {
        return -1;
    }
    return static_cast<int64_t>(std::clamp(*value, -1.0, 9.2e18));
}

std::vector<std::string>
SplitCsv(const std::string& line, const std::string& where)
{
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i)
    {
        char c = line[i];
        if (quoted)
        {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
            {
                cur += '"';
                ++i;
            }
            else if (c == '"')
            {
                quoted = false;
            }
            else
            {
                cur += c;
            }
        }
        else if (c == '"')
        {
            quoted = true;
        }
        else if (c == ',')
        {
            out.push_back(Trim(cur));
            cur.clear();
        }
        else
        {
            cur += c;
        }
    }
    if (quoted)
    {
        throw InputError(where, "expected a closing quote in the CSV row");
    }
    out.push_back(Trim(cur));
    return out;
}

} // namespace measurement
} // namespace ns3
