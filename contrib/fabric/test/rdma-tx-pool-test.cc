// SPDX-License-Identifier: GPL-2.0-only
//
// The NIC's pool of sent data packets (RdmaNic::TxPacketPool): a packet only
// the pool still holds is rebuilt in place for a later data packet of the
// same size. Checked against the same runs without the pool (TxPacketPool
// 0, a new packet each time): every packet handed up at the receivers has
// the same size, the same bytes and the same transport tag, completions
// happen at the same picoseconds, and fewer distinct packets (uids) carry
// them, so the pool was used. A DCQCN incast exercises the switch's ECN
// mark, which copies a packet the pool still holds (copy on write).
#include "dcqcn.h"
#include "rdma-test-util.h"
#include "rdma-transport.h"
#include "simulator-test.h"

#include "ns3/boolean.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

class RdmaTxPoolTest : public hockney::SimulatorTest
{
};

/// What the receivers saw, in order.
struct Seen
{
    std::vector<uint32_t> sizes;
    std::vector<std::vector<uint8_t>> heads; ///< the first 64 bytes of each packet
    std::set<uint64_t> uids;
    std::vector<int64_t> completions; ///< receive and send completions, ps
    uint64_t cnps{0};
    uint64_t ecnMarks{0};
};

void
Record(Seen* s, Ptr<const Packet> p)
{
    s->sizes.push_back(p->GetSize());
    std::vector<uint8_t> head(std::min<uint32_t>(64, p->GetSize()));
    p->CopyData(head.data(), head.size());
    s->heads.push_back(std::move(head));
    s->uids.insert(p->GetUid());
}

void
Complete(Seen* s, const RdmaCompletion&)
{
    s->completions.push_back(Simulator::Now().GetPicoSeconds());
}

/// An 8-to-1 DCQCN incast of 1 MB (ECN marks, CNPs) on a star, and 256 KB +
/// 1000 B from each sender to its neighbour (a shorter last packet).
Seen
RunIncast(uint32_t pool)
{
    Star s = MakeDcqcnStarWithNicAttribute(9, "TxPacketPool", UintegerValue(pool));
    Seen seen;
    for (uint32_t i = 0; i < 9; ++i)
    {
        s.links[i].devA->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&Record, &seen));
        s.nics[i]->SetReceiveCompletionCallback(MakeBoundCallback(&Complete, &seen));
        s.nics[i]->SetSendCompletionCallback(MakeBoundCallback(&Complete, &seen));
    }
    for (uint32_t i = 1; i < 9; ++i)
    {
        auto [q, r0] = RdmaNic::Connect(s.nics[i], s.nics[0], 3);
        s.nics[i]->PostSend(q, 1000000, true, 0);
    }
    for (uint32_t i = 1; i < 9; ++i)
    {
        auto [q, r0] = RdmaNic::Connect(s.nics[i], s.nics[i % 8 + 1], 3);
        s.nics[i]->PostSend(q, 256000 + 1000, i % 2 == 0, i);
    }
    Simulator::Run();
    for (uint32_t i = 0; i < 9; ++i)
    {
        seen.cnps += s.nics[i]->GetCounters().cnpsReceived;
        seen.ecnMarks += s.links[i].devB->GetCounters().ecnMarks;
    }
    Simulator::Destroy();
    return seen;
}

TEST_F(RdmaTxPoolTest, PooledPacketsRunTheSameSimulation)
{
    const Seen pooled = RunIncast(64);
    const Seen fresh = RunIncast(0);
    // 8 x ceil(1e6 / 4096) + 8 x ceil(257000 / 4096) data packets and the ACKs.
    ASSERT_GT(fresh.sizes.size(), 8u * 245 + 8u * 63);
    EXPECT_EQ(pooled.sizes, fresh.sizes);
    EXPECT_EQ(pooled.heads, fresh.heads);
    ASSERT_EQ(fresh.completions.size(), 2u * 16);
    EXPECT_EQ(pooled.completions, fresh.completions);
    EXPECT_GT(fresh.ecnMarks, 0u) << "the incast must mark, or the copy on write is not exercised";
    EXPECT_EQ(pooled.ecnMarks, fresh.ecnMarks);
    EXPECT_EQ(pooled.cnps, fresh.cnps);
    // Without the pool every packet handed up is a packet of its own; with
    // it, at most 64 per sender carry the data (plus the ACKs and CNPs,
    // which are never pooled, and the last packets of the messages).
    EXPECT_EQ(fresh.uids.size(), fresh.sizes.size());
    EXPECT_LT(pooled.uids.size(), fresh.uids.size() / 2);
}

/// Two hosts with the transport fields off the packet bytes (NVLink's
/// HeadersInTag: FabricLinkTransport with the FabricHeader's fields):
/// WRITEs and SENDs of several sizes, one empty (never pooled: its packet
/// is the ImmDt's 4 bytes).
Seen
RunTagged(uint32_t pool)
{
    TwoHosts t = MakeTwoHosts(RdmaLink());
    for (Ptr<RdmaNic> nic : {t.a, t.b})
    {
        nic->SetAttribute("HeadersInTag", BooleanValue(true));
        nic->SetAttribute("TxPacketPool", UintegerValue(pool));
    }
    Seen seen;
    t.link.devB->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&Record, &seen));
    t.link.devA->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&Record, &seen));
    t.b->SetReceiveCompletionCallback(MakeBoundCallback(&Complete, &seen));
    t.a->SetSendCompletionCallback(MakeBoundCallback(&Complete, &seen));
    auto [qa, qb] = RdmaNic::Connect(t.a, t.b, 3);
    const uint64_t sizes[] = {300000, 4096, 0, 100000 + 17, 1, 65536};
    for (uint32_t k = 0; k < 6; ++k)
    {
        t.a->PostSend(qa, sizes[k], k % 2 == 0, 100 + k);
    }
    Simulator::Run();
    Simulator::Destroy();
    return seen;
}

TEST_F(RdmaTxPoolTest, TaggedPacketsRunTheSameSimulation)
{
    const Seen pooled = RunTagged(64);
    const Seen fresh = RunTagged(0);
    ASSERT_GT(fresh.sizes.size(), 115u); // 74 + 1 + 1 + 25 + 1 + 16 data packets, and ACKs
    EXPECT_EQ(pooled.sizes, fresh.sizes);
    EXPECT_EQ(pooled.heads, fresh.heads);
    ASSERT_EQ(fresh.completions.size(), 12u);
    EXPECT_EQ(pooled.completions, fresh.completions);
    EXPECT_EQ(fresh.uids.size(), fresh.sizes.size());
    EXPECT_LT(pooled.uids.size(), fresh.uids.size() / 2);
}

} // namespace
