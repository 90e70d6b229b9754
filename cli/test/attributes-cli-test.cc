// SPDX-License-Identifier: GPL-2.0-only
//
// Any ns-3 attribute from the command line (--ns3::Type::Attribute=VALUE) and
// from a scenario's "attributes" object, driven as a user would: the value
// reaches the model and moves its result by the amount computed by hand; each
// wrong name or value is exit 2 with one line naming the flag or field; and
// hockney attributes lists what can be set.
//
// An attribute the user sets explicitly (--ns3:: flag, a scenario's
// "attributes", a key of a congestion-control object) is never overwritten
// silently by a builder's derived value: it wins (ECN thresholds, NIC MTU,
// DCQCN over its preset), or the run stops with exit 2 naming it (link rate,
// analytic alpha and beta, values that contradict the topology).
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
using hockney::RunRows;
using hockney::TempPath;

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

/// The one row of `hockney ARGS --format=json`.
nlohmann::json
FirstRow(const std::string& args)
{
    auto rows = RunRows(args);
    EXPECT_EQ(rows.size(), 1u) << args;
    return rows.empty() ? nlohmann::json::object() : rows[0];
}

const std::string kIncast = "compare --backends=packet --topology=roce-leafspine --collective=incast";

/// A 4 MB incast on roce-leafspine with the congestion control \p cc and the
/// attributes object \p attributes (JSON texts).
std::string
IncastScenario(const std::string& stem, const std::string& cc, const std::string& attributes = "{}")
{
    return "compare --scenario=" +
           WriteScenario(stem, R"({"topology": "roce-leafspine", "collective": "incast", "sizes": "4MB",
                             "backends": "packet", "fabric": {"congestion_control": )" +
                              cc + R"(}, "attributes": )" + attributes + "}");
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

TEST(AttributePrecedenceCli, EcnThresholdsOfTheFlagsWinOverThePerRateTable)
{
    // The per-rate table marks from 400 KB at 100 Gb/s: a 1 MB incast of 31
    // senders barely reaches it. Kmin 5 KB, Kmax 200 KB (the DCQCN paper's
    // marking) marks from a few packets of queue on.
    const auto plain = FirstRow(kIncast + " --bytes=1MB");
    const auto low = FirstRow(kIncast + " --bytes=1MB --ns3::FabricEcnMarker::Kmin=5000 --ns3::FabricEcnMarker::Kmax=200000");
    EXPECT_LE(plain["ecn_marks"].get<int>(), 5);
    EXPECT_GE(low["ecn_marks"].get<int>(), 10 * std::max(1, plain["ecn_marks"].get<int>()));
}

TEST(AttributePrecedenceCli, NicMtuOfTheFlagWinsOverThePathMtu)
{
    // Two ranks on one leaf: the sender's 500000 B cross two links (NIC ->
    // leaf -> NIC). The derived NIC MTU is 4096 B (123 packets); 512 B makes
    // 977 packets; the endpoint's control messages are the same in both.
    const std::string args = kIncast + " --ranks=2 --bytes=1MB";
    const auto plain = FirstRow(args);
    const auto small = FirstRow(args + " --ns3::RdmaNic::Mtu=512");
    EXPECT_EQ(small["data_hops"].get<int>() - plain["data_hops"].get<int>(), 2 * (977 - 123));
    ExpectBadInput(args + " --ns3::RdmaNic::Mtu=9000", "--ns3::RdmaNic::Mtu");
}

TEST(AttributePrecedenceCli, SwitchLatencyOfTheFlagWinsOverTheTier)
{
    // Two ranks on one leaf, 2000 B: one eager packet through one switch, so
    // the run's time moves by exactly the change of the forwarding latency.
    const std::string args = kIncast + " --ranks=2 --bytes=4KB --ns3::FabricSwitch::ForwardingLatency=";
    const double fast = FirstRow(args + "1us")["time_s"].get<double>();
    const double slow = FirstRow(args + "3us")["time_s"].get<double>();
    EXPECT_NEAR(slow - fast, 2e-6, 1e-12);
}

TEST(AttributePrecedenceCli, ScenarioDcqcnAttributeChangesTheRun)
{
    // The notification point sends at most one CNP per flow per CnpInterval:
    // 4 us instead of 50 us lets more CNPs out.
    const auto plain = FirstRow(IncastScenario("dcqcn-plain", R"("dcqcn")"));
    const auto fast = FirstRow(IncastScenario("dcqcn-fast", R"("dcqcn")", R"({"ns3::Dcqcn::CnpInterval": "4us"})"));
    EXPECT_GT(fast["cnps"].get<int>(), plain["cnps"].get<int>());
}

TEST(AttributePrecedenceCli, EcnMarkingTableByName)
{
    // At 100 Gb/s the linear table gives 100 x 100 / 25 = 400 KB and 1600 KB,
    // Pmax 0.2: the per-rate table's row, so the run is the same to the
    // event. The paper's table (5 KB, 200 KB, 1 %) marks from a much smaller
    // queue: more marks on the same incast.
    const std::string scenario =
        R"({"topology": "roce-leafspine", "collective": "incast", "sizes": "4MB", "backends": "packet",
            "fabric": {"congestion_control": "dcqcn", "ecn_marking": )";
    const auto perRate = FirstRow("compare --scenario=" + WriteScenario("ecn-per-rate", scenario + R"("per-rate"}})"));
    const auto linear = FirstRow("compare --scenario=" + WriteScenario("ecn-linear", scenario + R"("linear"}})"));
    const auto paper = FirstRow("compare --scenario=" + WriteScenario("ecn-paper", scenario + R"("paper"}})"));
    EXPECT_EQ(linear["ecn_marks"], perRate["ecn_marks"]);
    EXPECT_EQ(linear["events"], perRate["events"]);
    EXPECT_GT(paper["ecn_marks"].get<int>(), perRate["ecn_marks"].get<int>()) << paper << perRate;
    ExpectBadInput("compare --scenario=" + WriteScenario("ecn-bad", scenario + R"("deep"}})"),
                   "scenario.fabric.ecn_marking");
    // One value per attribute: the table and the same attribute again refused.
    ExpectBadInput("compare --scenario=" +
                       WriteScenario("ecn-twice", scenario + R"("paper"}, "attributes": {"ns3::FabricEcnMarker::Table": "Linear"}})"),
                   "scenario.attributes");
}

TEST(AttributePrecedenceCli, PresetThenObjectKeysThenFlags)
{
    // A preset changes the run; a flag for one of its attributes is applied
    // after it, exactly as the same key in the object.
    const auto paper = FirstRow(IncastScenario("cc-paper", R"({"name": "dcqcn"})"));
    const auto production = FirstRow(IncastScenario("cc-production", R"({"name": "dcqcn", "preset": "production"})"));
    EXPECT_NE(production["cnps"], paper["cnps"]);
    // production echoes congestion on ACKs (no CNP packets, as the HPCC
    // simulator's run.py); the key switches CNP packets back on.
    EXPECT_EQ(production["cnps"], 0);
    const auto key =
        FirstRow(IncastScenario("cc-key", R"({"name": "dcqcn", "preset": "production", "Notification": "CnpPacket"})"));
    const auto flag = FirstRow(IncastScenario("cc-flag", R"({"name": "dcqcn", "preset": "production"})") +
                          " --ns3::Dcqcn::Notification=CnpPacket");
    EXPECT_GT(key["cnps"], 0);
    EXPECT_EQ(flag["cnps"], key["cnps"]);
    EXPECT_EQ(flag["events"], key["events"]);
}

TEST(AttributePrecedenceCli, CongestionControlObjectErrors)
{
    const std::string f = "scenario.fabric.congestion_control";
    ExpectBadInput(IncastScenario("cc-bad-preset", R"({"name": "dcqcn", "preset": "fast"})"), f + ".preset");
    ExpectBadInput(IncastScenario("cc-bad-key", R"({"name": "dcqcn", "Gee": 0.5})"), f + ".Gee");
    ExpectBadInput(IncastScenario("cc-bad-value", R"({"name": "dcqcn", "G": "x"})"), f + ".G");
    ExpectBadInput(IncastScenario("cc-no-name", R"({"preset": "paper"})"), f + ".name");
    ExpectBadInput(IncastScenario("cc-twice", R"({"name": "dcqcn", "G": 0.5})", R"({"ns3::Dcqcn::G": "0.25"})"),
                   f + ".G");
    // The error lists the valid attributes.
    CliResult r = RunHockney(IncastScenario("cc-list", R"({"name": "dcqcn", "Gee": 0.5})"));
    EXPECT_NE(r.err.find("CnpInterval"), std::string::npos) << r.err;
}

TEST(AttributePrecedenceCli, ConflictsStopTheRunNamingTheAttribute)
{
    // A link's rate is its tier's, which the analytic rows use as well.
    ExpectBadInput(kIncast + " --bytes=1MB --ns3::FabricNetDevice::DataRate=10Gbps", "--ns3::FabricNetDevice::DataRate");
    ExpectBadInput(kIncast + " --bytes=1MB --ns3::FabricNetDevice::Mtu=1500", "--ns3::FabricNetDevice::Mtu");
    ExpectBadInput(kIncast + " --bytes=1MB --ns3::FabricEcnMarker::Kmin=3000000", "--ns3::FabricEcnMarker::Kmin");
    // compare derives alpha and beta per link level.
    ExpectBadInput("compare --topology=dgx-h100 --bytes=1MB --ns3::AlphaBetaModel::Beta=100GB/s",
                   "--ns3::AlphaBetaModel::Beta");
    const std::string scenario =
        WriteScenario("alpha", R"({"topology": "dgx-h100", "attributes": {"ns3::AlphaBetaModel::Alpha": "3us"}})");
    ExpectBadInput("compare --scenario=" + scenario, "scenario.attributes[\"ns3::AlphaBetaModel::Alpha\"]");
    ExpectBadInput("compare --topology=dgx-h100 --bytes=1MB --backends=loggp --ns3::LogGpModel::o=1us",
                   "--ns3::LogGpModel::o");
    // model: the attribute is the starting point, a flag for the same
    // parameter would overwrite it.
    ExpectBadInput("model --bytes=1MB --alpha=2us --ns3::AlphaBetaModel::Alpha=7us", "--ns3::AlphaBetaModel::Alpha");
    // calibrate fits the parameters: a default of the models takes no part.
    ExpectBadInput("calibrate --input=" HOCKNEY_SOURCE_DIR "/validation/data/perftest_ib_write_bw_HDR200_cx6.csv "
                   "--ns3::AlphaBetaModel::N0=5",
                   "--ns3::AlphaBetaModel::N0");
}

TEST(AttributePrecedenceCli, ModelTakesAlphaFromTheAttribute)
{
    // T(1 MB) = alpha + n / beta with beta's default 450 GB/s.
    const auto r = FirstRow("model --bytes=1MB --ns3::AlphaBetaModel::Alpha=7us");
    EXPECT_NEAR(r["time_s"].get<double>(), 7e-6 + 1e6 / 450e9, 1e-9 * 9.3e-6);
}

TEST(AttributePrecedenceCli, NicPresetIsItsAttributes)
{
    // fabric.nic "roce-100g" sets the NICs' attributes to the preset's
    // values (rdma-helper.cc): the run equals the one with those five flags,
    // and differs from the derived NIC (MTU 4096 instead of 1024).
    const std::string base = R"({"topology": "roce-leafspine", "collective": "incast", "ranks": 2,
                                 "sizes": "1MB", "backends": "packet")";
    const auto derived = FirstRow("compare --scenario=" + WriteScenario("nic-none", base + "}"));
    const auto preset =
        FirstRow("compare --scenario=" + WriteScenario("nic-roce", base + R"(, "fabric": {"nic": "roce-100g"}})"));
    const auto flags = FirstRow("compare --scenario=" + WriteScenario("nic-flags", base + "}") +
                                " --ns3::RdmaNic::Mtu=1024 --ns3::RdmaNic::PcieRate=252Gbps"
                                " --ns3::RdmaNic::PcieLatency=120ns --ns3::RdmaNic::EngineStartup=0s"
                                " --ns3::RdmaNic::AckInterval=64");
    EXPECT_EQ(preset["time_s"], flags["time_s"]);
    EXPECT_EQ(preset["data_hops"], flags["data_hops"]);
    // 500000 B in 1024-byte packets over two links: 2 x 489, plus the same
    // control messages as with 4096-byte packets (2 x 123).
    EXPECT_EQ(preset["data_hops"].get<int>() - derived["data_hops"].get<int>(), 2 * (489 - 123));
    // A user's flag still wins over the preset.
    const auto mtu = FirstRow("compare --scenario=" +
                              WriteScenario("nic-mtu", base + R"(, "fabric": {"nic": "roce-100g"}})") +
                              " --ns3::RdmaNic::Mtu=4096");
    EXPECT_EQ(mtu["data_hops"], derived["data_hops"]);
}

TEST(AttributePrecedenceCli, NicPresetErrors)
{
    const std::string base = R"({"topology": "roce-leafspine", "collective": "incast", "sizes": "1MB",
                                 "backends": "packet", "fabric": {"nic": )";
    ExpectBadInput("compare --scenario=" + WriteScenario("nic-bad", base + R"("cx9"}})"), "scenario.fabric.nic");
    // A 400 Gb/s preset on the 100 Gb/s leaf ports.
    ExpectBadInput("compare --scenario=" + WriteScenario("nic-rate", base + R"("cx7-ndr-ib"}})"),
                   "scenario.fabric.nic");
    // dgx-h100 has no Ethernet or InfiniBand NIC for the preset to apply to.
    ExpectBadInput("compare --scenario=" + WriteScenario("nic-none-there",
                                                         R"({"topology": "dgx-h100", "sizes": "1MB",
                                                             "backends": "packet", "fabric": {"nic": "roce-100g"}})"),
                   "scenario.fabric.nic");
}
