// SPDX-License-Identifier: GPL-2.0-only
//
// A template to copy: one collective on one topology, run through the algebra
// (closed form, analytic channel) and through the packet-level fabric, with
// the relative error of each against the packets. Change the constants or
// pass --topology=... --collective=... --algorithm=... --bytes=... --ranks=...
//
//   ./build/bin/scratch-template --topology=dgx-h100 --bytes=8MB
#include "analytic-transport.h"
#include "collective-algorithms.h"
#include "collective-bandwidth.h"
#include "collective-closed-form.h"
#include "collective-executor.h"
#include "packet-transport.h"
#include "topology-parameters.h"
#include "topology-presets.h"
#include "units.h"

#include "ns3/command-line.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS); // serialization at Tb/s needs picoseconds
    std::string topology = "dgx-h100";
    std::string collective = "allreduce";
    std::string algorithm = "ring";
    std::string bytes = "8MB";
    uint32_t ranks = 0; // 0: every endpoint
    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "topology preset", topology);
    cmd.AddValue("collective", "allreduce, allgather, reducescatter, broadcast, alltoall, incast", collective);
    cmd.AddValue("algorithm", "ring, tree, rhd, hierarchical, binomial, pairwise, all-at-once, direct", algorithm);
    cmd.AddValue("bytes", "size as nccl-tests counts it", bytes);
    cmd.AddValue("ranks", "ranks (0: every endpoint of the topology)", ranks);
    cmd.Parse(argc, argv);

    // 1. The schedule.
    TopologyDescription desc = MakePreset(topology);
    TopologyGraph graph(desc);
    CollectiveSpec spec;
    spec.collective = ParseCollectiveKind(collective, "--collective");
    spec.algorithm = CanonicalAlgorithm(spec.collective, algorithm, "--algorithm");
    spec.ranks = ranks ? ranks : graph.EndpointCount();
    spec.bytes = units::ParseBytes(bytes, "--bytes");
    if (spec.algorithm == "hierarchical")
    {
        spec.gpusPerNode = RanksPerNode(graph, spec.ranks);
    }
    CollectiveSchedule schedule = BuildSchedule(spec);

    // 2. The algebra: parameters derived from the topology's paths.
    DerivedParameters p = DeriveScheduleParameters(graph, schedule);
    PointToPointParameters flat{std::max(p.level[0].alpha, p.level[1].alpha),
                                std::min(p.level[0].beta, p.level[1].beta)};
    Time closed = ClosedFormTime(spec, flat.alpha, flat.beta);

    // 3. The same schedule on the packet-level fabric.
    Ptr<PacketTransport> packet = CreateObject<PacketTransport>();
    packet->Build(desc);
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("TimeLimit", TimeValue(Seconds(10)));
    Time packetTime = exec->Run(schedule, packet);
    PacketRunCounters k = packet->GetCounters();
    Simulator::Destroy();

    std::cout << schedule.GetName() << " of " << units::FormatBytes(spec.bytes) << " on " << spec.ranks
              << " ranks of " << topology << "\n"
              << "  derived alpha " << units::FormatSeconds(flat.alpha.GetSeconds()) << ", beta "
              << units::FormatBytesPerSecond(flat.beta.GetBitRate() / 8.0) << "\n"
              << "  closed form  " << units::FormatSeconds(closed.GetSeconds()) << "  busbw "
              << units::FormatBytesPerSecond(BusBandwidth(spec.collective, spec.ranks, spec.bytes, closed)) << "\n"
              << "  packet level " << units::FormatSeconds(packetTime.GetSeconds()) << "  busbw "
              << units::FormatBytesPerSecond(BusBandwidth(spec.collective, spec.ranks, spec.bytes, packetTime))
              << "  (" << k.bytesDelivered << " B delivered, " << k.drops << " drops, " << k.pfcPauses
              << " pauses, " << k.cnps << " CNPs)\n"
              << "  error of the closed form vs packets: "
              << (closed.GetSeconds() - packetTime.GetSeconds()) / packetTime.GetSeconds() * 100 << " %\n";
    return 0;
}
