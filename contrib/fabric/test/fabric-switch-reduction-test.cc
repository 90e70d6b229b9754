// SPDX-License-Identifier: GPL-2.0-only
//
// In-switch reduction (NVLS) on a 4-GPU star: the sum leaves after the last
// contribution, timed by hand; each contribution reduced exactly once; one
// multicast copy per receiver; conservation with contributions consumed and
// copies produced; back-pressure from a one-slot accumulator; the endpoint
// side over several packets.
#include "fabric-helper.h"
#include "fabric-reduction-endpoint.h"
#include "fabric-switch-reduction.h"
#include "fabric-test-util.h"
#include "simulator-test.h"

#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class FabricSwitchReductionTest : public hockney::SimulatorTest
{
};

using hockney::Arrivals;

constexpr uint32_t kGpus = 4;

// Four GPUs on one switch, 100 Gb/s, 500 ns, 70 B framing, no minimum
// frame, credit flow control, store-and-forward, forwarding latency 300 ns;
// the switch reduces with the given attributes. Group 0: every GPU a source
// and a receiver.
struct Star
{
    Ptr<FabricSwitch> sw;
    Ptr<FabricSwitchReduction> nvls;
    std::vector<FabricLink> links;
    NodeContainer all;
    std::vector<Arrivals> rx = std::vector<Arrivals>(kGpus);

    Star(DataRate rate, Time latency, uint64_t buffer, uint64_t groupBytes, uint16_t mtu = 4096)
    {
        FabricHelper h;
        sw = h.CreateSwitch(NanoSeconds(300), false);
        nvls = CreateObject<FabricSwitchReduction>();
        nvls->SetAttribute("ReductionRate", DataRateValue(rate));
        nvls->SetAttribute("ReductionLatency", TimeValue(latency));
        nvls->SetAttribute("ReductionBufferBytes", UintegerValue(buffer));
        sw->SetReduction(nvls);
        all.Add(sw);
        FabricLinkConfig cfg;
        cfg.delay = NanoSeconds(500);
        cfg.minWireBytes = 0;
        cfg.mtu = mtu;
        cfg.flowControl = FabricFlowControlMode::CREDIT;
        std::vector<uint32_t> ports;
        std::vector<uint32_t> addresses;
        for (uint32_t i = 0; i < kGpus; ++i)
        {
            Ptr<Node> g = CreateObject<Node>();
            all.Add(g);
            FabricLink l = h.Connect(g, sw, cfg);
            l.devA->SetFabricAddress(i);
            sw->AddRoute(i, {l.portB});
            l.devA->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rx[i]));
            ports.push_back(l.portB);
            addresses.push_back(i);
            links.push_back(l);
        }
        nvls->AddGroup(0, ports, ports, addresses, groupBytes);
    }

    void Contribute(uint32_t gpu, uint32_t bytes, Time at)
    {
        Ptr<FabricNetDevice> d = links[gpu].devA;
        Simulator::Schedule(at, [d, gpu, bytes]() {
            d->SendFabric(Create<Packet>(bytes), FabricHeader(gpu, FabricSwitchReduction::GroupAddress(0), 0, 0));
        });
    }
};

} // namespace

TEST_F(FabricSwitchReductionTest, SumLeavesAfterTheLastContributionByHand)
{
    // 1000 B + 70 B framing = 1070 B on the wire: 85 600 ps at 100 Gb/s.
    // GPUs 0-2 send at 0, GPU 3 at 1 us: its last bit is at the switch at
    // 1 000 000 + 85 600 + 500 000 = 1 585 600 ps (store-and-forward). The
    // sum starts 300 000 (forwarding) + 200 000 (reduction) later, at
    // 2 085 600, and its last bit reaches every GPU 85 600 + 500 000 after:
    // 2 671 200 ps. With a reduction unit of 50 Gb/s, absorbing GPU 3's
    // 1000 B takes 160 000 ps more: 2 831 200 ps.
    for (auto [rate, expected] : {std::pair<uint64_t, int64_t>{0, 2671200}, {50000000000ull, 2831200}})
    {
        Star star(DataRate(rate), NanoSeconds(200), 1 << 20, 1000);
        for (uint32_t i = 0; i < kGpus; ++i)
        {
            star.Contribute(i, 1000, i == 3 ? MicroSeconds(1) : Time(0));
        }
        Simulator::Run();
        for (uint32_t i = 0; i < kGpus; ++i)
        {
            ASSERT_EQ(star.rx[i].at.size(), 1u) << "GPU " << i;
            EXPECT_EQ(star.rx[i].at[0].GetPicoSeconds(), expected) << "GPU " << i << " rate " << rate;
            EXPECT_EQ(star.rx[i].headers[0].GetSource(), FabricSwitchReduction::GroupAddress(0));
            EXPECT_EQ(star.rx[i].headers[0].GetDestination(), i);
        }
        // Each contribution reduced exactly once, one sum, one copy per receiver.
        FabricReductionCounters c = star.nvls->GetCounters();
        EXPECT_EQ(c.contributions, 4u);
        EXPECT_EQ(c.consumedBytes, 4000u);
        EXPECT_EQ(c.reductions, 1u);
        EXPECT_EQ(c.copies, 4u);
        EXPECT_EQ(c.replicatedBytes, 4000u);
        EXPECT_EQ(c.heldBytes, 0u);
        EXPECT_FALSE(star.nvls->HasGroup(0)); // every copy left: the group is done
        // injected 4000 + replicated 4000 == delivered 4000 + consumed 4000.
        FabricConservation k = CheckFabricConservation(star.all);
        EXPECT_TRUE(k.ok) << k.message;
        EXPECT_EQ(k.injected, 4000u);
        EXPECT_EQ(k.delivered, 4000u);
        EXPECT_EQ(k.consumed, 4000u);
        EXPECT_EQ(k.replicated, 4000u);
        Simulator::Destroy();
    }
}

