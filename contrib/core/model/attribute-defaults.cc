// SPDX-License-Identifier: GPL-2.0-only
#include "attribute-defaults.h"

#include "input-error.h"

#include "ns3/config.h"
#include "ns3/string.h"

#include <map>
#include <regex>
#include <set>

namespace ns3
{

namespace
{

bool
DeclaresAttribute(TypeId tid, const std::string& name)
{
    for (size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        if (tid.GetAttribute(i).name == name)
        {
            return true;
        }
    }
    return false;
}

// ns-3.37 aborts the process (NS_ABORT) instead of failing when it reads a
// malformed integer, number or time (uinteger.cc, integer.cc, double.cc,
// time.cc), so those texts are checked here first, against the syntax ns-3
// reads: a decimal integer, a floating-point number, a number with an optional
// time unit (Time's constructor from a string). Other value types fail softly.
bool
SafeToDeserialize(const std::string& valueType, const std::string& text)
{
    static const std::string number = R"([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)";
    static const std::map<std::string, std::regex> syntax = {
        {"UintegerValue", std::regex(R"(\+?\d+)")},
        {"IntegerValue", std::regex(R"([+-]?\d+)")},
        {"DoubleValue", std::regex(number)},
        {"TimeValue", std::regex(number + "(s|ms|us|ns|ps|fs|min|h|d|y)?")},
    };
    auto it = syntax.find(valueType);
    return it == syntax.end() || std::regex_match(text, it->second);
}

std::string
WithoutNamespace(const std::string& name)
{
    return name.rfind("ns3::", 0) == 0 ? name.substr(5) : name;
}

} // namespace

std::string
DescribeAttributeValue(const AttributeChecker& checker)
{
    // Plain words for the value types hockney's attributes use; any other type
    // is named as ns-3 names it.
    // The numeric types add their range ("uint32_t 0:4294967295").
    static const std::map<std::string, std::pair<std::string, bool>> words = {
        {"UintegerValue", {"an unsigned integer", true}},
        {"IntegerValue", {"an integer", true}},
        {"DoubleValue", {"a number", true}},
        {"BooleanValue", {"true or false", false}},
        {"TimeValue", {"a time like 5us", false}},
        {"DataRateValue", {"a rate like 100Gbps", false}},
        {"StringValue", {"a string", false}},
        {"EnumValue", {"one of the enumeration's names", false}},
    };
    const std::string type = WithoutNamespace(checker.GetValueTypeName());
    auto it = words.find(type);
    if (it == words.end())
    {
        return "a " + type;
    }
    const auto& [text, ranged] = it->second;
    return ranged && checker.HasUnderlyingTypeInformation()
               ? text + " (" + checker.GetUnderlyingTypeInformation() + ")"
               : text;
}

void
CheckAttributeDefault(const std::string& fullName, const std::string& value, const std::string& field)
{
    const size_t pos = fullName.rfind("::");
    if (pos == std::string::npos || pos == 0 || pos + 2 == fullName.size())
    {
        throw InputError(field, "expected ns3::TypeName::AttributeName, got '" + fullName + "'");
    }
    const std::string typeName = fullName.substr(0, pos);
    const std::string name = fullName.substr(pos + 2);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        throw InputError(field,
                         "expected a registered ns-3 type (hockney attributes lists them), got '" + typeName + "'");
    }
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        throw InputError(field,
                         "expected an attribute of " + typeName + " (hockney attributes " + typeName +
                             " lists them), got '" + name + "'");
    }
    // ns-3 keeps a default with the type that declares the attribute: through
    // a subclass's name Config::SetDefault would fail, so say which name works.
    TypeId owner = tid;
    while (!DeclaresAttribute(owner, name))
    {
        owner = owner.GetParent();
    }
    if (owner != tid)
    {
        throw InputError(field,
                         "expected the declaring type's name: " + name + " is an attribute of " + owner.GetName() +
                             ", set " + owner.GetName() + "::" + name);
    }
    if (!SafeToDeserialize(WithoutNamespace(info.checker->GetValueTypeName()), value) ||
        !info.checker->CreateValidValue(StringValue(value)))
    {
        throw InputError(field, "expected " + DescribeAttributeValue(*info.checker) + ", got '" + value + "'");
    }
}

