// SPDX-License-Identifier: GPL-2.0-only
#include "packet-run-estimate.h"

#include "attribute-defaults.h"
#include "comparison-packet-fabric.h"
#include "credit-flow-control.h"
#include "input-error.h"
#include "rdma-endpoint.h"
#include "rdma-helper.h"
#include "rdma-nic.h"
#include "topology-builder.h"
#include "units.h"

#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <unordered_map>
#include <unordered_set>
#include <sstream>

namespace ns3
{

namespace
{

// The costs per hop, per NIC message and per pair, measured on this
// project's machine (2 cores at 2.1 GHz, shared; Debian 12, ns-3.37,
// RelWithDebInfo, `./hockney`'s heap on huge pages) on 2026-12-04 with
// `hockney compare --backends=packet --format=json` over 25 runs from 8 to
// 1024 GPUs: the 16 of the first fit (dgx-h100 ring AllReduce 64 KB / 1 /
// 16 / 64 MB and AllToAll 8 MB; fat-tree-k4 AllToAll pairwise 16 MB and
// all-at-once 256 KB / 16 MB; fat-tree-k8 AllToAll all-at-once 8 MB (128
// ranks) and pairwise 16 MB (64 ranks); roce-leafspine incast 1 / 32 MB and
// ReduceScatter 4 MB; rail-h100-2n ring and hierarchical AllReduce and
// AllToAll 16 MB), rail-h100-4n ring 64 MB, dgx-h100 NVLS AllReduce and
// ring AllGather 16 MB, and pairwise AllToAlls at scale: fat-tree-k8 1 MB a
// pair and rail-h100-8n 1 MB a pair in 64 KiB network transfer units,
// fat-tree-k12 (432 GPUs) of 64 KB in all and fat-tree-k16 (1024) of 1 KB a
// pair, rail-h100-128n (1024) 1 MB a pair in 16 KiB units and
// rail-b200-128n in 64 KiB (the table in doc/collective.md, "Resources").
// The constants of 2026-12-02 (2.23 events a data hop, 0 a control hop,
// 12.3 a message; 1.3 us an event; 8 kB a pair) were from before the lazy queue pairs,
// deferred timers and huge pages: on these runs they put memory at up to
// 5.7x the peak (6.3 GB for 1.1 GB at 1024 GPUs) and wall time at 2-8x.
//
// events = kEventsPerDataHop x data hops + kEventsPerControlHop x control
// hops + kEventsPerNicMessage x NIC messages (data messages, RTS, CTS and
// pipeline chunks: each has the NIC's own events, WQE and payload reads,
// completion): least squares with relative residuals, the estimated hop
// counts in place of the measured ones (as the estimate uses them), the
// constants kept >= 0: every run within 0.65-1.23 of its measured events
// (the lowest: the 1024-GPU rail AllToAll in 16 KiB units, whose control
// hops cost more; dgx-h100's NVLS, whose reduction unit's events are not
// counted; the RoCE incast of 32 MB, whose CNPs and pauses are not; the
// highest: small rings, where the NIC messages weigh most). Fitted before
// the ACK and credit counts in network transfer units were fixed (below);
// refitted on the fixed counts: 1.64 / 0.79 / 9.2, the same range.
constexpr double kEventsPerDataHop = 1.71;
constexpr double kEventsPerControlHop = 0.43;
constexpr double kEventsPerNicMessage = 10.3;
// wall = kBuildSeconds + events x kSecondsPerEvent x (1 + kQueueGrowth x
// log2(max(1, messages / 100))), fitted the same way on a quiet machine
// (load under 1; the two 1024-GPU rail runs each beside another run):
// 0.17 us an event on dgx-h100 (112 messages), growing with the messages in
// flight (event queue, QPs, the ports' working set in a shared cache) to
// about 0.6 us at a million; every run within 0.47-1.41 of its wall time
// (0.47: the 1024-GPU rail run in 16 KiB units, 1415 s beside another run).
constexpr double kBuildSeconds = 0.01;
constexpr double kSecondsPerEvent = 1.66e-7;
constexpr double kQueueGrowth = 0.2;
// peak_rss_bytes = kBaseBytes (the process with ns-3 and an 8-GPU run:
// 18.2-18.4 MB measured) + per node of the topology (its devices, queues,
// routes) + per pair of ranks that exchange messages (queue pairs on both
// NICs with their congestion control state); a per-message term fits to 0.
// Every run within 0.88-1.14 of its measured peak (1.01-1.02 at 1024 GPUs
// on the fat tree and both rail clusters) but one: the 128-rank all-at-once
// AllToAll, every message in flight at once, 0.60 (84 MB measured). Bytes
// in flight barely show: a 1 MB and a 64 MB ring on dgx-h100 peak at 18.3
// and 18.4 MB.
constexpr double kBaseBytes = 17.8e6;
constexpr double kBytesPerNode = 81.5e3;
constexpr double kBytesPerPair = 1.89e3;

/// What one (src, dst) pair's messages cross.
struct PairProfile
{
    double hops = 0;        ///< links a packet crosses
    double creditHops = 0;  ///< of which credit-controlled
    double payload = 4096;  ///< NIC payload per packet
    /// NIC payload of an MTU packet, also when network transfer units carry
    /// several (AckInterval counts MTU packets).
    double psnPayload = 4096;
};

/// The value in force of a uint attribute: its default, a user's
/// --ns3:: value included (SetAttributeDefault changes the initial value).
/// Read from the TypeId, not from an object, so that a value the object
/// would refuse is left to the packet run to report, naming its flag.
uint64_t
UintDefault(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        return 0;
    }
    const auto* v = dynamic_cast<const UintegerValue*>(PeekPointer(info.initialValue));
    return v ? v->Get() : 0;
}

class Profiler
{
  public:
    Profiler(const TopologyGraph& g, const ComparisonFabric& f)
        : m_g(g),
          m_f(f)
    {
        if (UserSetAttribute("ns3::RdmaNic::Mtu"))
        {
            m_userMtu = static_cast<uint32_t>(UintDefault(RdmaNic::GetTypeId(), "Mtu"));
        }
        if (!f.nicPreset.empty())
        {
            m_presetMtu = RdmaHelper::Preset(f.nicPreset).mtu;
        }
    }