TEST_F(FabricSwitchReductionTest, EndpointsSendManyPacketsAndReceiveTheWholeSum)
{
    // 10 000 B per GPU in 1000 B packets: 10 sums, 40 copies. With a
    // one-slot accumulator the second slot waits for the first slot's last
    // copy: the same sums arrive later, and contributions held at the
    // ingress (credits not returned) slow the senders instead of a drop.
    Time done[2];
    for (uint64_t buffer : {uint64_t(1) << 20, uint64_t(1000)})
    {
        Star star(DataRate(0), Time(0), buffer, 10000, 1000);
        std::vector<Ptr<FabricReductionEndpoint>> ep;
        uint32_t complete = 0;
        Time last;
        for (uint32_t i = 0; i < kGpus; ++i)
        {
            Ptr<FabricReductionEndpoint> e = CreateObject<FabricReductionEndpoint>();
            e->Attach(star.links[i].devA);
            e->ExpectSum(0, 10000, [&complete, &last]() {
                ++complete;
                last = Simulator::Now();
            });
            e->Contribute(0, 10000);
            ep.push_back(e);
        }
        Simulator::Run();
        EXPECT_EQ(complete, kGpus);
        FabricReductionCounters c = star.nvls->GetCounters();
        EXPECT_EQ(c.contributions, 40u);
        EXPECT_EQ(c.reductions, 10u);
        EXPECT_EQ(c.copies, 40u);
        for (uint32_t i = 0; i < kGpus; ++i)
        {
            EXPECT_EQ(ep[i]->GetBytesContributed(), 10000u);
            EXPECT_EQ(ep[i]->GetBytesReceived(), 10000u);
            EXPECT_EQ(ep[i]->GetPendingSums(), 0u);
        }
        FabricConservation k = CheckFabricConservation(star.all);
        EXPECT_TRUE(k.ok) << k.message;
        EXPECT_EQ(k.dropped, 0u);
        done[buffer == 1000] = last;
        Simulator::Destroy();
    }
    // Unlimited accumulator: the 10 packets stream at 1070 B per 85 600 ps;
    // the last sum leaves 300 ns after the last contribution arrived and
    // takes 85 600 + 500 000 to the GPUs: 2 241 600 ps. Credit updates
    // share the switch-to-GPU wire with the copies; a standalone one (84 B,
    // 6 720 ps) can hold a copy back, at most one per contribution: bound
    // 10 x 6 720 ps above. The one-slot accumulator serializes the slots,
    // each waiting for the previous one's copies to start: strictly later.
    const int64_t ideal = 10 * 85600 + 500000 + 300000 + 85600 + 500000;
    EXPECT_GE(done[0].GetPicoSeconds(), ideal);
    EXPECT_LE(done[0].GetPicoSeconds(), ideal + 10 * 6720);
    EXPECT_GT(done[1], done[0]);
}

TEST_F(FabricSwitchReductionTest, PacketOfAnUnknownGroupIsDroppedAndCounted)
{
    Star star(DataRate(0), Time(0), 1 << 20, 1000);
    Ptr<FabricNetDevice> d = star.links[0].devA;
    d->SendFabric(Create<Packet>(1000), FabricHeader(0, FabricSwitchReduction::GroupAddress(7), 7, 0));
    Simulator::Run();
    EXPECT_EQ(star.links[0].devB->GetCounters().dropsBy[kDropNoRoute], 1u);
    EXPECT_EQ(star.nvls->GetCounters().contributions, 0u);
    Simulator::Destroy();
}

TEST_F(FabricSwitchReductionTest, NvlinkReductionRatesFollowNcclsModel)
{
    // 18 x 20.6 GB/s x 0.85 x 8/9 = 280.16 GB/s (H100); 18 x 40.1 x 0.74 x
    // 8/9 = 474.78 GB/s (B200); computed here from NCCL's constants.
    EXPECT_NEAR(NvlsReductionRate(DataRate("25GB/s")).GetBitRate() / 8e9, 18 * 20.6 * 0.85 * 8 / 9, 1e-6);
    EXPECT_NEAR(NvlsReductionRate(DataRate("50GB/s")).GetBitRate() / 8e9, 18 * 40.1 * 0.74 * 8 / 9, 1e-6);
    EXPECT_EQ(NvlsReductionRate(DataRate("100Gbps")).GetBitRate(), 0u);
}
