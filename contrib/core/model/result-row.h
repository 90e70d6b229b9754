// SPDX-License-Identifier: GPL-2.0-only
//
// The one row type for every result hockney prints (model, compare, calibrate,
// validate) and the one writer for table, CSV and JSON. Field names carry their
// units (time_s, beta_Bps, bytes); a null value (no packet row to compare with,
// say) prints as "-" in a table, empty in CSV and null in JSON.
//
// Every CSV and JSON output also says where it came from (Provenance): the
// hockney build, the ns-3 it ran on, the command line, the seed and the
// scenario file. CSV carries it as leading "# key=value" lines (comment lines,
// which pandas' comment='#', gnuplot and R's comment.char skip), JSON as a
// "meta" object after "rows"; a table, for a person at a terminal, does not.
//
// Reproducible outputs (Provenance::reproducible, hockney's --reproducible):
// the fields that measure the machine rather than the model (host
// measurements: wall_s, peak_rss_bytes) are left out of every row, so that
// the same command with the same seed writes the same bytes on every run.
#ifndef HOCKNEY_RESULT_ROW_H
#define HOCKNEY_RESULT_ROW_H

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ns3
{

class ResultRow
{
  public:
    using Value = std::variant<std::monostate, bool, int64_t, double, std::string>;

    ResultRow& Set(const std::string& key, Value value);
    ResultRow& Set(const std::string& key, const char* value);
    ResultRow& Set(const std::string& key, uint64_t value);
    ResultRow& Set(const std::string& key, int value);
    // Exact matches for double and bool: without them a double is ambiguous
    // between the integer overloads and a bool silently becomes an int.
    ResultRow& Set(const std::string& key, double value);
    ResultRow& Set(const std::string& key, bool value);
    ResultRow& SetNull(const std::string& key);

    bool Has(const std::string& key) const;
    const Value& Get(const std::string& key) const; ///< throws std::out_of_range
    double GetDouble(const std::string& key) const; ///< a number field as double
    std::string GetString(const std::string& key) const;

    const std::vector<std::pair<std::string, Value>>& Fields() const
    {
        return m_fields;
    }

  private:
    std::vector<std::pair<std::string, Value>> m_fields; // insertion order is column order
};

enum class OutputFormat
{
    TABLE,
    CSV,
    JSON
};

/// "table" | "csv" | "json"; throws InputError naming \p field otherwise.
OutputFormat ParseOutputFormat(const std::string& text, const std::string& field = "--format");

/// What made an output, beyond the build (HockneyVersion, Ns3Version): set by
/// the command line program (hockney-main.cc, and each command's seed and
/// scenario), written by every writer below.
struct Provenance
{
    std::string commandLine;      ///< the program's arguments, shell-quoted where needed
    std::optional<uint64_t> seed; ///< the command's random seed; unset: it has none
    std::string scenarioFile;     ///< the scenario file read ("" without one)
    std::string scenarioSha256;   ///< its content's SHA-256 (what `sha256sum FILE` prints)
    /// Leave the host measurements (IsHostMeasurement) out of every row
    /// written, and say so ("reproducible": true in JSON's "meta").
    bool reproducible = false;
};

/// A field that measures the machine that ran the model, not the model
/// (wall_s, peak_rss_bytes): it differs between two runs of the same command
/// and seed, so reproducible outputs leave it out.
bool IsHostMeasurement(const std::string& key);

/// The process's provenance (empty until a program sets it).
Provenance& OutputProvenance();
/// hockney's `git describe` at build time; "unknown" outside a git checkout.
std::string HockneyVersion();
/// The ns-3 release the build used and, where dpkg knows it, its package
/// ("3.37 (libns3-dev 3.37-2)").
std::string Ns3Version();
/// The provenance as the ordered pairs every output writes: hockney_version,
/// ns3_version, command_line, and seed, scenario, scenario_sha256,
/// reproducible (true) when set.
std::vector<std::pair<std::string, std::string>> ProvenanceFields();
/// The same as JSON (seed a number), the "meta" of JSON outputs.
nlohmann::ordered_json ProvenanceJson();
/// \p s as one word of a POSIX shell: as it is when it holds only safe
/// characters, else in single quotes (a quote inside as '\''), as sh reads it.
std::string ShellQuote(const std::string& s);
/// Writes the provenance as CSV comment lines ("# key=value"), before a
/// CSV's header; for CSV files not written by WriteRows or WriteCsvFile.
void WriteCsvProvenance(std::ostream& os);

/// Writes rows: table (aligned columns, union of keys in first-seen order), CSV
/// (provenance comment lines, header + rows, RFC 4180 quoting), or JSON
/// {"command": ..., "rows": [...], "meta": {provenance}}; without the host
/// measurements when the provenance says reproducible.
void WriteRows(std::ostream& os,
               const std::string& command,
               const std::vector<ResultRow>& rows,
               OutputFormat format);

/// \p value as a CSV cell shows it (null and non-finite numbers: empty).
std::string CsvText(const ResultRow::Value& value);

/// Writes the rows as CSV (with the provenance; reproducible as WriteRows) to a file; throws
/// std::runtime_error if it cannot.
void WriteCsvFile(const std::string& path, const std::vector<ResultRow>& rows);

} // namespace ns3

#endif
