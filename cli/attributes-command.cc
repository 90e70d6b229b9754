// SPDX-License-Identifier: GPL-2.0-only
//
// hockney attributes [TYPE]: every attribute a --ns3::TYPE::NAME=VALUE flag or
// a scenario's "attributes" object can set, with its value type, its default
// (the initial value, serialized as ns-3 would read it back) and its help, like
// ns-3's --PrintAttributes. Without TYPE: the attributes of every hockney type
// (those whose group is one of the project's modules). Defaults changed by
// --ns3:: flags on the same command line show as changed.
#include "flags.h"

#include "attribute-defaults.h"
#include "input-error.h"
#include "result-row.h"

#include "ns3/type-id.h"

#include <algorithm>
#include <ostream>
#include <set>

namespace
{

using namespace ns3;

// The groups the project's modules give their TypeIds (SetGroupName in contrib).
const std::set<std::string> kHockneyGroups = {"Analytic", "Fabric", "Collective"};

// One row per attribute of tid, with \p inherited those of its parents too,
// each named by the type that declares it (the name a --ns3:: flag must use).
void
AddRows(TypeId tid, bool inherited, std::vector<ResultRow>& rows)
{
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = t.GetAttribute(i);
            ResultRow row;
            row.Set("type", tid.GetName());
            row.Set("attribute", t.GetName() + "::" + info.name);
            row.Set("value_type", DescribeAttributeValue(*info.checker));
            row.Set("default", info.initialValue->SerializeToString(info.checker));
            row.Set("help", info.help);
            rows.push_back(row);
        }
        if (!inherited || t.GetParent() == t)
        {
            break;
        }
    }
}

int
AttributesCommand(const std::vector<std::string>& args, std::ostream& out)
{
    // TYPE is the one positional argument; the rest are flags.
    std::vector<std::string> flagArgs;
    std::string typeName;
    for (const auto& a : args)
    {
        if (a.rfind("-", 0) != 0 && typeName.empty())
        {
            typeName = a;
        }
        else
        {
            flagArgs.push_back(a);
        }
    }
    hockney::Flags f;
    f.Add("format", "table", "table|csv|json");
    if (!f.Parse(flagArgs, out))
    {
        out << "  TYPE (optional, first argument)\n      an ns-3 type such as ns3::Dcqcn; "
               "without it, every hockney type\n";
        return 0;
    }
    const OutputFormat format = ParseOutputFormat(f.Get("format"));
    std::vector<ResultRow> rows;
    if (!typeName.empty())
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(typeName, &tid))
        {
            throw InputError(typeName, "expected a registered ns-3 type such as ns3::Dcqcn "
                                       "(hockney attributes without TYPE lists hockney's)");
        }
        AddRows(tid, true, rows);
    }
    else
    {
        std::vector<TypeId> tids;
        for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
        {
            const TypeId tid = TypeId::GetRegistered(i);
            if (kHockneyGroups.count(tid.GetGroupName()) && tid.GetAttributeN() > 0)
            {
                tids.push_back(tid);
            }
        }
        // By name, so the listing does not depend on the order types registered in.
        std::sort(tids.begin(), tids.end(), [](TypeId a, TypeId b) { return a.GetName() < b.GetName(); });
        // Own attributes only: an inherited one is listed under its declaring type.
        for (TypeId tid : tids)
        {
            AddRows(tid, false, rows);
        }
    }
    WriteRows(out, "attributes", rows, format);
    return 0;
}

hockney::CommandRegistrar registrar("attributes",
                                    "every ns-3 attribute a --ns3::Type::Attribute=VALUE flag can set "
                                    "(of TYPE, or of every hockney type), with its default",
                                    &AttributesCommand);

} // namespace
