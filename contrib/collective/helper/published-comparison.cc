// SPDX-License-Identifier: GPL-2.0-only
#include "published-comparison.h"

#include "accuracy-experiment.h"
#include "accuracy-metric.h"
#include "collective-algorithm-registry.h"
#include "collective-bandwidth.h"
#include "collective-comparison.h"
#include "input-error.h"
#include "measurement-reader.h"
#include "nccl-protocol.h"
#include "units.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace ns3
{

namespace
{

// --- the cases file ---

/// "FILE: cases[0]" + "ranks" -> "FILE: cases[0].ranks"; at the top level
/// ("FILE: ") the key follows directly.
std::string
FieldPath(const std::string& where, const std::string& key)
{
    return where.back() == ' ' ? where + key : where + "." + key;
}

void
RejectUnknown(const nlohmann::json& j, const std::set<std::string>& known, const std::string& where)
{
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if (!known.count(it.key()))
        {
            throw InputError(FieldPath(where, it.key()), "unknown field");
        }
    }
}

const nlohmann::json&
Required(const nlohmann::json& j, const std::string& key, const std::string& where, const std::string& expected)
{
    if (!j.contains(key))
    {
        throw InputError(FieldPath(where, key), "expected " + expected + ", field missing");
    }
    return j.at(key);
}

std::string
StringField(const nlohmann::json& j, const std::string& key, const std::string& where)
{
    const nlohmann::json& v = Required(j, key, where, "a string");
    if (!v.is_string() || v.get<std::string>().empty())
    {
        throw InputError(where + "." + key, "expected a non-empty string, got " + v.dump());
    }
    return v.get<std::string>();
}

uint32_t
CountField(const nlohmann::json& j, const std::string& key, const std::string& where)
{
    const nlohmann::json& v = Required(j, key, where, "a positive integer");
    if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > 1000000)
    {
        throw InputError(where + "." + key, "expected an integer from 1 to 1000000, got " + v.dump());
    }
    return static_cast<uint32_t>(v.get<int64_t>());
}

/// An optional size ("4MB", "1MiB"); absent: 0.
uint64_t
SizeField(const nlohmann::json& j, const std::string& key, const std::string& where)
{
    return j.contains(key) ? units::ParseBytes(StringField(j, key, where), where + "." + key) : 0;
}

std::vector<std::string>
BackendsField(const nlohmann::json& j, const std::string& where)
{
    const nlohmann::json& v = Required(j, "backends", where, "a list of backends");
    if (!v.is_array() || v.empty())
    {
        throw InputError(where + ".backends", "expected a non-empty list of backends, got " + v.dump());
    }
    std::string joined;
    for (size_t i = 0; i < v.size(); ++i)
    {
        if (!v[i].is_string())
        {
            throw InputError(where + ".backends[" + std::to_string(i) + "]", "expected a string, got " + v[i].dump());
        }
        joined += (i ? "," : "") + v[i].get<std::string>();
    }
    return ParseBackends(joined, where + ".backends");
}

/// "algorithm": a name, "auto" (NCCL's choice per size, as a run with
/// NCCL_ALGO unset makes it), or a list of names of which the first this
/// build knows is used (["nvls", "ring"]: NVLS once it is registered), so
/// that the cases follow the algorithms the build has.
std::string
AlgorithmField(const nlohmann::json& j, CollectiveKind collective, const std::string& where)
{
    const nlohmann::json& v = Required(j, "algorithm", where, "a name or a list of names");
    if (!v.is_array())
    {
        const std::string name = StringField(j, "algorithm", where);
        // "auto": NCCL's choice per size (compare's --algorithm=auto), what
        // a log run with NCCL's default algorithm selection measured.
        if (NormalizeAlgorithmName(name) != "auto")
        {
            CanonicalAlgorithm(collective, name, where + ".algorithm");
        }
        return name;
    }
    std::string tried;
    for (size_t i = 0; i < v.size(); ++i)
    {
        if (!v[i].is_string())
        {
            throw InputError(where + ".algorithm[" + std::to_string(i) + "]", "expected a string, got " + v[i].dump());
        }
        if (CollectiveAlgorithmRegistry::Find(collective, v[i].get<std::string>()))
        {
            return v[i].get<std::string>();
        }
        tried += (tried.empty() ? "" : ", ") + v[i].get<std::string>();
    }
    std::string known;
    for (const std::string& a : AlgorithmsOf(collective))
    {
        known += (known.empty() ? "" : ", ") + a;
    }
    throw InputError(where + ".algorithm", "expected a list with at least one of " + known + ", got [" + tried + "]");
}

