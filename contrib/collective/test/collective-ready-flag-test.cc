// SPDX-License-Identifier: GPL-2.0-only
//
// The executor's ready flag (DependencyNotice Message): a PXN op's proxy
// posts an 8 B flag to the receiver when the NVLink leg has landed, an LL or
// LL128 op's sender when its copy ends, and the op is delivered when its
// last leg and its flag are in. Hand-made schedules on the tests' ideal
// links (no contention): one level of 1 us + 80 ps per byte (100 Gb/s), so
// a 1000 B op takes 1080 ns and a flag 1 us + 8 x 80 ps = 1000.64 ns; or
// two levels, GPUs 0-1 and 2-3 in two nodes, across them 2 us + 800 ps per
// byte (10 Gb/s): 1000 B in 2800 ns, a flag in 2006.4 ns. Every time below
// is a whole number of picoseconds the ideal link does not round, so the
// checks are equalities. The split runs put two executors (MPI ranks 0 and
// 1) on one simulator, joined only through tagged messages: what each rank
// sees of the other is what travels, as under mpirun.
#include "collective-executor.h"
#include "ideal-test-transport.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

const std::vector<uint32_t> kTwoRanks = {0, 0, 1, 1};

/// The ideal links; a tagged message sent without a callback (its receiver
/// on another MPI rank) is delivered to the callback that rank registered.
class LoopbackTransport : public hockney::IdealTestTransport
{
  public:
    explicit LoopbackTransport(bool twoLevels)
        : IdealTestTransport(4,
                             {{MicroSeconds(1), DataRate("100Gbps")}, {MicroSeconds(2), DataRate("10Gbps")}},
                             [twoLevels](uint32_t a, uint32_t b) { return twoLevels && a / 2 != b / 2 ? 1u : 0u; })
    {
    }

    void SendTagged(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t tag, DeliveryCallback cb) override
    {
        ++tagged;
        log.emplace_back(src, dst, bytes);
        if (cb)
        {
            IdealTestTransport::Send(src, dst, bytes, std::move(cb));
            return;
        }
        // Looked up at the arrival: the other rank's executor may start
        // (and register) after this one sent.
        IdealTestTransport::Send(src, dst, bytes, [this, src, tag]() {
            auto it = m_expected.find({src, tag});
            if (it == m_expected.end())
            {
                throw std::logic_error("no rank expects tag " + std::to_string(tag) + " from GPU " +
                                       std::to_string(src));
            }
            DeliveryCallback expected = std::move(it->second);
            m_expected.erase(it);
            expected();
        });
    }

    void ExpectTagged(uint32_t src, uint32_t, uint32_t tag, DeliveryCallback cb) override
    {
        m_expected[{src, tag}] = std::move(cb);
    }

    uint32_t tagged = 0;
    std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> log; ///< every tagged message: src, dst, bytes

  private:
    std::map<std::pair<uint32_t, uint32_t>, DeliveryCallback> m_expected;
};

class ReadyFlagTest : public hockney::SimulatorTest
{
  protected:
    /// op 0: 0 -> 2 through proxy 1; op 1: 2 -> 1 and op 2: 3 -> 0, both
    /// waiting for op 0 (op 2 by GPU 2's notice to GPU 3).
    static CollectiveSchedule Relay()
    {
        CollectiveSchedule s("relay", 4);
        s.AddOp(0, 2, {s.AddChunk(1000)}, false, {}, 0, 1);
        s.AddOp(2, 1, {s.AddChunk(1000)}, false, {0}, 1);
        s.AddOp(3, 0, {s.AddChunk(1000)}, false, {0}, 1);
        return s;
    }

    /// One op 0 -> 2 (across the two MPI ranks), then 2 -> 3 waiting for it.
    static CollectiveSchedule Straight()
    {
        CollectiveSchedule s("straight", 4);
        s.AddOp(0, 2, {s.AddChunk(1000)}, false, {}, 0);
        s.AddOp(2, 3, {s.AddChunk(1000)}, false, {0}, 1);
        return s;
    }

    static Ptr<CollectiveExecutor> Executor(DependencyNotice notice, NcclProtocol protocol, DataRate copy)
    {
        Ptr<CollectiveExecutor> e = CreateObject<CollectiveExecutor>();
        e->SetAttribute("GpusPerNode", UintegerValue(gpusPerNode));
        e->SetAttribute("CheckSchedule", BooleanValue(false)); // hand-made: no data model
        e->SetAttribute("DependencyNotice", EnumValue(static_cast<int>(notice)));
        e->SetAttribute("Protocol", EnumValue(static_cast<int>(protocol)));
        e->SetAttribute("LlCopyRate", DataRateValue(copy));
        return e;
    }

    /// GpusPerNode of the executors (0: one node, no network window).
    static inline uint32_t gpusPerNode = 0;

    struct Result
    {
        Time total;
        std::vector<Time> delivered; ///< per op, absolute
        uint32_t messages;
        std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> log;
    };

