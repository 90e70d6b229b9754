// SPDX-License-Identifier: GPL-2.0-only
#include "perftest-log.h"

#include "input-error.h"
#include "measurement-text.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{

using namespace measurement;

struct Heading
{
    bool bandwidth = false;
    int timeColumn = -1;   // latency: t_typical (or t_avg) data column
    double bwScale = 0;    // bandwidth: bytes/s per printed unit
    size_t columns = 0;
};

// The heading's tokens are column names, except that "BW peak[Gb/sec]" and
// "99% percentile[usec]" are two tokens each: count data columns by the tokens
// that carry a '[unit]' or start with '#'.
Heading
ParseHeading(const std::string& line, const std::string& where)
{
    Heading h;
    auto tok = SplitWhitespace(line);
    int column = 0;
    int typical = -1;
    int avg = -1;
    for (const auto& t : tok)
    {
        bool isColumn = t[0] == '#' || t.find('[') != std::string::npos;
        if (!isColumn)
        {
            continue;
        }
        if (t.rfind("t_typical", 0) == 0)
        {
            typical = column;
        }
        if (t.rfind("t_avg", 0) == 0)
        {
            avg = column;
        }
        if (t.rfind("average[", 0) == 0)
        {
            h.bandwidth = true;
            h.timeColumn = column;
            if (t.find("[Gb/sec]") != std::string::npos)
            {
                h.bwScale = 1e9 / 8;
            }
            else if (t.find("[MB/sec]") != std::string::npos)
            {
                h.bwScale = 1048576.0;
            }
            else
            {
                throw InputError(where, "expected BW average in [Gb/sec] or [MB/sec], got '" + t + "'");
            }
        }
        ++column;
    }
    h.columns = static_cast<size_t>(column);
    if (!h.bandwidth)
    {
        h.timeColumn = typical >= 0 ? typical : avg;
    }
    if (h.timeColumn < 0)
    {
        throw InputError(where, "expected a perftest heading with t_typical[usec], t_avg[usec] or "
                                "BW average, got '" + Trim(line) + "'");
    }
    return h;
}

} // namespace

bool
LooksLikePerftestLog(const std::string& text)
{
    for (const auto& line : SplitLines(text))
    {
        auto tok = SplitWhitespace(line);
        if (tok.size() >= 3 && tok[0] == "#bytes" && tok[1] == "#iterations")
        {
            return true;
        }
    }
    return false;
}

MeasurementSet
ParsePerftestLog(const std::string& text, const std::string& file)
{
    MeasurementSet out;
    auto lines = SplitLines(text);
    std::string title;
    uint32_t titleLine = 1;
    bool inTable = false;
    Heading heading;
    for (size_t i = 0; i < lines.size(); ++i)
    {
        uint32_t lineNo = static_cast<uint32_t>(i + 1);
        std::string where = file + ":" + std::to_string(lineNo);
        std::string s = Trim(lines[i]);
        auto tok = SplitWhitespace(s);
        if (tok.empty())
        {
            continue;
        }
        if (s.find(" Test") != std::string::npos &&
            (s.find("BW") != std::string::npos || s.find("Latency") != std::string::npos) &&
            s.find(':') == std::string::npos)
        {
            title = s;
            titleLine = lineNo;
            continue;
        }
        if (tok[0] == "#bytes")
        {
            heading = ParseHeading(s, where);
            inTable = true;
            MeasurementSource src;
            src.file = file;
            src.firstLine = title.empty() ? lineNo : titleLine;
            src.test = title.empty() ? (heading.bandwidth ? "perftest bw" : "perftest lat") : title;
            src.collective = "p2p";
            src.ranks = 2;
            src.processes = 2;
            out.sources.push_back(src);
            continue;
        }
        if (!inTable)
        {
            continue;
        }
        if (s[0] == '-')
        {
            inTable = false; // the dashed line that closes the table
            continue;
        }
        auto bytes = ParseUnsigned(tok[0]);
        if (!bytes)
        {
            continue; // warnings ("Conflicting CPU frequency values ...") between rows
        }
        auto& src = out.sources.back();
        size_t need = static_cast<size_t>(heading.timeColumn) + 1;
        // A truncated row is kept only when its time field is followed by another.
        bool complete = tok.size() >= heading.columns;
        if (tok.size() < need || (!complete && tok.size() == need))
        {
            src.notes.push_back(where + ": truncated row (" + std::to_string(tok.size()) + " of " +
                                std::to_string(heading.columns) + " fields); skipped");
            continue;
        }
        auto v = ParseDouble(tok[heading.timeColumn]);
        if (!v || *v <= 0)
        {
            throw InputError(where, "expected a positive number in column " +
                                        std::to_string(heading.timeColumn + 1) + ", got '" +
                                        tok[heading.timeColumn] + "'");
        }
        MeasurementSample sm;
        sm.collective = "p2p";
        sm.ranks = 2;
        sm.bytes = *bytes;
        sm.file = file;
        sm.line = lineNo;
        sm.source = out.sources.size() - 1;
        if (heading.bandwidth)
        {
            double bw = *v * heading.bwScale;
            sm.kind = MeasurementKind::THROUGHPUT;
            sm.algbwBps = bw;
            sm.busbwBps = bw;
            sm.timeS = static_cast<double>(*bytes) / bw;
            // A 0-byte row (perftest prints none) or a bandwidth at the ends
            // of a double's range gives a time of 0 s or an infinite one,
            // which calibration cannot fit.
            if (!(std::isfinite(sm.timeS) && sm.timeS > 0))
            {
                throw InputError(where, "expected a size above 0 bytes and a bandwidth giving a finite time "
                                        "(bytes / BW average), got " +
                                            tok[0] + " bytes at '" + tok[heading.timeColumn] + "'");
            }
        }
        else
        {
            sm.kind = MeasurementKind::LATENCY;
            sm.timeS = *v * 1e-6;
        }
        out.samples.push_back(sm);
    }
    return out;
}

} // namespace ns3
