// SPDX-License-Identifier: GPL-2.0-only
#include "topology-description.h"

#include "input-error.h"
#include "units.h"

#include "ns3/log.h"

#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyTopologyDescription");

namespace
{

[[noreturn]] void
Fail(const std::string& field, const std::string& what)
{
    throw InputError(field, "expected " + what);
}

std::string
Quote(const std::string& s)
{
    return "'" + s + "'";
}

// A link's lane rate: core's rate units, and more than zero (a zero rate
// never finishes a packet).
DataRate
ParseLaneRate(const std::string& text, const std::string& field)
{
    const DataRate rate = units::ParseDataRate(text, field);
    if (rate.GetBitRate() == 0)
    {
        Fail(field, "a positive rate, got " + Quote(text));
    }
    return rate;
}

const nlohmann::json&
Member(const nlohmann::json& obj, const std::string& key, const std::string& path)
{
    auto it = obj.find(key);
    if (it == obj.end())
    {
        Fail(path.empty() ? key : path + "." + key, "a value (field missing)");
    }
    return *it;
}

std::string
GetString(const nlohmann::json& obj, const std::string& key, const std::string& path)
{
    const auto& v = Member(obj, key, path);
    if (!v.is_string())
    {
        Fail(path + "." + key, "a string");
    }
    return v.get<std::string>();
}

std::string
GetStringOr(const nlohmann::json& obj,
            const std::string& key,
            const std::string& path,
            const std::string& fallback)
{
    return obj.contains(key) ? GetString(obj, key, path) : fallback;
}

uint64_t
GetUint(const nlohmann::json& obj, const std::string& key, const std::string& path)
{
    const auto& v = Member(obj, key, path);
    if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0))
    {
        Fail(path + "." + key, "a non-negative integer");
    }
    return v.get<uint64_t>();
}

uint64_t
GetUintOr(const nlohmann::json& obj, const std::string& key, const std::string& path, uint64_t fb)
{
    return obj.contains(key) ? GetUint(obj, key, path) : fb;
}

bool
GetBoolOr(const nlohmann::json& obj, const std::string& key, const std::string& path, bool fb)
{
    if (!obj.contains(key))
    {
        return fb;
    }
    const auto& v = obj.at(key);
    if (!v.is_boolean())
    {
        Fail(path + "." + key, "true or false");
    }
    return v.get<bool>();
}

const nlohmann::json&
GetArray(const nlohmann::json& obj, const std::string& key)
{
    const auto& v = Member(obj, key, "");
    if (!v.is_array())
    {
        Fail(key, "an array");
    }
    return v;
}

std::string
RateText(DataRate r)
{
    return std::to_string(r.GetBitRate()) + "bps";
}

std::string
TimeText(Time t)
{
    return std::to_string(t.GetPicoSeconds()) + "ps";
}

} // namespace

std::string
ToString(TopologyFlowControl fc)
{
    switch (fc)
    {
    case TopologyFlowControl::NONE:
        return "none";
    case TopologyFlowControl::PFC:
        return "pfc";
    case TopologyFlowControl::CREDIT:
        return "credit";
    }
    return "none";
}

std::string
ToString(TopologyNodeKind kind)
{
    switch (kind)
    {
    case TopologyNodeKind::GPU:
        return "gpu";
    case TopologyNodeKind::NIC:
        return "nic";
    case TopologyNodeKind::HOST:
        return "host";
    case TopologyNodeKind::SWITCH:
        return "switch";
    }
    return "switch";
}

TopologyFlowControl
ParseTopologyFlowControl(const std::string& text, const std::string& field)
{
    if (text == "none")
    {
        return TopologyFlowControl::NONE;
    }
    if (text == "pfc")
    {
        return TopologyFlowControl::PFC;
    }
    if (text == "credit")
    {
        return TopologyFlowControl::CREDIT;
    }
    Fail(field, "none, pfc or credit, got " + Quote(text));
}

TopologyNodeKind
ParseTopologyNodeKind(const std::string& text, const std::string& field)
{
    if (text == "gpu")
    {
        return TopologyNodeKind::GPU;
    }
    if (text == "nic")
    {
        return TopologyNodeKind::NIC;
    }
    if (text == "host")
    {
        return TopologyNodeKind::HOST;
    }
    if (text == "switch")
    {
        return TopologyNodeKind::SWITCH;
    }
    Fail(field, "gpu, nic, host or switch, got " + Quote(text));
}

