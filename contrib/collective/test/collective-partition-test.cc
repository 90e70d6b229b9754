// SPDX-License-Identifier: GPL-2.0-only
//
// What a partitioned (MPI) run could not reproduce exactly, found from the
// schedule, the GPUs' MPI ranks and the executor's attributes
// (CollectiveExecutor::FindCrossRankDependency): hand-made schedules of four
// GPUs, GPUs 0-1 on MPI rank 0 and 2-3 on rank 1, each case built so that
// exactly one op is (or no op is) in the way; and the connections made in
// dependency order before anything is sent.
#include "collective-executor.h"
#include "ideal-test-transport.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

const std::vector<uint32_t> kTwoRanks = {0, 0, 1, 1};

class CollectivePartitionTest : public hockney::SimulatorTest
{
  protected:
    /// Four GPUs, one chunk of 1000 B per op.
    CollectiveSchedule Schedule(const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                                const std::vector<std::vector<uint32_t>>& deps)
    {
        CollectiveSchedule s("hand", 4);
        for (size_t i = 0; i < pairs.size(); ++i)
        {
            const uint32_t chunk = s.AddChunk(1000);
            s.AddOp(pairs[i].first, pairs[i].second, {chunk}, false, deps[i], static_cast<uint32_t>(i));
        }
        return s;
    }

    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
};

TEST_F(CollectivePartitionTest, AnOpWaitingForADeliveryOnItsOwnRankIsFine)
{
    // 0 -> 1, then 1 -> 2 waiting for it: GPU 1 receives and sends, both on rank 0.
    EXPECT_EQ(exec->FindCrossRankDependency(Schedule({{0, 1}, {1, 2}}, {{}, {0}}), kTwoRanks), "");
    // Every GPU on one rank: nothing crosses.
    EXPECT_EQ(exec->FindCrossRankDependency(Schedule({{0, 1}, {2, 3}}, {{}, {0}}), {0, 0, 0, 0}), "");
}

TEST_F(CollectivePartitionTest, AnOpWaitingForADeliveryOnAnotherRankIsNamed)
{
    // 2 -> 3 waits for 0 -> 1: delivered at GPU 1 (rank 0), started at GPU 2 (rank 1).
    const std::string got = exec->FindCrossRankDependency(Schedule({{0, 1}, {2, 3}}, {{}, {0}}), kTwoRanks);
    EXPECT_EQ(got, "hand: op 1 (GPU 2 -> 3, step 1) waits for op 0 delivered at GPU 1 on MPI rank 0, but starts at "
                   "GPU 2 on MPI rank 1; a dependency across MPI ranks must travel as a message: pass "
                   "--dependencies=message (the executor's DependencyNotice)");
    // Waiting for an op it sent itself is waiting for its delivery, at GPU 2 (rank 1).
    EXPECT_NE(exec->FindCrossRankDependency(Schedule({{0, 2}, {0, 1}}, {{}, {0}}), kTwoRanks)
                  .find("op 1 (GPU 0 -> 1, step 1) waits for op 0 delivered at GPU 2 on MPI rank 1"),
              std::string::npos);
    EXPECT_THROW(exec->FindCrossRankDependency(Schedule({{0, 1}}, {{}}), {0, 0}), std::invalid_argument);
    // As messages, both dependencies cross ranks (a notification from GPU 1, from GPU 2).
    exec->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::MESSAGE)));
    EXPECT_EQ(exec->FindCrossRankDependency(Schedule({{0, 1}, {2, 3}}, {{}, {0}}), kTwoRanks), "");
    EXPECT_EQ(exec->FindCrossRankDependency(Schedule({{0, 2}, {0, 1}}, {{}, {0}}), kTwoRanks), "");
}

