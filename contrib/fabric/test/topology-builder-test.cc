// SPDX-License-Identifier: GPL-2.0-only
//
// The builder end to end: one packet through a preset built on the fabric's
// devices and switches arrives at the time worked out by hand from the tier
// parameters (serialization at each link, propagation, forwarding latency,
// cut-through at NVSwitch and IB switches, store-and-forward at NICs); the
// run-end checks see exactly the hops of the path.
#include "pfc-flow-control.h"
#include "simulator-test.h"
#include "topology-builder.h"
#include "topology-presets.h"

#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <set>

using namespace ns3;

namespace
{

class TopologyBuilderTest : public hockney::SimulatorTest
{
  protected:
    // Sends one packet of `payload` bytes from src to dst at t = 0 and returns
    // its arrival time (-1 ps if it never arrived).
    Time OnePacket(Ptr<FabricNetwork> net, uint32_t src, uint32_t dst, uint32_t payload)
    {
        Time arrival = PicoSeconds(-1);
        for (auto dev : net->GetEndpointDevices(dst))
        {
            dev->SetFabricReceiveCallback(MakeCallback(&TopologyBuilderTest::Record, this));
        }
        m_arrival = &arrival;
        Ptr<FabricNetDevice> out = net->GetEgressDevice(src, dst, 0);
        Simulator::ScheduleWithContext(out->GetNode()->GetId(), Time(0), [out, src, dst, payload]() {
            EXPECT_TRUE(out->SendFabric(Create<Packet>(payload), FabricHeader(src, dst, 0, 0)));
        });
        net->InstallWatchdog();
        Simulator::Run();
        return arrival;
    }

    void Record(Ptr<FabricNetDevice>, Ptr<Packet> p, const FabricHeader& h)
    {
        *m_arrival = Simulator::Now();
        m_src = h.GetSource();
    }

    uint64_t TotalDataTx(Ptr<FabricNetwork> net)
    {
        uint64_t n = 0;
        for (const auto& r : net->CollectCounters())
        {
            n += r.counters.txPackets;
        }
        return n;
    }

    Time* m_arrival{nullptr};
    uint32_t m_src{0xFFFFFFFFu};
};

} // namespace

TEST_F(TopologyBuilderTest, DgxH100OnePacketByHand)
{
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("dgx-h100"));
    EXPECT_EQ(net->GetNEndpoints(), 8u);
    EXPECT_EQ(net->GetSwitches().GetN(), 1u);
    EXPECT_EQ(net->GetSwitch(8)->GetNPorts(), 8u);
    // Ports are the links in order; the route to GPU 5 is port 5.
    EXPECT_EQ(net->GetSwitch(8)->GetRoute(5), std::vector<uint32_t>{5});
    // 256 B payload + 16 B NVLink header = 272 B at 18 x 25 GB/s = 3.6 Tb/s:
    // 604.44 -> 604 ps; the header alone 35.56 -> 36 ps. The NVSwitch (cut-
    // through) has the header at 36 + 5000 ps, starts 100 ns later (105036),
    // sends 604 ps; 5 ns of link: 105036 + 604 + 5000 = 110640 ps.
    Time t = OnePacket(net, 1, 6, 256);
    EXPECT_EQ(t, PicoSeconds(110640));
    EXPECT_EQ(m_src, 1u);
    EXPECT_EQ(TotalDataTx(net), 2u); // two hops
    FabricConservation c = net->CheckConservation();
    EXPECT_TRUE(c.ok) << c.message;
    EXPECT_EQ(c.injected, 256u);
    EXPECT_EQ(c.delivered, 256u);
    EXPECT_NO_THROW(net->AssertConservation());
}

