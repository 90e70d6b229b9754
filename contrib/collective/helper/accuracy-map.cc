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
                                             "assumptions", "plot_x"};
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
    const auto& x = j.at("expect");
    e.expect.backend = x.value("backend", e.expect.backend);
    e.expect.params = x.value("params", e.expect.params);
    e.expect.metric = x.value("metric", e.expect.metric);
    if (e.expect.metric != "max" && e.expect.metric != "median" && e.expect.metric != "min")
    {
        throw InputError(file + ": expect.metric", "expected max, median or min");
    }
    e.expect.min = x.value("min", 0.0);
    e.expect.max = x.value("max", 1e300);
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
    if (judged.empty())
    {
        throw InputError(e.file + ": expect", "no " + e.expect.backend + " rows with params " + e.expect.params +
                                                  " beside a packet row; expected the scenario to run both");
    }
    if (e.expect.metric == "max")
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

    // The paragraph: the claim, the range each analytic answer spans, the verdict.
    std::ostringstream p;
    p << "Seed: " << e.seedClaim << ". Measured " << e.expect.metric << " symmetric error of " << e.expect.backend
      << " (" << e.expect.params << ") against packet over " << judged.size() << " point(s): **" << Pct(out.measured)
      << "** (expected " << Pct(e.expect.min) << " .. " << (e.expect.max > 1e299 ? std::string("inf") : Pct(e.expect.max))
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
            .Set("expected_min", o.experiment.expect.min)
            .Set("expected_max", o.experiment.expect.max > 1e299 ? std::numeric_limits<double>::infinity()
                                                                 : o.experiment.expect.max)
            .Set("verdict", o.confirmed ? "confirmed" : "refuted")
            .Set("points", static_cast<uint64_t>(o.rows.size()))
            .Set("wall_s", o.wallSeconds);
        rows.push_back(r);
    }
    return rows;
}

// --- against published measurements ---

