// SPDX-License-Identifier: GPL-2.0-only
#include "comparison-faults.h"

#include "comparison-point.h"
#include "input-error.h"
#include "units.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

namespace
{

const std::vector<std::string> kFaultTypes{"link_down", "slow_link", "pfc_storm", "lossy_link"};

std::vector<std::string>
KeysOf(const std::string& type)
{
    if (type == "link_down")
    {
        return {"type", "link", "at", "up_at", "on_down"};
    }
    if (type == "slow_link")
    {
        return {"type", "link", "at", "rate_factor", "rate"};
    }
    if (type == "lossy_link")
    {
        // No "at": the loss is on the wire from the start of the run.
        return {"type", "link", "drop_rate", "bit_error_rate"};
    }
    return {"type", "node", "at", "duration", "priority"};
}

std::string
Str(const nlohmann::json& v, const std::string& field, const std::string& what)
{
    if (!v.is_string())
    {
        throw InputError(field, "expected " + what + ", got " + v.dump());
    }
    return v.get<std::string>();
}

Time
TimeField(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_string())
    {
        throw InputError(field, "expected a time like \"20us\", got " + v.dump());
    }
    const Time t = units::ParseTime(v.get<std::string>(), field);
    if (t.IsStrictlyNegative())
    {
        throw InputError(field, "expected a time >= 0, got " + v.dump());
    }
    return t;
}

void
ParseLink(const nlohmann::json& v, const std::string& field, ScenarioFault& f)
{
    if (!v.is_array() || v.size() < 2 || v.size() > 3 || !v[0].is_string() || !v[1].is_string() ||
        (v.size() == 3 && !(v[2].is_number_integer() && v[2].get<int64_t>() >= 0)))
    {
        throw InputError(field, "expected [\"NODE_A\", \"NODE_B\"] (or with a link id, [\"NODE_A\", \"NODE_B\", 5]), "
                                "got " + v.dump());
    }
    f.linkA = v[0].get<std::string>();
    f.linkB = v[1].get<std::string>();
    if (v.size() == 3)
    {
        f.linkId = static_cast<uint32_t>(std::min<int64_t>(v[2].get<int64_t>(), UINT32_MAX));
    }
}

