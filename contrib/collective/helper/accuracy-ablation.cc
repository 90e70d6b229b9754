// SPDX-License-Identifier: GPL-2.0-only
#include "accuracy-ablation.h"

#include "accuracy-metric.h"
#include "alpha-beta-model.h"
#include "analytic-transport.h"
#include "collective-algorithms.h"
#include "collective-executor.h"
#include "input-error.h"
#include "rdma-endpoint.h"
#include "rdma-nic.h"
#include "topology-graph.h"
#include "topology-parameters.h"
#include "units.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

namespace
{

struct Relaxation
{
    std::string name;
    std::string assumption;
    bool protocol, scurve, multi, sw, shared;
};

const std::vector<Relaxation>&
Relaxations()
{
    static const std::vector<Relaxation> relaxations{
        {"ab-base", "none relaxed: T = alpha + n/beta", false, false, false, false, false},
        {"ab-protocol", "1 constant alpha (eager/rendezvous/pipeline steps)", true, false, false, false, false},
        {"ab-scurve", "2 constant beta (S-curve, n0)", false, true, false, false, false},
        {"ab-multiresource", "2 constant beta (min(mem, link, mem))", false, false, true, false, false},
        {"ab-contention", "3 no contention (links shared max-min)", false, false, false, false, true},
        {"ab-software", "5 no software cost (endpoint overhead)", false, false, false, true, false},
        {"ab-all", "all of the above together", true, true, true, true, true},
    };
    return relaxations;
}

/// The fabric endpoint's own defaults (its attributes), not typed-in numbers.
struct EndpointDefaults
{
    Time software; ///< send + receive overhead
    Time pipelineSetup;
    uint64_t eagerLimit;
    uint64_t rendezvousLimit;
};

EndpointDefaults
ReadEndpointDefaults()
{
    Ptr<RdmaEndpoint> ep = CreateObject<RdmaEndpoint>();
    auto timeAttr = [&ep](const std::string& n) {
        TimeValue v;
        ep->GetAttribute(n, v);
        return v.Get();
    };
    auto bytesAttr = [&ep](const std::string& n) {
        UintegerValue v;
        ep->GetAttribute(n, v);
        return v.Get();
    };
    return {timeAttr("SendOverhead") + timeAttr("ReceiveOverhead"),
            timeAttr("PipelineSetup"),
            bytesAttr("EagerLimit"),
            bytesAttr("RendezvousLimit")};
}

/// The pure algebra of one schedule: alpha from the hops alone (propagation,
/// forwarding, store-and-forward), beta the bottleneck payload rate, both of
/// the worst pair; \c fastest the fastest pair's rate (the shared channel's
/// routes carry each pair's own rate, the model's beta must not cap them).
struct AlgebraParameters
{
    Time alpha;
    DataRate beta;
    DataRate fastest;
};

AlgebraParameters
DeriveAlgebra(const TopologyGraph& graph, const CollectiveSchedule& schedule, uint32_t rdmaHeader)
{
    DerivedParameters d = DeriveScheduleParameters(graph, schedule, rdmaHeader);
    AlgebraParameters p;
    p.alpha = std::max(d.level[0].alpha, d.level[1].alpha);
    p.beta = std::min(d.level[0].beta, d.level[1].beta);
    p.fastest = p.beta;
    for (auto [src, dst] : SchedulePairs(schedule))
    {
        TopologyPath path = PairPath(graph, src, dst);
        p.fastest = std::max(p.fastest, DerivePathParameters(path, TransportHeaderOf(graph, path, rdmaHeader)).beta);
    }
    return p;
}

Ptr<AlphaBetaModel>
RelaxedModel(const Relaxation& r, const AlgebraParameters& p, uint64_t n0Bytes, const EndpointDefaults& ep)
{
    Ptr<AlphaBetaModel> m = CreateObject<AlphaBetaModel>();
    // On the shared policy the routes carry the hop latencies and rates.
    const Time alpha = r.shared ? Time(0) : p.alpha;
    m->SetAttribute("Alpha", TimeValue(alpha));
    m->SetAttribute("Beta", DataRateValue(r.shared ? p.fastest : p.beta));
    if (r.protocol)
    {
        // The steps of the fabric's own endpoint: a rendezvous is one more
        // round trip of the path (2 alpha), pipelining its set-up.
        m->SetAttribute("ProtocolSwitch", BooleanValue(true));
        m->SetAttribute("EagerAlpha", TimeValue(alpha));
        m->SetAttribute("RendezvousRtt", TimeValue(p.alpha * 2));
        m->SetAttribute("PipelineSetup", TimeValue(ep.pipelineSetup));
        m->SetAttribute("EagerLimit", UintegerValue(ep.eagerLimit));
        m->SetAttribute("RendezvousLimit", UintegerValue(ep.rendezvousLimit));
    }
    if (r.scurve)
    {
        m->SetAttribute("SCurve", BooleanValue(true));
        m->SetAttribute("N0", UintegerValue(n0Bytes));
    }
    if (r.multi)
    {
        // eta is already in the derived payload rate; only the memory
        // bandwidths (HBM3 defaults) can bind.
        m->SetAttribute("MultiResource", BooleanValue(true));
        m->SetAttribute("ProtocolEfficiency", DoubleValue(1.0));
    }
    if (r.sw)
    {
        m->SetAttribute("SoftwareOverhead", TimeValue(ep.software));
    }
    return m;
}

/// The schedule's time on the analytic transport with \p model (and on the
/// shared channel, with the schedule's routes, when \p shared).
double
AnalyticSeconds(Ptr<AlphaBetaModel> model,
                bool shared,
                const TopologyGraph& graph,
                const CollectiveSchedule& schedule,
                uint32_t ranks,
                uint32_t rdmaHeader)
{
    auto t = CreateObject<AnalyticTransport>();
    t->Install(ranks, model, shared ? AnalyticChannel::SHARED : AnalyticChannel::NONE);
    if (shared)
    {
        SetScheduleRoutes(graph, schedule, t->GetAnalyticChannel(), rdmaHeader);
    }
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false));
    const double took = exec->Run(schedule, t).GetSeconds();
    Simulator::Destroy();
    return took;
}

