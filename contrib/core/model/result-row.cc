// SPDX-License-Identifier: GPL-2.0-only
#include "result-row.h"

#include "hockney-version.h"
#include "input-error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <stdexcept>

namespace ns3
{

ResultRow&
ResultRow::Set(const std::string& key, Value value)
{
    for (auto& f : m_fields)
    {
        if (f.first == key)
        {
            f.second = std::move(value);
            return *this;
        }
    }
    m_fields.emplace_back(key, std::move(value));
    return *this;
}

ResultRow&
ResultRow::Set(const std::string& key, const char* value)
{
    return Set(key, Value(std::string(value)));
}

ResultRow&
ResultRow::Set(const std::string& key, uint64_t value)
{
    return Set(key, Value(static_cast<int64_t>(value)));
}

ResultRow&
ResultRow::Set(const std::string& key, int value)
{
    return Set(key, Value(static_cast<int64_t>(value)));
}

ResultRow&
ResultRow::Set(const std::string& key, double value)
{
    return Set(key, Value(value));
}

ResultRow&
ResultRow::Set(const std::string& key, bool value)
{
    return Set(key, Value(value));
}

ResultRow&
ResultRow::SetNull(const std::string& key)
{
    return Set(key, Value(std::monostate()));
}

bool
ResultRow::Has(const std::string& key) const
{
    return std::any_of(m_fields.begin(), m_fields.end(), [&](const auto& f) { return f.first == key; });
}

const ResultRow::Value&
ResultRow::Get(const std::string& key) const
{
    for (const auto& f : m_fields)
    {
        if (f.first == key)
        {
            return f.second;
        }
    }
    throw std::out_of_range("ResultRow has no field '" + key + "'");
}

double
ResultRow::GetDouble(const std::string& key) const
{
    const Value& v = Get(key);
    if (const auto* d = std::get_if<double>(&v))
    {
        return *d;
    }
    if (const auto* i = std::get_if<int64_t>(&v))
    {
        return static_cast<double>(*i);
    }
    if (const auto* b = std::get_if<bool>(&v))
    {
        return *b ? 1.0 : 0.0;
    }
    return std::nan("");
}

std::string
ResultRow::GetString(const std::string& key) const
{
    const Value& v = Get(key);
    if (const auto* s = std::get_if<std::string>(&v))
    {
        return *s;
    }
    return "";
}

OutputFormat
ParseOutputFormat(const std::string& text, const std::string& field)
{
    if (text == "table")
    {
        return OutputFormat::TABLE;
    }
    if (text == "csv")
    {
        return OutputFormat::CSV;
    }
    if (text == "json")
    {
        return OutputFormat::JSON;
    }
    throw InputError(field, "expected table, csv or json, got '" + text + "'");
}

Provenance&
OutputProvenance()
{
    static Provenance p;
    return p;
}

std::string
HockneyVersion()
{
    return HOCKNEY_GIT_DESCRIBE;
}

std::string
Ns3Version()
{
    const std::string package = HOCKNEY_NS3_PACKAGE;
    return std::string(HOCKNEY_NS3_VERSION) + (package.empty() ? "" : " (" + package + ")");
}

std::vector<std::pair<std::string, std::string>>
ProvenanceFields()
{
    const Provenance& p = OutputProvenance();
    std::vector<std::pair<std::string, std::string>> f{{"hockney_version", HockneyVersion()},
                                                       {"ns3_version", Ns3Version()},
                                                       {"command_line", p.commandLine}};
    if (p.seed)
    {
        f.emplace_back("seed", std::to_string(*p.seed));
    }
    if (!p.scenarioFile.empty())
    {
        f.emplace_back("scenario", p.scenarioFile);
        f.emplace_back("scenario_sha256", p.scenarioSha256);
    }
    return f;
}

nlohmann::ordered_json
ProvenanceJson()
{
    const Provenance& p = OutputProvenance();
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto& [k, v] : ProvenanceFields())
    {
        meta[k] = v;
    }
    // Keys every reader can rely on: a seed without one is null, not absent.
    meta["seed"] = p.seed ? nlohmann::ordered_json(*p.seed) : nlohmann::ordered_json(nullptr);
    if (p.scenarioFile.empty())
    {
        meta["scenario"] = nullptr;
        meta["scenario_sha256"] = nullptr;
    }
    return meta;
}