TEST_F(CollectivePartitionTest, TheNetworkWindowAcrossRanksIsNamedOnceItCanClose)
{
    // Two ops 0 -> 2 on nodes of 2 GPUs: the second waits for the window
    // (NetStepsInFlight 1) that the first's delivery at GPU 2 reopens.
    const CollectiveSchedule s = Schedule({{0, 2}, {0, 2}}, {{}, {}});
    exec->SetAttribute("GpusPerNode", UintegerValue(2));
    EXPECT_NE(exec->FindCrossRankDependency(s, kTwoRanks)
                  .find("op 1 (GPU 0 -> 2, step 1) is message 2 of the network connection from GPU 0 on MPI rank 0 "
                        "to GPU 2 on MPI rank 1, whose window of NetStepsInFlight 1"),
              std::string::npos);
    EXPECT_NE(exec->FindCrossRankDependency(s, kTwoRanks).find("pass --dependencies=message"), std::string::npos);
    exec->SetAttribute("NetStepsInFlight", UintegerValue(2)); // both fit: the window never closes
    EXPECT_EQ(exec->FindCrossRankDependency(s, kTwoRanks), "");
    exec->SetAttribute("NetStepsInFlight", UintegerValue(0)); // no window
    EXPECT_EQ(exec->FindCrossRankDependency(s, kTwoRanks), "");
    // The receiver's credit as a message reopens the window across ranks.
    exec->SetAttribute("NetStepsInFlight", UintegerValue(1));
    exec->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::MESSAGE)));
    EXPECT_EQ(exec->FindCrossRankDependency(s, kTwoRanks), "");
    // NCCL's slots: their credits as messages only.
    exec->SetAttribute("NetSlots", UintegerValue(8));
    EXPECT_EQ(exec->FindCrossRankDependency(s, kTwoRanks), "") << "two ops cut alike";
    exec->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::INSTANT)));
    const std::string instant = exec->FindCrossRankDependency(s, kTwoRanks);
    EXPECT_NE(instant.find("in NCCL's slots (NetSlots 8), whose credits return from the receiver"), std::string::npos);
    EXPECT_NE(instant.find("pass --dependencies=message"), std::string::npos);
    // Ops of 1000 B (one slice of 4 slots) and 64 KiB (two of 2) on one
    // connection: the sequence of slots depends on which goes first.
    exec->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::MESSAGE)));
    CollectiveSchedule mixed("mixed", 4);
    mixed.AddOp(0, 2, {mixed.AddChunk(1000)}, false, {}, 0);
    mixed.AddOp(0, 2, {mixed.AddChunk(65536)}, false, {}, 1);
    EXPECT_NE(exec->FindCrossRankDependency(mixed, kTwoRanks)
                  .find("op 0 (GPU 0 -> 2, step 0) crosses from GPU 0 on MPI rank 0 to GPU 2 on MPI rank 1 in NCCL's "
                        "slots (NetSlots 8) on a connection whose ops cut into different slot sequences"),
              std::string::npos);
    // 1000 B and 2000 B: one 4-slot slice each, the same sequence either way.
    CollectiveSchedule uniform("uniform", 4);
    uniform.AddOp(0, 2, {uniform.AddChunk(1000)}, false, {}, 0);
    uniform.AddOp(0, 2, {uniform.AddChunk(2000)}, false, {}, 1);
    EXPECT_EQ(exec->FindCrossRankDependency(uniform, kTwoRanks), "");
}

TEST_F(CollectivePartitionTest, ACopyRateAcrossRanksNeedsTheReadyFlag)
{
    // LL: the delivery at GPU 2 waits for GPU 0's copy, which rank 1 cannot
    // see unless the sender's ready flag tells it (messages).
    const CollectiveSchedule s = Schedule({{0, 2}}, {{}});
    exec->SetAttribute("Protocol", EnumValue(static_cast<int>(NcclProtocol::LL)));
    EXPECT_NE(exec->FindCrossRankDependency(s, kTwoRanks).find("under protocol ll"), std::string::npos);
    EXPECT_NE(exec->FindCrossRankDependency(s, kTwoRanks).find("pass --dependencies=message"), std::string::npos);
    EXPECT_EQ(exec->FindCrossRankDependency(Schedule({{0, 1}}, {{}}), kTwoRanks), "") << "inside rank 0";
    exec->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::MESSAGE)));
    EXPECT_EQ(exec->FindCrossRankDependency(s, kTwoRanks), "");
    // In NCCL's slots: no flag (the slots' credits are not messages yet).
    exec->SetAttribute("GpusPerNode", UintegerValue(2));
    exec->SetAttribute("NetSlots", UintegerValue(8));
    EXPECT_NE(exec->FindCrossRankDependency(s, kTwoRanks).find("in NCCL's slots"), std::string::npos);
}

