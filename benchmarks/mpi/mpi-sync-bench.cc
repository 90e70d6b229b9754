// SPDX-License-Identifier: GPL-2.0-only
//
// The cost of one synchronisation window of ns-3's distributed simulators
// (issue 13; benchmarks/README.md, "Past one machine: the synchronisation
// cost"). Run under `mpirun -np N`: rank r owns node r; the nodes form a ring
// (one link for 2 ranks) of point-to-point links whose Delay is the lookahead
// L, so every rank's window is L. Each rank has one event every L for
// --windows periods (and sends --packets-per-window packets to its right
// neighbour each period, arriving L later), so a run is W windows of almost
// no work: its wall time over W, minus the one-process run's (no MPI, ns-3's
// DefaultSimulatorImpl, the same events), is what one window's
// synchronisation costs: an MPI_Allgather of every rank's LBTS for the
// granted time window (ns3::DistributedSimulatorImpl), null messages to each
// neighbour for ns3::NullMessageSimulatorImpl.
//
// Not a Google Benchmark program: MpiInterface is enabled and disabled once
// per process, so one process is one measurement; rank 0 writes the JSON
// (--json) and benchmarks/mpi-speedup-model.py reads it. Built only with ns-3's
// mpi module (cmake/hockney-mpi-bench.cmake).

#include "mpi-launch.h"

#include "ns3/core-module.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/network-module.h"
#include "ns3/simple-channel.h"
#include "ns3/simple-net-device.h"

#include <nlohmann/json.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sys/resource.h>
#include <thread>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("HockneyMpiSyncBench");

namespace
{

/// A SimpleNetDevice that says it is point-to-point: the distributed
/// simulators take their lookahead (and the null-message bundles) only from
/// point-to-point devices whose channel has a Delay, and SimpleChannel has one.
class MpiSyncBenchDevice : public SimpleNetDevice
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::HockneyMpiSyncBenchDevice")
                                .SetParent<SimpleNetDevice>()
                                .SetGroupName("Hockney")
                                .AddConstructor<MpiSyncBenchDevice>();
        return tid;
    }

    bool IsPointToPoint() const override
    {
        return true;
    }
};

uint64_t g_received = 0;

void
Received(Ptr<Packet>)
{
    ++g_received;
}

/// One period of rank \p rank's work: the packets to its right neighbour.
void
Tick(uint32_t peerNode, uint32_t peerDevice, uint32_t packets, Time lookahead, uint64_t* sent)
{
    for (uint32_t i = 0; i < packets; ++i)
    {
        MpiInterface::SendPacket(Create<Packet>(64), Simulator::Now() + lookahead, peerNode, peerDevice);
        ++*sent;
    }
}

/// Peak resident memory of this process, bytes (Linux: ru_maxrss in kB).
uint64_t
PeakRss()
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

int
InputError(const std::string& message)
{
    std::cerr << "mpi-sync-bench: " << message << std::endl;
    return 2;
}

} // namespace

