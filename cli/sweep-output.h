// SPDX-License-Identifier: GPL-2.0-only
//
// What hockney sweep writes (cli/sweep-command.cc): the rows of every point in
// grid order, kept in --output as the points finish so that an interrupted
// sweep resumes where it stopped, and the summary plot of --plot.
#ifndef HOCKNEY_CLI_SWEEP_OUTPUT_H
#define HOCKNEY_CLI_SWEEP_OUTPUT_H

#include "result-row.h"
#include "scenario-sweep.h"

#include <optional>
#include <string>
#include <vector>

namespace hockney
{

/// The whole text of a file ("" when it cannot be read).
std::string ReadText(const std::string& path);

/// The rows of a sweep, one list a point, and the file they are kept in.
class SweepOutput
{
  public:
    /// With \p path set and the file there (not empty), reads its rows in
    /// \p format (CSV or JSON; a table cannot be read back: InputError naming
    /// --output): rows whose swept columns match a point stand for that point,
    /// which then does not run (unless a row of it says its packet run
    /// stopped at the wall-clock limit: it runs again); the others are kept
    /// after the grid's rows. The file's scenario_sha256 (JSON "meta", CSV
    /// "# scenario_sha256=" line) must be \p scenarioSha256: rows of another
    /// scenario are an InputError naming --output, unless \p resumeAny.
    /// An unwritable \p path is an InputError naming --output.
    SweepOutput(const std::string& path,
                ns3::OutputFormat format,
                const std::vector<ns3::SweepAxis>& axes,
                const std::vector<ns3::SweepPoint>& points,
                const std::string& scenarioSha256,
                bool resumeAny);

    bool Has(size_t point) const;
    /// Sets the rows of \p point and rewrites the file (a complete file each
    /// time, renamed into place, so a stopped sweep leaves a readable one);
    /// a failed write is an InputError naming --output.
    void Add(size_t point, std::vector<ns3::ResultRow> rows);
    /// Every point's rows in grid order, then the file's rows of no point.
    std::vector<ns3::ResultRow> Rows() const;
    const std::string& Path() const { return m_path; }

  private:
    void Write() const;

    std::string m_path;
    ns3::OutputFormat m_format;
    std::vector<std::optional<std::vector<ns3::ResultRow>>> m_points;
    std::vector<ns3::ResultRow> m_others;
};

/// Checks --plot before the run: \p xKey one of the axes (else an InputError
/// naming --plot-x), packet among some point's backends (the error is against
/// the packet rows; else one naming --plot), the file's directory creatable.
void CheckSweepPlot(const std::string& png,
                    const std::string& xKey,
                    const std::vector<ns3::SweepAxis>& axes,
                    const std::vector<ns3::SweepPoint>& points);

/// The analytic rows' error vs packets (%) against the values of axis \p x,
/// one series per backend, parameters, size and value of every other axis:
/// \p png, with its gnuplot script (PNG's stem + .gp) and data (plot-data/)
/// beside it. A numeric axis (numbers, or sizes like "1MB") is an x scale,
/// any other is one tick per value.
void WriteSweepPlot(const std::string& png,
                    const std::vector<ns3::SweepAxis>& axes,
                    size_t x,
                    const std::vector<ns3::ResultRow>& rows);

} // namespace hockney

#endif