TEST_F(TopologyBuilderTest, RailTwoNodesSameRailOnePacketByHand)
{
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("rail-h100-2n"));
    EXPECT_EQ(net->GetNodes().GetN(), 44u);
    EXPECT_EQ(net->GetSwitches().GetN(), 16u + 12u); // NICs + NVSwitches + leaves + spines
    // A rail GPU has two ports: NVLink (link 0..) then PCIe.
    EXPECT_EQ(net->GetEndpointDevices(0).size(), 2u);
    // n0.gpu0 (rank 0) -> n1.gpu0 (rank 8), 256 B payload (the PCIe max payload):
    //  PCIe x16 504.123 Gb/s: 282 B -> 4475 ps, +5 ns: NIC has it at 9475 ps,
    //    sends 300 ns later (store-and-forward NIC): 309475.
    //  NDR 400 Gb/s: 270 B -> 5400 ps; its 14 B header 280 ps; +10 ns: the rail
    //    leaf (cut-through) has the header at 319755, starts 200 ns later: 519755.
    //  Leaf -> NIC: 519755 + 5400 + 10000 = 535155; NIC starts at 835155.
    //  PCIe: 835155 + 4475 + 5000 = 844630 ps.
    Time t = OnePacket(net, 0, 8, 256);
    EXPECT_EQ(t, PicoSeconds(844630));
    EXPECT_EQ(TotalDataTx(net), 4u);
    EXPECT_TRUE(net->CheckConservation().ok) << net->CheckConservation().message;
}

TEST_F(TopologyBuilderTest, RailTwoNodesAcrossRailsThroughASpineByHand)
{
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("rail-h100-2n"));
    // n0.gpu0 -> n1.gpu3: as above to the rail-0 leaf (starts at 519755), then
    //  leaf -> spine (100 ns link, cut-through): header at 519755 + 280 + 100000
    //    = 620035, spine starts at 820035;
    //  spine -> rail-3 leaf: header at 920315, starts at 1120315;
    //  leaf -> NIC (10 ns, store-and-forward): 1120315 + 5400 + 10000 = 1135715,
    //    NIC starts at 1435715; PCIe: + 4475 + 5000 = 1445190 ps.
    Time t = OnePacket(net, 0, 11, 256);
    EXPECT_EQ(t, PicoSeconds(1445190));
    EXPECT_EQ(TotalDataTx(net), 6u);
    // The packet went exactly where PacketPath says (the switches' own ECMP
    // hash picks the spine): one DATA packet sent at the near end of each hop.
    TopologyPath p = net->PacketPath(0, 11, 0);
    ASSERT_EQ(p.HopCount(), 6u);
    for (const auto& h : p.hops)
    {
        bool a = net->GetTopology().LinkA(h.link) == h.from;
        EXPECT_EQ(net->GetLinkDevice(h.link, a)->GetCounters().txPackets, 1u) << h.link;
    }
    EXPECT_EQ(p.TotalLatency(), net->Path(0, 11).TotalLatency());
    EXPECT_TRUE(net->CheckConservation().ok);
}

TEST_F(TopologyBuilderTest, LinkParametersComeFromTheTier)
{
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("roce-leafspine"));
    const TopologyGraph& g = net->GetTopology();
    // Link 0: host0 - leaf0, 100 Gb/s RoCE with PFC, 10 ns, 70 B framing.
    Ptr<FabricNetDevice> host = net->GetLinkDevice(0, true);
    Ptr<FabricNetDevice> leaf = net->GetLinkDevice(0, false);
    EXPECT_EQ(host->GetDataRate().GetBitRate(), 100000000000ull);
    EXPECT_EQ(host->GetHeaderBytes(), 70u);
    EXPECT_EQ(host->GetMtu(), 4096u + 32u); // 4096 B data + BTH 12 + RETH 16 + ImmDt 4
    EXPECT_EQ(host->GetFabricAddress(), 0u);
    EXPECT_EQ(leaf->GetFabricAddress(), kFabricNoAddress);
    EXPECT_TRUE(DynamicCast<FabricPfcFlowControl>(host->GetFlowControl()));
    EXPECT_EQ(net->GetLinkChannel(0)->GetDelay(), NanoSeconds(10));
    EXPECT_EQ(host->GetNode(), net->GetEndpointNode(0));
    // Leaf 0 reaches a host under leaf 1 over all 8 uplinks (4 to each spine).
    uint32_t leaf0 = g.NodeId("leaf0");
    EXPECT_EQ(net->GetSwitch(leaf0)->GetRoute(8).size(), 8u);
    EXPECT_EQ(net->GetSwitch(leaf0)->GetForwardingLatency(), NanoSeconds(500));
    EXPECT_FALSE(net->GetSwitch(leaf0)->IsCutThrough());
    EXPECT_EQ(net->GetSwitch(leaf0)->GetBuffer()->GetBufferBytes(), 32000000u);
    // Deterministic node ids: consecutive in topology order.
    uint32_t base = net->GetNode(0)->GetId();
    for (uint32_t v = 0; v < g.NodeCount(); ++v)
    {
        EXPECT_EQ(net->GetNode(v)->GetId(), base + v);
    }
}

