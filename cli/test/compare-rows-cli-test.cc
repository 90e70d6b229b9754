// SPDX-License-Identifier: GPL-2.0-only
//
// What a compare row claims is what the backend did: the flow row does not
// claim given parameters it does not use, a calibration fit of another
// collective is named on stderr, the closed form's regime is its own, a busbw
// no link of a rank can carry is flagged, and hierarchical rows show both
// levels' parameters.
#include "cli-runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace
{

using hockney::CliResult;
using hockney::RunHockney;
using hockney::RunRows;
using hockney::TempPath;

nlohmann::json
RowOf(const nlohmann::json& rows, const std::string& backend)
{
    for (const auto& r : rows)
    {
        if (r["backend"] == backend)
        {
            return r;
        }
    }
    ADD_FAILURE() << "no " << backend << " row";
    return nlohmann::json::object();
}

const std::string kRailH = "compare --topology=rail-h100-2n --algorithm=hierarchical --bytes=1MB";
const std::string kA2a = "compare --topology=fat-tree --collective=alltoall --algorithm=all-at-once --bytes=16MB";

} // namespace

TEST(CompareRowsCli, FlowRowDoesNotClaimGivenParameters)
{
    // The flow model routes over the topology: the same time with or without
    // --alpha/--beta, and its row names the topology as its parameter source.
    const auto derived = RowOf(RunRows(kRailH), "flow");
    const auto given = RowOf(RunRows(kRailH + " --alpha=3us --beta=100GB/s"), "flow");
    EXPECT_EQ(given["time_s"], derived["time_s"]);
    EXPECT_EQ(given["params"], "topology");
    EXPECT_TRUE(given["alpha_s"].is_null());
    EXPECT_TRUE(given["beta_Bps"].is_null());
    EXPECT_EQ(derived["params"], "derived");
    // The closed form does use them: 3 us and 100 GB/s are in its row.
    const auto closed = RowOf(RunRows(kRailH + " --alpha=3us --beta=100GB/s"), "closed");
    EXPECT_EQ(closed["params"], "given");
    EXPECT_NEAR(closed["alpha_s"].get<double>(), 3e-6, 1e-15);
}

TEST(CompareRowsCli, CalibrationOfAnotherCollectiveIsNamed)
{
    const std::string params = TempPath("allreduce-fit.json");
    CliResult cal = RunHockney("calibrate --input=" HOCKNEY_SOURCE_DIR "/validation/data/nccl_allreduce_ring_8xH100_nvswitch_together.csv "
                               "--output=" + params);
    ASSERT_EQ(cal.status, 0) << cal.err;
    CliResult other = RunHockney("compare --collective=allgather --backends=closed --bytes=1MB --calibration=" + params);
    EXPECT_EQ(other.status, 0) << other.err;
    EXPECT_NE(other.err.find("no alphabeta fit of allgather; using its fit of allreduce"), std::string::npos)
        << other.err;
    CliResult same = RunHockney("compare --collective=allreduce --backends=closed --bytes=1MB --calibration=" + params);
    EXPECT_EQ(same.status, 0) << same.err;
    EXPECT_EQ(same.err.find("warning"), std::string::npos) << same.err;
    std::remove(params.c_str());
}

TEST(CompareRowsCli, ClosedFormRegimeIsItsOwn)
{
    // 16 MB all-at-once AllToAll on the fat tree: the flow model is far above
    // the closed form (contention), but the closed form itself is
    // contention-free; its n/beta terms dominate its few microseconds of alpha.
    const auto rows = RunRows(kA2a + " --backends=closed,flow");
    EXPECT_EQ(RowOf(rows, "flow")["regime"], "contention");
    const auto closed = RowOf(rows, "closed");
    EXPECT_EQ(closed["regime"], "bandwidth-bound");
    EXPECT_GT(closed["time_s"].get<double>(), 10 * closed["alpha_s"].get<double>());
}

