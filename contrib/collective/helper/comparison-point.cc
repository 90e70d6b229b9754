// SPDX-License-Identifier: GPL-2.0-only
#include "comparison-point.h"

#include "collective-algorithm-registry.h"
#include "collective-closed-form.h"
#include "comparison-packet-fabric.h"
#include "fabric-switch-reduction.h"
#include "input-error.h"
#include "rdma-nic.h"
#include "topology-layout.h"

#include <algorithm>

namespace ns3
{

std::string
JoinNames(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
    {
        s += (s.empty() ? "" : ", ") + x;
    }
    return s;
}

TopologyDescription
ApplyFabricKnobs(TopologyDescription d, const ComparisonFabric& f)
{
    for (TopologyTier& t : d.tiers)
    {
        if (f.ideal)
        {
            // The ideal fabric of the cross-check: payload only on the wire,
            // buffers too large to fill, nothing lost.
            t.headerBytes = 0;
            t.portBufferBytes = uint64_t(1) << 40;
            t.switchBufferBytes = uint64_t(1) << 40;
        }
        if (f.headerBytes)
        {
            t.headerBytes = *f.headerBytes;
        }
        if (f.mtuBytes)
        {
            t.mtuBytes = *f.mtuBytes;
        }
        if (f.flowControl)
        {
            t.flowControl = *f.flowControl;
        }
    }
    return d;
}

namespace
{

// The flags the collective layer names (CollectiveSpec::Validate,
// CanonicalAlgorithm) and the scenario fields they stand for.
const std::vector<std::pair<std::string, std::string>> FLAG_FIELDS = {
    {"--ranks", "ranks"},   {"--channels", "channels"},   {"--slices", "slices"}, {"--chunk-bytes", "chunk_bytes"},
    {"--root", "root"},     {"--algorithm", "algorithm"}, {"--bytes", "sizes"},
    {"--gpus-per-node", "gpus_per_node"}};

/// Rethrows \p e (an InputError of the collective layer, named by its flag)
/// naming the scenario field instead when the value came from the scenario.
[[noreturn]] void
RethrowNamed(const ComparisonConfig& c, const InputError& e)
{
    for (const auto& [flag, key] : FLAG_FIELDS)
    {
        if (e.Field() == flag)
        {
            throw InputError(c.FieldName(key, flag), e);
        }
    }
    throw e;
}

PointToPointParameters
Worst(const PointToPointParameters& a, const PointToPointParameters& b)
{
    return PointToPointParameters{std::max(a.alpha, b.alpha), std::min(a.beta, b.beta)};
}

// Every message of an NVLS point goes through the switch's reduction unit:
// each level's beta is at most its rate (switchRate, 0: no cap); the flat
// parameters are the worst of the levels.
void
CapAtSwitchRate(ComparisonPoint& pt)
{
    if (pt.switchRate.GetBitRate() > 0)
    {
        for (uint32_t l = 0; l < (pt.switchRateIntraOnly ? 1u : 2u); ++l)
        {
            pt.level[l].beta = std::min(pt.level[l].beta, pt.switchRate);
        }
    }
    pt.flat = Worst(pt.level[0], pt.level[1]);
}

// NVLS needs ranks 0..ranks-1 each on one NVLink port into the same
// NVSwitch (the topology builder gives every NVLink switch its in-switch
// reduction, FabricSwitchReduction); "" if they are, else what is wrong.
// \p tier, when given, is set to the common switch's tier.
std::string
NvlsRanksProblem(const TopologyGraph* graph, const std::vector<uint32_t>& ranks, const TopologyTier** tier)
{
    if (!graph)
    {
        return "a topology whose ranks share one NVSwitch (dgx-h100, dgx-b200, or one server of a rail preset)";
    }
    int common = -1;
    for (uint32_t r : ranks)
    {
        const uint32_t node = graph->EndpointNode(r);
        int found = -1;
        uint32_t nvlinkPorts = 0;
        for (uint32_t link : graph->PortsOf(node))
        {
            const uint32_t peer = graph->Peer(link, node);
            const TopologyTier* t = graph->NodeTier(peer);
            if (graph->Node(peer).kind == TopologyNodeKind::SWITCH && t && t->protocol == "nvlink")
            {
                ++nvlinkPorts;
                found = static_cast<int>(peer);
            }
        }
        if (found < 0 || nvlinkPorts != 1)
        {
            return "every rank on one NVLink port into an NVSwitch (rank " + std::to_string(r) + " has " +
                   std::to_string(nvlinkPorts) + "; preset option nvswitch-chips=1)";
        }
        if (common >= 0 && found != common)
        {
            return "ranks that share one NVSwitch (ranks " + std::to_string(ranks.front()) + " and " +
                   std::to_string(r) + " are on different ones; --ranks at most the GPUs of one server)";
        }
        common = found;
    }
    if (tier && common >= 0)
    {
        *tier = graph->NodeTier(static_cast<uint32_t>(common));
    }
    return "";
}

std::string
NvlsTopologyProblem(const TopologyGraph* graph, uint32_t ranks, const TopologyTier** tier = nullptr)
{
    std::vector<uint32_t> all(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        all[r] = r;
    }
    return NvlsRanksProblem(graph, all, tier);
}

// NVLSTree needs more than one server (NCCL disables it on one node) and
// each server's ranks on one NVSwitch that reduces; "" if so, else what is
// wrong. \p tier, when given, is set to the first server's switch tier.
std::string
NvlsTreeTopologyProblem(const TopologyGraph* graph,
                        const RankPlacement& placement,
                        uint32_t gpusPerNode,
                        uint32_t ranks,
                        const TopologyTier** tier = nullptr)
{
    std::vector<std::vector<uint32_t>> servers;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        const uint32_t s = !placement.Empty() ? placement.server[r] : gpusPerNode > 0 ? r / gpusPerNode : 0;
        if (s >= servers.size())
        {
            servers.resize(s + 1);
        }
        servers[s].push_back(r);
    }
    if (servers.size() < 2)
    {
        return "ranks on more than one server, each on one NVSwitch (a rail preset, or --gpus-per-node below --ranks)";
    }
    for (const std::vector<uint32_t>& server : servers)
    {
        const std::string problem = NvlsRanksProblem(graph, server, tier);
        if (!problem.empty())
        {
            return problem;
        }
    }
    return "";
}

} // namespace