    const PairProfile& Of(uint32_t src, uint32_t dst)
    {
        auto [it, added] = m_cache.try_emplace((static_cast<uint64_t>(src) << 32) | dst);
        if (!added)
        {
            return it->second;
        }
        PairProfile& p = it->second;
        const uint32_t dstNode = m_g.EndpointNode(dst);
        uint32_t node = m_g.EndpointNode(src);
        bool first = true;
        while (node != dstNode)
        {
            const TopologyNextHops next = m_g.NextHops(node, dst);
            if (next.empty())
            {
                break;
            }
            const TopologyTier& tier = m_g.LinkTier(next[0].link);
            if (first)
            {
                // The NIC sits on the rank's first port (PacketTransport).
                const bool unitTier = tier.protocol == "nvlink" || tier.protocol == "pcie";
                const uint32_t unit = tier.protocol == "nvlink" ? m_f.NvlinkUnit()
                                      : tier.protocol == "pcie" ? m_f.PcieUnit()
                                                                : 0;
                p.payload = FabricNetwork::NicPathMtu(unit > 0 ? unit : tier.mtuBytes);
                if (m_presetMtu && !unitTier)
                {
                    p.payload = m_presetMtu;
                }
                if (m_userMtu)
                {
                    p.payload = m_userMtu;
                }
                p.psnPayload = p.payload;
                if (m_f.networkTransferUnitBytes != 0 && tier.protocol != "nvlink")
                {
                    // A network transfer unit is one packet a hop (FabricNetwork).
                    p.payload = m_f.networkTransferUnitBytes;
                }
                first = false;
            }
            p.hops += 1;
            p.creditHops += tier.flowControl == TopologyFlowControl::CREDIT ? 1 : 0;
            node = next[0].neighbor;
        }
        return p;
    }

