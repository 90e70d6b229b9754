// SPDX-License-Identifier: GPL-2.0-only
//
// The one row type for every result hockney prints (model, compare, calibrate,
// validate) and the one writer for table, CSV and JSON. Field names carry their
// units (time_s, beta_Bps, bytes); a null value (no packet row to compare with,
// say) prints as "-" in a table, empty in CSV and null in JSON.
#ifndef HOCKNEY_RESULT_ROW_H
#define HOCKNEY_RESULT_ROW_H

#include <cstdint>
#include <iosfwd>
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

/// Writes rows: table (aligned columns, union of keys in first-seen order), CSV
/// (header + rows, RFC 4180 quoting), or JSON {"command": ..., "rows": [...]}.
void WriteRows(std::ostream& os,
               const std::string& command,
               const std::vector<ResultRow>& rows,
               OutputFormat format);

/// \p value as a CSV cell shows it (null and non-finite numbers: empty).
std::string CsvText(const ResultRow::Value& value);

/// Writes the rows as CSV to a file; throws std::runtime_error if it cannot.
void WriteCsvFile(const std::string& path, const std::vector<ResultRow>& rows);

} // namespace ns3

#endif
