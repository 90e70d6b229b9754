// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-sweep.h"

#include "collective-comparison.h"
#include "input-error.h"
#include "measurement-text.h"
#include "units.h"

#include <algorithm>

namespace ns3
{

namespace
{

const char* const kPathSyntax = "expected a path like topology.tiers[0].switch_buffer_bytes, "
                                "attributes.ns3::Dcqcn::G or /fabric/mtu_bytes";

bool
AllDigits(const std::string& s)
{
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// How a scenario error names a member: .name when it is a plain word, else
// ["name"] (ApplyAttributes names scenario.attributes["ns3::Dcqcn::G"]).
std::string
MemberStep(const std::string& name)
{
    const bool word = !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos;
    return word ? "." + name : "[\"" + name + "\"]";
}

// The "/a/0/b" form: RFC 6901 tokens (~1 is '/', ~0 is '~').
std::vector<SweepPathStep>
ParsePointer(const std::string& key)
{
    try
    {
        std::vector<SweepPathStep> steps;
        const nlohmann::json::json_pointer p(key);
        // The pointer's own parser unescapes; walk it back to front.
        for (auto q = p; !q.empty(); q = q.parent_pointer())
        {
            steps.insert(steps.begin(), SweepPathStep{q.back(), false});
        }
        return steps;
    }
    catch (const nlohmann::json::exception& e)
    {
        throw InputError(SweepKeyField(key), std::string(kPathSyntax) + " (" + e.what() + ")");
    }
}

// Sets \p v at \p axis's path in \p doc, creating missing members; \p where
// names the place so far for errors. Returns the path as errors name it.
std::string
Walk(OrderedJson& doc, const SweepAxis& axis, const OrderedJson* v)
{
    OrderedJson* node = &doc;
    std::string where = "scenario";
    auto fail = [&](const std::string& why) {
        throw InputError(SweepKeyField(axis.key), std::string(kPathSyntax) + "; " + why);
    };
    for (const SweepPathStep& s : axis.path)
    {
        if (node->is_array())
        {
            if (!AllDigits(s.token))
            {
                fail(where + " is a list: expected an index [i], got '" + s.token + "'");
            }
            const size_t i = s.token.size() > 9 ? node->size() : std::stoul(s.token);
            if (i >= node->size())
            {
                fail("expected an index below " + std::to_string(node->size()) + " of " + where + ", got " +
                     s.token);
            }
            node = &(*node)[i];
            where += "[" + s.token + "]";
        }
        else if (node->is_object() || (node->is_null() && !s.index))
        {
            if (s.index)
            {
                fail(where + " is an object, not a list: expected a member name, got [" + s.token + "]");
            }
            if (node->is_null())
            {
                *node = OrderedJson::object();
            }
            node = &(*node)[s.token];
            where += MemberStep(s.token);
        }
        else
        {
            fail(where + (node->is_null() ? " is not in the scenario, so it has no index " + s.token
                                          : " is a JSON " + std::string(node->type_name()) + ", not an object or list"));
        }
    }
    if (v)
    {
        *node = *v;
    }
    return where;
}

// A --sweep item: JSON number or true/false when it reads as one, else text.
OrderedJson
FlagValue(const std::string& item)
{
    if (item == "true" || item == "false" || item.find_first_not_of("+-.0123456789eE") == std::string::npos)
    {
        try
        {
            return OrderedJson::parse(item);
        }
        catch (const nlohmann::json::exception&)
        {
            // Not a JSON number ("1.", "+5", "1e"): the text itself.
        }
    }
    return item;
}

// The checks of compare before it runs (ApplyScenario; ValidateComparison
// when the scenario alone fixes the topology or the parameters, as compare
// otherwise adds its --topology default).
void
CheckScenario(const OrderedJson& scenario)
{
    ComparisonConfig c;
    ApplyScenario(nlohmann::json::parse(scenario.dump()), c);
    if (c.topology || c.model.alpha || c.model.beta)
    {
        ValidateComparison(c);
    }
}

bool
PathHolds(const std::string& outer, const std::string& inner)
{
    return inner == outer ||
           (inner.rfind(outer, 0) == 0 && (inner[outer.size()] == '.' || inner[outer.size()] == '['));
}

} // namespace

std::string
SweepKeyField(const std::string& key)
{
    return "sweep[\"" + key + "\"]";
}

std::vector<SweepPathStep>
ParseSweepPath(const std::string& key)
{
    if (!key.empty() && key[0] == '/')
    {
        return ParsePointer(key);
    }
    std::vector<SweepPathStep> steps;
    auto fail = [&](const std::string& why) { throw InputError(SweepKeyField(key), std::string(kPathSyntax) + "; " + why); };
    size_t i = 0;
    while (i < key.size())
    {
        if (key[i] == '[')
        {
            const bool quoted = key.compare(i, 2, "[\"") == 0;
            const size_t close = quoted ? key.find("\"]", i + 2) : key.find(']', i);
            if (close == std::string::npos)
            {
                fail("unclosed '[' at character " + std::to_string(i + 1));
            }
            const std::string inside = key.substr(i + (quoted ? 2 : 1), close - i - (quoted ? 2 : 1));
            if (quoted ? inside.empty() : !AllDigits(inside))
            {
                fail("expected [i] or [\"name\"], got '" + key.substr(i, close - i + (quoted ? 2 : 1)) + "'");
            }
            steps.push_back(SweepPathStep{inside, !quoted});
            i = close + (quoted ? 2 : 1);
            continue;
        }
        if (key[i] == '.')
        {
            if (steps.empty() || i + 1 == key.size())
            {
                fail("a '.' must join two names");
            }
            ++i;
        }
        else if (!steps.empty())
        {
            fail("expected '.', '[' or the end after '" + key.substr(0, i) + "'");
        }
        // An attribute name runs to the end: ns-3's full names are one member.
        const bool attribute = steps.size() == 1 && !steps[0].index && steps[0].token == "attributes";
        const size_t end = attribute ? key.size() : key.find_first_of(".[]\"", i);
        const std::string name = key.substr(i, end == std::string::npos ? std::string::npos : end - i);
        if (name.empty())
        {
            fail("expected a name at character " + std::to_string(i + 1));
        }
        steps.push_back(SweepPathStep{name, false});
        i = end == std::string::npos ? key.size() : end;
    }
    if (steps.empty())
    {
        fail("got an empty key");
    }
    if (steps[0].token == "sweep")
    {
        fail("the sweep object itself cannot be swept");
    }
    return steps;
}

std::vector<SweepAxis>
SweepAxesFromJson(const OrderedJson& sweep)
{
    if (!sweep.is_object())
    {
        throw InputError("scenario.sweep", "expected an object {\"KEY\": [value, ...], ...}");
    }
    std::vector<SweepAxis> axes;
    for (auto it = sweep.begin(); it != sweep.end(); ++it)
    {
        if (!it.value().is_array())
        {
            throw InputError(SweepKeyField(it.key()), "expected a list of values, got " + it.value().dump());
        }
        SweepAxis a{it.key(), ParseSweepPath(it.key()), {}, ""};
        for (const auto& v : it.value())
        {
            a.values.push_back(v);
        }
        AddSweepAxis(axes, std::move(a));
    }
    return axes;
}

SweepAxis
SweepAxisFromFlag(const std::string& text)
{
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        throw InputError("--sweep", "expected KEY=v1,v2,..., got '" + text + "'");
    }
    SweepAxis a{text.substr(0, eq), ParseSweepPath(text.substr(0, eq)), {}, ""};
    const std::string list = text.substr(eq + 1);
    if (!list.empty() && list[0] == '[')
    {
        OrderedJson j;
        try
        {
            j = OrderedJson::parse(list);
        }
        catch (const nlohmann::json::exception& e)
        {
            throw InputError(SweepKeyField(a.key), "expected a JSON list after '=' (" + std::string(e.what()) + ")");
        }
        if (!j.is_array())
        {
            throw InputError(SweepKeyField(a.key), "expected a JSON list after '='");
        }
        a.values.assign(j.begin(), j.end());
    }
    else
    {
        for (const auto& item : units::SplitList(list, SweepKeyField(a.key)))
        {
            a.values.push_back(FlagValue(item));
        }
    }
    return a;
}

void
AddSweepAxis(std::vector<SweepAxis>& axes, SweepAxis axis)
{
    const std::string field = SweepKeyField(axis.key);
    if (axis.values.empty())
    {
        throw InputError(field, "expected at least one value");
    }
    for (size_t i = 0; i < axis.values.size(); ++i)
    {
        for (size_t k = 0; k < i; ++k)
        {
            if (axis.values[k] == axis.values[i])
            {
                throw InputError(field, "value " + axis.values[i].dump() + " given twice; expected each once");
            }
        }
    }
    for (auto it = axes.begin(); it != axes.end(); ++it)
    {
        if (it->key == axis.key)
        {
            *it = std::move(axis);
            return;
        }
        const size_t n = std::min(it->path.size(), axis.path.size());
        bool same = true;
        for (size_t k = 0; k < n && same; ++k)
        {
            same = it->path[k].token == axis.path[k].token;
        }
        if (same)
        {
            throw InputError(field, "expected a path apart from " + SweepKeyField(it->key) +
                                        "'s (one lies inside the other)");
        }
    }
    axes.push_back(std::move(axis));
}

void
ResolveSweepAxes(const OrderedJson& base, std::vector<SweepAxis>& axes)
{
    for (SweepAxis& a : axes)
    {
        OrderedJson copy = base;
        a.field = Walk(copy, a, nullptr);
    }
}

std::vector<SweepPoint>
ExpandSweep(const OrderedJson& base, const std::vector<SweepAxis>& axes)
{
    size_t total = 1;
    for (const SweepAxis& a : axes)
    {
        total *= a.values.size();
        if (total > 1000000)
        {
            throw InputError(SweepKeyField(a.key), "expected at most 1000000 points in the grid");
        }
    }
    std::vector<SweepPoint> points;
    for (size_t n = 0; n < total; ++n)
    {
        SweepPoint p{{}, base};
        p.scenario.erase("sweep");
        // Mixed radix, last axis fastest: the order of nested loops in key order.
        size_t rest = n;
        std::vector<size_t> digit(axes.size());
        for (size_t k = axes.size(); k-- > 0;)
        {
            digit[k] = rest % axes[k].values.size();
            rest /= axes[k].values.size();
        }
        for (size_t k = 0; k < axes.size(); ++k)
        {
            p.values.push_back(axes[k].values[digit[k]]);
            Walk(p.scenario, axes[k], &p.values.back());
        }
        points.push_back(std::move(p));
    }
    return points;
}

void
AnchorFlowsCsv(OrderedJson& scenario, const std::string& directory)
{
    if (!scenario.is_object() || !scenario.contains("flows_csv") || !scenario.at("flows_csv").is_string())
    {
        return; // absent, or refused by the scenario's check
    }
    const std::string path = scenario.at("flows_csv").get<std::string>();
    if (!path.empty() && path[0] != '/')
    {
        scenario["flows_csv"] = directory + "/" + path;
    }
}

void
CheckSweepPoint(const OrderedJson& base, const std::vector<SweepAxis>& axes, const SweepPoint& point)
{
    try
    {
        CheckScenario(point.scenario);
    }
    catch (const InputError& e)
    {
        throw SweepPointError(base, axes, point, e.Field(), e.what());
    }
}

InputError
SweepPointError(const OrderedJson& base,
                const std::vector<SweepAxis>& axes,
                const SweepPoint& point,
                const std::string& field,
                const std::string& message)
{
    for (size_t k = 0; k < axes.size(); ++k)
    {
        if (PathHolds(axes[k].field, field) || PathHolds(field, axes[k].field))
        {
            return InputError(SweepKeyField(axes[k].key), "value " + point.values[k].dump() + " refused: " + message);
        }
    }
    OrderedJson alone = base;
    alone.erase("sweep");
    try
    {
        CheckScenario(alone);
    }
    catch (const InputError& own)
    {
        return own;
    }
    std::string names;
    for (size_t k = 0; k < axes.size(); ++k)
    {
        names += (k ? ", " : "") + SweepKeyField(axes[k].key) + "=" + point.values[k].dump();
    }
    return InputError(names, "this combination is refused: " + message);
}

ResultRow::Value
SweepRowValue(const OrderedJson& v)
{
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (v.is_boolean())
    {
        return v.get<bool>();
    }
    if (v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() <= INT64_MAX))
    {
        return v.get<int64_t>();
    }
    if (v.is_number())
    {
        return v.get<double>();
    }
    if (v.is_null())
    {
        return std::monostate();
    }
    return v.dump();
}

