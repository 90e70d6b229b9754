// SPDX-License-Identifier: GPL-2.0-only
#include "accuracy-map.h"

#include "alpha-beta-model.h"
#include "analytic-transport.h"
#include "collective-algorithms.h"
#include "collective-bandwidth.h"
#include "collective-closed-form.h"
#include "collective-executor.h"
#include "dcqcn.h"
#include "input-error.h"
#include "measurement-reader.h"
#include "packet-transport.h"
#include "rdma-endpoint.h"
#include "rdma-nic.h"
#include "topology-graph.h"
#include "topology-parameters.h"
#include "topology-presets.h"
#include "units.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace ns3
{

namespace
{

using Clock = std::chrono::steady_clock;

double
WallSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string
Pct(double x)
{
    if (!std::isfinite(x))
    {
        return "inf";
    }
    std::ostringstream o;
    o << std::fixed << std::setprecision(x < 0.1 && x > -0.1 ? 1 : 0) << 100.0 * x << " %";
    return o.str();
}

std::string
Num(double x, int digits = 4)
{
    std::ostringstream o;
    o << std::setprecision(digits) << x;
    return o.str();
}

std::string
Field(const nlohmann::json& j, const std::string& key, const std::string& file, bool required = true)
{
    if (!j.contains(key))
    {
        if (required)
        {
            throw InputError(file + ": " + key, "expected a string field");
        }
        return "";
    }
    if (!j.at(key).is_string())
    {
        throw InputError(file + ": " + key, "expected a string, got " + j.at(key).dump());
    }
    return j.at(key).get<std::string>();
}

double
Median(std::vector<double> v)
{
    if (v.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

ComparisonConfig
ConfigOf(const nlohmann::json& scenario, const std::string& where)
{
    ComparisonConfig c;
    try
    {
        ApplyScenario(scenario, c);
    }
    catch (const InputError& e)
    {
        throw InputError(where, e.what());
    }
    return c;
}

std::string
SafeName(std::string s)
{
    for (char& ch : s)
    {
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_')
        {
            ch = '_';
        }
    }
    return s;
}

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

} // namespace

double
SymmetricError(double a, double p)
{
    if (!(a > 0) || !(p > 0))
    {
        return std::numeric_limits<double>::infinity();
    }
    return std::max(a / p, p / a) - 1.0;
}

AccuracyExperiment
ParseAccuracyExperiment(const nlohmann::json& j, const std::string& file)
{
    if (!j.is_object())
    {
        throw InputError(file, "expected a JSON object with id, title, seed_claim, scenario, expect");
    }
    static const std::set<std::string> known{"id",       "title",  "seed_claim", "why",         "default",
                                             "scenario", "full",   "variants",   "expect",      "traces",
                                             "assumptions", "plot_x", "recover"};
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if (!known.count(it.key()))
        {
            throw InputError(file + ": " + it.key(), "unknown field");
        }
    }
    AccuracyExperiment e;
    e.file = file;
    e.id = Field(j, "id", file);
    e.title = Field(j, "title", file);
    e.seedClaim = Field(j, "seed_claim", file);
    e.why = Field(j, "why", file, false);
    e.inDefault = j.value("default", false);
    if (!j.contains("scenario") || !j.at("scenario").is_object())
    {
        throw InputError(file + ": scenario", "expected a compare scenario object");
    }
    e.scenario = j.at("scenario");
    e.full = j.value("full", nlohmann::json::object());
    if (j.contains("variants"))
    {
        if (!j.at("variants").is_array())
        {
            throw InputError(file + ": variants", "expected a list of {label, patch}");
        }
        for (const auto& v : j.at("variants"))
        {
            e.variants.emplace_back(Field(v, "label", file + ": variants[]"),
                                    v.value("patch", nlohmann::json::object()));
        }
    }
    if (e.variants.empty())
    {
        e.variants.emplace_back("base", nlohmann::json::object());
    }
    if (!j.contains("expect") || !j.at("expect").is_object())
    {
        throw InputError(file + ": expect", "expected {backend, params, metric, min, max}");
    }
    auto expectation = [&file](const nlohmann::json& x, const std::string& name) {
        AccuracyExpectation a;
        a.backend = x.value("backend", a.backend);
        a.params = x.value("params", a.params);
        a.metric = x.value("metric", a.metric);
        if (a.metric != "max" && a.metric != "median" && a.metric != "min" &&
            (a.metric != "packet_drop" || name != "expect"))
        {
            throw InputError(file + ": " + name + ".metric",
                             name == "expect" ? "expected max, median, min or packet_drop" : "expected max, median or min");
        }
        a.min = x.value("min", 0.0);
        a.max = x.value("max", 1e300);
        return a;
    };
    e.expect = expectation(j.at("expect"), "expect");
    if (j.contains("recover"))
    {
        if (!j.at("recover").is_object())
        {
            throw InputError(file + ": recover", "expected {backend, params, metric, min, max}");
        }
        e.hasRecovery = true;
        e.recovery = expectation(j.at("recover"), "recover");
    }
    e.traces = j.value("traces", false);
    if (j.contains("assumptions"))
    {
        e.assumptions = true;
        const auto& a = j.at("assumptions");
        if (a.contains("n0"))
        {
            e.n0Bytes = units::ParseBytes(Field(a, "n0", file + ": assumptions"), file + ": assumptions.n0");
        }
    }
    e.plotX = j.value("plot_x", std::string("bytes"));
    if (e.plotX != "bytes" && e.plotX != "ranks")
    {
        throw InputError(file + ": plot_x", "expected bytes or ranks");
    }
    // Every variant must make a valid comparison (fails early, naming the file).
    for (const auto& [label, patch] : e.variants)
    {
        nlohmann::json s = e.scenario;
        s.merge_patch(patch);
        ValidateComparison(ConfigOf(s, file + ": variant " + label));
    }
    return e;
}

std::vector<AccuracyExperiment>
LoadAccuracyExperiments(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
    {
        if (entry.path().extension() == ".json")
        {
            files.push_back(entry.path().string());
        }
    }
    if (files.empty())
    {
        throw InputError("--validation-dir", "expected a directory with experiment *.json files, got '" + dir + "'");
    }
    std::sort(files.begin(), files.end());
    std::vector<AccuracyExperiment> out;
    for (const auto& f : files)
    {
        std::ifstream in(f);
        nlohmann::json j;
        try
        {
            in >> j;
        }
        catch (const nlohmann::json::exception& ex)
        {
            throw InputError(f, std::string("expected valid JSON (") + ex.what() + ")");
        }
        out.push_back(ParseAccuracyExperiment(j, fs::path(f).filename().string()));
    }
    return out;
}

// --- incast time series ---

std::vector<IncastSample>
RecordIncastTrace(const ComparisonConfig& config, Time step)
{
    ValidateComparison(config);
    if (!config.topology)
    {
        throw InputError("scenario.topology", "expected a topology for the incast trace");
    }
    TopologyGraph graph(*config.topology);
    const uint32_t ranks = config.ranks ? config.ranks : graph.EndpointCount();
    CollectiveSpec spec;
    spec.collective = CollectiveKind::INCAST;
    spec.algorithm = "direct";
    spec.ranks = ranks;
    spec.bytes = config.sizes.back();
    spec.root = config.root;
    spec.Validate();
    CollectiveSchedule schedule = BuildSchedule(spec);

    RngSeedManager::SetSeed(config.seed == 0 ? 1 : config.seed);
    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    Ptr<RdmaCongestionControl> cc;
    if (config.fabric.congestionControl == "dcqcn")
    {
        cc = CreateObject<Dcqcn>();
    }
    t->Build(graph.Description(), cc);
    t->GetNetwork()->AssignStreams(config.seed);
    Ptr<RdmaMessenger> messenger = t->GetMessenger();
    std::vector<Ptr<RdmaRateState>> rates;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        if (r == spec.root)
        {
            continue;
        }
        // Set up before the run, as verbs does: the sender's first QP is qpn 1.
        messenger->Connect(r, spec.root);
        rates.push_back(messenger->GetEndpoint(r)->GetNic(0)->GetRateState(1));
    }
    const uint32_t sender = spec.root == 0 ? 1 : 0;
    const TopologyPath path = PairPath(graph, sender, spec.root);
    const TopologyHop& last = path.hops.back();
    Ptr<FabricNetDevice> bottleneck = t->GetNetwork()->GetLinkDevice(last.link, graph.LinkA(last.link) == last.from);
    std::vector<Ptr<FabricNetDevice>> ports;
    for (uint32_t l = 0; l < graph.LinkCount(); ++l)
    {
        ports.push_back(t->GetNetwork()->GetLinkDevice(l, true));
        ports.push_back(t->GetNetwork()->GetLinkDevice(l, false));
    }

    std::vector<IncastSample> samples;
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false));
    exec->SetAttribute("TimeLimit", TimeValue(config.fabric.timeLimit));
    std::function<void()> sample;
    sample = [&]() {
        IncastSample s;
        s.timeS = Simulator::Now().GetSeconds();
        s.queueBytes = bottleneck->GetTotalQueueBytes();
        s.pausedPorts = 0;
        s.pausesSent = 0;
        for (const auto& p : ports)
        {
            s.pausedPorts += p->GetBlockedClasses() != 0 ? 1 : 0;
            s.pausesSent += p->GetCounters().pausesSent;
        }
        for (const auto& r : rates)
        {
            s.senderRateBps.push_back(static_cast<double>(r->GetRate().GetBitRate()));
        }
        samples.push_back(std::move(s));
        if (!exec->IsComplete())
        {
            Simulator::Schedule(step, sample);
        }
    };
    Simulator::Schedule(Time(0), sample);
    exec->Run(schedule, t);
    Simulator::Destroy();
    return samples;
}

