// SPDX-License-Identifier: GPL-2.0-only
#include "collective-comparison.h"

#include "alpha-beta-model.h"
#include "analytic-transport.h"
#include "collective-bandwidth.h"
#include "collective-closed-form.h"
#include "calibration.h"
#include "collective-executor.h"
#include "dcqcn.h"
#include "packet-transport.h"
#include "rdma-nic.h"
#include "input-error.h"
#include "loggp-model.h"
#include "topology-graph.h"
#include "topology-parameters.h"
#include "topology-presets.h"
#include "units.h"

#include "ns3/boolean.h"
#include "ns3/uinteger.h"
#include "ns3/double.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <sys/resource.h>

namespace ns3
{

namespace
{

const double CONTENTION_THRESHOLD = 1.10;
/// Messages above which a packet-only comparison skips the builder's chunk
/// check and the regime's flow model (see RunComparison).
const size_t kLargeScheduleOps = 65536;

std::string
Join(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
    {
        s += (s.empty() ? "" : ", ") + x;
    }
    return s;
}

// --- scenario fields ---

void
CheckKeys(const nlohmann::json& j, const std::string& where, const std::vector<std::string>& known)
{
    if (!j.is_object())
    {
        throw InputError(where, "expected a JSON object");
    }
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if (std::find(known.begin(), known.end(), it.key()) == known.end())
        {
            throw InputError(where + "." + it.key(), "unknown field; expected one of " + Join(known));
        }
    }
}

std::string
Text(const nlohmann::json& v, const std::string& field)
{
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (v.is_number())
    {
        return v.dump();
    }
    throw InputError(field, "expected a string or a number, got " + v.dump());
}

std::string
String(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_string())
    {
        throw InputError(field, "expected a string, got " + v.dump());
    }
    return v.get<std::string>();
}

uint32_t
Count(const nlohmann::json& v, const std::string& field, uint64_t minimum)
{
    if (!v.is_number_integer() || v.get<int64_t>() < static_cast<int64_t>(minimum) ||
        v.get<int64_t>() > static_cast<int64_t>(UINT32_MAX))
    {
        throw InputError(field, "expected an integer >= " + std::to_string(minimum) + ", got " + v.dump());
    }
    return static_cast<uint32_t>(v.get<int64_t>());
}

bool
Bool(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_boolean())
    {
        throw InputError(field, "expected true or false, got " + v.dump());
    }
    return v.get<bool>();
}

std::vector<uint64_t>
Sizes(const nlohmann::json& v, const std::string& field)
{
    std::vector<uint64_t> out;
    if (v.is_string())
    {
        for (const auto& item : units::SplitList(v.get<std::string>(), field))
        {
            out.push_back(units::ParseBytes(item, field));
        }
    }
    else if (v.is_array())
    {
        for (size_t i = 0; i < v.size(); ++i)
        {
            const std::string f = field + "[" + std::to_string(i) + "]";
            if (v[i].is_number_unsigned() || (v[i].is_number_integer() && v[i].get<int64_t>() >= 0))
            {
                out.push_back(v[i].get<uint64_t>());
            }
            else
            {
                out.push_back(units::ParseBytes(String(v[i], f), f));
            }
        }
    }
    else
    {
        throw InputError(field, "expected a list of sizes (\"1KB\", 4096, ...) or \"1KB,1MB\"");
    }
    if (out.empty())
    {
        throw InputError(field, "expected at least one size");
    }
    return out;
}

TopologyDescription
ApplyFabricKnobs(TopologyDescription d, const ComparisonFabric& f)
{
    for (TopologyTier& t : d.tiers)
    {
        if (f.ideal)
        {
            // The ideal fabric of the cross-check: payload only on the wire,
            // buffers too large to fill, nothing lost.
            t.headerBytes = 0;
            t.portBufferBytes = uint64_t(1) << 40;
            t.switchBufferBytes = uint64_t(1) << 40;
        }
        if (f.headerBytes)
        {
            t.headerBytes = *f.headerBytes;
        }
        if (f.mtuBytes)
        {
            t.mtuBytes = *f.mtuBytes;
        }
        if (f.flowControl)
        {
            t.flowControl = *f.flowControl;
        }
    }
    return d;
}

// The flags the collective layer names (CollectiveSpec::Validate,
// CanonicalAlgorithm) and the scenario fields they stand for.
const std::vector<std::pair<std::string, std::string>> FLAG_FIELDS = {
    {"--ranks", "ranks"},   {"--channels", "channels"},   {"--slices", "slices"},
    {"--root", "root"},     {"--algorithm", "algorithm"}, {"--bytes", "sizes"},
    {"--gpus-per-node", "gpus_per_node"}};

/// Rethrows \p e (an InputError of the collective layer, named by its flag)
/// naming the scenario field instead when the value came from the scenario.
[[noreturn]] void
RethrowNamed(const ComparisonConfig& c, const InputError& e)
{
    for (const auto& [flag, key] : FLAG_FIELDS)
    {
        if (e.Field() == flag)
        {
            throw InputError(c.FieldName(key, flag), e);
        }
    }
    throw e;
}

// --- one point ---

struct Point
{
    CollectiveSpec spec;
    CollectiveSchedule schedule;
    PointToPointParameters level[2];
    bool hierarchical = false;
    PointToPointParameters flat; // the worst of both levels
};

PointToPointParameters
Worst(const PointToPointParameters& a, const PointToPointParameters& b)
{
    return PointToPointParameters{std::max(a.alpha, b.alpha), std::min(a.beta, b.beta)};
}

Ptr<AlphaBetaModel>
MakeAlphaBeta(const PointToPointParameters& p, Time extra)
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    m->SetAttribute("Alpha", TimeValue(p.alpha + extra));
    m->SetAttribute("Beta", DataRateValue(p.beta));
    return m;
}

