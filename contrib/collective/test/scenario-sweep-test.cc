// SPDX-License-Identifier: GPL-2.0-only
//
// The sweep grid: key syntax, where values land in the scenario, the order of
// the points, errors naming the key, and rows matched to points by their
// swept values in JSON and CSV alike.
#include "input-error.h"
#include "scenario-sweep.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

std::vector<std::string>
Tokens(const std::string& key)
{
    std::vector<std::string> t;
    for (const auto& s : ParseSweepPath(key))
    {
        t.push_back(s.index ? "[" + s.token + "]" : s.token);
    }
    return t;
}

// The field of the InputError \p f throws, or "" when it throws none.
template <typename F>
std::string
ErrorField(F f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e.Field();
    }
    return "";
}

using V = std::vector<std::string>;

TEST(ScenarioSweep, KeySyntax)
{
    EXPECT_EQ(Tokens("topology.tiers[0].switch_buffer_bytes"), (V{"topology", "tiers", "[0]", "switch_buffer_bytes"}));
    // An attribute's full name is one member, dots and all.
    EXPECT_EQ(Tokens("attributes.ns3::Dcqcn::G"), (V{"attributes", "ns3::Dcqcn::G"}));
    EXPECT_EQ(Tokens("attributes.ns3::A.b"), (V{"attributes", "ns3::A.b"}));
    EXPECT_EQ(Tokens("model[\"a.b\"].c"), (V{"model", "a.b", "c"}));
    // RFC 6901: ~1 is '/', ~0 is '~'.
    EXPECT_EQ(Tokens("/topology/tiers/0/a~1b~0"), (V{"topology", "tiers", "0", "a/b~"}));
    for (const std::string bad : {"", ".a", "a.", "a..b", "a[", "a[x]", "a[\"\"]", "a[0]b", "sweep", "/a~2"})
    {
        EXPECT_EQ(ErrorField([&] { ParseSweepPath(bad); }), SweepKeyField(bad)) << bad;
    }
}

TEST(ScenarioSweep, PointsAreTheProductFirstAxisSlowest)
{
    const OrderedJson base = OrderedJson::parse(R"({"topology": {"tiers": [{"mtu_bytes": 4096}]},
        "sizes": ["1MB"], "sweep": {}})");
    std::vector<SweepAxis> axes;
    AddSweepAxis(axes, SweepAxisFromFlag("topology.tiers[0].switch_buffer_bytes=1000,2000"));
    AddSweepAxis(axes, SweepAxisFromFlag("attributes.ns3::Dcqcn::G=0.5,x,true"));
    ResolveSweepAxes(base, axes);
    EXPECT_EQ(axes[0].field, "scenario.topology.tiers[0].switch_buffer_bytes");
    EXPECT_EQ(axes[1].field, "scenario.attributes[\"ns3::Dcqcn::G\"]");
    const auto points = ExpandSweep(base, axes);
    ASSERT_EQ(points.size(), 6u);
    // Items read as JSON when they are numbers or true/false, else as text.
    EXPECT_EQ(points[0].values[1], OrderedJson(0.5));
    EXPECT_EQ(points[1].values[1], OrderedJson("x"));
    EXPECT_EQ(points[2].values[1], OrderedJson(true));
    EXPECT_EQ(points[3].values[0], OrderedJson(2000));
    EXPECT_EQ(points[5].scenario.at("topology").at("tiers").at(0).at("switch_buffer_bytes"), 2000);
    EXPECT_EQ(points[5].scenario.at("topology").at("tiers").at(0).at("mtu_bytes"), 4096);
    EXPECT_EQ(points[5].scenario.at("attributes").at("ns3::Dcqcn::G"), true); // created
    EXPECT_FALSE(points[5].scenario.contains("sweep"));
    // A list value after '=' as JSON: items with commas.
    EXPECT_EQ(SweepAxisFromFlag("sizes=[\"1KB,1MB\", 8]").values, (std::vector<OrderedJson>{"1KB,1MB", 8}));
}

TEST(ScenarioSweep, PathErrorsNameTheKey)
{
    const OrderedJson base = OrderedJson::parse(R"({"topology": "dgx-h100", "sizes": ["1MB"]})");
    for (const std::string key : {"topology.tiers[0].x", "sizes[1]", "sizes.x", "model[0]"})
    {
        std::vector<SweepAxis> axes;
        AddSweepAxis(axes, SweepAxisFromFlag(key + "=1"));
        EXPECT_EQ(ErrorField([&] { ResolveSweepAxes(base, axes); }), SweepKeyField(key)) << key;
    }
    std::vector<SweepAxis> axes;
    AddSweepAxis(axes, SweepAxisFromFlag("model.alpha=1us"));
    EXPECT_EQ(ErrorField([&] { AddSweepAxis(axes, SweepAxisFromFlag("model=1")); }), SweepKeyField("model"));
    // The same key again replaces the axis (a flag over the file's sweep).
    AddSweepAxis(axes, SweepAxisFromFlag("model.alpha=2us,3us"));
    ASSERT_EQ(axes.size(), 1u);
    EXPECT_EQ(axes[0].values.size(), 2u);
}