TEST_F(TopologyBuilderTest, CutThroughIntoAFasterLinkAgreesWithThePathQuery)
{
    // a -100G- cut-through switch (10 ns) -400G- b, 10 ns links, 14 B framing,
    // written as a scenario file would be.
    nlohmann::json j = nlohmann::json::parse(R"({
      "tiers": [{"name": "slow", "lane_rate": "100Gbps", "delay": "10ns", "mtu_bytes": 4096,
                 "header_bytes": 14, "flow_control": "credit", "forwarding_latency": "10ns",
                 "cut_through": true},
                {"name": "fast", "lane_rate": "400Gbps", "delay": "10ns", "mtu_bytes": 4096,
                 "header_bytes": 14, "flow_control": "credit"}],
      "nodes": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"},
                {"name": "sw", "kind": "switch", "tier": "slow"}],
      "links": [{"a": "a", "b": "sw", "tier": "slow"}, {"a": "sw", "b": "b", "tier": "fast"}]})");
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(TopologyFromScenarioJson(j));
    // 1014 B at 100G = 81120 ps, its header 1120 ps: the switch starts at
    // 1120 + 10000 + 10000 = 21120 but cannot end before the last bit is in
    // (81120 + 10000); + 10 ns = 101120 ps, as the path query says.
    Time t = OnePacket(net, 0, 1, 1000);
    EXPECT_EQ(t, PicoSeconds(101120));
    EXPECT_EQ(t, net->Path(0, 1).UnloadedPacketTime(1000));
}

TEST_F(TopologyBuilderTest, PacketPathsAreEqualCostAndSpreadOverCores)
{
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("fat-tree"));
    const TopologyGraph& g = net->GetTopology();
    std::set<uint32_t> cores;
    for (uint32_t flow = 0; flow < 64; ++flow)
    {
        TopologyPath p = net->PacketPath(0, 12, flow);
        ASSERT_EQ(p.HopCount(), 6u); // shortest: host-edge-agg-core-agg-edge-host
        for (const auto& h : p.hops)
        {
            // Every hop the switches take is one of the topology's next hops.
            bool found = false;
            for (const auto& nh : g.NextHops(h.from, 12))
            {
                found = found || nh.link == h.link;
            }
            EXPECT_TRUE(found) << "flow " << flow << " link " << h.link;
        }
        cores.insert(p.hops[2].to);
    }
    // 64 flows over 4 cores: all four used unless the hash is degenerate
    // (probability of missing one core with a fair hash: 4 x (3/4)^64 < 1e-7).
    EXPECT_EQ(cores.size(), 4u);
}

TEST_F(TopologyBuilderTest, FinishRunReportsAWatchdogStop)
{
    // Host 1 holds its leaf's egress paused for good (its port asserts XOFF
    // and keeps refreshing it), so host 0's packets to it wait in the leaf:
    // nothing moves for the 10 us stall time while bytes are queued. The
    // watchdog stops the run; the bytes are not lost (conservation balances,
    // no drop), but the run-end check fails and names the watchdog.
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("roce-leafspine:leaves=1,hosts-per-leaf=2"));
    net->GetEndpointDevice(1)->GetFlowControl()->IngressCongested(0);
    Ptr<FabricNetDevice> out = net->GetEgressDevice(0, 1, 0);
    for (int i = 0; i < 10; ++i)
    {
        ASSERT_TRUE(out->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 0, 0)));
    }
    Ptr<FabricWatchdog> w = net->InstallWatchdog(MicroSeconds(10));
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    ASSERT_TRUE(w->HasFired());
    FabricConservation c = net->FinishRun();
    EXPECT_TRUE(c.balanced) << c.message;
    EXPECT_EQ(c.dropped, 0u);
    EXPECT_EQ(c.injected, 10000u);
    EXPECT_EQ(c.inFlight, 10000u);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.message.rfind("ERROR: fabric watchdog", 0), 0u) << c.message;
    EXPECT_NE(c.message.find("fabric conservation"), std::string::npos) << c.message;
    // Without the watchdog's stop the same numbers would pass.
    EXPECT_TRUE(net->CheckConservation().ok);
}