bool
IsEndpointKind(TopologyNodeKind kind)
{
    return kind == TopologyNodeKind::GPU || kind == TopologyNodeKind::HOST;
}

int
TopologyDescription::FindTier(const std::string& tierName) const
{
    for (size_t i = 0; i < tiers.size(); ++i)
    {
        if (tiers[i].name == tierName)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

int
TopologyDescription::FindNode(const std::string& nodeName) const
{
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        if (nodes[i].name == nodeName)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

DataRate
TopologyDescription::LinkRate(uint32_t linkId) const
{
    const auto& l = links.at(linkId);
    int t = FindTier(l.tier);
    if (t < 0)
    {
        Fail("links[" + std::to_string(linkId) + "].tier", "a tier name, got " + Quote(l.tier));
    }
    return DataRate(tiers[t].laneRate.GetBitRate() * l.lanes);
}

void
TopologyDescription::Validate() const
{
    if (tiers.empty())
    {
        Fail("tiers", "at least one tier");
    }
    std::map<std::string, size_t> tierIndex;
    for (size_t i = 0; i < tiers.size(); ++i)
    {
        const auto& t = tiers[i];
        const std::string p = "tiers[" + std::to_string(i) + "]";
        if (t.name.empty())
        {
            Fail(p + ".name", "a non-empty name");
        }
        if (!tierIndex.emplace(t.name, i).second)
        {
            Fail(p + ".name", "a unique tier name, " + Quote(t.name) + " is repeated");
        }
        if (t.laneRate.GetBitRate() == 0)
        {
            Fail(p + ".lane_rate", "a positive rate");
        }
        if (t.delay.IsStrictlyNegative())
        {
            Fail(p + ".delay", "a non-negative time");
        }
        if (t.forwardingLatency.IsStrictlyNegative())
        {
            Fail(p + ".forwarding_latency", "a non-negative time");
        }
        if (t.mtuBytes == 0 || t.mtuBytes > 65535)
        {
            // A fabric port's MTU is 16 bits, as NetDevice's.
            Fail(p + ".mtu_bytes", "a payload size of 1 to 65535 bytes, got " + std::to_string(t.mtuBytes));
        }
    }
    std::map<std::string, size_t> nodeIndex;
    size_t endpoints = 0;
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        const auto& n = nodes[i];
        const std::string p = "nodes[" + std::to_string(i) + "]";
        if (n.name.empty())
        {
            Fail(p + ".name", "a non-empty name");
        }
        if (!nodeIndex.emplace(n.name, i).second)
        {
            Fail(p + ".name", "a unique node name, " + Quote(n.name) + " is repeated");
        }
        if (IsEndpointKind(n.kind))
        {
            ++endpoints;
            if (!n.tier.empty() && !tierIndex.count(n.tier))
            {
                Fail(p + ".tier", "a tier name, got " + Quote(n.tier));
            }
        }
        else if (!tierIndex.count(n.tier))
        {
            Fail(p + ".tier",
                 "the tier of this " + ToString(n.kind) + " (one of the tiers' names), got " +
                     Quote(n.tier));
        }
    }
    if (endpoints == 0)
    {
        Fail("nodes", "at least one endpoint (a node of kind gpu or host)");
    }
    std::vector<uint64_t> lanesAt(nodes.size(), 0);
    for (size_t i = 0; i < links.size(); ++i)
    {
        const auto& l = links[i];
        const std::string p = "links[" + std::to_string(i) + "]";
        auto a = nodeIndex.find(l.a);
        if (a == nodeIndex.end())
        {
            Fail(p + ".a", "a node name, got " + Quote(l.a));
        }
        auto b = nodeIndex.find(l.b);
        if (b == nodeIndex.end())
        {
            Fail(p + ".b", "a node name, got " + Quote(l.b));
        }
        if (a->second == b->second)
        {
            Fail(p + ".b", "a node other than a (" + Quote(l.a) + "), not a self loop");
        }
        if (!tierIndex.count(l.tier))
        {
            Fail(p + ".tier", "a tier name (one of the tiers' names), got " + Quote(l.tier));
        }
        if (l.lanes == 0)
        {
            Fail(p + ".lanes", "at least one lane");
        }
        lanesAt[a->second] += l.lanes;
        lanesAt[b->second] += l.lanes;
    }
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        const auto& n = nodes[i];
        if (n.ports != 0 && lanesAt[i] > n.ports)
        {
            Fail("nodes[" + std::to_string(i) + "].ports",
                 "at least the " + std::to_string(lanesAt[i]) + " lanes attached to " +
                     Quote(n.name) + ", got " + std::to_string(n.ports) + " ports");
        }
    }
}

nlohmann::json
ToJson(const TopologyDescription& d)
{
    nlohmann::json j;
    j["name"] = d.name;
    j["tiers"] = nlohmann::json::array();
    for (const auto& t : d.tiers)
    {
        j["tiers"].push_back({{"name", t.name},
                              {"protocol", t.protocol},
                              {"lane_rate", RateText(t.laneRate)},
                              {"delay", TimeText(t.delay)},
                              {"mtu_bytes", t.mtuBytes},
                              {"header_bytes", t.headerBytes},
                              {"port_buffer_bytes", t.portBufferBytes},
                              {"flow_control", ToString(t.flowControl)},
                              {"forwarding_latency", TimeText(t.forwardingLatency)},
                              {"cut_through", t.cutThrough},
                              {"switch_buffer_bytes", t.switchBufferBytes}});
    }
    j["nodes"] = nlohmann::json::array();
    for (const auto& n : d.nodes)
    {
        nlohmann::json o = {{"name", n.name}, {"kind", ToString(n.kind)}};
        if (!n.tier.empty())
        {
            o["tier"] = n.tier;
        }
        if (n.ports != 0)
        {
            o["ports"] = n.ports;
        }
        j["nodes"].push_back(o);
    }
    j["links"] = nlohmann::json::array();
    for (const auto& l : d.links)
    {
        j["links"].push_back({{"a", l.a}, {"b", l.b}, {"tier", l.tier}, {"lanes", l.lanes}});
    }
    return j;
}

TopologyDescription
TopologyDescriptionFromJson(const nlohmann::json& j)
{
    if (!j.is_object())
    {
        Fail("scenario", "a JSON object with tiers, nodes and links");
    }
    TopologyDescription d;
    d.name = GetStringOr(j, "name", "", "");
    const auto& tiers = GetArray(j, "tiers");
    for (size_t i = 0; i < tiers.size(); ++i)
    {
        const std::string p = "tiers[" + std::to_string(i) + "]";
        const auto& o = tiers[i];
        if (!o.is_object())
        {
            Fail(p, "an object");
        }
        TopologyTier t;
        t.name = GetString(o, "name", p);
        t.protocol = GetStringOr(o, "protocol", p, "");
        t.laneRate = ParseLaneRate(GetString(o, "lane_rate", p), p + ".lane_rate");
        t.delay = units::ParseTime(GetStringOr(o, "delay", p, "0ps"), p + ".delay");
        t.mtuBytes = static_cast<uint32_t>(GetUint(o, "mtu_bytes", p));
        t.headerBytes = static_cast<uint32_t>(GetUintOr(o, "header_bytes", p, 0));
        t.portBufferBytes = GetUintOr(o, "port_buffer_bytes", p, 0);
        t.flowControl = ParseTopologyFlowControl(GetStringOr(o, "flow_control", p, "none"),
                                                 p + ".flow_control");
        t.forwardingLatency =
            units::ParseTime(GetStringOr(o, "forwarding_latency", p, "0ps"), p + ".forwarding_latency");
        t.cutThrough = GetBoolOr(o, "cut_through", p, false);
        t.switchBufferBytes = GetUintOr(o, "switch_buffer_bytes", p, 0);
        d.tiers.push_back(t);
    }
    const auto& nodes = GetArray(j, "nodes");
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        const std::string p = "nodes[" + std::to_string(i) + "]";
        const auto& o = nodes[i];
        if (!o.is_object())
        {
            Fail(p, "an object");
        }
        TopologyNode n;
        n.name = GetString(o, "name", p);
        n.kind = ParseTopologyNodeKind(GetString(o, "kind", p), p + ".kind");
        n.tier = GetStringOr(o, "tier", p, "");
        n.ports = static_cast<uint32_t>(GetUintOr(o, "ports", p, 0));
        d.nodes.push_back(n);
    }
    const auto& links = GetArray(j, "links");
    for (size_t i = 0; i < links.size(); ++i)
    {
        const std::string p = "links[" + std::to_string(i) + "]";
        const auto& o = links[i];
        if (!o.is_object())
        {
            Fail(p, "an object");
        }
        TopologyLink l;
        l.a = GetString(o, "a", p);
        l.b = GetString(o, "b", p);
        l.tier = GetString(o, "tier", p);
        l.lanes = static_cast<uint32_t>(GetUintOr(o, "lanes", p, 1));
        d.links.push_back(l);
    }
    return d;
}

} // namespace ns3