TEST(ScenarioSweep, RefusedValuesNameTheKey)
{
    const OrderedJson base = OrderedJson::parse(R"({"topology": "dgx-h100", "backends": ["closed"]})");
    std::vector<SweepAxis> axes;
    AddSweepAxis(axes, SweepAxisFromFlag("fabric.mtu_bytes=4096,1"));
    AddSweepAxis(axes, SweepAxisFromFlag("sizes=1MB"));
    ResolveSweepAxes(base, axes);
    const auto points = ExpandSweep(base, axes);
    EXPECT_EQ(ErrorField([&] { CheckSweepPoint(base, axes, points[0]); }), "");
    EXPECT_EQ(ErrorField([&] { CheckSweepPoint(base, axes, points[1]); }), SweepKeyField("fabric.mtu_bytes"));
    // An error of the base scenario itself keeps its own name.
    const OrderedJson bad = OrderedJson::parse(R"({"topology": "dgx-h100", "ranks": 1})");
    std::vector<SweepAxis> sizes;
    AddSweepAxis(sizes, SweepAxisFromFlag("sizes=1MB"));
    ResolveSweepAxes(bad, sizes);
    EXPECT_EQ(ErrorField([&] { CheckSweepPoint(bad, sizes, ExpandSweep(bad, sizes)[0]); }), "scenario.ranks");
}

TEST(ScenarioSweep, RowsMatchPointsInJsonAndCsv)
{
    std::vector<SweepAxis> axes;
    AddSweepAxis(axes, SweepAxisFromFlag("attributes.ns3::Dcqcn::G=0.0625"));
    AddSweepAxis(axes, SweepAxisFromFlag("ranks=4"));
    const std::string id = SweepPointId({SweepRowValue(0.0625), SweepRowValue(4)});
    // ranks is also compare's column: the swept one is sweep.ranks.
    const auto json = RowsFromJson(OrderedJson::parse(R"({"meta": {"x": 1}, "rows": [
        {"attributes.ns3::Dcqcn::G": 0.0625, "sweep.ranks": 4, "ranks": 8, "time_s": 1.5},
        {"attributes.ns3::Dcqcn::G": 0.125, "sweep.ranks": 4}, {"ranks": 4}]})"),
                                   "f");
    ASSERT_EQ(json.size(), 3u);
    EXPECT_EQ(SweepRowId(json[0], axes), id);
    EXPECT_NE(SweepRowId(json[1], axes), id);
    EXPECT_FALSE(SweepRowId(json[2], axes).has_value()); // no G column
    EXPECT_EQ(json[0].Fields().front().first, "attributes.ns3::Dcqcn::G"); // column order kept
    const auto csv = RowsFromCsv("# provenance=x\nattributes.ns3::Dcqcn::G,sweep.ranks,ranks,note\n"
                                 "0.0625,4,8,\"a, b\"\n0.0625,5,8,\n",
                                 "f");
    ASSERT_EQ(csv.size(), 2u);
    EXPECT_EQ(SweepRowId(csv[0], axes), id);
    EXPECT_NE(SweepRowId(csv[1], axes), id);
    EXPECT_EQ(csv[0].GetString("note"), "a, b");
    EXPECT_TRUE(std::holds_alternative<std::monostate>(csv[1].Get("note")));
    EXPECT_EQ(ErrorField([] { RowsFromJson(OrderedJson::parse("{\"command\": \"x\"}"), "--output"); }), "--output");
}

TEST(ScenarioSweep, RelativeFlowsCsvIsAnchoredOnTheScenarioDirectory)
{
    OrderedJson s = OrderedJson::parse(R"({"flows_csv": "lists/a.csv"})");
    AnchorFlowsCsv(s, "/data/sweeps");
    EXPECT_EQ(s["flows_csv"], "/data/sweeps/lists/a.csv");
    // Absolute, absent or not a string (the scenario check's error): unchanged.
    for (const char* text : {R"({"flows_csv": "/x/a.csv"})", R"({"sizes": "1MB"})", R"({"flows_csv": 3})"})
    {
        OrderedJson t = OrderedJson::parse(text);
        AnchorFlowsCsv(t, "/data/sweeps");
        EXPECT_EQ(t, OrderedJson::parse(text)) << text;
    }
}

} // namespace
} // namespace ns3
