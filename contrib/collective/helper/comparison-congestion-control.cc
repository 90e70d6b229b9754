// SPDX-License-Identifier: GPL-2.0-only
#include "comparison-congestion-control.h"

#include "attribute-defaults.h"
#include "comparison-point.h"
#include "input-error.h"
#include "rdma-congestion-control.h"
#include "rdma-helper.h"

#include "ns3/string.h"

#include <algorithm>
#include <map>

namespace ns3
{

namespace
{

const std::string kField = "scenario.fabric.congestion_control";

/// The attributes an algorithm of \p tid accepts (its own and inherited).
std::vector<std::string>
AttributeNames(TypeId tid)
{
    std::vector<std::string> names;
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            names.push_back(t.GetAttribute(i).name);
        }
        if (t == t.GetParent())
        {
            break;
        }
    }
    return names;
}

const RdmaCcEntry&
Entry(const std::string& name, const std::string& field)
{
    const RdmaCcEntry* e = RdmaCcRegistry::Find(name);
    if (!e)
    {
        throw InputError(field,
                         "expected a registered congestion control (" + RdmaCcRegistry::NameList() + "), got '" +
                             name + "'");
    }
    return *e;
}

} // namespace

std::string
AttributeText(const nlohmann::json& v, const std::string& field)
{
    if (v.is_boolean())
    {
        return v.get<bool>() ? "true" : "false";
    }
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (v.is_number())
    {
        return v.dump();
    }
    throw InputError(field, "expected a string, a number or true/false, got " + v.dump());
}

void
ApplyCongestionControl(const nlohmann::json& v, const std::string& field, ComparisonFabric& fabric)
{
    fabric.congestionPreset.clear();
    fabric.congestionAttributes.clear();
    if (v.is_string())
    {
        fabric.congestionControl = Entry(v.get<std::string>(), field).name;
        return;
    }
    if (!v.is_object())
    {
        throw InputError(field, "expected a name (" + RdmaCcRegistry::NameList() +
                                    ") or an object {\"name\": NAME, \"preset\": PRESET, ATTRIBUTE: VALUE, ...}");
    }
    if (!v.contains("name") || !v.at("name").is_string())
    {
        throw InputError(field + ".name", "expected the name of a registered congestion control (" +
                                              RdmaCcRegistry::NameList() + ")");
    }
    const RdmaCcEntry& e = Entry(v.at("name").get<std::string>(), field + ".name");
    fabric.congestionControl = e.name;
    if (v.contains("preset"))
    {
        const std::string pf = field + ".preset";
        const std::string preset = v.at("preset").is_string() ? v.at("preset").get<std::string>() : v.at("preset").dump();
        if (std::find(e.presets.begin(), e.presets.end(), preset) == e.presets.end())
        {
            throw InputError(pf, "expected a preset of " + e.name + " (" + JoinNames(e.presets) + "), got '" + preset + "'");
        }
        fabric.congestionPreset = preset;
    }
    const TypeId tid = e.typeId();
    const std::vector<std::string> names = AttributeNames(tid);
    for (auto it = v.begin(); it != v.end(); ++it)
    {
        if (it.key() == "name" || it.key() == "preset")
        {
            continue;
        }
        const std::string kf = field + "." + it.key();
        if (std::find(names.begin(), names.end(), it.key()) == names.end())
        {
            throw InputError(kf, "unknown field; expected name, preset or an attribute of " + tid.GetName() + " (" +
                                     JoinNames(names) + ")");
        }
        const std::string value = AttributeText(it.value(), kf);
        CheckAttributeDefault(tid.GetName() + "::" + it.key(), value, kf);
        fabric.congestionAttributes.emplace_back(it.key(), value);
    }
}

void
ApplyNicPreset(const nlohmann::json& v, const std::string& field, ComparisonFabric& fabric)
{
    const std::vector<std::string> names = RdmaHelper::PresetNames();
    const std::string name = v.is_string() ? v.get<std::string>() : v.dump();
    if (std::find(names.begin(), names.end(), name) == names.end())
    {
        throw InputError(field, "expected a NIC preset (" + JoinNames(names) + "), got '" + name + "'");
    }
    fabric.nicPreset = name;
}

void
CheckCongestionControlAttributes(const ComparisonConfig& config)
{
    const RdmaCcEntry* e = RdmaCcRegistry::Find(config.fabric.congestionControl);
    if (!e)
    {
        return;
    }
    for (const auto& [name, value] : config.fabric.congestionAttributes)
    {
        const std::string full = e->typeId().GetName() + "::" + name;
        for (const auto& [attribute, other] : config.attributes)
        {
            if (attribute == full)
            {
                throw InputError(kField + "." + name, "expected one value; scenario.attributes[\"" + full +
                                                          "\"] sets the same attribute");
            }
        }
    }
}

PacketTransport::CongestionControlFactory
MakeCongestionControl(const ComparisonFabric& f)
{
    // The ideal fabric of the cross-check runs without congestion control.
    if (f.ideal || f.congestionControl == "none")
    {
        return {};
    }
    if (f.congestionPreset.empty() && f.congestionAttributes.empty())
    {
        // One prototype with the default attributes (no line rate involved).
        Ptr<RdmaCongestionControl> cc = CreateRdmaCongestionControl(f.congestionControl);
        return [cc](DataRate) { return cc; };
    }
    // A preset may scale with the port's rate: one prototype per rate.
    auto byRate = std::make_shared<std::map<uint64_t, Ptr<RdmaCongestionControl>>>();
    return [f, byRate](DataRate rate) {
        Ptr<RdmaCongestionControl>& cc = (*byRate)[rate.GetBitRate()];
        if (!cc)
        {
            cc = f.congestionPreset.empty() ? CreateRdmaCongestionControl(f.congestionControl)
                                            : RdmaCcRegistry::Create(f.congestionControl + ":" + f.congestionPreset,
                                                                     rate);
            for (const auto& [name, value] : f.congestionAttributes)
            {
                cc->SetAttribute(name, StringValue(value));
            }
            ApplyUserAttributes(cc); // a --ns3:: flag wins over the scenario's keys
        }
        return cc;
    };
}

} // namespace ns3