// --- the five assumptions, one relaxation at a time ---

std::vector<ResultRow>
RunAssumptionAblation(const ComparisonConfig& config,
                      uint64_t n0Bytes,
                      std::map<uint64_t, double> packetSeconds,
                      std::function<void(const std::string&)> progress)
{
    ValidateComparison(config);
    if (!config.topology)
    {
        throw InputError("scenario.topology", "expected a topology for the assumption ablation");
    }
    TopologyGraph graph(*config.topology);
    const uint32_t ranks = config.ranks ? config.ranks : graph.EndpointCount();
    const std::string algorithm = CanonicalAlgorithm(config.collective, config.algorithm, "--algorithm");
    const uint32_t rdmaHeader = RdmaNic::kMaxTransportHeader;
    // The fabric endpoint's own defaults (its attributes), not typed-in numbers.
    Ptr<RdmaEndpoint> ep = CreateObject<RdmaEndpoint>();
    auto timeAttr = [&ep](const std::string& n) {
        TimeValue v;
        ep->GetAttribute(n, v);
        return v.Get();
    };
    auto bytesAttr = [&ep](const std::string& n) {
        UintegerValue v;
        ep->GetAttribute(n, v);
        return v.Get();
    };
    const Time software = timeAttr("SendOverhead") + timeAttr("ReceiveOverhead");

    std::vector<ResultRow> rows;
    for (uint64_t bytes : config.sizes)
    {
        CollectiveSpec spec;
        spec.collective = config.collective;
        spec.algorithm = algorithm;
        spec.ranks = ranks;
        spec.bytes = bytes;
        spec.channels = config.channels;
        spec.slices = config.slices;
        spec.root = config.root;
        spec.Validate();
        const CollectiveSchedule schedule = BuildSchedule(spec);
        if (!packetSeconds.count(bytes))
        {
            if (progress)
            {
                progress("assumptions: packet run of " + units::FormatBytes(bytes));
            }
            ComparisonConfig p = config;
            p.sizes = {bytes};
            p.backends = {"packet"};
            p.params = {"derived"};
            packetSeconds[bytes] = RunComparison(p, progress).back().GetDouble("time_s");
        }
        const double packet = packetSeconds[bytes];
        // The pure algebra: alpha from the hops alone (propagation, forwarding,
        // store-and-forward), beta the bottleneck payload rate; the worst pair.
        DerivedParameters d = DeriveScheduleParameters(graph, schedule, rdmaHeader);
        const Time a = std::max(d.level[0].alpha, d.level[1].alpha);
        const DataRate b = std::min(d.level[0].beta, d.level[1].beta);
        DataRate fastest = b;
        for (auto [src, dst] : SchedulePairs(schedule))
        {
            TopologyPath path = PairPath(graph, src, dst);
            fastest = std::max(fastest, DerivePathParameters(path, TransportHeaderOf(graph, path, rdmaHeader)).beta);
        }

        struct Relaxation
        {
            std::string name;
            std::string assumption;
            bool protocol, scurve, multi, sw, shared;
        };
        const std::vector<Relaxation> relaxations{
            {"ab-base", "none relaxed: T = alpha + n/beta", false, false, false, false, false},
            {"ab-protocol", "1 constant alpha (eager/rendezvous/pipeline steps)", true, false, false, false, false},
            {"ab-scurve", "2 constant beta (S-curve, n0)", false, true, false, false, false},
            {"ab-multiresource", "2 constant beta (min(mem, link, mem))", false, false, true, false, false},
            {"ab-contention", "3 no contention (links shared max-min)", false, false, false, false, true},
            {"ab-software", "5 no software cost (endpoint overhead)", false, false, false, true, false},
            {"ab-all", "all of the above together", true, true, true, true, true},
        };
        for (const Relaxation& r : relaxations)
        {
            Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
            // On the shared policy the routes carry the hop latencies and rates.
            const Time alpha = r.shared ? Time(0) : a;
            m->SetAttribute("Alpha", TimeValue(alpha));
            m->SetAttribute("Beta", DataRateValue(r.shared ? fastest : b));
            if (r.protocol)
            {
                // The steps of the fabric's own endpoint: a rendezvous is one
                // more round trip of the path (2 alpha), pipelining its set-up.
                m->SetAttribute("ProtocolSwitch", BooleanValue(true));
                m->SetAttribute("EagerAlpha", TimeValue(alpha));
                m->SetAttribute("RendezvousRtt", TimeValue(a * 2));
                m->SetAttribute("PipelineSetup", TimeValue(timeAttr("PipelineSetup")));
                m->SetAttribute("EagerLimit", UintegerValue(bytesAttr("EagerLimit")));
                m->SetAttribute("RendezvousLimit", UintegerValue(bytesAttr("RendezvousLimit")));
            }
            if (r.scurve)
            {
                m->SetAttribute("SCurve", BooleanValue(true));
                m->SetAttribute("N0", UintegerValue(n0Bytes));
            }
            if (r.multi)
            {
                // eta is already in the derived payload rate; only the memory
                // bandwidths (HBM3 defaults) can bind.
                m->SetAttribute("MultiResource", BooleanValue(true));
                m->SetAttribute("ProtocolEfficiency", DoubleValue(1.0));
            }
            if (r.sw)
            {
                m->SetAttribute("SoftwareOverhead", TimeValue(software));
            }
            auto t = CreateObject<AnalyticTransport>();
            t->Install(ranks, m, r.shared ? AnalyticChannel::SHARED : AnalyticChannel::NONE);
            if (r.shared)
            {
                SetScheduleRoutes(graph, schedule, t->GetAnalyticChannel(), rdmaHeader);
            }
            auto exec = CreateObject<CollectiveExecutor>();
            exec->SetAttribute("CheckSchedule", BooleanValue(false));
            const double took = exec->Run(schedule, t).GetSeconds();
            Simulator::Destroy();
            ResultRow row;
            row.Set("collective", ToString(config.collective))
                .Set("ranks", static_cast<uint64_t>(ranks))
                .Set("bytes", bytes)
                .Set("backend", r.name)
                .Set("relaxed", r.assumption)
                .Set("time_s", took)
                .Set("packet_time_s", packet)
                .Set("error", (took - packet) / packet)
                .Set("sym_error", SymmetricError(took, packet));
            rows.push_back(row);
        }
    }
    return rows;
}

