// SPDX-License-Identifier: GPL-2.0-only
//
// The published cases file (validation/published-cases.json): the shipped file
// parses into the cases the published comparison runs, each naming a log that
// is in validation/data; a malformed case is an InputError naming its field.
#include "accuracy-experiment.h"
#include "collective-algorithm-registry.h"
#include "input-error.h"
#include "published-comparison.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

using namespace ns3;

namespace
{

const std::string kCasesPath = std::string(HOCKNEY_SOURCE_DIR) + "/validation/" + kPublishedCasesFile;

nlohmann::json
GoodCases()
{
    return {{"cases",
             {{{"name", "one node"},
               {"measurement", "raw/x.txt"},
               {"topology", "dgx-h100"},
               {"collective", "allreduce"},
               {"ranks", 8},
               {"models",
                {{{"label", "ring"},
                  {"algorithm", "ring"},
                  {"channels", 1},
                  {"backends", {"closed", "flow"}},
                  {"packet_up_to", "4MB"}}}}}}}};
}

/// The message of the InputError \p j raises (fails the test if none).
std::string
ErrorOf(const nlohmann::json& j)
{
    try
    {
        ParsePublishedCases(j, "p.json");
    }
    catch (const InputError& e)
    {
        return e.what();
    }
    ADD_FAILURE() << "no InputError for " << j.dump();
    return "";
}

} // namespace

TEST(PublishedCases, ShippedFileParsesIntoTheTwelvePublishedRuns)
{
    // Missing or unreadable: LoadPublishedCases throws and the test fails.
    const std::vector<PublishedCase> cases = LoadPublishedCases(kCasesPath);
    ASSERT_EQ(cases.size(), 12u);
    // The 8xH100 NVSwitch ring: 8 ranks, one channel, packet runs up to 4 MB
    // (4 x 10^6 B), 64 MB under --full.
    EXPECT_EQ(cases[0].topology, "dgx-h100");
    EXPECT_EQ(cases[0].ranks, 8u);
    EXPECT_EQ(cases[0].collective, CollectiveKind::ALL_REDUCE);
    ASSERT_EQ(cases[0].models.size(), 1u);
    EXPECT_EQ(cases[0].models[0].channels, 1u);
    EXPECT_EQ(cases[0].models[0].packetUpTo, 4000000u);
    EXPECT_EQ(cases[0].models[0].packetUpToFull, 64000000u);
    // 2, 4, 8 nodes of 8 GPUs: 16, 32, 64 ranks; one ring per NIC (8
    // channels), the hierarchical algorithm with packet runs up to 1 MiB
    // (2^20 B) on 2 nodes and none on 8, and what NCCL ran ("nccl": the
    // ring NCCL_ALGO=Ring forces on 2 nodes, NCCL's choice on 4 and 8;
    // protocol auto, 8 channels), the model the fidelity table judges.
    for (size_t i = 1; i < 4; ++i)
    {
        EXPECT_EQ(cases[i].ranks, 8u << i) << cases[i].name;
        ASSERT_EQ(cases[i].models.size(), 3u);
        EXPECT_EQ(cases[i].models[0].channels, 8u);
        EXPECT_EQ(cases[i].models[1].algorithm, "hierarchical");
        EXPECT_EQ(cases[i].models[2].algorithm, i == 1 ? "ring" : "auto");
        EXPECT_EQ(cases[i].models[2].protocol, "auto");
        EXPECT_EQ(cases[i].models[2].channels, 8u);
        EXPECT_EQ(cases[i].fidelity.model, "nccl");
    }
    EXPECT_EQ(cases[1].models[1].packetUpTo, 1u << 20);
    EXPECT_EQ(cases[1].models[1].packetUpToFull, 16u << 20);
    EXPECT_EQ(cases[3].models[1].packetUpTo, 0u);
    EXPECT_EQ(cases[3].models[1].packetUpToFull, 0u);
    // Every case has a fidelity section; the NVSwitch ring's goal class and
    // its sizes (one a band: 2^15, 2^19, 2^22, 2^26 B).
    for (const auto& c : cases)
    {
        EXPECT_TRUE(c.fidelity.present) << c.name;
    }
    EXPECT_EQ(cases[0].fidelity.goal, "nvswitch-ring");
    EXPECT_EQ(cases[0].fidelity.sizes, (std::vector<uint64_t>{32768, 524288, 4194304, 67108864}));
    EXPECT_EQ(cases[0].fidelity.packetUpTo, UINT64_MAX);
    EXPECT_EQ(cases[2].fidelity.goal, "multi-node");
    EXPECT_EQ(cases[2].fidelity.packetUpTo, UINT64_MAX);
    // The NVLS log ran with NCCL_ALGO unset: NCCL's choice, "auto" (kept as written).
    EXPECT_EQ(cases[4].models[0].algorithm, "auto");
    // i309 D (2 nodes, 16 ranks) and F (8 nodes, 64 ranks): NCCL's choice on
    // one ring per NIC, judged against the multi-node goal; no case runs
    // NCCL's slots (off by default).
    EXPECT_EQ(cases[10].measurement, "raw/i309_D.txt");
    EXPECT_EQ(cases[10].ranks, 16u);
    EXPECT_EQ(cases[11].measurement, "raw/i309_F.txt");
    EXPECT_EQ(cases[11].ranks, 64u);
    for (size_t i = 10; i < 12; ++i)
    {
        ASSERT_EQ(cases[i].models.size(), 1u);
        EXPECT_EQ(cases[i].models[0].algorithm, "auto");
        EXPECT_EQ(cases[i].models[0].channels, 8u);
        EXPECT_EQ(cases[i].fidelity.model, "nccl");
        EXPECT_EQ(cases[i].fidelity.goal, "multi-node");
    }
    for (const auto& c : cases)
    {
        for (const auto& m : c.models)
        {
            EXPECT_EQ(m.netSlots, 0u) << c.name << ", " << m.label;
        }
    }
    // Every log it names is shipped.
    for (const auto& c : cases)
    {
        EXPECT_TRUE(std::filesystem::exists(std::string(HOCKNEY_SOURCE_DIR) + "/validation/data/" + c.measurement))
            << c.measurement;
    }
}