Ptr<LogGpModel>
MakeLogGp(const PointToPointParameters& p, const ComparisonModel& model, Time o, const std::string& oField)
{
    // LogGP's alpha is 2o + L: the overhead is carved out of the same alpha,
    // so an o above alpha / 2 would need a negative wire latency L.
    const Time alpha = p.alpha + model.softwareOverhead;
    if (o * 2 > alpha)
    {
        throw InputError(oField, "expected 2o <= alpha (LogGP's alpha is 2o + L), got 2 x " +
                                     units::FormatSeconds(o.GetSeconds()) + " > alpha " +
                                     units::FormatSeconds(alpha.GetSeconds()));
    }
    Ptr<LogGpModel> m = CreateObject<LogGpModel>();
    m->SetAttribute("L", TimeValue(alpha - o * 2));
    m->SetAttribute("o", TimeValue(o));
    m->SetAttribute("g", TimeValue(model.g));
    m->SetAttribute("GapPerByte", DoubleValue(8.0 / static_cast<double>(p.beta.GetBitRate())));
    return m;
}

Time
RunAnalytic(const Point& pt,
            std::function<Ptr<AnalyticModel>(const PointToPointParameters&)> makeModel,
            AnalyticChannel::ContentionPolicy policy)
{
    auto t = CreateObject<AnalyticTransport>();
    const uint32_t g = pt.spec.LocalRanks();
    if (pt.hierarchical)
    {
        t->Install(pt.spec.ranks, makeModel(pt.level[0]), policy);
        t->AddLevel(makeModel(pt.level[1]));
        t->SetLevelFunction([g](uint32_t a, uint32_t b) { return a / g == b / g ? 0u : 1u; });
    }
    else
    {
        t->Install(pt.spec.ranks, makeModel(pt.flat), policy);
    }
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false)); // checked once per point
    Time took = exec->Run(pt.schedule, t);
    Simulator::Destroy();
    return took;
}

Time
RunFlow(const Point& pt, const TopologyGraph& graph, Time softwareOverhead, uint32_t rdmaHeader)
{
    // The model adds only the software cost; the routes carry the hop
    // latencies and link rates, so a lone message takes exactly the derived
    // alpha + n / beta. Its beta caps no route: the fastest payload rate used.
    DataRate fastest = pt.level[0].beta;
    for (auto [src, dst] : SchedulePairs(pt.schedule))
    {
        TopologyPath path = PairPath(graph, src, dst);
        fastest = std::max(fastest, DerivePathParameters(path, TransportHeaderOf(graph, path, rdmaHeader)).beta);
    }
    auto t = CreateObject<AnalyticTransport>();
    t->Install(pt.spec.ranks, MakeAlphaBeta(PointToPointParameters{Time(0), fastest}, softwareOverhead),
               AnalyticChannel::SHARED);
    SetScheduleRoutes(graph, pt.schedule, t->GetAnalyticChannel(), rdmaHeader);
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false));
    Time took = exec->Run(pt.schedule, t);
    Simulator::Destroy();
    return took;
}

void ConfigurePacket(Ptr<PacketTransport> t, const ComparisonFabric& f);

struct PacketResult
{
    Time time;                  ///< the collective's time (unset if stopped)
    PacketRunCounters counters;
    uint64_t events = 0;        ///< ns-3 events executed by the run
    double wallSeconds = 0;     ///< wall-clock time of the run (build to finish)
    Time simulated;             ///< simulated time the run reached
    uint64_t peakRssBytes = 0;  ///< peak resident memory (see PeakRssBytes)
    bool stopped = false;       ///< stopped by the wall-clock limit
    std::string stoppedAt;      ///< how far it got, when stopped
};

/// Peak resident memory of the process so far, in bytes: VmHWM of
/// /proc/self/status, else getrusage's. Not reset per run: resetting it
/// (/proc/self/clear_refs) would also hide earlier peaks from a parent's
/// wait4, and a run is usually the process's largest part anyway.
uint64_t
PeakRssBytes()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::stoull(line.substr(6)) * 1024; // "VmHWM:   123456 kB"
        }
    }
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

/// The endpoint's software cost per message (send + receive overhead), the
/// "sw" of the seed's alpha budget; zero on the ideal fabric.
Time
EndpointCost(const ComparisonFabric& f)
{
    if (f.ideal)
    {
        return Time(0);
    }
    Ptr<RdmaEndpoint> ep = CreateObject<RdmaEndpoint>();
    TimeValue send;
    TimeValue recv;
    ep->GetAttribute("SendOverhead", send);
    ep->GetAttribute("ReceiveOverhead", recv);
    return send.Get() + recv.Get();
}

