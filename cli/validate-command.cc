// SPDX-License-Identifier: GPL-2.0-only
//
// hockney validate: the accuracy map (where the algebra holds and where it
// fails, per accuracy band of contrib/analytic/doc/analytic.md). Runs the experiments of
// validation/*.json (the default subset, or every one with --full), prints the
// map, and with --output writes report.md, the CSV of every point and the PNG
// figures (accuracy-map.h). `hockney demo` runs the same with the report.
#include "flags.h"

#include "accuracy-map.h"
#include "input-error.h"
#include "result-row.h"
#include "units.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

namespace hockney
{

using namespace ns3;

/// Shared by validate and demo: \p demo forces a report (default directory
/// demo-output) and adds the analytic sweep section given by the caller.
int
RunAccuracyMapCommand(const std::vector<std::string>& args,
                      std::ostream& out,
                      const std::string& command,
                      const std::vector<ResultRow>& extraSection,
                      const std::string& extraTitle)
{
    const bool demo = command == "demo";
    Flags f;
    f.AddSwitch("full", "run every experiment at every size (default: the representative subset)")
        .Add("output", demo ? "demo-output" : "", "directory for report.md, CSV files and PNG figures")
        .Add("format", "table", "table | csv | json (the map on stdout)")
        .Add("experiments", "", "comma-separated experiment ids (default: the subset, or all with --full)")
        .Add("validation-dir", HOCKNEY_SOURCE_DIR "/validation", "directory of the experiment files")
        .Add("measured-dir", HOCKNEY_SOURCE_DIR "/validation/data",
             "published measurements (copies in validation/data; skipped when absent)")
        .AddSwitch("quiet", "no progress lines on stderr");
    if (!f.Parse(args, out))
    {
        return 0;
    }
    const OutputFormat format = ParseOutputFormat(f.Get("format"), "--format");
    const bool full = f.GetSwitch("full");
    std::vector<AccuracyExperiment> all = LoadAccuracyExperiments(f.Get("validation-dir"));
    std::vector<AccuracyExperiment> chosen;
    if (!f.Get("experiments").empty())
    {
        std::set<std::string> want;
        for (const auto& id : units::SplitList(f.Get("experiments"), "--experiments"))
        {
            bool found = false;
            for (const auto& e : all)
            {
                found = found || e.id == id;
            }
            if (!found)
            {
                std::string known;
                for (const auto& e : all)
                {
                    known += (known.empty() ? "" : ", ") + e.id;
                }
                throw InputError("--experiments", "expected ids among " + known + ", got '" + id + "'");
            }
            want.insert(id);
        }
        for (const auto& e : all)
        {
            if (want.count(e.id))
            {
                chosen.push_back(e);
            }
        }
    }
    else
    {
        for (const auto& e : all)
        {
            if (full || e.inDefault)
            {
                chosen.push_back(e);
            }
        }
    }
    std::string dir;
    if (!f.Get("output").empty())
    {
        namespace fs = std::filesystem;
        std::error_code ec;
        fs::create_directories(f.Get("output"), ec);
        if (ec || !fs::is_directory(f.Get("output")))
        {
            throw InputError("--output", "expected a directory that can be created, got '" + f.Get("output") + "'");
        }
        dir = fs::absolute(f.Get("output")).lexically_normal().string();
    }
    // Read before the experiments run, so that a bad file fails at once.
    const std::vector<PublishedCase> publishedCases =
        dir.empty() ? std::vector<PublishedCase>{}
                    : LoadPublishedCases(f.Get("validation-dir") + "/" + kPublishedCasesFile);
    const bool quiet = f.GetSwitch("quiet");
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&t0]() {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    auto progress = [&](const std::string& line) {
        if (!quiet)
        {
            std::cerr << "[" << command << " " << static_cast<int>(elapsed()) << " s] " << line << std::endl;
        }
    };
    std::vector<ExperimentOutcome> outcomes;
    for (const auto& e : chosen)
    {
        progress("experiment " + e.id);
        outcomes.push_back(RunAccuracyExperiment(e, full, progress));
        progress(e.id + ": " + (outcomes.back().confirmed ? "confirmed" : "refuted"));
    }
    PublishedComparison published;
    if (!dir.empty())
    {
        published = RunPublishedComparison(publishedCases, f.Get("measured-dir"), full, progress);
    }
    WriteRows(out, command, AccuracyTable(outcomes), format);
    if (!dir.empty())
    {
        const std::string report = WriteAccuracyReport(dir, outcomes, published, extraSection, extraTitle, elapsed());
        if (format == OutputFormat::TABLE)
        {
            out << "\nwrote " << report << " (figures, accuracy-points.csv in " << dir << ")\n";
            if (!published.available)
            {
                out << "published measurements: " << published.note << "\n";
            }
        }
    }
    if (format == OutputFormat::TABLE)
    {
        out << "wall time " << static_cast<int>(elapsed() + 0.5) << " s\n";
    }
    return 0;
}

namespace
{

int
ValidateCommand(const std::vector<std::string>& args, std::ostream& out)
{
    return RunAccuracyMapCommand(args, out, "validate", {}, "");
}

CommandRegistrar registrar("validate",
                           "the accuracy map: where the algebra holds and where it fails (report with --output)",
                           &ValidateCommand);

} // namespace

} // namespace hockney
