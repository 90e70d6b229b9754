// SPDX-License-Identifier: GPL-2.0-only
#include "measurement-csv.h"

#include "input-error.h"
#include "measurement-text.h"
#include "units.h"

#include <map>
#include <regex>

namespace ns3
{

namespace
{

using namespace measurement;

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

// A time column and how to read it.
struct TimeColumn
{
    int index = -1;
    double scale = 0;   // seconds per printed unit; 0: each value carries its unit
    bool inPlace = false;
    bool throughput = false;
    double bwScale = 0; // bytes/s per printed unit (throughput columns)
    int algbw = -1;
    int busbw = -1;
    int wrong = -1;
};

} // namespace

MeasurementSet
ParseMeasurementCsv(const std::string& text, const std::string& file)
{
    auto lines = SplitLines(text);
    std::vector<std::string> header;
    uint32_t headerLine = 0;
    uint32_t gpusPerProcess = 0;
    size_t i = 0;
    for (; i < lines.size(); ++i)
    {
        std::string s = Trim(lines[i]);
        if (s.empty() || s[0] == '#')
        {
            // Tables copied from nccl-tests keep the run line in a comment:
            // "nGpus 8" or "-g 8" means one process drove all GPUs.
            static const std::regex kGpus(R"((?:nGpus\s+|\(-g\s+|\s-g\s+)(\d+))");
            std::smatch m;
            if (std::regex_search(s, m, kGpus))
            {
                gpusPerProcess = static_cast<uint32_t>(std::stoul(m[1]));
            }
            continue;
        }
        headerLine = static_cast<uint32_t>(i + 1);
        header = SplitCsv(s, file + ":" + std::to_string(headerLine));
        ++i;
        break;
    }
    std::string headerWhere = file + ":" + std::to_string(headerLine);
    std::map<std::string, int> col;
    for (size_t c = 0; c < header.size(); ++c)
    {
        col.emplace(header[c], static_cast<int>(c));
    }
    auto find = [&](const std::string& name) {
        auto it = col.find(name);
        return it == col.end() ? -1 : it->second;
    };
    int size = -1;
    bool sizeHasUnits = false;
    for (const char* n : {"bytes", "size_bytes", "message_bytes"})
    {
        if (size < 0)
        {
            size = find(n);
        }
    }
    if (size < 0 && (size = find("size")) >= 0)
    {
        sizeHasUnits = true;
    }
    std::vector<TimeColumn> times;
    bool perftest = false;
    const std::pair<const char*, double> kPlain[] = {{"time_s", 1.0},
                                                     {"time_ms", 1e-3},
                                                     {"time_us", 1e-6},
                                                     {"time_ns", 1e-9},
                                                     {"time", 0.0}};
    for (const auto& [name, scale] : kPlain)
    {
        if (times.empty() && find(name) >= 0)
        {
            TimeColumn t;
            t.index = find(name);
            t.scale = scale;
            t.algbw = find("algbw_GBps");
            t.busbw = find("busbw_GBps");
            times.push_back(t);
        }
    }
    if (times.empty())
    {
        for (const char* p : {"oop", "ip"})
        {
            std::string pre = p;
            int idx = find(pre + "_time_us");
            if (idx >= 0)
            {
                TimeColumn t;
                t.index = idx;
                t.scale = 1e-6;
                t.inPlace = pre == "ip";
                t.algbw = find(pre + "_algbw_GBps");
                t.busbw = find(pre + "_busbw_GBps");
                t.wrong = find(pre + "_wrong");
                times.push_back(t);
            }
        }
    }
    if (times.empty())
    {
        int idx = find("t_typical_us") >= 0 ? find("t_typical_us") : find("t_avg_us");
        if (idx >= 0)
        {
            TimeColumn t;
            t.index = idx;
            t.scale = 1e-6;
            times.push_back(t);
            perftest = true;
        }
    }
    if (times.empty())
    {
        for (const auto& [name, scale] : {std::pair<const char*, double>{"bw_avg_Gbps", 1e9 / 8},
                                          std::pair<const char*, double>{"bw_avg_GBps", 1e9}})
        {
            if (times.empty() && find(name) >= 0)
            {
                TimeColumn t;
                t.index = find(name);
                t.throughput = true;
                t.bwScale = scale;
                times.push_back(t);
                perftest = true;
            }
        }
    }
    if (size < 0 || times.empty())
    {
        throw InputError(headerWhere,
                         "expected a CSV header with a size column (bytes, size_bytes, size) and a "
                         "time column (time_s, time_us, time, oop_time_us, t_typical_us, bw_avg_Gbps)");
    }
    int testCol = find("test") >= 0 ? find("test") : find("collective");
    int ranksCol = find("ranks");
    int runCol = find("run");

    MeasurementSet out;
    std::map<std::pair<std::string, std::string>, size_t> sourceOf; // (test, run) -> index
    std::vector<std::vector<MeasurementSample>> perSource;
    for (; i < lines.size(); ++i)
    {
        uint32_t lineNo = static_cast<uint32_t>(i + 1);
        std::string where = file + ":" + std::to_string(lineNo);
        std::string s = Trim(lines[i]);
        if (s.empty() || s[0] == '#')
        {
            continue;
        }
        auto f = SplitCsv(s, where);
        auto field = [&](int idx) { return idx >= 0 && idx < static_cast<int>(f.size()) ? f[idx] : ""; };
        std::string test = field(testCol);
        std::string run = field(runCol);
        auto key = std::make_pair(test, run);
        if (!sourceOf.count(key))
        {
            sourceOf[key] = out.sources.size();
            MeasurementSource src;
            src.file = file;
            src.firstLine = lineNo;
            src.test = test.empty() ? (perftest ? "perftest" : "csv") : test;
            src.collective = perftest ? "p2p" : NormalizeCollectiveName(test);
            if (!test.empty() && src.collective.empty())
            {
                throw InputError(where, "expected a known collective in column '" + header[testCol] +
                                            "', got '" + test + "'");
            }
            src.ranks = perftest ? 2 : 0;
            out.sources.push_back(src);
            perSource.emplace_back();
        }
        size_t si = sourceOf[key];
        uint64_t bytes = 0;
        const std::string& sz = field(size);
        if (sizeHasUnits)
        {
            bytes = units::ParseBytes(sz, where + ": column '" + header[size] + "'");
        }
        else if (auto b = ParseUnsigned(sz))
        {
            bytes = *b;
        }
        else
        {
            throw InputError(where, "expected a size in bytes (a plain integer under header '" +
                                        header[size] + "'), got '" + sz + "'");
        }
        uint32_t ranks = 0;
        if (ranksCol >= 0)
        {
            auto r = ParseUnsigned(field(ranksCol));
            if (!r)
            {
                throw InputError(where, "expected an integer in column 'ranks', got '" +
                                            field(ranksCol) + "'");
            }
            ranks = static_cast<uint32_t>(*r);
        }
        bool truncated = f.size() < header.size();
        for (const auto& t : times)
        {
            std::string v = field(t.index);
            if (v.empty() || v == "N/A")
            {
                if (truncated)
                {
                    out.sources[si].notes.push_back(where + ": truncated row; skipped");
                }
                continue;
            }
            MeasurementSample sm;
            sm.bytes = bytes;
            sm.ranks = ranks;
            sm.inPlace = t.inPlace;
            sm.series = run;
            sm.file = file;
            sm.line = lineNo;
            sm.source = si;
            if (t.throughput)
            {
                auto bw = ParseDouble(v);
                if (!bw || *bw <= 0)
                {
                    throw InputError(where, "expected a positive bandwidth in column '" +
                                                header[t.index] + "', got '" + v + "'");
                }
                sm.kind = MeasurementKind::THROUGHPUT;
                sm.algbwBps = sm.busbwBps = *bw * t.bwScale;
                sm.timeS = static_cast<double>(bytes) / sm.algbwBps;
            }
            else if (t.scale == 0)
            {
                // The header names no unit: every value must carry one.
                if (ParseDouble(v))
                {
                    throw InputError(where, "expected a time with its unit (5us) under header '" +
                                                header[t.index] +
                                                "' which names none, got '" + v + "' (mixed units)");
                }
                sm.timeS = units::ParseSeconds(v, where + ": column '" + header[t.index] + "'");
            }
            else
            {
                auto x = ParseDouble(v);
                if (!x)
                {
                    throw InputError(where, "expected a plain number in column '" + header[t.index] +
                                                "' (its unit is in the header), got '" + v +
                                                "' (mixed units)");
                }
                sm.timeS = *x * t.scale;
            }
            if (!(sm.timeS > 0))
            {
                throw InputError(where, "expected a positive time, got '" + v + "'");
            }
            if (!t.throughput)
            {
                auto bw = [&](int idx) {
                    auto x = ParseDouble(field(idx));
                    return x ? *x * 1e9 : -1.0;
                };
                sm.algbwBps = bw(t.algbw);
                sm.busbwBps = bw(t.busbw);
            }
            if (t.wrong >= 0)
            {
                auto w = ParseDouble(field(t.wrong));
                sm.wrong = w ? static_cast<int64_t>(*w) : -1;
                if (w && *w > 0)
                {
                    out.sources[si].notes.push_back(where + ": #wrong = " + field(t.wrong) +
                                                    ": the result failed validation");
                }
            }
            perSource[si].push_back(sm);
        }
    }
    for (size_t si = 0; si < out.sources.size(); ++si)
    {
        auto& src = out.sources[si];
        src.headerless = !perftest;
        src.gpusPerThread = gpusPerProcess;
        for (const auto& sm : perSource[si])
        {
            if (sm.ranks > 0)
            {
                src.ranks = sm.ranks;
                break;
            }
        }
        ResolveCollectiveAndRanks(src, perSource[si]);
        for (auto& sm : perSource[si])
        {
            if (perftest)
            {
                sm.collective = "p2p";
                sm.ranks = 2;
            }
            out.samples.push_back(sm);
        }
    }
    return out;
}

} // namespace ns3