PacketResult
RunPacket(const Point& pt,
          const TopologyDescription& desc,
          const ComparisonFabric& f,
          uint32_t seed,
          const std::function<void(const std::string&)>& progress,
          const std::string& wallField)
{
    using Clock = std::chrono::steady_clock;
    const auto wallStart = Clock::now();
    const uint64_t eventsBefore = Simulator::GetEventCount();
    RngSeedManager::SetSeed(seed == 0 ? 1 : seed);
    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    ConfigurePacket(t, f);
    Ptr<RdmaCongestionControl> cc;
    if (f.congestionControl == "dcqcn" && !f.ideal)
    {
        cc = CreateObject<Dcqcn>();
    }
    try
    {
        t->Build(desc, cc);
    }
    catch (const InputError&)
    {
        throw;
    }
    catch (const std::invalid_argument& e)
    {
        throw InputError("--topology", e.what());
    }
    t->GetNetwork()->AssignStreams(seed);
    t->InstallWatchdog();
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false));
    exec->SetAttribute("TimeLimit", TimeValue(f.timeLimit));
    // A progress line every few wall-clock seconds of a long packet run.
    auto lastPrint = wallStart;
    const uint32_t total = static_cast<uint32_t>(pt.schedule.GetOps().size());
    const auto wallLimit = std::chrono::nanoseconds(f.wallLimit.GetNanoSeconds());
    bool overWall = false;
    std::string overWallAt;
    std::function<void()> tick;
    tick = [&]() {
        auto now = Clock::now();
        // "Reached", not "passed": a limit of 0 stops at the first check,
        // deterministically.
        if (now - wallStart >= wallLimit)
        {
            overWall = true;
            overWallAt = std::to_string(exec->GetDeliveredOps()) + "/" + std::to_string(total) +
                         " messages delivered, simulated " + std::to_string(Simulator::Now().GetMicroSeconds()) +
                         " us";
            Simulator::Stop();
            return;
        }
        if (progress && now - lastPrint >= std::chrono::seconds(3))
        {
            lastPrint = now;
            progress("packet " + ToString(pt.spec.collective) + " " + pt.spec.algorithm + " " +
                     std::to_string(pt.spec.bytes) + " B: " + std::to_string(exec->GetDeliveredOps()) + "/" +
                     std::to_string(total) + " messages delivered, simulated " +
                     std::to_string(Simulator::Now().GetMicroSeconds()) + " us, wall " +
                     std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - wallStart).count()) +
                     " s");
        }
        if (!exec->IsComplete())
        {
            Simulator::Schedule(MicroSeconds(5), tick);
        }
    };
    Simulator::ScheduleNow(tick);
    PacketResult r;
    auto measure = [&]() {
        r.counters = t->GetCounters();
        r.events = Simulator::GetEventCount() - eventsBefore;
        r.simulated = Simulator::Now();
        r.wallSeconds = std::chrono::duration<double>(Clock::now() - wallStart).count();
        r.peakRssBytes = PeakRssBytes();
    };
    try
    {
        r.time = exec->Run(pt.schedule, t);
    }
    catch (const std::runtime_error&)
    {
        if (!overWall)
        {
            throw;
        }
        // Stopped, not failed: what the run did so far is reported (the
        // rows say how far it got); conservation cannot hold mid-flight.
        measure();
        Simulator::Destroy();
        r.stopped = true;
        r.stoppedAt = "packet run of " + ToString(pt.spec.collective) + " " + pt.spec.algorithm + " " +
                      std::to_string(pt.spec.bytes) + " B on " + std::to_string(pt.spec.ranks) +
                      " ranks: stopped at the wall-clock limit of " + units::FormatSeconds(f.wallLimit.GetSeconds()) +
                      " (" + wallField + ") after " + overWallAt;
        return r;
    }
    FabricConservation cons = t->FinishRun();
    if (!cons.ok)
    {
        throw std::runtime_error("packet run of " + pt.schedule.GetName() + ": " + cons.message);
    }
    measure();
    Simulator::Destroy();
    return r;
}

/// The ideal fabric's knobs of RunPacket, for a transport about to be built.
void
ConfigurePacket(Ptr<PacketTransport> t, const ComparisonFabric& f)
{
    t->SetTransferUnits(f.NvlinkUnit(), f.PcieUnit());
    if (f.ideal)
    {
        t->SetHeadersInTag(true);
        t->SetEndpointAttribute("SendOverhead", TimeValue(Time(0)));
        t->SetEndpointAttribute("ReceiveOverhead", TimeValue(Time(0)));
        t->SetEndpointAttribute("PipelineSetup", TimeValue(Time(0)));
        t->SetNicAttribute("EngineStartup", TimeValue(Time(0)));
        t->SetNicAttribute("AckInterval", UintegerValue(64));
    }
}

/// alpha and beta fitted to one message at a time from \p src to \p dst on
/// the packet fabric, sizes m/4 .. 4m around the point's message size m
/// (calibration.h: least squares with relative residuals, model alphabeta):
/// the straight line that best fits the packets where the collective's
/// messages are, which a protocol step elsewhere would otherwise bend.
PointToPointParameters
CalibratePair(const TopologyDescription& desc, const ComparisonFabric& f, uint32_t src, uint32_t dst, uint64_t m)
{
    std::vector<uint64_t> sizes;
    for (double k : {0.25, 0.5, 1.0, 2.0, 4.0})
    {
        uint64_t n = std::max<uint64_t>(64, static_cast<uint64_t>(k * static_cast<double>(m)));
        if (sizes.empty() || n != sizes.back())
        {
            sizes.push_back(n);
        }
    }
    MeasurementSet set;
    MeasurementSource source;
    source.file = "packet sweep";
    source.firstLine = 1;
    source.test = "packet";
    source.collective = "p2p";
    source.ranks = 2;
    set.sources.push_back(source);
    for (uint64_t bytes : sizes)
    {
        Ptr<PacketTransport> t = CreateObject<PacketTransport>();
        ConfigurePacket(t, f);
        t->Build(desc, f.congestionControl == "dcqcn" && !f.ideal ? Ptr<RdmaCongestionControl>(CreateObject<Dcqcn>())
                                                                  : nullptr);
        Time done(-1);
        t->Send(src, dst, bytes, [&done]() { done = Simulator::Now(); });
        Simulator::Stop(f.timeLimit);
        Simulator::Run();
        Simulator::Destroy();
        if (done.IsNegative())
        {
            throw std::runtime_error("calibration sweep: message of " + std::to_string(bytes) + " B from rank " +
                                     std::to_string(src) + " to " + std::to_string(dst) + " did not arrive");
        }
        MeasurementSample m;
        m.collective = "p2p";
        m.ranks = 2;
        m.bytes = bytes;
        m.timeS = done.GetSeconds();
        m.file = "packet sweep";
        m.source = 0;
        m.line = static_cast<uint32_t>(set.samples.size() + 1);
        set.samples.push_back(m);
    }
    CalibrationOptions o;
    o.models = {"alphabeta"};
    o.collective = "p2p";
    o.ranks = 2;
    o.resamples = 20;
    std::vector<CalibrationFit> fits = Calibrate(set, o);
    if (fits.empty() || !fits[0].ok || !fits[0].alphaS.Known() || !fits[0].betaBps.Known())
    {
        throw std::runtime_error("calibration of " + std::to_string(src) + "->" + std::to_string(dst) +
                                 " on the packet sweep gave no alpha-beta fit");
    }
    return PointToPointParameters{SecondsToTime(std::max(0.0, fits[0].alphaS.value)),
                                  DataRate(static_cast<uint64_t>(fits[0].betaBps.value * 8.0 + 0.5))};
}

Time
ClosedTime(const Point& pt, Time extra)
{
    if (pt.hierarchical)
    {
        return ClosedFormTime(pt.spec, pt.level[0].alpha + extra, pt.level[0].beta, pt.level[1].alpha + extra,
                              pt.level[1].beta);
    }
    return ClosedFormTime(pt.spec, pt.flat.alpha + extra, pt.flat.beta);
}

