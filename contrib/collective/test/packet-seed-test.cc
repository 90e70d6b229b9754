// SPDX-License-Identifier: GPL-2.0-only
//
// The seed of a packet run (PacketTransport::SetSeed, what compare's --seed
// and a scenario's "seed" reach): it changes the fabric's random decisions,
// ECMP path choices and RED marks, concretely, and the same seed repeats
// them exactly, also after other runs in the same process.
#include "attribute-defaults.h"
#include "collective-comparison.h"
#include "dcqcn.h"
#include "ecn-marker.h"
#include "fabric-header.h"
#include "fabric-link-loss.h"
#include "packet-transport.h"
#include "result-row.h"
#include "simulator-test.h"
#include "topology-presets.h"

#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

class PacketSeedTest : public hockney::SimulatorTest
{
};

// Two leaves of four hosts (ranks 0-3 on leaf0, 4-7 on leaf1), two spines;
// oversubscription 1: four 100 Gb/s uplinks per leaf, two to each spine.
const char* kFabric = "roce-leafspine:leaves=2,hosts-per-leaf=4";

/// One ECN mark: when, at which node, of which sender's flow, at what queue depth.
using Mark = std::tuple<int64_t, uint32_t, uint32_t, uint32_t, uint64_t>;

struct SeededRun
{
    std::vector<uint64_t> uplinkBytes; ///< payload sent on each of leaf0's uplinks, in link order
    uint64_t leaf1DownBytes = 0;       ///< payload leaf1 sent to its hosts
    std::vector<Mark> marks;           ///< every ECN mark, in the order they happened
    uint64_t delivered = 0;            ///< payload delivered to the ranks
    uint32_t ecmpSeed = 0;             ///< FabricSwitch::EcmpSeed of leaf0 as built
    uint64_t kmin = 0;                 ///< RED thresholds of the marking ports
    uint64_t kmax = 0;
};

/// Runs \p flows (src, dst, bytes) at once on kFabric with DCQCN, seeded \p seed.
SeededRun
RunSeeded(uint32_t seed, const std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>& flows)
{
    SeededRun r;
    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    t->SetSeed(seed);
    t->Build(MakePreset(kFabric), CreateObject<Dcqcn>());
    Ptr<FabricNetwork> net = t->GetNetwork();
    const TopologyGraph& g = net->GetTopology();
    const uint32_t leaf0 = g.NodeId("leaf0");
    UintegerValue ecmp;
    net->GetSwitch(leaf0)->GetAttribute("EcmpSeed", ecmp);
    r.ecmpSeed = static_cast<uint32_t>(ecmp.Get());
    std::vector<Ptr<FabricNetDevice>> uplinks;
    for (uint32_t link : g.PortsOf(leaf0))
    {
        if (g.Node(g.Peer(link, leaf0)).kind == TopologyNodeKind::SWITCH)
        {
            uplinks.push_back(net->GetLinkDevice(link, g.LinkA(link) == leaf0));
        }
    }
    EXPECT_EQ(uplinks.size(), 4u);
    const uint32_t leaf1 = g.NodeId("leaf1");
    std::vector<Ptr<FabricNetDevice>> downlinks;
    for (uint32_t link : g.PortsOf(leaf1))
    {
        if (g.Node(g.Peer(link, leaf1)).kind != TopologyNodeKind::SWITCH)
        {
            downlinks.push_back(net->GetLinkDevice(link, g.LinkA(link) == leaf1));
        }
    }
    for (uint32_t i = 0; i < net->GetSwitches().GetN(); ++i)
    {
        Ptr<Node> sw = net->GetSwitches().Get(i);
        for (uint32_t d = 0; d < sw->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(sw->GetDevice(d));
            if (!dev || !dev->GetEcnMarker())
            {
                continue;
            }
            UintegerValue kmin;
            UintegerValue kmax;
            dev->GetEcnMarker()->GetAttribute("Kmin", kmin);
            dev->GetEcnMarker()->GetAttribute("Kmax", kmax);
            r.kmin = kmin.Get();
            r.kmax = kmax.Get();
            dev->TraceConnectWithoutContext(
                "EcnMark",
                MakeCallback(+[](std::vector<Mark>* marks, uint32_t node, Ptr<const Packet> p, uint64_t queued) {
                    FabricHeader h;
                    p->PeekHeader(h);
                    marks->emplace_back(Simulator::Now().GetPicoSeconds(), node, h.GetSource(), h.GetFlowId(),
                                        queued);
                }).Bind(&r.marks, sw->GetId()));
        }
    }
    for (const auto& [src, dst, bytes] : flows)
    {
        t->Send(src, dst, bytes, [&r, b = bytes]() { r.delivered += b; });
    }
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    for (const auto& dev : uplinks)
    {
        r.uplinkBytes.push_back(dev->GetCounters().txBytes);
    }
    for (const auto& dev : downlinks)
    {
        r.leaf1DownBytes += dev->GetCounters().txBytes;
    }
    Simulator::Destroy();
    return r;
}

