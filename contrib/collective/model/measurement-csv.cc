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

// The header and the columns it names.
struct CsvLayout
{
    std::vector<std::string> header;
    std::string where;             // file:line of the header
    std::map<std::string, int> col; // name -> index of its first column
    int size = -1;
    bool sizeHasUnits = false;
    std::vector<TimeColumn> times;
    bool perftest = false;
    int testCol = -1;
    int ranksCol = -1;
    int runCol = -1;

    int Find(const std::string& name) const
    {
        auto it = col.find(name);
        return it == col.end() ? -1 : it->second;
    }
};

// Skips the blank and comment lines before the header, splits the header and
// returns the index of the line after it. Tables copied from nccl-tests keep
// the run line in a comment: "nGpus 8" or "-g 8" means one process drove all
// GPUs (\p gpusPerProcess).
size_t
ReadHeader(const std::vector<std::string>& lines,
           const std::string& file,
           CsvLayout& t,
           uint32_t& gpusPerProcess)
{
    uint32_t headerLine = 0;
    size_t i = 0;
    for (; i < lines.size(); ++i)
    {
        std::string s = Trim(lines[i]);
        if (s.empty() || s[0] == '#')
        {
            static const std::regex kGpus(R"((?:nGpus\s+|\(-g\s+|\s-g\s+)(\d+))");
            std::smatch m;
            if (std::regex_search(s, m, kGpus))
            {
                gpusPerProcess = ParseCount32(m[1], "a GPU count", file + ":" + std::to_string(i + 1));
            }
            continue;
        }
        headerLine = static_cast<uint32_t>(i + 1);
        t.header = SplitCsv(s, file + ":" + std::to_string(headerLine));
        ++i;
        break;
    }
    t.where = file + ":" + std::to_string(headerLine);
    for (size_t c = 0; c < t.header.size(); ++c)
    {
        t.col.emplace(t.header[c], static_cast<int>(c));
    }
    return i;
}

void
FindSizeColumn(CsvLayout& t)
{
    for (const char* n : {"bytes", "size_bytes", "message_bytes"})
    {
        if (t.size < 0)
        {
            t.size = t.Find(n);
        }
    }
    if (t.size < 0 && (t.size = t.Find("size")) >= 0)
    {
        t.sizeHasUnits = true;
    }
}

// time_s, time_ms, time_us, time_ns or time (each value with its unit).
void
FindPlainTimeColumn(CsvLayout& t)
{
    const std::pair<const char*, double> kPlain[] = {{"time_s", 1.0},
                                                     {"time_ms", 1e-3},
                                                     {"time_us", 1e-6},
                                                     {"time_ns", 1e-9},
                                                     {"time", 0.0}};
    for (const auto& [name, scale] : kPlain)
    {
        if (t.times.empty() && t.Find(name) >= 0)
        {
            TimeColumn c;
            c.index = t.Find(name);
            c.scale = scale;
            c.algbw = t.Find("algbw_GBps");
            c.busbw = t.Find("busbw_GBps");
            t.times.push_back(c);
        }
    }
}

// nccl-tests tables: oop_time_us and ip_time_us, each with its algbw, busbw, #wrong.
void
FindNcclTestsTimeColumns(CsvLayout& t)
{
    for (const char* p : {"oop", "ip"})
    {
        std::string pre = p;
        int idx = t.Find(pre + "_time_us");
        if (idx >= 0)
        {
            TimeColumn c;
            c.index = idx;
            c.scale = 1e-6;
            c.inPlace = pre == "ip";
            c.algbw = t.Find(pre + "_algbw_GBps");
            c.busbw = t.Find(pre + "_busbw_GBps");
            c.wrong = t.Find(pre + "_wrong");
            t.times.push_back(c);
        }
    }
}

// perftest latency: t_typical_us, else t_avg_us.
void
FindPerftestLatencyColumn(CsvLayout& t)
{
    int idx = t.Find("t_typical_us") >= 0 ? t.Find("t_typical_us") : t.Find("t_avg_us");
    if (idx >= 0)
    {
        TimeColumn c;
        c.index = idx;
        c.scale = 1e-6;
        t.times.push_back(c);
        t.perftest = true;
    }
}

