// SPDX-License-Identifier: GPL-2.0-only
#include "accuracy-traces.h"

#include "attribute-defaults.h"
#include "collective-algorithms.h"
#include "collective-executor.h"
#include "comparison-congestion-control.h"
#include "input-error.h"
#include "packet-transport.h"
#include "rdma-endpoint.h"
#include "rdma-nic.h"
#include "topology-graph.h"
#include "topology-parameters.h"

#include "ns3/boolean.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <fstream>
#include <functional>

namespace ns3
{

namespace
{

CollectiveSpec
IncastSpec(const ComparisonConfig& config, uint32_t ranks)
{
    CollectiveSpec spec;
    spec.collective = CollectiveKind::INCAST;
    spec.algorithm = "direct";
    spec.ranks = ranks;
    spec.bytes = config.sizes.back();
    spec.root = config.root;
    spec.Validate();
    return spec;
}

/// What a sample reads: the port towards the receiver, every port of the
/// fabric, the rate state of every sender's QP.
struct TraceProbes
{
    Ptr<FabricNetDevice> bottleneck;
    std::vector<Ptr<FabricNetDevice>> ports;
    std::vector<Ptr<RdmaRateState>> rates;
};

TraceProbes
AttachProbes(const TopologyGraph& graph, Ptr<PacketTransport> t, const CollectiveSpec& spec)
{
    TraceProbes probes;
    Ptr<RdmaMessenger> messenger = t->GetMessenger();
    for (uint32_t r = 0; r < spec.ranks; ++r)
    {
        if (r == spec.root)
        {
            continue;
        }
        // Set up before the run, as verbs does: the sender's first QP is qpn 1.
        messenger->Connect(r, spec.root);
        probes.rates.push_back(messenger->GetEndpoint(r)->GetNic(0)->GetRateState(1));
    }
    const uint32_t sender = spec.root == 0 ? 1 : 0;
    const TopologyPath path = PairPath(graph, sender, spec.root);
    const TopologyHop& last = path.hops.back();
    probes.bottleneck = t->GetNetwork()->GetLinkDevice(last.link, graph.LinkA(last.link) == last.from);
    for (uint32_t l = 0; l < graph.LinkCount(); ++l)
    {
        probes.ports.push_back(t->GetNetwork()->GetLinkDevice(l, true));
        probes.ports.push_back(t->GetNetwork()->GetLinkDevice(l, false));
    }
    return probes;
}

IncastSample
TakeSample(const TraceProbes& probes)
{
    IncastSample s;
    s.timeS = Simulator::Now().GetSeconds();
    s.queueBytes = probes.bottleneck->GetTotalQueueBytes();
    s.pausedPorts = 0;
    s.pausesSent = 0;
    for (const auto& p : probes.ports)
    {
        s.pausedPorts += p->GetBlockedClasses() != 0 ? 1 : 0;
        s.pausesSent += p->GetCounters().pausesSent;
    }
    for (const auto& r : probes.rates)
    {
        s.senderRateBps.push_back(static_cast<double>(r->GetRate().GetBitRate()));
    }
    return s;
}

} // namespace

std::vector<IncastSample>
RecordIncastTrace(const ComparisonConfig& config, Time step)
{
    ValidateComparison(config);
    const ScopedAttributeDefaults attributes(config.attributes); // the scenario's, for this run only
    if (!config.topology)
    {
        throw InputError("scenario.topology", "expected a topology for the incast trace");
    }
    TopologyGraph graph(*config.topology);
    const CollectiveSpec spec = IncastSpec(config, config.ranks ? config.ranks : graph.EndpointCount());
    CollectiveSchedule schedule = BuildSchedule(spec);

    RngSeedManager::SetSeed(config.seed == 0 ? 1 : config.seed);
    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    // The scenario's congestion control (none on the ideal fabric, as in compare).
    t->Build(graph.Description(), MakeCongestionControl(config.fabric));
    t->GetNetwork()->AssignStreams(config.seed);
    const TraceProbes probes = AttachProbes(graph, t, spec);

    std::vector<IncastSample> samples;
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false));
    exec->SetAttribute("TimeLimit", TimeValue(config.fabric.timeLimit));
    std::function<void()> sample;
    sample = [&]() {
        samples.push_back(TakeSample(probes));
        if (!exec->IsComplete())
        {
            Simulator::Schedule(step, sample);
        }
    };
    Simulator::Schedule(Time(0), sample);
    exec->Run(schedule, t);
    Simulator::Destroy();
    return samples;
}

void
WriteIncastTraceCsv(const std::string& path, const std::vector<IncastSample>& samples)
{
    size_t senders = 0;
    for (const IncastSample& s : samples)
    {
        senders = std::max(senders, s.senderRateBps.size());
    }
    std::ofstream ts(path);
    ts << "time_s,queue_bytes,paused_ports,pfc_pauses_sent";
    for (size_t i = 0; i < senders; ++i)
    {
        ts << ",sender" << i << "_rate_bps";
    }
    ts << "\n";
    for (const IncastSample& s : samples)
    {
        ts << s.timeS << "," << s.queueBytes << "," << s.pausedPorts << "," << s.pausesSent;
        for (double r : s.senderRateBps)
        {
            ts << "," << r;
        }
        ts << "\n";
    }
}

} // namespace ns3