namespace
{
/// Attributes a --ns3:: flag set (they win over a scenario's value), each with
/// its flag.
std::map<std::string, std::string>&
FromCommandLine()
{
    static std::map<std::string, std::string> names;
    return names;
}

/// Attributes the live ScopedAttributeDefaults set, each with its field; a
/// vector per name because scopes nest (validate's trace runs inside its
/// comparison), the innermost last.
std::map<std::string, std::vector<std::string>>&
FromScenario()
{
    static std::map<std::string, std::vector<std::string>> names;
    return names;
}

/// The current default of \p fullName, serialized (Config::SetDefault changes
/// the attribute's initial value).
std::string
CurrentDefault(const std::string& fullName, TypeId* tid = nullptr, std::string* name = nullptr)
{
    const size_t pos = fullName.rfind("::");
    TypeId t = TypeId::LookupByName(fullName.substr(0, pos));
    TypeId::AttributeInformation info;
    t.LookupAttributeByName(fullName.substr(pos + 2), &info);
    if (tid)
    {
        *tid = t;
    }
    if (name)
    {
        *name = fullName.substr(pos + 2);
    }
    return info.initialValue->SerializeToString(info.checker);
}
} // namespace

bool
UserSetAttribute(const std::string& fullName)
{
    return !UserAttributeField(fullName).empty();
}

std::string
UserAttributeField(const std::string& fullName)
{
    auto cli = FromCommandLine().find(fullName);
    if (cli != FromCommandLine().end())
    {
        return cli->second;
    }
    auto scenario = FromScenario().find(fullName);
    return scenario == FromScenario().end() || scenario->second.empty() ? "" : scenario->second.back();
}

void
RefuseUserAttribute(const std::string& fullName, const std::string& why)
{
    const std::string field = UserAttributeField(fullName);
    if (!field.empty())
    {
        throw InputError(field, "cannot apply: " + why);
    }
}

void
ApplyUserAttributes(Ptr<Object> object)
{
    const TypeId tid = object->GetInstanceTypeId();
    auto apply = [&](const std::string& fullName) {
        TypeId owner;
        std::string name;
        const std::string value = CurrentDefault(fullName, &owner, &name);
        if (owner == tid || tid.IsChildOf(owner))
        {
            object->SetAttribute(name, StringValue(value));
        }
    };
    for (const auto& [fullName, field] : FromCommandLine())
    {
        apply(fullName);
    }
    for (const auto& [fullName, fields] : FromScenario())
    {
        if (!fields.empty() && !FromCommandLine().count(fullName))
        {
            apply(fullName);
        }
    }
}

void
SetAttributeDefault(const std::string& fullName,
                    const std::string& value,
                    const std::string& field,
                    bool fromCommandLine)
{
    CheckAttributeDefault(fullName, value, field);
    if (fromCommandLine)
    {
        FromCommandLine()[fullName] = field;
    }
    else if (FromCommandLine().count(fullName))
    {
        return;
    }
    Config::SetDefault(fullName, StringValue(value));
}

ScopedAttributeDefaults::ScopedAttributeDefaults(
    const std::vector<std::pair<std::string, std::string>>& attributes)
{
    for (const auto& [name, value] : attributes)
    {
        Set(name, value);
    }
}

ScopedAttributeDefaults::~ScopedAttributeDefaults()
{
    for (auto it = m_previous.rbegin(); it != m_previous.rend(); ++it)
    {
        Config::SetDefault(it->first, StringValue(it->second));
        FromScenario()[it->first].pop_back();
    }
}

void
ScopedAttributeDefaults::Set(const std::string& fullName, const std::string& value)
{
    if (FromCommandLine().count(fullName))
    {
        return;
    }
    m_previous.emplace_back(fullName, CurrentDefault(fullName));
    Config::SetDefault(fullName, StringValue(value));
    FromScenario()[fullName].push_back("scenario.attributes[\"" + fullName + "\"]");
}

} // namespace ns3
