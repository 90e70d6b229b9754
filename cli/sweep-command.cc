// SPDX-License-Identifier: GPL-2.0-only
//
// hockney sweep: compare over a grid of scenario fields and ns-3 attributes
// (contrib/collective/doc/collective.md, "hockney sweep"). The grid is
// scenario-sweep.h's; each point runs as `hockney compare --scenario=POINT
// --format=json` in a child process of this same binary, because ns-3 keeps
// global state (the Simulator, attribute defaults) that one point would leave
// to the next. Rows come back in grid order whatever --jobs is, so the output
// does not depend on which child finishes first.
#include "flags.h"
#include "collective-comparison.h"
#include "input-error.h"
#include "mpi-world.h"
#include "rdma-congestion-control.h"
#include "result-row.h"
#include "scenario-sweep.h"
#include "sweep-output.h"
#include "units.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace
{

using ns3::OrderedJson;
using ns3::ResultRow;
using ns3::SweepAxis;
using ns3::SweepPoint;
using Clock = std::chrono::steady_clock;

// --sweep may be given once per axis, which Flags (one value a flag) refuses:
// it is taken out of the arguments first.
std::vector<std::string>
TakeSweepFlags(std::vector<std::string>& args)
{
    std::vector<std::string> sweeps;
    std::vector<std::string> rest;
    for (size_t i = 0; i < args.size(); ++i)
    {
        if (args[i].rfind("--sweep=", 0) == 0)
        {
            sweeps.push_back(args[i].substr(8));
        }
        else if (args[i] == "--sweep")
        {
            if (i + 1 == args.size())
            {
                throw ns3::InputError("--sweep", "expected a value (--sweep=KEY=v1,v2)");
            }
            sweeps.push_back(args[++i]);
        }
        else
        {
            rest.push_back(args[i]);
        }
    }
    args = rest;
    return sweeps;
}

// The scenario as written, member order kept (the axes' order). The outputs
// name the file and hash what it held, as compare's do.
OrderedJson
ReadScenario(const std::string& path)
{
    const std::string text = ns3::ReadScenarioText(path);
    try
    {
        return OrderedJson::parse(text);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw ns3::InputError("--scenario", "expected valid JSON in '" + path + "' (" + e.what() + ")");
    }
}

// The attribute an axis varies in some point, as a --ns3:: flag names it
// (without "--"): attributes.NAME is NAME; fabric.congestion_control.KEY is
// KEY of the point's algorithm (ns3::Dcqcn::G for dcqcn), which compare sets
// before the flags are applied (comparison-congestion-control.cc).
std::vector<std::string>
AxisAttributes(const SweepAxis& a, const std::vector<SweepPoint>& points)
{
    if (a.path.size() == 2 && a.path[0].token == "attributes")
    {
        return {a.path[1].token};
    }
    std::vector<std::string> names;
    if (a.path.size() == 3 && a.path[0].token == "fabric" && a.path[1].token == "congestion_control" &&
        a.path[2].token != "name" && a.path[2].token != "preset")
    {
        for (const SweepPoint& p : points)
        {
            const OrderedJson* cc = nullptr;
            if (p.scenario.contains("fabric") && p.scenario.at("fabric").is_object() &&
                p.scenario.at("fabric").contains("congestion_control"))
            {
                cc = &p.scenario.at("fabric").at("congestion_control");
            }
            if (cc && cc->is_object() && cc->contains("name") && cc->at("name").is_string())
            {
                // An unknown name is the point check's error.
                if (const ns3::RdmaCcEntry* e = ns3::RdmaCcRegistry::Find(cc->at("name").get<std::string>());
                    e && e->typeId)
                {
                    names.push_back(e->typeId().GetName() + "::" + a.path[2].token);
                }
            }
        }
    }
    return names;
}

// A --ns3:: flag wins over a scenario's attribute (attribute-defaults.h), so
// with one the axis of that attribute would vary nothing.
void
CheckAttributeFlags(const std::vector<SweepAxis>& axes, const std::vector<SweepPoint>& points)
{
    for (const auto& flag : hockney::AttributeFlags())
    {
        const std::string name = flag.substr(2, flag.find('=') - 2);
        for (const SweepAxis& a : axes)
        {
            const std::vector<std::string> varied = AxisAttributes(a, points);
            if (std::find(varied.begin(), varied.end(), name) != varied.end())
            {
                throw ns3::InputError(flag.substr(0, flag.find('=')), "fixes the attribute that " +
                                                                          ns3::SweepKeyField(a.key) +
                                                                          " varies; expected one of the two");
            }
        }
    }
}

std::string
PointLabel(const std::vector<SweepAxis>& axes, const SweepPoint& p)
{
    std::string s;
    for (size_t k = 0; k < axes.size(); ++k)
    {
        s += (k ? ", " : "") + axes[k].key + "=" + (p.values[k].is_string() ? p.values[k].get<std::string>()
                                                                            : p.values[k].dump());
    }
    return s;
}

// Children of this binary, each running compare on one point; their stdout
// and stderr go to files in a private directory, so that no pipe can fill up.
class PointRunner
{
  public:
    /// \p extra: compare flags of every point (--force-memory).
    explicit PointRunner(std::vector<std::string> extra)
        : m_extra(std::move(extra))
    {
        char dir[] = "/tmp/hockney-sweep-XXXXXX";
        if (!mkdtemp(dir))
        {
            throw std::runtime_error("cannot create a temporary directory in /tmp");
        }
        m_dir = dir;
        m_exe = std::filesystem::read_symlink("/proc/self/exe").string();
    }

    PointRunner(const PointRunner&) = delete;
    PointRunner& operator=(const PointRunner&) = delete;

    ~PointRunner()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }

    /// Starts point \p i; returns the child's pid.
    pid_t Start(size_t i, const OrderedJson& scenario)
    {
        const std::string base = Base(i);
        std::ofstream(base + ".json") << scenario.dump(1) << "\n";
        std::vector<std::string> args{m_exe, "compare", "--scenario=" + base + ".json", "--format=json"};
        args.insert(args.end(), hockney::AttributeFlags().begin(), hockney::AttributeFlags().end());
        args.insert(args.end(), m_extra.begin(), m_extra.end());
        std::vector<char*> argv;
        for (auto& a : args)
        {
            argv.push_back(a.data());
        }
        argv.push_back(nullptr);
        std::vector<char*> envp;
        for (auto& e : m_env)
        {
            envp.push_back(e.data());
        }
        envp.push_back(nullptr);
        std::cout.flush();
        std::cerr.flush();
        const pid_t pid = fork();
        if (pid < 0)
        {
            throw std::runtime_error("cannot fork a point's process");
        }
        if (pid == 0)
        {
            // In the child only async-signal-safe calls until exec.
            const int in = open("/dev/null", O_RDONLY);
            const int out = open((base + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int err = open((base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            {
                _exit(127);
            }
            execve(argv[0], argv.data(), envp.data());
            _exit(127);
        }
        return pid;
    }

    std::string Out(size_t i) const { return hockney::ReadText(Base(i) + ".out"); }
    std::string Err(size_t i) const { return hockney::ReadText(Base(i) + ".err"); }

  private:
    std::string Base(size_t i) const { return m_dir + "/point-" + std::to_string(i); }

    std::string m_dir;
    std::string m_exe;
    std::vector<std::string> m_extra;
    /// A point is a process of its own, not a rank of an MPI job this one is in.
    std::vector<std::string> m_env{hockney::MpiWorld::ChildEnvironment()};
};

// Points done of total and the time left on stderr: a bar redrawn in place
// on a terminal, else one line a point (a log keeps every line).
class Progress
{
  public:
    Progress(size_t total, size_t skipped)
        : m_total(total),
          m_done(skipped),
          m_tty(isatty(STDERR_FILENO)),
          m_start(Clock::now())
    {
    }

    /// A point ended: "done", "FAILED" or "stopped" (by an interrupt).
    void Point(const std::string& label, double seconds, const std::string& how)
    {
        ++m_done;
        ++m_run;
        const double elapsed = std::chrono::duration<double>(Clock::now() - m_start).count();
        const double eta = elapsed / m_run * (m_total - m_done);
        if (!m_tty)
        {
            std::cerr << "sweep: point " << m_done << "/" << m_total << " " << how << " in "
                      << Seconds(seconds) << ": " << label << "\n";
            return;
        }
        const size_t width = 30;
        const size_t filled = m_total ? width * m_done / m_total : width;
        std::cerr << "\rsweep [" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << m_done
                  << "/" << m_total << " points, ETA " << Seconds(eta) << "   " << std::flush;
        if (m_done == m_total)
        {
            std::cerr << "\n";
        }
    }

    /// Before a message of its own on a terminal: end the bar's line.
    void Break()
    {
        if (m_tty && m_run > 0 && m_done < m_total)
        {
            std::cerr << "\n";
        }
    }

  private:
    static std::string Seconds(double s)
    {
        std::ostringstream os;
        os.precision(s < 10 ? 2 : 0);
        os << std::fixed << s << " s";
        return os.str();
    }

    size_t m_total;
    size_t m_done;
    size_t m_run = 0;
    bool m_tty;
    Clock::time_point m_start;
};

// "hockney compare: FIELD: EXPECTED" (the child's last line) as field and message.
std::pair<std::string, std::string>
ChildError(const std::string& err)
{
    std::string line = err;
    while (!line.empty() && line.back() == '\n')
    {
        line.pop_back();
    }
    line = line.substr(line.rfind('\n') == std::string::npos ? 0 : line.rfind('\n') + 1);
    const std::string prefix = "hockney compare: ";
    std::string message = line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
    return {message.substr(0, message.find(": ")), message};
}

struct Grid
{
    OrderedJson base;
    std::vector<SweepAxis> axes;
    std::vector<SweepPoint> points;
};

Grid
ReadGrid(const hockney::Flags& f, const std::vector<std::string>& sweepFlags)
{
    if (!f.IsSet("scenario"))
    {
        throw ns3::InputError("--scenario", "expected a compare scenario file (with a \"sweep\" object or --sweep)");
    }
    Grid g;
    g.base = ReadScenario(f.Get("scenario"));
    if (!g.base.is_object())
    {
        throw ns3::InputError("--scenario", "expected a JSON object in '" + f.Get("scenario") + "'");
    }
    // flows_csv is relative to the scenario file, which neither this
    // process's directory nor a point file's is.
    const std::string dir =
        std::filesystem::absolute(f.Get("scenario")).lexically_normal().parent_path().string();
    ns3::AnchorFlowsCsv(g.base, dir);
    if (g.base.contains("sweep"))
    {
        g.axes = ns3::SweepAxesFromJson(g.base.at("sweep"));
    }
    for (const auto& s : sweepFlags)
    {
        ns3::AddSweepAxis(g.axes, ns3::SweepAxisFromFlag(s));
    }
    if (g.axes.empty())
    {
        throw ns3::InputError("--sweep", "expected at least one axis: KEY=v1,v2 or a \"sweep\" object in the scenario");
    }
    ns3::ResolveSweepAxes(g.base, g.axes);
    g.points = ns3::ExpandSweep(g.base, g.axes);
    for (SweepPoint& p : g.points)
    {
        ns3::AnchorFlowsCsv(p.scenario, dir); // an axis may set it
        ns3::CheckSweepPoint(g.base, g.axes, p);
    }
    CheckAttributeFlags(g.axes, g.points);
    return g;
}

// The rows of one point: the swept values first, then compare's row.
std::vector<ResultRow>
WithSweptColumns(const std::vector<SweepAxis>& axes, const SweepPoint& p, const std::vector<ResultRow>& rows)
{
    std::vector<ResultRow> out;
    for (const ResultRow& r : rows)
    {
        ResultRow s;
        for (size_t k = 0; k < axes.size(); ++k)
        {
            s.Set(ns3::SweepColumn(axes[k], rows), ns3::SweepRowValue(p.values[k]));
        }
        for (const auto& [key, value] : r.Fields())
        {
            s.Set(key, value);
        }
        out.push_back(std::move(s));
    }
    return out;
}

struct PointCounts
{
    size_t failed = 0;      ///< exit 1 or a signal: no rows
    size_t wallStopped = 0; ///< exit 3: rows, a packet run stopped at its wall-clock limit
    size_t unfinished = 0;  ///< exit 4: rows, a packet run did not finish by fabric.time_limit or stalled
};

// A point's child ended: its exit status, stdout and stderr.
struct PointEnd
{
    size_t point = 0;
    int code = -1;
    double seconds = 0;
    std::string out;
    std::string err;
};

OrderedJson
PointEndsToJson(const std::vector<PointEnd>& ends)
{
    OrderedJson a = OrderedJson::array();
    for (const PointEnd& e : ends)
    {
        a.push_back({{"point", e.point}, {"code", e.code}, {"seconds", e.seconds}, {"out", e.out}, {"err", e.err}});
    }
    return a;
}

std::vector<PointEnd>
PointEndsFromJson(const OrderedJson& a)
{
    std::vector<PointEnd> ends;
    for (const auto& e : a)
    {
        ends.push_back({e.at("point").get<size_t>(), e.at("code").get<int>(), e.at("seconds").get<double>(),
                        e.at("out").get<std::string>(), e.at("err").get<std::string>()});
    }
    return ends;
}

// What the ended points come to: rows in the output, counts, the first bad
// input (thrown once the running points have ended).
class PointCollector
{
  public:
    PointCollector(const Grid& g, hockney::SweepOutput& output, Progress& progress)
        : m_g(g),
          m_output(output),
          m_progress(progress)
    {
    }

    void Take(const PointEnd& e)
    {
        const size_t i = e.point;
        const int code = e.code;
        const std::string label = PointLabel(m_g.axes, m_g.points[i]);
        // Exit 3: a packet run reached its wall-clock limit; compare still
        // printed every row (SweepOutput runs such a point again on resume).
        std::optional<std::vector<ResultRow>> rows;
        if (code == 0 || code == hockney::kExitStopped || code == hockney::kExitUnfinished)
        {
            try
            {
                rows = ns3::RowsFromJson(OrderedJson::parse(e.out), "compare's output");
            }
            catch (const nlohmann::json::exception&)
            {
                // An unreadable output is the point's failure, like a crash.
            }
            catch (const ns3::InputError&)
            {
                // JSON without a "rows" list: the same.
            }
        }
        if (rows)
        {
            // Outside the catches above: a failed write of --output is the
            // sweep's bad input (exit 2, once the running points end), not
            // this point's failure.
            try
            {
                m_output.Add(i, WithSweptColumns(m_g.axes, m_g.points[i], *rows));
            }
            catch (const ns3::InputError& err)
            {
                if (!badInput)
                {
                    badInput = err;
                }
                return;
            }
            m_progress.Point(label, e.seconds,
                             code == 0                       ? "done"
                             : code == hockney::kExitStopped ? "stopped at the wall-clock limit"
                                                             : "unfinished (time limit or stall)");
            if (code != 0)
            {
                ++(code == hockney::kExitStopped ? counts.wallStopped : counts.unfinished);
                m_progress.Break();
                std::cerr << "hockney sweep: point " << label << ": " << ChildError(e.err).second << "\n";
            }
            return;
        }
        m_progress.Point(label, e.seconds, ns3::PacketRunInterrupted() ? "stopped" : "FAILED");
        const auto [field, message] = ChildError(e.err);
        if (code == 2 && !badInput)
        {
            badInput = ns3::SweepPointError(m_g.base, m_g.axes, m_g.points[i], field, message);
            return;
        }
        if (ns3::PacketRunInterrupted())
        {
            return; // stopped by the interrupt, not failed
        }
        ++counts.failed;
        m_progress.Break();
        std::cerr << "hockney sweep: point " << label << " failed (exit " << code << "): " << message << "\n";
    }

    PointCounts counts;
    std::optional<ns3::InputError> badInput;

  private:
    const Grid& m_g;
    hockney::SweepOutput& m_output;
    Progress& m_progress;
};

// Runs the points not yet in \p output, \p jobs at a time; rewrites the
// output after each. A point's bad input (exit 2) throws once the running
// children have finished. Under `mpirun -np N` (mpi-world.h) rank r runs
// every N-th point from the r-th, each rank \p jobs at a time, and sends
// how they ended to rank 0, which takes them as its own (the one output, in
// grid order as always); the other ranks write nothing.
PointCounts
RunPoints(const Grid& g, hockney::SweepOutput& output, size_t jobs, bool forceMemory)
{
    const size_t rank = hockney::MpiWorld::Rank();
    const size_t ranks = hockney::MpiWorld::Size();
    std::vector<size_t> todo;
    size_t missing = 0;
    for (size_t i = 0; i < g.points.size(); ++i)
    {
        if (!output.Has(i) && missing++ % ranks == rank)
        {
            todo.push_back(i);
        }
    }
    // Before the line that says what runs: a signal sent once it is printed
    // (as the interrupt test does) must find the guard in place.
    hockney::InterruptGuard guard;
    if (rank == 0)
    {
        std::cerr << "sweep: " << g.points.size() << " points, " << g.points.size() - missing << " already in "
                  << (output.Path().empty() ? "the output" : output.Path()) << ", " << missing << " to run, "
                  << std::min(jobs * ranks, missing) << " at a time"
                  << (ranks > 1 ? " over " + std::to_string(ranks) + " MPI ranks" : std::string()) << "\n";
    }
    PointRunner runner(forceMemory ? std::vector<std::string>{"--force-memory"} : std::vector<std::string>{});
    Progress progress(g.points.size(), g.points.size() - missing);
    PointCollector collector(g, output, progress);
    std::vector<PointEnd> ended; // by a rank other than 0, for rank 0
    std::map<pid_t, std::pair<size_t, Clock::time_point>> running;
    size_t next = 0;
    bool badPoint = false; // a point's bad input: start no more
    bool stopping = false;
    auto mayStart = [&] { return next < todo.size() && !badPoint && !collector.badInput && !ns3::PacketRunInterrupted(); };
    while (running.size() > 0 || mayStart())
    {
        while (running.size() < jobs && mayStart())
        {
            const size_t i = todo[next++];
            running[runner.Start(i, g.points[i].scenario)] = {i, Clock::now()};
        }
        if (ns3::PacketRunInterrupted() && !stopping)
        {
            // A terminal's Ctrl-C reached the children too; a SIGTERM to
            // this process alone did not.
            stopping = true;
            for (const auto& [child, point] : running)
            {
                kill(child, SIGTERM);
            }
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        auto it = running.find(pid);
        if (pid < 0 || it == running.end())
        {
            continue;
        }
        const auto [i, started] = it->second;
        running.erase(it);
        PointEnd e{i, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                   std::chrono::duration<double>(Clock::now() - started).count(), runner.Out(i), runner.Err(i)};
        badPoint = badPoint || e.code == 2;
        if (rank == 0)
        {
            collector.Take(e);
        }
        else
        {
            ended.push_back(std::move(e));
        }
    }
    const std::vector<std::string> fromRanks = hockney::MpiWorld::GatherAtRoot(PointEndsToJson(ended).dump());
    for (size_t r = 1; r < fromRanks.size(); ++r)
    {
        for (const PointEnd& e : PointEndsFromJson(OrderedJson::parse(fromRanks[r])))
        {
            collector.Take(e);
        }
    }
    if (collector.badInput)
    {
        progress.Break();
        throw *collector.badInput;
    }
    return collector.counts;
}

// The analytic backends' error vs packets against the values of axis --plot-x.
void
Plot(const hockney::Flags& f, const Grid& g, const std::vector<ResultRow>& rows)
{
    const std::string x = f.IsSet("plot-x") ? f.Get("plot-x") : g.axes.front().key;
    size_t k = 0;
    while (k < g.axes.size() && g.axes[k].key != x)
    {
        ++k;
    }
    hockney::WriteSweepPlot(f.Get("plot"), g.axes, k, rows);
}

void
DeclareSweepFlags(hockney::Flags& f)
{
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    f.Add("scenario", "", "compare scenario file (JSON) with a \"sweep\" object {\"KEY\": [values], ...}")
        .Add("sweep", "", "KEY=v1,v2,... : one more axis (repeatable; KEY=[JSON list] for values with commas)")
        .Add("jobs", std::to_string(cores), "points run at once, each in its own process (default: the machine's cores)")
        .Add("format", "table", "table | csv | json")
        .Add("output", "", "file to write (and to resume: points already in it are not run again)")
        .AddSwitch("resume-any", "resume --output even when another scenario wrote it (its rows are kept)")
        .Add("plot", "", "PNG of the analytic backends' error vs packets against the swept value (gnuplot)")
        .Add("plot-x", "", "the axis on the x axis of --plot (default: the first)")
        .AddSwitch("force-memory", "start a point's packet run even when its memory estimate exceeds the memory "
                                   "available (compare --force-memory)");
}

int
Sweep(const std::vector<std::string>& argsIn, std::ostream& out)
{
    std::vector<std::string> args = argsIn;
    const std::vector<std::string> sweepFlags = TakeSweepFlags(args);
    hockney::Flags f;
    DeclareSweepFlags(f);
    if (!f.Parse(args, out))
    {
        return 0;
    }
    const ns3::OutputFormat format = ns3::ParseOutputFormat(f.Get("format"));
    const uint64_t jobs = ns3::units::ParseCount(f.Get("jobs"), "--jobs");
    if (jobs < 1 || jobs > 1024)
    {
        throw ns3::InputError("--jobs", "expected 1 to 1024 processes, got " + f.Get("jobs"));
    }
    const Grid g = ReadGrid(f, sweepFlags);
    if (!f.Get("plot").empty())
    {
        hockney::CheckSweepPlot(f.Get("plot"), f.IsSet("plot-x") ? f.Get("plot-x") : g.axes.front().key, g.axes,
                                g.points);
    }
    hockney::SweepOutput output(f.Get("output"), format, g.axes, g.points, ns3::OutputProvenance().scenarioSha256,
                                f.GetSwitch("resume-any"));
    if (std::none_of(g.axes.begin(), g.axes.end(), [](const SweepAxis& a) { return a.key == "seed"; }))
    {
        // One seed for every point: the scenario's, else compare's default.
        ns3::OutputProvenance().seed =
            g.base.contains("seed") && g.base.at("seed").is_number_unsigned() ? g.base.at("seed").get<uint64_t>()
                                                                               : ns3::ComparisonConfig{}.seed;
    }
    const PointCounts counts = RunPoints(g, output, jobs, f.GetSwitch("force-memory"));
    if (hockney::MpiWorld::Rank() != 0)
    {
        // Rank 0 has this rank's points and writes the one output.
        return ns3::PacketRunInterrupted() ? hockney::kExitInterrupted : 0;
    }
    if (f.Get("output").empty())
    {
        ns3::WriteRows(out, "sweep", output.Rows(), format);
    }
    if (ns3::PacketRunInterrupted())
    {
        std::cerr << "hockney sweep: interrupted; the points done are in the output"
                  << (f.Get("output").empty() ? "" : " and the same command runs the others") << "\n";
        return hockney::kExitInterrupted; // as a shell reports a command ended by SIGINT
    }
    if (!f.Get("plot").empty())
    {
        Plot(f, g, output.Rows());
    }
    if (counts.failed > 0)
    {
        std::cerr << "hockney sweep: " << counts.failed << " of " << g.points.size()
                  << " points failed; run the same sweep again to retry them\n";
        return 1;
    }
    if (counts.wallStopped > 0)
    {
        // As compare: every row written, exit 3.
        std::cerr << "hockney sweep: " << counts.wallStopped << " of " << g.points.size()
                  << " points stopped at the wall-clock limit; with --output the same sweep runs them again\n";
        return hockney::kExitStopped;
    }
    if (counts.unfinished > 0)
    {
        // As compare: every row written, exit 4 (rows with status
        // stopped-at-time-limit or stalled; a resume does not run them again:
        // the same scenario stops the same way).
        std::cerr << "hockney sweep: " << counts.unfinished << " of " << g.points.size()
                  << " points had a packet run that did not finish by fabric.time_limit or stalled\n";
        return hockney::kExitUnfinished;
    }
    return 0;
}

hockney::CommandRegistrar registrar("sweep", "compare over a grid of scenario fields and ns-3 attributes, each "
                                             "point in its own process (--jobs), resumable (--output)",
                                    &Sweep);

} // namespace