ComparisonSetup::ComparisonSetup(const ComparisonConfig& c, std::function<void(const std::string&)> progressLine)
    : config(c),
      progress(std::move(progressLine))
{
    ValidateComparison(c);
    if (c.topology)
    {
        try
        {
            graph = std::make_unique<TopologyGraph>(ApplyFabricKnobs(*c.topology, c.fabric));
        }
        catch (const std::invalid_argument& e)
        {
            throw InputError(c.FieldName("topology", "--topology"), e.what());
        }
    }
    if (!c.fabric.faults.empty())
    {
        if (!graph)
        {
            throw InputError(c.fabric.faults.front().field, "expected a topology to find the fault's link or node in");
        }
        ResolveFaults(c.fabric.faults, *graph, 0); // bad names are input errors before any run
    }
    given = c.model.alpha.has_value();
    ranks = c.ranks;
    if (graph)
    {
        if (ranks == 0)
        {
            ranks = graph->EndpointCount();
        }
        if (ranks > graph->EndpointCount())
        {
            throw InputError(c.FieldName("ranks", "--ranks"),
                             "expected at most the " + std::to_string(graph->EndpointCount()) +
                                 " endpoints of topology " + c.topologyName + ", got " + std::to_string(ranks));
        }
    }
    if (ranks == 0)
    {
        throw InputError("--ranks", "expected a rank count (there is no topology to take it from)");
    }
    const bool autoAlgorithm = NormalizeAlgorithmName(c.algorithm) == "auto";
    algorithm =
        autoAlgorithm ? "auto" : CanonicalAlgorithm(c.collective, c.algorithm, c.FieldName("algorithm", "--algorithm"));
    if (graph)
    {
        const EndpointLayout layout = ComputeEndpointLayout(*graph, ranks);
        if (layout.RailOptimized())
        {
            placement.server = layout.server;
            placement.rail = layout.rail;
            placement.servers = layout.servers;
            placement.rails = static_cast<uint32_t>(layout.railSwitch.size());
        }
    }
    if (algorithm == "nvls")
    {
        const std::string problem = NvlsTopologyProblem(graph.get(), ranks);
        if (!problem.empty())
        {
            throw InputError(c.FieldName("algorithm", "--algorithm"),
                             "nvls (in-switch reduction) expects " + problem);
        }
    }
    gpusPerNode = c.gpusPerNode;
    // Algorithms that place ranks by server (hierarchical, node tree, PXN)
    // take the servers from the topology's rail layout where it has one,
    // otherwise from --gpus-per-node or the topology's GPUs per server.
    const bool byServers =
        autoAlgorithm || CollectiveAlgorithmRegistry::Get(c.collective, algorithm, "--algorithm").usesNodes;
    if (byServers && gpusPerNode == 0)
    {
        gpusPerNode = graph ? RanksPerNode(*graph, ranks) : ranks;
    }
    if (algorithm == "nvls-tree")
    {
        const std::string problem = NvlsTreeTopologyProblem(graph.get(), placement, gpusPerNode, ranks);
        if (!problem.empty())
        {
            throw InputError(c.FieldName("algorithm", "--algorithm"),
                             "nvls-tree (in-switch reduction in each server, a tree across) expects " + problem);
        }
    }
    nccl = autoAlgorithm || !c.protocol.empty();
    fabric = c.fabric;
    if (nccl)
    {
        protocol = ParseNcclProtocolChoice(c.protocol.empty() ? "auto" : c.protocol,
                                           c.FieldName("protocol", "--protocol"));
        nodeGpus = c.gpusPerNode ? c.gpusPerNode : graph ? RanksPerNode(*graph, ranks) : 0;
        fabric.ncclEndpoints = true;
    }
    endpointCost = EndpointCost(fabric);
    // The default NVLink transfer unit applies where it is a multiple of
    // every NVLink tier's MTU (the presets' 256 B); elsewhere (a scenario's
    // mtu_bytes of 1500, say) every packet is simulated.
    if (!fabric.transferUnitBytes && graph)
    {
        uint32_t unit = kDefaultTransferUnitBytes;
        for (const TopologyTier& t : graph->Description().tiers)
        {
            if (t.protocol == "nvlink" && (t.mtuBytes > unit || unit % t.mtuBytes != 0))
            {
                unit = 0;
            }
        }
        fabric.transferUnitBytes = unit;
    }
    // The RDMA transport headers every packet off NVLink carries (in a tag,
    // costing nothing, on the ideal fabric).
    rdmaHeader = c.fabric.ideal ? 0 : RdmaNic::kMaxTransportHeader;
    packetDesc = graph ? graph->Description() : TopologyDescription();
}

