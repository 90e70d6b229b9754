// SPDX-License-Identifier: GPL-2.0-only
//
// The description's JSON form (exact round trip) and validation: every bad
// description throws std::invalid_argument whose message starts with the
// field it names ("FIELD: expected ...").
#include "input-error.h"
#include "topology-graph.h"
#include "topology-presets.h"

#include <gtest/gtest.h>

#include <functional>

using namespace ns3;

namespace
{

// The message of the std::invalid_argument `fn` throws ("" if none).
std::string
ErrorOf(const std::function<void()>& fn)
{
    try
    {
        fn();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

bool
Names(const std::string& message, const std::string& field)
{
    return message.rfind(field + ": expected", 0) == 0;
}

// Two GPUs on one switch, by hand.
nlohmann::json
SmallJson()
{
    return nlohmann::json::parse(R"({
      "name": "two-gpus",
      "tiers": [{"name": "nvlink", "protocol": "nvlink", "lane_rate": "25GB/s", "delay": "5ns",
                 "mtu_bytes": 256, "header_bytes": 16, "flow_control": "credit",
                 "forwarding_latency": "0.1us", "cut_through": true}],
      "nodes": [{"name": "g0", "kind": "gpu"}, {"name": "g1", "kind": "gpu"},
                {"name": "sw", "kind": "switch", "tier": "nvlink", "ports": 36}],
      "links": [{"a": "g0", "b": "sw", "tier": "nvlink", "lanes": 18},
                {"a": "g1", "b": "sw", "tier": "nvlink", "lanes": 18}]
    })");
}

void
Build(const nlohmann::json& j)
{
    TopologyGraph g(TopologyFromScenarioJson(j));
}

} // namespace

TEST(TopologyDescription, ParsesUnitsWithCoreParsers)
{
    TopologyDescription d = TopologyDescriptionFromJson(SmallJson());
    ASSERT_EQ(d.tiers.size(), 1u);
    EXPECT_EQ(d.tiers[0].laneRate.GetBitRate(), 200000000000ull); // 25 GB/s x 8
    EXPECT_EQ(d.tiers[0].delay, NanoSeconds(5));
    EXPECT_EQ(d.tiers[0].forwardingLatency, NanoSeconds(100));
    EXPECT_EQ(d.tiers[0].flowControl, TopologyFlowControl::CREDIT);
    EXPECT_TRUE(d.tiers[0].cutThrough);
    EXPECT_EQ(d.LinkRate(1).GetBitRate(), 18 * 200000000000ull);
    TopologyGraph g(d);
    EXPECT_EQ(g.Path(0, 1).TotalLatency(), NanoSeconds(110));
}

TEST(TopologyDescription, JsonRoundTripIsExact)
{
    for (const char* preset : {"dgx-h100:nvswitch-chips=4", "rail-h100-2n", "roce-leafspine",
                               "fat-tree", "dgx-b200"})
    {
        TopologyDescription d = MakePreset(preset);
        nlohmann::json j = ToJson(d);
        // Through text, as a scenario file would go.
        TopologyDescription back = TopologyDescriptionFromJson(nlohmann::json::parse(j.dump()));
        EXPECT_EQ(ToJson(back), j) << preset;
        ASSERT_EQ(back.tiers.size(), d.tiers.size());
        for (size_t i = 0; i < d.tiers.size(); ++i)
        {
            EXPECT_EQ(back.tiers[i].laneRate, d.tiers[i].laneRate);
            EXPECT_EQ(back.tiers[i].delay, d.tiers[i].delay);
            EXPECT_EQ(back.tiers[i].forwardingLatency, d.tiers[i].forwardingLatency);
            EXPECT_EQ(back.tiers[i].portBufferBytes, d.tiers[i].portBufferBytes);
            EXPECT_EQ(back.tiers[i].switchBufferBytes, d.tiers[i].switchBufferBytes);
        }
        ASSERT_EQ(back.links.size(), d.links.size());
        EXPECT_EQ(back.links.back().lanes, d.links.back().lanes);
        EXPECT_EQ(back.nodes.back().ports, d.nodes.back().ports);
    }
    // Scenario forms: a preset by name, or wrapped in "topology".
    EXPECT_EQ(ToJson(TopologyFromScenarioJson({{"preset", "fat-tree"}})), ToJson(MakePreset("fat-tree")));
    EXPECT_EQ(ToJson(TopologyFromScenarioJson({{"topology", SmallJson()}})),
              ToJson(TopologyDescriptionFromJson(SmallJson())));
}

TEST(TopologyDescription, EachErrorNamesItsField)
{
    auto with = [](const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json j = SmallJson();
        edit(j);
        return ErrorOf([&] { Build(j); });
    };
    EXPECT_EQ(with([](nlohmann::json&) {}), "");
    // Unknown tier.
    EXPECT_TRUE(Names(with([](auto& j) { j["links"][1]["tier"] = "nvlink9"; }), "links[1].tier"));
    EXPECT_TRUE(Names(with([](auto& j) { j["nodes"][2]["tier"] = "ib"; }), "nodes[2].tier"));
    // Zero or malformed rate, bad times, missing and mistyped fields.
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["lane_rate"] = "0Gbps"; }), "tiers[0].lane_rate"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["lane_rate"] = "400"; }), "tiers[0].lane_rate"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["lane_rate"] = 4e11; }), "tiers[0].lane_rate"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["delay"] = "5 parsecs"; }), "tiers[0].delay"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["delay"] = "-5ns"; }), "tiers[0].delay"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0].erase("mtu_bytes"); }), "tiers[0].mtu_bytes"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["mtu_bytes"] = 0; }), "tiers[0].mtu_bytes"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["header_bytes"] = -1; }), "tiers[0].header_bytes"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["flow_control"] = "xon"; }), "tiers[0].flow_control"));
    EXPECT_TRUE(Names(with([](auto& j) { j["tiers"][0]["cut_through"] = "yes"; }), "tiers[0].cut_through"));
    EXPECT_TRUE(Names(with([](auto& j) { j["nodes"][0]["kind"] = "tpu"; }), "nodes[0].kind"));
    EXPECT_TRUE(Names(with([](auto& j) { j["nodes"][1]["name"] = "g0"; }), "nodes[1].name"));
    EXPECT_TRUE(Names(with([](auto& j) { j["links"][0]["b"] = "nowhere"; }), "links[0].b"));
    EXPECT_TRUE(Names(with([](auto& j) { j["links"][0]["b"] = "g0"; }), "links[0].b"));
    EXPECT_TRUE(Names(with([](auto& j) { j["links"][0]["lanes"] = 0; }), "links[0].lanes"));
    EXPECT_TRUE(Names(with([](auto& j) { j.erase("links"); }), "links"));
    // More lanes (GPUs x 18) than switch ports.
    EXPECT_TRUE(Names(with([](auto& j) { j["nodes"][2]["ports"] = 35; }), "nodes[2].ports"));
    // Disconnected graph: a third GPU with no link.
    EXPECT_TRUE(Names(with([](auto& j) { j["nodes"].push_back({{"name", "g2"}, {"kind", "gpu"}}); }),
                      "links"));
    // Connected, but only through an endpoint (GPUs do not forward).
    EXPECT_TRUE(Names(with([](auto& j) {
                          j["nodes"].push_back({{"name", "g2"}, {"kind", "gpu"}});
                          j["links"].push_back({{"a", "g1"}, {"b", "g2"}, {"tier", "nvlink"}});
                      }),
                      "links"));
    EXPECT_TRUE(Names(ErrorOf([] { Build(nlohmann::json::array()); }), "scenario"));
    EXPECT_TRUE(Names(ErrorOf([] { TopologyFromScenarioFile("/nonexistent/x.json"); }), "scenario"));
    EXPECT_TRUE(Names(ErrorOf([] { Build({{"topology", {{"tiers", 1}}}}); }), "topology.tiers"));
}

