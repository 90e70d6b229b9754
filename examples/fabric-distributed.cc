// SPDX-License-Identifier: GPL-2.0-only
//
// A fabric partitioned over MPI ranks (contrib/fabric/doc/fabric.md, "Past
// one machine: MPI"): two switches S0 and S1 joined by one link, hosts H0, H1
// on S0 and H2, H3 on S1, 100 Gb/s PFC links of 1 us. H0, H1 and H3 each
// send --packets packets of 4096 B to H2 at once: S1's port to H2 gets two
// links' worth and pauses S1's ingress from S0 and from H3, S0 then pauses
// H0 and H1; H2 sends the same to H0 the other way.
//
// Node v (S0, S1, H0, H1, H2, H3 in that order) belongs to rank v mod N, so
// with 2 or 4 ranks data, PFC pauses and resumes cross ranks on the
// switch-switch link and on host links. Each rank writes the counters of
// every port of its nodes and what each of its hosts received (packets,
// bytes, the time of the last, in ps) to --output.rankR (stdout without
// --output): the lines of all ranks, sorted, are those of one process
// (cmake/hockney-mpi-compare.cmake checks it, ctest mpi.*).
//
// Run: mpirun -np 2 build/bin/fabric-distributed --sync=gtw|nullmsg
//
// ctest-args: --packets=20
#include "fabric-helper.h"
#include "fabric-net-device.h"
#include "fabric-switch.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#endif

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

using namespace ns3;

namespace
{
struct HostRx
{
    uint64_t packets{0};
    uint64_t bytes{0};
    Time last;
};
std::map<uint32_t, HostRx> g_rx;

void
Received(Ptr<FabricNetDevice> dev, Ptr<Packet> p, const FabricHeader& h)
{
    HostRx& r = g_rx[dev->GetFabricAddress()];
    ++r.packets;
    r.bytes += p->GetSize() - FabricHeader::kSerializedSize;
    r.last = Simulator::Now();
}
} // namespace

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    uint32_t rank = 0;
    uint32_t ranks = 1;
    std::string sync = "gtw";
    // The synchronisation algorithm is chosen before MPI starts: look for it first.
    for (int i = 1; i < argc; ++i)
    {
        if (std::string(argv[i]) == "--sync=nullmsg")
        {
            sync = "nullmsg";
        }
    }
#ifdef NS3_MPI
    if (std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE"))
    {
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue(sync == "nullmsg" ? "ns3::NullMessageSimulatorImpl"
                                                        : "ns3::DistributedSimulatorImpl"));
        MpiInterface::Enable(&argc, &argv);
        rank = MpiInterface::GetSystemId();
        ranks = MpiInterface::GetSize();
    }
#endif
    uint32_t packets = 50;
    bool symmetric = false;
    std::string output;
    CommandLine cmd(__FILE__);
    cmd.AddValue("packets", "packets of 4096 B each sender sends", packets);
    cmd.AddValue("sync", "gtw (granted time window) or nullmsg (null messages), under mpirun", sync);
    cmd.AddValue("symmetric", "H1 sends to H2 as well: its packets reach S0 at the same picoseconds as H0's",
                 symmetric);
    cmd.AddValue("output", "file prefix: each rank writes PREFIX.rankR (default: stdout)", output);
    cmd.Parse(argc, argv);

    auto owner = [ranks](uint32_t v) { return v % ranks; };
    std::vector<Ptr<FabricSwitch>> sw{CreateObject<FabricSwitch>(owner(0)), CreateObject<FabricSwitch>(owner(1))};
    std::vector<Ptr<Node>> host;
    for (uint32_t h = 0; h < 4; ++h)
    {
        host.push_back(CreateObject<Node>(owner(2 + h)));
    }
    for (const auto& s : sw)
    {
        // A small shared buffer, so that PFC pauses (and resumes) cross ranks.
        s->GetBuffer()->SetAttribute("BufferBytes", UintegerValue(256 * 1024));
    }
    FabricHelper helper;
    FabricLinkConfig cfg; // 100 Gb/s, 1 us, PFC on every class
    std::vector<Ptr<FabricNetDevice>> nic;
    for (uint32_t h = 0; h < 4; ++h)
    {
        FabricLink l = helper.Connect(host[h], sw[h / 2], cfg);
        l.devA->SetFabricAddress(h);
        l.devA->SetFabricReceiveCallback(MakeCallback(&Received));
        nic.push_back(l.devA);
        sw[h / 2]->AddRoute(h, {l.portB});
    }
    FabricLink trunk = helper.Connect(sw[0], sw[1], cfg);
    for (uint32_t h = 0; h < 4; ++h)
    {
        sw[0]->AddRoute(h, sw[0]->GetRoute(h).empty() ? std::vector<uint32_t>{trunk.portA} : sw[0]->GetRoute(h));
        sw[1]->AddRoute(h, sw[1]->GetRoute(h).empty() ? std::vector<uint32_t>{trunk.portB} : sw[1]->GetRoute(h));
    }

    // Senders on this rank, each in its node's context.
    std::vector<std::pair<uint32_t, uint32_t>> flows{{0, 2}, {3, 2}, {2, 0}};
    if (symmetric)
    {
        flows.push_back({1, 2});
    }
    for (const auto& [src, dst] : flows)
    {
        if (host[src]->GetSystemId() != rank)
        {
            continue;
        }
        Ptr<FabricNetDevice> dev = nic[src];
        const uint32_t n = packets;
        const uint32_t s = src;
        const uint32_t d = dst;
        Simulator::ScheduleWithContext(host[src]->GetId(), Seconds(0), [dev, n, s, d]() {
            for (uint32_t k = 0; k < n; ++k)
            {
                dev->SendFabric(Create<Packet>(4096), FabricHeader(s, d, s, 3));
            }
        });
    }
    // The null-message algorithm cannot tell that every rank has run out of
    // events (ns-3's distributed.rst): it needs a stop time, which every
    // mode gets so that their runs are the same.
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();

    std::ostringstream os;
    for (uint32_t v = 0; v < NodeList::GetNNodes(); ++v)
    {
        Ptr<Node> node = NodeList::GetNode(v);
        if (node->GetSystemId() != rank)
        {
            continue;
        }
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>(node->GetDevice(i));
            const FabricPortCounters c = d->GetCounters();
            os << "node " << v << " port " << i << " tx " << c.txPackets << " " << c.txBytes << " rx "
               << c.rxPackets << " " << c.rxBytes << " drops " << c.drops << " control " << c.controlTx << " "
               << c.controlRx << " pauses " << c.pausesSent << " " << c.resumesSent << " " << c.pausesReceived
               << " paused_ps " << c.pausedTime.GetPicoSeconds() << " busy_ps " << c.busyTime.GetPicoSeconds()
               << " max_queue " << c.maxQueueBytes << "\n";
        }
    }
    for (const auto& [address, r] : g_rx)
    {
        os << "host " << address << " received " << r.packets << " " << r.bytes << " last_ps "
           << r.last.GetPicoSeconds() << "\n";
    }
    if (output.empty())
    {
        std::cout << os.str();
    }
    else
    {
        std::ofstream(output + ".rank" + std::to_string(rank)) << os.str();
    }
    Simulator::Destroy();
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        MpiInterface::Disable();
    }
#endif
    return 0;
}
