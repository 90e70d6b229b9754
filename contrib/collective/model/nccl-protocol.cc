// SPDX-License-Identifier: GPL-2.0-only
#include "nccl-protocol.h"

#include "collective-algorithm-registry.h"
#include "collective-closed-form.h"
#include "input-error.h"

#include "ns3/nstime.h"
#include "ns3/type-id.h"
#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace ns3
{

std::string
ToString(NcclProtocol p)
{
    switch (p)
    {
    case NcclProtocol::LL:
        return "ll";
    case NcclProtocol::LL128:
        return "ll128";
    case NcclProtocol::SIMPLE:
        break;
    }
    return "simple";
}

std::vector<NcclProtocol>
AllNcclProtocols()
{
    return {NcclProtocol::SIMPLE, NcclProtocol::LL128, NcclProtocol::LL};
}

std::optional<NcclProtocol>
ParseNcclProtocolChoice(const std::string& text, const std::string& field)
{
    std::string t = text;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    if (t == "auto")
    {
        return std::nullopt;
    }
    for (NcclProtocol p : AllNcclProtocols())
    {
        if (t == ToString(p))
        {
            return p;
        }
    }
    throw InputError(field, "expected auto, simple, ll128 or ll, got \"" + text + "\"");
}

uint64_t
NcclWireBytes(NcclProtocol p, uint64_t bytes)
{
    switch (p)
    {
    case NcclProtocol::LL:
        return (bytes + 7) / 8 * 16; // 8 data + 8 flag bytes per 16-byte store
    case NcclProtocol::LL128:
        return (bytes + 119) / 120 * 128; // 120 data + 8 flag bytes per 128-byte line
    case NcclProtocol::SIMPLE:
        break;
    }
    return bytes;
}

double
NcclWireEfficiency(NcclProtocol p)
{
    return p == NcclProtocol::LL ? 0.5 : p == NcclProtocol::LL128 ? 120.0 / 128.0 : 1.0;
}

DataRate
NcclCopyRate(NcclProtocol p)
{
    const uint64_t bytesPerSecond = p == NcclProtocol::LL      ? kNcclLlCopyBytesPerSecond
                                    : p == NcclProtocol::LL128 ? kNcclLl128CopyBytesPerSecond
                                                               : 0;
    return DataRate(8 * bytesPerSecond);
}

namespace
{

/// NCCL's tuning.cc constants in microseconds, per protocol (LL, LL128,
/// Simple); validation/data/nccl_tuning_constants.csv names the commit.
/// A negative entry: NCCL has no such pair.
struct LatencyRow
{
    double base[3];
    double nvlink[3];
    double net[3];
};

constexpr LatencyRow kRing{{6.6, 14.0, 8.4}, {0.6, 1.9, 3.4}, {2.7, 4.0, 14.0}};
constexpr LatencyRow kTree{{6.8, 14.0, 8.4}, {0.6, 1.25, 4.0}, {5.0, 8.5, 14.0}};
// NVLS: Simple only (its LL and LL128 entries are 0 in NCCL: not offered).
constexpr LatencyRow kNvls{{-1, -1, 0}, {-1, -1, 25.0}, {-1, -1, 18.0}};
// NVLSTree: Simple only; its NVLink latency once (the switch's part), its
// network latency per tree hop (NCCL: intraLat + 2 log2(nNodes) interLat).
constexpr LatencyRow kNvlsTree{{-1, -1, 0}, {-1, -1, 25.0}, {-1, -1, 20.9}};

int
Column(NcclProtocol p)
{
    return p == NcclProtocol::LL ? 0 : p == NcclProtocol::LL128 ? 1 : 2;
}

} // namespace

std::string
NcclFamily(const std::string& algorithm)
{
    std::vector<std::string> names{algorithm};
    for (const CollectiveAlgorithm* a : CollectiveAlgorithmRegistry::All())
    {
        // The registry entry's spellings: "double-binary-tree" is NCCL's tree.
        if (NormalizeAlgorithmName(a->name) == NormalizeAlgorithmName(algorithm))
        {
            names.insert(names.end(), a->aliases.begin(), a->aliases.end());
        }
    }
    for (const std::string& n : names)
    {
        const std::string k = NormalizeAlgorithmName(n);
        for (const char* family : {"ring", "tree", "nvls"})
        {
            if (k == family)
            {
                return family;
            }
        }
        if (k == "nvls-tree" || k == "nvlstree")
        {
            return "nvlstree";
        }
        // NCCL's tree is its double binary tree; across servers it is the
        // node-aware one (chains inside a server, the trees over servers).
        if (k == "double-binary-tree" || k == "doublebinarytree" || k == "nccl-tree")
        {
            return "tree";
        }
    }
    return "";
}

std::optional<NcclLatencies>
NcclTuningLatencies(const std::string& algorithm, NcclProtocol p)
{
    const std::string a = NcclFamily(algorithm);
    const LatencyRow& row = a == "tree" ? kTree : a == "nvls" ? kNvls : a == "nvlstree" ? kNvlsTree : kRing;
    const int c = Column(p);
    if (row.base[c] < 0)
    {
        return std::nullopt;
    }
    return NcclLatencies{NanoSeconds(std::llround(row.base[c] * 1000)),
                         NanoSeconds(std::llround(row.nvlink[c] * 1000)),
                         NanoSeconds(std::llround(row.net[c] * 1000))};
}

std::optional<Time>
NcclLatencyFloor(CollectiveKind kind, uint32_t ranks, uint32_t nodes)
{
    const bool allReduce = kind == CollectiveKind::ALL_REDUCE;
    if (ranks < 2 || !(allReduce || kind == CollectiveKind::ALL_GATHER || kind == CollectiveKind::REDUCE_SCATTER))
    {
        return std::nullopt;
    }
    nodes = std::max<uint32_t>(1, std::min(nodes, ranks));
    const NcclLatencies ring = *NcclTuningLatencies("ring", NcclProtocol::LL);
    const int64_t steps = allReduce ? 2 * (ranks - 1) : ranks - 1;
    const int64_t interSteps = allReduce ? 2 * (nodes - 1) : nodes - 1;
    Time floor = ring.base + ring.intra * (steps - interSteps) + ring.inter * interSteps;
    if (allReduce)
    {
        const NcclLatencies tree = *NcclTuningLatencies("tree", NcclProtocol::LL);
        int64_t log2Nodes = 0;
        while ((2u << log2Nodes) <= nodes)
        {
            ++log2Nodes;
        }
        const int64_t local = ranks / nodes - 1;
        floor = std::min(floor, tree.base + (tree.intra * local + tree.inter * log2Nodes) * 2);
    }
    return floor;
}

bool
NcclEndpoint::CrossesNodes(uint32_t a, uint32_t b) const
{
    return gpusPerNode > 0 && a / gpusPerNode != b / gpusPerNode;
}

Time
NcclEndpoint::StepDelay(bool inter, uint64_t bytes) const
{
    const Time step = inter ? interStep : intraStep;
    if (protocol != NcclProtocol::SIMPLE || simpleChunkBytes == 0)
    {
        return step;
    }
    // Simple synchronises (fence, flag, credit) once per step of its buffer:
    // a message spanning k steps pays k synchronisations, at least one.
    const uint64_t chunks = std::max<uint64_t>(1, (bytes + simpleChunkBytes - 1) / simpleChunkBytes);
    return step * static_cast<int64_t>(chunks);
}

Time
NcclEndpoint::CopyTime(uint64_t bytes) const
{
    return copyRate.GetBitRate() > 0 ? copyRate.CalculateBytesTxTime(bytes) : Time(0);
}

uint32_t
NcclEndpoint::NcclChannelsPerConnection() const
{
    return std::max<uint32_t>(1, netSlots / kNcclSteps);
}

namespace
{

/// One NCCL channel's share of a message, cut as its kernel posts it.
std::vector<NcclNetSlice>
ChannelSlices(NcclProtocol p, uint64_t bytes)
{
    std::vector<NcclNetSlice> out;
    if (p != NcclProtocol::SIMPLE)
    {
        // LL and LL128: chunkSteps = sliceSteps = 1, a chunk is one step's data.
        const uint64_t step = p == NcclProtocol::LL ? kNcclLlStepDataBytes : kNcclLl128StepDataBytes;
        for (uint64_t left = bytes; left > 0;)
        {
            const uint64_t b = std::min(step, left);
            out.push_back({b, 1});
            left -= b;
        }
        return out;
    }
    // Simple: chunks of chunkSteps x stepSize (2 MiB); the last loop's chunk
    // is what is left. A chunk goes as SlicePerChunk (2) slices of
    // max(half the chunk, 2 steps / 32); every slice, even an empty one,
    // advances the connection by sliceSteps.
    const uint64_t chunkBytes = kNcclSimpleChunkSteps * kNcclSimpleStepBytes;
    const uint64_t minSlice = kNcclSimpleSliceSteps * kNcclSimpleStepBytes / 32;
    for (uint64_t left = bytes; left > 0;)
    {
        const uint64_t c = std::min(chunkBytes, left);
        const uint64_t first = std::min(c, std::max((c + 1) / 2, minSlice));
        if (first == c)
        {
            out.push_back({c, kNcclSimpleChunkSteps});
        }
        else
        {
            out.push_back({first, kNcclSimpleSliceSteps});
            out.push_back({c - first, kNcclSimpleSliceSteps});
        }
        left -= c;
    }
    return out;
}

} // namespace

std::vector<NcclNetSlice>
NcclEndpoint::NetSlices(uint64_t bytes) const
{
    // The NCCL channels run side by side: their slices interleave, each
    // channel's in its order.
    const uint32_t k = NcclChannelsPerConnection();
    std::vector<std::vector<NcclNetSlice>> perChannel;
    const uint64_t share = (bytes + k - 1) / k;
    for (uint64_t left = bytes; left > 0;)
    {
        const uint64_t b = std::min(share, left);
        perChannel.push_back(ChannelSlices(protocol, b));
        left -= b;
    }
    std::vector<NcclNetSlice> out;
    for (size_t i = 0;; ++i)
    {
        bool any = false;
        for (const auto& c : perChannel)
        {
            if (i < c.size())
            {
                out.push_back(c[i]);
                any = true;
            }
        }
        if (!any)
        {
            break;
        }
    }
    if (out.empty())
    {
        out.push_back({0, protocol == NcclProtocol::SIMPLE ? kNcclSimpleChunkSteps : 1u});
    }
    return out;
}

NcclEndpoint
NcclEndpointBesideFabric(NcclEndpoint e, Time intraAlpha, Time interAlpha)
{
    e.intraStep = std::max(Time(0), e.intraStep - intraAlpha);
    e.interStep = std::max(Time(0), e.interStep - interAlpha);
    return e;
}

std::optional<NcclEndpoint>
MakeNcclEndpoint(const std::string& algorithm,
                 NcclProtocol p,
                 Time hostLaunch,
                 uint32_t gpusPerNode,
                 uint32_t channels,
                 uint32_t nodes)
{
    const std::optional<NcclLatencies> lat = NcclTuningLatencies(algorithm, p);
    if (!lat)
    {
        return std::nullopt;
    }
    NcclEndpoint e;
    // The network connection's window: the executor's attributes in force
    // (Config::SetDefault, --ns3::CollectiveExecutor::NetSlots=...), so the
    // closed form prices what the executor runs.
    const TypeId executor = TypeId::LookupByName("ns3::CollectiveExecutor");
    TypeId::AttributeInformation info;
    if (executor.LookupAttributeByName("NetStepsInFlight", &info))
    {
        e.netStepsInFlight = static_cast<uint32_t>(DynamicCast<const UintegerValue>(info.initialValue)->Get());
    }
    if (executor.LookupAttributeByName("NetSlots", &info))
    {
        e.netSlots = static_cast<uint32_t>(DynamicCast<const UintegerValue>(info.initialValue)->Get());
    }
    if (executor.LookupAttributeByName("NetCreditDelay", &info))
    {
        e.netCreditDelay = DynamicCast<const TimeValue>(info.initialValue)->Get();
    }
    if (executor.LookupAttributeByName("HwLatHoldsFabricLatency", &info))
    {
        e.hwLatHoldsFabric = DynamicCast<const BooleanValue>(info.initialValue)->Get();
    }
    e.protocol = p;
    e.launch = hostLaunch + lat->base;
    e.intraStep = lat->intra;
    e.interStep = lat->inter;
    e.copyRate = NcclCopyRate(p);
    if (NcclFamily(algorithm) == "nvls")
    {
        // NCCL charges NVLS's hardware latency once per collective (its
        // multimem loads and stores in the switch have no ring steps), and
        // NVLS has no Simple chunk flags: all of it at the launch.
        e.launch += lat->intra;
        e.intraStep = Time(0);
        e.interStep = Time(0);
        e.simpleChunkBytes = 0;
        e.gpusPerNode = gpusPerNode;
        return e;
    }
    if (NcclFamily(algorithm) == "nvlstree")
    {
        // NVLSTree: NCCL's latency per collective, intraLat + 2 log2(nNodes)
        // x interLat (log2 rounded down, as NCCL's log2i), all at the launch
        // as NVLS's: its chunks stream through the switch and the tree hops
        // (NCCL's 8 slots a connection), so a per-message latency, paid by
        // every 128 KiB chunk, is not what NCCL charges. No chunk flags.
        uint32_t log2Nodes = 0;
        while ((2u << log2Nodes) <= nodes)
        {
            ++log2Nodes;
        }
        e.launch += lat->intra + lat->inter * static_cast<int64_t>(2 * log2Nodes);
        e.intraStep = Time(0);
        e.interStep = Time(0);
        e.simpleChunkBytes = 0;
        e.gpusPerNode = gpusPerNode;
        return e;
    }
    e.gpusPerNode = gpusPerNode;
    const uint32_t perSchedule = std::max<uint32_t>(1, kNcclRingChannels / std::max<uint32_t>(1, channels));
    e.simpleChunkBytes = kNcclSimpleStepBytes * perSchedule;
    return e;
}

namespace
{

/// launch + ClosedFormTime of \p spec with T(level, m) = \p step(inter, level, m),
/// inter: the share of the step's latency that is a crossing between nodes;
/// \p connectionWindow: price what the executor runs (one step in flight per
/// network connection) rather than NCCL's tuning count.
/// A node-aware algorithm names its crossings (level 1). A flat algorithm's
/// critical path of L steps follows the data from rank to rank, and ranks
/// in order cross into the next node once every G (GPUs a node): at worst
/// ceil(L / G) of its L steps cross, the ring's exact count on the
/// contention-free channel, where the executor charges the network's step
/// latency to the messages that cross only (NCCL's own tuning counts
/// 2(K - 1) for a ring allreduce on K nodes, ncclTopoGetAlgoTime's
/// nInterSteps; an approximation for the other flat algorithms). Each step
/// is charged that share of the network's latency and the rest of NVLink's.
Time
EndpointClosedForm(const CollectiveSpec& spec,
                   const NcclEndpoint& endpoint,
                   bool connectionWindow,
                   PortLoads loads,
                   const std::function<Time(double inter, uint32_t level, double bytes)>& step)
{
    const CollectiveAlgorithm& a = CollectiveAlgorithmRegistry::Get(spec.collective, spec.algorithm, "--algorithm");
    const bool multiNode = endpoint.gpusPerNode > 0 && endpoint.gpusPerNode < spec.ranks;
    double flatShare = 0;
    if (multiNode && !a.usesNodes)
    {
        const double steps = static_cast<double>(CriticalPath(spec).size());
        flatShare = steps > 0 ? std::min(1.0, std::ceil(steps / endpoint.gpusPerNode) / steps) : 0.0;
        // What runs (the executor's window of one step in flight per network
        // connection): a ring's crossing carries one message every step, in
        // sequence, so its L messages, each at the network's latency, are
        // the critical path. NCCL's tuning model counts 2(K - 1) (above).
        if (connectionWindow && NcclFamily(spec.algorithm) == "ring")
        {
            flatShare = 1.0;
        }
    }
    return endpoint.launch + ClosedFormTime(
                                 spec,
                                 [&](uint32_t level, double bytes) {
                                     return step(a.usesNodes ? (level == 1 ? 1.0 : 0.0) : flatShare, level, bytes);
                                 },
                                 loads);
}

/// \p intra and \p inter mixed by the share \p inter of a step that crosses.
Time
Mix(double inter, Time intra, Time crossing)
{
    if (inter <= 0)
    {
        return intra;
    }
    if (inter >= 1)
    {
        return crossing;
    }
    return Seconds((1 - inter) * intra.GetSeconds() + inter * crossing.GetSeconds());
}

} // namespace

Time
NcclSlotStreamTime(const NcclEndpoint& endpoint, uint64_t bytes, const std::function<Time(double)>& p2p)
{
    // The executor's slots on an idle connection, slice by slice: a slice
    // starts when the sender's port has sent the one before
    // (p2p(w) - p2p(0), the serialisation of w wire bytes) and its slots
    // are free; its slots come back creditDelay after its arrival.
    const std::vector<NcclNetSlice> slices = endpoint.NetSlices(bytes);
    const Time alpha = p2p(0);
    std::vector<std::pair<Time, uint32_t>> held; // (credit back, slots), in start order
    uint32_t used = 0;
    Time portFree(0);
    Time last(0);
    size_t returned = 0;
    for (const NcclNetSlice& s : slices)
    {
        Time start = portFree;
        // Slices return their credits in the order they started (equal
        // times on an idle connection): take the oldest back until it fits.
        while (used > 0 && used + s.slots > endpoint.netSlots && returned < held.size())
        {
            start = std::max(start, held[returned].first);
            used -= held[returned].second;
            ++returned;
        }
        const double wire = static_cast<double>(endpoint.WireBytes(s.bytes));
        const Time arrival = start + p2p(wire);
        portFree = start + (p2p(wire) - alpha);
        held.emplace_back(arrival + endpoint.netCreditDelay, s.slots);
        used += s.slots;
        last = std::max(last, arrival);
    }
    return last;
}

Time
NcclClosedFormTime(const CollectiveSpec& spec, const NcclEndpoint& endpoint, const PointToPointTime& p2p)
{
    // A ring's crossing is one message every step in sequence only with a
    // window of one whole message; with more (or NCCL's slots) the next
    // step's message does not wait for the previous delivery.
    const bool oneInFlight = endpoint.netSlots == 0 && endpoint.netStepsInFlight == 1;
    const bool multiNode = endpoint.gpusPerNode > 0 && endpoint.gpusPerNode < spec.ranks;
    const bool slots = multiNode && endpoint.netSlots > 0;
    return EndpointClosedForm(spec, endpoint, oneInFlight, PortLoads::CHARGED, [&](double inter, uint32_t level, double bytes) {
        const auto data = static_cast<uint64_t>(std::ceil(bytes));
        Time wire = p2p(level, static_cast<double>(endpoint.WireBytes(data)));
        if (slots && inter > 0)
        {
            // The crossing's share of the step goes as NCCL's slices.
            const Time sliced = NcclSlotStreamTime(endpoint, data, [&](double w) { return p2p(level, w); });
            wire = Mix(inter, wire, sliced);
        }
        return Mix(inter, endpoint.StepDelay(false, data), endpoint.StepDelay(true, data)) +
               std::max(wire, endpoint.CopyTime(data * spec.channels));
    });
}

double
NcclTuningBandwidthFactor(const std::string& algorithm, NcclProtocol p, CollectiveKind kind, uint32_t nodes)
{
    const std::string a = NcclFamily(algorithm);
    if (a == "nvls" || a == "nvlstree")
    {
        return 0.85; // nvlsEfficiency (Hopper), NVLS's and NVLSTree's
    }
    if (a == "tree")
    {
        const double proto = p == NcclProtocol::LL      ? 1.0 / 3.8
                             : p == NcclProtocol::LL128 ? (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0)
                                                        : 1.0;
        return 0.92 * proto;
    }
    if (p == NcclProtocol::LL)
    {
        return nodes > 1 || kind == CollectiveKind::ALL_REDUCE ? 0.25 : 1.0 / 3.0;
    }
    return p == NcclProtocol::LL128 ? 0.92 : 1.0;
}

double
NcclTreeCorrectionFactor(NcclProtocol p, uint64_t bytes)
{
    // Rows LL, LL128, Simple; columns 64 B, 128 B, ..., 256 MB (NCCL's table,
    // read from tuning.cc, not copied as code).
    static const double kFactor[3][23] = {
        {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
        {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
        {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
    const uint64_t units = bytes >> 6;
    if (units == 0)
    {
        return 1.0;
    }
    uint32_t index = 0;
    while ((units >> (index + 1)) != 0)
    {
        ++index;
    }
    if (index >= 23)
    {
        return 1.0;
    }
    const int row = p == NcclProtocol::LL ? 0 : p == NcclProtocol::LL128 ? 1 : 2;
    return kFactor[row][index];
}

Time
NcclTuningTime(const CollectiveSpec& spec, const NcclEndpoint& endpoint, const PointToPointTime& p2p)
{
    const bool multiNode = endpoint.gpusPerNode > 0 && endpoint.gpusPerNode < spec.ranks;
    const uint32_t nodes = multiNode ? (spec.ranks + endpoint.gpusPerNode - 1) / endpoint.gpusPerNode : 1;
    double factor = NcclTuningBandwidthFactor(spec.algorithm, endpoint.protocol, spec.collective, nodes);
    if (NcclFamily(spec.algorithm) == "tree" && spec.collective == CollectiveKind::ALL_REDUCE)
    {
        factor *= NcclTreeCorrectionFactor(endpoint.protocol, spec.bytes);
    }
    // NCCL's own figures, not the schedule's port loads (PortLoads::IGNORED).
    // NVLSTree's fan-in is in them: NCCL doubles NVLSTree's inter-node
    // bandwidth on 2 nodes only (src/graph/tuning.cc, NVLS model: interBw x 2
    // when nNodes <= 2), where each tree is a chain; on more an interior
    // server's NIC carries two children's pieces, so its level-1 steps are
    // priced at half the rate there. (The node tree's and the ring's prices
    // keep NCCL's per-link figures: ratio 0.5 and nRanks / nSteps.)
    const double interFactor =
        NcclFamily(spec.algorithm) == "nvlstree" && nodes > 2 ? factor / 2.0 : factor;
    return EndpointClosedForm(spec, endpoint, false, PortLoads::IGNORED, [&](double inter, uint32_t level, double bytes) {
        return Mix(inter, endpoint.intraStep, endpoint.interStep) +
               std::max(p2p(level, bytes / (level == 1 ? interFactor : factor)),
                        endpoint.CopyTime(static_cast<uint64_t>(std::ceil(bytes)) * spec.channels));
    });
}

NcclChoice
ChooseNccl(const std::vector<std::string>& algorithms,
           const std::vector<NcclProtocol>& protocols,
           const std::function<std::optional<Time>(const std::string&, NcclProtocol)>& predict)
{
    std::optional<NcclChoice> best;
    for (const std::string& a : algorithms)
    {
        for (NcclProtocol p : protocols)
        {
            const std::optional<Time> t = predict(a, p);
            if (t && (!best || *t < best->predicted))
            {
                best = NcclChoice{a, p, *t};
            }
        }
    }
    if (!best)
    {
        throw std::logic_error("no algorithm x protocol applies");
    }
    return *best;
}

} // namespace ns3
