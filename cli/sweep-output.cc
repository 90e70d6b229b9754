// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-output.h"

#include "accuracy-plot.h"
#include "flags.h"
#include "input-error.h"
#include "units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace hockney
{

std::string
ReadText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace
{

// The value of \p axis's column in \p row (SweepColumn's name), if any.
const ns3::ResultRow::Value*
SweptValue(const ns3::ResultRow& row, const ns3::SweepAxis& axis)
{
    for (const std::string& c : {"sweep." + axis.key, axis.key})
    {
        if (row.Has(c))
        {
            return &row.Get(c);
        }
    }
    return nullptr;
}

// A number field, also as the text a CSV file read back holds; NaN if none.
double
NumberOf(const ns3::ResultRow& row, const std::string& key)
{
    if (!row.Has(key))
    {
        return std::nan("");
    }
    if (const auto* s = std::get_if<std::string>(&row.Get(key)))
    {
        char* end = nullptr;
        const double d = std::strtod(s->c_str(), &end);
        return end && *end == '\0' && !s->empty() ? d : std::nan("");
    }
    return row.GetDouble(key);
}

// The scenario_sha256 of an earlier output's provenance ("" when it has none).
std::string
ScenarioSha256Of(const ns3::OrderedJson* doc, const std::string& csv)
{
    if (doc)
    {
        const auto* meta = doc->contains("meta") ? &doc->at("meta") : nullptr;
        return meta && meta->is_object() && meta->contains("scenario_sha256") &&
                       meta->at("scenario_sha256").is_string()
                   ? meta->at("scenario_sha256").get<std::string>()
                   : "";
    }
    const std::string key = "# scenario_sha256=";
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line) && line.rfind("#", 0) == 0;)
    {
        if (line.rfind(key, 0) == 0)
        {
            return line.substr(key.size());
        }
    }
    return "";
}

} // namespace

SweepOutput::SweepOutput(const std::string& path,
                         ns3::OutputFormat format,
                         const std::vector<ns3::SweepAxis>& axes,
                         const std::vector<ns3::SweepPoint>& points,
                         const std::string& scenarioSha256,
                         bool resumeAny)
    : m_path(path),
      m_format(format),
      m_points(points.size())
{
    if (path.empty())
    {
        return;
    }
    // Before any point runs: a directory or a read-only place is refused
    // here, not found after the first point's run.
    CheckWritableFile(path, "--output");
    std::error_code ec;
    if (std::filesystem::file_size(path, ec) > 0 && !ec)
    {
        if (format == ns3::OutputFormat::TABLE)
        {
            throw ns3::InputError("--output", "'" + path + "' exists: expected --format=csv or json to resume it "
                                                           "(a table is not read back)");
        }
        const std::string text = ReadText(path);
        std::vector<ns3::ResultRow> rows;
        ns3::OrderedJson doc;
        if (format == ns3::OutputFormat::JSON)
        {
            try
            {
                doc = ns3::OrderedJson::parse(text);
            }
            catch (const nlohmann::json::exception& e)
            {
                throw ns3::InputError("--output", "expected the JSON of an earlier sweep in '" + path + "' (" +
                                                      e.what() + ")");
            }
            rows = ns3::RowsFromJson(doc, "--output");
        }
        else
        {
            rows = ns3::RowsFromCsv(text, "--output");
        }
        // Rows match points by their swept values alone: those of another
        // scenario (another base, another topology) would stand for these.
        const std::string earlier =
            ScenarioSha256Of(format == ns3::OutputFormat::JSON ? &doc : nullptr, text);
        if (!resumeAny && earlier != scenarioSha256)
        {
            throw ns3::InputError("--output", "'" + path + "' holds a sweep of another scenario (scenario_sha256 " +
                                                  (earlier.empty() ? "none" : earlier) + ", this one's " +
                                                  scenarioSha256 + "): the scenario changed; expected a new "
                                                  "--output file, or --resume-any to keep its rows");
        }
        std::map<std::string, size_t> index;
        for (size_t i = 0; i < points.size(); ++i)
        {
            std::vector<ns3::ResultRow::Value> values;
            for (const auto& v : points[i].values)
            {
                values.push_back(ns3::SweepRowValue(v));
            }
            index[ns3::SweepPointId(values)] = i;
        }
        for (auto& r : rows)
        {
            const auto id = ns3::SweepRowId(r, axes);
            auto it = id ? index.find(*id) : index.end();
            if (it == index.end())
            {
                m_others.push_back(std::move(r));
                continue;
            }
            auto& slot = m_points[it->second];
            if (!slot)
            {
                slot.emplace();
            }
            slot->push_back(std::move(r));
        }
    }
    // A point whose packet run stopped at the wall-clock limit (compare's
    // exit 3) runs again: a resumed sweep may have the time it lacked.
    for (auto& slot : m_points)
    {
        if (slot && std::any_of(slot->begin(), slot->end(), [](const ns3::ResultRow& r) {
                return r.Has("status") && (r.GetString("status") == "stopped-at-wall-limit" ||
                                           r.GetString("status") == "not-run-after-wall-limit");
            }))
        {
            slot.reset();
        }
    }
    // Fail on an unwritable path now rather than after the first point.
    if (!std::ofstream(path + ".part"))
    {
        throw ns3::InputError("--output", "expected a writable file, cannot write '" + path + ".part'");
    }
    std::remove((path + ".part").c_str());
}

