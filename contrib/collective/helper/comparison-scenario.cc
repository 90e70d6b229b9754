// SPDX-License-Identifier: GPL-2.0-only
//
// compare's configuration: a JSON scenario applied to a ComparisonConfig
// (every field checked, an error naming it), the list flags' parsers, and
// the check of the whole configuration before anything runs.
#include "attribute-defaults.h"
#include "collective-comparison.h"
#include "comparison-congestion-control.h"
#include "comparison-backend.h"
#include "comparison-flows.h"
#include "comparison-point.h"
#include "input-error.h"
#include "rdma-congestion-control.h"
#include "result-row.h"
#include "sha256.h"
#include "topology-builder.h"
#include "topology-presets.h"
#include "units.h"

#include "ns3/scheduler.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

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
            throw InputError(where + "." + it.key(), "unknown field; expected one of " + JoinNames(known));
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

// A size: bytes as a JSON integer >= 0, or a number or string the command
// line's parser reads ("4KB", 4096.0), so that a negative or fractional
// number gets the flags' message ("expected a size like 4096, 4KB or 1MiB
// (not negative)"), not one about JSON types.
uint64_t
Size(const nlohmann::json& v, const std::string& field)
{
    if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0))
    {
        return v.get<uint64_t>();
    }
    if (!v.is_string() && !v.is_number())
    {
        throw InputError(field, "expected a size like 4096, \"4KB\" or \"1MiB\", got " + v.dump());
    }
    return units::ParseBytes(Text(v, field), field);
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
            out.push_back(Size(v[i], field + "[" + std::to_string(i) + "]"));
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

} // namespace

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
SetDependencyNotice(const std::string& text, const std::string& field, ComparisonConfig& c)
{
    if (text != "instant" && text != "message")
    {
        throw InputError(field, "expected instant or message, got '" + text + "'");
    }
    // The executor's attribute, set while the comparison runs (every
    // backend's executor, every MPI rank's).
    c.attributes.emplace_back("ns3::CollectiveExecutor::DependencyNotice", text);
}

namespace
{

// A list given as a JSON array of strings or as one "a,b" string, as the
// comma-separated text the matching flag takes.
std::string
ListText(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_array())
    {
        return String(v, field);
    }
    std::string joined;
    for (size_t i = 0; i < v.size(); ++i)
    {
        joined += (i ? "," : "") + String(v[i], field + "[" + std::to_string(i) + "]");
    }
    return joined;
}

// {"preset": P, K: V, ...} is the preset "P:K=V,..."; the preset checks its
// options (an unknown key names itself). Empty for any other topology.
std::string
TopologyPresetText(const nlohmann::json& t, const std::string& field)
{
    std::string preset;
    if (!t.is_object() || !t.contains("preset"))
    {
        return preset;
    }
    preset = String(t.at("preset"), field + ".preset");
    std::string options;
    for (auto it = t.begin(); it != t.end(); ++it)
    {
        if (it.key() == "preset")
        {
            continue;
        }
        const std::string v = Text(it.value(), field + "." + it.key());
        options += (options.empty() ? "" : ",") + it.key() + "=" + v;
    }
    if (!options.empty())
    {
        preset += (preset.find(':') == std::string::npos ? ":" : ",") + options;
    }
    return preset;
}

