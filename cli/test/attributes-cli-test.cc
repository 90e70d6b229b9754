// SPDX-License-Identifier: GPL-2.0-only
//
// Any ns-3 attribute from the command line (--ns3::Type::Attribute=VALUE) and
// from a scenario's "attributes" object, driven as a user would: the value
// reaches the model and moves its result by the amount computed by hand; each
// wrong name or value is exit 2 with one line naming the flag or field; and
// hockney attributes lists what can be set.
#include "cli-runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

namespace
{

using hockney::CliResult;
using hockney::ExpectBadInput;
using hockney::RunHockney;
using hockney::TempPath;

nlohmann::json
RunRows(const std::string& args)
{
    CliResult r = RunHockney(args + " --format=json");
    EXPECT_EQ(r.status, 0) << args << "\nstderr: " << r.err;
    return r.status == 0 ? nlohmann::json::parse(r.out)["rows"] : nlohmann::json::array();
}

std::string
WriteScenario(const std::string& stem, const std::string& text)
{
    const std::string path = TempPath(stem + ".json");
    std::ofstream(path) << text;
    return path;
}

// Ring allreduce on the 8 GPUs of dgx-h100 is 2 (p - 1) = 14 sequential
// messages, so a per-message software overhead of 1 us adds 14 us to the
// alpha-beta backend (the builders derive Alpha and Beta from the topology but
// leave SoftwareOverhead at its default).
const char* kRing = "compare --backends=alphabeta --topology=dgx-h100 --collective=allreduce "
                    "--algorithm=ring --bytes=1MB";
constexpr double kRingOverhead = 14 * 1e-6;

double
RingTime(const std::string& extra)
{
    auto rows = RunRows(std::string(kRing) + " " + extra);
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? 0 : rows[0]["time_s"].get<double>();
}

} // namespace

TEST(AttributesCli, FlagReachesTheModelCommand)
{
    // T(1 MB) = alpha + o_sw + n / beta with the defaults alpha = 5 us, beta = 450 GB/s.
    auto plain = RunRows("model --bytes=1MB");
    auto slow = RunRows("model --bytes=1MB --ns3::AlphaBetaModel::SoftwareOverhead=1us");
    ASSERT_EQ(plain.size(), 1u);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_NEAR(plain[0]["time_s"].get<double>(), 5e-6 + 1e6 / 450e9, 1e-9 * 7.3e-6);
    EXPECT_NEAR(slow[0]["time_s"].get<double>(), 6e-6 + 1e6 / 450e9, 1e-9 * 8.3e-6);
    EXPECT_NEAR(slow[0]["alpha_s"].get<double>(), 6e-6, 1e-9 * 6e-6);
}

TEST(AttributesCli, FlagReachesCompare)
{
    const double plain = RingTime("");
    const double slow = RingTime("--ns3::AlphaBetaModel::SoftwareOverhead=1us");
    // 1e-12 s: the JSON carries about 16 digits of times near 3e-5 s.
    EXPECT_NEAR(slow - plain, kRingOverhead, 1e-12);
}

TEST(AttributesCli, FlagReachesThePacketBackend)
{
    // RdmaNic::MemoryRate is not derived by the builders. At 8 Gbps (1 GB/s),
    // each rank of a ring allreduce of 1 MB on 8 GPUs sends 2 (p - 1) / p x 1 MB
    // = 1.75 MB, so its NIC reads at least 1.75 MB from memory: >= 1.75 ms. At
    // most it also writes the 1.75 MB it receives through the same memory:
    // <= 3.5 ms. The default (26.8 Tb/s) run takes about 51 us.
    const std::string packet = "compare --backends=packet --topology=dgx-h100 --collective=allreduce "
                               "--algorithm=ring --bytes=1MB";
    auto plain = RunRows(packet);
    auto slow = RunRows(packet + " --ns3::RdmaNic::MemoryRate=8Gbps");
    ASSERT_EQ(plain.size(), 1u);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_LT(plain[0]["time_s"].get<double>(), 1e-4);
    EXPECT_GE(slow[0]["time_s"].get<double>(), 1.75e-3);
    EXPECT_LE(slow[0]["time_s"].get<double>(), 3.5e-3);
}

