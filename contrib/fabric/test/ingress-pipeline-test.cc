// SPDX-License-Identifier: GPL-2.0-only
//
// FabricSwitch::IngressPipeline: the forwarding latency spent before the
// buffer (the packet taken in at arrival + latency) instead of at the egress
// (taken in at its arrival, started latency later). Times and events by hand,
// tolerance zero: both are exact integers of picoseconds and events.
#include "fabric-helper.h"
#include "fabric-test-util.h"
#include "simulator-test.h"

#include "ns3/enum.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class IngressPipelineTest : public hockney::SimulatorTest
{
};

using hockney::Arrivals;

// InfiniBand-like links: 400 Gb/s, 10 ns, 14 B of framing, credit flow
// control. A 1000 B payload is 1014 B on the wire: 1014 x 8 / 400e9 s =
// 20 280 ps; its 14 B header 280 ps.
FabricLinkConfig
IbLikeConfig()
{
    FabricLinkConfig cfg;
    cfg.rate = DataRate("400Gbps");
    cfg.delay = NanoSeconds(10);
    cfg.headerBytes = 14;
    cfg.minWireBytes = 0;
    cfg.flowControl = FabricFlowControlMode::CREDIT;
    cfg.linkType = FabricLinkType::INFINIBAND;
    return cfg;
}

struct OneHop
{
    std::vector<Time> at;   ///< arrivals at B
    uint64_t events{0};     ///< events after the probe at 1 ps
    uint64_t linkDrops{0};  ///< link_down drops at the switch's port from A
};

// A - cut-through switch (200 ns) - B, one 1000 B packet sent by A at 0;
// the link A - switch goes down at \p downAt (never if zero).
OneHop
SendOne(FabricSwitch::IngressPipelineMode mode, Time downAt = Time(0))
{
    FabricHelper h;
    Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(200), true);
    sw->SetAttribute("IngressPipeline", EnumValue(mode));
    Arrivals rx;
    const FabricLink la = hockney::ConnectThrough(h, sw, IbLikeConfig(), rx).first;
    la.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, 0, 0));
    if (downAt.IsStrictlyPositive())
    {
        Ptr<FabricChannel> ch = la.channel;
        Simulator::Schedule(downAt, [ch]() { ch->SetLinkUp(false); });
    }
    uint64_t atProbe = 0;
    // The probe's own event counts in its reading (counted before it runs).
    Simulator::Schedule(PicoSeconds(1), [&atProbe]() { atProbe = Simulator::GetEventCount(); });
    Simulator::Run();
    OneHop r;
    r.at = rx.at;
    r.events = Simulator::GetEventCount() - atProbe;
    r.linkDrops = la.devB->GetCounters().dropsBy[kDropLinkDown];
    Simulator::Destroy();
    return r;
}

// By hand: the header reaches the switch at 10 ns + 280 ps = 10 280 ps (its
// last bit at 30 280 ps); it may leave 200 ns later, at 210 280 ps, and the
// idle egress starts it then; B (an endpoint: at the last bit) has it at
// 210 280 + 10 000 + 20 280 = 240 560 ps. Events after the probe: today an
// arrival at the switch, the egress's start and the arrival at B (3; no
// credit update: 1014 B is under the 8 KiB threshold); through the ingress
// pipeline the take-in at 210 280 ps starts the packet (2).
TEST_F(IngressPipelineTest, OnePacketThroughAnIdleCutThroughSwitchIsOneEventThere)
{
    const std::vector<Time> expected{PicoSeconds(240560)};
    const OneHop before = SendOne(FabricSwitch::PIPELINE_NONE);
    EXPECT_EQ(before.at, expected);
    EXPECT_EQ(before.events, 3u);
    const OneHop after = SendOne(FabricSwitch::PIPELINE_CREDIT_PORTS);
    EXPECT_EQ(after.at, expected);
    EXPECT_EQ(after.events, 2u);
    // A credit port is taken in through the pipeline under AllPorts too.
    const OneHop all = SendOne(FabricSwitch::PIPELINE_ALL_PORTS);
    EXPECT_EQ(all.at, expected);
    EXPECT_EQ(all.events, 2u);
}

// The link A - switch goes down at 100 ns, after the header arrived (10 280
// ps) but while the packet is in the pipeline (until 210 280 ps): it was
// received and is forwarded at the same time as without the fault. Down at
// 5 ns, before it arrived: lost on the link, one link_down drop at the
// switch's port, in both modes.
TEST_F(IngressPipelineTest, LinkDownWhileInThePipelineKeepsTheArrivedPacket)
{
    const std::vector<Time> expected{PicoSeconds(240560)};
    for (auto mode : {FabricSwitch::PIPELINE_NONE, FabricSwitch::PIPELINE_CREDIT_PORTS})
    {
        const OneHop late = SendOne(mode, NanoSeconds(100));
        EXPECT_EQ(late.at, expected) << mode;
        EXPECT_EQ(late.linkDrops, 0u) << mode;
        const OneHop early = SendOne(mode, NanoSeconds(5));
        EXPECT_TRUE(early.at.empty()) << mode;
        EXPECT_EQ(early.linkDrops, 1u) << mode;
    }
}

// AllPorts on a PFC port: XOFF is decided ForwardingLatency after the
// arrival that trips it, so the port's headroom grows by what arrives
// meanwhile, rate x latency: 100 Gb/s x 500 ns = 6250 B. Without it
// (PfcHeadroomBytes, 1 us links, 4096 B MTU + 70 B framing = 4166 B frames,
// 84 B pause): 2 x 100e9 x 1e-6 / 8 = 25 000 + 3 x 4166 + 84 = 37 582 B.
TEST_F(IngressPipelineTest, AllPortsGrowsPfcHeadroomByRateTimesLatency)
{
    for (auto [mode, headroom] : {std::pair{FabricSwitch::PIPELINE_NONE, uint64_t(37582)},
                                  std::pair{FabricSwitch::PIPELINE_CREDIT_PORTS, uint64_t(37582)},
                                  std::pair{FabricSwitch::PIPELINE_ALL_PORTS, uint64_t(37582 + 6250)}})
    {
        FabricHelper h;
        Ptr<FabricSwitch> sw = h.CreateSwitch(NanoSeconds(500), false);
        sw->SetAttribute("IngressPipeline", EnumValue(mode));
        FabricLinkConfig cfg; // 100 Gb/s, 1 us, RoCE framing, PFC
        FabricLink l = h.Connect(CreateObject<Node>(), sw, cfg);
        EXPECT_EQ(sw->GetBuffer()->GetHeadroomBytes(l.portB), headroom) << mode;
        Simulator::Destroy();
    }
}

} // namespace