TEST(TopologyDescription, PresetErrorsNameThePreset)
{
    auto preset = [](const std::string& name) {
        return ErrorOf([&] { TopologyGraph g(MakePreset(name)); });
    };
    EXPECT_TRUE(Names(preset("dgx-a100"), "preset"));
    EXPECT_TRUE(Names(preset("rail-h100-0n"), "preset"));
    EXPECT_TRUE(Names(preset("rail-h100-xn"), "preset"));
    EXPECT_TRUE(Names(preset("rail-h100-n"), "preset"));
    EXPECT_TRUE(Names(preset("rail-h100-2"), "preset"));
    EXPECT_TRUE(Names(preset("fat-tree-kx"), "preset"));
    EXPECT_TRUE(Names(preset("fat-tree-k5"), "preset.k"));
    // 257 servers: 8 scalable units of 32 fill a 64-port spine's ports with
    // one leaf each (a ninth unit needs a core tier).
    EXPECT_TRUE(Names(preset("rail-h100-257n"), "preset.nodes"));
    // Units of 40 servers: 40 down + 40 up do not fit a 64-port leaf.
    EXPECT_TRUE(Names(preset("rail-h100-80n:su-nodes=40"), "preset.su-nodes"));
    EXPECT_TRUE(Names(preset("rail-h100-8n:su-nodes=9"), "preset.su-nodes"));
    EXPECT_TRUE(Names(preset("dgx-h100:colour=red"), "preset.colour"));
    EXPECT_TRUE(Names(preset("dgx-h100:gpus=x"), "preset.gpus"));
    EXPECT_TRUE(Names(preset("dgx-h100:nvswitch-chips=3"), "preset.nvswitch-chips"));
    EXPECT_TRUE(Names(preset("roce-leafspine:oversubscription=-1"), "preset.oversubscription"));
    EXPECT_TRUE(Names(preset("dgx-h100:gpus"), "preset"));
    // 15 GPUs x 18 lanes = 270 > 256 ports of the 4-chip domain (node 15 is the switch).
    EXPECT_TRUE(Names(preset("dgx-h100:gpus=15"), "nodes[15].ports"));
    EXPECT_EQ(preset("dgx-h100:gpus=14"), "");
    // 65 hosts on a 64-port leaf.
    EXPECT_TRUE(Names(preset("roce-leafspine:hosts-per-leaf=65,leaves=1,spines=1,oversubscription=65"),
                      "nodes[65].ports"));
}

