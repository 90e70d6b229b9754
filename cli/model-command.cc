// SPDX-License-Identifier: GPL-2.0-only
//
// hockney model: one message through the algebra (contrib/analytic/doc/analytic.md,
// "Command line"). For each
// size in --bytes: T(n), alpha(n), beta(n), the crossover n*, the protocol and
// the regime; with --L --o --g --G the LogGP time and the CPU-bound diagnosis;
// with --path the multi-hop exact and approximate times. Each relaxation of the
// plain model's five assumptions (analytic.md) is switched on by giving its flags.
#include "flags.h"

#include "alpha-beta-model.h"
#include "alpha-budget.h"
#include "attribute-defaults.h"
#include "calibration-parameters.h"
#include "hop-path.h"
#include "input-error.h"
#include "interconnect-presets.h"
#include "loggp-model.h"
#include "result-row.h"
#include "units.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <ostream>

namespace
{

using namespace ns3;

// ResultRow::Set has integer overloads: a double would be ambiguous and a bool
// would silently become an integer, so both go in as Values.
ResultRow::Value
Num(double x)
{
    return ResultRow::Value(x);
}

ResultRow::Value
Flag(bool b)
{
    return ResultRow::Value(b);
}

double
PositiveRate(const hockney::Flags& f, const std::string& name)
{
    const double r = units::ParseBytesPerSecond(f.Get(name), "--" + name);
    if (!(r > 0))
    {
        throw InputError("--" + name, "expected a bandwidth > 0, got '" + f.Get(name) + "'");
    }
    return r;
}

Time
ParseFlagTime(const hockney::Flags& f, const std::string& name)
{
    return SecondsToTime(units::ParseSeconds(f.Get(name), "--" + name));
}

// G as a time per byte ("2.2ps") or as the rate it is the inverse of ("450GB/s").
double
ParseGapPerByte(const std::string& text)
{
    try
    {
        return units::ParseSeconds(text, "--G");
    }
    catch (const InputError&)
    {
    }
    try
    {
        const double r = units::ParseBytesPerSecond(text, "--G");
        if (r > 0)
        {
            return 1.0 / r;
        }
    }
    catch (const InputError&)
    {
    }
    throw InputError("--G", "expected a time per byte like 2.2ps or a rate like 450GB/s, got '" + text + "'");
}

// "1us@450GB/s,2us@50GB/s": latency@bandwidth per hop.
HopPath
ParsePath(const std::string& text)
{
    HopPath path;
    for (const auto& hop : units::SplitList(text, "--path"))
    {
        const size_t at = hop.find('@');
        if (at == std::string::npos)
        {
            throw InputError("--path", "expected hops like 1us@450GB/s,2us@50GB/s, got '" + hop + "'");
        }
        const double lat = units::ParseSeconds(hop.substr(0, at), "--path");
        const double bw = units::ParseBytesPerSecond(hop.substr(at + 1), "--path");
        if (!(bw > 0))
        {
            throw InputError("--path", "expected hop bandwidths > 0, got '" + hop + "'");
        }
        path.AddHop(SecondsToTime(lat), bw);
    }
    return path;
}

void
DeclareModelFlags(hockney::Flags& f)
{
    f.Add("preset", "", "interconnect preset for alpha, beta and n0 (h100-nvlink, ib-ndr, roce-400, ...)")
        .Add("alpha", "", "start-up latency alpha (default 5us, the H100 NVLink example); "
                          "alpha_eager when the protocol switch is on (default 2us)")
        .Add("calibration", "", "parameters from a file of hockney calibrate --output (its first fit of "
                                "--calibration-model); flags given as well override them. A fit is per ring "
                                "step of its collective: each row is ONE message of --bytes with those "
                                "parameters (a step), not the collective (hockney compare prices that)")
        .Add("calibration-model", "alphabeta", "which fit of --calibration: alphabeta, scurve, protocol or loggp")
        .Add("alpha-budget", "", "alpha from the seven components of a level: C2C, B2B, R2R, P2P, "
                                 "min, typical or max (instead of --alpha)")
        .Add("beta", "", "bandwidth beta (default 450GB/s); beta_link with --mem-read/--mem-write")
        .Add("n0", "", "S-curve: beta(n) = beta (1 - exp(-n/n0)); e.g. 256KB NVLink, 64KB IB")
        .Add("eager-limit", "", "protocol switch: n1, smallest rendezvous message (default 8KB)")
        .Add("rendezvous-limit", "", "protocol switch: n2, smallest pipelined message (default 512KB)")
        .Add("rtt", "", "protocol switch: alpha_RTT added from n1 (default 3us)")
        .Add("pipeline-setup", "", "protocol switch: alpha_pipeline added from n2 (default 1us)")
        .Add("mem-read", "", "multi-resource: source memory read bandwidth (default 3.35TB/s)")
        .Add("mem-write", "", "multi-resource: destination memory write bandwidth (default 3.35TB/s)")
        .Add("eta", "", "multi-resource: protocol efficiency, 0 < eta <= 1 (default 0.95)")
        .Add("sw-overhead", "", "software overhead per message added to alpha (relaxes the no-software-cost assumption)")
        .Add("L", "", "LogGP latency L")
        .Add("o", "", "LogGP overhead o")
        .Add("g", "", "LogGP gap g between messages")
        .Add("G", "", "LogGP gap per byte G: a time per byte (2.2ps) or its inverse rate (450GB/s)")
        .Add("messages", "1", "LogGP: a train of this many messages from one sender")
        .Add("path", "", "multi-hop path latency@bandwidth,...: exact and approximate times")
        .Add("bytes", "1KB,64KB,1MB,16MB,256MB", "message sizes")
        .Add("format", "table", "table, csv or json");
}

// What the flags ask for: the models to evaluate at each size.
struct ModelConfig
{
    OutputFormat format = OutputFormat::TABLE;
    std::vector<uint64_t> sizes;
    Ptr<AlphaBetaModel> ab;
    Ptr<LogGpModel> lg; ///< null without LogGP flags or a LogGP fit
    uint64_t messages = 1;
    bool hasPath = false;
    HopPath path;
    /// With --calibration: what each row is (one message at the fit's per-step parameters).
    std::string calibratedStep;
};

// The starting point of the alpha-beta model: a fit of --calibration (which may
// be a LogGP fit, into c.lg), an interconnect --preset, or the defaults.
void
ApplyCalibrationAndPreset(const hockney::Flags& f, ModelConfig& c)
{
    const std::string calibrationModel = f.Get("calibration-model");
    if (calibrationModel != "alphabeta" && calibrationModel != "scurve" && calibrationModel != "protocol" &&
        calibrationModel != "loggp")
    {
        throw InputError("--calibration-model",
                         "expected alphabeta, scurve, protocol or loggp, got '" + calibrationModel + "'");
    }
    if (f.IsSet("calibration-model") && !f.IsSet("calibration"))
    {
        throw InputError("--calibration-model", "expected only with --calibration=FILE");
    }
    if (f.IsSet("calibration"))
    {
        if (f.IsSet("preset"))
        {
            throw InputError("--calibration", "expected either --calibration or --preset, not both");
        }
        const auto all = LoadCalibratedParameters(f.Get("calibration"), "--calibration");
        const CalibratedParameters& fit = SelectCalibratedParameters(all, calibrationModel, "", "--calibration");
        c.calibratedStep = "one ring step of the " + fit.collective + " fit (" + fit.model + ")";
        if (calibrationModel == "loggp")
        {
            c.lg = fit.MakeLogGpModel();
        }
        else
        {
            c.ab = fit.MakeAlphaBetaModel();
        }
    }
    if (f.IsSet("preset"))
    {
        ApplyInterconnectPreset(c.ab, FindInterconnectPreset(f.Get("preset"), "--preset"));
    }
}

// --alpha or --alpha-budget: alpha_eager when the protocol switch is on.
void
ApplyAlpha(const hockney::Flags& f, bool protocol, AlphaBetaModel& ab)
{
    if (f.IsSet("alpha") && f.IsSet("alpha-budget"))
    {
        throw InputError("--alpha-budget", "expected either --alpha or --alpha-budget, not both");
    }
    if (f.IsSet("alpha-budget"))
    {
        Ptr<AlphaBudget> budget = CreateObject<AlphaBudget>();
        try
        {
            budget->ApplyPreset(f.Get("alpha-budget"));
        }
        catch (const InputError&)
        {
            throw InputError("--alpha-budget",
                             "expected C2C, B2B, R2R, P2P, min, typical or max, got '" + f.Get("alpha-budget") + "'");
        }
        ab.SetAttribute(protocol ? "EagerAlpha" : "Alpha", TimeValue(budget->GetAlpha()));
    }
    if (f.IsSet("alpha"))
    {
        ab.SetAttribute(protocol ? "EagerAlpha" : "Alpha", TimeValue(ParseFlagTime(f, "alpha")));
    }
}

// The protocol switch: eager below n1, rendezvous from n1, pipelined from n2.
void
ApplyProtocolSwitch(const hockney::Flags& f, AlphaBetaModel& ab)
{
    ab.SetAttribute("ProtocolSwitch", BooleanValue(true));
    const uint64_t n1 = f.IsSet("eager-limit") ? units::ParseBytes(f.Get("eager-limit"), "--eager-limit") : 8000;
    const uint64_t n2 =
        f.IsSet("rendezvous-limit") ? units::ParseBytes(f.Get("rendezvous-limit"), "--rendezvous-limit") : 512000;
    if (n1 > n2)
    {
        throw InputError("--eager-limit",
                         "expected --eager-limit <= --rendezvous-limit, got " + std::to_string(n1) + " B > " +
                             std::to_string(n2) + " B");
    }
    ab.SetAttribute("EagerLimit", UintegerValue(n1));
    ab.SetAttribute("RendezvousLimit", UintegerValue(n2));
    if (f.IsSet("rtt"))
    {
        ab.SetAttribute("RendezvousRtt", TimeValue(ParseFlagTime(f, "rtt")));
    }
    if (f.IsSet("pipeline-setup"))
    {
        ab.SetAttribute("PipelineSetup", TimeValue(ParseFlagTime(f, "pipeline-setup")));
    }
}

// Multi-resource bandwidth: min(memory read, link, memory write) x eta.
void
ApplyMultiResource(const hockney::Flags& f, AlphaBetaModel& ab)
{
    ab.SetAttribute("MultiResource", BooleanValue(true));
    if (f.IsSet("mem-read"))
    {
        ab.SetAttribute("MemReadBandwidth", DataRateValue(hockney::ToDataRate(PositiveRate(f, "mem-read"))));
    }
    if (f.IsSet("mem-write"))
    {
        ab.SetAttribute("MemWriteBandwidth", DataRateValue(hockney::ToDataRate(PositiveRate(f, "mem-write"))));
    }
    if (f.IsSet("eta"))
    {
        const double eta = units::ParseNumber(f.Get("eta"), "--eta");
        if (!(eta > 0 && eta <= 1))
        {
            throw InputError("--eta", "expected 0 < eta <= 1, got '" + f.Get("eta") + "'");
        }
        ab.SetAttribute("ProtocolEfficiency", DoubleValue(eta));
    }
}

// The alpha-beta model with each relaxation whose flags are given.
void
ApplyAlphaBetaFlags(const hockney::Flags& f, AlphaBetaModel& ab)
{
    const bool protocol =
        f.IsSet("eager-limit") || f.IsSet("rendezvous-limit") || f.IsSet("rtt") || f.IsSet("pipeline-setup");
    ApplyAlpha(f, protocol, ab);
    if (f.IsSet("beta"))
    {
        ab.SetAttribute("Beta", DataRateValue(hockney::ToDataRate(PositiveRate(f, "beta"))));
    }
    if (f.IsSet("n0"))
    {
        const uint64_t n0 = units::ParseBytes(f.Get("n0"), "--n0");
        if (n0 == 0)
        {
            throw InputError("--n0", "expected a size > 0, got '" + f.Get("n0") + "'");
        }
        ab.SetAttribute("SCurve", BooleanValue(true));
        ab.SetAttribute("N0", UintegerValue(n0));
    }
    if (protocol)
    {
        ApplyProtocolSwitch(f, ab);
    }
    if (f.IsSet("mem-read") || f.IsSet("mem-write") || f.IsSet("eta"))
    {
        ApplyMultiResource(f, ab);
    }
    if (f.IsSet("sw-overhead"))
    {
        ab.SetAttribute("SoftwareOverhead", TimeValue(ParseFlagTime(f, "sw-overhead")));
    }
    ab.Validate();
}

// The LogGP model of --L --o --g --G (all four, and not with a LogGP fit of
// --calibration) and the train length --messages.
void
ApplyLogGpFlags(const hockney::Flags& f, ModelConfig& c)
{
    const char* loggpFlags[] = {"L", "o", "g", "G"};
    bool anyLogGp = false;
    for (const char* name : loggpFlags)
    {
        anyLogGp = anyLogGp || f.IsSet(name);
    }
    c.messages = units::ParseCount(f.Get("messages"), "--messages");
    if (c.messages == 0)
    {
        throw InputError("--messages", "expected at least 1 message, got '" + f.Get("messages") + "'");
    }
    if (anyLogGp && c.lg)
    {
        throw InputError("--calibration-model", "expected loggp from the file or --L --o --g --G, not both");
    }
    if (anyLogGp)
    {
        for (const char* name : loggpFlags)
        {
            if (!f.IsSet(name))
            {
                throw InputError(std::string("--") + name, "expected a value: LogGP needs all of --L --o --g --G");
            }
        }
        c.lg = CreateObject<LogGpModel>();
        c.lg->SetAttribute("L", TimeValue(ParseFlagTime(f, "L")));
        c.lg->SetAttribute("o", TimeValue(ParseFlagTime(f, "o")));
        c.lg->SetAttribute("g", TimeValue(ParseFlagTime(f, "g")));
        c.lg->SetAttribute("GapPerByte", DoubleValue(ParseGapPerByte(f.Get("G"))));
    }
    else if (f.IsSet("messages") && !c.lg)
    {
        throw InputError("--messages", "expected only with the LogGP flags --L --o --g --G");
    }
}

// A --ns3:: default of alpha or beta is the model's starting point like the
// built-in defaults; a flag that sets the same parameter would overwrite it,
// so the two together are refused. LogGP has its own four flags, and without
// them model evaluates no LogGP at all: its attribute defaults never apply.
void
RefuseOverwrittenAttributes(const hockney::Flags& f)
{
    for (const auto& [attribute, flags] : {std::pair<std::string, std::vector<std::string>>{
                                               "Alpha", {"alpha", "alpha-budget", "preset", "calibration"}},
                                           {"Beta", {"beta", "preset", "calibration"}}})
    {
        for (const auto& flag : flags)
        {
            if (f.IsSet(flag))
            {
                RefuseUserAttribute("ns3::AlphaBetaModel::" + attribute, "--" + flag + " sets the same parameter");
            }
        }
    }
    for (const char* a : {"L", "o", "g", "GapPerByte"})
    {
        RefuseUserAttribute(std::string("ns3::LogGpModel::") + a,
                            "model builds LogGP only from --L --o --g --G or a LogGP --calibration; give those");
    }
}

// The flags in the order the checks run, so that the first bad flag is the one named.
ModelConfig
ParseModelConfig(const hockney::Flags& f)
{
    ModelConfig c;
    RefuseOverwrittenAttributes(f);
    c.format = ParseOutputFormat(f.Get("format"));
    c.sizes = hockney::ParseSizeList(f, "bytes", true);
    c.ab = CreateObject<AlphaBetaModel>();
    ApplyCalibrationAndPreset(f, c);
    ApplyAlphaBetaFlags(f, *c.ab);
    ApplyLogGpFlags(f, c);
    c.hasPath = f.IsSet("path");
    if (c.hasPath)
    {
        c.path = ParsePath(f.Get("path"));
    }
    return c;
}

ResultRow
ModelRow(const ModelConfig& c, uint64_t n)
{
    const AlphaBetaModel& ab = *c.ab;
    ResultRow r;
    r.Set("bytes", n)
        .Set("time_s", Num(ab.TimeSeconds(n)))
        .Set("alpha_s", Num(ab.AlphaSeconds(n)))
        .Set("beta_Bps", Num(ab.BetaBytesPerSecond(n)))
        .Set("crossover_bytes", Num(ab.CrossoverBytes()))
        .Set("protocol", AlphaBetaModel::ProtocolName(ab.GetProtocol(n)))
        .Set("regime", AlphaBetaModel::RegimeName(ab.GetRegime(n)));
    if (!c.calibratedStep.empty())
    {
        r.Set("evaluates", c.calibratedStep);
    }
    if (c.lg)
    {
        const LogGpModel& lg = *c.lg;
        r.Set("loggp_time_s", Num(lg.TimeSeconds(n)))
            .Set("L_s", Num(TimeToSeconds(lg.GetL())))
            .Set("o_s", Num(TimeToSeconds(lg.GetO())))
            .Set("g_s", Num(TimeToSeconds(lg.GetGap())))
            .Set("G_s_per_byte", Num(lg.GetGapPerByte()))
            .Set("cpu_bound", Flag(lg.IsCpuBound()));
        if (c.messages > 1)
        {
            r.Set("messages", c.messages)
                .Set("train_time_s", Num(lg.TrainSeconds(n, c.messages)))
                .Set("train_cpu_bound", Flag(lg.IsCpuBound(n)));
        }
    }
    if (c.hasPath)
    {
        r.Set("hops", static_cast<uint64_t>(c.path.GetNHops()))
            .Set("path_exact_s", Num(c.path.ExactSeconds(n)))
            .Set("path_approx_s", Num(c.path.ApproxSeconds(n)));
    }
    return r;
}

int
ModelCommand(const std::vector<std::string>& args, std::ostream& out)
{
    hockney::Flags f;
    DeclareModelFlags(f);
    if (!f.Parse(args, out))
    {
        return 0;
    }
    const ModelConfig c = ParseModelConfig(f);
    std::vector<ResultRow> rows;
    for (uint64_t n : c.sizes)
    {
        rows.push_back(ModelRow(c, n));
    }
    WriteRows(out, "model", rows, c.format);
    return 0;
}

hockney::CommandRegistrar registrar("model", "one message through the algebra (alpha-beta, LogGP)", &ModelCommand);

} // namespace
