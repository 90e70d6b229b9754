// SPDX-License-Identifier: GPL-2.0-only
//
// The executor's DependencyNotice: Instant releases a waiting op the
// instant the delivery happens; Message releases an op another GPU sends
// when an 8-byte notification from the receiving GPU reaches it through the
// transport, and reopens a NetStepsInFlight window by the receiver's credit
// message. Hand-made schedules on the tests' ideal links, 1 us + 80 ps per
// byte (100 Gb/s): a 1000 B op takes 1 us + 80 ns = 1080 ns, a notification
// 1 us + 8 x 80 ps = 1000.64 ns. Every time below is exact (whole
// picoseconds, the ideal link rounds nothing), so the checks are equalities.
#include "collective-executor.h"
#include "ideal-test-transport.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

// Functions, not constants: a Time made before the run sets picoseconds
// would be kept in nanoseconds.
Time
Op()
{
    return NanoSeconds(1080); // 1 us + 1000 B x 80 ps
}

Time
Notice()
{
    return PicoSeconds(1000640); // 1 us + 8 B x 80 ps
}

/// The ideal links, recording what a partitioned executor expects from other ranks.
class RecordingTransport : public hockney::IdealTestTransport
{
  public:
    RecordingTransport()
        : IdealTestTransport(4, {{MicroSeconds(1), DataRate("100Gbps")}})
    {
    }

    void ExpectTagged(uint32_t src, uint32_t dst, uint32_t tag, DeliveryCallback) override
    {
        expected.emplace_back(src, dst, tag);
    }

    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> expected;
};

class DependencyNoticeTest : public hockney::SimulatorTest
{
  protected:
    /// Four GPUs, one chunk of 1000 B per op.
    static CollectiveSchedule Schedule(const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                                       const std::vector<std::vector<uint32_t>>& deps)
    {
        CollectiveSchedule s("hand", 4);
        for (size_t i = 0; i < pairs.size(); ++i)
        {
            s.AddOp(pairs[i].first, pairs[i].second, {s.AddChunk(1000)}, false, deps[i], static_cast<uint32_t>(i));
        }
        return s;
    }

    /// Runs \p s in mode \p notice; the op start times (relative) and the messages sent.
    struct Result
    {
        Time total;
        std::vector<Time> start;
        uint64_t sent;
    };

    /// With \p slots: NCCL's slots (NetSlots), credits back \p creditDelay after a delivery.
    static Result Run(const CollectiveSchedule& s, DependencyNotice notice, uint32_t gpusPerNode = 0,
                      uint32_t slots = 0, Time creditDelay = Time(0))
    {
        auto transport = CreateObject<RecordingTransport>();
        Ptr<CollectiveExecutor> e = CreateObject<CollectiveExecutor>();
        e->SetAttribute("CheckSchedule", BooleanValue(false)); // hand-made: no data model
        e->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(notice)));
        e->SetAttribute("GpusPerNode", UintegerValue(gpusPerNode));
        e->SetAttribute("NetSlots", UintegerValue(slots));
        e->SetAttribute("NetCreditDelay", TimeValue(creditDelay));
        Result r;
        r.total = e->Run(s, transport);
        for (Time t : e->GetOpStartTimes())
        {
            r.start.push_back(t - e->GetStartTime());
        }
        r.sent = transport->sent;
        Simulator::Destroy();
        return r;
    }
};

TEST_F(DependencyNoticeTest, AnOpWaitingForAnotherGpusDeliveryStartsWhenTheNotificationArrives)
{
    // GPU 0 sends to 1, then to 2 once the first is delivered (at GPU 1).
    const CollectiveSchedule s = Schedule({{0, 1}, {0, 2}}, {{}, {0}});
    const Result instant = Run(s, DependencyNotice::INSTANT);
    EXPECT_EQ(instant.start[1], Op());
    EXPECT_EQ(instant.total, 2 * Op());
    EXPECT_EQ(instant.sent, 2u);
    // GPU 1's notification to GPU 0 first: 1080 + 1000.64 ns, then the op.
    const Result message = Run(s, DependencyNotice::MESSAGE);
    EXPECT_EQ(message.start[1], Op() + Notice());
    EXPECT_EQ(message.total, 2 * Op() + Notice());
    EXPECT_EQ(message.sent, 3u) << "the two ops and one notification";
}