namespace
{

struct PublishedCase
{
    std::string name;
    std::string file;     ///< under measuredDir
    std::string topology; ///< preset
    uint32_t ranks;
    std::string algorithm;
};

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
    std::vector<PublishedCase> cases{
        {"8xH100 NVSwitch ring (together)", "raw/together_h100_ar_ring.txt", "dgx-h100", 8, "ring"},
        {"2 nodes NDR ring (i309 G)", "raw/i309_G.txt", "rail-h100-2n", 16, "ring"},
        {"4 nodes NDR default (i309 E)", "raw/i309_E.txt", "rail-h100-4n", 32, "ring"},
        {"8 nodes NDR default (i309 C)", "raw/i309_C.txt", "rail-h100-8n", 64, "ring"},
    };
    std::map<std::pair<std::string, std::string>, std::vector<double>> bandErrors;
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
        std::map<uint64_t, double> measured; // out-of-place, the first source
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
        ComparisonConfig c;
        ApplyScenario(nlohmann::json{{"topology", pc.topology}}, c);
        c.ranks = pc.ranks;
        c.algorithm = pc.algorithm;
        c.sizes.clear();
        for (const auto& [b, t] : measured)
        {
            if (b >= static_cast<uint64_t>(2 * pc.ranks))
            {
                c.sizes.push_back(b);
            }
        }
        // Packet level is out of reach here (a GB allreduce on 8-64 NVLink
        // GPUs takes hours on 2 cores): the analytic answers with the derived
        // parameters; --full adds the calibrated ones (a packet sweep of the
        // worst pair, 1 KB .. 4 MB).
        c.backends = {"closed", "flow"};
        c.params = full ? std::vector<std::string>{"derived", "calibrated"} : std::vector<std::string>{"derived"};
        if (progress)
        {
            progress("published: " + pc.name + " (" + std::to_string(c.sizes.size()) + " sizes, " + pc.topology +
                     ")");
        }
        std::vector<ResultRow> rows = RunComparison(c, progress);
        for (const ResultRow& r : rows)
        {
            const uint64_t bytes = static_cast<uint64_t>(r.GetDouble("bytes"));
            const double m = measured[bytes];
            const double p = r.GetDouble("time_s");
            ResultRow o;
            o.Set("case", pc.name)
                .Set("topology", pc.topology)
                .Set("ranks", static_cast<uint64_t>(pc.ranks))
                .Set("bytes", bytes)
                .Set("backend", r.GetString("backend") + "/" + r.GetString("params"))
                .Set("measured_time_s", m)
                .Set("measured_busbw_GBps", BusBandwidth(CollectiveKind::ALL_REDUCE, pc.ranks, bytes,
                                                         SecondsToTime(m)) /
                                                1e9)
                .Set("time_s", p)
                .Set("busbw_GBps", r.GetDouble("busbw_GBps"))
                .Set("error", (p - m) / m)
                .Set("sym_error", SymmetricError(p, m))
                .Set("band", Band(bytes));
            bandErrors[{pc.name + " | " + o.GetString("backend"), Band(bytes)}].push_back(SymmetricError(p, m));
            out.rows.push_back(o);
        }
    }
    for (const auto& [key, v] : bandErrors)
    {
        ResultRow b;
        b.Set("case", key.first)
            .Set("band", key.second)
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
    std::string file;
    std::string title;
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
       << (logx ? "set logscale x\n" : "unset logscale x\n") << (logy ? "set logscale y\n" : "unset logscale y\n")
       << "plot ";
    for (size_t i = 0; i < series.size(); ++i)
    {
        gp << (i ? ", \\\n     " : "") << "'" << series[i].file << "' skip 1 using 1:2 with " << style
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
       << "set key outside right top\nset format x '%.0s%c'\n";
    std::map<std::string, std::vector<std::string>> figures; // experiment id -> png names

    for (const auto& o : outcomes)
    {
        const std::string id = o.experiment.id;
        const bool byRanks = o.experiment.plotX == "ranks";
        // Series keyed by variant/backend/params.
        std::map<std::string, std::vector<std::pair<double, double>>> time, err;
        for (const ResultRow& r : o.rows)
        {
            const std::string key = r.GetString("variant") + " " + r.GetString("backend") +
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
    if (!published.rows.empty())
    {
        std::map<std::string, std::vector<std::pair<double, double>>> s;
        std::set<std::string> cases;
        for (const ResultRow& r : published.rows)
        {
            s[r.GetString("case") + " " + r.GetString("backend")].emplace_back(r.GetDouble("bytes"),
                                                                              r.GetDouble("busbw_GBps"));
            if (!cases.count(r.GetString("case") + r.GetString("backend")))
            {
                cases.insert(r.GetString("case") + r.GetString("backend"));
            }
            if (r.GetString("backend") == "closed/derived")
            {
                s[r.GetString("case") + " MEASURED"].emplace_back(r.GetDouble("bytes"),
                                                                 r.GetDouble("measured_busbw_GBps"));
            }
        }
        std::vector<Series> ser;
        for (auto& [k, v] : s)
        {
            ser.push_back({WriteSeries(dir, "published-" + k, v), k});
        }
        PlotBlock(gp, "published-busbw.png", "Ring AllReduce busbw: published measurements vs hockney", "bytes",
                  "busbw (GB/s)", true, true, ser);
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
                  {"experiment", "seed_claim", "judged", "measured_error", "expected_min", "expected_max", "verdict",
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
            MarkdownTable(md, o.assumptionRows,
                          {"variant", "bytes", "backend", "relaxed", "time_s", "packet_time_s", "error", "sym_error"});
            md << "\n![assumptions.png](assumptions.png)\n";
        }
    }
    md << "\n## Against published measurements\n\n" << published.note << "\n\n";
    if (!published.rows.empty())
    {
        md << "Error per size band (symmetric, predicted vs measured time):\n\n";
        MarkdownTable(md, published.bands, {"case", "band", "points", "median_sym_error", "max_sym_error"});
        md << "\n![published-busbw.png](published-busbw.png)\n\nEvery point: published.csv.\n";
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