/// The alpha terms and the n/beta terms of the closed form, apart.
std::pair<Time, Time>
ClosedParts(const Point& pt, Time extra)
{
    auto param = [&pt](uint32_t level) { return pt.hierarchical ? pt.level[level] : pt.flat; };
    Time lat = ClosedFormTime(pt.spec, [&](uint32_t level, double) { return param(level).alpha + extra; });
    Time bw = ClosedFormTime(pt.spec, [&](uint32_t level, double bytes) {
        return AlphaBetaTime(Time(0), param(level).beta, bytes);
    });
    return {lat, bw};
}

} // namespace

const std::vector<std::string>&
ComparisonBackends()
{
    static const std::vector<std::string> b{"closed", "alphabeta", "loggp", "flow", "packet"};
    return b;
}

std::vector<std::string>
ParseBackends(const std::string& text, const std::string& field)
{
    std::vector<std::string> out;
    for (const auto& item : units::SplitList(text, field))
    {
        const auto& known = ComparisonBackends();
        if (std::find(known.begin(), known.end(), item) == known.end())
        {
            throw InputError(field, "expected backends among " + Join(known) + ", got '" + item + "'");
        }
        if (std::find(out.begin(), out.end(), item) != out.end())
        {
            throw InputError(field, "backend '" + item + "' given twice; expected each once");
        }
        out.push_back(item);
    }
    return out;
}

std::vector<std::string>
ParseParameterSources(const std::string& text, const std::string& field)
{
    std::vector<std::string> out;
    for (const auto& item : units::SplitList(text, field))
    {
        if (item != "derived" && item != "calibrated")
        {
            throw InputError(field, "expected derived, calibrated or both, got '" + item + "'");
        }
        if (std::find(out.begin(), out.end(), item) != out.end())
        {
            throw InputError(field, "'" + item + "' given twice; expected each once");
        }
        out.push_back(item);
    }
    return out;
}

AnalyticChannel::ContentionPolicy
ParseContentionPolicy(const std::string& text, const std::string& field)
{
    if (text == "none")
    {
        return AnalyticChannel::NONE;
    }
    if (text == "endpoint")
    {
        return AnalyticChannel::ENDPOINT;
    }
    if (text == "shared")
    {
        return AnalyticChannel::SHARED;
    }
    throw InputError(field, "expected none, endpoint or shared, got '" + text + "'");
}

