// SPDX-License-Identifier: GPL-2.0-only
//
// Ring AllReduce on one DGX H100 node (8 GPUs on NVSwitch, 450 GB/s per GPU),
// both ways: the closed form 2(N-1)(alpha + M/(N beta)), the same schedule on
// the analytic channel, and on the packet-level NVLink fabric; per-step times
// from the executor, busbw as nccl-tests reports it.
//
// ctest-args: --bytes=1MB
#include "alpha-beta-model.h"
#include "analytic-transport.h"
#include "collective-algorithms.h"
#include "collective-bandwidth.h"
#include "collective-closed-form.h"
#include "collective-executor.h"
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
    Time::SetResolution(Time::PS);
    std::string bytesText = "1MB";
    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "allreduce buffer (nccl-tests size)", bytesText);
    cmd.Parse(argc, argv);

    TopologyDescription dgx = MakePreset("dgx-h100");
    TopologyGraph graph(dgx);
    CollectiveSpec spec;
    spec.collective = CollectiveKind::ALL_REDUCE;
    spec.algorithm = "ring";
    spec.ranks = graph.EndpointCount();
    spec.bytes = units::ParseBytes(bytesText, "--bytes");
    CollectiveSchedule ring = BuildSchedule(spec);

    // Parameters derived from the NVLink path GPU -> NVSwitch -> GPU (NVLink
    // ports carry no RDMA headers), plus the endpoints' software cost.
    DerivedParameters p = DeriveScheduleParameters(graph, ring);
    const Time alpha = p.level[0].alpha + MicroSeconds(1);
    const DataRate beta = p.level[0].beta;
    Time closed = ClosedFormTime(spec, alpha, beta);

    Ptr<AlphaBetaModel> model = CreateObject<AlphaBetaModel>();
    model->SetAttribute("Alpha", TimeValue(alpha));
    model->SetAttribute("Beta", DataRateValue(beta));
    Ptr<AnalyticTransport> analytic = CreateObject<AnalyticTransport>();
    analytic->Install(spec.ranks, model, AnalyticChannel::NONE);
    Time algebra = CreateObject<CollectiveExecutor>()->Run(ring, analytic);
    Simulator::Destroy();

    Ptr<PacketTransport> nvlink = CreateObject<PacketTransport>();
    nvlink->Build(dgx);
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    Time packets = exec->Run(ring, nvlink);
    std::vector<Time> steps = exec->GetStepDurations();
    // Every run ends with the conservation check: bytes sent == delivered,
    // no drop on this lossless (credit) fabric.
    FabricConservation check = nvlink->FinishRun();
    Simulator::Destroy();

    auto busbw = [&spec](Time t) {
        return units::FormatBytesPerSecond(BusBandwidth(spec.collective, spec.ranks, spec.bytes, t));
    };
    std::cout << "ring allreduce of " << units::FormatBytes(spec.bytes) << " on " << spec.ranks
              << " H100 GPUs (alpha " << units::FormatSeconds(alpha.GetSeconds()) << ", beta "
              << units::FormatBytesPerSecond(beta.GetBitRate() / 8.0) << ")\n"
              << "  closed form   " << units::FormatSeconds(closed.GetSeconds()) << "  busbw " << busbw(closed)
              << "\n"
              << "  analytic      " << units::FormatSeconds(algebra.GetSeconds()) << "  busbw " << busbw(algebra)
              << "\n"
              << "  packet level  " << units::FormatSeconds(packets.GetSeconds()) << "  busbw " << busbw(packets)
              << "\n  packet steps:";
    for (const Time& t : steps)
    {
        std::cout << " " << units::FormatSeconds(t.GetSeconds());
    }
    std::cout << "\n  error of the closed form: "
              << (closed - packets).GetSeconds() / packets.GetSeconds() * 100 << " %\n";
    if (!check.ok)
    {
        std::cerr << "ring-allreduce-dgx-h100: run-end check failed: " << check.message << "\n";
        return 1;
    }
    return steps.size() == 2 * (spec.ranks - 1) ? 0 : 1;
}