TEST(PublishedCases, TheExperimentLoaderLeavesTheCasesFileOut)
{
    for (const auto& e : LoadAccuracyExperiments(std::string(HOCKNEY_SOURCE_DIR) + "/validation"))
    {
        EXPECT_NE(e.file, kPublishedCasesFile);
    }
}

TEST(PublishedCases, MalformedCasesNameTheirField)
{
    EXPECT_NO_THROW(ParsePublishedCases(GoodCases(), "p.json"));
    EXPECT_EQ(ParsePublishedCases(GoodCases(), "p.json")[0].models[0].packetUpToFull, 0u);

    nlohmann::json j = GoodCases();
    j["cases"][0]["ranks"] = "eight";
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].ranks:"), std::string::npos) << ErrorOf(j);

    // More ranks than the topology's 8 GPUs: refused when the file is read,
    // not reported as a case that could not run.
    j = GoodCases();
    j["cases"][0]["ranks"] = 9;
    EXPECT_EQ(ErrorOf(j), "p.json: cases[0].ranks: expected at most the 8 endpoints of dgx-h100, got 9");

    j = GoodCases();
    j["cases"][0]["fidelity"] = {{"model", "tree"}, {"sizes", {"4MiB"}}};
    EXPECT_EQ(ErrorOf(j), "p.json: cases[0].fidelity.model: expected the label of one of the case's models, got 'tree'");
    j["cases"][0]["fidelity"] = {{"model", "ring"}, {"goal", "5 %"}, {"sizes", {"4MiB"}}};
    EXPECT_EQ(ErrorOf(j), "p.json: cases[0].fidelity.goal: expected nvswitch-ring or multi-node, got '5 %'");
    j["cases"][0]["fidelity"] = {{"model", "ring"}, {"sizes", nlohmann::json::array()}};
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].fidelity.sizes:"), std::string::npos) << ErrorOf(j);
    j["cases"][0]["fidelity"] = {{"model", "ring"}, {"sizes", {"4MiB"}}};
    EXPECT_NO_THROW(ParsePublishedCases(j, "p.json"));
    j = GoodCases();
    j["cases"][0]["models"][0]["algorithm"] = {"no-such", "also-not"};
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].models[0].algorithm: expected a list with at least one of ring"),
              std::string::npos)
        << ErrorOf(j);

    j = GoodCases();
    j["cases"][0].erase("topology");
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].topology:"), std::string::npos) << ErrorOf(j);

    j = GoodCases();
    j["cases"][0]["topology"] = "no-such-preset";
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].topology:"), std::string::npos) << ErrorOf(j);

    j = GoodCases();
    j["cases"][0]["collective"] = "allsum";
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].collective:"), std::string::npos) << ErrorOf(j);

    j = GoodCases();
    j["cases"][0]["models"][0]["backends"] = {"closed", "abacus"};
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].models[0].backends:"), std::string::npos) << ErrorOf(j);

    j = GoodCases();
    j["cases"][0]["models"][0]["packet_up_to"] = "4 parsecs";
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].models[0].packet_up_to:"), std::string::npos) << ErrorOf(j);

    j = GoodCases();
    j["cases"][0]["models"][0]["algorithm"] = "zigzag";
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].models[0].algorithm:"), std::string::npos) << ErrorOf(j);
    // "auto" (NCCL's choice per size) is not a registered name but a model.
    j["cases"][0]["models"][0]["algorithm"] = "auto";
    EXPECT_EQ(ParsePublishedCases(j, "p.json")[0].models[0].algorithm, "auto");

    // NCCL's slots: 8 x the NCCL channels a schedule channel stands for, on
    // NCCL's endpoint model only; set as the executor's attributes while the
    // model runs (16 slots, credit 2 us = 2000000 ps).
    j = GoodCases();
    j["cases"][0]["models"][0]["protocol"] = "auto";
    j["cases"][0]["models"][0]["net_slots"] = 16;
    j["cases"][0]["models"][0]["net_credit_delay"] = "2us";
    const PublishedCase slotted = ParsePublishedCases(j, "p.json")[0];
    EXPECT_EQ(slotted.models[0].netSlots, 16u);
    EXPECT_EQ(slotted.models[0].netCreditDelay, MicroSeconds(2));
    const ComparisonConfig sc = PublishedModelConfig(slotted, slotted.models[0], {{1048576, 1e-4}});
    EXPECT_EQ(sc.attributes,
              (std::vector<std::pair<std::string, std::string>>{{"ns3::CollectiveExecutor::NetSlots", "16"},
                                                                {"ns3::CollectiveExecutor::NetCreditDelay", "2000000ps"}}));
    // Without the field: no attribute, the executor's default (off).
    EXPECT_TRUE(PublishedModelConfig(slotted, ParsePublishedCases(GoodCases(), "p.json")[0].models[0], {{1048576, 1e-4}})
                    .attributes.empty());
    const std::string slotsError = "p.json: cases[0].models[0].net_slots: expected a multiple of 8 from 8 to 512 "
                                   "(NCCL's slots x channels) with a protocol, got ";
    for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(12), nlohmann::json(520), nlohmann::json(-8),
                                      nlohmann::json(8.5), nlohmann::json("16")})
    {
        j["cases"][0]["models"][0]["net_slots"] = bad;
        EXPECT_EQ(ErrorOf(j), slotsError + bad.dump());
    }
    j["cases"][0]["models"][0]["net_slots"] = 8;
    j["cases"][0]["models"][0].erase("protocol");
    EXPECT_EQ(ErrorOf(j), slotsError + "8");
    j["cases"][0]["models"][0]["protocol"] = "auto";
    j["cases"][0]["models"][0]["net_credit_delay"] = "-1us";
    EXPECT_EQ(ErrorOf(j).rfind("p.json: cases[0].models[0].net_credit_delay: ", 0), 0u) << ErrorOf(j);
    j["cases"][0]["models"][0]["net_credit_delay"] = "2us";
    j["cases"][0]["models"][0].erase("net_slots");
    EXPECT_EQ(ErrorOf(j), "p.json: cases[0].models[0].net_credit_delay: expected only with net_slots (the slots' credit)");

    j = GoodCases();
    j["cases"][0]["colour"] = "red";
    EXPECT_NE(ErrorOf(j).find("p.json: cases[0].colour: unknown field"), std::string::npos) << ErrorOf(j);

    j = GoodCases();
    j["cases"] = nlohmann::json::array();
    EXPECT_NE(ErrorOf(j).find("p.json: cases:"), std::string::npos) << ErrorOf(j);

    EXPECT_THROW(LoadPublishedCases("/nonexistent/published-cases.json"), InputError);
}