void
ApplyScenario(const nlohmann::json& j, ComparisonConfig& c)
{
    const std::string s = "scenario";
    CheckKeys(j,
              s,
              {"topology", "collective", "algorithm", "ranks", "sizes", "backends", "params", "channels", "slices",
               "root", "gpus_per_node", "seed", "model", "fabric"});
    if (j.contains("params"))
    {
        const auto& v = j.at("params");
        std::string joined;
        if (v.is_array())
        {
            for (size_t i = 0; i < v.size(); ++i)
            {
                joined += (i ? "," : "") + String(v[i], s + ".params[" + std::to_string(i) + "]");
            }
        }
        else
        {
            joined = String(v, s + ".params");
        }
        c.params = ParseParameterSources(joined, s + ".params");
    }
    if (j.contains("topology"))
    {
        const auto& t = j.at("topology");
        if (!t.is_string() && !t.is_object())
        {
            throw InputError(s + ".topology", "expected a preset name or a topology object, got " + t.dump());
        }
        std::string preset;
        if (t.is_object() && t.contains("preset"))
        {
            // {"preset": P, K: V, ...} is the preset "P:K=V,..."; the preset
            // checks its options (an unknown key names itself).
            preset = String(t.at("preset"), s + ".topology.preset");
            std::string options;
            for (auto it = t.begin(); it != t.end(); ++it)
            {
                if (it.key() == "preset")
                {
                    continue;
                }
                const std::string v = Text(it.value(), s + ".topology." + it.key());
                options += (options.empty() ? "" : ",") + it.key() + "=" + v;
            }
            if (!options.empty())
            {
                preset += (preset.find(':') == std::string::npos ? ":" : ",") + options;
            }
        }
        try
        {
            c.topology = preset.empty() ? TopologyFromScenarioJson(nlohmann::json{{"topology", t}})
                                        : MakePreset(preset);
        }
        catch (const InputError& e)
        {
            const std::string& field = e.Field();
            if (!preset.empty() && field.rfind("preset", 0) == 0)
            {
                // "preset.k" names the option, "preset" the name.
                throw InputError(s + ".topology" + (field == "preset" ? ".preset" : field.substr(6)), e);
            }
            // The fabric names fields from the topology object ("topology.links[2].tier").
            if (field.rfind("topology", 0) == 0)
            {
                throw InputError(s + "." + field, e);
            }
            throw InputError(s + ".topology", e.what());
        }
        c.topologyName = t.is_string() ? t.get<std::string>() : (preset.empty() ? std::string("custom") : preset);
    }
    if (j.contains("collective"))
    {
        c.collective = ParseCollectiveKind(String(j.at("collective"), s + ".collective"), s + ".collective");
    }
    if (j.contains("algorithm"))
    {
        c.algorithm = String(j.at("algorithm"), s + ".algorithm");
    }
    else if (j.contains("collective"))
    {
        // As --collective without --algorithm: the collective's first algorithm.
        c.algorithm = AlgorithmsOf(c.collective).front();
    }
    if (j.contains("ranks"))
    {
        c.ranks = Count(j.at("ranks"), s + ".ranks", 2);
    }
    if (j.contains("sizes"))
    {
        c.sizes = Sizes(j.at("sizes"), s + ".sizes");
    }
    if (j.contains("backends"))
    {
        const auto& b = j.at("backends");
        if (b.is_array())
        {
            std::string joined;
            for (size_t i = 0; i < b.size(); ++i)
            {
                joined += (i ? "," : "") + String(b[i], s + ".backends[" + std::to_string(i) + "]");
            }
            c.backends = ParseBackends(joined, s + ".backends");
        }
        else
        {
            c.backends = ParseBackends(String(b, s + ".backends"), s + ".backends");
        }
    }
    if (j.contains("channels"))
    {
        c.channels = Count(j.at("channels"), s + ".channels", 1);
    }
    if (j.contains("slices"))
    {
        c.slices = Count(j.at("slices"), s + ".slices", 1);
    }
    if (j.contains("root"))
    {
        c.root = Count(j.at("root"), s + ".root", 0);
    }
    if (j.contains("gpus_per_node"))
    {
        c.gpusPerNode = Count(j.at("gpus_per_node"), s + ".gpus_per_node", 1);
    }
    if (j.contains("seed"))
    {
        c.seed = Count(j.at("seed"), s + ".seed", 0);
    }
    if (j.contains("model"))
    {
        const auto& m = j.at("model");
        const std::string f = s + ".model";
        CheckKeys(m, f, {"alpha", "beta", "contention", "software_overhead", "o", "g"});
        if (m.contains("alpha"))
        {
            c.model.alpha = units::ParseTime(Text(m.at("alpha"), f + ".alpha"), f + ".alpha");
        }
        if (m.contains("beta"))
        {
            c.model.beta = units::ParseDataRate(Text(m.at("beta"), f + ".beta"), f + ".beta");
            if (c.model.beta->GetBitRate() == 0)
            {
                throw InputError(f + ".beta", "expected a positive rate");
            }
        }
        if (m.contains("contention"))
        {
            c.model.contention = ParseContentionPolicy(String(m.at("contention"), f + ".contention"),
                                                       f + ".contention");
        }
        if (m.contains("software_overhead"))
        {
            c.model.softwareOverhead =
                units::ParseTime(Text(m.at("software_overhead"), f + ".software_overhead"), f + ".software_overhead");
        }
        if (m.contains("o"))
        {
            c.model.o = units::ParseTime(Text(m.at("o"), f + ".o"), f + ".o");
        }
        if (m.contains("g"))
        {
            c.model.g = units::ParseTime(Text(m.at("g"), f + ".g"), f + ".g");
        }
    }
    if (j.contains("fabric"))
    {
        const auto& fb = j.at("fabric");
        const std::string f = s + ".fabric";
        CheckKeys(fb, f,
                  {"ideal", "header_bytes", "mtu_bytes", "flow_control", "congestion_control", "time_limit",
                   "wall_limit", "transfer_unit_bytes", "pcie_transfer_unit_bytes"});
        if (fb.contains("ideal"))
        {
            c.fabric.ideal = Bool(fb.at("ideal"), f + ".ideal");
        }
        if (fb.contains("header_bytes"))
        {
            c.fabric.headerBytes = Count(fb.at("header_bytes"), f + ".header_bytes", 0);
        }
        if (fb.contains("mtu_bytes"))
        {
            // The packet backend's NIC sends the largest IB MTU (256 .. 4096 B)
            // that fits the tier's payload, so 256 B is the least it can use.
            c.fabric.mtuBytes = Count(fb.at("mtu_bytes"), f + ".mtu_bytes", 256);
        }
        if (fb.contains("flow_control"))
        {
            const std::string ff = f + ".flow_control";
            c.fabric.flowControl = ParseTopologyFlowControl(String(fb.at("flow_control"), ff), ff);
        }
        if (fb.contains("congestion_control"))
        {
            std::string cc = String(fb.at("congestion_control"), f + ".congestion_control");
            if (cc != "none" && cc != "dcqcn")
            {
                throw InputError(f + ".congestion_control", "expected none or dcqcn, got '" + cc + "'");
            }
            c.fabric.congestionControl = cc;
        }
        if (fb.contains("time_limit"))
        {
            c.fabric.timeLimit = units::ParseTime(Text(fb.at("time_limit"), f + ".time_limit"), f + ".time_limit");
            if (!c.fabric.timeLimit.IsStrictlyPositive())
            {
                throw InputError(f + ".time_limit", "expected a positive time");
            }
        }
        if (fb.contains("transfer_unit_bytes"))
        {
            c.fabric.transferUnitBytes =
                static_cast<uint32_t>(std::min<uint64_t>(Count(fb.at("transfer_unit_bytes"), f + ".transfer_unit_bytes", 0),
                                                         UINT32_MAX)); // above 4096 either way: refused below
        }
        if (fb.contains("pcie_transfer_unit_bytes"))
        {
            c.fabric.pcieTransferUnitBytes = static_cast<uint32_t>(std::min<uint64_t>(
                Count(fb.at("pcie_transfer_unit_bytes"), f + ".pcie_transfer_unit_bytes", 0), UINT32_MAX));
        }
        if (fb.contains("wall_limit"))
        {
            c.fabric.wallLimit = units::ParseTime(Text(fb.at("wall_limit"), f + ".wall_limit"), f + ".wall_limit");
            if (c.fabric.wallLimit.IsStrictlyNegative())
            {
                throw InputError(f + ".wall_limit", "expected a wall-clock time >= 0");
            }
        }
        if (c.fabric.headerBytes && c.fabric.mtuBytes && *c.fabric.headerBytes >= *c.fabric.mtuBytes)
        {
            throw InputError(f + ".header_bytes", "expected fewer header bytes than fabric.mtu_bytes (" +
                                                      std::to_string(*c.fabric.mtuBytes) + "), got " +
                                                      std::to_string(*c.fabric.headerBytes));
        }
    }
    // Which fields the scenario set, for the names of later errors.
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if ((it.key() == "model" || it.key() == "fabric") && it.value().is_object())
        {
            for (auto jt = it.value().begin(); jt != it.value().end(); ++jt)
            {
                c.scenarioFields.insert(it.key() + "." + jt.key());
            }
        }
        else
        {
            c.scenarioFields.insert(it.key());
        }
    }
}

void
ApplyScenarioFile(const std::string& path, ComparisonConfig& config)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError("--scenario", "expected a readable JSON file, cannot open '" + path + "'");
    }
    nlohmann::json j;
    try
    {
        in >> j;
    }
    catch (const nlohmann::json::exception& e)
    {
        throw InputError("--scenario", "expected valid JSON in '" + path + "' (" + e.what() + ")");
    }
    ApplyScenario(j, config);
}

std::string
ComparisonConfig::FieldName(const std::string& key, const std::string& flag) const
{
    return scenarioFields.count(key) ? "scenario." + key : flag;
}