ScenarioFault
ParseOne(const nlohmann::json& j, const std::string& field)
{
    if (!j.is_object())
    {
        throw InputError(field, "expected a fault object {\"type\": ..., ...}, got " + j.dump());
    }
    if (!j.contains("type"))
    {
        throw InputError(field + ".type", "expected one of " + JoinNames(kFaultTypes));
    }
    ScenarioFault f;
    f.field = field;
    f.type = Str(j.at("type"), field + ".type", "one of " + JoinNames(kFaultTypes));
    if (std::find(kFaultTypes.begin(), kFaultTypes.end(), f.type) == kFaultTypes.end())
    {
        throw InputError(field + ".type", "expected one of " + JoinNames(kFaultTypes) + ", got '" + f.type + "'");
    }
    const std::vector<std::string> keys = KeysOf(f.type);
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
        {
            throw InputError(field + "." + it.key(),
                             "unknown field of a " + f.type + " fault; expected one of " + JoinNames(keys));
        }
    }
    if (j.contains("at"))
    {
        f.at = TimeField(j.at("at"), field + ".at");
    }
    if (f.type == "link_down" || f.type == "slow_link" || f.type == "lossy_link")
    {
        if (!j.contains("link"))
        {
            throw InputError(field + ".link", "expected [\"NODE_A\", \"NODE_B\"]: the link of the " + f.type);
        }
        ParseLink(j.at("link"), field + ".link", f);
    }
    if (f.type == "link_down")
    {
        if (j.contains("up_at"))
        {
            f.upAt = TimeField(j.at("up_at"), field + ".up_at");
            if (*f.upAt <= f.at)
            {
                throw InputError(field + ".up_at", "expected a time after \"at\" (" +
                                                       units::FormatSeconds(f.at.GetSeconds()) + "), got " +
                                                       j.at("up_at").dump());
            }
        }
        if (j.contains("on_down"))
        {
            const std::string mode = Str(j.at("on_down"), field + ".on_down", "reroute or blackhole");
            if (mode != "reroute" && mode != "blackhole")
            {
                throw InputError(field + ".on_down", "expected reroute or blackhole, got '" + mode + "'");
            }
            f.reroute = mode == "reroute";
        }
    }
    else if (f.type == "slow_link")
    {
        if (j.contains("rate_factor") == j.contains("rate"))
        {
            throw InputError(field + ".rate_factor", "expected one of rate_factor (0 < f <= 1) or rate");
        }
        if (j.contains("rate_factor"))
        {
            const auto& v = j.at("rate_factor");
            if (!v.is_number() || !(v.get<double>() > 0.0) || v.get<double>() > 1.0)
            {
                throw InputError(field + ".rate_factor", "expected a number 0 < f <= 1 (0.25: a x4 link at x1), got " +
                                                             v.dump());
            }
            f.rateFactor = v.get<double>();
        }
        else
        {
            const std::string rf = field + ".rate";
            f.rate = units::ParseDataRate(Str(j.at("rate"), rf, "a rate like \"25Gbps\""), rf);
            if (f.rate->GetBitRate() == 0)
            {
                throw InputError(rf, "expected a rate > 0");
            }
        }
    }
    else if (f.type == "lossy_link")
    {
        const bool drop = j.contains("drop_rate");
        const bool ber = j.contains("bit_error_rate");
        if (drop == ber)
        {
            throw InputError(field + (drop ? ".bit_error_rate" : ".drop_rate"),
                             drop ? "expected drop_rate or bit_error_rate, not both"
                                  : "expected a drop_rate (per packet) or a bit_error_rate");
        }
        const std::string rf = field + (drop ? ".drop_rate" : ".bit_error_rate");
        const auto& v = j.at(drop ? "drop_rate" : "bit_error_rate");
        // 1 would lose every packet, which no transport recovers from.
        if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() < 1))
        {
            throw InputError(rf, "expected a probability in [0, 1), got " + v.dump());
        }
        f.loss.rate = v.get<double>();
        f.loss.unit = drop ? FabricLinkLoss::Unit::PACKET : FabricLinkLoss::Unit::BIT;
    }
    else
    {
        if (!j.contains("node"))
        {
            throw InputError(field + ".node", "expected the name of the endpoint (host or gpu) whose NIC storms");
        }
        f.node = Str(j.at("node"), field + ".node", "a node name");
        if (j.contains("duration"))
        {
            f.duration = TimeField(j.at("duration"), field + ".duration");
            if (!f.duration->IsStrictlyPositive())
            {
                throw InputError(field + ".duration", "expected a time > 0");
            }
        }
        if (j.contains("priority"))
        {
            const auto& v = j.at("priority");
            if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 7)
            {
                throw InputError(field + ".priority", "expected a class 0-7, got " + v.dump());
            }
            f.priority = static_cast<uint8_t>(v.get<int64_t>());
        }
    }
    return f;
}

/// "host0, host1, ... (34 nodes; hockney topology --show=nodes)".
std::string
SomeNames(const std::vector<std::string>& names)
{
    constexpr size_t kShown = 12;
    std::string out;
    for (size_t i = 0; i < names.size() && i < kShown; ++i)
    {
        out += (i ? ", " : "") + names[i];
    }
    if (names.size() > kShown)
    {
        out += ", ... (" + std::to_string(names.size()) + " in all; hockney topology --show=nodes)";
    }
    return out;
}

uint32_t
NodeByName(const TopologyGraph& g, const std::string& name, const std::string& field)
{
    const int id = g.Description().FindNode(name);
    if (id < 0)
    {
        std::vector<std::string> names;
        for (uint32_t v = 0; v < g.NodeCount(); ++v)
        {
            names.push_back(g.Node(v).name);
        }
        throw InputError(field, "expected a node of the topology, got '" + name + "' (nodes: " + SomeNames(names) +
                                    ")");
    }
    return static_cast<uint32_t>(id);
}