TEST(CompareRowsCli, BusbwAboveTheLinkIsFlagged)
{
    CliResult r = RunHockney(kA2a + " --backends=closed,flow --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = nlohmann::json::parse(r.out)["rows"];
    const auto closed = RowOf(rows, "closed");
    // A rank's busbw is what its own link must carry: above beta it cannot.
    ASSERT_GT(closed["busbw_GBps"].get<double>() * 1e9, closed["beta_Bps"].get<double>());
    ASSERT_TRUE(closed.contains("warning"));
    EXPECT_NE(closed["warning"].get<std::string>().find("exceeds the fastest link"), std::string::npos);
    EXPECT_NE(r.err.find("warning: closed 16000000 B: busbw"), std::string::npos) << r.err;
    // The flow model shares the links: below beta, no warning.
    const auto flow = RowOf(rows, "flow");
    EXPECT_LT(flow["busbw_GBps"].get<double>() * 1e9, closed["beta_Bps"].get<double>());
    EXPECT_TRUE(!flow.contains("warning") || flow["warning"].is_null());
    // A ring AllReduce on dgx-h100 stays within its NVLink.
    for (const auto& row : RunRows("compare --topology=dgx-h100 --bytes=16MB"))
    {
        EXPECT_TRUE(!row.contains("warning") || row["warning"].is_null()) << row.dump();
    }
}

TEST(CompareRowsCli, HierarchicalRowsShowBothLevels)
{
    // NVLink level: 450 GB/s with a 16 B header per 256 B link packet; the
    // inter-node level is a 400 Gb/s NIC (50 GB/s less its framing).
    const auto closed = RowOf(RunRows(kRailH), "closed");
    EXPECT_NEAR(closed["beta_Bps"].get<double>(), 450e9 * 256 / 272, 1e-6 * 450e9);
    EXPECT_GT(closed["inter_beta_Bps"].get<double>(), 45e9);
    EXPECT_LT(closed["inter_beta_Bps"].get<double>(), 50e9);
    EXPECT_GT(closed["inter_alpha_s"].get<double>(), closed["alpha_s"].get<double>());
}

TEST(CompareRowsCli, HpccRunsOnARailClusterWithPcieSwitches)
{
    // INT hops are stamped at the network switches only: the PCIe switches
    // of rail-h100-2n (504 Gb/s, outside INT's rate code) are not hops, so
    // the run completes and conserves its bytes: each of 16 ranks sends a
    // 64000 / 16 = 4000 B block to each of its 15 peers.
    const std::string path = TempPath("hpcc-rail.json");
    std::ofstream(path) << (R"({"topology": "rail-h100-2n", "collective": "alltoall", "sizes": ["64KB"],
                                 "backends": ["packet"], "fabric": {"congestion_control": "hpcc"}})");
    const auto rows = RunRows("compare --scenario=" + path);
    const nlohmann::json packet = RowOf(rows, "packet");
    EXPECT_EQ(packet["status"], "complete");
    EXPECT_EQ(packet["bytes_sent"], 16 * 15 * 4000);
    EXPECT_EQ(packet["bytes_delivered"], 16 * 15 * 4000);
    EXPECT_EQ(packet["drops"], 0);
}

TEST(CompareRowsCli, NothingNamedIsSilentlyDropped)
{
    // The ideal fabric has no congestion control and derived NICs: naming
    // either with it is refused rather than dropped.
    for (const char* key : {R"("congestion_control": "hpcc")", R"("nic": "roce-100g")"})
    {
        const std::string path = TempPath("ideal.json");
        std::ofstream(path) << (std::string(R"({"topology": "roce-leafspine", "fabric": {"ideal": true, )") + key +
                                "}}");
        hockney::ExpectBadInput("compare --scenario=" + path, "scenario.fabric.");
    }
    // The sampling interval of --traces means nothing without it.
    hockney::ExpectBadInput("compare --topology=dgx-h100 --trace-interval=2us", "--trace-interval");
}

TEST(CompareRowsCli, UserAckIntervalWinsOverHpccPerPacketAcks)
{
    // HPCC's QPs ask for an ACK on every packet; a user's AckInterval wins:
    // with 64 the 1 MB incast (245 packets of 4096 B per sender) sends far
    // fewer ACKs, so fewer control hops.
    const std::string path = TempPath("hpcc-ack.json");
    std::ofstream(path) << (R"({"topology": "roce-leafspine", "collective": "incast", "sizes": ["1MB"], "ranks": 4,
                                 "backends": ["packet"], "fabric": {"congestion_control": "hpcc"}})");
    const auto perPacket = RowOf(RunRows("compare --scenario=" + path), "packet");
    const auto coalesced = RowOf(RunRows("compare --scenario=" + path + " --ns3::RdmaNic::AckInterval=64"), "packet");
    EXPECT_EQ(perPacket["status"], "complete");
    EXPECT_EQ(coalesced["status"], "complete");
    EXPECT_LT(2 * coalesced["control_hops"].get<int>(), perPacket["control_hops"].get<int>())
        << coalesced << perPacket;
}

TEST(CompareRowsCli, FlowControlAttributesOfTheUserWin)
{
    // The builder sets each port's credit buffer from the tier; a user's
    // PeerBufferBytes now wins: 8 KB of credit (two 4 KB transfer units) per
    // NVLink hop instead of 64 KB throttles every link to what one credit
    // round trip returns, so the same 1 MB ring takes longer (it took the
    // same time while the builder overwrote the value).
    const std::string ring = "compare --topology=dgx-h100 --bytes=1MB --backends=packet";
    const double plain = RowOf(RunRows(ring), "packet")["time_s"].get<double>();
    const double small =
        RowOf(RunRows(ring + " --ns3::FabricCreditFlowControl::PeerBufferBytes=8192"), "packet")["time_s"].get<double>();
    EXPECT_GT(small, 1.2 * plain) << small << " vs " << plain;
}

