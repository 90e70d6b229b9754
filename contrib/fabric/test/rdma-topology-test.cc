// SPDX-License-Identifier: GPL-2.0-only
//
// The RDMA endpoints on the topology builder's presets: a ring of 1 MB
// messages inside a DGX H100 (NVLink 4 engines on the NVSwitch domain) and a
// message across a RoCE leaf-spine (DCQCN NICs), every byte delivered.
#include "rdma-helper.h"
#include "simulator-test.h"
#include "topology-builder.h"
#include "topology-presets.h"

#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class RdmaTopologyTest : public hockney::SimulatorTest
{
};

TEST_F(RdmaTopologyTest, NvlinkRingInsideDgxH100)
{
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("dgx-h100"));
    RdmaHelper rdma;
    Ptr<RdmaMessenger> comm = CreateObject<RdmaMessenger>();
    const uint32_t n = net->GetNEndpoints();
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<RdmaEndpoint> ep = rdma.CreateEndpoint();
        ep->AddNic(rdma.Install(net->GetEndpointDevice(r), "nvlink4"), 0);
        comm->AddEndpoint(ep);
    }
    comm->ConnectAll();
    std::vector<double> done;
    const uint64_t bytes = 1000000;
    for (uint32_t r = 0; r < n; ++r)
    {
        comm->Send(r, (r + 1) % n, bytes,
                   MakeCallback(+[](std::vector<double>* d, const RdmaMessageRecord& m) {
                       d->push_back(m.delivered.GetSeconds());
                   }).Bind(&done));
    }
    net->InstallWatchdog();
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    ASSERT_EQ(done.size(), n);
    auto k = comm->GetTotals();
    EXPECT_EQ(k.bytesDelivered, n * bytes);
    EXPECT_EQ(k.retransmittedBytes, 0u); // credit flow control: lossless
    // Each GPU sends and receives one 1 MB message at once over its 450 GB/s
    // port: no faster than 1 MB at the payload share 256/272 of 450 GB/s.
    for (double t : done)
    {
        EXPECT_GT(t, bytes / (450e9 * 256 / 272));
        EXPECT_LT(t, 3 * bytes / (450e9 * 256 / 272) + 10e-6);
    }
}

TEST_F(RdmaTopologyTest, RoceLeafSpineWithDcqcn)
{
    Ptr<FabricNetwork> net = CreateObject<FabricNetwork>();
    net->Build(MakePreset("roce-leafspine"));
    RdmaHelper rdma;
    Ptr<RdmaMessenger> comm = CreateObject<RdmaMessenger>();
    const uint32_t n = net->GetNEndpoints();
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<RdmaEndpoint> ep = rdma.CreateEndpoint();
        ep->AddNic(rdma.Install(net->GetEndpointDevice(r), "roce-100g"), 0);
        comm->AddEndpoint(ep);
    }
    // Four senders on the first leaf to one host on the last: across the spines.
    uint32_t delivered = 0;
    for (uint32_t r = 1; r <= 4; ++r)
    {
        comm->Send(r, n - 1, 200000,
                   MakeCallback(+[](uint32_t* d, const RdmaMessageRecord&) { ++*d; }).Bind(&delivered));
    }
    net->InstallWatchdog();
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();
    EXPECT_EQ(delivered, 4u);
    auto k = comm->GetTotals();
    EXPECT_EQ(k.bytesDelivered, 800000u);
    EXPECT_EQ(k.bytesSent, 800000u);
    net->AssertConservation();
}

} // namespace