bool
SweepOutput::Has(size_t point) const
{
    return m_points.at(point).has_value();
}

void
SweepOutput::Add(size_t point, std::vector<ns3::ResultRow> rows)
{
    m_points.at(point) = std::move(rows);
    Write();
}

std::vector<ns3::ResultRow>
SweepOutput::Rows() const
{
    std::vector<ns3::ResultRow> all;
    for (const auto& p : m_points)
    {
        if (p)
        {
            all.insert(all.end(), p->begin(), p->end());
        }
    }
    all.insert(all.end(), m_others.begin(), m_others.end());
    return all;
}

void
SweepOutput::Write() const
{
    if (m_path.empty())
    {
        return;
    }
    const std::string part = m_path + ".part";
    {
        std::ofstream f(part);
        ns3::WriteRows(f, "sweep", Rows(), m_format);
        f.flush();
        if (!f)
        {
            throw ns3::InputError("--output", "expected a writable file, cannot write '" + part + "'");
        }
    }
    std::error_code ec;
    std::filesystem::rename(part, m_path, ec);
    if (ec)
    {
        throw ns3::InputError("--output", "expected a writable file, cannot replace '" + m_path + "' (" +
                                              ec.message() + ")");
    }
}

namespace
{

bool
HasPacketBackend(const ns3::OrderedJson& backends)
{
    if (backends.is_string())
    {
        return ("," + backends.get<std::string>() + ",").find(",packet,") != std::string::npos;
    }
    return backends.is_array() && std::find(backends.begin(), backends.end(), "packet") != backends.end();
}

// x of each value of the axis: the number, or the number or size a string
// names ("0.0625" as an attribute's text, "1MB"); none
// when some value is neither (the axis is then one tick per value).
std::optional<std::vector<double>>
NumericValues(const ns3::SweepAxis& axis)
{
    std::vector<double> xs;
    for (const auto& v : axis.values)
    {
        if (v.is_number())
        {
            xs.push_back(v.get<double>());
            continue;
        }
        if (!v.is_string())
        {
            return std::nullopt;
        }
        const std::string text = v.get<std::string>();
        try
        {
            xs.push_back(ns3::units::ParseNumber(text, "x"));
            continue;
        }
        catch (const std::invalid_argument&)
        {
            // not a plain number ("1MB"): a size, or no scale at all
        }
        try
        {
            xs.push_back(static_cast<double>(ns3::units::ParseBytes(text, "x")));
        }
        catch (const std::invalid_argument&)
        {
            return std::nullopt;
        }
    }
    return xs;
}

// The last name of a key, for the legend: "SoftwareOverhead" for
// attributes.ns3::AlphaBetaModel::SoftwareOverhead.
std::string
ShortKey(const std::string& key)
{
    const size_t cut = key.find_last_of(".:]/");
    return cut == std::string::npos || cut + 1 == key.size() ? key : key.substr(cut + 1);
}

// The series a row belongs to: its backend, parameters and size, and the
// values of the other axes.
std::string
SeriesName(const ns3::ResultRow& r, const std::vector<ns3::SweepAxis>& axes, size_t x, bool bySize)
{
    std::string name = r.GetString("backend");
    if (r.Has("params") && !r.GetString("params").empty())
    {
        name += " " + r.GetString("params");
    }
    if (bySize && r.Has("bytes") && std::none_of(axes.begin(), axes.end(), [](const auto& a) { return a.key == "sizes"; }))
    {
        name += " " + ns3::CsvText(r.Get("bytes")) + " B";
    }
    for (size_t k = 0; k < axes.size(); ++k)
    {
        if (k != x)
        {
            const auto* v = SweptValue(r, axes[k]);
            name += " " + ShortKey(axes[k].key) + "=" + (v ? ns3::CsvText(*v) : "");
        }
    }
    return name;
}

} // namespace