// perftest bandwidth: bw_avg_Gbps (bits) or bw_avg_GBps (bytes).
void
FindPerftestBandwidthColumn(CsvLayout& t)
{
    for (const auto& [name, scale] : {std::pair<const char*, double>{"bw_avg_Gbps", 1e9 / 8},
                                      std::pair<const char*, double>{"bw_avg_GBps", 1e9}})
    {
        if (t.times.empty() && t.Find(name) >= 0)
        {
            TimeColumn c;
            c.index = t.Find(name);
            c.throughput = true;
            c.bwScale = scale;
            t.times.push_back(c);
            t.perftest = true;
        }
    }
}

// The size column, the time columns of the first kind of table the header
// matches, and the optional key columns.
void
FindColumns(CsvLayout& t)
{
    FindSizeColumn(t);
    FindPlainTimeColumn(t);
    if (t.times.empty())
    {
        FindNcclTestsTimeColumns(t);
    }
    if (t.times.empty())
    {
        FindPerftestLatencyColumn(t);
    }
    if (t.times.empty())
    {
        FindPerftestBandwidthColumn(t);
    }
    if (t.size < 0 || t.times.empty())
    {
        throw InputError(t.where,
                         "expected a CSV header with a size column (bytes, size_bytes, size) and a "
                         "time column (time_s, time_us, time, oop_time_us, t_typical_us, bw_avg_Gbps)");
    }
    t.testCol = t.Find("test") >= 0 ? t.Find("test") : t.Find("collective");
    t.ranksCol = t.Find("ranks");
    t.runCol = t.Find("run");
}

// The row's field at \p idx; "" when the column is absent or the row short.
std::string
Field(const std::vector<std::string>& f, int idx)
{
    return idx >= 0 && idx < static_cast<int>(f.size()) ? f[idx] : "";
}

// The sources read so far, one per (test, run), with their samples.
struct CsvSources
{
    MeasurementSet out;
    std::map<std::pair<std::string, std::string>, size_t> sourceOf; // (test, run) -> index
    std::vector<std::vector<MeasurementSample>> perSource;
};

// The index of the (test, run) source, created at its first row.
size_t
SourceOf(CsvSources& acc,
         const CsvLayout& t,
         const std::string& test,
         const std::string& run,
         const std::string& file,
         uint32_t lineNo,
         const std::string& where)
{
    auto key = std::make_pair(test, run);
    if (!acc.sourceOf.count(key))
    {
        acc.sourceOf[key] = acc.out.sources.size();
        MeasurementSource src;
        src.file = file;
        src.firstLine = lineNo;
        src.test = test.empty() ? (t.perftest ? "perftest" : "csv") : test;
        src.collective = t.perftest ? "p2p" : NormalizeCollectiveName(test);
        if (!test.empty() && src.collective.empty())
        {
            throw InputError(where, "expected a known collective in column '" + t.header[t.testCol] +
                                        "', got '" + test + "'");
        }
        src.ranks = t.perftest ? 2 : 0;
        acc.out.sources.push_back(src);
        acc.perSource.emplace_back();
    }
    return acc.sourceOf[key];
}

uint64_t
RowBytes(const CsvLayout& t, const std::string& sz, const std::string& where)
{
    if (t.sizeHasUnits)
    {
        return units::ParseBytes(sz, where + ": column '" + t.header[t.size] + "'");
    }
    if (auto b = ParseUnsigned(sz))
    {
        return *b;
    }
    throw InputError(where, "expected a size in bytes (a plain integer under header '" + t.header[t.size] +
                                "'), got '" + sz + "'");
}

uint32_t
RowRanks(const CsvLayout& t, const std::vector<std::string>& f, const std::string& where)
{
    if (t.ranksCol < 0)
    {
        return 0;
    }
    return ParseCount32(Field(f, t.ranksCol), "an integer in column 'ranks'", where);
}

// The sample's time from value \p v of time column \p c (and, for a
// bandwidth column, its bandwidths and kind).
void
ReadTime(const CsvLayout& t, const TimeColumn& c, const std::string& v, const std::string& where, MeasurementSample& sm)
{
    if (c.throughput)
    {
        auto bw = ParseDouble(v);
        if (!bw || *bw <= 0)
        {
            throw InputError(where, "expected a positive bandwidth in column '" + t.header[c.index] + "', got '" +
                                        v + "'");
        }
        sm.kind = MeasurementKind::THROUGHPUT;
        sm.algbwBps = sm.busbwBps = *bw * c.bwScale;
        sm.timeS = static_cast<double>(sm.bytes) / sm.algbwBps;
    }
    else if (c.scale == 0)
    {
        // The header names no unit: every value must carry one.
        if (ParseDouble(v))
        {
            throw InputError(where, "expected a time with its unit (5us) under header '" + t.header[c.index] +
                                        "' which names none, got '" + v + "' (mixed units)");
        }
        sm.timeS = units::ParseSeconds(v, where + ": column '" + t.header[c.index] + "'");
    }
    else
    {
        auto x = ParseDouble(v);
        if (!x)
        {
            throw InputError(where, "expected a plain number in column '" + t.header[c.index] +
                                        "' (its unit is in the header), got '" + v + "' (mixed units)");
        }
        sm.timeS = *x * c.scale;
    }
    if (!(sm.timeS > 0))
    {
        throw InputError(where, "expected a positive time, got '" + v + "'");
    }
}