TEST(CompareRowsCli, AttributesTheRunSetsItselfAreRefused)
{
    const std::string ring = "compare --topology=dgx-h100 --bytes=1MB --backends=packet";
    hockney::ExpectBadInput(ring + " --ns3::FabricNetwork::NvlinkTransferUnitBytes=65536",
                            "--ns3::FabricNetwork::NvlinkTransferUnitBytes");
    hockney::ExpectBadInput(ring + " --ns3::CollectiveExecutor::TimeLimit=1ms", "--ns3::CollectiveExecutor::TimeLimit");
    // A flow that starts after the packet run's simulated time limit.
    const std::string path = TempPath("late-flow.json");
    std::ofstream(path) << (R"({"topology": "roce-leafspine", "backends": ["flow", "packet"],
                                 "flows": [{"src": "h1", "dst": "h0", "bytes": "1MB", "start": "11s"}]})");
    hockney::ExpectBadInput("compare --scenario=" + path, "scenario.flows[0].start");
}

TEST(CompareRowsCli, IdealFabricFlowRowTakesTheUsersEndpointCost)
{
    // The ideal fabric's endpoints cost nothing, except what the user sets:
    // the flow model adds it per message like the packet endpoints do. A ring
    // AllReduce on 8 GPUs is 2 (8 - 1) = 14 sequential messages, so 5 us of
    // send overhead adds exactly 70 us (1 ns covers the printed digits).
    const std::string path = TempPath("ideal-flow.json");
    std::ofstream(path) << (R"({"topology": "dgx-h100", "sizes": ["1MB"], "backends": ["flow"],
                                 "fabric": {"ideal": true}})");
    const double plain = RowOf(RunRows("compare --scenario=" + path), "flow")["time_s"].get<double>();
    const double slow =
        RowOf(RunRows("compare --scenario=" + path + " --ns3::RdmaEndpoint::SendOverhead=5us"), "flow")["time_s"]
            .get<double>();
    EXPECT_NEAR(slow - plain, 70e-6, 1e-9);
}

TEST(CompareRowsCli, NetworkTransferUnitsCrossACreditClusterToTheEnd)
{
    // An AllToAll on rail-h100-2n in units of 16 and 64 KiB (64 and 256 of
    // the NICs' 256 B packets) crosses the InfiniBand rail leaves and spines,
    // credit ports that take packets in early. Each unit's credit must come
    // back whole: when it came back short by 63 or 255 framings a hop, the
    // links' credit ran out after some 30 messages and the run stalled
    // (fabric watchdog). 16 ranks x 15 peers x 1 MB: every byte delivered,
    // nothing dropped.
    for (const char* unit : {"16384", "65536"})
    {
        const auto row = RowOf(RunRows(std::string("compare --topology=rail-h100-2n --collective=alltoall "
                                                   "--algorithm=pairwise --bytes=16MB --backends=packet "
                                                   "--network-transfer-unit=") +
                                       unit),
                               "packet");
        EXPECT_EQ(row["status"], "complete") << unit;
        EXPECT_EQ(row["bytes_sent"], 16 * 15 * 1000000) << unit;
        EXPECT_EQ(row["bytes_delivered"], row["bytes_sent"]) << unit;
        EXPECT_EQ(row["drops"], 0) << unit;
    }
}

TEST(CompareRowsCli, NetworkTransferUnitRowAndRefusals)
{
    // 1 MB incast on roce-leafspine (31 senders of 31 250 B, each one unit
    // of 8 link packets at 64 KiB): every byte sent is delivered, nothing
    // dropped, and the row says the unit. Per MTU packet: 0 in the row.
    const std::string incast = "compare --topology=roce-leafspine --collective=incast --bytes=1MB --backends=packet";
    const auto unit = RowOf(RunRows(incast + " --network-transfer-unit=65536"), "packet");
    EXPECT_EQ(unit["network_transfer_unit_bytes"], 65536);
    EXPECT_EQ(unit["bytes_delivered"], unit["bytes_sent"]);
    EXPECT_EQ(unit["bytes_sent"], 31 * 31250);
    EXPECT_EQ(unit["drops"], 0);
    EXPECT_EQ(RowOf(RunRows(incast), "packet")["network_transfer_unit_bytes"], 0);
    // Not a multiple of the NICs' 4096 B path MTU, above 256 of them, not a
    // number, with pcap, with a PCIe unit (rail: the NIC sends the PCIe
    // unit), or set as the attributes the run sets itself.
    hockney::ExpectBadInput(incast + " --network-transfer-unit=10000", "--network-transfer-unit");
    hockney::ExpectBadInput(incast + " --network-transfer-unit=2097152", "--network-transfer-unit");
    hockney::ExpectBadInput(incast + " --network-transfer-unit=64KB", "--network-transfer-unit");
    hockney::ExpectBadInput(incast + " --network-transfer-unit=65536 --pcap=" + TempPath("unit-pcap"),
                            "--network-transfer-unit");
    hockney::ExpectBadInput("compare --topology=rail-h100-2n --bytes=1MB --backends=packet --pcie-transfer-unit=4096 "
                            "--network-transfer-unit=65536",
                            "--network-transfer-unit");
    hockney::ExpectBadInput(incast + " --ns3::RdmaNic::TransferUnitBytes=65536", "--ns3::RdmaNic::TransferUnitBytes");
    hockney::ExpectBadInput(incast + " --ns3::FabricNetDevice::UnitLinkPackets=16",
                            "--ns3::FabricNetDevice::UnitLinkPackets");
}