void
ValidateComparison(const ComparisonConfig& c)
{
    if (c.model.alpha.has_value() != c.model.beta.has_value())
    {
        // Name the missing one where the given one came from.
        throw InputError(c.model.alpha ? (c.scenarioFields.count("model.alpha") ? "scenario.model.beta" : "--beta")
                                       : (c.scenarioFields.count("model.beta") ? "scenario.model.alpha" : "--alpha"),
                         "expected alpha and beta together");
    }
    if (c.model.contention == AnalyticChannel::SHARED)
    {
        // Shared links need the topology's routes, and with them the hop
        // latencies and link rates in place of alpha and beta: that is the
        // flow backend, not a variant of alphabeta.
        throw InputError(c.FieldName("model.contention", "--contention"),
                         "expected none or endpoint; links shared over the topology's routes are the flow "
                         "backend (add flow to the backends)");
    }
    const bool given = c.model.alpha.has_value();
    if (!c.topology && !given)
    {
        throw InputError("--topology", "expected a topology preset (or --alpha and --beta)");
    }
    for (const auto& b : c.backends)
    {
        if ((b == "flow" || b == "packet") && !c.topology)
        {
            throw InputError(c.FieldName("backends", "--backends"),
                             "backend '" + b + "' needs a topology (--topology or scenario.topology)");
        }
    }
    if (c.sizes.empty())
    {
        throw InputError(c.FieldName("sizes", "--bytes"), "expected at least one size");
    }
    if (c.params.empty())
    {
        throw InputError(c.FieldName("params", "--params"), "expected derived, calibrated or both");
    }
    for (const auto& p : c.params)
    {
        if (p == "calibrated" && (given || !c.topology))
        {
            throw InputError(c.FieldName("params", "--params"),
                             "calibrated needs a topology to sweep and no given alpha/beta");
        }
    }
    if (c.fabric.wallLimit.IsStrictlyNegative())
    {
        throw InputError(c.FieldName("fabric.wall_limit", "--wall-limit"), "expected a wall-clock time >= 0");
    }
    if (c.topology)
    {
        // A packet must carry payload: the header below every tier's MTU.
        const TopologyDescription knobbed = ApplyFabricKnobs(*c.topology, c.fabric);
        for (const TopologyTier& t : knobbed.tiers)
        {
            // Only units the user set are checked (the default adapts,
            // RunComparison). The NIC sends power-of-two IB MTUs, so a unit
            // must be one for the row to say what was simulated.
            const bool pcie = t.protocol == "pcie";
            const std::optional<uint32_t> set = pcie                    ? c.fabric.pcieTransferUnitBytes
                                                : t.protocol == "nvlink" ? c.fabric.transferUnitBytes
                                                                         : std::nullopt;
            const uint32_t unit = set.value_or(0);
            if (unit > 0 && (unit < t.mtuBytes || unit % t.mtuBytes != 0 || unit > 4096 || (unit & (unit - 1)) != 0))
            {
                throw InputError(pcie ? c.FieldName("fabric.pcie_transfer_unit_bytes", "--pcie-transfer-unit")
                                      : c.FieldName("fabric.transfer_unit_bytes", "--transfer-unit"),
                                 "expected 0 or a power of two from tier " + t.name + "'s MTU (" +
                                     std::to_string(t.mtuBytes) + " B) to 4096 B, got " + std::to_string(unit));
            }
            if (t.headerBytes >= t.mtuBytes)
            {
                const std::string field =
                    c.fabric.headerBytes ? c.FieldName("fabric.header_bytes", "fabric.header_bytes")
                    : c.fabric.mtuBytes  ? c.FieldName("fabric.mtu_bytes", "fabric.mtu_bytes")
                                         : c.FieldName("topology", "--topology");
                throw InputError(field, "expected fewer header bytes than the MTU of tier " + t.name + " (" +
                                            std::to_string(t.mtuBytes) + " B), got " +
                                            std::to_string(t.headerBytes));
            }
        }
    }
    CanonicalAlgorithm(c.collective, c.algorithm, c.FieldName("algorithm", "--algorithm"));
}