void
ApplyTopology(const nlohmann::json& t, const std::string& s, ComparisonConfig& c)
{
    if (!t.is_string() && !t.is_object())
    {
        throw InputError(s + ".topology", "expected a preset name or a topology object, got " + t.dump());
    }
    const std::string preset = TopologyPresetText(t, s + ".topology");
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

// What is run: collective, algorithm, ranks and sizes.
void
ApplyCollective(const nlohmann::json& j, const std::string& s, ComparisonConfig& c)
{
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
    // NCCL's endpoint model (nccl-protocol.h).
    if (j.contains("protocol"))
    {
        c.protocol = String(j.at("protocol"), s + ".protocol");
        ParseNcclProtocolChoice(c.protocol, s + ".protocol");
    }
    if (j.contains("launch_overhead"))
    {
        c.launchOverhead = units::ParseTime(Text(j.at("launch_overhead"), s + ".launch_overhead"), s + ".launch_overhead");
    }
    if (j.contains("dependencies"))
    {
        SetDependencyNotice(String(j.at("dependencies"), s + ".dependencies"), s + ".dependencies", c);
    }
    if (j.contains("ranks"))
    {
        c.ranks = Count(j.at("ranks"), s + ".ranks", 2);
    }
    if (j.contains("sizes"))
    {
        c.sizes = Sizes(j.at("sizes"), s + ".sizes");
    }
}

// How it is run: channels, slices, chunk_bytes, root, gpus_per_node and seed.
void
ApplyRunShape(const nlohmann::json& j, const std::string& s, ComparisonConfig& c)
{
    if (j.contains("channels"))
    {
        c.channels = Count(j.at("channels"), s + ".channels", 1);
    }
    if (j.contains("slices"))
    {
        c.slices = Count(j.at("slices"), s + ".slices", 1);
    }
    if (j.contains("chunk_bytes"))
    {
        c.chunkBytes = Size(j.at("chunk_bytes"), s + ".chunk_bytes");
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
}

void
ApplyModel(const nlohmann::json& m, const std::string& f, ComparisonConfig& c)
{
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

// The fabric's packet knobs: ideal, header and MTU, flow and congestion control.
void
ApplyFabricPackets(const nlohmann::json& fb, const std::string& f, ComparisonConfig& c)
{
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
        ApplyCongestionControl(fb.at("congestion_control"), f + ".congestion_control", c.fabric);
    }
    if (fb.contains("nic"))
    {
        ApplyNicPreset(fb.at("nic"), f + ".nic", c.fabric);
    }
    if (fb.contains("ecn_marking"))
    {
        // A named table of the switches' ECN marker (FabricEcnMarker::Table):
        // the same attribute a scenario's "attributes" or a --ns3:: flag sets,
        // under the name the fabric documentation uses.
        const std::string field = f + ".ecn_marking";
        const std::string name = Text(fb.at("ecn_marking"), field);
        const std::map<std::string, std::string> tables{{"per-rate", "PerRate"}, {"paper", "Paper"}, {"linear", "Linear"}};
        const auto it = tables.find(name);
        if (it == tables.end())
        {
            throw InputError(field, "expected per-rate, paper or linear, got '" + name + "'");
        }
        c.attributes.emplace_back("ns3::FabricEcnMarker::Table", it->second);
    }
}

// The fabric's run limits and transfer units.
/// The network transfer unit against the topology and the other outputs:
/// a multiple of the NICs' path MTU (at most 256 of them: the FabricHeader's
/// link-packet count), no PCIe unit with it, no pcap (a unit is not a frame
/// that exists on the wire).
void
CheckNetworkTransferUnit(const ComparisonConfig& c)
{
    const uint32_t unit = c.fabric.networkTransferUnitBytes;
    const std::string field = c.FieldName("fabric.network_transfer_unit_bytes", "--network-transfer-unit");
    if (!c.pcapDir.empty())
    {
        throw InputError(field, "expected 0 with --pcap (a unit is one simulated packet for several frames on the "
                                "wire: its pcap record would be a frame that does not exist), got " +
                                    std::to_string(unit));
    }
    if (c.fabric.PcieUnit() != 0)
    {
        throw InputError(field, "expected 0 with a PCIe transfer unit (a NIC behind PCIe sends the PCIe unit as its "
                                "packet), got " + std::to_string(unit));
    }
    if (!c.topology)
    {
        return;
    }
    const uint32_t m = FabricNetwork::DeriveNetworkLinkPacketBytes(ApplyFabricKnobs(*c.topology, c.fabric));
    if (unit < m || unit % m != 0 || unit / m > 256)
    {
        throw InputError(field, "expected 0 or a multiple of the NICs' path MTU " + std::to_string(m) +
                                    " B up to 256 of them (" + std::to_string(256 * m) + " B), got " +
                                    std::to_string(unit));
    }
}

void
ApplyFabricLimits(const nlohmann::json& fb, const std::string& f, ComparisonConfig& c)
{
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
    if (fb.contains("network_transfer_unit_bytes"))
    {
        c.fabric.networkTransferUnitBytes = static_cast<uint32_t>(
            std::min<uint64_t>(Count(fb.at("network_transfer_unit_bytes"), f + ".network_transfer_unit_bytes", 0),
                               UINT32_MAX)); // checked against the topology below
    }
    if (fb.contains("wall_limit"))
    {
        c.fabric.wallLimit = units::ParseWallClockLimit(Text(fb.at("wall_limit"), f + ".wall_limit"), f + ".wall_limit");
        if (c.fabric.wallLimit.IsStrictlyNegative())
        {
            throw InputError(f + ".wall_limit", "expected a wall-clock time >= 0");
        }
    }
    if (fb.contains("scheduler"))
    {
        c.fabric.scheduler = Text(fb.at("scheduler"), f + ".scheduler");
    }
    if (fb.contains("partition"))
    {
        c.fabric.partition = Text(fb.at("partition"), f + ".partition");
    }
}

void
ApplyFabric(const nlohmann::json& fb, const std::string& f, ComparisonConfig& c)
{
    CheckKeys(fb, f,
              {"ideal", "header_bytes", "mtu_bytes", "flow_control", "congestion_control", "nic", "ecn_marking",
               "time_limit", "wall_limit", "scheduler", "partition", "transfer_unit_bytes", "pcie_transfer_unit_bytes",
               "network_transfer_unit_bytes", "faults"});
    ApplyFabricPackets(fb, f, c);
    ApplyFabricLimits(fb, f, c);
    if (fb.contains("faults"))
    {
        c.fabric.faults = ParseScenarioFaults(fb.at("faults"), f + ".faults");
    }
    // The ideal fabric is the cross-check's: no congestion control and the
    // derived NICs (headers in a tag, no PCIe latency); a congestion control
    // or NIC preset named with it would be silently dropped.
    if (c.fabric.ideal)
    {
        for (const char* key : {"congestion_control", "nic"})
        {
            if (fb.contains(key))
            {
                throw InputError(f + "." + key, "expected no " + std::string(key) +
                                                    " with fabric.ideal (the ideal fabric has no congestion "
                                                    "control and derived NICs)");
            }
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
void
RecordScenarioFields(const nlohmann::json& j, ComparisonConfig& c)
{
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

// "attributes": {"ns3::Dcqcn::G": "0.00390625", ...}: checked here like a
// --ns3::Dcqcn::G=... flag, kept in the config and set as defaults only while
// its comparison runs (RunComparison), so that they do not leak into the runs
// after it (validate runs every experiment in one process).
void
ApplyAttributes(const nlohmann::json& a, const std::string& f, ComparisonConfig& c)
{
    if (!a.is_object())
    {
        throw InputError(f, "expected an object of \"ns3::Type::Attribute\": value");
    }
    for (auto it = a.begin(); it != a.end(); ++it)
    {
        const std::string field = f + "[\"" + it.key() + "\"]";
        const std::string value = AttributeText(it.value(), field);
        CheckAttributeDefault(it.key(), value, field);
        for (const auto& [name, earlier] : c.attributes)
        {
            if (name == it.key())
            {
                throw InputError(field, "expected one value of " + name + ": fabric.ecn_marking sets it (" +
                                            earlier + ")");
            }
        }
        c.attributes.emplace_back(it.key(), value);
    }
}

} // namespace

// The sections are applied in a fixed order, so a scenario with several
// errors always reports the same first one.
void
ApplyScenario(const nlohmann::json& j, ComparisonConfig& c)
{
    const std::string s = "scenario";
    CheckKeys(j,
              s,
              {"topology", "collective", "algorithm", "protocol", "launch_overhead", "dependencies", "ranks", "sizes", "backends",
               "params", "channels", "slices", "chunk_bytes", "root", "gpus_per_node", "seed", "model", "fabric",
               "attributes", "flows", "flows_csv"});
    if (j.contains("params"))
    {
        c.params = ParseParameterSources(ListText(j.at("params"), s + ".params"), s + ".params");
    }
    if (j.contains("topology"))
    {
        ApplyTopology(j.at("topology"), s, c);
    }
    ApplyCollective(j, s, c);
    if (j.contains("backends"))
    {
        c.backends = ParseBackends(ListText(j.at("backends"), s + ".backends"), s + ".backends");
        c.backendsGiven = true;
    }
    ApplyRunShape(j, s, c);
    if (j.contains("model"))
    {
        ApplyModel(j.at("model"), s + ".model", c);
    }
    if (j.contains("fabric"))
    {
        ApplyFabric(j.at("fabric"), s + ".fabric", c);
    }
    if (j.contains("attributes"))
    {
        ApplyAttributes(j.at("attributes"), s + ".attributes", c);
    }
    ApplyScenarioFlows(j, c);
    CheckCongestionControlAttributes(c);
    RecordScenarioFields(j, c);
}

std::string
ReadScenarioText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw InputError("--scenario", "expected a readable JSON file, cannot open '" + path + "'");
    }
    std::stringstream content;
    content << in.rdbuf();
    // The outputs name the file and hash what it held (one read: the hash is
    // of the text the run parsed), so a result can be traced to the
    // scenario even after the file is edited.
    OutputProvenance().scenarioFile = path;
    OutputProvenance().scenarioSha256 = Sha256Hex(content.str());
    return content.str();
}

void
ApplyScenarioFile(const std::string& path, ComparisonConfig& config)
{
    const std::string text = ReadScenarioText(path);
    nlohmann::json j;
    try
    {
        j = nlohmann::json::parse(text);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw InputError("--scenario", "expected valid JSON in '" + path + "' (" + e.what() + ")");
    }
    const size_t slash = path.rfind('/');
    config.scenarioDirectory = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
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
        const std::string field = c.FieldName("backends", "--backends");
        if (LookUpBackend(b, field).NeedsTopology() && !c.topology)
        {
            throw InputError(field, "backend '" + b + "' needs a topology (--topology or scenario.topology)");
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
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(c.fabric.scheduler, &tid) || !tid.IsChildOf(Scheduler::GetTypeId()) ||
            !tid.HasConstructor())
        {
            throw InputError(c.FieldName("fabric.scheduler", "--scheduler"),
                             "expected an ns-3 event scheduler (ns3::RingCalendarScheduler, ns3::LazyHeapScheduler, "
                             "ns3::MapScheduler, ns3::HeapScheduler, ns3::CalendarScheduler, ns3::PriorityQueueScheduler, "
                             "ns3::ListScheduler), got '" + c.fabric.scheduler + "'");
        }
    }
    CheckPartitionMode(c.fabric.partition, c.FieldName("fabric.partition", "--partition"));
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
    if (c.fabric.networkTransferUnitBytes != 0)
    {
        CheckNetworkTransferUnit(c);
    }
    if (c.topology && !c.fabric.faults.empty())
    {
        // Names and links against this topology (the storm's class does not
        // matter here): an error names the fault's field.
        const TopologyGraph graph(*c.topology);
        ResolveFaults(c.fabric.faults, graph, 0);
    }
    if (NormalizeAlgorithmName(c.algorithm) != "auto")
    {
        CanonicalAlgorithm(c.collective, c.algorithm, c.FieldName("algorithm", "--algorithm"));
    }
    if (!c.protocol.empty())
    {
        ParseNcclProtocolChoice(c.protocol, c.FieldName("protocol", "--protocol"));
    }
    if (c.launchOverhead.IsStrictlyNegative())
    {
        throw InputError(c.FieldName("launch_overhead", "--launch-overhead"), "expected a time >= 0");
    }
    if (!c.launchOverhead.IsZero() && c.protocol.empty() && NormalizeAlgorithmName(c.algorithm) != "auto")
    {
        // The launch is part of NCCL's endpoint model, which only a protocol
        // or NCCL's choice switches on: never silently ignored.
        throw InputError(c.FieldName("launch_overhead", "--launch-overhead"),
                         "applies to NCCL's endpoint model: expected a protocol or algorithm auto with it");
    }
}

} // namespace ns3