double
PacketSeconds(const ComparisonConfig& config, uint64_t bytes, const std::function<void(const std::string&)>& progress)
{
    if (progress)
    {
        progress("assumptions: packet run of " + units::FormatBytes(bytes));
    }
    ComparisonConfig p = config;
    p.sizes = {bytes};
    p.backends = {"packet"};
    p.params = {"derived"};
    return RunComparison(p, progress).back().GetDouble("time_s");
}

CollectiveSchedule
ScheduleOf(const ComparisonConfig& config, const std::string& algorithm, uint32_t ranks, uint64_t bytes)
{
    CollectiveSpec spec;
    spec.collective = config.collective;
    spec.algorithm = algorithm;
    spec.ranks = ranks;
    spec.bytes = bytes;
    spec.channels = config.channels;
    spec.slices = config.slices;
    spec.chunkBytes = config.chunkBytes;
    spec.root = config.root;
    spec.Validate();
    return BuildSchedule(spec);
}

} // namespace

std::vector<ResultRow>
RunAssumptionAblation(const ComparisonConfig& config,
                      uint64_t n0Bytes,
                      std::map<uint64_t, double> packetSeconds,
                      std::function<void(const std::string&)> progress)
{
    ValidateComparison(config);
    if (!config.topology)
    {
        throw InputError("scenario.topology", "expected a topology for the assumption ablation");
    }
    TopologyGraph graph(*config.topology);
    const uint32_t ranks = config.ranks ? config.ranks : graph.EndpointCount();
    const std::string algorithm = CanonicalAlgorithm(config.collective, config.algorithm, "--algorithm");
    const uint32_t rdmaHeader = RdmaNic::kMaxTransportHeader;
    const EndpointDefaults ep = ReadEndpointDefaults();

    std::vector<ResultRow> rows;
    for (uint64_t bytes : config.sizes)
    {
        const CollectiveSchedule schedule = ScheduleOf(config, algorithm, ranks, bytes);
        if (!packetSeconds.count(bytes))
        {
            packetSeconds[bytes] = PacketSeconds(config, bytes, progress);
        }
        const double packet = packetSeconds[bytes];
        const AlgebraParameters p = DeriveAlgebra(graph, schedule, rdmaHeader);
        for (const Relaxation& r : Relaxations())
        {
            const double took =
                AnalyticSeconds(RelaxedModel(r, p, n0Bytes, ep), r.shared, graph, schedule, ranks, rdmaHeader);
            ResultRow row;
            row.Set("collective", ToString(config.collective))
                .Set("ranks", static_cast<uint64_t>(ranks))
                .Set("bytes", bytes)
                .Set("backend", r.name)
                .Set("relaxed", r.assumption)
                .Set("time_s", took)
                .Set("packet_time_s", packet)
                .Set("error", (took - packet) / packet)
                .Set("sym_error", SymmetricError(took, packet));
            rows.push_back(row);
        }
    }
    return rows;
}

} // namespace ns3