void
CheckSweepPlot(const std::string& png,
               const std::string& xKey,
               const std::vector<ns3::SweepAxis>& axes,
               const std::vector<ns3::SweepPoint>& points)
{
    std::vector<std::string> keys;
    for (const auto& a : axes)
    {
        keys.push_back(a.key);
    }
    if (std::find(keys.begin(), keys.end(), xKey) == keys.end())
    {
        throw ns3::InputError("--plot-x", "expected one of the sweep keys (" + Join(keys, ", ") + "), got '" + xKey + "'");
    }
    if (std::none_of(points.begin(), points.end(), [](const ns3::SweepPoint& p) {
            return p.scenario.contains("backends") && HasPacketBackend(p.scenario.at("backends"));
        }))
    {
        throw ns3::InputError("--plot", "expected packet among the scenario's backends (the error is against the "
                                        "packet rows)");
    }
    const std::filesystem::path dir = std::filesystem::path(png).parent_path();
    std::error_code ec;
    std::filesystem::create_directories(dir.empty() ? "." : dir, ec);
    if (ec)
    {
        throw ns3::InputError("--plot", "expected a file in a directory that can be created, got '" + png + "'");
    }
}

void
WriteSweepPlot(const std::string& png,
               const std::vector<ns3::SweepAxis>& axes,
               size_t x,
               const std::vector<ns3::ResultRow>& rows)
{
    const ns3::SweepAxis& axis = axes.at(x);
    const auto numeric = NumericValues(axis);
    std::map<std::string, double> xOf; // CSV text of a value -> x
    for (size_t i = 0; i < axis.values.size(); ++i)
    {
        xOf[ns3::CsvText(ns3::SweepRowValue(axis.values[i]))] = numeric ? (*numeric)[i] : static_cast<double>(i);
    }
    std::set<std::string> sizes;
    for (const auto& r : rows)
    {
        sizes.insert(r.Has("bytes") ? ns3::CsvText(r.Get("bytes")) : "");
    }
    std::map<std::string, std::vector<std::pair<double, double>>> series;
    for (const auto& r : rows)
    {
        const auto* v = SweptValue(r, axis);
        const double error = NumberOf(r, "error");
        if (!v || !std::isfinite(error) || !xOf.count(ns3::CsvText(*v)))
        {
            continue;
        }
        series[SeriesName(r, axes, x, sizes.size() > 1)].emplace_back(xOf[ns3::CsvText(*v)],
                                                                      100.0 * error);
    }
    if (series.empty())
    {
        std::cerr << "hockney sweep: --plot: no row has an error vs packets; no plot written\n";
        return;
    }
    // Absolute: the script names its data files by path and runs in dir.
    const std::filesystem::path p = std::filesystem::absolute(png);
    const std::string dir = p.parent_path().string();
    const std::string stem = p.stem().string();
    std::filesystem::create_directories(dir + "/plot-data");
    std::vector<ns3::PlotSeries> plotted;
    for (auto& [name, xy] : series)
    {
        std::sort(xy.begin(), xy.end());
        plotted.emplace_back(ns3::WritePlotSeries(dir, stem + "-" + name, xy), name);
    }
    bool logx = numeric.has_value();
    if (numeric)
    {
        const auto [lo, hi] = std::minmax_element(numeric->begin(), numeric->end());
        logx = *lo > 0 && *hi / *lo >= 100;
    }
    const std::string script = stem + ".gp";
    std::ofstream gp(dir + "/" + script);
    ns3::WritePlotPreamble(gp);
    // Keys are paths ("switch_buffer_bytes"): '_' is not a subscript here.
    // The legend goes below the plot, in two columns, the figure growing
    // with it, so that many series do not squeeze the plot.
    gp << "set terminal pngcairo size 1000," << 650 + 9 * plotted.size()
       << " font ',10'\nset termoption noenhanced\nset key below\n";
    if (!numeric)
    {
        gp << "set xrange [-0.5:" << axis.values.size() - 0.5 << "]\nset xtics (";
        for (size_t i = 0; i < axis.values.size(); ++i)
        {
            gp << (i ? ", " : "") << "\"" << ns3::CsvText(ns3::SweepRowValue(axis.values[i])) << "\" " << i;
        }
        gp << ")\n";
    }
    ns3::WritePlotFigure(gp,
                         {p.filename().string(), "hockney sweep: error vs packets against " + axis.key, axis.key,
                          "error vs packets (%)", logx, false},
                         plotted);
    gp.close();
    ns3::RunGnuplot(dir, script);
}

} // namespace hockney