    /// One process.
    static Result RunOne(const CollectiveSchedule& s, DependencyNotice notice, bool twoLevels,
                         NcclProtocol protocol = NcclProtocol::SIMPLE, DataRate copy = DataRate(0))
    {
        auto transport = CreateObject<LoopbackTransport>(twoLevels);
        Ptr<CollectiveExecutor> e = Executor(notice, protocol, copy);
        Result r;
        r.total = e->Run(s, transport);
        r.delivered = e->GetOpDeliveryTimes();
        r.messages = transport->tagged;
        r.log = transport->log;
        Simulator::Destroy();
        return r;
    }

    /// Two executors, MPI ranks 0 (GPUs 0, 1) and 1 (GPUs 2, 3); each op's
    /// delivery time from its receiver's rank.
    static Result RunSplit(const CollectiveSchedule& s, bool twoLevels, NcclProtocol protocol = NcclProtocol::SIMPLE,
                           DataRate copy = DataRate(0))
    {
        auto transport = CreateObject<LoopbackTransport>(twoLevels);
        std::vector<Ptr<CollectiveExecutor>> ranks;
        uint32_t done = 0;
        for (uint32_t rank = 0; rank < 2; ++rank)
        {
            ranks.push_back(Executor(DependencyNotice::MESSAGE, protocol, copy));
            ranks.back()->SetPartition(kTwoRanks, rank);
        }
        for (auto& e : ranks)
        {
            e->Start(s, transport, [&done]() { ++done; });
        }
        Simulator::Run();
        EXPECT_EQ(done, 2u);
        Result r;
        r.total = Time(0);
        for (uint32_t i = 0; i < s.GetOps().size(); ++i)
        {
            r.delivered.push_back(ranks[kTwoRanks[s.GetOps()[i].dst]]->GetOpDeliveryTimes()[i]);
        }
        for (auto& e : ranks)
        {
            r.total = std::max(r.total, e->GetTotalTime());
        }
        r.messages = transport->tagged;
        r.log = transport->log;
        Simulator::Destroy();
        return r;
    }
};

TEST_F(ReadyFlagTest, AProxyPostsTheFlagWhenTheNvlinkLegHasLanded)
{
    // Instant: both legs (1080 ns each) start together, the op is in at 1080 ns.
    const Result instant = RunOne(Relay(), DependencyNotice::INSTANT, false);
    EXPECT_EQ(instant.delivered[0], NanoSeconds(1080));
    EXPECT_EQ(instant.messages, 4u) << "two legs and two ops";
    // Message: leg 0 lands at the proxy at 1080 ns, its flag 1 -> 2 arrives
    // at 1080 + 1000.64 ns; op 1 (at the receiver) starts then and takes
    // 1080 ns more; op 2 waits for GPU 2's notice to GPU 3, 1000.64 ns more.
    const Result one = RunOne(Relay(), DependencyNotice::MESSAGE, false);
    EXPECT_EQ(one.delivered[0], PicoSeconds(2080640));
    EXPECT_EQ(one.delivered[1], PicoSeconds(3160640));
    EXPECT_EQ(one.delivered[2], PicoSeconds(4161280));
    EXPECT_EQ(one.total, PicoSeconds(4161280));
    EXPECT_EQ(one.messages, 6u) << "two legs, the flag, the notice and two ops";
    // Split over two MPI ranks: the same times, the same messages.
    const Result split = RunSplit(Relay(), false);
    EXPECT_EQ(split.delivered, one.delivered);
    EXPECT_EQ(split.total, one.total);
    EXPECT_EQ(split.messages, one.messages);
}

TEST_F(ReadyFlagTest, TheRailLegOrTheFlagWhicheverIsLater)
{
    // Two levels: leg 0 (NVLink) lands at 1080 ns, leg 1 (across nodes)
    // arrives at 2800 ns, the flag 1 -> 2 (across) at 1080 + 2006.4 ns =
    // 3086.4 ns: the op is in then, not at the rail leg's 2800 ns.
    const Result instant = RunOne(Relay(), DependencyNotice::INSTANT, true);
    EXPECT_EQ(instant.delivered[0], NanoSeconds(2800));
    const Result one = RunOne(Relay(), DependencyNotice::MESSAGE, true);
    EXPECT_EQ(one.delivered[0], PicoSeconds(3086400));
    // Op 1 (2 -> 1, across): + 2800 ns.
    EXPECT_EQ(one.delivered[1], PicoSeconds(5886400));
    const Result split = RunSplit(Relay(), true);
    EXPECT_EQ(split.delivered, one.delivered);
}

TEST_F(ReadyFlagTest, AnLlSenderPostsTheFlagWhenItsCopyEnds)
{
    // LL: 1000 B are 2000 B on the wire (1 us + 160 ns = 1160 ns). A copy
    // rate of 1 Gb/s copies them in 8 us: instant delivers at the copy's
    // end, 8 us; message when the flag sent then arrives, 9000.64 ns. Op 1
    // (at the receiver) 1160 ns later, its own copy (8 us) after: + 8 us
    // and its flag.
    const CollectiveSchedule s = Straight();
    const Result instant = RunOne(s, DependencyNotice::INSTANT, false, NcclProtocol::LL, DataRate("1Gbps"));
    EXPECT_EQ(instant.delivered[0], MicroSeconds(8));
    const Result one = RunOne(s, DependencyNotice::MESSAGE, false, NcclProtocol::LL, DataRate("1Gbps"));
    EXPECT_EQ(one.delivered[0], PicoSeconds(9000640));
    EXPECT_EQ(one.delivered[1], PicoSeconds(9000640 + 9000640));
    EXPECT_EQ(one.messages, 4u) << "two ops and their flags";
    const Result split = RunSplit(s, false, NcclProtocol::LL, DataRate("1Gbps"));
    EXPECT_EQ(split.delivered, one.delivered);
    EXPECT_EQ(split.messages, one.messages);
}