std::string
SweepColumn(const SweepAxis& axis, const std::vector<ResultRow>& rows)
{
    const bool taken = std::any_of(rows.begin(), rows.end(), [&](const ResultRow& r) { return r.Has(axis.key); });
    return taken ? "sweep." + axis.key : axis.key;
}

std::string
SweepPointId(const std::vector<ResultRow::Value>& values)
{
    std::string id;
    for (const auto& v : values)
    {
        // A unit separator: no CSV text of a value holds one.
        id += CsvText(v) + '\x1f';
    }
    return id;
}

std::optional<std::string>
SweepRowId(const ResultRow& row, const std::vector<SweepAxis>& axes)
{
    std::vector<ResultRow::Value> values;
    for (const SweepAxis& a : axes)
    {
        const std::string column = row.Has("sweep." + a.key) ? "sweep." + a.key : a.key;
        if (!row.Has(column))
        {
            return std::nullopt;
        }
        values.push_back(row.Get(column));
    }
    return SweepPointId(values);
}

std::vector<ResultRow>
RowsFromJson(const OrderedJson& doc, const std::string& field)
{
    if (!doc.is_object() || !doc.contains("rows") || !doc.at("rows").is_array())
    {
        throw InputError(field, "expected JSON output of hockney ({\"rows\": [...]})");
    }
    std::vector<ResultRow> rows;
    for (const auto& o : doc.at("rows"))
    {
        if (!o.is_object())
        {
            throw InputError(field, "expected every row to be a JSON object, got " + o.dump());
        }
        ResultRow r;
        for (auto it = o.begin(); it != o.end(); ++it)
        {
            r.Set(it.key(), SweepRowValue(it.value()));
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<ResultRow>
RowsFromCsv(const std::string& text, const std::string& field)
{
    std::vector<std::string> header;
    std::vector<ResultRow> rows;
    const auto lines = measurement::SplitLines(text);
    for (size_t i = 0; i < lines.size(); ++i)
    {
        if (lines[i].empty() || lines[i][0] == '#')
        {
            continue;
        }
        const auto cells = measurement::SplitCsv(lines[i], field + ":" + std::to_string(i + 1));
        if (header.empty())
        {
            header = cells;
            continue;
        }
        if (cells.size() != header.size())
        {
            throw InputError(field + ":" + std::to_string(i + 1),
                             "expected " + std::to_string(header.size()) + " cells, got " + std::to_string(cells.size()));
        }
        ResultRow r;
        for (size_t k = 0; k < cells.size(); ++k)
        {
            if (cells[k].empty())
            {
                r.SetNull(header[k]);
            }
            else
            {
                r.Set(header[k], cells[k]);
            }
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

} // namespace ns3