/// The optional "fidelity" object of a case: {model, goal, sizes, packet_up_to}.
PublishedFidelity
ParseFidelity(const nlohmann::json& j, const PublishedCase& c, const std::string& where)
{
    if (!j.is_object())
    {
        throw InputError(where, "expected an object {model, goal, sizes, packet_up_to}");
    }
    RejectUnknown(j, {"model", "goal", "sizes", "packet_up_to", "why"}, where);
    PublishedFidelity f;
    f.present = true;
    f.model = StringField(j, "model", where);
    bool known = false;
    for (const PublishedModel& m : c.models)
    {
        known = known || m.label == f.model;
    }
    if (!known)
    {
        throw InputError(where + ".model", "expected the label of one of the case's models, got '" + f.model + "'");
    }
    f.goal = j.contains("goal") ? StringField(j, "goal", where) : "";
    if (f.goal != "" && f.goal != "nvswitch-ring" && f.goal != "multi-node")
    {
        throw InputError(where + ".goal", "expected nvswitch-ring or multi-node, got '" + f.goal + "'");
    }
    const nlohmann::json& sizes = Required(j, "sizes", where, "a list of sizes");
    if (!sizes.is_array() || sizes.empty())
    {
        throw InputError(where + ".sizes", "expected a non-empty list of sizes, got " + sizes.dump());
    }
    f.packetUpTo = j.contains("packet_up_to") ? SizeField(j, "packet_up_to", where) : UINT64_MAX;
    for (size_t i = 0; i < sizes.size(); ++i)
    {
        const std::string f_i = where + ".sizes[" + std::to_string(i) + "]";
        if (!sizes[i].is_string())
        {
            throw InputError(f_i, "expected a size such as \"4MiB\", got " + sizes[i].dump());
        }
        f.sizes.push_back(units::ParseBytes(sizes[i].get<std::string>(), f_i));
    }
    return f;
}

PublishedModel
ParseModel(const nlohmann::json& j, CollectiveKind collective, const std::string& where)
{
    if (!j.is_object())
    {
        throw InputError(where, "expected an object {label, algorithm, channels, backends, ...}");
    }
    RejectUnknown(j,
                  {"label", "algorithm", "channels", "backends", "packet_up_to", "packet_up_to_full", "protocol",
                   "launch_overhead", "net_slots", "net_credit_delay", "why"},
                  where);
    PublishedModel m;
    m.label = StringField(j, "label", where);
    m.algorithm = AlgorithmField(j, collective, where);
    m.channels = j.contains("channels") ? CountField(j, "channels", where) : 1;
    m.backends = BackendsField(j, where);
    m.packetUpTo = SizeField(j, "packet_up_to", where);
    m.packetUpToFull = SizeField(j, "packet_up_to_full", where);
    if (j.contains("protocol"))
    {
        m.protocol = StringField(j, "protocol", where);
        ParseNcclProtocolChoice(m.protocol, where + ".protocol");
    }
    if (j.contains("launch_overhead"))
    {
        m.launchOverhead =
            units::ParseTime(StringField(j, "launch_overhead", where), where + ".launch_overhead");
        if (m.launchOverhead.IsStrictlyNegative() || m.protocol.empty())
        {
            throw InputError(where + ".launch_overhead", "expected a time >= 0 with a protocol");
        }
    }
    if (j.contains("net_slots"))
    {
        // NCCL_STEPS slots for each NCCL channel a schedule channel stands
        // for, up to NCCL's 64 channels (MAXCHANNELS); slots act only on
        // NCCL's endpoint model, so they need a protocol.
        const nlohmann::json& v = j.at("net_slots");
        const int64_t n = v.is_number_integer() ? v.get<int64_t>() : 0;
        if (n < kNcclSteps || n > 64 * kNcclSteps || n % kNcclSteps != 0 || m.protocol.empty())
        {
            throw InputError(where + ".net_slots",
                             "expected a multiple of " + std::to_string(kNcclSteps) + " from " +
                                 std::to_string(kNcclSteps) + " to " + std::to_string(64 * kNcclSteps) +
                                 " (NCCL's slots x channels) with a protocol, got " + v.dump());
        }
        m.netSlots = static_cast<uint32_t>(n);
    }
    if (j.contains("net_credit_delay"))
    {
        m.netCreditDelay = units::ParseTime(StringField(j, "net_credit_delay", where), where + ".net_credit_delay");
        if (m.netSlots == 0)
        {
            throw InputError(where + ".net_credit_delay", "expected only with net_slots (the slots' credit)");
        }
    }
    return m;
}