uint32_t
ResolveLink(const ScenarioFault& f, const TopologyGraph& g)
{
    const std::string field = f.field + ".link";
    const uint32_t a = NodeByName(g, f.linkA, field);
    const uint32_t b = NodeByName(g, f.linkB, field);
    std::vector<uint32_t> joining;
    std::vector<std::string> ofA;
    for (uint32_t l : g.PortsOf(a))
    {
        ofA.push_back(f.linkA + "-" + g.Node(g.Peer(l, a)).name);
        if (g.Peer(l, a) == b)
        {
            joining.push_back(l);
        }
    }
    if (joining.empty())
    {
        throw InputError(field, "expected two nodes joined by a link, '" + f.linkA + "' and '" + f.linkB +
                                    "' are not (links of '" + f.linkA + "': " + SomeNames(ofA) + ")");
    }
    std::string ids;
    for (uint32_t l : joining)
    {
        ids += (ids.empty() ? "" : ", ") + std::to_string(l);
    }
    if (f.linkId)
    {
        if (std::find(joining.begin(), joining.end(), *f.linkId) == joining.end())
        {
            throw InputError(field, "expected the id of a link joining '" + f.linkA + "' and '" + f.linkB + "' (" +
                                        ids + "), got " + std::to_string(*f.linkId));
        }
        return *f.linkId;
    }
    if (joining.size() > 1)
    {
        throw InputError(field, "expected one link, '" + f.linkA + "' and '" + f.linkB + "' are joined by " +
                                    std::to_string(joining.size()) + " parallel links (ids " + ids +
                                    "); name one as a third element, [\"" + f.linkA + "\", \"" + f.linkB + "\", " +
                                    std::to_string(joining.front()) + "]");
    }
    return joining.front();
}

uint32_t
ResolveStormNode(const ScenarioFault& f, const TopologyGraph& g)
{
    const std::string field = f.field + ".node";
    const uint32_t v = NodeByName(g, f.node, field);
    std::vector<std::string> eligible;
    for (uint32_t w = 0; w < g.NodeCount(); ++w)
    {
        bool pfc = false;
        for (uint32_t l : g.PortsOf(w))
        {
            pfc = pfc || g.LinkTier(l).flowControl == TopologyFlowControl::PFC;
        }
        if (g.RankOf(w) >= 0 && pfc)
        {
            eligible.push_back(g.Node(w).name);
        }
    }
    if (std::find(eligible.begin(), eligible.end(), f.node) == eligible.end())
    {
        throw InputError(field, "expected an endpoint (host or gpu) with a PFC link, whose NIC can send pauses, got '" +
                                    f.node + "' (" + ToString(g.Node(v).kind) + (g.RankOf(v) >= 0 ? " without PFC" : "") +
                                    "); " +
                                    (eligible.empty() ? std::string("this topology has no PFC endpoint")
                                                      : "endpoints with PFC: " + SomeNames(eligible)));
    }
    return v;
}

std::string
Us(Time t)
{
    std::ostringstream os;
    os << t.GetSeconds() * 1e6 << " us";
    return os.str();
}

} // namespace

std::vector<ScenarioFault>
ParseScenarioFaults(const nlohmann::json& faults, const std::string& field)
{
    if (!faults.is_array())
    {
        throw InputError(field, "expected a list of fault objects, e.g. [{\"type\": \"link_down\", \"link\": "
                                "[\"leaf0\", \"spine0\"], \"at\": \"20us\"}]");
    }
    std::vector<ScenarioFault> out;
    for (size_t i = 0; i < faults.size(); ++i)
    {
        out.push_back(ParseOne(faults[i], field + "[" + std::to_string(i) + "]"));
    }
    return out;
}

