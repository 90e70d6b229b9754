// SPDX-License-Identifier: GPL-2.0-only
//
// The egress disciplines on one link: departure order of backlogged classes
// against the order each discipline prescribes, worked out by hand.
#include "fabric-helper.h"
#include "fabric-test-util.h"
#include "simulator-test.h"

#include "ns3/enum.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

class FabricEgressSchedulerTest : public hockney::SimulatorTest
{
};

using hockney::Arrivals;

// A -> B, 10 Gb/s, no flow control; `perClass` 1000 B packets of each
// class in `classes` queued at A at t = 0 (class by class, in that order);
// returns the classes in the order B received them.
std::string
DepartureOrder(FabricNetDevice::SchedulerType scheduler, const std::vector<uint8_t>& classes,
               uint32_t perClass, uint8_t strictMask = 0x80)
{
    FabricLinkConfig cfg;
    cfg.rate = DataRate("10Gbps");
    cfg.delay = NanoSeconds(100);
    cfg.flowControl = FabricFlowControlMode::NONE;
    FabricHelper h;
    FabricLink l = h.Connect(CreateObject<Node>(), CreateObject<Node>(), cfg);
    l.devA->SetFabricAddress(0);
    l.devB->SetFabricAddress(1);
    l.devA->SetAttribute("Scheduler", EnumValue(scheduler));
    l.devA->GetEgressScheduler()->SetAttribute("StrictPriorityClasses", UintegerValue(strictMask));
    Arrivals rx;
    l.devB->SetFabricReceiveCallback(MakeCallback(&Arrivals::Rx, &rx));
    // The first packet leaves at once on the idle port; the others are all
    // queued before it has finished, so the scheduler orders them.
    for (uint8_t c : classes)
    {
        for (uint32_t i = 0; i < perClass; ++i)
        {
            l.devA->SendFabric(Create<Packet>(1000), FabricHeader(0, 1, i, c));
        }
    }
    Simulator::Run();
    std::string order;
    for (const auto& hdr : rx.headers)
    {
        order += char('0' + hdr.GetPriority());
    }
    return order;
}

} // namespace

TEST_F(FabricEgressSchedulerTest, SchedulerAttributeInstallsTheDiscipline)
{
    Ptr<FabricNetDevice> d = CreateObject<FabricNetDevice>();
    EXPECT_EQ(d->GetEgressScheduler()->GetInstanceTypeId(), FabricRoundRobinScheduler::GetTypeId());
    d->SetAttribute("Scheduler", EnumValue(FabricNetDevice::DWRR));
    EXPECT_EQ(d->GetEgressScheduler()->GetInstanceTypeId(), FabricDwrrScheduler::GetTypeId());
    d->SetAttribute("Scheduler", EnumValue(FabricNetDevice::STRICT_PRIORITY));
    EXPECT_EQ(d->GetEgressScheduler()->GetInstanceTypeId(),
              FabricStrictPriorityScheduler::GetTypeId());
    EXPECT_EQ(d->GetSchedulerType(), FabricNetDevice::STRICT_PRIORITY);
    EXPECT_THROW(d->SetEgressScheduler(nullptr), std::invalid_argument);
}

TEST_F(FabricEgressSchedulerTest, StrictPriorityDrainsHigherClassesFirst)
{
    // The first packet (class 0) leaves at once, on an idle port; the rest
    // wait and then go by class, highest first: 5, then 2, then 0.
    EXPECT_EQ(DepartureOrder(FabricNetDevice::STRICT_PRIORITY, {0, 2, 5}, 3), "0" "555" "222" "00");
}

TEST_F(FabricEgressSchedulerTest, RoundRobinTakesOnePacketPerClassPerTurn)
{
    // First packet at once (class 0); class 7 (strict by default) goes
    // before the others; the turn then starts after class 0: 1, 3, 0, 1, ...
    EXPECT_EQ(DepartureOrder(FabricNetDevice::ROUND_ROBIN, {0, 1, 3, 7}, 3), "0" "777" "13013013");
}

TEST_F(FabricEgressSchedulerTest, RoundRobinTurnWrapsPastTheLastClass)
{
    // First packet at once (class 5), so the turn starts at class 6: 6, then
    // 7 (strict, nothing queued) wraps to 0 and 1 goes, then 2-4 are empty
    // and 5 goes, and again from 6. A turn restarted at class 0 would send
    // 1 first; one that did not wrap past class 7 would stall after 6.
    EXPECT_EQ(DepartureOrder(FabricNetDevice::ROUND_ROBIN, {5, 6, 1}, 3), "5" "615615" "61");
}

TEST_F(FabricEgressSchedulerTest, StrictClassesGoFirstUnderRoundRobin)
{
    // StrictPriorityClasses = class 1 only: class 1 drains first, then the
    // turn (which starts after class 0) alternates 2 and 0.
    EXPECT_EQ(DepartureOrder(FabricNetDevice::ROUND_ROBIN, {0, 1, 2}, 3, 0x02), "0" "111" "20202");
}

TEST_F(FabricEgressSchedulerTest, DwrrSendsWhileTheDeficitIsPositive)
{
    // Equal weights, quantum 4096 B, 1000 B packets: a class sends while its
    // deficit is positive, so a visit from 0 sends 5 (4096 -> -904) and the
    // next visit from -904 + 4096 = 3192 sends 4; class 0 has 3 left then,
    // class 1 too.
    EXPECT_EQ(DepartureOrder(FabricNetDevice::DWRR, {0, 1}, 8), "00000" "11111" "000" "111");
}