PublishedCase
ParseCase(const nlohmann::json& j, const std::string& where)
{
    if (!j.is_object())
    {
        throw InputError(where, "expected an object {name, measurement, topology, collective, ranks, models}");
    }
    RejectUnknown(j, {"name", "measurement", "topology", "collective", "ranks", "models", "fidelity", "why"}, where);
    PublishedCase c;
    c.name = StringField(j, "name", where);
    c.measurement = StringField(j, "measurement", where);
    c.topology = StringField(j, "topology", where);
    ComparisonConfig probe;
    try
    {
        ApplyScenario(nlohmann::json{{"topology", c.topology}}, probe);
    }
    catch (const InputError& e)
    {
        throw InputError(where + ".topology", e);
    }
    c.collective = ParseCollectiveKind(StringField(j, "collective", where), where + ".collective");
    c.ranks = CountField(j, "ranks", where);
    // A case the topology cannot hold is an error in the file, not a "not
    // run" note in the report.
    uint32_t endpoints = 0;
    for (const auto& node : probe.topology->nodes)
    {
        endpoints += IsEndpointKind(node.kind) ? 1 : 0;
    }
    if (c.ranks > endpoints)
    {
        throw InputError(where + ".ranks", "expected at most the " + std::to_string(endpoints) + " endpoints of " +
                                               c.topology + ", got " + std::to_string(c.ranks));
    }
    const nlohmann::json& models = Required(j, "models", where, "a list of models");
    if (!models.is_array() || models.empty())
    {
        throw InputError(where + ".models", "expected a non-empty list of models, got " + models.dump());
    }
    for (size_t k = 0; k < models.size(); ++k)
    {
        c.models.push_back(ParseModel(models[k], c.collective, where + ".models[" + std::to_string(k) + "]"));
    }
    if (j.contains("fidelity"))
    {
        c.fidelity = ParseFidelity(j.at("fidelity"), c, where + ".fidelity");
    }
    return c;
}

// --- running them ---

