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
// --topology=PRESET builds a preset instead (FabricNetwork, nodes owned as
// its Partition attribute says, "auto" by default; the lookahead on stderr):
// every endpoint sends --packets packets to each of the next --shifts
// endpoints at once, all in lockstep, so that packets of different links
// arrive at a switch on the same picosecond - the ties that need the fabric's
// tie keys (fabric-channel.h) to come out as in one process. Rank 0 also
// writes the run's event count, summed over ranks without what MPI adds (a
// receipt per crossing and the other ranks' nodes' initialization,
// FabricRemoteChannel::GetMpiOnlyEvents, and each other rank's stop event) -
// with the granted time window only: the null-message
// algorithm's own events (null messages) are counted by ns-3 with the run's.
//
// Run: mpirun -np 2 build/bin/fabric-distributed --sync=gtw|nullmsg
//      mpirun -np 4 build/bin/fabric-distributed --topology=roce-leafspine
//
// ctest-args: --packets=20
#include "fabric-helper.h"
#include "fabric-net-device.h"
#include "fabric-switch.h"
#include "mpi-launch.h"
#include "topology-builder.h"
#include "topology-presets.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#ifdef NS3_MPI
#include "fabric-remote-channel.h"

#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

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
    HostRx& r = g_rx[h.GetDestination()];
    ++r.packets;
    r.bytes += p->GetSize() - FabricHeader::kSerializedSize;
    r.last = Simulator::Now();
}

/// The two switches and four hosts of the header, node v owned by rank v mod N.
void
RunTwoSwitches(uint32_t packets, bool symmetric, uint32_t rank, uint32_t ranks)
{
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
}

/// A preset built by FabricNetwork, partitioned by \p partition.
void
RunPreset(const std::string& name, const std::string& partition, uint32_t packets, uint32_t shifts, uint32_t rank)
{
    static Ptr<FabricNetwork> net; // lives until Simulator::Destroy
    net = CreateObject<FabricNetwork>();
    net->SetAttribute("Partition", StringValue(partition));
    net->Build(MakePreset(name));
    if (net->GetPartition().ranks > 1 && rank == 0)
    {
        std::cerr << "partition " << partition << ": " << net->GetPartition().Describe() << "\n";
    }
    const uint32_t n = net->GetNEndpoints();
    for (uint32_t r = 0; r < n; ++r)
    {
        for (Ptr<FabricNetDevice> d : net->GetEndpointDevices(r))
        {
            d->SetFabricReceiveCallback(MakeCallback(&Received));
        }
    }
    for (uint32_t src = 0; src < n; ++src)
    {
        Ptr<Node> node = net->GetEndpointNode(src);
        if (node->GetSystemId() != rank)
        {
            continue;
        }
        Simulator::ScheduleWithContext(node->GetId(), Seconds(0), [net = net, src, n, packets, shifts]() {
            for (uint32_t k = 1; k <= shifts && k < n; ++k)
            {
                const uint32_t dst = (src + k) % n;
                const uint32_t flow = src * n + dst;
                Ptr<FabricNetDevice> dev = net->GetEgressDevice(src, dst, flow);
                for (uint32_t i = 0; i < packets; ++i)
                {
                    dev->SendFabric(Create<Packet>(dev->GetMtu()), FabricHeader(src, dst, flow, 3));
                }
            }
        });
    }
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
    if (hockney::MpiLaunched())
    {
        hockney::EnableMpiSimulator(sync, &argc, &argv);
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
    std::string topology;
    std::string partition = "auto";
    uint32_t shifts = 1;
    cmd.AddValue("topology", "a topology preset to build instead of the two switches", topology);
    cmd.AddValue("partition", "with --topology: auto, pod or rank-map:FILE (FabricNetwork::Partition)", partition);
    cmd.AddValue("shifts", "with --topology: each endpoint sends to the next this many endpoints", shifts);
    std::string scheduler = "ns3::LazyHeapScheduler";
    cmd.AddValue("scheduler",
                 "the event queue: ns3::LazyHeapScheduler or ns3::RingCalendarScheduler (the packet runs' "
                 "default), whose tie keys order equal times alike in one process and on every rank",
                 scheduler);
    cmd.Parse(argc, argv);
    TypeId schedulerType;
    if (!TypeId::LookupByNameFailSafe(scheduler, &schedulerType) ||
        !schedulerType.IsChildOf(TypeId::LookupByName("ns3::Scheduler")))
    {
        std::cerr << "--scheduler: expected an ns-3 scheduler type (ns3::LazyHeapScheduler, "
                     "ns3::RingCalendarScheduler), got '"
                  << scheduler << "'" << std::endl;
        return 2;
    }
    Simulator::SetScheduler(ObjectFactory(scheduler));

    if (!topology.empty())
    {
        try
        {
            RunPreset(topology, partition, packets, shifts, rank);
        }
        catch (const std::invalid_argument& e) // a bad preset or partition (InputError)
        {
            std::cerr << e.what() << "\n";
#ifdef NS3_MPI
            if (MpiInterface::IsEnabled())
            {
                MPI_Abort(MpiInterface::GetCommunicator(), 2);
            }
#endif
            return 2;
        }
    }
    else
    {
        RunTwoSwitches(packets, symmetric, rank, ranks);
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
    // The run's events over all ranks, without what only MPI runs have (see
    // the header); granted time window only.
    uint64_t events = Simulator::GetEventCount();
#ifdef NS3_MPI
    if (ranks > 1)
    {
        uint64_t mine = events - FabricRemoteChannel::GetMpiOnlyEvents() - (rank > 0 ? 1 : 0);
        MPI_Allreduce(&mine, &events, 1, MPI_UINT64_T, MPI_SUM, MpiInterface::GetCommunicator());
    }
#endif
    if (rank == 0 && sync == "gtw")
    {
        os << "events " << events << "\n";
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