TEST_F(ReadyFlagTest, AProxysFlagWaitsForTheSendersCopyToo)
{
    // LL through a proxy: both legs (2000 B on the wire) in at 1160 ns, the
    // copy (1 Gb/s) ends at 8 us: the proxy's flag goes then and arrives at
    // 9000.64 ns (instant: 8 us). Op 1 (2 -> 1) starts then, copies until
    // 17000.64 ns, its flag in at 18001.28 ns; op 2 (3 -> 0) starts at GPU
    // 2's notice, 10001.28 ns, its flag in at 19001.92 ns.
    const Result instant = RunOne(Relay(), DependencyNotice::INSTANT, false, NcclProtocol::LL, DataRate("1Gbps"));
    EXPECT_EQ(instant.delivered[0], MicroSeconds(8));
    const Result one = RunOne(Relay(), DependencyNotice::MESSAGE, false, NcclProtocol::LL, DataRate("1Gbps"));
    EXPECT_EQ(one.delivered[0], PicoSeconds(9000640));
    EXPECT_EQ(one.delivered[1], PicoSeconds(18001280));
    EXPECT_EQ(one.delivered[2], PicoSeconds(19001920));
    EXPECT_EQ(one.messages, 8u) << "two legs, three flags, one notice, two ops";
    const Result split = RunSplit(Relay(), false, NcclProtocol::LL, DataRate("1Gbps"));
    EXPECT_EQ(split.delivered, one.delivered);
    EXPECT_EQ(split.log, one.log);
}

TEST_F(ReadyFlagTest, AFastCopysFlagArrivesBeforeTheData)
{
    // At 1000 Gb/s the copy ends at 8 ns and its flag arrives at 1008.64 ns,
    // before the data (1160 ns): the op is in at 1160 ns in both modes.
    const CollectiveSchedule s = Straight();
    const Result instant = RunOne(s, DependencyNotice::INSTANT, false, NcclProtocol::LL, DataRate("1000Gbps"));
    const Result one = RunOne(s, DependencyNotice::MESSAGE, false, NcclProtocol::LL, DataRate("1000Gbps"));
    EXPECT_EQ(instant.delivered[0], NanoSeconds(1160));
    EXPECT_EQ(one.delivered[0], NanoSeconds(1160));
    EXPECT_EQ(one.delivered[1], NanoSeconds(2 * 1160));
    const Result split = RunSplit(s, false, NcclProtocol::LL, DataRate("1000Gbps"));
    EXPECT_EQ(split.delivered, one.delivered);
}

TEST_F(ReadyFlagTest, AProxysWindowCreditGoesBackToTheProxy)
{
    // Two nodes (GpusPerNode 2), one step in flight on the connection
    // 0 -> 2 (NetStepsInFlight 1), two PXN ops on it through GPU 1. Op 0 is
    // in at 3086.4 ns (its flag, as above); GPU 2's credit goes back on the
    // queue pair the data came on, to the proxy, across nodes: 2006.4 ns;
    // op 1 starts then (5092.8 ns) and is in 3086.4 ns later, 8179.2 ns.
    gpusPerNode = 2;
    CollectiveSchedule s("window", 4);
    s.AddOp(0, 2, {s.AddChunk(1000)}, false, {}, 0, 1);
    s.AddOp(0, 2, {s.AddChunk(1000)}, false, {}, 1, 1);
    const Result one = RunOne(s, DependencyNotice::MESSAGE, true);
    EXPECT_EQ(one.delivered[0], PicoSeconds(3086400));
    EXPECT_EQ(one.delivered[1], PicoSeconds(8179200));
    EXPECT_EQ(std::count(one.log.begin(), one.log.end(), std::make_tuple(2u, 1u, uint64_t{8})), 1);
    EXPECT_EQ(one.messages, 7u) << "four legs, two flags, one credit";
    const Result split = RunSplit(s, true);
    EXPECT_EQ(split.delivered, one.delivered);
    EXPECT_EQ(split.log, one.log);
    gpusPerNode = 0;
}

TEST_F(ReadyFlagTest, SimpleOpsWithoutAProxyCarryNoFlag)
{
    // Simple, no proxy: no flag; 1080 ns per op, op 1 at its receiver.
    const Result one = RunOne(Straight(), DependencyNotice::MESSAGE, false);
    EXPECT_EQ(one.delivered[1], NanoSeconds(2 * 1080));
    EXPECT_EQ(one.messages, 2u);
}

} // namespace