/// Sizes from here on are "large" (bandwidth only), below 1 MB "small"
/// (latency and protocol): the regimes of the alpha-beta accuracy bounds.
std::string
Band(uint64_t bytes)
{
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

/// Calibrated parameters come from a packet sweep around each message size of
/// the schedule: affordable up to 16 MiB on 2 cores.
constexpr uint64_t kCalibratedUpTo = 16777216;

std::vector<uint64_t>
SizesUpTo(const std::vector<uint64_t>& sizes, uint64_t upTo)
{
    std::vector<uint64_t> out;
    for (uint64_t b : sizes)
    {
        if (b <= upTo)
        {
            out.push_back(b);
        }
    }
    return out;
}

/// --full: the closed form with calibrated parameters; a failure is named in
/// \p note, the other answers still count.
std::vector<ResultRow>
CalibratedRows(const ComparisonConfig& c,
               const std::string& what,
               std::ostringstream& note,
               const std::function<void(const std::string&)>& progress)
{
    ComparisonConfig cal = c;
    cal.sizes = SizesUpTo(c.sizes, kCalibratedUpTo);
    cal.backends = {"closed"};
    cal.params = {"calibrated"};
    try
    {
        if (!cal.sizes.empty())
        {
            return RunComparison(cal, progress);
        }
    }
    catch (const std::exception& ex)
    {
        note << what << ": calibrated parameters not available (" << ex.what() << "). ";
    }
    return {};
}

/// Every answer of one model: the analytic backends, under --full the
/// calibrated closed form, and the packet fabric (params "fabric") up to the
/// model's limit. Throws when a run fails.
std::vector<ResultRow>
ModelRows(const PublishedCase& pc,
          const PublishedModel& pm,
          const ComparisonConfig& c,
          bool full,
          std::ostringstream& note,
          const std::function<void(const std::string&)>& progress)
{
    std::vector<ResultRow> rows = RunComparison(c, progress);
    if (full)
    {
        auto more = CalibratedRows(c, pc.name + ", " + pm.label, note, progress);
        rows.insert(rows.end(), more.begin(), more.end());
    }
    const uint64_t upTo = full ? pm.packetUpToFull : pm.packetUpTo;
    ComparisonConfig packet = c;
    packet.sizes = SizesUpTo(c.sizes, upTo);
    if (!packet.sizes.empty())
    {
        packet.backends = {"packet"};
        packet.params = {"derived"};
        if (progress)
        {
            progress("published: " + pc.name + ", " + pm.label + ": packet runs up to " + units::FormatBytes(upTo));
        }
        for (ResultRow& r : RunComparison(packet, progress))
        {
            r.Set("params", "fabric");
            rows.push_back(r);
        }
    }
    return rows;
}

using BandErrors = std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>>;

/// One point per answer against the measurement; collects its band's errors.
void
AddPoints(const PublishedCase& pc,
          const PublishedModel& pm,
          const std::vector<ResultRow>& rows,
          const std::map<uint64_t, double>& measured,
          PublishedComparison& out,
          BandErrors& bandErrors)
{
    for (const ResultRow& r : rows)
    {
        const uint64_t bytes = static_cast<uint64_t>(r.GetDouble("bytes"));
        const double m = measured.at(bytes);
        const double p = r.GetDouble("time_s");
        const std::string backend = pm.label + " " + r.GetString("backend") + "/" + r.GetString("params");
        ResultRow o;
        o.Set("case", pc.name)
            .Set("topology", pc.topology)
            .Set("ranks", static_cast<uint64_t>(pc.ranks))
            .Set("bytes", bytes)
            .Set("backend", backend)
            .Set("measured_time_s", m)
            .Set("measured_busbw_GBps", BusBandwidth(pc.collective, pc.ranks, bytes, SecondsToTime(m)) / 1e9)
            .Set("time_s", p)
            .Set("busbw_GBps", r.GetDouble("busbw_GBps"))
            .Set("error", (p - m) / m)
            .Set("sym_error", SymmetricError(p, m))
            .Set("band", Band(bytes));
        bandErrors[{pc.name, backend, Band(bytes)}].push_back(SymmetricError(p, m));
        out.rows.push_back(o);
    }
}

/// Every model of one case; a model that fails is named in \p note (reported,
/// not hidden) and leaves no points.
void
RunCase(const PublishedCase& pc,
        const std::string& measuredDir,
        bool full,
        PublishedComparison& out,
        BandErrors& bandErrors,
        std::ostringstream& note,
        const std::function<void(const std::string&)>& progress)
{
    const std::string path = measuredDir + "/" + pc.measurement;
    if (!std::filesystem::exists(path))
    {
        note << pc.measurement << " absent, skipped. ";
        return;
    }
    const std::map<uint64_t, double> measured = PublishedMeasuredTimes(path, pc.collective);
    if (measured.empty())
    {
        note << pc.measurement << ": no out-of-place " << ToString(pc.collective) << " rows. ";
        return;
    }
    for (const PublishedModel& pm : pc.models)
    {
        const ComparisonConfig c = PublishedModelConfig(pc, pm, measured);
        if (progress)
        {
            progress("published: " + pc.name + ", " + pm.label + " (" + std::to_string(c.sizes.size()) + " sizes, " +
                     pc.topology + ")");
        }
        std::vector<ResultRow> rows;
        try
        {
            rows = ModelRows(pc, pm, c, full, note, progress);
        }
        catch (const std::exception& ex)
        {
            note << pc.name << ", " << pm.label << ": not run (" << ex.what() << "). ";
            continue;
        }
        AddPoints(pc, pm, rows, measured, out, bandErrors);
    }
}

} // namespace