// A time column's algbw / busbw (-1: none) and #wrong, with a note on the
// source when the result failed validation.
void
ReadChecks(const TimeColumn& c,
           const std::vector<std::string>& f,
           const std::string& where,
           MeasurementSample& sm,
           MeasurementSource& src)
{
    if (!c.throughput)
    {
        auto bw = [&](int idx) {
            auto x = ParseDouble(Field(f, idx));
            return x ? *x * 1e9 : -1.0;
        };
        sm.algbwBps = bw(c.algbw);
        sm.busbwBps = bw(c.busbw);
    }
    if (c.wrong >= 0)
    {
        auto w = ParseDouble(Field(f, c.wrong));
        sm.wrong = WrongCount(w);
        if (w && *w > 0)
        {
            src.notes.push_back(where + ": #wrong = " + Field(f, c.wrong) + ": the result failed validation");
        }
    }
}

// One data row: a sample per time column that has a value.
void
ReadRow(CsvSources& acc, const CsvLayout& t, const std::string& s, const std::string& file, uint32_t lineNo)
{
    std::string where = file + ":" + std::to_string(lineNo);
    auto f = SplitCsv(s, where);
    std::string test = Field(f, t.testCol);
    std::string run = Field(f, t.runCol);
    size_t si = SourceOf(acc, t, test, run, file, lineNo, where);
    uint64_t bytes = RowBytes(t, Field(f, t.size), where);
    uint32_t ranks = RowRanks(t, f, where);
    bool truncated = f.size() < t.header.size();
    for (const auto& c : t.times)
    {
        std::string v = Field(f, c.index);
        if (v.empty() || v == "N/A")
        {
            if (truncated)
            {
                acc.out.sources[si].notes.push_back(where + ": truncated row; skipped");
            }
            continue;
        }
        MeasurementSample sm;
        sm.bytes = bytes;
        sm.ranks = ranks;
        sm.inPlace = c.inPlace;
        sm.series = run;
        sm.file = file;
        sm.line = lineNo;
        sm.source = si;
        ReadTime(t, c, v, where, sm);
        ReadChecks(c, f, where, sm, acc.out.sources[si]);
        acc.perSource[si].push_back(sm);
    }
}

// Completes every source (provenance, collective and ranks) and collects its
// samples, source by source.
MeasurementSet
Collect(CsvSources& acc, bool perftest, uint32_t gpusPerProcess)
{
    MeasurementSet& out = acc.out;
    for (size_t si = 0; si < out.sources.size(); ++si)
    {
        auto& src = out.sources[si];
        src.headerless = !perftest;
        src.gpusPerThread = gpusPerProcess;
        for (const auto& sm : acc.perSource[si])
        {
            if (sm.ranks > 0)
            {
                src.ranks = sm.ranks;
                break;
            }
        }
        ResolveCollectiveAndRanks(src, acc.perSource[si]);
        for (auto& sm : acc.perSource[si])
        {
            if (perftest)
            {
                sm.collective = "p2p";
                sm.ranks = 2;
            }
            out.samples.push_back(sm);
        }
    }
    return std::move(out);
}

} // namespace

MeasurementSet
ParseMeasurementCsv(const std::string& text, const std::string& file)
{
    auto lines = SplitLines(text);
    CsvLayout layout;
    uint32_t gpusPerProcess = 0;
    size_t i = ReadHeader(lines, file, layout, gpusPerProcess);
    FindColumns(layout);
    CsvSources acc;
    for (; i < lines.size(); ++i)
    {
        std::string s = Trim(lines[i]);
        if (!s.empty() && s[0] != '#')
        {
            ReadRow(acc, layout, s, file, static_cast<uint32_t>(i + 1));
        }
    }
    return Collect(acc, layout.perftest, gpusPerProcess);
}

} // namespace ns3
