// SPDX-License-Identifier: GPL-2.0-only
//
// A cyclic buffer dependency under PFC deadlocks (Hu et al., "Deadlocks in
// datacenter networks: why do they form, and how to avoid them", HotNets
// 2016: a ring of switches with routes of two clockwise hops), and the
// watchdog stops the run naming the blocked ports. The same ring with one
// flow only drains, and the watchdog stays quiet.
#include "fabric-helper.h"
#include "simulator-test.h"

#include "ns3/config.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class FabricWatchdogTest : public hockney::SimulatorTest
{
};

struct Ring
{
    NodeContainer all;
    std::vector<Ptr<FabricSwitch>> sw;
    std::vector<FabricLink> host;
    std::vector<FabricLink> ring; ///< ring[i]: switch i -> switch i+1
};

// Three switches in a ring, host i on switch i; every destination is reached
// clockwise, so host i's traffic to host i+2 crosses two ring links.
Ring
BuildRing()
{
    Config::SetDefault("ns3::FabricSwitchBuffer::BufferBytes", UintegerValue(600000));
    FabricHelper h;
    FabricLinkConfig cfg;
    Ring r;
    for (int i = 0; i < 3; ++i)
    {
        r.sw.push_back(h.CreateSwitch());
        r.all.Add(r.sw.back());
    }
    for (int i = 0; i < 3; ++i)
    {
        Ptr<Node> n = CreateObject<Node>();
        r.all.Add(n);
        r.host.push_back(h.Connect(n, r.sw[i], cfg));
        r.host.back().devA->SetFabricAddress(i);
    }
    for (int i = 0; i < 3; ++i)
    {
        r.ring.push_back(h.Connect(r.sw[i], r.sw[(i + 1) % 3], cfg));
    }
    for (int i = 0; i < 3; ++i)
    {
        r.sw[i]->AddRoute(i, {r.host[i].portB});
        r.sw[i]->AddRoute((i + 1) % 3, {r.ring[i].portA});
        r.sw[i]->AddRoute((i + 2) % 3, {r.ring[i].portA});
    }
    return r;
}

} // namespace

TEST_F(FabricWatchdogTest, CyclicBufferDependencyIsDetected)
{
    Ring r = BuildRing();
    const int perHost = 3000;
    for (int i = 0; i < 3; ++i)
    {
        for (int k = 0; k < perHost; ++k)
        {
            r.host[i].devA->SendFabric(Create<Packet>(4096),
                                       FabricHeader(i, (i + 2) % 3, i, 0));
        }
    }
    Ptr<FabricWatchdog> w = CreateObject<FabricWatchdog>();
    w->SetAttribute("StallTime", TimeValue(MicroSeconds(50)));
    w->Install(r.all);
    Simulator::Stop(Seconds(1)); // a bound in case the watchdog failed
    Simulator::Run();
    ASSERT_TRUE(w->HasFired()) << "no deadlock formed";
    EXPECT_LT(Simulator::Now(), MilliSeconds(10));
    // Every ring egress holds packets and is paused by its downstream switch.
    for (int i = 0; i < 3; ++i)
    {
        Ptr<FabricNetDevice> egress = r.ring[i].devA;
        EXPECT_GT(egress->GetTotalQueueBytes(), 0u);
        EXPECT_EQ(egress->GetBlockedClasses() & 1u, 1u);
        std::string where = "node " + std::to_string(r.sw[i]->GetId()) + " dev " +
                            std::to_string(egress->GetIfIndex()) + " (classes 0";
        EXPECT_NE(w->GetMessage().find(where), std::string::npos) << w->GetMessage();
    }
    FabricConservation c = CheckFabricConservation(r.all);
    EXPECT_TRUE(c.balanced) << c.message;
    EXPECT_EQ(c.dropped, 0u);
    EXPECT_GT(c.inFlight, 0u);
    EXPECT_LT(c.delivered, c.injected);
}

TEST_F(FabricWatchdogTest, DrainingFabricDoesNotTrip)
{
    Ring r = BuildRing();
    for (int k = 0; k < 3000; ++k)
    {
        r.host[0].devA->SendFabric(Create<Packet>(4096), FabricHeader(0, 2, 0, 0));
    }
    Ptr<FabricWatchdog> w = CreateObject<FabricWatchdog>();
    w->SetAttribute("StallTime", TimeValue(MicroSeconds(50)));
    w->Install(r.all);
    Simulator::Run();
    EXPECT_FALSE(w->HasFired()) << w->GetMessage();
    FabricConservation c = CheckFabricConservation(r.all);
    EXPECT_TRUE(c.ok) << c.message;
    EXPECT_EQ(c.delivered, 3000u * 4096u);
}