std::string
ShellQuote(const std::string& s)
{
    const bool safe = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                        "0123456789-_=+.,/:@%") == std::string::npos;
    if (safe)
    {
        return s;
    }
    std::string q = "'";
    for (char c : s)
    {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

void
WriteCsvProvenance(std::ostream& os)
{
    for (const auto& [k, v] : ProvenanceFields())
    {
        // One line per key: a newline inside an argument is written as \n.
        std::string line;
        for (char c : v)
        {
            line += c == '\n' ? std::string("\\n") : std::string(1, c);
        }
        os << "# " << k << "=" << line << "\n";
    }
}

namespace
{

std::string
ToText(const ResultRow::Value& v, bool forTable)
{
    struct Visitor
    {
        bool table;

        std::string operator()(std::monostate) const
        {
            return table ? "-" : "";
        }

        std::string operator()(bool b) const
        {
            return b ? "true" : "false";
        }

        std::string operator()(int64_t i) const
        {
            return std::to_string(i);
        }

        std::string operator()(double d) const
        {
            if (!std::isfinite(d))
            {
                return table ? "-" : "";
            }
            char buf[40];
            std::snprintf(buf, sizeof buf, table ? "%.5g" : "%.10g", d);
            return buf;
        }

        std::string operator()(const std::string& s) const
        {
            return s;
        }
    };

    return std::visit(Visitor{forTable}, v);
}

std::string
CsvQuote(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
    {
        return s;
    }
    std::string out = "\"";
    for (char c : s)
    {
        if (c == '"')
        {
            out += '"';
        }
        out += c;
    }
    return out + "\"";
}

std::vector<std::string>
Columns(const std::vector<ResultRow>& rows)
{
    std::vector<std::string> cols;
    for (const auto& r : rows)
    {
        for (const auto& f : r.Fields())
        {
            if (std::find(cols.begin(), cols.end(), f.first) == cols.end())
            {
                cols.push_back(f.first);
            }
        }
    }
    return cols;
}

void
WriteCsv(std::ostream& os, const std::vector<ResultRow>& rows)
{
    WriteCsvProvenance(os);
    auto cols = Columns(rows);
    for (size_t i = 0; i < cols.size(); ++i)
    {
        os << (i ? "," : "") << CsvQuote(cols[i]);
    }
    os << "\n";
    for (const auto& r : rows)
    {
        for (size_t i = 0; i < cols.size(); ++i)
        {
            os << (i ? "," : "") << (r.Has(cols[i]) ? CsvQuote(ToText(r.Get(cols[i]), false)) : "");
        }
        os << "\n";
    }
}

} // namespace

void
WriteRows(std::ostream& os, const std::string& command, const std::vector<ResultRow>& rows, OutputFormat format)
{
    if (format == OutputFormat::JSON)
    {
        nlohmann::ordered_json doc;
        doc["command"] = command;
        doc["rows"] = nlohmann::ordered_json::array();
        for (const auto& r : rows)
        {
            nlohmann::ordered_json o = nlohmann::ordered_json::object();
            // A named pair, not a structured binding: C++17 does not let a
            // lambda capture a structured binding (g++ allows it, clang not).
            for (const auto& field : r.Fields())
            {
                const auto& k = field.first;
                const auto& v = field.second;
                std::visit(
                    [&](const auto& x) {
                        using T = std::decay_t<decltype(x)>;
                        if constexpr (std::is_same_v<T, std::monostate>)
                        {
                            o[k] = nullptr;
                        }
                        else if constexpr (std::is_same_v<T, double>)
                        {
                            o[k] = std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
                        }
                        else
                        {
                            o[k] = x;
                        }
                    },
                    v);
            }
            doc["rows"].push_back(o);
        }
        doc["meta"] = ProvenanceJson();
        os << doc.dump(2) << "\n";
        return;
    }
    if (format == OutputFormat::CSV)
    {
        WriteCsv(os, rows);
        return;
    }
    auto cols = Columns(rows);
    std::vector<size_t> width(cols.size());
    std::vector<std::vector<std::string>> cells;
    for (size_t i = 0; i < cols.size(); ++i)
    {
        width[i] = cols[i].size();
    }
    for (const auto& r : rows)
    {
        std::vector<std::string> line;
        for (size_t i = 0; i < cols.size(); ++i)
        {
            line.push_back(r.Has(cols[i]) ? ToText(r.Get(cols[i]), true) : "-");
            width[i] = std::max(width[i], line.back().size());
        }
        cells.push_back(std::move(line));
    }
    auto emit = [&](const std::vector<std::string>& line) {
        for (size_t i = 0; i < line.size(); ++i)
        {
            os << (i ? "  " : "") << line[i] << std::string(width[i] - line[i].size(), ' ');
        }
        os << "\n";
    };
    emit(cols);
    for (const auto& line : cells)
    {
        emit(line);
    }
}

std::string
CsvText(const ResultRow::Value& value)
{
    return ToText(value, false);
}

void
WriteCsvFile(const std::string& path, const std::vector<ResultRow>& rows)
{
    std::ofstream f(path);
    if (!f)
    {
        throw std::runtime_error("cannot write " + path);
    }
    WriteCsv(f, rows);
}

} // namespace ns3
