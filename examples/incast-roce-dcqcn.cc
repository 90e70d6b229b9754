// SPDX-License-Identifier: GPL-2.0-only
//
// An 8-to-1 incast on a RoCE leaf with DCQCN, where the algebra breaks: eight
// hosts send to a ninth at once through one 100 Gb/s port. The switch queue
// towards the receiver grows until ECN marks (RED) make the receiver send
// CNPs and the senders cut their rates (DCQCN), and PFC pauses keep the
// fabric lossless. Traces go to files: the queue depth of that egress port
// (incast-queue.dat: time_s bytes) and each sender's rate (incast-rates.dat:
// time_s sender rate_Gbps). Printed: the closed form (no contention), the
// flow-level answer (fair sharing) and the packet-level time.
//
// ctest-args: --bytes=9MB --output=incast
#include "collective-comparison.h"
#include "collective-executor.h"
#include "dcqcn.h"
#include "packet-transport.h"
#include "rdma-nic.h"
#include "topology-presets.h"
#include "units.h"

#include "ns3/core-module.h"

#include <fstream>
#include <iostream>
#include <stdexcept>

using namespace ns3;

int
main(int argc, char** argv)
{
    Time::SetResolution(Time::PS);
    std::string bytesText = "9MB"; // total gathered: 1 MB from each of 8 senders
    std::string output = "incast";
    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "bytes gathered at the receiver (nccl-tests gather size; 1/9 from each rank)", bytesText);
    cmd.AddValue("output", "prefix of the trace files", output);
    cmd.Parse(argc, argv);

    // Nine hosts on one leaf: preset roce-leafspine with one leaf of nine.
    TopologyDescription d = MakePreset("roce-leafspine:leaves=1,hosts-per-leaf=9");
    const uint32_t receiver = 0;

    // The algebra's answers, through the comparison library.
    ComparisonConfig c;
    c.topology = d;
    c.topologyName = "roce-leafspine, one leaf";
    c.collective = CollectiveKind::INCAST;
    c.algorithm = "direct";
    c.ranks = 9;
    c.root = receiver;
    c.sizes = {units::ParseBytes(bytesText, "--bytes")};
    c.backends = {"closed", "flow"};
    std::vector<ResultRow> rows = RunComparison(c);

    // The packets, by hand, to attach the traces.
    CollectiveSpec spec;
    spec.collective = CollectiveKind::INCAST;
    spec.algorithm = "direct";
    spec.ranks = 9;
    spec.root = receiver;
    spec.bytes = c.sizes[0];
    CollectiveSchedule incast = BuildSchedule(spec);
    Ptr<PacketTransport> fabric = CreateObject<PacketTransport>();
    fabric->SetSeed(1); // as compare --seed=1: ns-3's seed, ECMP hash, RED streams
    fabric->Build(d, CreateObject<Dcqcn>());

    std::ofstream queue(output + "-queue.dat");
    std::ofstream rates(output + "-rates.dat");
    queue << "# time_s bytes (leaf egress towards the receiver)\n";
    rates << "# time_s sender rate_Gbps (DCQCN current rate RC)\n";
    const TopologyGraph& g = fabric->GetNetwork()->GetTopology();
    const uint32_t rxNode = g.EndpointNode(receiver);
    const uint32_t rxLink = g.PortsOf(rxNode).front();
    Ptr<FabricNetDevice> egress = fabric->GetNetwork()->GetLinkDevice(rxLink, g.LinkA(rxLink) != rxNode);
    egress->TraceConnectWithoutContext("QueueLength", MakeCallback(+[](std::ofstream* f, uint8_t, uint64_t bytes) {
                                           *f << Simulator::Now().GetSeconds() << " " << bytes << "\n";
                                       }).Bind(&queue));
    for (uint32_t s = 0; s < spec.ranks; ++s)
    {
        if (s == receiver)
        {
            continue;
        }
        fabric->GetMessenger()->Connect(s, receiver); // its first QP goes to the receiver
        Ptr<RdmaRateState> rate = fabric->GetMessenger()->GetEndpoint(s)->GetNic(0)->GetRateState(RdmaNic::kFirstQpn);
        rate->TraceConnectWithoutContext(
            "Rate",
            MakeCallback(+[](std::ofstream* f, uint32_t sender, DataRate, DataRate now) {
                *f << Simulator::Now().GetSeconds() << " " << sender << " " << now.GetBitRate() / 1e9 << "\n";
            }).Bind(&rates, s));
    }
    // A PFC deadlock would stop the run here with the blocked ports named.
    fabric->InstallWatchdog();
    Time packets;
    try
    {
        packets = CreateObject<CollectiveExecutor>()->Run(incast, fabric);
    }
    catch (const std::runtime_error& e)
    {
        std::cerr << "incast-roce-dcqcn: " << e.what() << "\n"
                  << "incast-roce-dcqcn: " << fabric->FinishRun().message << "\n";
        return 1;
    }
    // Every run ends with the conservation check: bytes sent == delivered,
    // no drop on this lossless (PFC) fabric, no watchdog stop.
    FabricConservation check = fabric->FinishRun();
    PacketRunCounters k = fabric->GetCounters();
    Simulator::Destroy();

    std::cout << "8-to-1 incast of " << units::FormatBytes(spec.bytes / 9) << " per sender on 100 Gb/s RoCE\n"
              << "  closed form " << units::FormatSeconds(rows[0].GetDouble("time_s")) << "  (no contention)\n"
              << "  flow level  " << units::FormatSeconds(rows[1].GetDouble("time_s")) << "  (fair share of one port)\n"
              << "  packets     " << units::FormatSeconds(packets.GetSeconds()) << "  (" << k.ecnMarks
              << " ECN marks, " << k.cnps << " CNPs, " << k.pfcPauses << " PFC pauses, " << k.drops << " drops)\n"
              << "  traces: " << output << "-queue.dat, " << output << "-rates.dat\n";
    if (!check.ok)
    {
        std::cerr << "incast-roce-dcqcn: run-end check failed: " << check.message << "\n";
        return 1;
    }
    return 0;
}