TEST_F(DependencyNoticeTest, AnOpWaitingAtItsOwnReceiverNeedsNoNotification)
{
    // 0 -> 1, then 1 -> 2: GPU 1 received and sends, the same in both modes.
    const CollectiveSchedule s = Schedule({{0, 1}, {1, 2}}, {{}, {0}});
    const Result message = Run(s, DependencyNotice::MESSAGE);
    EXPECT_EQ(message.start[1], Op());
    EXPECT_EQ(message.total, 2 * Op());
    EXPECT_EQ(message.sent, 2u);
}

TEST_F(DependencyNoticeTest, OneNotificationPerWaitingGpu)
{
    // 0 -> 1 releases 2 -> 3 and 2 -> 0 (GPU 2: one notification for both)
    // and 1 -> 3 (at its receiver, at once).
    const CollectiveSchedule s = Schedule({{0, 1}, {2, 3}, {2, 0}, {1, 3}}, {{}, {0}, {0}, {0}});
    const Result message = Run(s, DependencyNotice::MESSAGE);
    EXPECT_EQ(message.start[1], Op() + Notice());
    EXPECT_EQ(message.start[2], Op() + Notice());
    EXPECT_EQ(message.start[3], Op());
    EXPECT_EQ(message.total, 2 * Op() + Notice());
    EXPECT_EQ(message.sent, 5u) << "four ops and one notification";
    const Result instant = Run(s, DependencyNotice::INSTANT);
    EXPECT_EQ(instant.total, 2 * Op());
    EXPECT_EQ(instant.sent, 4u);
}

TEST_F(DependencyNoticeTest, TheWindowReopensByTheReceiversCredit)
{
    // One GPU per node, NetStepsInFlight 1: three ops 0 -> 1 one after the
    // other. Instant: each starts at the previous delivery. Message: at the
    // arrival of the receiver's credit, sent for the first two only (none
    // is left in flight at the end).
    const CollectiveSchedule s = Schedule({{0, 1}, {0, 1}, {0, 1}}, {{}, {}, {}});
    const Result instant = Run(s, DependencyNotice::INSTANT, 1);
    EXPECT_EQ(instant.start[2], 2 * Op());
    EXPECT_EQ(instant.total, 3 * Op());
    EXPECT_EQ(instant.sent, 3u);
    const Result message = Run(s, DependencyNotice::MESSAGE, 1);
    EXPECT_EQ(message.start[1], Op() + Notice());
    EXPECT_EQ(message.start[2], 2 * (Op() + Notice()));
    EXPECT_EQ(message.total, 3 * Op() + 2 * Notice());
    EXPECT_EQ(message.sent, 5u) << "three ops and two credits";
}

TEST_F(DependencyNoticeTest, NcclSlotsComeBackByTheReceiversCreditMessage)
{
    // Three ops 0 -> 1 of 1000 B, Simple: one slice each holding 4 slots
    // (a chunk under 32 KiB, NcclEndpoint::NetSlices), 8 slots: ops 0 and 1
    // go at once, op 2 when 4 slots are back. 12 slots in all, so the
    // sender needs R = 12 - 8 = 4 back: one credit, the first arrival's
    // (none is in flight at the end).
    const CollectiveSchedule s = Schedule({{0, 1}, {0, 1}, {0, 1}}, {{}, {}, {}});
    const Result instant = Run(s, DependencyNotice::INSTANT, 1, 8);
    EXPECT_EQ(instant.total, 2 * Op()) << "op 2's slice at the first delivery";
    EXPECT_EQ(instant.sent, 3u);
    // The credit (8 B) leaves at the first delivery: op 2 goes at 1080 + 1000.64 ns.
    const Result message = Run(s, DependencyNotice::MESSAGE, 1, 8);
    EXPECT_EQ(message.total, 2 * Op() + Notice());
    EXPECT_EQ(message.sent, 4u) << "three slices and one credit";
    // NetCreditDelay: the receiver posts the credit 5 us after the delivery.
    const Result delayed = Run(s, DependencyNotice::MESSAGE, 1, 8, MicroSeconds(5));
    EXPECT_EQ(delayed.total, 2 * Op() + MicroSeconds(5) + Notice());
    EXPECT_EQ(delayed.sent, 4u);
    const Result instantDelayed = Run(s, DependencyNotice::INSTANT, 1, 8, MicroSeconds(5));
    EXPECT_EQ(instantDelayed.total, 2 * Op() + MicroSeconds(5));
}