bool
ComparisonSetup::Selected(const std::string& backend) const
{
    return std::find(config.backends.begin(), config.backends.end(), backend) != config.backends.end();
}

namespace
{

/// The point of \p bytes run by \p algorithm (canonical), without an endpoint.
ComparisonPoint
BuildPointOf(const ComparisonSetup& setup, uint64_t bytes, const std::string& algorithm)
{
    const ComparisonConfig& c = setup.config;
    ComparisonPoint pt;
    pt.spec.collective = c.collective;
    pt.spec.algorithm = algorithm;
    pt.spec.ranks = setup.ranks;
    pt.spec.bytes = bytes;
    pt.spec.channels = c.channels;
    pt.spec.slices = c.slices;
    pt.spec.chunkBytes = c.chunkBytes;
    pt.spec.root = c.root;
    pt.spec.placement = setup.placement;
    const bool usesNodes = CollectiveAlgorithmRegistry::Get(c.collective, algorithm, "--algorithm").usesNodes;
    const bool byServers = algorithm == "hierarchical" || (setup.placement.Empty() && usesNodes);
    pt.spec.gpusPerNode = byServers ? setup.gpusPerNode : 0;
    // The in-switch algorithms, checked once: where NCCL's choice offers
    // them (NVLS on one NVSwitch domain; NVLSTree on more than one server,
    // each an NVSwitch domain: NCCL disables it on one node), and the
    // switch whose reduction rate caps them (below).
    const TopologyTier* nvswitch = nullptr;
    std::string inSwitchProblem;
    if (algorithm == "nvls")
    {
        inSwitchProblem = NvlsTopologyProblem(setup.graph.get(), setup.ranks, &nvswitch);
    }
    else if (algorithm == "nvls-tree")
    {
        inSwitchProblem =
            NvlsTreeTopologyProblem(setup.graph.get(), setup.placement, setup.gpusPerNode, setup.ranks, &nvswitch);
    }
    if (!inSwitchProblem.empty() && setup.algorithm == "auto")
    {
        throw InputError(c.FieldName("algorithm", "--algorithm"),
                         (algorithm == "nvls" ? "nvls (in-switch reduction) expects " : "nvls-tree expects ") +
                             inSwitchProblem);
    }
    try
    {
        pt.spec.Validate();
    }
    catch (const InputError& e)
    {
        RethrowNamed(c, e);
    }
    pt.schedule = BuildSchedule(pt.spec);
    // The chunk check replays every contribution: a self-test of the
    // builder (run on every algorithm by the unit tests), cubic in the
    // ranks for an AllToAll (minutes at 1024 ranks). Large schedules
    // skip it; the packet run's byte conservation still checks them.
    pt.large = pt.schedule.GetOps().size() > kLargeScheduleOps;
    if (!pt.large)
    {
        pt.schedule.Validate();
    }
    pt.hierarchical = algorithm == "hierarchical" && pt.spec.Nodes() > 1 && pt.spec.LocalRanks() > 1;
    // The other node-aware algorithms (node tree, PXN), placed by the
    // topology's servers, name the level of every critical step too: price
    // their NVLink and network steps apart, as hierarchical's.
    if (!pt.spec.placement.Empty() && algorithm != "hierarchical" && usesNodes)
    {
        pt.hierarchical = true;
    }
    if (setup.given)
    {
        pt.level[0] = pt.level[1] = PointToPointParameters{*c.model.alpha, *c.model.beta};
    }
    else
    {
        const TopologyGraph& graph = *setup.graph;
        DerivedParameters d = DeriveScheduleParameters(graph, pt.schedule, setup.rdmaHeader);
        pt.level[0] = d.level[0];
        pt.level[1] = d.level[1];
        pt.level[0].alpha += setup.endpointCost;
        pt.level[1].alpha += setup.endpointCost;
        // The executor's levels (hierarchical) and NCCL's step latencies
        // (the endpoint's nodes) follow rank / gpus-per-node; a count the
        // user gives must agree with the topology's servers.
        const bool hier = pt.hierarchical && setup.algorithm == "hierarchical";
        if (hier || (setup.nccl && c.gpusPerNode > 0))
        {
            const uint32_t g = hier ? setup.gpusPerNode : setup.nodeGpus;
            for (auto [src, dst] : SchedulePairs(pt.schedule))
            {
                bool intra = IsIntraNode(PairPath(graph, src, dst));
                if (intra != (src / g == dst / g))
                {
                    throw InputError(c.FieldName("gpus_per_node", "--gpus-per-node"),
                                     "expected servers of " + std::to_string(g) + " consecutive ranks, but ranks " +
                                         std::to_string(src) + " and " + std::to_string(dst) +
                                         (intra ? " share" : " do not share") + " a server in the topology");
                }
            }
        }
    }
    if (!setup.given && inSwitchProblem.empty() && nvswitch)
    {
        // The rate the packet fabric's switch reduces at (the topology
        // builder's ReductionRate): NVLS's effective bandwidth, below the
        // link's; NVLSTree's inside each server, across it the network's.
        pt.switchRate = NvlsReductionRate(nvswitch->laneRate);
        pt.switchRateIntraOnly = algorithm == "nvls-tree";
    }
    CapAtSwitchRate(pt);
    pt.params = setup.given ? "given" : "derived";
    return pt;
}

/// The endpoint of \p algorithm with \p p on the setup's nodes (nullopt: NCCL lacks the pair).
std::optional<NcclEndpoint>
EndpointOf(const ComparisonSetup& setup, const std::string& algorithm, NcclProtocol p)
{
    const uint32_t nodes = setup.nodeGpus > 0 ? (setup.ranks + setup.nodeGpus - 1) / setup.nodeGpus : 1;
    return MakeNcclEndpoint(algorithm, p, setup.config.launchOverhead, setup.nodeGpus, setup.config.channels, nodes);
}

/// EndpointOf on \p pt: with HwLatHoldsFabricLatency on, NCCL's step
/// latencies less the point's alpha of each level (the hop's own latency,
/// which the transports charge already), for the choice and the run alike.
std::optional<NcclEndpoint>
EndpointOnPoint(const ComparisonSetup& setup, const ComparisonPoint& pt, const std::string& algorithm, NcclProtocol p)
{
    std::optional<NcclEndpoint> e = EndpointOf(setup, algorithm, p);
    if (e && e->hwLatHoldsFabric)
    {
        e = NcclEndpointBesideFabric(*e, pt.level[0].alpha, pt.level[1].alpha);
    }
    return e;
}

/// \p pt's endpoint of \p algorithm with \p p; with NCCL's slots on and no
/// credit delay given, a credit takes one network latency (the point's
/// inter-node alpha: the receiver's proxy's RDMA write of its receive),
/// all of it the crossing (netCreditCrossing: a credit sent as a message
/// on the fabric, --dependencies=message, crosses there instead, after the
/// receiver's own delay, the rest: none).
std::optional<NcclEndpoint>
PointEndpoint(const ComparisonSetup& setup, const ComparisonPoint& pt, const std::string& algorithm, NcclProtocol p)
{
    std::optional<NcclEndpoint> e = EndpointOnPoint(setup, pt, algorithm, p);
    if (e && e->netSlots > 0 && e->netCreditDelay.IsZero())
    {
        e->netCreditDelay = pt.level[1].alpha;
        e->netCreditCrossing = pt.level[1].alpha;
    }
    return e;
}

} // namespace

