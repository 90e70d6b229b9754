// SPDX-License-Identifier: GPL-2.0-only
//
// Credit updates folded into a busy sender's port (FabricNetDevice::
// OfferLateControl and TakeControlEarly, fabric.md "Modelling choices made
// for speed") on a whole cluster: every message must complete at the
// picosecond it completes when every frame has its own event.

#include "fabric-net-device.h"
#include "topology-builder.h"
#include "packet-transport.h"
#include "simulator-test.h"
#include "topology-presets.h"

#include "ns3/config.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

using namespace ns3;

namespace
{

class PacketCreditFoldTest : public hockney::SimulatorTest
{
};

struct ChainRun
{
    std::vector<int64_t> done; ///< completion time of each message, ps (-1: not completed)
    uint64_t events{0};
};

/// Every rank of rail-h100-2n (16 GPUs, NVSwitch and InfiniBand credit
/// links) sends \p bytes to each other rank in turn (rank i to i+1, i+2,
/// ... once the previous message has completed), in 64 KiB network
/// transfer units, with the packet runs' event queue (tie keys on). With
/// \p watchFrames a PhyRxEnd sink on every port keeps every frame's own
/// event, the second method. Switches take packets in at their arrival
/// (IngressPipeline None) in both runs: a sink turns the early take-in off
/// too, and on this traffic the early take-in does not complete every
/// message at None's picosecond (benchmarks/README.md, "Every credit update
/// offered for folding"), which is not what this test is about.
ChainRun
RunChains(bool watchFrames, uint64_t bytes)
{
    Simulator::SetScheduler(ObjectFactory("ns3::RingCalendarScheduler"));
    Config::SetDefault("ns3::FabricSwitch::IngressPipeline", StringValue("None")); // (SimulatorTest resets it)
    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    t->SetNetworkTransferUnit(65536);
    t->Build(MakePreset("rail-h100-2n"), Ptr<RdmaCongestionControl>());
    if (watchFrames)
    {
        for (NodeContainer nodes : {t->GetNetwork()->GetSwitches(), t->GetNetwork()->GetNodes()})
        {
            for (uint32_t n = 0; n < nodes.GetN(); ++n)
            {
                for (uint32_t d = 0; d < nodes.Get(n)->GetNDevices(); ++d)
                {
                    if (Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(nodes.Get(n)->GetDevice(d)))
                    {
                        dev->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(+[](Ptr<const Packet>) {}));
                    }
                }
            }
        }
    }
    const uint32_t ranks = 16;
    ChainRun r;
    r.done.assign(ranks * (ranks - 1), -1);
    // Rank i's k-th message goes to i + k (mod ranks), sent when its
    // (k-1)-th completes.
    std::function<void(uint32_t, uint32_t)> send = [&](uint32_t i, uint32_t k) {
        t->Send(i, (i + k) % ranks, bytes, [&, i, k]() {
            r.done[i * (ranks - 1) + (k - 1)] = Simulator::Now().GetPicoSeconds();
            if (k + 1 < ranks)
            {
                send(i, k + 1);
            }
        });
    };
    for (uint32_t i = 0; i < ranks; ++i)
    {
        send(i, 1);
    }
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    r.events = Simulator::GetEventCount();
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(PacketCreditFoldTest, UnitChainsOnARailClusterCompleteAsWithEveryFrameEvent)
{
    // 240 messages of 1 MB in 64 KiB units on both kinds of credit link.
    // Among the credit updates offered early, some reach a port that is busy
    // until exactly the update's arrival with its next start pending: that
    // start must find the update's credit (its keyed event runs first), so
    // such a frame is never kept without an event (a version that kept it
    // stalled the 16 MB pairwise AllToAll of this cluster). Second method:
    // the run with every frame's own event; the same completion times to
    // the picosecond, and fewer events.
    const ChainRun folded = RunChains(false, 1000000);
    const ChainRun evented = RunChains(true, 1000000);
    for (size_t m = 0; m < folded.done.size(); ++m)
    {
        ASSERT_GE(folded.done[m], 0) << "message " << m << " did not complete";
    }
    EXPECT_EQ(folded.done, evented.done);
    EXPECT_LT(folded.events, evented.events);
}
