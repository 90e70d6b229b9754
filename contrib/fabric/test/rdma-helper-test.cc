// SPDX-License-Identifier: GPL-2.0-only
//
// Presets and congestion control by name; one messaging API over NVLink and
// the network (a collective does not know which carries a message).
#include "rdma-helper.h"
#include "rdma-test-util.h"
#include "simulator-test.h"

#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace ns3;
using namespace hockney::rdmatest;

namespace
{

class RdmaHelperTest : public hockney::SimulatorTest
{
};

TEST_F(RdmaHelperTest, PresetsAndUnknownNames)
{
    auto names = RdmaHelper::PresetNames();
    EXPECT_EQ(names.size(), 5u);
    RdmaNicPreset cx7 = RdmaHelper::Preset("cx7-ndr-ib");
    EXPECT_EQ(cx7.lineRate.GetBitRate(), 400000000000ULL);
    EXPECT_EQ(cx7.mtu, 4096u);
    EXPECT_EQ(cx7.pcieRate.GetBitRate(), 504000000000ULL); // 63 GB/s
    EXPECT_EQ(RdmaHelper::Preset("roce-100g").mtu, 1024u);
    try
    {
        RdmaHelper::Preset("cx9");
        FAIL();
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("rdma preset"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("'cx9'"), std::string::npos);
    }
}

TEST_F(RdmaHelperTest, CongestionControlByName)
{
    auto cc = RdmaHelper::CreateCongestionControl("dcqcn:production", DataRate("400Gbps"));
    EXPECT_EQ(cc->GetName(), "Dcqcn");
    DataRateValue v;
    cc->GetAttribute("AdditiveIncrease", v);
    EXPECT_EQ(v.Get().GetBitRate(), 80000000ULL); // 5 x 400 / 25 Mb/s
    EXPECT_EQ(RdmaHelper::CreateCongestionControl("none", DataRate("1Gbps"))->GetName(), "None");
    EXPECT_THROW(RdmaHelper::CreateCongestionControl("timely", DataRate("1Gbps")),
                 std::invalid_argument);
    EXPECT_THROW(RdmaHelper::CreateCongestionControl("dcqcn:fast", DataRate("1Gbps")),
                 std::invalid_argument);
    EXPECT_THROW(RdmaHelper::CreateCongestionControl("dcqcn", DataRate(0)), std::invalid_argument);
}

TEST_F(RdmaHelperTest, InstallChecksThePort)
{
    RdmaHelper rdma;
    FabricHelper h;
    FabricLinkConfig cfg = RdmaLink("400Gbps");
    FabricLink l = h.Connect(CreateObject<Node>(), CreateObject<Node>(), cfg);
    EXPECT_THROW(rdma.Install(l.devA, "roce-100g"), std::invalid_argument); // 100 vs 400 Gb/s
    Ptr<RdmaNic> nic = rdma.Install(l.devA, "roce-400g");
    EXPECT_EQ(nic->GetCongestionControl()->GetName(), "Dcqcn");
    cfg.mtu = 4096; // no room for BTH + RETH + ImmDt beside 4096 payload bytes
    FabricLink l2 = h.Connect(CreateObject<Node>(), CreateObject<Node>(), cfg);
    try
    {
        rdma.Install(l2.devA, "cx7-ndr-ib");
        FAIL();
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("RdmaNic::Mtu"), std::string::npos) << e.what();
    }
}