  private:
    const TopologyGraph& m_g;
    const ComparisonFabric& m_f;
    uint32_t m_userMtu = 0;
    uint32_t m_presetMtu = 0;
    std::unordered_map<uint64_t, PairProfile> m_cache;
};

std::string
Engineering(double v)
{
    std::ostringstream os;
    os << std::setprecision(2) << v;
    return os.str();
}

std::string
Duration(double s)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(0);
    if (s < 60)
    {
        os << std::setprecision(s < 1 ? 2 : s < 10 ? 1 : 0) << s << " s";
    }
    else if (s < 3600)
    {
        os << s / 60 << " min";
    }
    else if (s < 86400 * 2)
    {
        os << std::setprecision(1) << s / 3600 << " h";
    }
    else
    {
        os << s / 86400 << " days";
    }
    return os.str();
}

std::string
Memory(double bytes)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(bytes >= 1e10 || (bytes < 1e9 && bytes >= 1e7) ? 0 : 1);
    if (bytes >= 1e9)
    {
        os << bytes / 1e9 << " GB";
    }
    else
    {
        os << bytes / 1e6 << " MB";
    }
    return os.str();
}

} // namespace

std::string
PacketRunEstimate::Line(const std::string& label) const
{
    return "packet run estimate: " + Engineering(events) + " events, " + Memory(memoryBytes) + ", ~" +
           Duration(wallSeconds) + " (" + label + ": " + std::to_string(messages) + " messages, " +
           Engineering(dataHops) + " data hops, " + Engineering(controlHops) + " control hops)";
}

std::vector<EstimateMessage>
ScheduleMessages(const CollectiveSchedule& schedule, const std::function<uint64_t(uint64_t)>& wireBytes)
{
    std::vector<EstimateMessage> m;
    m.reserve(schedule.GetOps().size());
    for (const ScheduleOp& op : schedule.GetOps())
    {
        for (auto [src, dst] : op.Legs())
        {
            m.push_back({src, dst, wireBytes ? wireBytes(op.bytes) : op.bytes});
        }
    }
    return m;
}