TEST_F(CollectivePartitionTest, AProxyOrASwitchGroupAcrossRanksIsNamed)
{
    CollectiveSchedule pxn("pxn", 4);
    pxn.AddOp(0, 2, {pxn.AddChunk(1000)}, false, {}, 0, 1); // through GPU 1 (rank 0) to GPU 2 (rank 1)
    EXPECT_NE(exec->FindCrossRankDependency(pxn, kTwoRanks)
                  .find("goes through its PXN proxy GPU 1 on MPI rank 0 to GPU 2 on MPI rank 1, which must learn"),
              std::string::npos);
    EXPECT_NE(exec->FindCrossRankDependency(pxn, kTwoRanks).find("pass --dependencies=message"), std::string::npos);
    EXPECT_EQ(exec->FindCrossRankDependency(pxn, {0, 0, 0, 0}), "");
    // The proxy away from the sender: both legs start at the sender.
    CollectiveSchedule away("away", 4);
    away.AddOp(0, 3, {away.AddChunk(1000)}, false, {}, 0, 2); // through GPU 2 (rank 1)
    CollectiveSchedule nvls("nvls", 4);
    const uint32_t chunk = nvls.AddChunk(1000);
    nvls.AddSwitchOp(0, 1, {chunk}, 0, {}, 0);
    nvls.AddSwitchOp(2, 3, {chunk}, 0, {}, 0);
    EXPECT_NE(exec->FindCrossRankDependency(nvls, kTwoRanks)
                  .find("op 1 (GPU 2 -> 3, step 0) is in in-switch group 0 with op 0, on MPI rank 0"),
              std::string::npos);
    EXPECT_NE(exec->FindCrossRankDependency(away, kTwoRanks)
                  .find("goes through its PXN proxy GPU 2 on MPI rank 1, but starts at GPU 0 on MPI rank 0"),
              std::string::npos);
    // Messages carry the proxy's ready flag, not a relay started away from
    // its sender nor the switch's sum.
    exec->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::MESSAGE)));
    EXPECT_EQ(exec->FindCrossRankDependency(pxn, kTwoRanks), "");
    EXPECT_NE(exec->FindCrossRankDependency(away, kTwoRanks).find("but starts at GPU 0"), std::string::npos);
    EXPECT_NE(exec->FindCrossRankDependency(nvls, kTwoRanks).find("is in in-switch group 0"), std::string::npos);
}

TEST_F(CollectivePartitionTest, APartitionedExecutorRefusesWhatItCannotRun)
{
    // Start checks what compare checked: an op waiting across ranks throws
    // before anything is sent.
    auto transport = CreateObject<hockney::IdealTestTransport>(
        4, std::vector<hockney::IdealTestTransport::Level>{{MicroSeconds(1), DataRate("100Gbps")}});
    exec->SetPartition(kTwoRanks, 0);
    EXPECT_THROW(exec->Start(Schedule({{0, 1}, {2, 3}}, {{}, {0}}), transport), std::logic_error);
    EXPECT_EQ(transport->sent, 0u);
}

TEST_F(CollectivePartitionTest, OneRankOfAllIsOneProcess)
{
    // Every GPU on this rank: the same time as without a partition, one
    // message (1 us + 1000 B at 100 Gb/s = 80 ns) after the other.
    auto run = [this](bool partitioned) {
        auto transport = CreateObject<hockney::IdealTestTransport>(
            4, std::vector<hockney::IdealTestTransport::Level>{{MicroSeconds(1), DataRate("100Gbps")}});
        Ptr<CollectiveExecutor> e = CreateObject<CollectiveExecutor>();
        e->SetAttribute("CheckSchedule", BooleanValue(false)); // hand-made: no data model
        if (partitioned)
        {
            e->SetPartition({0, 0, 0, 0}, 0);
        }
        const Time t = e->Run(Schedule({{0, 1}, {1, 2}}, {{}, {0}}), transport);
        EXPECT_EQ(e->GetLocalOps(), 2u);
        Simulator::Destroy();
        return t;
    };
    EXPECT_EQ(run(false), NanoSeconds(2 * 1080));
    EXPECT_EQ(run(true), NanoSeconds(2 * 1080));
}

} // namespace