// --- one experiment ---

ExperimentOutcome
RunAccuracyExperiment(const AccuracyExperiment& e, bool full, std::function<void(const std::string&)> progress)
{
    const auto t0 = Clock::now();
    ExperimentOutcome out;
    out.experiment = e;
    std::vector<double> judged;
    std::map<std::string, std::map<uint64_t, double>> packetByVariant;
    for (const auto& [label, patch] : e.variants)
    {
        nlohmann::json s = e.scenario;
        if (full)
        {
            s.merge_patch(e.full);
        }
        s.merge_patch(patch);
        ComparisonConfig c = ConfigOf(s, e.file + ": variant " + label);
        if (progress)
        {
            progress(e.id + " / " + label + ": " + std::to_string(c.sizes.size()) + " size(s)");
        }
        std::vector<ResultRow> rows = RunComparison(c, progress);
        // Packet time per (bytes): the last row of each size group.
        std::map<uint64_t, double> packet;
        for (const ResultRow& r : rows)
        {
            if (r.GetString("backend") == "packet")
            {
                packet[static_cast<uint64_t>(r.GetDouble("bytes"))] = r.GetDouble("time_s");
            }
        }
        for (ResultRow& r : rows)
        {
            const uint64_t bytes = static_cast<uint64_t>(r.GetDouble("bytes"));
            r.Set("experiment", e.id).Set("variant", label);
            if (packet.count(bytes) && r.GetString("backend") != "packet")
            {
                const double sym = SymmetricError(r.GetDouble("time_s"), packet[bytes]);
                r.Set("sym_error", sym);
                if (r.GetString("backend") == e.expect.backend && r.GetString("params") == e.expect.params)
                {
                    judged.push_back(sym);
                }
            }
            else
            {
                r.SetNull("sym_error");
            }
            out.rows.push_back(r);
        }
        packetByVariant[label] = packet;
        if (e.traces)
        {
            if (progress)
            {
                progress(e.id + " / " + label + ": packet run with time series");
            }
            out.traces.emplace_back(label, RecordIncastTrace(c, MicroSeconds(1)));
        }
        if (e.assumptions)
        {
            std::vector<ResultRow> a = RunAssumptionAblation(c, e.n0Bytes, packet, progress);
            for (ResultRow& r : a)
            {
                r.Set("experiment", e.id).Set("variant", label);
                out.assumptionRows.push_back(r);
            }
        }
    }
    // packet_drop: the largest fall of the packet time from one rank count to
    // the next larger one, per size (the seed's non-monotone ring): > 0 is a
    // curve that goes down while N goes up.
    double packetDrop = -std::numeric_limits<double>::infinity();
    double analyticDrop = -std::numeric_limits<double>::infinity();
    {
        std::map<std::pair<std::string, uint64_t>, std::map<uint64_t, double>> curves; // (backend, bytes) -> ranks -> t
        for (const ResultRow& r : out.rows)
        {
            const std::string b = r.GetString("backend");
            if (b == "packet" || (b == e.expect.backend && r.GetString("params") == e.expect.params))
            {
                curves[{b, static_cast<uint64_t>(r.GetDouble("bytes"))}][static_cast<uint64_t>(r.GetDouble("ranks"))] =
                    r.GetDouble("time_s");
            }
        }
        for (const auto& [key, curve] : curves)
        {
            double prev = -1;
            for (const auto& [n, t] : curve)
            {
                if (prev > 0)
                {
                    double& d = key.first == "packet" ? packetDrop : analyticDrop;
                    d = std::max(d, (prev - t) / prev);
                }
                prev = t;
            }
        }
    }
    if (judged.empty())
    {
        throw InputError(e.file + ": expect", "no " + e.expect.backend + " rows with params " + e.expect.params +
                                                  " beside a packet row; expected the scenario to run both");
    }
    if (e.expect.metric == "packet_drop")
    {
        out.measured = packetDrop;
    }
    else if (e.expect.metric == "max")
    {
        out.measured = *std::max_element(judged.begin(), judged.end());
    }
    else if (e.expect.metric == "min")
    {
        out.measured = *std::min_element(judged.begin(), judged.end());
    }
    else
    {
        out.measured = Median(judged);
    }
    out.confirmed = out.measured >= e.expect.min && out.measured <= e.expect.max;
    if (e.hasRecovery)
    {
        std::vector<double> v;
        for (const ResultRow& r : out.rows)
        {
            if (r.GetString("backend") == e.recovery.backend && r.GetString("params") == e.recovery.params &&
                r.Has("sym_error") && !std::holds_alternative<std::monostate>(r.Get("sym_error")))
            {
                v.push_back(r.GetDouble("sym_error"));
            }
        }
        if (v.empty())
        {
            throw InputError(e.file + ": recover", "no " + e.recovery.backend + "/" + e.recovery.params + " rows");
        }
        out.recoveryMeasured = e.recovery.metric == "max"   ? *std::max_element(v.begin(), v.end())
                               : e.recovery.metric == "min" ? *std::min_element(v.begin(), v.end())
                                                            : Median(v);
        out.recovered = out.recoveryMeasured >= e.recovery.min && out.recoveryMeasured <= e.recovery.max;
    }

    // The paragraph: the claim, the range each analytic answer spans, the verdict.
    std::ostringstream p;
    if (e.expect.metric == "packet_drop")
    {
        p << "Seed: " << e.seedClaim << ". Largest fall of the packet-level time as N grows: **" << Pct(packetDrop)
          << "** (the " << e.expect.backend << "/" << e.expect.params << " curve: "
          << (analyticDrop > 0 ? "falls by " + Pct(analyticDrop) : std::string("never falls")) << ").";
    }
    if (e.expect.metric == "packet_drop")
    {
        p << " Judged on the packet curve (" << judged.size() << " points beside it): **" << Pct(out.measured);
    }
    else
    {
        p << "Seed: " << e.seedClaim << ". Measured " << e.expect.metric << " symmetric error of " << e.expect.backend
          << " (" << e.expect.params << ") against packet over " << judged.size() << " point(s): **"
          << Pct(out.measured);
    }
    p      << "** (expected " << Pct(e.expect.min) << " .. " << (e.expect.max > 1e299 ? std::string("inf") : Pct(e.expect.max))
      << ") -> **" << (out.confirmed ? "confirmed" : "refuted") << "**.";
    std::map<std::string, std::pair<double, double>> span; // backend/params -> min, max
    for (const ResultRow& r : out.rows)
    {
        if (!r.Has("sym_error") || r.GetString("backend") == "packet" ||
            std::holds_alternative<std::monostate>(r.Get("sym_error")))
        {
            continue;
        }
        const std::string key = r.GetString("backend") + "/" + r.GetString("params");
        const double v = r.GetDouble("sym_error");
        auto it = span.find(key);
        if (it == span.end())
        {
            span[key] = {v, v};
        }
        else
        {
            it->second.first = std::min(it->second.first, v);
            it->second.second = std::max(it->second.second, v);
        }
    }
    if (e.hasRecovery)
    {
        p << " Correction: " << e.recovery.metric << " symmetric error of " << e.recovery.backend << " ("
          << e.recovery.params << ") **" << Pct(out.recoveryMeasured) << "** (expected at most "
          << Pct(e.recovery.max) << ") -> **" << (out.recovered ? "recovers" : "does not recover") << "**.";
    }
    p << " Range per answer:";
    bool first = true;
    for (const auto& [k, v] : span)
    {
        p << (first ? " " : "; ") << k << " " << Pct(v.first) << " .. " << Pct(v.second);
        first = false;
    }
    p << ".";
    out.summary = p.str();
    out.wallSeconds = WallSince(t0);
    return out;
}