TEST_F(DependencyNoticeTest, TheLastSlotCreditReturnsOnlyWhatTheSenderStillNeeds)
{
    // 6 slots, three 4-slot slices: 12 in all, R = 12 - 6 = 6 to come back.
    // Op 0 goes (4 in use); op 1 waits (4 + 4 > 6) for credit 0 (4 slots,
    // at 1080 + 1000.64 ns), then holds 4; op 2 waits for credit 1, which
    // returns min(4, 6 - 4) = 2 slots: 2 + 4 <= 6, it goes. Two credits,
    // the three ops in sequence: 3 ops + 2 credits.
    const CollectiveSchedule s = Schedule({{0, 1}, {0, 1}, {0, 1}}, {{}, {}, {}});
    const Result message = Run(s, DependencyNotice::MESSAGE, 1, 6);
    EXPECT_EQ(message.start[2], Time(0)) << "an op starts at its step latency (0), its slices wait for slots";
    EXPECT_EQ(message.total, 3 * Op() + 2 * Notice());
    EXPECT_EQ(message.sent, 5u) << "three slices and two credits";
    const Result instant = Run(s, DependencyNotice::INSTANT, 1, 6);
    EXPECT_EQ(instant.total, 3 * Op());
    // A slice wider than the window (4 slots, 2 of them) goes alone and
    // holds the whole window: the same sequence, R = 3 x 2 - 2 = 4, two
    // credits of 2.
    const Result narrow = Run(s, DependencyNotice::MESSAGE, 1, 2);
    EXPECT_EQ(narrow.total, 3 * Op() + 2 * Notice());
    EXPECT_EQ(narrow.sent, 5u);
    // Everything fits (two slices of 4 slots in 8): no credit at all.
    const Result fits = Run(Schedule({{0, 1}, {0, 1}}, {{}, {}}), DependencyNotice::MESSAGE, 1, 8);
    EXPECT_EQ(fits.total, Op());
    EXPECT_EQ(fits.sent, 2u);
    // 16 slots: two NCCL channels a connection, each op's 1000 B as two
    // slices of 500 B (4 slots each, 1 us + 40 ns): 24 slots, R = 8, two
    // credits, sent at the first two arrivals; op 2's slices go when both
    // are in.
    const Result two = Run(s, DependencyNotice::MESSAGE, 1, 16);
    EXPECT_EQ(two.total, 2 * NanoSeconds(1040) + Notice());
    EXPECT_EQ(two.sent, 8u) << "six slices and two credits";
}

TEST_F(DependencyNoticeTest, OneProcessTakesTheSendersOrderWhenTheOpsCutDifferently)
{
    // 8 slots; op 0 of 64 KiB (two slices of 32 KiB, 2 slots each), ops 1
    // and 2 of 1000 B (one slice of 4): 12 slots, R = 4. Posted: op 0's two
    // and op 1's (8 in use); op 2 waits. Op 1's slice arrives first (1080
    // ns), op 0's at 1 us + 32768 x 80 ps = 3621.44 ns. The k-th arrival's
    // credit is min(s_k, R - P_{k-1}) of the sender's k-th posted slice:
    // 2 at op 1's arrival (op 0's first slice), 2 at op 0's first (its
    // second): op 2 goes when the second credit is in, at 3621.44 + 1000.64
    // ns, and arrives 1080 ns later. No third credit.
    CollectiveSchedule s("mixed", 4);
    s.AddOp(0, 1, {s.AddChunk(65536)}, false, {}, 0);
    s.AddOp(0, 1, {s.AddChunk(1000)}, false, {}, 1);
    s.AddOp(0, 1, {s.AddChunk(1000)}, false, {}, 2);
    const Result message = Run(s, DependencyNotice::MESSAGE, 1, 8);
    EXPECT_EQ(message.total, PicoSeconds(3621440) + Notice() + Op());
    EXPECT_EQ(message.sent, 6u) << "four slices and two credits";
    // Instant: op 1's 4 slots come back at its delivery, op 2 goes then.
    const Result instant = Run(s, DependencyNotice::INSTANT, 1, 8);
    EXPECT_EQ(instant.total, PicoSeconds(3621440));
}