// Eight cross-leaf flows of different sizes (16 KB x 1..8), two from each
// host of leaf0: leaf0 hashes each onto one of its four uplinks.
std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>
CrossLeaf()
{
    std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> f;
    for (uint32_t i = 0; i < 8; ++i)
    {
        f.emplace_back(i / 2, 4 + (i + i / 2) % 4, 16000 * (i + 1));
    }
    return f;
}

// Three hosts of leaf0 into host 0 (one path each: no ECMP choice), 1 MB
// each: the queue towards host 0 sits between DCQCN's Kmin and Kmax, where
// RED marks with a probability, i.e. by a random draw.
std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>
Incast()
{
    return {{1, 0, 1000000}, {2, 0, 1000000}, {3, 0, 1000000}};
}

uint64_t
Sum(const std::vector<uint64_t>& v)
{
    uint64_t s = 0;
    for (uint64_t x : v)
    {
        s += x;
    }
    return s;
}

} // namespace

TEST_F(PacketSeedTest, SeedChangesEcmpPathsAndTheSameSeedRepeatsThem)
{
    const SeededRun a = RunSeeded(1, CrossLeaf());
    const SeededRun b = RunSeeded(2, CrossLeaf());
    const SeededRun again = RunSeeded(1, CrossLeaf()); // after another run in this process
    // 16 KB x (1 + ... + 8) = 576 KB delivered. Everything leaf0's hosts
    // sent to leaf1 (the messages and their rendezvous requests) crossed
    // exactly one of leaf0's uplinks, once (PFC: no drop, no retransmission),
    // and left leaf1 towards its hosts: the same bytes whatever the paths.
    for (const SeededRun* r : {&a, &b, &again})
    {
        EXPECT_EQ(r->delivered, 576000u);
        EXPECT_GE(Sum(r->uplinkBytes), 576000u);
        EXPECT_EQ(Sum(r->uplinkBytes), r->leaf1DownBytes);
        EXPECT_EQ(Sum(r->uplinkBytes), Sum(a.uplinkBytes));
    }
    // The documented mapping: seed 1 hashes with EcmpSeed 0 (as before seeds
    // reached ECMP), seed 2 with 1.
    EXPECT_EQ(a.ecmpSeed, 0u);
    EXPECT_EQ(b.ecmpSeed, 1u);
    // Another seed puts the flows on other uplinks: the bytes per uplink differ.
    EXPECT_NE(a.uplinkBytes, b.uplinkBytes);
    // The same seed: the same uplink for every flow.
    EXPECT_EQ(a.uplinkBytes, again.uplinkBytes);
    {
        // A user's EcmpSeed (here a scenario's "attributes") wins over the
        // seed's: seed 1 with EcmpSeed 1 takes seed 2's paths, a second way
        // to the mapping above.
        ScopedAttributeDefaults user;
        user.Set("ns3::FabricNetwork::EcmpSeed", "1");
        const SeededRun set = RunSeeded(1, CrossLeaf());
        EXPECT_EQ(set.ecmpSeed, 1u);
        EXPECT_EQ(set.uplinkBytes, b.uplinkBytes);
    }
}

TEST_F(PacketSeedTest, SeedChangesRedMarksAndTheSameSeedRepeatsThem)
{
    const SeededRun a = RunSeeded(1, Incast());
    const SeededRun b = RunSeeded(2, Incast());
    const SeededRun again = RunSeeded(1, Incast());
    for (const SeededRun* r : {&a, &b, &again})
    {
        EXPECT_EQ(r->delivered, 3000000u);
        // Marks where RED draws decide (Kmin < queue < Kmax), else the seed
        // could not matter.
        size_t drawn = 0;
        for (const Mark& m : r->marks)
        {
            drawn += std::get<4>(m) > r->kmin && std::get<4>(m) < r->kmax ? 1 : 0;
        }
        EXPECT_GE(drawn, 10u) << "of " << r->marks.size() << " marks";
    }
    // Only one path per flow: what differs is RED's draws, so which packets
    // are marked (and, through DCQCN's reaction, when).
    EXPECT_NE(a.marks, b.marks);
    EXPECT_EQ(a.marks, again.marks);
}