std::vector<FabricFault>
ResolveFaults(const std::vector<ScenarioFault>& faults, const TopologyGraph& g, uint8_t defaultPriority)
{
    std::vector<FabricFault> out;
    for (const ScenarioFault& s : faults)
    {
        if (s.type == "lossy_link")
        {
            ResolveLink(s, g); // on the wires, not scheduled: ApplyLossyLinks
            continue;
        }
        FabricFault f;
        f.at = s.at;
        f.label = s.field + ": " + s.type;
        if (s.type == "link_down" || s.type == "slow_link")
        {
            f.link = ResolveLink(s, g);
            f.label += " " + g.Node(g.LinkA(f.link)).name + "-" + g.Node(g.LinkB(f.link)).name;
        }
        if (s.type == "link_down")
        {
            f.kind = FabricFault::LINK_DOWN;
            f.until = s.upAt.value_or(Time::Max());
            f.reroute = s.reroute;
        }
        else if (s.type == "slow_link")
        {
            f.kind = FabricFault::SLOW_LINK;
            const uint64_t full = g.LinkRate(f.link).GetBitRate();
            f.rate = s.rate ? *s.rate
                            : DataRate(std::max<uint64_t>(
                                  1, static_cast<uint64_t>(static_cast<double>(full) * *s.rateFactor + 0.5)));
        }
        else
        {
            f.kind = FabricFault::PFC_STORM;
            f.node = ResolveStormNode(s, g);
            f.label += " " + s.node;
            f.until = s.duration ? s.at + *s.duration : Time::Max();
            f.classMask = static_cast<uint8_t>(1u << s.priority.value_or(defaultPriority));
        }
        out.push_back(f);
    }
    return out;
}

std::vector<ResolvedLossyLink>
ResolveLossyLinks(const std::vector<ScenarioFault>& faults, const TopologyGraph& g)
{
    std::vector<ResolvedLossyLink> out;
    for (const ScenarioFault& s : faults)
    {
        if (s.type == "lossy_link")
        {
            out.push_back({ResolveLink(s, g), s.loss});
        }
    }
    return out;
}

bool
HasLossyLinks(const std::vector<ScenarioFault>& faults)
{
    return std::any_of(faults.begin(), faults.end(), [](const ScenarioFault& f) { return f.type == "lossy_link"; });
}

void
ApplyLossyLinks(const std::vector<ScenarioFault>& faults, FabricNetwork& network)
{
    for (const ResolvedLossyLink& l : ResolveLossyLinks(faults, network.GetTopology()))
    {
        InstallLinkLoss(network.GetLinkDevice(l.link, true), network.GetLinkDevice(l.link, false), l.loss);
    }
}

std::string
FaultsSeen(const std::vector<ScenarioFault>& faults, const std::vector<std::string>& modelled)
{
    std::vector<std::string> seen;
    for (const ScenarioFault& f : faults)
    {
        if (std::find(modelled.begin(), modelled.end(), f.type) != modelled.end() &&
            std::find(seen.begin(), seen.end(), f.type) == seen.end())
        {
            seen.push_back(f.type);
        }
    }
    std::string out;
    for (const std::string& t : seen)
    {
        out += (out.empty() ? "" : ",") + t;
    }
    return out.empty() ? "none" : out;
}

std::string
DescribeFaults(const std::vector<ScenarioFault>& faults)
{
    std::string out;
    for (const ScenarioFault& f : faults)
    {
        std::string d = f.type + " ";
        if (f.type == "pfc_storm")
        {
            d += f.node + " from " + Us(f.at) + (f.duration ? " for " + Us(*f.duration) : std::string(" on"));
        }
        else
        {
            d += f.linkA + "-" + f.linkB + " from " + Us(f.at);
            if (f.type == "lossy_link")
            {
                std::ostringstream r;
                r << f.loss.rate;
                d = f.type + " " + f.linkA + "-" + f.linkB +
                    (f.loss.unit == FabricLinkLoss::Unit::PACKET ? " drop_rate " : " bit_error_rate ") + r.str();
            }
            if (f.type == "link_down")
            {
                d += (f.upAt ? ", up at " + Us(*f.upAt) : std::string(", never up")) +
                     (f.reroute ? " (reroute)" : " (blackhole)");
            }
        }
        out += (out.empty() ? "" : "; ") + d;
    }
    return out;
}

} // namespace ns3