NS_OBJECT_ENSURE_REGISTERED(MpiSyncBenchDevice);

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    // The synchronisation algorithm is chosen before MPI starts: look for it first.
    std::string sync = "gtw";
    for (int i = 1; i < argc; ++i)
    {
        std::string a(argv[i]);
        if (a.rfind("--sync=", 0) == 0)
        {
            sync = a.substr(7);
        }
    }
    if (sync != "gtw" && sync != "nullmsg")
    {
        return InputError("--sync: expected gtw or nullmsg, got '" + sync + "'");
    }
    const bool distributed = hockney::MpiLaunchedSize() > 1;
    uint32_t rank = 0;
    uint32_t ranks = 1;
    if (distributed)
    {
        hockney::EnableMpiSimulator(sync, &argc, &argv);
        rank = MpiInterface::GetSystemId();
        ranks = MpiInterface::GetSize();
    }

    uint32_t windows = 10000;
    Time lookahead = MicroSeconds(1);
    uint32_t packets = 0;
    std::string json;
    CommandLine cmd(__FILE__);
    cmd.AddValue("sync", "gtw (granted time window) or nullmsg (null messages), under mpirun", sync);
    cmd.AddValue("windows", "periods of one lookahead each rank runs", windows);
    cmd.AddValue("lookahead", "Delay of the links between ranks: the window", lookahead);
    cmd.AddValue("packets-per-window", "packets (64 B) each rank sends its right neighbour per period", packets);
    cmd.AddValue("json", "file rank 0 writes the measurement to (default: stdout)", json);
    cmd.Parse(argc, argv);
    // A bad value ends every rank with MPI finalised (mpirun would report an
    // abnormal end otherwise) and exit 2.
    const auto refuse = [&](const std::string& message) {
        if (distributed)
        {
            MpiInterface::Disable();
        }
        return InputError(message);
    };
    if (windows == 0)
    {
        return refuse("--windows: expected at least 1");
    }
    if (!lookahead.IsStrictlyPositive())
    {
        return refuse("--lookahead: expected a positive time, e.g. 1us");
    }

    // Node r on rank r; links r - (r+1) mod N (one for 2 ranks), every end
    // with an MpiReceiver that counts what arrives.
    NodeContainer nodes;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        nodes.Add(CreateObject<Node>(r));
    }
    const uint32_t links = ranks == 1 ? 0 : (ranks == 2 ? 1 : ranks);
    for (uint32_t l = 0; l < links; ++l)
    {
        auto channel = CreateObject<SimpleChannel>();
        channel->SetAttribute("Delay", TimeValue(lookahead));
        for (uint32_t end = 0; end < 2; ++end)
        {
            auto device = CreateObject<MpiSyncBenchDevice>();
            device->SetAddress(Mac48Address::Allocate());
            nodes.Get((l + end) % ranks)->AddDevice(device);
            device->SetChannel(channel);
            auto receiver = CreateObject<MpiReceiver>();
            receiver->SetReceiveCallback(MakeCallback(&Received));
            device->AggregateObject(receiver);
        }
    }

    uint64_t sent = 0;
    const uint32_t right = (rank + 1) % ranks;
    // Any of the neighbour's devices: each has a receiver.
    const uint32_t rightDevice = 0;
    for (uint32_t k = 1; k <= windows; ++k)
    {
        Simulator::ScheduleWithContext(rank,
                                       lookahead * k,
                                       &Tick,
                                       right,
                                       rightDevice,
                                       distributed ? packets : 0,
                                       lookahead,
                                       &sent);
    }
    // The last packets arrive L after the last period.
    Simulator::Stop(lookahead * (windows + 2));
    auto start = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Simulator::Destroy();

    std::vector<double> walls(ranks, wall);
    std::vector<uint64_t> rss(ranks, PeakRss());
    uint64_t totalSent = sent;
    uint64_t totalReceived = g_received;
    if (distributed)
    {
        double w = wall;
        uint64_t m = rss[0];
        MPI_Comm comm = MpiInterface::GetCommunicator();
        MPI_Gather(&w, 1, MPI_DOUBLE, walls.data(), 1, MPI_DOUBLE, 0, comm);
        MPI_Gather(&m, 1, MPI_UINT64_T, rss.data(), 1, MPI_UINT64_T, 0, comm);
        MPI_Reduce(&sent, &totalSent, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
        MPI_Reduce(&g_received, &totalReceived, 1, MPI_UINT64_T, MPI_SUM, 0, comm);
        MpiInterface::Disable();
    }
    if (rank != 0)
    {
        return 0;
    }
    double maxWall = *std::max_element(walls.begin(), walls.end());
    nlohmann::json j = {
        {"sync", distributed ? sync : std::string("sequential")},
        {"ranks", ranks},
        {"cores", std::thread::hardware_concurrency()},
        {"oversubscribed", ranks > std::thread::hardware_concurrency()},
        {"windows", windows},
        {"lookahead_s", lookahead.GetSeconds()},
        {"lookahead_ps", lookahead.GetPicoSeconds()},
        {"packets_per_window", distributed ? packets : 0},
        {"packets_sent", totalSent},
        {"packets_received", totalReceived},
        {"wall_s", maxWall},
        {"wall_per_window_s", maxWall / windows},
        {"wall_s_per_rank", walls},
        {"peak_rss_bytes_per_rank", rss},
    };
    if (json.empty())
    {
        std::cout << j.dump(2) << std::endl;
    }
    else
    {
        std::ofstream out(json);
        out << j.dump(2) << std::endl;
        if (!out)
        {
            std::cerr << "mpi-sync-bench: --json: could not write " << json << std::endl;
            return 1;
        }
    }
    // Conservation: every packet sent across ranks arrived.
    return totalSent == totalReceived ? 0 : 1;
}
