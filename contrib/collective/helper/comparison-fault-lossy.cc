// SPDX-License-Identifier: GPL-2.0-only
#include "comparison-fault-lossy.h"

#include "input-error.h"

namespace ns3
{

namespace
{

// A probability in [0, 1): 1 would lose every packet, which no transport
// recovers from.
double
Rate(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() < 1))
    {
        throw InputError(field, "expected a probability in [0, 1), got " + v.dump());
    }
    return v.get<double>();
}

std::string
NodeName(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_string() || v.get<std::string>().empty())
    {
        throw InputError(field, "expected a node name, got " + v.dump());
    }
    return v.get<std::string>();
}

ComparisonLossyLink
ParseEntry(const nlohmann::json& e, const std::string& f)
{
    if (!e.is_object())
    {
        throw InputError(f, "expected an object {\"type\": \"lossy_link\", \"link\": [A, B], \"drop_rate\": p}");
    }
    for (auto it = e.begin(); it != e.end(); ++it)
    {
        const std::string& k = it.key();
        if (k != "type" && k != "link" && k != "drop_rate" && k != "bit_error_rate")
        {
            throw InputError(f + "." + k, "unknown field; expected one of type, link, drop_rate, bit_error_rate");
        }
    }
    if (!e.contains("type") || !e.at("type").is_string() || e.at("type").get<std::string>() != "lossy_link")
    {
        throw InputError(f + ".type", "expected \"lossy_link\", got " + (e.contains("type") ? e.at("type").dump() : "nothing"));
    }
    ComparisonLossyLink l;
    l.field = f;
    if (!e.contains("link") || !e.at("link").is_array() || e.at("link").size() != 2)
    {
        throw InputError(f + ".link", "expected two node names [\"A\", \"B\"], got " +
                                          (e.contains("link") ? e.at("link").dump() : "nothing"));
    }
    l.nodeA = NodeName(e.at("link")[0], f + ".link[0]");
    l.nodeB = NodeName(e.at("link")[1], f + ".link[1]");
    const bool drop = e.contains("drop_rate");
    const bool ber = e.contains("bit_error_rate");
    if (drop == ber)
    {
        throw InputError(f + (drop ? ".bit_error_rate" : ".drop_rate"),
                         drop ? "expected drop_rate or bit_error_rate, not both"
                              : "expected a drop_rate (per packet) or a bit_error_rate");
    }
    l.loss.unit = drop ? FabricLinkLoss::Unit::PACKET : FabricLinkLoss::Unit::BIT;
    l.loss.rate = drop ? Rate(e.at("drop_rate"), f + ".drop_rate") : Rate(e.at("bit_error_rate"), f + ".bit_error_rate");
    return l;
}

} // namespace

std::vector<ComparisonLossyLink>
ParseLossyLinkFaults(const nlohmann::json& faults, const std::string& field)
{
    if (!faults.is_array())
    {
        throw InputError(field, "expected a list of faults, got " + faults.dump());
    }
    std::vector<ComparisonLossyLink> out;
    for (size_t i = 0; i < faults.size(); ++i)
    {
        out.push_back(ParseEntry(faults[i], field + "[" + std::to_string(i) + "]"));
    }
    return out;
}

std::vector<uint32_t>
ResolveLossyLinks(const std::vector<ComparisonLossyLink>& links, const TopologyGraph& graph)
{
    std::vector<uint32_t> ids;
    for (const ComparisonLossyLink& l : links)
    {
        const std::string f = l.field + ".link";
        try
        {
            ids.push_back(FindLink(graph, graph.NodeId(l.nodeA, f + "[0]"), graph.NodeId(l.nodeB, f + "[1]"), f));
        }
        catch (const InputError&)
        {
            throw;
        }
        catch (const std::invalid_argument& e)
        {
            // TopologyGraph and FindLink name the field at the front of their message.
            const std::string what = e.what();
            const size_t colon = what.find(": ");
            throw InputError(colon == std::string::npos ? f : what.substr(0, colon),
                             colon == std::string::npos ? what : what.substr(colon + 2));
        }
    }
    return ids;
}

void
ApplyLossyLinks(const std::vector<ComparisonLossyLink>& links, FabricNetwork& network)
{
    const std::vector<uint32_t> ids = ResolveLossyLinks(links, network.GetTopology());
    for (size_t i = 0; i < links.size(); ++i)
    {
        InstallLinkLoss(network.GetLinkDevice(ids[i], true), network.GetLinkDevice(ids[i], false), links[i].loss);
    }
}

} // namespace ns3