std::map<uint64_t, double>
PublishedMeasuredTimes(const std::string& path, CollectiveKind collective)
{
    const MeasurementSet set = ReadMeasurementFile(path);
    std::map<uint64_t, double> measured;
    for (const auto& s : set.samples)
    {
        if (!s.inPlace && s.collective == ToString(collective) && s.timeS > 0 && !measured.count(s.bytes))
        {
            measured[s.bytes] = s.timeS;
        }
    }
    return measured;
}

ComparisonConfig
PublishedModelConfig(const PublishedCase& pc, const PublishedModel& pm, const std::map<uint64_t, double>& measured)
{
    ComparisonConfig c;
    ApplyScenario(nlohmann::json{{"topology", pc.topology}}, c);
    c.collective = pc.collective;
    c.ranks = pc.ranks;
    c.algorithm = pm.algorithm;
    c.channels = pm.channels;
    c.protocol = pm.protocol;
    c.launchOverhead = pm.launchOverhead;
    if (pm.netSlots > 0)
    {
        // The NCCL endpoint reads its slots from the executor's attributes
        // in force (MakeNcclEndpoint), so the closed form prices what the
        // executor runs; RunComparison sets these only while it runs c.
        c.attributes.emplace_back("ns3::CollectiveExecutor::NetSlots", std::to_string(pm.netSlots));
        c.attributes.emplace_back("ns3::CollectiveExecutor::NetCreditDelay",
                                  std::to_string(pm.netCreditDelay.GetPicoSeconds()) + "ps");
    }
    c.sizes.clear();
    for (const auto& [b, t] : measured)
    {
        // Enough bytes to cut into every message of the schedule.
        if (b >= static_cast<uint64_t>(2 * pc.ranks * pm.channels * 8))
        {
            c.sizes.push_back(b);
        }
    }
    // Packet level is out of reach for most of these sizes (a GB allreduce on
    // 8-64 NVLink GPUs takes hours on 2 cores): the analytic answers with the
    // derived parameters, packet runs only up to the case's limit.
    c.backends = pm.backends;
    c.params = {"derived"};
    return c;
}

std::vector<PublishedCase>
ParsePublishedCases(const nlohmann::json& j, const std::string& file)
{
    if (!j.is_object())
    {
        throw InputError(file, "expected a JSON object {\"cases\": [...]}");
    }
    RejectUnknown(j, {"cases", "why"}, file + ": ");
    const nlohmann::json& cases = Required(j, "cases", file + ": ", "a list of cases");
    if (!cases.is_array() || cases.empty())
    {
        throw InputError(file + ": cases", "expected a non-empty list of cases, got " + cases.dump());
    }
    std::vector<PublishedCase> out;
    for (size_t i = 0; i < cases.size(); ++i)
    {
        out.push_back(ParseCase(cases[i], file + ": cases[" + std::to_string(i) + "]"));
    }
    return out;
}

std::vector<PublishedCase>
LoadPublishedCases(const std::string& path)
{
    return ParsePublishedCases(ReadValidationJson(path), path);
}

PublishedComparison
RunPublishedComparison(const std::vector<PublishedCase>& cases,
                       const std::string& measuredDir,
                       bool full,
                       std::function<void(const std::string&)> progress)
{
    PublishedComparison out;
    if (!std::filesystem::is_directory(measuredDir))
    {
        out.note = "skipped: " + measuredDir + " is absent (the published measurements are read at run time, never "
                                               "copied into the project)";
        return out;
    }
    out.available = true;
    BandErrors bandErrors;
    std::ostringstream note;
    for (const PublishedCase& pc : cases)
    {
        RunCase(pc, measuredDir, full, out, bandErrors, note, progress);
    }
    for (const auto& [key, v] : bandErrors)
    {
        ResultRow b;
        b.Set("case", std::get<0>(key))
            .Set("backend", std::get<1>(key))
            .Set("band", std::get<2>(key))
            .Set("points", static_cast<uint64_t>(v.size()))
            .Set("median_sym_error", MedianOf(v))
            .Set("max_sym_error", *std::max_element(v.begin(), v.end()));
        out.bands.push_back(b);
    }
    out.note = note.str() + "Read at run time from " + measuredDir + ".";
    return out;
}

} // namespace ns3