std::vector<ResultRow>
AccuracyTable(const std::vector<ExperimentOutcome>& outcomes)
{
    std::vector<ResultRow> rows;
    for (const auto& o : outcomes)
    {
        ResultRow r;
        r.Set("experiment", o.experiment.id)
            .Set("seed_claim", o.experiment.seedClaim)
            .Set("judged", o.experiment.expect.backend + "/" + o.experiment.expect.params + " " +
                               o.experiment.expect.metric)
            .Set("measured_error", o.measured)
            .Set("expected_min_error", o.experiment.expect.min)
            .Set("expected_max_error", o.experiment.expect.max > 1e299 ? std::numeric_limits<double>::infinity()
                                                                 : o.experiment.expect.max)
            .Set("verdict", o.confirmed ? "confirmed" : "refuted");
        if (o.experiment.hasRecovery)
        {
            r.Set("correction", o.experiment.recovery.backend + " " + Pct(o.recoveryMeasured) +
                                    (o.recovered ? " (recovers)" : " (does not recover)"));
        }
        else
        {
            r.Set("correction", "-");
        }
        r
            .Set("points", static_cast<uint64_t>(o.rows.size()))
            .Set("wall_s", o.wallSeconds);
        rows.push_back(r);
    }
    return rows;
}

// --- against published measurements ---

namespace
{

/// One way of predicting a published run.
struct PublishedModel
{
    std::string label;
    std::string algorithm;
    uint32_t channels;
    std::vector<std::string> backends;
    uint64_t packetUpTo = 0;     ///< packet runs for sizes up to this (0: none)
    uint64_t packetUpToFull = 0; ///< the same under --full
};

struct PublishedCase
{
    std::string name;
    std::string file;     ///< under measuredDir
    std::string topology; ///< preset
    uint32_t ranks;
    std::vector<PublishedModel> models;
};

} // namespace

namespace
{

std::string
Band(uint64_t bytes)
{
    // The seed's regimes: small (< 1 MB, latency and protocol), medium, large
    // (>= 256 MB, bandwidth only).
    if (bytes < 1000000)
    {
        return "small <1MB";
    }
    if (bytes < 256000000)
    {
        return "medium 1MB-256MB";
    }
    return "large >=256MB";
}

} // namespace