/// The ideal links, keeping what a partitioned executor expects (by tag) to fire it by hand.
class ExpectingTransport : public hockney::IdealTestTransport
{
  public:
    ExpectingTransport()
        : IdealTestTransport(4, {{MicroSeconds(1), DataRate("100Gbps")}})
    {
    }

    void ExpectTagged(uint32_t, uint32_t, uint32_t tag, DeliveryCallback cb) override
    {
        expected[tag] = std::move(cb);
    }

    std::map<uint32_t, DeliveryCallback> expected;
};

TEST_F(DependencyNoticeTest, AReceivingRankCompletesSlicedOpsAndSendsTheCredits)
{
    // MPI rank 1 of APartitionedRankExpectsTheSlicesAndTheSlotCredits: the
    // three slices from GPU 0 (rank 0) arrive one by one (their tags 6, 8,
    // 10); the first sends the one credit (R = 12 - 8 = 4 slots), the
    // others none; each op is in with its one slice.
    const CollectiveSchedule s = Schedule({{0, 2}, {0, 2}, {0, 2}}, {{}, {}, {}});
    auto transport = CreateObject<ExpectingTransport>();
    Ptr<CollectiveExecutor> e = CreateObject<CollectiveExecutor>();
    e->SetAttribute("CheckSchedule", BooleanValue(false));
    e->SetAttribute("GpusPerNode", UintegerValue(2));
    e->SetAttribute("NetSlots", UintegerValue(8));
    e->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::MESSAGE)));
    e->SetPartition({0, 0, 1, 1}, 1);
    e->Start(s, transport);
    ASSERT_EQ(transport->expected.size(), 3u);
    EXPECT_EQ(e->GetLocalOps(), 3u);
    uint32_t delivered = 0;
    for (uint32_t tag : {6u, 8u, 10u})
    {
        transport->expected.at(tag)();
        EXPECT_EQ(e->GetDeliveredOps(), ++delivered);
        EXPECT_EQ(transport->sent, 1u) << "the first arrival's credit only, after slice tag " << tag;
    }
    EXPECT_TRUE(e->IsComplete());
    Simulator::Destroy();
}

TEST_F(DependencyNoticeTest, APartitionedRankExpectsTheSlicesAndTheSlotCredits)
{
    // GPUs 0-1 on MPI rank 0, 2-3 on rank 1, two a node; three ops 0 -> 2
    // of one 4-slot slice each, 8 slots. Tags: the ops' 0-5, no notice or
    // window; the slices 6, 8, 10 (two a slice, its legs); the connection's
    // credits from 12 (three tags, one a slice), of which R = 12 - 8 = 4
    // slots need one. Rank 1 expects the slices, rank 0 the credit.
    const CollectiveSchedule s = Schedule({{0, 2}, {0, 2}, {0, 2}}, {{}, {}, {}});
    for (uint32_t rank : {0u, 1u})
    {
        auto transport = CreateObject<RecordingTransport>();
        Ptr<CollectiveExecutor> e = CreateObject<CollectiveExecutor>();
        e->SetAttribute("CheckSchedule", BooleanValue(false));
        e->SetAttribute("GpusPerNode", UintegerValue(2));
        e->SetAttribute("NetSlots", UintegerValue(8));
        e->SetPartition({0, 0, 1, 1}, rank);
        EXPECT_THROW(e->Start(s, transport), std::logic_error) << "instant: the slots come back by shared memory";
        e->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::MESSAGE)));
        e->Start(s, transport);
        using Expected = std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>;
        if (rank == 1)
        {
            EXPECT_EQ(transport->expected, (Expected{{0, 2, 6}, {0, 2, 8}, {0, 2, 10}}));
            EXPECT_EQ(transport->sent, 0u);
        }
        else
        {
            EXPECT_EQ(transport->expected, (Expected{{2, 0, 12}}));
            EXPECT_EQ(transport->sent, 2u) << "two slices fit the 8 slots";
        }
        Simulator::Destroy();
    }
}