TEST(AttributesCli, ScenarioAttributesReachCompare)
{
    const double plain = RingTime("");
    const std::string path = WriteScenario("attrs", R"({"attributes":
        {"ns3::AlphaBetaModel::SoftwareOverhead": "1us", "ns3::Dcqcn::G": 0.00390625}})");
    const double slow = RingTime("--scenario=" + path);
    std::remove(path.c_str());
    EXPECT_NEAR(slow - plain, kRingOverhead, 1e-12);
}

TEST(AttributesCli, FlagOverridesTheScenario)
{
    const double plain = RingTime("");
    const std::string path = WriteScenario("attrs-override", R"({"attributes":
        {"ns3::AlphaBetaModel::SoftwareOverhead": "1us"}})");
    const double flagged = RingTime("--scenario=" + path + " --ns3::AlphaBetaModel::SoftwareOverhead=2us");
    std::remove(path.c_str());
    EXPECT_NEAR(flagged - plain, 2 * kRingOverhead, 1e-12);
}

TEST(AttributesCli, WrongTypeAttributeOrValueExitsTwoNamingTheFlag)
{
    ExpectBadInput("model --bytes=1MB --ns3::NoSuchType::G=1", "--ns3::NoSuchType::G");
    ExpectBadInput("model --bytes=1MB --ns3::Dcqcn::NoSuchAttribute=1", "--ns3::Dcqcn::NoSuchAttribute");
    ExpectBadInput("model --bytes=1MB --ns3::Dcqcn::G=x", "--ns3::Dcqcn::G");
    // ns-3 itself aborts on a malformed time or integer; these must be errors.
    ExpectBadInput("model --bytes=1MB --ns3::Dcqcn::CnpInterval=soon", "--ns3::Dcqcn::CnpInterval");
    ExpectBadInput("compare " + std::string("--ns3::Dcqcn::FastRecoverySteps=-1 --topology=dgx-h100"),
                   "--ns3::Dcqcn::FastRecoverySteps");
    ExpectBadInput("validate --ns3::Dcqcn::ClampTargetRate=maybe", "--ns3::Dcqcn::ClampTargetRate");
    ExpectBadInput("demo --ns3::Dcqcn::G", "--ns3::Dcqcn::G");
    CliResult r = RunHockney("model --ns3::Dcqcn::FastRecoverySteps=x");
    EXPECT_NE(r.err.find("expected an unsigned integer"), std::string::npos) << r.err;
}

TEST(AttributesCli, BadScenarioAttributeExitsTwoNamingTheField)
{
    const std::string path = WriteScenario("bad-attrs", R"({"attributes": {"ns3::Dcqcn::G": "x"}})");
    ExpectBadInput("compare --scenario=" + path, R"(scenario.attributes["ns3::Dcqcn::G"])");
    std::remove(path.c_str());
}

TEST(AttributesCli, ListsATypesAttributesWithDefaults)
{
    auto rows = RunRows("attributes ns3::Dcqcn");
    bool found = false;
    for (const auto& row : rows)
    {
        if (row["attribute"] == "ns3::Dcqcn::G")
        {
            found = true;
            // g = 1/256, the DCQCN paper's value (Zhu et al., SIGCOMM 2015).
            EXPECT_EQ(row["default"], "0.00390625");
            EXPECT_EQ(row["value_type"].get<std::string>().rfind("a number", 0), 0u);
        }
    }
    EXPECT_TRUE(found);
    // A --ns3:: flag changes the default the listing shows.
    for (const auto& row : RunRows("attributes ns3::Dcqcn --ns3::Dcqcn::G=0.5"))
    {
        if (row["attribute"] == "ns3::Dcqcn::G")
        {
            EXPECT_EQ(row["default"], "0.5");
        }
    }
}

TEST(AttributesCli, ListsOnlyHockneyTypesWithoutAType)
{
    auto rows = RunRows("attributes");
    bool dcqcn = false;
    bool alphaBeta = false;
    for (const auto& row : rows)
    {
        const std::string name = row["attribute"];
        dcqcn = dcqcn || name == "ns3::Dcqcn::G";
        alphaBeta = alphaBeta || name == "ns3::AlphaBetaModel::Alpha";
        EXPECT_EQ(name.rfind("ns3::Node::", 0), std::string::npos) << "ns-3's own types are not listed";
    }
    EXPECT_TRUE(dcqcn);
    EXPECT_TRUE(alphaBeta);
}

TEST(AttributesCli, UnknownTypeExitsTwoNamingIt)
{
    ExpectBadInput("attributes ns3::NoSuchType", "ns3::NoSuchType");
}
