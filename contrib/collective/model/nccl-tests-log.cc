// SPDX-License-Identifier: GPL-2.0-only
#include "nccl-tests-log.h"

#include "input-error.h"
#include "measurement-text.h"

#include "ns3/log.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyNcclTestsLog");

namespace
{

using namespace measurement;

// One (time, algbw, busbw, #wrong) group of the heading: out-of-place or in-place.
struct ColumnGroup
{
    int time = -1;
    int algbw = -1;
    int busbw = -1;
    int wrong = -1;
    bool inPlace = false;
};

struct Layout
{
    int size = -1;
    size_t columns = 0;
    std::vector<ColumnGroup> groups;
    double timeScale = 1e-6; // nccl-tests prints microseconds
    double bwScale = 1e9;    // and GB/s (powers of 1000: bytes / 1e9 / s)
};

// Column heading tokens -> layout. "error" is the pre-2.0 name of #wrong.
Layout
LayoutFromNames(const std::vector<std::string>& names, int placement /* 0 both, 1 oop, 2 ip */)
{
    Layout l;
    l.columns = names.size();
    for (size_t i = 0; i < names.size(); ++i)
    {
        const std::string& n = names[i];
        if (n == "size" && l.size < 0)
        {
            l.size = static_cast<int>(i);
        }
        else if (n == "time")
        {
            l.groups.emplace_back();
            l.groups.back().time = static_cast<int>(i);
        }
        else if (!l.groups.empty() && n == "algbw")
        {
            l.groups.back().algbw = static_cast<int>(i);
        }
        else if (!l.groups.empty() && n == "busbw")
        {
            l.groups.back().busbw = static_cast<int>(i);
        }
        else if (!l.groups.empty() && (n == "#wrong" || n == "wrong" || n == "error"))
        {
            l.groups.back().wrong = static_cast<int>(i);
        }
    }
    // The label line above the heading says which group is which; two groups
    // are always out-of-place then in-place.
    for (size_t g = 0; g < l.groups.size(); ++g)
    {
        l.groups[g].inPlace = (l.groups.size() >= 2) ? (g == 1) : (placement == 2);
    }
    return l;
}

Layout
BareTableLayout(size_t tokens)
{
    // Modern rows: size count type redop root | time algbw busbw #wrong | x2.
    // Before the root column (nccl-tests < 2.10): 12 fields.
    if (tokens == 12)
    {
        return LayoutFromNames({"size", "count", "type", "redop", "time", "algbw", "busbw", "error",
                                "time", "algbw", "busbw", "error"},
                               0);
    }
    return LayoutFromNames({"size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                            "#wrong", "time", "algbw", "busbw", "#wrong"},
                           0);
}

bool
IsDataRow(const std::vector<std::string>& tok)
{
    // size and count are integers, then the data type (float, double, int8, ...).
    return tok.size() >= 3 && ParseUnsigned(tok[0]) && ParseUnsigned(tok[1]) &&
           std::isalpha(static_cast<unsigned char>(tok[2][0]));
}

double
TimeUnitScale(const std::string& unit)
{
    if (unit == "(us)")
    {
        return 1e-6;
    }
    if (unit == "(ms)")
    {
        return 1e-3;
    }
    if (unit == "(ns)")
    {
        return 1e-9;
    }
    if (unit == "(s)")
    {
        return 1.0;
    }
    return 0;
}

class Parser
{
  public:
    explicit Parser(const std::string& file)
        : m_file(file)
    {
    }

    MeasurementSet Run(const std::string& text);

  private:
    void Open(uint32_t line);
    void Close();
    void Header(const std::string& body, uint32_t line);
    void Row(const std::vector<std::string>& tok, uint32_t line);
    void Finish(MeasurementSource& src, std::vector<MeasurementSample>& samples);
    std::string Where(uint32_t line) const
    {
        return m_file + ":" + std::to_string(line);
    }

    std::string m_file;
    MeasurementSet m_out;
    bool m_open = false;
    MeasurementSource m_src;
    std::vector<MeasurementSample> m_samples;
    std::set<std::string> m_pids;
    std::set<std::string> m_hosts;
    std::set<uint32_t> m_rankIds;
    bool m_haveLayout = false;
    Layout m_layout;
    int m_placement = 0;
};

void
Parser::Open(uint32_t line)
{
    Close();
    m_open = true;
    m_src = MeasurementSource();
    m_src.file = m_file;
    m_src.firstLine = line;
    m_samples.clear();
    m_pids.clear();
    m_hosts.clear();
    m_rankIds.clear();
    m_haveLayout = false;
    m_placement = 0;
}

void
Parser::Close()
{
    if (!m_open)
    {
        return;
    }
    m_open = false;
    m_src.ranks = static_cast<uint32_t>(m_rankIds.size());
    m_src.processes = static_cast<uint32_t>(m_pids.size());
    m_src.hosts = static_cast<uint32_t>(m_hosts.size());
    if (m_samples.empty() && m_src.test.empty() && m_src.ranks == 0)
    {
        return; // a version line alone, or blank separators
    }
    Finish(m_src, m_samples);
    for (auto& s : m_samples)
    {
        s.source = m_out.sources.size();
    }
    m_out.sources.push_back(m_src);
    m_out.samples.insert(m_out.samples.end(), m_samples.begin(), m_samples.end());
}

void
Parser::Finish(MeasurementSource& src, std::vector<MeasurementSample>& samples)
{
    // A bare table's process layout is unknown: calibration reports it (headerless).
    ResolveCollectiveAndRanks(src, samples);
}

// "Rank R Group G Pid P on HOST device D ..." read token by token: rank, pid
// and host, or false. The regular expression this replaces
// (Rank\s+(\d+)\b.*?\bPid ...) backtracked over the whole line from every
// "Rank": a 32 KB comment line took seconds.
bool
RankLine(const std::vector<std::string>& tok, std::string& rank, std::string& pid, std::string& host)
{
    for (size_t i = 0; i + 1 < tok.size(); ++i)
    {
        if (tok[i] != "Rank" || !ParseUnsigned(tok[i + 1]))
        {
            continue;
        }
        for (size_t j = i + 2; j + 3 < tok.size(); ++j)
        {
            if (tok[j] == "Pid" && ParseUnsigned(tok[j + 1]) && tok[j + 2] == "on")
            {
                rank = tok[i + 1];
                pid = tok[j + 1];
                host = tok[j + 3];
                return true;
            }
        }
        return false;
    }
    return false;
}

void
Parser::Header(const std::string& body, uint32_t line)
{
    static const std::regex kStart(R"(Collective test starting:\s*(\S+))");
    static const std::regex kThreads(R"(nThread\s+(\d+)\s+nGpus\s+(\d+))");
    static const std::regex kOob(R"(Out of bounds values\s*:\s*(\d+))");
    std::smatch m;
    if (body.rfind("nccl-tests version", 0) == 0)
    {
        Open(line);
        return;
    }
    if (std::regex_search(body, m, kStart))
    {
        if (!m_open || !m_src.test.empty() || !m_samples.empty())
        {
            Open(line);
        }
        m_src.test = m[1];
        return;
    }
    if (!m_open)
    {
        Open(line);
    }
    if (std::regex_search(body, m, kThreads))
    {
        m_src.threads = ParseCount32(m[1], "a thread count (nThread)", Where(line));
        m_src.gpusPerThread = ParseCount32(m[2], "a GPU count (nGpus)", Where(line));
        return;
    }
    std::string rank;
    std::string pid;
    std::string host;
    if (RankLine(SplitWhitespace(body), rank, pid, host))
    {
        m_rankIds.insert(ParseCount32(rank, "a rank", Where(line)));
        m_pids.insert(pid);
        m_hosts.insert(host);
        return;
    }
    if (std::regex_search(body, m, kOob))
    {
        if (m[1].str().find_first_not_of('0') != std::string::npos)
        {
            m_src.notes.push_back(Where(line) + ": " + std::string(m[1]) +
                                  " out-of-bounds values reported by nccl-tests");
        }
        return;
    }
    if (body.rfind("Collective test concluded", 0) == 0)
    {
        Close();
        return;
    }
    auto tok = SplitWhitespace(body);
    bool hasOop = body.find("out-of-place") != std::string::npos;
    bool hasIp = body.find("in-place") != std::string::npos;
    if (hasOop || hasIp)
    {
        m_placement = (hasOop && hasIp) ? 0 : (hasOop ? 1 : 2);
        return;
    }
    if (std::find(tok.begin(), tok.end(), "size") != tok.end() &&
        std::find(tok.begin(), tok.end(), "time") != tok.end())
    {
        m_layout = LayoutFromNames(tok, m_placement);
        m_haveLayout = true;
        if (m_layout.groups.empty() || m_layout.size < 0)
        {
            throw InputError(Where(line), "expected an nccl-tests heading with size and time columns");
        }
        return;
    }
    if (!tok.empty() && tok[0] == "(B)")
    {
        // Units line: one time unit per group, which must agree.
        double scale = 0;
        std::string first;
        for (const auto& t : tok)
        {
            double s = TimeUnitScale(t);
            if (s == 0)
            {
                if (t != "(B)" && t != "(elements)" && t != "(GB/s)")
                {
                    throw InputError(Where(line),
                                     "expected nccl-tests units (B) (elements) (us) (GB/s), got '" +
                                         t + "'");
                }
                continue;
            }
            if (scale != 0 && s != scale)
            {
                throw InputError(Where(line),
                                 "expected one time unit for every column, got mixed units " +
                                     first + " and " + t);
            }
            scale = s;
            first = t;
        }
        if (scale != 0)
        {
            m_layout.timeScale = scale;
        }
    }
}

void
Parser::Row(const std::vector<std::string>& tok, uint32_t line)
{
    if (!m_open)
    {
        Open(line);
        m_src.headerless = true;
    }
    if (!m_haveLayout)
    {
        m_layout = BareTableLayout(tok.size());
        m_haveLayout = true;
    }
    const Layout& l = m_layout;
    bool complete = tok.size() >= l.columns;
    // On a truncated row the last field may itself be cut: trust a field only
    // when another one follows it.
    auto trusted = [&](int idx) {
        return idx >= 0 && (complete ? static_cast<size_t>(idx) < tok.size()
                                     : static_cast<size_t>(idx) + 1 < tok.size());
    };
    if (static_cast<size_t>(l.size) >= tok.size())
    {
        // A heading whose size column lies beyond this row (the row was
        // indexed past its end).
        m_src.notes.push_back(Where(line) + ": truncated row (" + std::to_string(tok.size()) + " of " +
                              std::to_string(l.columns) + " fields, no size column " +
                              std::to_string(l.size + 1) + "); skipped");
        return;
    }
    auto size = ParseUnsigned(tok[l.size]);
    if (!size)
    {
        throw InputError(Where(line), "expected a size in bytes, got '" + tok[l.size] + "'");
    }
    size_t before = m_samples.size();
    for (const auto& g : l.groups)
    {
        if (!trusted(g.time))
        {
            continue;
        }
        const std::string& t = tok[g.time];
        if (t == "N/A")
        {
            continue;
        }
        auto time = ParseDouble(t);
        if (!time || *time <= 0)
        {
            throw InputError(Where(line), "expected a positive time in column " +
                                              std::to_string(g.time + 1) + ", got '" + t + "'");
        }
        MeasurementSample s;
        s.bytes = *size;
        s.timeS = *time * l.timeScale;
        s.inPlace = g.inPlace;
        s.file = m_file;
        s.line = line;
        auto bw = [&](int idx) {
            if (!trusted(idx))
            {
                return -1.0;
            }
            auto v = ParseDouble(tok[idx]);
            return v ? *v * l.bwScale : -1.0;
        };
        s.algbwBps = bw(g.algbw);
        s.busbwBps = bw(g.busbw);
        if (trusted(g.wrong))
        {
            auto w = ParseDouble(tok[g.wrong]); // "0" or, before 2.0, "0e+00"
            s.wrong = WrongCount(w);
            if (w && *w > 0)
            {
                m_src.notes.push_back(Where(line) + ": #wrong = " + tok[g.wrong] + " (" +
                                      (g.inPlace ? "in-place" : "out-of-place") +
                                      "): the result failed validation");
            }
        }
        m_samples.push_back(s);
    }
    if (!complete)
    {
        m_src.notes.push_back(Where(line) + ": truncated row (" + std::to_string(tok.size()) + " of " +
                              std::to_string(l.columns) + " fields); " +
                              (m_samples.size() > before ? "kept the complete fields"
                                                         : "no complete time, skipped"));
    }
}

MeasurementSet
Parser::Run(const std::string& text)
{
    auto lines = SplitLines(text);
    for (size_t i = 0; i < lines.size(); ++i)
    {
        uint32_t lineNo = static_cast<uint32_t>(i + 1);
        std::string s = Trim(lines[i]);
        if (s.empty())
        {
            continue;
        }
        if (s[0] == '#')
        {
            Header(Trim(s.substr(1)), lineNo);
            continue;
        }
        auto tok = SplitWhitespace(s);
        if (tok.empty())
        {
            // Only whitespace that Trim keeps (a form feed, a vertical tab):
            // tok[0] below would read past the end.
            continue;
        }
        if (IsDataRow(tok))
        {
            Row(tok, lineNo);
        }
        else if (ParseUnsigned(tok[0]) && m_open && m_haveLayout && tok.size() <= 2)
        {
            // "1048576  262": a row cut before its type field.
            m_src.notes.push_back(Where(lineNo) + ": truncated row (" + std::to_string(tok.size()) +
                                  " fields); no complete time, skipped");
        }
        // Anything else (NCCL INFO / WARN lines, shell prompts) is not part of the table.
    }
    Close();
    return m_out;
}

} // namespace

bool
LooksLikeNcclTestsLog(const std::string& text)
{
    if (text.find("nccl-tests version") != std::string::npos ||
        text.find("Collective test starting") != std::string::npos ||
        (text.find("algbw") != std::string::npos && text.find("busbw") != std::string::npos))
    {
        return true;
    }
    for (const auto& line : SplitLines(text))
    {
        auto tok = SplitWhitespace(line);
        if (tok.empty() || tok[0][0] == '#')
        {
            continue;
        }
        return IsDataRow(tok) && tok.size() >= 6;
    }
    return false;
}

MeasurementSet
ParseNcclTestsLog(const std::string& text, const std::string& file)
{
    Parser p(file);
    MeasurementSet set = p.Run(text);
    NS_LOG_INFO(file << ": " << set.samples.size() << " samples in " << set.sources.size()
                     << " nccl-tests blocks");
    return set;
}

} // namespace ns3
