// SPDX-License-Identifier: GPL-2.0-only
//
// hockney demo: the interim main job (issue 2), until the accuracy map replaces
// it. An analytic sweep over message sizes that shows the seed's phenomena on
// its own example (H100 NVLink, alpha 5 us, beta 450 GB/s):
//   - the crossover n* = alpha x beta = 2.25 MB between latency- and bandwidth-bound,
//   - alpha's protocol steps (eager / rendezvous / pipeline: 2 / +3 / +1 us at 8 KB, 512 KB),
//   - beta's S-curve (n0 = 256 KB: small messages cannot fill the link),
//   - LogGP, and its CPU-bound case: with o > g a faster network does not help.
// A table on stdout; CSV files, a gnuplot script and a PNG in --output.
#include "flags.h"

#include "alpha-beta-model.h"
#include "input-error.h"
#include "interconnect-presets.h"
#include "loggp-model.h"
#include "result-row.h"
#include "units.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>

namespace
{

using namespace ns3;

std::string
ShellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

// The seed's example and its relaxations, one model each.
struct Models
{
    Ptr<AlphaBetaModel> constant;
    Ptr<AlphaBetaModel> protocol;
    Ptr<AlphaBetaModel> sCurve;
    Ptr<LogGpModel> loggp;
};

Models
MakeModels()
{
    Models m;
    m.constant = CreateAlphaBetaModel("h100-nvlink");
    m.protocol = CreateAlphaBetaModel("h100-nvlink");
    m.protocol->SetAttribute("ProtocolSwitch", BooleanValue(true)); // seed typical 2 / +3 / +1 us
    m.sCurve = CreateAlphaBetaModel("h100-nvlink");
    m.sCurve->SetAttribute("SCurve", BooleanValue(true)); // n0 = 256 KB (seed, NVLink)
    // LogGP with 2o + L = 5 us and 1/G = 450 GB/s: the same point-to-point line.
    m.loggp = CreateObject<LogGpModel>();
    m.loggp->SetAttribute("L", TimeValue(MicroSeconds(3)));
    m.loggp->SetAttribute("o", TimeValue(MicroSeconds(1)));
    m.loggp->SetAttribute("g", TimeValue(MicroSeconds(2)));
    m.loggp->SetAttribute("GapPerByte", DoubleValue(1.0 / 450e9));
    return m;
}

std::vector<ResultRow>
Sweep(const Models& m)
{
    std::vector<ResultRow> rows;
    for (uint64_t n = 1; n <= (1ULL << 30); n *= 4)
    {
        ResultRow r;
        r.Set("bytes", n)
            .Set("time_s", m.constant->TimeSeconds(n))
            .Set("protocol_time_s", m.protocol->TimeSeconds(n))
            .Set("protocol", AlphaBetaModel::ProtocolName(m.protocol->GetProtocol(n)))
            .Set("scurve_time_s", m.sCurve->TimeSeconds(n))
            .Set("scurve_beta_Bps", m.sCurve->BetaBytesPerSecond(n))
            .Set("loggp_time_s", m.loggp->TimeSeconds(n))
            .Set("crossover_bytes", m.constant->CrossoverBytes())
            .Set("regime", AlphaBetaModel::RegimeName(m.constant->GetRegime(n)));
        rows.push_back(std::move(r));
    }
    return rows;
}

// A train of 1000 small messages from one sender while the network gets 2x and
// 4x faster (g and G halved): CPU-bound (o = 2 us > g) it does not speed up,
// network-bound (o = 0.2 us) it does.
std::vector<ResultRow>
CpuBoundCase()
{
    const uint64_t k = 1000;
    const uint64_t n = 64;
    std::vector<ResultRow> rows;
    for (double oUs : {2.0, 0.2})
    {
        for (int speedup : {1, 2, 4})
        {
            Ptr<LogGpModel> lg = CreateObject<LogGpModel>();
            lg->SetAttribute("L", TimeValue(MicroSeconds(3)));
            lg->SetAttribute("o", TimeValue(SecondsToTime(oUs * 1e-6)));
            lg->SetAttribute("g", TimeValue(SecondsToTime(1e-6 / speedup)));
            lg->SetAttribute("GapPerByte", DoubleValue(1.0 / (12.5e9 * speedup)));
            const double t = lg->TrainSeconds(n, k);
            ResultRow r;
            r.Set("case", lg->IsCpuBound() ? "cpu-bound" : "network-bound")
                .Set("network_speedup", speedup)
                .Set("o_s", TimeToSeconds(lg->GetO()))
                .Set("g_s", TimeToSeconds(lg->GetGap()))
                .Set("G_s_per_byte", lg->GetGapPerByte())
                .Set("bytes", n)
                .Set("messages", k)
                .Set("train_time_s", t)
                .Set("messages_per_s", static_cast<double>(k) / t)
                .Set("cpu_bound", lg->IsCpuBound());
            rows.push_back(std::move(r));
        }
    }
    return rows;
}

void
WritePlotScript(const std::string& path, const std::string& csv, const std::string& png, double crossover)
{
    std::ofstream f(path);
    if (!f)
    {
        throw std::runtime_error("cannot write " + path);
    }
    // Columns of analytic-sweep.csv: 1 bytes, 2 time_s, 3 protocol_time_s,
    // 4 protocol, 5 scurve_time_s, 6 scurve_beta_Bps, 7 loggp_time_s.
    f << "# hockney demo: the seed's alpha-beta phenomena (written by hockney demo)\n"
      << "set terminal pngcairo size 1400,560 font ',10'\n"
      << "set output '" << png << "'\n"
      << "set datafile separator ','\n"
      << "set multiplot layout 1,2 title 'Seed example H100 NVLink: alpha 5 us, beta 450 GB/s'\n"
      << "set logscale xy\nset grid\nset key top left\nset format x '10^{%L}'\nset format y '10^{%L}'\n"
      << "set xlabel 'message size n (bytes)'\nset ylabel 'T(n) (s)'\n"
      << "set arrow 1 from " << crossover << ", graph 0 to " << crossover << ", graph 1 nohead dt 2\n"
      << "set label 1 sprintf('n* = alpha beta = %.2f MB', " << crossover / 1e6 << ") at " << crossover
      << ", graph 0.5 offset 1,0\n"
      << "plot '" << csv << "' skip 1 using 1:2 with linespoints title 'constant alpha-beta', \\\n"
      << "     '' skip 1 using 1:3 with linespoints title 'protocol steps (8 KB, 512 KB)', \\\n"
      << "     '' skip 1 using 1:5 with linespoints title 'S-curve beta (n0 = 256 KB)', \\\n"
      << "     '' skip 1 using 1:7 with lines dt 3 title 'LogGP 2o+L = 5 us, 1/G = 450 GB/s'\n"
      << "unset logscale y\nset format y '%g'\nset ylabel 'effective bandwidth n / T(n) (GB/s)'\nset key top left\n"
      << "plot '' skip 1 using 1:($1/$2/1e9) with linespoints title 'constant alpha-beta', \\\n"
      << "     '' skip 1 using 1:($1/$3/1e9) with linespoints title 'protocol steps', \\\n"
      << "     '' skip 1 using 1:($1/$5/1e9) with linespoints title 'S-curve beta', \\\n"
      << "     '' skip 1 using 1:($6/1e9) with lines dt 2 title 'beta(n) of the S-curve'\n"
      << "unset multiplot\n";
}

int
DemoCommand(const std::vector<std::string>& args, std::ostream& out)
{
    hockney::Flags f;
    f.Add("output", "demo-output", "directory for the CSV files, the gnuplot script and the PNG")
        .Add("format", "table", "table, csv or json for stdout");
    if (!f.Parse(args, out))
    {
        return 0;
    }
    const OutputFormat format = ParseOutputFormat(f.Get("format"));
    if (f.Get("output").empty())
    {
        throw InputError("--output", "expected a directory");
    }
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(f.Get("output"), ec);
    if (ec || !fs::is_directory(f.Get("output")))
    {
        throw InputError("--output", "expected a directory that can be created, got '" + f.Get("output") + "'");
    }
    const std::string dir = fs::absolute(f.Get("output")).lexically_normal().string();

    const Models models = MakeModels();
    const std::vector<ResultRow> sweep = Sweep(models);
    const std::vector<ResultRow> cpu = CpuBoundCase();
    WriteRows(out, "demo", sweep, format);
    if (format == OutputFormat::TABLE)
    {
        out << "\nLogGP, a train of 1000 x 64 B from one sender while the network gets faster:\n";
    }
    WriteRows(out, "demo-loggp", cpu, format);

    const std::string csv = dir + "/analytic-sweep.csv";
    const std::string png = dir + "/analytic-sweep.png";
    const std::string script = dir + "/analytic-sweep.gp";
    WriteCsvFile(csv, sweep);
    WriteCsvFile(dir + "/loggp-cpu-bound.csv", cpu);
    WritePlotScript(script, csv, png, models.constant->CrossoverBytes());
    const std::string cmd = "gnuplot " + ShellQuote(script) + " 2>" + ShellQuote(dir + "/gnuplot.log");
    if (std::system(cmd.c_str()) != 0)
    {
        throw std::runtime_error("gnuplot failed (see " + dir + "/gnuplot.log; ./hockney setup installs gnuplot-nox)");
    }
    if (format == OutputFormat::TABLE)
    {
        out << "\nwrote " << csv << ", " << dir << "/loggp-cpu-bound.csv, " << png << "\n";
    }
    return 0;
}

hockney::CommandRegistrar registrar("demo", "analytic sweep of the seed's phenomena (table, CSV, PNG)", &DemoCommand);

} // namespace