TEST_F(DependencyNoticeTest, APartitionedRankExpectsTheNotificationsToItsGpus)
{
    // GPUs 0-1 on MPI rank 0, 2-3 on rank 1. Op 0: 0 -> 1; op 1: 2 -> 3
    // waits for op 0 (notification GPU 1 -> 2, tag 2 x 2 ops + 0 = 4, the
    // first past the ops' legs). Rank 1 expects it; rank 0 sends it.
    const CollectiveSchedule s = Schedule({{0, 1}, {2, 3}}, {{}, {0}});
    auto transport = CreateObject<RecordingTransport>();
    Ptr<CollectiveExecutor> e = CreateObject<CollectiveExecutor>();
    e->SetAttribute("CheckSchedule", BooleanValue(false));
    e->SetPartition({0, 0, 1, 1}, 1);
    EXPECT_THROW(e->Start(s, transport), std::logic_error) << "instant: refused";
    e->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(DependencyNotice::MESSAGE)));
    e->Start(s, transport);
    ASSERT_EQ(transport->expected.size(), 1u);
    EXPECT_EQ(transport->expected[0], std::make_tuple(1u, 2u, 4u));
    EXPECT_EQ(transport->sent, 0u) << "op 1 waits for the notification";
    Simulator::Destroy();
}

/// The ideal links, recording the tag of every message and counting those sent without one.
class TagRecordingTransport : public hockney::IdealTestTransport
{
  public:
    TagRecordingTransport()
        : IdealTestTransport(4, {{MicroSeconds(1), DataRate("100Gbps")}})
    {
    }

    void SendTagged(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t tag, DeliveryCallback cb) override
    {
        tags.emplace_back(src, tag);
        IdealTestTransport::Send(src, dst, bytes, std::move(cb));
    }

    void Send(uint32_t src, uint32_t dst, uint64_t bytes, DeliveryCallback cb) override
    {
        ++untagged;
        IdealTestTransport::Send(src, dst, bytes, std::move(cb));
    }

    std::vector<std::pair<uint32_t, uint32_t>> tags;
    uint32_t untagged = 0;
};

TEST_F(DependencyNoticeTest, NcclSlicesTakeTagsNoOpOrNoticeHas)
{
    // GPU 0 sends op 0 over NVLink (0 -> 1, same node of 2 GPUs) and op 1
    // across nodes (0 -> 2) in NCCL's slots; op 2 (3 -> 2, NVLink) waits for
    // op 1, delivered at GPU 2 (under Message a notice 2 -> 3, tag 2 x 3 ops = 6).
    // The packet transport names a message by (sender, id): a slice numbered
    // by the messenger's own count (1, 2, ...) could take the id of op 0's
    // tag (0) or of a notice while it is in flight, and the second message
    // would take the first's delivery callback (the op never completes).
    // Every message is tagged, no sender uses a tag twice, and the slices'
    // tags follow the ops' and the notice's.
    const CollectiveSchedule s = Schedule({{0, 1}, {0, 2}, {3, 2}}, {{}, {}, {1}});
    for (DependencyNotice notice : {DependencyNotice::INSTANT, DependencyNotice::MESSAGE})
    {
        const uint32_t firstSliceTag = notice == DependencyNotice::MESSAGE ? 7 : 6;
        auto transport = CreateObject<TagRecordingTransport>();
        Ptr<CollectiveExecutor> e = CreateObject<CollectiveExecutor>();
        e->SetAttribute("CheckSchedule", BooleanValue(false));
        e->SetAttribute("GpusPerNode", UintegerValue(2));
        e->SetAttribute("NetSlots", UintegerValue(8));
        e->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(notice)));
        e->Run(s, transport);
        EXPECT_EQ(e->GetDeliveredOps(), 3u);
        EXPECT_EQ(transport->untagged, 0u);
        std::set<std::pair<uint32_t, uint32_t>> distinct(transport->tags.begin(), transport->tags.end());
        EXPECT_EQ(distinct.size(), transport->tags.size());
        uint32_t slices = 0;
        for (const auto& [src, tag] : transport->tags)
        {
            const bool op = (src == 0 && tag == 0) || (src == 3 && tag == 4);
            const bool noticed = notice == DependencyNotice::MESSAGE && src == 2 && tag == 6;
            slices += (!op && !noticed) ? 1 : 0;
            EXPECT_TRUE(op || noticed || (src == 0 && tag >= firstSliceTag)) << "tag " << tag << " from GPU " << src;
        }
        EXPECT_GE(slices, 1u) << "op 1 goes in slices";
        Simulator::Destroy();
    }
}

} // namespace
