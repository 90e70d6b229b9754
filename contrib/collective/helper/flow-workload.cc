// SPDX-License-Identifier: GPL-2.0-only
#include "flow-workload.h"

#include "input-error.h"
#include "measurement-text.h"
#include "units.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

const std::vector<std::string> kFlowFields{"src", "dst", "bytes", "start", "class", "verb"};

// One flow from its fields' text (JSON values and CSV cells alike), each
// checked and named where + "." + field.
FlowSpec
MakeFlow(const std::map<std::string, std::string>& text, const std::string& where)
{
    auto field = [&](const std::string& k) { return where + "." + k; };
    auto get = [&](const std::string& k, bool required) -> std::string {
        auto it = text.find(k);
        if (it == text.end() || measurement::Trim(it->second).empty())
        {
            if (required)
            {
                throw InputError(field(k), "expected a value (flows need src, dst and bytes)");
            }
            return "";
        }
        return measurement::Trim(it->second);
    };
    FlowSpec f;
    f.field = where;
    f.src = get("src", true);
    f.dst = get("dst", true);
    if (f.src == f.dst)
    {
        throw InputError(field("dst"), "expected a host other than src, got '" + f.dst + "' for both");
    }
    f.bytes = units::ParseBytes(get("bytes", true), field("bytes"));
    if (f.bytes == 0)
    {
        throw InputError(field("bytes"), "expected a positive size, got 0");
    }
    if (const std::string s = get("start", false); !s.empty())
    {
        f.start = units::ParseTime(s, field("start"));
        if (f.start.IsStrictlyNegative())
        {
            throw InputError(field("start"), "expected a time >= 0, got '" + s + "'");
        }
    }
    if (const std::string c = get("class", false); !c.empty())
    {
        const auto v = measurement::ParseUnsigned(c);
        if (!v || *v > 7)
        {
            throw InputError(field("class"), "expected a traffic class 0..7, got '" + c + "'");
        }
        f.cls = static_cast<uint8_t>(*v);
    }
    if (const std::string v = get("verb", false); !v.empty())
    {
        if (v != "write" && v != "send")
        {
            throw InputError(field("verb"), "expected write or send, got '" + v + "'");
        }
        f.write = v == "write";
    }
    return f;
}

std::string
JsonText(const nlohmann::json& v, const std::string& field)
{
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (v.is_number_integer() || v.is_number_unsigned())
    {
        return v.dump();
    }
    throw InputError(field, "expected a string or an integer, got " + v.dump());
}

} // namespace

std::vector<FlowSpec>
ParseFlowsJson(const nlohmann::json& flows, const std::string& field)
{
    if (!flows.is_array() || flows.empty())
    {
        throw InputError(field, "expected a non-empty list of flows {\"src\", \"dst\", \"bytes\", ...}");
    }
    std::vector<FlowSpec> out;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const std::string where = field + "[" + std::to_string(i) + "]";
        const nlohmann::json& f = flows[i];
        if (!f.is_object())
        {
            throw InputError(where, "expected a flow object, got " + f.dump());
        }
        std::map<std::string, std::string> text;
        for (auto it = f.begin(); it != f.end(); ++it)
        {
            if (std::find(kFlowFields.begin(), kFlowFields.end(), it.key()) == kFlowFields.end())
            {
                throw InputError(where + "." + it.key(), "unknown field; expected one of src, dst, bytes, start, "
                                                         "class, verb");
            }
            text[it.key()] = JsonText(it.value(), where + "." + it.key());
        }
        out.push_back(MakeFlow(text, where));
    }
    return out;
}

std::vector<FlowSpec>
ParseFlowsCsv(const std::string& text, const std::string& field)
{
    std::vector<std::string> header;
    std::vector<FlowSpec> out;
    const std::vector<std::string> lines = measurement::SplitLines(text);
    for (size_t i = 0; i < lines.size(); ++i)
    {
        const std::string line = measurement::Trim(lines[i]);
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        const std::string where = field + "[line " + std::to_string(i + 1) + "]";
        std::vector<std::string> cells = measurement::SplitCsv(line, where);
        if (header.empty())
        {
            for (std::string& c : cells)
            {
                c = measurement::Lower(c);
                if (std::find(kFlowFields.begin(), kFlowFields.end(), c) == kFlowFields.end() ||
                    std::count(cells.begin(), cells.end(), c) > 1)
                {
                    throw InputError(where, "expected a header of distinct columns src, dst, bytes, start[, class, "
                                            "verb], got '" + c + "'");
                }
            }
            for (const char* required : {"src", "dst", "bytes", "start"})
            {
                if (std::find(cells.begin(), cells.end(), required) == cells.end())
                {
                    throw InputError(where, std::string("expected a header with the column ") + required);
                }
            }
            header = cells;
            continue;
        }
        if (cells.size() != header.size())
        {
            throw InputError(where, "expected " + std::to_string(header.size()) + " columns, got " +
                                        std::to_string(cells.size()));
        }
        std::map<std::string, std::string> row;
        for (size_t c = 0; c < header.size(); ++c)
        {
            row[header[c]] = cells[c];
        }
        out.push_back(MakeFlow(row, where));
    }
    if (out.empty())
    {
        throw InputError(field, "expected a header and at least one flow row");
    }
    return out;
}

std::vector<FlowSpec>
ReadFlowsCsv(const std::string& path, const std::string& field)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(field, "expected a readable CSV file, cannot open '" + path + "'");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return ParseFlowsCsv(text.str(), field);
}

void
ResolveFlowHosts(std::vector<FlowSpec>& flows, const TopologyDescription& topology)
{
    std::map<std::string, uint32_t> ranks;
    std::vector<std::string> names;
    for (const TopologyNode& n : topology.nodes)
    {
        if (IsEndpointKind(n.kind))
        {
            ranks.emplace(n.name, static_cast<uint32_t>(names.size()));
            names.push_back(n.name);
        }
    }
    // The names, or for a large topology its first and last.
    std::string known;
    for (size_t i = 0; i < names.size(); ++i)
    {
        known += (i ? ", " : "") + names[i];
    }
    if (names.size() > 8)
    {
        known = names.front() + " .. " + names.back() + ", " + std::to_string(names.size()) + " endpoints";
    }
    for (FlowSpec& f : flows)
    {
        for (auto [name, rank, key] : {std::tuple{&f.src, &f.srcRank, "src"}, std::tuple{&f.dst, &f.dstRank, "dst"}})
        {
            auto it = ranks.find(*name);
            if (it == ranks.end())
            {
                throw InputError(f.field + "." + key, "expected a GPU or host of topology '" + topology.name + "' (" +
                                                          known + "), got '" + *name + "'");
            }
            *rank = it->second;
        }
    }
}

} // namespace ns3