std::vector<ResultRow>
RunComparison(const ComparisonConfig& c, std::function<void(const std::string&)> progress)
{
    ValidateComparison(c);
    std::unique_ptr<TopologyGraph> graph;
    if (c.topology)
    {
        try
        {
            graph = std::make_unique<TopologyGraph>(ApplyFabricKnobs(*c.topology, c.fabric));
        }
        catch (const std::invalid_argument& e)
        {
            throw InputError(c.FieldName("topology", "--topology"), e.what());
        }
    }
    const bool given = c.model.alpha.has_value();
    uint32_t ranks = c.ranks;
    if (graph)
    {
        if (ranks == 0)
        {
            ranks = graph->EndpointCount();
        }
        if (ranks > graph->EndpointCount())
        {
            throw InputError(c.FieldName("ranks", "--ranks"),
                             "expected at most the " + std::to_string(graph->EndpointCount()) +
                                            " endpoints of topology " + c.topologyName + ", got " +
                                            std::to_string(ranks));
        }
    }
    if (ranks == 0)
    {
        throw InputError("--ranks", "expected a rank count (there is no topology to take it from)");
    }
    const std::string algorithm =
        CanonicalAlgorithm(c.collective, c.algorithm, c.FieldName("algorithm", "--algorithm"));
    uint32_t gpusPerNode = c.gpusPerNode;
    if (algorithm == "hierarchical" && gpusPerNode == 0)
    {
        gpusPerNode = graph ? RanksPerNode(*graph, ranks) : ranks;
    }

    const Time endpointCost = EndpointCost(c.fabric);
    // The default NVLink transfer unit applies where it is a multiple of
    // every NVLink tier's MTU (the presets' 256 B); elsewhere (a scenario's
    // mtu_bytes of 1500, say) every packet is simulated.
    ComparisonFabric fabric = c.fabric;
    if (!fabric.transferUnitBytes && graph)
    {
        uint32_t unit = kDefaultTransferUnitBytes;
        for (const TopologyTier& t : graph->Description().tiers)
        {
            if (t.protocol == "nvlink" && (t.mtuBytes > unit || unit % t.mtuBytes != 0))
            {
                unit = 0;
            }
        }
        fabric.transferUnitBytes = unit;
    }
    // The RDMA transport headers every packet off NVLink carries (in a tag,
    // costing nothing, on the ideal fabric).
    const uint32_t rdmaHeader = c.fabric.ideal ? 0 : RdmaNic::kMaxTransportHeader;
    const TopologyDescription packetDesc = graph ? graph->Description() : TopologyDescription();
    std::vector<ResultRow> rows;
    std::map<std::tuple<uint32_t, uint32_t, uint64_t>, PointToPointParameters> calibrationCache;
    for (uint64_t bytes : c.sizes)
    {
        Point pt;
        pt.spec.collective = c.collective;
        pt.spec.algorithm = algorithm;
        pt.spec.ranks = ranks;
        pt.spec.bytes = bytes;
        pt.spec.channels = c.channels;
        pt.spec.slices = c.slices;
        pt.spec.root = c.root;
        pt.spec.gpusPerNode = algorithm == "hierarchical" ? gpusPerNode : 0;
        try
        {
            pt.spec.Validate();
        }
        catch (const InputError& e)
        {
            RethrowNamed(c, e);
        }
        pt.schedule = BuildSchedule(pt.spec);
        // The chunk check replays every contribution: a self-test of the
        // builder (run on every algorithm by the unit tests), cubic in the
        // ranks for an AllToAll (minutes at 1024 ranks). Large schedules
        // skip it; the packet run's byte conservation still checks them.
        const bool large = pt.schedule.GetOps().size() > kLargeScheduleOps;
        if (!large)
        {
            pt.schedule.Validate();
        }
        pt.hierarchical = algorithm == "hierarchical" && pt.spec.Nodes() > 1 && pt.spec.LocalRanks() > 1;
        if (given)
        {
            pt.level[0] = pt.level[1] = PointToPointParameters{*c.model.alpha, *c.model.beta};
        }
        else
        {
            DerivedParameters d = DeriveScheduleParameters(*graph, pt.schedule, rdmaHeader);
            pt.level[0] = d.level[0];
            pt.level[1] = d.level[1];
            pt.level[0].alpha += endpointCost;
            pt.level[1].alpha += endpointCost;
            if (pt.hierarchical)
            {
                // The executor's levels follow rank / gpusPerNode; the topology must agree.
                for (auto [src, dst] : SchedulePairs(pt.schedule))
                {
                    bool intra = IsIntraNode(PairPath(*graph, src, dst));
                    if (intra != (src / gpusPerNode == dst / gpusPerNode))
                    {
                        throw InputError(c.FieldName("gpus_per_node", "--gpus-per-node"),
                                         "expected servers of " + std::to_string(gpusPerNode) +
                                             " consecutive ranks, but ranks " + std::to_string(src) + " and " +
                                             std::to_string(dst) + (intra ? " share" : " do not share") +
                                             " a server in the topology");
                    }
                }
            }
        }
        pt.flat = Worst(pt.level[0], pt.level[1]);
        const Time sw = c.model.softwareOverhead;
        auto want = [&c](const std::string& b) {
            return std::find(c.backends.begin(), c.backends.end(), b) != c.backends.end();
        };

        // The calibrated point: the same schedule, each level's alpha and beta
        // fitted to the packet sweep of that level's worst pair.
        std::optional<Point> calibrated;
        if (std::find(c.params.begin(), c.params.end(), "calibrated") != c.params.end())
        {
            calibrated = pt;
            std::pair<uint32_t, uint32_t> worst[2];
            Time worstAlpha[2] = {Time(-1), Time(-1)};
            for (auto [src, dst] : SchedulePairs(pt.schedule))
            {
                TopologyPath path = PairPath(*graph, src, dst);
                const int level = IsIntraNode(path) ? 0 : 1;
                Time a = DerivePathParameters(path).alpha;
                if (a > worstAlpha[level])
                {
                    worstAlpha[level] = a;
                    worst[level] = {src, dst};
                }
            }
            for (int l = 0; l < 2; ++l)
            {
                if (worstAlpha[l].IsNegative())
                {
                    continue;
                }
                // The point's message size on this level: its largest critical step.
                double m = 0;
                for (const CriticalStep& step : CriticalPath(pt.spec))
                {
                    if (step.level == static_cast<uint32_t>(l) || !pt.hierarchical)
                    {
                        m = std::max(m, step.bytes);
                    }
                }
                const auto key = std::make_tuple(worst[l].first, worst[l].second, static_cast<uint64_t>(m));
                auto it = calibrationCache.find(key);
                if (it == calibrationCache.end())
                {
                    if (progress)
                    {
                        progress("calibrating on the packet fabric: " + std::to_string(worst[l].first) + " -> " +
                                 std::to_string(worst[l].second) + ", " + std::to_string(static_cast<uint64_t>(m / 4)) +
                                 " .. " + std::to_string(static_cast<uint64_t>(4 * m)) + " B");
                    }
                    it = calibrationCache
                             .emplace(key,
                                      CalibratePair(packetDesc, fabric, worst[l].first, worst[l].second,
                                                    static_cast<uint64_t>(m)))
                             .first;
                }
                calibrated->level[l] = it->second;
            }
            if (worstAlpha[0].IsNegative())
            {
                calibrated->level[0] = calibrated->level[1];
            }
            if (worstAlpha[1].IsNegative())
            {
                calibrated->level[1] = calibrated->level[0];
            }
            calibrated->flat = Worst(calibrated->level[0], calibrated->level[1]);
        }

        // The analytic answers, per parameter source.
        struct Answer
        {
            std::string backend;
            std::string params;
            Time time;
            const Point* point;
        };
        std::vector<Answer> answers;
        std::vector<std::pair<std::string, const Point*>> sources;
        for (const auto& p : c.params)
        {
            if (p == "derived")
            {
                sources.emplace_back(given ? "given" : "derived", &pt);
            }
            else
            {
                sources.emplace_back("calibrated", &*calibrated);
            }
        }
        const Time closed = ClosedTime(pt, sw); // the structural answer decides the regime
        const ComparisonModel& model = c.model;
        // LogGP's o: given, else the endpoint's per-message CPU cost (half of
        // send + receive), which the packet layer serializes per rank.
        const Time logGpO = c.model.o ? *c.model.o : (given ? Time(0) : endpointCost / 2);
        // Without a given o, only a calibrated alpha can fall below the
        // endpoint's 2o: name the parameter source then.
        const std::string oField = c.model.o ? c.FieldName("model.o", "model.o") : c.FieldName("params", "--params");
        for (const auto& [label, point] : sources)
        {
            if (want("closed"))
            {
                answers.push_back({"closed", label, ClosedTime(*point, sw), point});
            }
            if (want("alphabeta"))
            {
                answers.push_back({"alphabeta", label,
                                   RunAnalytic(
                                       *point,
                                       [sw](const PointToPointParameters& q) { return MakeAlphaBeta(q, sw); },
                                       c.model.contention),
                                   point});
            }
            if (want("loggp"))
            {
                answers.push_back({"loggp", label,
                                   RunAnalytic(
                                       *point,
                                       [&model, logGpO, &oField](const PointToPointParameters& q) {
                                           return MakeLogGp(q, model, logGpO, oField);
                                       },
                                       AnalyticChannel::ENDPOINT),
                                   point});
            }
        }
        std::optional<Time> flow;
        // The flow model also decides the contention regime; for a large
        // packet-only run it would cost more than the packets (max-min over
        // a million flows), so there it runs only when asked for.
        if (graph && (want("flow") || !large || !want("packet")))
        {
            flow = RunFlow(pt, *graph, sw + endpointCost, rdmaHeader);
            if (want("flow"))
            {
                answers.push_back({"flow", given ? "given" : "derived", *flow, &pt});
            }
        }
        std::optional<PacketResult> packet;
        if (want("packet"))
        {
            packet = RunPacket(pt, packetDesc, fabric, c.seed, progress,
                               c.FieldName("fabric.wall_limit", "--wall-limit"));
            answers.push_back({"packet", "", packet->time, nullptr});
        }

        // Regime (collective-comparison.h).
        std::string regime;
        if (packet && (packet->counters.pfcPauses > 0 || packet->counters.cnps > 0))
        {
            regime = "congestion-control";
        }
        else if (pt.schedule.GetMaxFanIn() >= 2 && pt.schedule.GetMaxFanOut() <= 1)
        {
            regime = "incast";
        }
        else if (flow && flow->GetSeconds() > CONTENTION_THRESHOLD * closed.GetSeconds())
        {
            regime = "contention";
        }
        else
        {
            auto [lat, bw] = ClosedParts(pt, sw);
            regime = lat >= bw ? "latency-bound" : "bandwidth-bound";
        }

        for (const Answer& a : answers)
        {
            const Time t = a.time;
            ResultRow row;
            row.Set("collective", ToString(c.collective))
                .Set("algorithm", algorithm)
                .Set("ranks", static_cast<uint64_t>(ranks))
                .Set("bytes", bytes)
                .Set("backend", a.backend)
                .Set("time_s", t.GetSeconds())
                .Set("algbw_GBps", AlgorithmBandwidth(bytes, t) / 1e9)
                .Set("busbw_GBps", BusBandwidth(c.collective, ranks, bytes, t) / 1e9)
                .SetNull("error")
                .Set("regime", regime);
            if (a.backend == "packet" && packet->stopped)
            {
                row.SetNull("time_s").SetNull("algbw_GBps").SetNull("busbw_GBps");
            }
            if (packet && !packet->stopped && a.backend != "packet")
            {
                row.Set("error", (t.GetSeconds() - packet->time.GetSeconds()) / packet->time.GetSeconds());
            }
            if (a.point)
            {
                const PointToPointParameters& p = a.point->hierarchical ? a.point->level[0] : a.point->flat;
                row.Set("alpha_s", (p.alpha + sw).GetSeconds())
                    .Set("beta_Bps", static_cast<double>(p.beta.GetBitRate()) / 8.0)
                    .Set("params", a.params);
                if (a.point->hierarchical)
                {
                    row.Set("inter_alpha_s", (a.point->level[1].alpha + sw).GetSeconds())
                        .Set("inter_beta_Bps", static_cast<double>(a.point->level[1].beta.GetBitRate()) / 8.0);
                }
            }
            else
            {
                row.SetNull("alpha_s").SetNull("beta_Bps").SetNull("params");
            }
            row.Set("topology", c.topologyName.empty() ? std::string("none") : c.topologyName);
            if (a.backend == "packet")
            {
                const PacketRunCounters& k = packet->counters;
                row.Set("bytes_sent", k.bytesSent)
                    .Set("bytes_delivered", k.bytesDelivered)
                    .Set("drops", k.drops)
                    .Set("pfc_pauses", k.pfcPauses)
                    .Set("ecn_marks", k.ecnMarks)
                    .Set("cnps", k.cnps)
                    .Set("events", packet->events)
                    .Set("data_hops", k.dataHops)
                    .Set("control_hops", k.controlHops)
                    .Set("wall_s", packet->wallSeconds)
                    .Set("sim_s", packet->simulated.GetSeconds())
                    .Set("peak_rss_bytes", packet->peakRssBytes)
                    .Set("status", packet->stopped ? "stopped-at-wall-limit" : "complete");
                // The transfer units, where they apply: the bytes one packet
                // of the NVLink / PCIe tiers stands for (0: every link packet).
                for (const auto& [key, protocol, unit] :
                     {std::tuple{"transfer_unit_bytes", "nvlink", fabric.NvlinkUnit()},
                      std::tuple{"pcie_transfer_unit_bytes", "pcie", fabric.PcieUnit()}})
                {
                    const bool applies = std::any_of(packetDesc.tiers.begin(), packetDesc.tiers.end(),
                                                     [&](const TopologyTier& t) { return t.protocol == protocol; });
                    applies ? row.Set(key, static_cast<uint64_t>(unit)) : row.SetNull(key);
                }
            }
            rows.push_back(row);
        }
        if (packet && packet->stopped)
        {
            throw PacketRunStopped(packet->stoppedAt, std::move(rows));
        }
    }
    return rows;
}

} // namespace ns3
