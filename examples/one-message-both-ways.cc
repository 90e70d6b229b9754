// SPDX-License-Identifier: GPL-2.0-only
//
// The smallest hockney experiment: one message from host 0 to host 1 over one
// 100 Gb/s RoCE link, run twice -- through the algebra (an AnalyticChannel
// with the alpha-beta model whose alpha and beta are read off the same link)
// and through the packet-level fabric (RDMA NICs, 4 KB packets, ACKs, the
// eager / rendezvous / pipeline protocol) -- and the difference printed.
//
// ctest-args: --bytes=1MB
#include "alpha-beta-model.h"
#include "analytic-transport.h"
#include "collective-executor.h"
#include "collective-schedule.h"
#include "packet-transport.h"
#include "topology-parameters.h"
#include "topology-presets.h"
#include "units.h"

#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS); // 1 KB at 100 Gb/s is 80 ns: picoseconds keep it exact
    std::string bytesText = "1MB";
    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "message size, with units (B KB MB; KiB MiB)", bytesText);
    cmd.Parse(argc, argv);
    const uint64_t bytes = units::ParseBytes(bytesText, "--bytes");

    // One topology description: two hosts joined by one RoCE link.
    TopologyDescription d;
    d.name = "one-link";
    d.tiers.push_back(RoceTier("roce", DataRate("100Gbps")));
    d.nodes.push_back(TopologyNode{"h0", TopologyNodeKind::HOST, "", 0});
    d.nodes.push_back(TopologyNode{"h1", TopologyNodeKind::HOST, "", 0});
    d.links.push_back(TopologyLink{"h0", "h1", "roce", 1});

    // The schedule: one op carrying one chunk that host 1 needs.
    CollectiveSchedule schedule("one message", 2);
    uint32_t chunk = schedule.AddChunk(bytes);
    schedule.AddContribution(0, chunk);
    schedule.AddNeed(1, chunk);
    schedule.AddOp(0, 1, {chunk}, false, {}, 0);

    // Way 1, the algebra: alpha = the link's latency and the endpoints'
    // software cost, beta = its rate times the payload share of a packet.
    TopologyGraph graph(d);
    PointToPointParameters p = DerivePathParameters(graph.Path(0, 1), RdmaNic::kMaxTransportHeader);
    p.alpha += MicroSeconds(1); // RdmaEndpoint's SendOverhead + ReceiveOverhead defaults
    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetAttribute("Alpha", TimeValue(p.alpha));
    model->SetAttribute("Beta", DataRateValue(p.beta));
    Ptr<AnalyticTransport> analytic = CreateObject<AnalyticTransport>();
    analytic->Install(2, model, AnalyticChannel::NONE);
    Time algebra = CreateObject<CollectiveExecutor>()->Run(schedule, analytic);
    Simulator::Destroy();

    // Way 2, the packets: the same description built as a fabric.
    Ptr<PacketTransport> fabric = CreateObject<PacketTransport>();
    fabric->Build(d);
    Time packets = CreateObject<CollectiveExecutor>()->Run(schedule, fabric);
    // Every run ends with the conservation check: bytes sent == delivered,
    // no drop on this lossless (PFC) link.
    FabricConservation check = fabric->FinishRun();
    PacketRunCounters k = fabric->GetCounters();
    Simulator::Destroy();

    std::cout << "one message of " << units::FormatBytes(bytes) << " on one 100 Gb/s RoCE link\n"
              << "  algebra: alpha " << units::FormatSeconds(p.alpha.GetSeconds()) << ", beta "
              << units::FormatBytesPerSecond(p.beta.GetBitRate() / 8.0) << " -> "
              << units::FormatSeconds(algebra.GetSeconds()) << "\n"
              << "  packets: " << units::FormatSeconds(packets.GetSeconds()) << " (" << k.bytesDelivered
              << " B delivered, " << k.drops << " drops)\n"
              << "  error of the algebra: " << (algebra - packets).GetSeconds() / packets.GetSeconds() * 100
              << " %\n";
    if (!check.ok || k.bytesDelivered != bytes)
    {
        std::cerr << "one-message-both-ways: run-end check failed: " << check.message << "\n";
        return 1;
    }
    return 0;
}