namespace
{

/// The fields of \p rows that describe the model: all but the host
/// measurements (IsHostMeasurement: wall_s, peak_rss_bytes), which a
/// --reproducible output leaves out too.
std::vector<std::vector<std::pair<std::string, ResultRow::Value>>>
ModelFields(const std::vector<ResultRow>& rows)
{
    std::vector<std::vector<std::pair<std::string, ResultRow::Value>>> out;
    for (const ResultRow& r : rows)
    {
        out.emplace_back();
        for (const auto& f : r.Fields())
        {
            if (!IsHostMeasurement(f.first))
            {
                out.back().push_back(f);
            }
        }
    }
    return out;
}

} // namespace

TEST_F(PacketSeedTest, ComparisonRowsRepeatAfterOtherRunsInTheSameProcess)
{
    // A whole comparison, the calibrated parameters' packet sweep included,
    // run again after a run with another seed in the same process: nothing
    // left over from the earlier runs (global seed, stream numbers, node ids)
    // changes a row.
    ComparisonConfig c;
    c.topology = MakePreset(kFabric);
    c.topologyName = kFabric;
    c.collective = CollectiveKind::INCAST;
    c.algorithm = "direct";
    c.sizes = {2000000};
    c.backends = {"closed", "packet"};
    c.params = {"derived", "calibrated"};
    c.seed = 1;
    const std::vector<ResultRow> first = RunComparison(c);
    c.seed = 2;
    const std::vector<ResultRow> other = RunComparison(c);
    c.seed = 1;
    const std::vector<ResultRow> again = RunComparison(c);
    ASSERT_EQ(first.size(), 3u);
    ASSERT_EQ(other.size(), 3u);
    EXPECT_EQ(ModelFields(first), ModelFields(again));
    // The other seed's packet run did draw otherwise (it marked other packets).
    EXPECT_EQ(first[2].GetString("backend"), "packet");
    EXPECT_NE(first[2].GetDouble("ecn_marks"), other[2].GetDouble("ecn_marks"));
}

namespace
{

/// When host0's link lost a packet (either direction), in a 2 MB message
/// from rank 0 to rank 4 with a drop rate of 2 % on that link installed by
/// SetWireSetup, seeded \p seed, after \p othersBefore random variables of
/// the process drew once (each moves ns-3's next automatic stream).
std::vector<int64_t>
LossyLinkDrops(uint32_t seed, uint32_t othersBefore)
{
    for (uint32_t i = 0; i < othersBefore; ++i)
    {
        CreateObject<UniformRandomVariable>()->GetValue();
    }
    std::vector<int64_t> at;
    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    t->SetSeed(seed);
    uint32_t hostLink = 0;
    t->SetWireSetup([&hostLink](FabricNetwork& n) {
        const TopologyGraph& g = n.GetTopology();
        hostLink = g.PortsOf(g.NodeId("host0")).at(0);
        InstallLinkLoss(n.GetLinkDevice(hostLink, true), n.GetLinkDevice(hostLink, false),
                        FabricLinkLoss{0.02, FabricLinkLoss::Unit::PACKET});
    });
    t->Build(MakePreset(kFabric), Ptr<RdmaCongestionControl>());
    for (bool a : {true, false})
    {
        t->GetNetwork()->GetLinkDevice(hostLink, a)->TraceConnectWithoutContext(
            "PhyRxDrop", MakeCallback(+[](std::vector<int64_t>* v, Ptr<const Packet>) {
                             v->push_back(Simulator::Now().GetPicoSeconds());
                         }).Bind(&at));
    }
    bool done = false;
    t->Send(0, 4, 2000000, [&done]() { done = true; });
    Simulator::Run();
    EXPECT_TRUE(done);
    Simulator::Destroy();
    return at;
}

} // namespace

TEST_F(PacketSeedTest, LossyLinksAreSeededWithTheRun)
{
    // SetWireSetup's error models take their streams in Build's one
    // AssignStreams (SetSeed): the packets lost depend on the seed alone,
    // not on how many random variables the process made before. About 2 %
    // of some 500 data packets and their ACKs: at least one loss, or the
    // comparison says nothing.
    const std::vector<int64_t> a = LossyLinkDrops(1, 0);
    const std::vector<int64_t> later = LossyLinkDrops(1, 7);
    const std::vector<int64_t> b = LossyLinkDrops(2, 0);
    EXPECT_GE(a.size(), 1u);
    EXPECT_EQ(a, later);
    EXPECT_NE(a, b);
}