PublishedComparison
RunPublishedComparison(const std::string& measuredDir, bool full, std::function<void(const std::string&)> progress)
{
    namespace fs = std::filesystem;
    PublishedComparison out;
    if (!fs::is_directory(measuredDir))
    {
        out.note = "skipped: " + measuredDir + " is absent (the published measurements are read at run time, never "
                                               "copied into the project)";
        return out;
    }
    out.available = true;
    // Multi-node runs of issue 309: G is 2 nodes with NCCL_ALGO=Ring (the
    // network view NVIDIA recommends), E 4 nodes and C 8 nodes default.
    // Inside a DGX the ring is the flat ring over the NVSwitch (one channel:
    // more channels on the same 450 GB/s port add no bandwidth, and the closed
    // form would count them as if they did). Across nodes NCCL's ring search
    // builds one ring per NIC (rail-aligned channels, 8 NICs a node,
    // REFERENCE.md): "ring x8" is that, in the closed form only (our ring
    // builder puts every channel on the same pairs, so the flow backend would
    // share one NIC among them); "hierarchical" is NVLink reduce-scatter, one
    // inter-node allreduce per rail, NVLink allgather, checked by flow.
    // Packet runs where they are affordable on 2 cores (measured: a 1 MB
    // ring on the DGX about 0.3 s, 16 MB about 10 s; a 1 MB hierarchical
    // allreduce on 2 nodes about 0.7 s): the DGX up to 4 MB (--full 64 MB),
    // 2 nodes up to 1 MiB (--full 16 MiB), 4 nodes only under --full (1 MiB).
    const std::vector<PublishedModel> intra{{"ring", "ring", 1, {"closed", "flow"}, 4000000, 64000000}};
    auto inter = [](uint64_t packet, uint64_t packetFull) {
        return std::vector<PublishedModel>{{"ring x8 rails", "ring", 8, {"closed"}, 0, 0},
                                           {"hierarchical", "hierarchical", 1, {"closed", "flow"}, packet, packetFull}};
    };
    std::vector<PublishedCase> cases{
        {"8xH100 NVSwitch ring (together)", "raw/together_h100_ar_ring.txt", "dgx-h100", 8, intra},
        {"2 nodes NDR ring (i309 G)", "raw/i309_G.txt", "rail-h100-2n", 16, inter(1048576, 16777216)},
        {"4 nodes NDR default (i309 E)", "raw/i309_E.txt", "rail-h100-4n", 32, inter(0, 1048576)},
        {"8 nodes NDR default (i309 C)", "raw/i309_C.txt", "rail-h100-8n", 64, inter(0, 0)},
    };
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> bandErrors;
    std::ostringstream note;
    for (const PublishedCase& pc : cases)
    {
        const std::string path = measuredDir + "/" + pc.file;
        if (!fs::exists(path))
        {
            note << pc.file << " absent, skipped. ";
            continue;
        }
        MeasurementSet set = ReadMeasurementFile(path);
        std::map<uint64_t, double> measured; // out-of-place
        for (const auto& s : set.samples)
        {
            if (!s.inPlace && s.collective == "allreduce" && s.timeS > 0 && !measured.count(s.bytes))
            {
                measured[s.bytes] = s.timeS;
            }
        }
        if (measured.empty())
        {
            note << pc.file << ": no out-of-place allreduce rows. ";
            continue;
        }
        for (const PublishedModel& pm : pc.models)
        {
            ComparisonConfig c;
            ApplyScenario(nlohmann::json{{"topology", pc.topology}}, c);
            c.ranks = pc.ranks;
            c.algorithm = pm.algorithm;
            c.channels = pm.channels;
            c.sizes.clear();
            for (const auto& [b, t] : measured)
            {
                // Enough bytes to cut into every message of the schedule.
                if (b >= static_cast<uint64_t>(2 * pc.ranks * pm.channels * 8))
                {
                    c.sizes.push_back(b);
                }
            }
            // Packet level is out of reach for these sizes (a GB allreduce on
            // 8-64 NVLink GPUs takes hours on 2 cores): the analytic answers
            // with the derived parameters; --full adds the calibrated closed
            // form up to 16 MiB (below).
            c.backends = pm.backends;
            c.params = {"derived"};
            if (progress)
            {
                progress("published: " + pc.name + ", " + pm.label + " (" + std::to_string(c.sizes.size()) +
                         " sizes, " + pc.topology + ")");
            }
            std::vector<ResultRow> rows;
            try
            {
                rows = RunComparison(c, progress);
                const uint64_t upTo = full ? pm.packetUpToFull : pm.packetUpTo;
                ComparisonConfig pc2 = c;
                pc2.sizes.clear();
                for (uint64_t b : c.sizes)
                {
                    if (b <= upTo)
                    {
                        pc2.sizes.push_back(b);
                    }
                }
                if (full)
                {
                    // Calibrated parameters come from a packet sweep around each
                    // message size of the schedule: affordable up to 16 MiB.
                    ComparisonConfig cal = c;
                    cal.sizes.clear();
                    for (uint64_t b : c.sizes)
                    {
                        if (b <= 16777216)
                        {
                            cal.sizes.push_back(b);
                        }
                    }
                    cal.backends = {"closed"};
                    cal.params = {"calibrated"};
                    try
                    {
                        if (!cal.sizes.empty())
                        {
                            auto more = RunComparison(cal, progress);
                            rows.insert(rows.end(), more.begin(), more.end());
                        }
                    }
                    catch (const std::exception& ex)
                    {
                        note << pc.name << ", " << pm.label << ": calibrated parameters not available ("
                             << ex.what() << "). ";
                    }
                }
                if (!pc2.sizes.empty())
                {
                    pc2.backends = {"packet"};
                    pc2.params = {"derived"};
                    if (progress)
                    {
                        progress("published: " + pc.name + ", " + pm.label + ": packet runs up to " +
                                 units::FormatBytes(upTo));
                    }
                    for (ResultRow& r : RunComparison(pc2, progress))
                    {
                        r.Set("params", "fabric");
                        rows.push_back(r);
                    }
                }
            }
            catch (const std::exception& ex)
            {
                // Reported, not hidden: the section says which model failed and why.
                note << pc.name << ", " << pm.label << ": not run (" << ex.what() << "). ";
                continue;
            }
            for (const ResultRow& r : rows)
            {
                const uint64_t bytes = static_cast<uint64_t>(r.GetDouble("bytes"));
                const double m = measured[bytes];
                const double p = r.GetDouble("time_s");
                const std::string backend = pm.label + " " + r.GetString("backend") + "/" + r.GetString("params");
                ResultRow o;
                o.Set("case", pc.name)
                    .Set("topology", pc.topology)
                    .Set("ranks", static_cast<uint64_t>(pc.ranks))
                    .Set("bytes", bytes)
                    .Set("backend", backend)
                    .Set("measured_time_s", m)
                    .Set("measured_busbw_GBps",
                         BusBandwidth(CollectiveKind::ALL_REDUCE, pc.ranks, bytes, SecondsToTime(m)) / 1e9)
                    .Set("time_s", p)
                    .Set("busbw_GBps", r.GetDouble("busbw_GBps"))
                    .Set("error", (p - m) / m)
                    .Set("sym_error", SymmetricError(p, m))
                    .Set("band", Band(bytes));
                bandErrors[{pc.name, backend, Band(bytes)}].push_back(SymmetricError(p, m));
                out.rows.push_back(o);
            }
        }
    }
    for (const auto& [key, v] : bandErrors)
    {
        ResultRow b;
        b.Set("case", std::get<0>(key))
            .Set("backend", std::get<1>(key))
            .Set("band", std::get<2>(key))
            .Set("points", static_cast<uint64_t>(v.size()))
            .Set("median_sym_error", Median(v))
            .Set("max_sym_error", *std::max_element(v.begin(), v.end()));
        out.bands.push_back(b);
    }
    out.note = note.str() + "Read at run time from " + measuredDir + ".";
    return out;
}

