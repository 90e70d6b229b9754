// SPDX-License-Identifier: GPL-2.0-only
//
// The grid of `hockney sweep` (contrib/collective/doc/collective.md, "hockney
// sweep"): axes, each a path into a compare scenario and the values it takes;
// the points, their cartesian product, each a whole scenario checked as
// compare would check it; and the rows' identity by their swept values, by
// which a sweep resumes an earlier output. Running the points is the CLI's
// (cli/sweep-command.cc): each in its own process, because ns-3 keeps global
// state (the Simulator, attribute defaults).
//
// Path syntax of a key:
//   KEY   := "/" RFC 6901 JSON pointer           ("/topology/tiers/0/mtu_bytes")
//          | NAME STEP*                          ("topology.tiers[0].mtu_bytes")
//   STEP  := "." NAME | "[" DIGITS "]" | "[\"" ANY "\"]"
//   NAME  := characters other than . [ ] "
// and a NAME after "attributes." runs to the end of the key, dots included, so
// that "attributes.ns3::Dcqcn::G" is the one attribute "ns3::Dcqcn::G". A
// member the scenario lacks is created (with its missing parents, as objects);
// an index must exist in the scenario's list.
#ifndef HOCKNEY_SCENARIO_SWEEP_H
#define HOCKNEY_SCENARIO_SWEEP_H

#include "input-error.h"
#include "result-row.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/// Sweep input keeps the order it was written in: the axes' order is the
/// columns' and the points' (first axis slowest).
using OrderedJson = nlohmann::ordered_json;

/// One step of a path: an object member, or a list index ([i] in a key).
struct SweepPathStep
{
    std::string token;
    bool index = false; ///< written [i]: the scenario must have a list there
};

/// One axis of the grid.
struct SweepAxis
{
    std::string key;                 ///< as written
    std::vector<SweepPathStep> path; ///< ParseSweepPath(key)
    std::vector<OrderedJson> values; ///< at least one, no two equal
    /// The path as the scenario's errors name it ("scenario.topology.tiers[0].mtu_bytes",
    /// "scenario.attributes[\"ns3::Dcqcn::G\"]"); set by ResolveSweepAxes.
    std::string field;
};

/// One point: a value of every axis, and the scenario they make.
struct SweepPoint
{
    std::vector<OrderedJson> values; ///< one per axis, in axis order
    OrderedJson scenario;            ///< the base with every value set
};

/// The name of an axis in errors: sweep["KEY"].
std::string SweepKeyField(const std::string& key);

/// KEY as steps (syntax above); a malformed key is an InputError naming it.
std::vector<SweepPathStep> ParseSweepPath(const std::string& key);

/// The axes of a scenario's "sweep" object {KEY: [v1, v2, ...], ...}.
std::vector<SweepAxis> SweepAxesFromJson(const OrderedJson& sweep);

/// The axis of one --sweep=KEY=v1,v2 flag: a JSON list after '=' ("sizes=[\"1KB,1MB\", \"8MB\"]")
/// is taken as it is; otherwise each comma-separated item is a JSON number or
/// true/false if it reads as one, else a string.
SweepAxis SweepAxisFromFlag(const std::string& text);

/// Adds \p axis: it replaces an axis of the same key (a flag over the file's
/// "sweep"); a path inside another axis's path is an InputError naming both.
void AddSweepAxis(std::vector<SweepAxis>& axes, SweepAxis axis);

/// Checks that every axis's path leads somewhere in \p base (through objects
/// and existing list entries) and sets each axis's field.
void ResolveSweepAxes(const OrderedJson& base, std::vector<SweepAxis>& axes);

/// The cartesian product of the axes over \p base (resolved axes), first axis slowest.
std::vector<SweepPoint> ExpandSweep(const OrderedJson& base, const std::vector<SweepAxis>& axes);

/// Makes a relative "flows_csv" of \p scenario absolute, on \p directory
/// (absolute: the sweep scenario file's): compare reads it relative to the
/// scenario file, but the sweep checks its points in process and runs each
/// from a point file in a temporary directory.
void AnchorFlowsCsv(OrderedJson& scenario, const std::string& directory);

/// Checks a point's scenario as compare does before running (every field, and
/// the whole configuration when it has a topology or given alpha and beta);
/// an error is re-thrown by SweepPointError.
void CheckSweepPoint(const OrderedJson& base, const std::vector<SweepAxis>& axes, const SweepPoint& point);

/// The error \p message about scenario field \p field at \p point, named
/// after the axis whose path holds the field (sweep["KEY"]: value V refused:
/// MESSAGE), else after every axis's value when the base scenario passes
/// CheckSweepPoint's checks alone, else the base's own error unchanged.
InputError SweepPointError(const OrderedJson& base,
                           const std::vector<SweepAxis>& axes,
                           const SweepPoint& point,
                           const std::string& field,
                           const std::string& message);

/// A swept value as a row value: strings, integers, numbers, true/false as
/// themselves, null as null, lists and objects as their JSON text.
ResultRow::Value SweepRowValue(const OrderedJson& v);

/// The column of \p axis: its key, or "sweep.KEY" when the point's rows have
/// a field of that name (sweeping "ranks").
std::string SweepColumn(const SweepAxis& axis, const std::vector<ResultRow>& rows);

/// Identity of a point: the CSV text of each value (so a CSV file read back,
/// where every value is text, matches).
std::string SweepPointId(const std::vector<ResultRow::Value>& values);
/// Identity of a row of an earlier output by its swept columns ("sweep.KEY"
/// first, then KEY), or nothing when it lacks one.
std::optional<std::string> SweepRowId(const ResultRow& row, const std::vector<SweepAxis>& axes);

/// The rows of JSON output ({"rows": [...]}, other keys ignored; parsed as
/// OrderedJson so that the columns keep their order); InputError
/// naming \p field when there is no "rows" list of objects.
std::vector<ResultRow> RowsFromJson(const OrderedJson& doc, const std::string& field);
/// The rows of CSV output (lines starting with '#' skipped, then a header):
/// every value as its text, an empty cell as null.
std::vector<ResultRow> RowsFromCsv(const std::string& text, const std::string& field);

} // namespace ns3

#endif