PointToPointTime
PointTime(const ComparisonPoint& pt, Time extra)
{
    if (pt.hierarchical)
    {
        const PointToPointParameters l0 = pt.level[0];
        const PointToPointParameters l1 = pt.level[1];
        return [=](uint32_t level, double bytes) {
            const PointToPointParameters& p = level == 0 ? l0 : l1;
            return AlphaBetaTime(p.alpha + extra, p.beta, bytes);
        };
    }
    const PointToPointParameters f = pt.flat;
    return [=](uint32_t, double bytes) { return AlphaBetaTime(f.alpha + extra, f.beta, bytes); };
}

ComparisonPoint
BuildPoint(const ComparisonSetup& setup, uint64_t bytes)
{
    if (!setup.nccl)
    {
        return BuildPointOf(setup, bytes, setup.algorithm);
    }
    const std::vector<NcclProtocol> protocols =
        setup.protocol ? std::vector<NcclProtocol>{*setup.protocol} : AllNcclProtocols();
    if (setup.algorithm != "auto")
    {
        // A protocol the algorithm does not run (NVLS runs Simple only) is
        // the user's choice to correct, not an internal error.
        std::vector<NcclProtocol> runs;
        std::string runsText;
        for (NcclProtocol p : AllNcclProtocols())
        {
            if (EndpointOf(setup, setup.algorithm, p))
            {
                runs.push_back(p);
                runsText += (runsText.empty() ? "" : ", ") + ToString(p);
            }
        }
        if (std::none_of(protocols.begin(), protocols.end(), [&](NcclProtocol p) {
                return std::find(runs.begin(), runs.end(), p) != runs.end();
            }))
        {
            throw InputError(setup.config.FieldName("protocol", "--protocol"),
                             "expected a protocol that " + setup.algorithm + " runs (" +
                                 (runsText.empty() ? std::string("none of NCCL's") : runsText) + "), got " +
                                 (setup.protocol ? ToString(*setup.protocol) : std::string("auto")));
        }
        ComparisonPoint pt = BuildPointOf(setup, bytes, setup.algorithm);
        const NcclChoice choice = ChooseNccl({setup.algorithm}, protocols, [&](const std::string& a, NcclProtocol p) {
            std::optional<NcclEndpoint> e = EndpointOnPoint(setup, pt, a, p);
            return e ? std::optional<Time>(NcclTuningTime(pt.spec, *e, PointTime(pt, Time(0)))) : std::nullopt;
        });
        pt.endpoint = PointEndpoint(setup, pt, choice.algorithm, choice.protocol);
        return pt;
    }
    // NCCL's tuning: the registered algorithms of the collective that fit
    // the point (their specs validate) join, each priced by its own closed
    // form. NCCL chooses among the algorithms it has (ring, tree, NVLS: by
    // name or alias, NcclFamily), so only those are built; a collective with
    // none that fits chooses among all of its algorithms, priced with Ring's
    // constants. AllToAll is grouped point-to-point sends in NCCL (with PXN
    // on rail layouts), not one of its ring/tree/NVLS algorithms, even though
    // pairwise answers to "ring": every AllToAll algorithm is a candidate.
    const std::vector<std::string> all = AlgorithmsOf(setup.config.collective);
    const bool grouped = setup.config.collective == CollectiveKind::ALL_TO_ALL ||
                         setup.config.collective == CollectiveKind::INCAST;
    std::vector<std::string> ncclAlgorithms;
    if (!grouped)
    {
        std::copy_if(all.begin(), all.end(), std::back_inserter(ncclAlgorithms), [](const std::string& a) {
            return !NcclFamily(a).empty();
        });
    }
    std::map<std::string, ComparisonPoint> candidates;
    std::vector<std::string> names;
    std::optional<InputError> firstError; // the first in the registry's order
    const auto build = [&](const std::vector<std::string>& algorithms) {
        firstError.reset();
        for (const std::string& a : algorithms)
        {
            try
            {
                candidates.emplace(a, BuildPointOf(setup, bytes, a));
                names.push_back(a);
            }
            catch (const InputError& e)
            {
                if (!firstError)
                {
                    firstError = e;
                }
            }
        }
    };
    build(ncclAlgorithms);
    if (names.empty())
    {
        build(all);
    }
    if (names.empty())
    {
        throw *firstError;
    }
    // Where the servers are known (a rail layout) NCCL's tree is the node
    // tree, not the flat double binary tree over every rank.
    if (!setup.placement.Empty() && candidates.count("node-tree") && candidates.count("tree"))
    {
        names.erase(std::remove(names.begin(), names.end(), "tree"), names.end());
    }
    const NcclChoice choice = ChooseNccl(names, protocols, [&](const std::string& a, NcclProtocol p) {
        const ComparisonPoint& pt = candidates.at(a);
        std::optional<NcclEndpoint> e = EndpointOnPoint(setup, pt, a, p);
        return e ? std::optional<Time>(NcclTuningTime(pt.spec, *e, PointTime(pt, Time(0)))) : std::nullopt;
    });
    ComparisonPoint pt = candidates.at(choice.algorithm);
    pt.endpoint = PointEndpoint(setup, pt, choice.algorithm, choice.protocol);
    return pt;
}