// --- the report ---

namespace
{

void
MarkdownTable(std::ostream& md, const std::vector<ResultRow>& rows, const std::vector<std::string>& keys)
{
    md << "|";
    for (const auto& k : keys)
    {
        md << " " << k << " |";
    }
    md << "\n|";
    for (size_t i = 0; i < keys.size(); ++i)
    {
        md << "---|";
    }
    md << "\n";
    for (const ResultRow& r : rows)
    {
        md << "|";
        for (const auto& k : keys)
        {
            md << " ";
            if (!r.Has(k))
            {
                md << "-";
            }
            else
            {
                const auto& v = r.Get(k);
                if (const auto* d = std::get_if<double>(&v))
                {
                    const bool isError = k.find("error") != std::string::npos;
                    md << (isError ? Pct(*d) : Num(*d));
                }
                else if (const auto* i = std::get_if<int64_t>(&v))
                {
                    md << (k == "bytes" ? units::FormatBytes(static_cast<uint64_t>(*i)) : std::to_string(*i));
                }
                else if (const auto* s = std::get_if<std::string>(&v))
                {
                    md << *s;
                }
                else if (const auto* b = std::get_if<bool>(&v))
                {
                    md << (*b ? "true" : "false");
                }
                else
                {
                    md << "-";
                }
            }
            md << " |";
        }
        md << "\n";
    }
}

/// One series of a figure: a CSV with fixed columns x,y.
struct Series
{
    Series(std::string f, std::string t, std::string s = "")
        : file(std::move(f)),
          title(std::move(t)),
          style(std::move(s))
    {
    }

    std::string file;
    std::string title;
    std::string style; ///< "" : the figure's style
};

std::string
WriteSeries(const std::string& dir, const std::string& name, const std::vector<std::pair<double, double>>& xy)
{
    const std::string file = dir + "/plot-data/" + SafeName(name) + ".csv";
    std::ofstream f(file);
    f << "x,y\n";
    for (const auto& [x, y] : xy)
    {
        f << std::setprecision(10) << x << "," << y << "\n";
    }
    return file;
}

void
PlotBlock(std::ostream& gp,
          const std::string& png,
          const std::string& title,
          const std::string& xlabel,
          const std::string& ylabel,
          bool logx,
          bool logy,
          const std::vector<Series>& series,
          const std::string& style = "linespoints")
{
    gp << "set output '" << png << "'\n"
       << "set title \"" << title << "\" noenhanced\n"
       << "set xlabel '" << xlabel << "'\nset ylabel '" << ylabel << "'\n"
       // Engineering suffixes (1k, 10M) only on log axes of sizes; a linear
       // axis (time in us) would round 1.5k to "2k".
       << (logx ? "set logscale x\nset format x '%.0s%c'\n" : "unset logscale x\nset format x '%g'\n")
       << (logy ? "set logscale y\n" : "unset logscale y\n")
       << "plot ";
    for (size_t i = 0; i < series.size(); ++i)
    {
        gp << (i ? ", \\\n     " : "") << "'" << series[i].file << "' skip 1 using 1:2 with "
           << (series[i].style.empty() ? style : series[i].style)
           << " title \"" << series[i].title << "\" noenhanced";
    }
    gp << "\n";
}

} // namespace