// Found with the scenario fuzz target's dictionary words (preset option
// names) and confirmed under it (fuzz/corpus/scenario/regress-preset-options-
// multiply.json): the options of a preset multiply, and 10^6 leaves x 10^6
// hosts (or 2 servers x 10^6 GPUs with the spines given) ran out of memory
// building the description (malloc of 2.7 GB under ASan) before the switches'
// ports were checked. The bound is the largest fat tree's 65 536 hosts: the
// products just above it are refused naming the option, the largest fat tree
// itself is still built.
TEST(TopologyDescription, PresetOptionsThatMultiplyAreBounded)
{
    auto preset = [](const std::string& name) { return ErrorOf([&] { TopologyGraph g(MakePreset(name)); }); };
    const std::string ls = preset("roce-leafspine:leaves=1000000,hosts-per-leaf=1000000");
    EXPECT_TRUE(Names(ls, "preset.hosts_per_leaf")) << ls;
    EXPECT_NE(ls.find("1000000 leaves x 1000000 hosts = 1000000000000"), std::string::npos) << ls;
    // 256 x 257 = 65 792 > 65 536; 256 x 256 passes this bound (and is then
    // refused by the leaves' 64 ports, as before).
    EXPECT_TRUE(Names(preset("roce-leafspine:leaves=256,hosts-per-leaf=257"), "preset.hosts_per_leaf"));
    EXPECT_TRUE(Names(preset("roce-leafspine:leaves=256,hosts-per-leaf=256"), "nodes[65536].ports"));
    EXPECT_TRUE(Names(preset("rail-h100-2n:spines=1,gpus-per-node=1000000"), "preset.gpus_per_node"));
    EXPECT_TRUE(Names(preset("dgx-h100:gpus=65537"), "preset.gpus"));
    EXPECT_EQ(MakePreset("fat-tree-k64").nodes.size(), 65536u + 5120u); // k^3/4 hosts + 5k^2/4 switches
}

TEST(TopologyDescription, RatesAndTimesInCoreUnits)
{
    // The units of every other flag and field (units.h), spaces allowed.
    nlohmann::json j = SmallJson();
    j["tiers"][0]["lane_rate"] = "200 Gb/s";
    j["tiers"][0]["delay"] = "0.005us";
    j["tiers"][0]["forwarding_latency"] = "100000ps";
    const TopologyDescription d = TopologyDescriptionFromJson(j);
    EXPECT_EQ(d.tiers[0].laneRate.GetBitRate(), 200000000000ull);
    EXPECT_EQ(d.tiers[0].delay, PicoSeconds(5000)); // 5e-9 s rounded to the picosecond
    EXPECT_EQ(d.tiers[0].forwardingLatency, NanoSeconds(100));
    // An error is an InputError; the scenario form puts its path in front.
    j["tiers"][0]["lane_rate"] = "400Gbs";
    try
    {
        TopologyFromScenarioJson({{"topology", j}});
        ADD_FAILURE() << "expected an InputError";
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(e.Field(), "topology.tiers[0].lane_rate");
        EXPECT_EQ(e.Expected(), "expected a rate like 450GB/s or 400Gbps, got unit 'Gbs' in '400Gbs'");
    }
}
