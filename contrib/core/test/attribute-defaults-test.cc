// SPDX-License-Identifier: GPL-2.0-only
//
// SetAttributeDefault on ns-3's own UniformRandomVariable (libcore, so the test
// needs no hockney type): a valid value becomes the default of objects created
// afterwards; each way to get it wrong is an InputError naming the field.
// Each test runs in its own process, so a changed default does not leak.
#include "attribute-defaults.h"
#include "input-error.h"

#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/random-variable-stream.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

std::string
ErrorOf(const std::string& name, const std::string& value)
{
    try
    {
        SetAttributeDefault(name, value, "field");
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(e.Field(), "field");
        return e.Expected();
    }
    return "";
}

} // namespace

TEST(AttributeDefaults, ValueBecomesTheDefault)
{
    SetAttributeDefault("ns3::UniformRandomVariable::Max", "5", "field");
    DoubleValue max;
    CreateObject<UniformRandomVariable>()->GetAttribute("Max", max);
    EXPECT_EQ(max.Get(), 5.0);
}

TEST(AttributeDefaults, CommandLineValueStays)
{
    SetAttributeDefault("ns3::UniformRandomVariable::Max", "7", "--flag", true);
    SetAttributeDefault("ns3::UniformRandomVariable::Max", "5", "scenario");
    DoubleValue max;
    CreateObject<UniformRandomVariable>()->GetAttribute("Max", max);
    EXPECT_EQ(max.Get(), 7.0);
    // Still checked, though not applied.
    EXPECT_THROW(SetAttributeDefault("ns3::UniformRandomVariable::Max", "x", "scenario"), InputError);
}

TEST(AttributeDefaults, EachMistakeIsAnInputError)
{
    EXPECT_NE(ErrorOf("ns3::NoSuchType::Max", "5").find("registered ns-3 type"), std::string::npos);
    EXPECT_NE(ErrorOf("ns3::UniformRandomVariable::Maximum", "5").find("got 'Maximum'"), std::string::npos);
    EXPECT_EQ(ErrorOf("ns3::UniformRandomVariable::Max", "five"),
              "expected a number (double -1.79769e+308:1.79769e+308), got 'five'");
    // Stream is declared by the parent: the error names the name that works.
    EXPECT_NE(ErrorOf("ns3::UniformRandomVariable::Stream", "3").find("ns3::RandomVariableStream::Stream"),
              std::string::npos);
    EXPECT_NE(ErrorOf("UniformRandomVariable", "3").find("ns3::TypeName::AttributeName"), std::string::npos);
    // ns-3.37 would abort on these instead of failing.
    EXPECT_NE(ErrorOf("ns3::RandomVariableStream::Stream", "-x").find("got '-x'"), std::string::npos);
    EXPECT_NE(ErrorOf("ns3::UniformRandomVariable::Max", "1..2").find("got '1..2'"), std::string::npos);
}

TEST(AttributeDefaults, ScopedDefaultsHoldForTheirScopeOnly)
{
    auto max = []() {
        DoubleValue v;
        CreateObject<UniformRandomVariable>()->GetAttribute("Max", v);
        return v.Get();
    };
    ASSERT_EQ(max(), 1.0); // ns-3's default
    {
        ScopedAttributeDefaults scoped;
        scoped.Set("ns3::UniformRandomVariable::Max", "5");
        scoped.Set("ns3::UniformRandomVariable::Max", "6"); // set twice: both undone
        EXPECT_EQ(max(), 6.0);
    }
    EXPECT_EQ(max(), 1.0);
}

TEST(AttributeDefaults, ScopedDefaultsYieldToTheCommandLine)
{
    SetAttributeDefault("ns3::UniformRandomVariable::Max", "7", "--flag", true);
    {
        ScopedAttributeDefaults scoped;
        scoped.Set("ns3::UniformRandomVariable::Max", "5");
        DoubleValue v;
        CreateObject<UniformRandomVariable>()->GetAttribute("Max", v);
        EXPECT_EQ(v.Get(), 7.0);
    }
    DoubleValue v;
    CreateObject<UniformRandomVariable>()->GetAttribute("Max", v);
    EXPECT_EQ(v.Get(), 7.0);
}

TEST(AttributeDefaults, UserSetAttributesWinOverABuildersValue)
{
    const std::string min = "ns3::UniformRandomVariable::Min";
    const std::string stream = "ns3::RandomVariableStream::Stream";
    EXPECT_FALSE(UserSetAttribute(min));
    EXPECT_NO_THROW(RefuseUserAttribute(min, "why"));
    {
        ScopedAttributeDefaults scoped;
        scoped.Set(min, "0.5");
        scoped.Set(stream, "9"); // declared by the parent type
        EXPECT_TRUE(UserSetAttribute(min));
        EXPECT_EQ(UserAttributeField(min), "scenario.attributes[\"" + min + "\"]");
        // A builder sets its own values; the user's win, the others stay.
        Ptr<UniformRandomVariable> rv = CreateObject<UniformRandomVariable>();
        rv->SetAttribute("Min", DoubleValue(0.25));
        rv->SetAttribute("Max", DoubleValue(3));
        rv->SetAttribute("Stream", IntegerValue(4));
        ApplyUserAttributes(rv);
        DoubleValue v;
        rv->GetAttribute("Min", v);
        EXPECT_EQ(v.Get(), 0.5);
        rv->GetAttribute("Max", v);
        EXPECT_EQ(v.Get(), 3.0);
        IntegerValue s;
        rv->GetAttribute("Stream", s);
        EXPECT_EQ(s.Get(), 9);
        try
        {
            RefuseUserAttribute(min, "the builder derives it");
            ADD_FAILURE() << "no InputError";
        }
        catch (const InputError& e)
        {
            EXPECT_EQ(e.Field(), "scenario.attributes[\"" + min + "\"]");
            EXPECT_EQ(e.Expected(), "cannot apply: the builder derives it");
        }
    }
    EXPECT_FALSE(UserSetAttribute(min)); // the scenario's run is over
    SetAttributeDefault(min, "0.75", "--ns3::UniformRandomVariable::Min", true);
    EXPECT_EQ(UserAttributeField(min), "--ns3::UniformRandomVariable::Min");
}