TEST_F(RdmaHelperTest, OneApiOverNvlinkAndTheNetwork)
{
    // Ranks 0 and 1 share an NVSwitch (domain 7) and the network (domain 1);
    // rank 2 is on the network only. 0 -> 1 must take NVLink, 0 -> 2 the network.
    RdmaHelper rdma;
    FabricLinkConfig nv;
    nv.rate = DataRate("3600Gbps");
    nv.delay = NanoSeconds(5);
    nv.headerBytes = 16;
    nv.minWireBytes = 0;
    nv.mtu = 256;
    nv.flowControl = FabricFlowControlMode::CREDIT;
    nv.linkType = FabricLinkType::NVLINK;
    nv.ecn = false;
    FabricLinkConfig net = RdmaLink("400Gbps");
    FabricHelper h;
    Ptr<FabricSwitch> nvs = h.CreateSwitch(NanoSeconds(100), false);
    Ptr<FabricSwitch> tor = h.CreateSwitch(NanoSeconds(300), false);
    Ptr<RdmaMessenger> comm = CreateObject<RdmaMessenger>();
    std::vector<Ptr<RdmaNic>> nvNics, netNics;
    for (uint32_t r = 0; r < 3; ++r)
    {
        Ptr<Node> gpu = CreateObject<Node>();
        Ptr<RdmaEndpoint> ep = rdma.CreateEndpoint();
        if (r < 2)
        {
            FabricLink l = h.Connect(gpu, nvs, nv);
            l.devA->SetFabricAddress(r);
            nvs->AddRoute(r, {l.portB});
            nvNics.push_back(rdma.Install(l.devA, "nvlink4"));
            ep->AddNic(nvNics.back(), 7);
        }
        FabricLink l = h.Connect(gpu, tor, net);
        l.devA->SetFabricAddress(100 + r);
        tor->AddRoute(100 + r, {l.portB});
        netNics.push_back(rdma.Install(l.devA, "roce-400g"));
        ep->AddNic(netNics.back(), 1);
        comm->AddEndpoint(ep);
    }
    double t01 = -1, t02 = -1;
    auto rec = [](double* t, const RdmaMessageRecord& r) {
        *t = (r.delivered - r.submitted).GetSeconds();
    };
    comm->Send(0, 1, 4096, MakeCallback(+rec).Bind(&t01));
    Simulator::Run();
    comm->Send(0, 2, 4096, MakeCallback(+rec).Bind(&t02));
    Simulator::Run();
    EXPECT_EQ(nvNics[0]->GetCounters().bytesSent, 4096u);
    EXPECT_EQ(netNics[0]->GetCounters().bytesSent, 4096u);
    EXPECT_EQ(netNics[1]->GetCounters().bytesDelivered, 0u);
    EXPECT_EQ(netNics[2]->GetCounters().bytesDelivered, 4096u);
    // NVLink by hand: o + startup 0.6 us + 16 packets of 256 B (+16 B header
    // flit each, no transport bytes on the wire: 0.604 ns at 3.6 Tb/s) through
    // a store-and-forward switch (100 ns) + o; HBM reads at 3.35 TB/s.
    Costs nvc;
    nvc.line = 3600e9;
    nvc.delay = 5e-9;
    nvc.header = 16;
    nvc.minWire = 0;
    nvc.mtu = 256;
    nvc.pcieLat = 0;
    nvc.dmaRate = 26800e9;
    nvc.switchLatency = 100e-9;
    nvc.switchLine = 3600e9;
    nvc.startup = 600e-9;
    nvc.transport = 0;
    EXPECT_NEAR(t01, 0.5e-6 + OneWay(nvc, 4096, false) + 0.5e-6, 1e-11);
    Costs nc;
    nc.line = 400e9;
    nc.mtu = 4096;
    nc.switchLatency = 300e-9;
    nc.switchLine = 400e9;
    EXPECT_NEAR(t02, 0.5e-6 + OneWay(nc, 4096, false) + 0.5e-6, 1e-11);
    // Empty messages on both transports (a synchronisation): delivered, 0 bytes.
    uint32_t empties = 0;
    comm->Send(1, 0, 0, MakeCallback(+[](uint32_t* e, const RdmaMessageRecord& r) {
                            *e += r.bytes == 0 ? 1 : 100;
                        }).Bind(&empties));
    comm->Send(2, 0, 0, MakeCallback(+[](uint32_t* e, const RdmaMessageRecord& r) {
                            *e += r.bytes == 0 ? 1 : 100;
                        }).Bind(&empties));
    Simulator::Run();
    EXPECT_EQ(empties, 2u);
    EXPECT_EQ(nvNics[0]->GetCounters().bytesDelivered, 0u);
}

} // namespace