std::string
WriteAccuracyReport(const std::string& dir,
                    const std::vector<ExperimentOutcome>& outcomes,
                    const PublishedComparison& published,
                    const std::vector<ResultRow>& extraSection,
                    const std::string& extraTitle,
                    double wallSeconds)
{
    namespace fs = std::filesystem;
    fs::create_directories(dir + "/plot-data");
    std::vector<ResultRow> points;
    std::vector<ResultRow> assumptions;
    for (const auto& o : outcomes)
    {
        points.insert(points.end(), o.rows.begin(), o.rows.end());
        assumptions.insert(assumptions.end(), o.assumptionRows.begin(), o.assumptionRows.end());
    }
    WriteCsvFile(dir + "/accuracy-points.csv", points);
    WriteCsvFile(dir + "/accuracy-table.csv", AccuracyTable(outcomes));
    if (!assumptions.empty())
    {
        WriteCsvFile(dir + "/assumptions.csv", assumptions);
    }
    if (!published.rows.empty())
    {
        WriteCsvFile(dir + "/published.csv", published.rows);
        WriteCsvFile(dir + "/published-bands.csv", published.bands);
    }

    std::ofstream gp(dir + "/accuracy-map.gp");
    gp << "# written by hockney validate / demo\n"
       << "set terminal pngcairo size 1000,650 font ',10'\nset datafile separator ','\nset grid\n"
       << "set key outside right top\n";
    std::map<std::string, std::vector<std::string>> figures; // experiment id -> png names

    for (const auto& o : outcomes)
    {
        const std::string id = o.experiment.id;
        const bool byRanks = o.experiment.plotX == "ranks";
        // Series keyed by variant/backend/params.
        std::map<std::string, std::vector<std::pair<double, double>>> time, err;
        for (const ResultRow& r : o.rows)
        {
            const std::string key = (byRanks ? units::FormatBytes(static_cast<uint64_t>(r.GetDouble("bytes")))
                                             : r.GetString("variant")) +
                                    " " + r.GetString("backend") +
                                    (r.GetString("params").empty() ? "" : "/" + r.GetString("params"));
            const double x = byRanks ? r.GetDouble("ranks") : r.GetDouble("bytes");
            time[key].emplace_back(x, r.GetDouble("time_s"));
            if (r.Has("sym_error") && !std::holds_alternative<std::monostate>(r.Get("sym_error")))
            {
                err[key].emplace_back(x, 100.0 * r.GetDouble("sym_error"));
            }
        }
        std::vector<Series> ts, es;
        for (auto& [k, v] : time)
        {
            std::sort(v.begin(), v.end());
            ts.push_back({WriteSeries(dir, id + "-time-" + k, v), k});
        }
        for (auto& [k, v] : err)
        {
            std::sort(v.begin(), v.end());
            es.push_back({WriteSeries(dir, id + "-error-" + k, v), k});
        }
        const std::string xl = byRanks ? "ranks N" : "bytes (nccl-tests size)";
        PlotBlock(gp, id + "-time.png", o.experiment.title + ": time per backend", xl, "time (s)", true, true, ts);
        PlotBlock(gp, id + "-error.png", o.experiment.title + ": symmetric error vs packet", xl,
                  "max(Ta/Tp, Tp/Ta) - 1 (%)", !byRanks || true, true, es);
        figures[id] = {id + "-time.png", id + "-error.png"};
        for (const auto& [label, samples] : o.traces)
        {
            std::vector<std::pair<double, double>> q, paused, pauses;
            std::vector<std::vector<std::pair<double, double>>> rate;
            for (const IncastSample& s : samples)
            {
                q.emplace_back(s.timeS * 1e6, s.queueBytes / 1e3);
                paused.emplace_back(s.timeS * 1e6, s.pausedPorts);
                pauses.emplace_back(s.timeS * 1e6, static_cast<double>(s.pausesSent));
                rate.resize(std::max(rate.size(), s.senderRateBps.size()));
                for (size_t i = 0; i < s.senderRateBps.size(); ++i)
                {
                    rate[i].emplace_back(s.timeS * 1e6, s.senderRateBps[i] / 1e9);
                }
            }
            std::ofstream ts(dir + "/incast-" + SafeName(id + "-" + label) + ".csv");
            ts << "time_s,queue_bytes,paused_ports,pfc_pauses_sent";
            for (size_t i = 0; i < rate.size(); ++i)
            {
                ts << ",sender" << i << "_rate_bps";
            }
            ts << "\n";
            for (const IncastSample& s : samples)
            {
                ts << s.timeS << "," << s.queueBytes << "," << s.pausedPorts << "," << s.pausesSent;
                for (double r : s.senderRateBps)
                {
                    ts << "," << r;
                }
                ts << "\n";
            }
            const std::string base = id + "-" + SafeName(label);
            PlotBlock(gp, base + "-queue.png", o.experiment.title + " (" + label + "): queue at the receiver's port",
                      "time (us)", "queue (KB)", false, false,
                      {{WriteSeries(dir, base + "-queue", q), "queue towards the receiver"}}, "lines");
            PlotBlock(gp, base + "-pfc.png", o.experiment.title + " (" + label + "): PFC pause timeline", "time (us)",
                      "ports / frames", false, false,
                      {{WriteSeries(dir, base + "-paused", paused), "ports paused now"},
                       {WriteSeries(dir, base + "-pauses", pauses), "pause frames sent (cumulative)"}},
                      "steps");
            std::vector<Series> rs;
            for (size_t i = 0; i < rate.size(); ++i)
            {
                rs.push_back({WriteSeries(dir, base + "-rate" + std::to_string(i), rate[i]),
                              "sender " + std::to_string(i) + " rate RC"});
            }
            PlotBlock(gp, base + "-rate.png", o.experiment.title + " (" + label + "): sender rate (DCQCN RC)",
                      "time (us)", "rate (Gb/s)", false, false, rs, "steps");
            figures[id].push_back(base + "-queue.png");
            figures[id].push_back(base + "-pfc.png");
            figures[id].push_back(base + "-rate.png");
        }
    }
    if (!assumptions.empty())
    {
        std::map<std::string, std::vector<std::pair<double, double>>> s;
        for (const ResultRow& r : assumptions)
        {
            s[r.GetString("experiment") + " " + r.GetString("backend")].emplace_back(r.GetDouble("bytes"),
                                                                                  100.0 * r.GetDouble("sym_error"));
        }
        std::vector<Series> ser;
        for (auto& [k, v] : s)
        {
            ser.push_back({WriteSeries(dir, "assumptions-" + k, v), k});
        }
        PlotBlock(gp, "assumptions.png", "Each assumption relaxed alone: symmetric error vs packet", "bytes",
                  "error (%)", true, true, ser);
    }
    std::vector<std::string> publishedFigures;
    if (!published.rows.empty())
    {
        // One figure per published run: the measured busbw as points, each
        // prediction as a line.
        std::map<std::string, std::map<std::string, std::vector<std::pair<double, double>>>> byCase;
        for (const ResultRow& r : published.rows)
        {
            auto& c = byCase[r.GetString("case")];
            c[r.GetString("backend")].emplace_back(r.GetDouble("bytes"), r.GetDouble("busbw_GBps"));
            auto& m = c["~measured"];
            const double x = r.GetDouble("bytes");
            if (std::none_of(m.begin(), m.end(), [x](const auto& q) { return q.first == x; }))
            {
                m.emplace_back(x, r.GetDouble("measured_busbw_GBps"));
            }
        }
        for (auto& [name, series] : byCase)
        {
            std::vector<Series> ser;
            for (auto& [k, v] : series)
            {
                std::sort(v.begin(), v.end());
                const bool measured = k == "~measured";
                ser.push_back({WriteSeries(dir, "published-" + name + "-" + k, v),
                               measured ? "published measurement" : k, measured ? "points pt 7 ps 1.2" : ""});
            }
            const std::string png = "published-" + SafeName(name) + ".png";
            PlotBlock(gp, png, "Ring AllReduce busbw, " + name + ": published vs hockney", "bytes",
                      "busbw (GB/s)", true, true, ser, "lines lw 2");
            publishedFigures.push_back(png);
        }
    }
    gp.close();
    const std::string cmd = "cd " + ShellQuote(dir) + " && gnuplot accuracy-map.gp 2> gnuplot.log";
    if (std::system(cmd.c_str()) != 0)
    {
        throw std::runtime_error("gnuplot failed (see " + dir + "/gnuplot.log; ./hockney setup installs gnuplot-nox)");
    }

    const std::string path = dir + "/report.md";
    std::ofstream md(path);
    md << "# Where the algebra fails: the hockney accuracy map\n\n"
       << "Each row of the seed's accuracy table (seed/003, tbl-model-ab-accuracy-bounds) run by hockney: the "
          "analytic answers (closed form, alpha-beta and LogGP on the analytic channel, the max-min `flow` "
          "model) with parameters *derived* from the topology and *calibrated* on a packet-level point-to-point "
          "sweep, against the packet-level fabric on the same schedule. The error judged is the symmetric "
          "error max(Ta/Tp, Tp/Ta) - 1 (compare's `error` (Ta - Tp)/Tp cannot express a factor of 2 "
          "optimism). Wall time of this run: "
       << Num(wallSeconds, 3) << " s.\n\n## The map\n\n";
    MarkdownTable(md, AccuracyTable(outcomes),
                  {"experiment", "seed_claim", "judged", "measured_error", "expected_min_error", "expected_max_error", "verdict", "correction",
                   "points", "wall_s"});
    for (const auto& o : outcomes)
    {
        md << "\n## " << o.experiment.title << " (`" << o.experiment.id << "`, validation/" << o.experiment.file
           << ")\n\n"
           << o.summary << "\n\n";
        if (!o.experiment.why.empty())
        {
            md << o.experiment.why << "\n\n";
        }
        MarkdownTable(md, o.rows,
                      {"variant", "ranks", "bytes", "backend", "params", "time_s", "busbw_GBps", "error", "sym_error",
                       "regime", "pfc_pauses", "cnps"});
        md << "\n";
        for (const auto& f : figures[o.experiment.id])
        {
            md << "![" << f << "](" << f << ")\n";
        }
        if (!o.assumptionRows.empty())
        {
            md << "\nThe five assumptions, each relaxed alone against the packet time (assumption 4, homogeneity, "
                  "is relaxed in every row already: each pair's own hops give its alpha and beta):\n\n";
            // What each assumption costs: the median error with it relaxed
            // alone, against the median of the pure algebra.
            std::map<std::string, std::vector<double>> byRelax;
            std::map<std::string, std::string> what;
            std::vector<std::string> order;
            for (const ResultRow& r : o.assumptionRows)
            {
                const std::string b = r.GetString("backend");
                if (!byRelax.count(b))
                {
                    order.push_back(b);
                }
                byRelax[b].push_back(r.GetDouble("sym_error"));
                what[b] = r.GetString("relaxed");
            }
            const double base = Median(byRelax["ab-base"]);
            std::vector<ResultRow> cost;
            for (const auto& b : order)
            {
                const double m = Median(byRelax[b]);
                ResultRow c;
                c.Set("relaxation", b)
                    .Set("assumption", what[b])
                    .Set("median_sym_error", m)
                    .Set("change_vs_base_error", m - base)
                    .Set("sizes", static_cast<uint64_t>(byRelax[b].size()));
                cost.push_back(c);
            }
            md << "Summary (median over the sizes; a negative change means relaxing the assumption brings the "
                  "algebra closer to the packet fabric, so holding it costs that much):\n\n";
            MarkdownTable(md, cost, {"relaxation", "assumption", "median_sym_error", "change_vs_base_error", "sizes"});
            md << "\nEvery point:\n\n";
            MarkdownTable(md, o.assumptionRows,
                          {"variant", "bytes", "backend", "relaxed", "time_s", "packet_time_s", "error", "sym_error"});
            md << "\n![assumptions.png](assumptions.png)\n";
        }
    }
    md << "\n## Against published measurements\n\n" << published.note << "\n\n";
    if (!published.rows.empty())
    {
        md << "Error per size band (symmetric, predicted vs measured time):\n\n";
        MarkdownTable(md, published.bands, {"case", "backend", "band", "points", "median_sym_error", "max_sym_error"});
        auto band = [&published](const std::string& c, const std::string& backend, const std::string& b) {
            for (const ResultRow& r : published.bands)
            {
                if (r.GetString("case").find(c) != std::string::npos && r.GetString("backend") == backend &&
                    r.GetString("band").rfind(b, 0) == 0)
                {
                    return Pct(r.GetDouble("median_sym_error"));
                }
            }
            return std::string("n/a");
        };
        md << "\nWhat the numbers say, and what is left unexplained (no preset was tuned to these points):\n\n"
           << "- **8xH100, large messages**: the derived ring is " << band("8xH100", "ring closed/derived", "large")
           << " off (median, >= 256 MB): the preset's NVLink 4 port of 450 GB/s with its packet headers gives a "
              "busbw near 420 GB/s, NCCL's Ring reaches about 360-370 GB/s (REFERENCE.md: about 20 % protocol "
              "overhead). That overhead (LL128/Simple framing, the SM copy loop, flag polling) is not modelled "
              "in the fabric, and fitting it here would be tuning per point.\n"
           << "- **8xH100, small messages**: " << band("8xH100", "ring closed/derived", "small")
           << " (algebra) and " << band("8xH100", "ring packet/fabric", "small")
           << " (packet fabric): the published floor of about 35 us is the single-process -g 8 launch (the file's "
              "own note) plus NCCL's per-step protocol latency (6.6-14 us base, REFERENCE.md); the endpoint's "
              "1 us software cost per message does not contain a kernel launch. Unexplained by design.\n"
           << "- **Multi-node NDR, large messages**: one ring per NIC (ring x8 rails, closed form) is "
           << band("2 nodes", "ring x8 rails closed/derived", "large") << " off on 2 nodes (NCCL_ALGO=Ring), "
           << band("4 nodes", "ring x8 rails closed/derived", "large") << " on 4 and "
           << band("8 nodes", "ring x8 rails closed/derived", "large")
           << " on 8 nodes, whose runs used NCCL's default algorithm choice (NVLS/tree variants, not Ring): "
              "the 4- and 8-node gap is the algorithm, not the fabric. Our hierarchical algorithm is "
           << band("2 nodes", "hierarchical closed/derived", "large")
           << " slow on 2 nodes: its three phases do not overlap, NCCL pipelines them. The ring x8 rails answer "
              "assumes each channel uses its own NIC (NCCL's rail-aligned rings); our ring builder places every "
              "channel on the same pairs, so the flow backend could not check it (left out).\n"
           << "- **Medium sizes** (1-256 MB) carry the per-step latencies of 2(N-1) steps over 16-64 ranks and "
              "NCCL's protocol choice; the errors there are the small-message story again.\n";
        for (const auto& f : publishedFigures)
        {
            md << "![" << f << "](" << f << ")\n";
        }
        md << "\nEvery point: published.csv.\n";
    }
    if (!extraSection.empty())
    {
        md << "\n## " << extraTitle << "\n\n";
        std::vector<std::string> keys;
        for (const auto& [k, v] : extraSection.front().Fields())
        {
            keys.push_back(k);
        }
        MarkdownTable(md, extraSection, keys);
    }
    md << "\n## Files\n\naccuracy-table.csv (the map), accuracy-points.csv (every point), assumptions.csv, "
          "incast-*.csv (time series), published.csv, published-bands.csv, accuracy-map.gp (gnuplot script of "
          "every figure), plot-data/ (its inputs).\n";
    return path;
}

} // namespace ns3
