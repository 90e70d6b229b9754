// SPDX-License-Identifier: GPL-2.0-only
//
// hockney validate: the accuracy map (where the algebra holds and where it
// fails, per accuracy band of contrib/analytic/doc/analytic.md). Runs the experiments of
// validation/*.json (the default subset, or every one with --full), prints the
// map, and with --output writes report.md, the CSV of every point and the PNG
// figures (accuracy-map.h). `hockney demo` runs the same with the report.
#include "accuracy-map-command.h"
#include "flags.h"

#include "accuracy-map.h"
#include "collective-comparison.h"
#include "input-error.h"
#include "published-fidelity.h"
#include "result-row.h"
#include "units.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

namespace hockney
{

using namespace ns3;

namespace
{

void
DeclareAccuracyMapFlags(Flags& f, bool demo)
{
    f.AddSwitch("full", "run every experiment at every size (default: the representative subset)")
        .Add("output", demo ? "demo-output" : "", "directory for report.md, CSV files and PNG figures")
        .Add("format", "table", "table | csv | json (the map on stdout)")
        .Add("experiments", "", "comma-separated experiment ids (default: the subset, or all with --full)")
        .Add("validation-dir", HOCKNEY_SOURCE_DIR "/validation", "directory of the experiment files")
        .Add("measured-dir", HOCKNEY_SOURCE_DIR "/validation/data",
             "published measurements (copies in validation/data; skipped when absent)")
        .AddSwitch("fidelity", "instead of the experiments: the fidelity table against every published curve "
                               "(validation/published-cases.json; packet runs at the sizes each case names, a few "
                               "minutes on 2 cores)")
        .Add("fidelity-wall-limit", "300s", "--fidelity: wall-clock limit of each packet run (a run stopped there "
                                            "leaves its band 'not run')")
        .AddSwitch("quiet", "no progress lines on stderr")
        .AddSwitch("force-memory", "start a packet run whose memory estimate exceeds the memory available "
                                   "(compare --force-memory)");
}

// The experiments of --experiments (each id must exist; file order, each once),
// else those of the default subset, or all with --full.
std::vector<AccuracyExperiment>
ChooseExperiments(const Flags& f, const std::vector<AccuracyExperiment>& all, bool full)
{
    std::vector<AccuracyExperiment> chosen;
    if (f.Get("experiments").empty())
    {
        for (const auto& e : all)
        {
            if (full || e.inDefault)
            {
                chosen.push_back(e);
            }
        }
        return chosen;
    }
    std::set<std::string> want;
    for (const auto& id : units::SplitList(f.Get("experiments"), "--experiments"))
    {
        bool found = false;
        std::vector<std::string> known;
        for (const auto& e : all)
        {
            found = found || e.id == id;
            known.push_back(e.id);
        }
        if (!found)
        {
            throw InputError("--experiments", "expected ids among " + Join(known, ", ") + ", got '" + id + "'");
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
    return chosen;
}

// The absolute report directory of --output ("" without one), created now.
std::string
ReportDirectory(const Flags& f)
{
    if (f.Get("output").empty())
    {
        return "";
    }
    CreateOutputDirectory(f.Get("output"), false);
    return std::filesystem::absolute(f.Get("output")).lexically_normal().string();
}

// The wall clock since the command started, and the progress lines on stderr.
class Progress
{
  public:
    Progress(const std::string& command, bool quiet)
        : m_command(command),
          m_quiet(quiet),
          m_t0(std::chrono::steady_clock::now())
    {
    }

    double Elapsed() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
    }

    void operator()(const std::string& line) const
    {
        if (!m_quiet)
        {
            std::cerr << "[" << m_command << " " << static_cast<int>(Elapsed()) << " s] " << line << std::endl;
        }
    }

  private:
    std::string m_command;
    bool m_quiet;
    std::chrono::steady_clock::time_point m_t0;
};

// The map on out; with a report directory, the report and (as a table) where it is.
void
WriteMap(std::ostream& out,
         const std::string& command,
         OutputFormat format,
         const std::vector<ExperimentOutcome>& outcomes,
         const std::string& dir,
         const PublishedComparison& published,
         const std::vector<ResultRow>& extraSection,
         const std::string& extraTitle,
         const Progress& progress)
{
    WriteRows(out, command, AccuracyTable(outcomes), format);
    if (!dir.empty())
    {
        const std::string report =
            WriteAccuracyReport(dir, outcomes, published, extraSection, extraTitle, progress.Elapsed());
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
        out << "wall time " << static_cast<int>(progress.Elapsed() + 0.5) << " s\n";
    }
}

// validate --fidelity: the fidelity table on out (and in the report with
// --output); the experiments do not run.
int
RunFidelity(const Flags& f, std::ostream& out, const std::string& command, OutputFormat format)
{
    if (!f.Get("experiments").empty() || f.GetSwitch("full"))
    {
        throw InputError("--fidelity", "expected neither --experiments nor --full with it (it replaces the experiments)");
    }
    const Time wallLimit = units::ParseWallClockLimit(f.Get("fidelity-wall-limit"), "--fidelity-wall-limit");
    if (wallLimit.IsStrictlyNegative())
    {
        throw InputError("--fidelity-wall-limit", "expected a wall-clock time >= 0, got " + f.Get("fidelity-wall-limit"));
    }
    const std::string dir = ReportDirectory(f);
    const std::vector<PublishedCase> cases = LoadPublishedCases(f.Get("validation-dir") + "/" + kPublishedCasesFile);
    const Progress progress(command, f.GetSwitch("quiet"));
    InterruptGuard guard;
    PublishedComparison published;
    try
    {
        published.fidelity =
            RunFidelityTable(cases, f.Get("measured-dir"), wallLimit, f.GetSwitch("force-memory"), progress);
    }
    catch (const PacketRunStopped& stopped)
    {
        std::cerr << "hockney " << command << ": fidelity table stopped: " << stopped.what() << "\n";
        return ExitStatusOf(stopped.Kind());
    }
    WriteRows(out, command, published.fidelity, format);
    if (!dir.empty())
    {
        published.available = true;
        published.note = "validate --fidelity: the fidelity table only (the experiments and the full published "
                         "comparison run without --fidelity). Read at run time from " + f.Get("measured-dir") + ".";
        const std::string report = WriteAccuracyReport(dir, {}, published, {}, "", progress.Elapsed());
        if (format == OutputFormat::TABLE)
        {
            out << "\nwrote " << report << " (fidelity.csv in " << dir << ")\n";
        }
    }
    if (format == OutputFormat::TABLE)
    {
        out << "wall time " << static_cast<int>(progress.Elapsed() + 0.5) << " s\n";
    }
    return 0;
}

} // namespace

int
RunAccuracyMapCommand(const std::vector<std::string>& args,
                      std::ostream& out,
                      const std::string& command,
                      const std::vector<ResultRow>& extraSection,
                      const std::string& extraTitle)
{
    Flags f;
    DeclareAccuracyMapFlags(f, command == "demo");
    if (!f.Parse(args, out))
    {
        return 0;
    }
    const OutputFormat format = ParseOutputFormat(f.Get("format"), "--format");
    if (f.GetSwitch("fidelity"))
    {
        return RunFidelity(f, out, command, format);
    }
    const bool full = f.GetSwitch("full");
    const std::vector<AccuracyExperiment> chosen =
        ChooseExperiments(f, LoadAccuracyExperiments(f.Get("validation-dir")), full);
    const std::string dir = ReportDirectory(f);
    // Read before the experiments run, so that a bad file fails at once.
    const std::vector<PublishedCase> publishedCases =
        dir.empty() ? std::vector<PublishedCase>{}
                    : LoadPublishedCases(f.Get("validation-dir") + "/" + kPublishedCasesFile);
    const Progress progress(command, f.GetSwitch("quiet"));
    std::vector<ExperimentOutcome> outcomes;
    // Ctrl-C or SIGTERM stops the running packet run; the experiments done
    // are printed (and reported with --output).
    InterruptGuard guard;
    for (const auto& e : chosen)
    {
        progress("experiment " + e.id);
        try
        {
            outcomes.push_back(RunAccuracyExperiment(e, full, progress, f.GetSwitch("force-memory")));
        }
        catch (const PacketRunStopped& stopped)
        {
            // The experiment cannot be judged without its packet rows: the map
            // of those done, and the exit status of the stop (3, 4 or 130).
            PublishedComparison none;
            none.note = "not run: the experiments stopped";
            WriteMap(out, command, format, outcomes, dir, none, extraSection, extraTitle, progress);
            std::cerr << "hockney " << command << ": experiment " << e.id << " not judged: " << stopped.what()
                      << "\n";
            return ExitStatusOf(stopped.Kind());
        }
        progress(e.id + ": " + (outcomes.back().confirmed ? "confirmed" : "refuted"));
    }
    PublishedComparison published;
    if (!dir.empty())
    {
        try
        {
            published = RunPublishedComparison(publishedCases, f.Get("measured-dir"), full, progress);
        }
        catch (const PacketRunStopped& stopped)
        {
            published = PublishedComparison{};
            published.note = std::string("not complete: ") + stopped.what();
            WriteMap(out, command, format, outcomes, dir, published, extraSection, extraTitle, progress);
            std::cerr << "hockney " << command << ": published comparison stopped: " << stopped.what() << "\n";
            return ExitStatusOf(stopped.Kind());
        }
    }
    WriteMap(out, command, format, outcomes, dir, published, extraSection, extraTitle, progress);
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