ComparisonPoint
CalibratedPoint(const ComparisonSetup& setup, const ComparisonPoint& pt, CalibrationCache& cache)
{
    ComparisonPoint calibrated = pt;
    calibrated.params = "calibrated";
    std::pair<uint32_t, uint32_t> worst[2];
    Time worstAlpha[2] = {Time(-1), Time(-1)};
    for (auto [src, dst] : SchedulePairs(pt.schedule))
    {
        TopologyPath path = PairPath(*setup.graph, src, dst);
        const int level = IsIntraNode(path) ? 0 : 1;
        Time a = DerivePathParameters(path).alpha;
        if (a > worstAlpha[level])
        {
            worstAlpha[level] = a;
            worst[level] = {src, dst};
        }
    }
    for (int l = 0; l < 2; ++l)
    {
        if (worstAlpha[l].IsNegative())
        {
            continue;
        }
        // The point's message size on this level: its largest critical step.
        double m = 0;
        for (const CriticalStep& step : CriticalPath(pt.spec))
        {
            if (step.level == static_cast<uint32_t>(l) || !pt.hierarchical)
            {
                m = std::max(m, step.bytes);
            }
        }
        const auto key = std::make_tuple(worst[l].first, worst[l].second, static_cast<uint64_t>(m));
        auto it = cache.find(key);
        if (it == cache.end())
        {
            if (setup.progress)
            {
                setup.progress("calibrating on the packet fabric: " + std::to_string(worst[l].first) + " -> " +
                               std::to_string(worst[l].second) + ", " + std::to_string(static_cast<uint64_t>(m / 4)) +
                               " .. " + std::to_string(static_cast<uint64_t>(4 * m)) + " B");
            }
            it = cache
                     .emplace(key,
                              CalibratePair(setup.packetDesc, setup.fabric, setup.config.seed, worst[l].first,
                                            worst[l].second,
                                            static_cast<uint64_t>(m)))
                     .first;
        }
        calibrated.level[l] = it->second;
    }
    if (worstAlpha[0].IsNegative())
    {
        calibrated.level[0] = calibrated.level[1];
    }
    if (worstAlpha[1].IsNegative())
    {
        calibrated.level[1] = calibrated.level[0];
    }
    CapAtSwitchRate(calibrated);
    return calibrated;
}

} // namespace ns3