PacketRunEstimate
EstimatePacketRun(const TopologyGraph& graph, const ComparisonFabric& f, const std::vector<EstimateMessage>& messages)
{
    // The protocol thresholds, ACK interval and credit batch in force (the
    // attributes' defaults, a user's --ns3:: value included). NCCL's
    // endpoints send every message eager unless the user set a limit, as
    // ConfigurePacket sets them.
    const TypeId endpoint = RdmaEndpoint::GetTypeId();
    auto limit = [&](const std::string& name) {
        return f.ncclEndpoints && !UserSetAttribute("ns3::RdmaEndpoint::" + name)
                   ? static_cast<double>(kNcclEagerLimit)
                   : static_cast<double>(UintDefault(endpoint, name));
    };
    const double eagerLimit = limit("EagerLimit");
    const double rendezvousLimit = limit("RendezvousLimit");
    const double chunk = std::max<double>(1, static_cast<double>(UintDefault(endpoint, "ChunkBytes")));
    const double control = static_cast<double>(UintDefault(endpoint, "ControlBytes"));
    // HPCC asks for an ACK on every packet (it reads INT from each); the
    // ideal fabric sets 64.
    const double ackInterval =
        f.congestionControl == "hpcc" && !UserSetAttribute("ns3::RdmaNic::AckInterval") ? 1.0
        : f.ideal && !UserSetAttribute("ns3::RdmaNic::AckInterval")
            ? 64.0
            : static_cast<double>(std::max<uint64_t>(1, UintDefault(RdmaNic::GetTypeId(), "AckInterval")));
    const double creditBatch = static_cast<double>(
        std::max<uint64_t>(1, UintDefault(FabricCreditFlowControl::GetTypeId(), "UpdateThresholdBytes")));

    Profiler profiler(graph, f);
    PacketRunEstimate e;
    e.messages = messages.size();
    std::unordered_set<uint64_t> pairs;
    pairs.reserve(messages.size());
    for (const EstimateMessage& m : messages)
    {
        const PairProfile& p = profiler.Of(m.src, m.dst);
        const double bytes = static_cast<double>(m.bytes);
        // NIC messages: eager, one; rendezvous, RTS + CTS + data; pipelined,
        // RTS, then a CTS and a data message per chunk (rdma-endpoint.h).
        double controlMessages = 0;
        double dataMessages = 1;
        if (bytes >= rendezvousLimit)
        {
            dataMessages = std::ceil(bytes / chunk);
            controlMessages = 1 + dataMessages;
        }
        else if (bytes >= eagerLimit)
        {
            controlMessages = 2;
        }
        const double dataPackets = std::max(1.0, std::ceil(bytes / p.payload)) +
                                   (dataMessages - 1); // a partial last packet per chunk
        const double packets = dataPackets + controlMessages;
        // An ACK request every AckInterval MTU packets: in network transfer
        // units every ceil(AckInterval x MTU payload / unit) units, at least
        // every unit (RdmaNic::UpdateSegment).
        const double ackEvery = std::max(1.0, std::ceil(ackInterval * p.psnPayload / p.payload));
        const double acks = std::ceil(dataPackets / ackEvery) + (ackEvery > 1 ? dataMessages - 1 : 0) +
                            controlMessages;
        e.nicMessages += dataMessages + controlMessages;
        e.dataHops += packets * p.hops;
        // A credit update per UpdateThresholdBytes freed, at most one per
        // data packet (a unit larger than the threshold is reported at once).
        const double creditUpdates =
            std::min(bytes / creditBatch, dataPackets) + controlMessages * control / creditBatch;
        e.controlHops += acks * p.hops + p.creditHops * creditUpdates;
        pairs.insert((static_cast<uint64_t>(std::min(m.src, m.dst)) << 32) | std::max(m.src, m.dst));
    }
    const double n = static_cast<double>(messages.size());
    e.events = kEventsPerDataHop * e.dataHops + kEventsPerControlHop * e.controlHops +
               kEventsPerNicMessage * e.nicMessages;
    e.wallSeconds =
        kBuildSeconds + e.events * kSecondsPerEvent * (1 + kQueueGrowth * std::log2(std::max(1.0, n / 100)));
    e.memoryBytes =
        kBaseBytes + kBytesPerNode * graph.NodeCount() + kBytesPerPair * static_cast<double>(pairs.size());
    return e;
}

uint64_t
AvailableMemoryBytes()
{
    if (const char* v = std::getenv("HOCKNEY_MEMORY_AVAILABLE"))
    {
        return units::ParseBytes(v, "HOCKNEY_MEMORY_AVAILABLE");
    }
    std::ifstream f("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (f >> key >> kb >> unit)
    {
        if (key == "MemAvailable:")
        {
            return kb * 1024;
        }
    }
    return 0;
}

void
CheckPacketRunMemory(const PacketRunEstimate& e, const std::string& label, bool force, const std::string& forceField)
{
    if (force)
    {
        return;
    }
    const uint64_t available = AvailableMemoryBytes();
    if (available == 0 || e.memoryBytes <= static_cast<double>(available))
    {
        return;
    }
    throw InputError(forceField, "the packet run of " + label + " is estimated at " + Memory(e.memoryBytes) + " (" +
                                     Engineering(e.events) + " events, ~" + Duration(e.wallSeconds) +
                                     "), more than the " + Memory(static_cast<double>(available)) +
                                     " of memory available (" +
                                     (std::getenv("HOCKNEY_MEMORY_AVAILABLE") ? "HOCKNEY_MEMORY_AVAILABLE"
                                                                              : "MemAvailable") +
                                     "); refused before it started. Expected a smaller run, or " + forceField +
                                     " to start it anyway");
}

} // namespace ns3
