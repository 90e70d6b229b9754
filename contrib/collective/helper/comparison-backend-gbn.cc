// SPDX-License-Identifier: GPL-2.0-only
//
// Backend "gbn": the closed form (as "closed") with beta scaled by the
// go-back-N efficiency of the scenario's lossy links (fabric.faults,
// lossy_link; contrib/analytic go-back-n.h): the loss-free algebra corrected
// by the ARQ closed form of the RDMA NIC. Every ordered pair of ranks whose
// path crosses a lossy link is costed with its own path (NAK loop, packet
// time, loss along the path); the worst efficiency applies, as the slowest
// pair bounds a collective's step. Without lossy links it equals "closed"
// (and, like it, runs without a topology; lossy links need one). The other
// fault types (link_down, slow_link, pfc_storm) are not priced: gbn is the
// loss-free algebra corrected for random loss only.
#include "attribute-defaults.h"
#include "comparison-backend.h"
#include "go-back-n.h"
#include "rdma-nic.h"
#include "topology-parameters.h"

#include "ns3/boolean.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <set>

namespace ns3
{

namespace
{

// Sizes of what the NIC sends, as the simulated packets count their bits
// (FabricHeader 16 B, then the transport headers in the payload).
constexpr uint32_t kSimHeader = 16;
constexpr uint32_t kBth = 12;
constexpr uint32_t kNakPayload = 16; // BTH + AETH

/// Probability that a packet of \p bytes (simulated) survives every lossy
/// link of \p path.
double
Survival(const TopologyPath& path, const std::vector<ResolvedLossyLink>& lossy, uint32_t bytes)
{
    double s = 1;
    for (const TopologyHop& h : path.hops)
    {
        for (const ResolvedLossyLink& ll : lossy)
        {
            if (ll.link == h.link)
            {
                const FabricLinkLoss& l = ll.loss;
                s *= l.unit == FabricLinkLoss::Unit::PACKET ? 1 - l.rate : 1 - PacketErrorRate(l.rate, 8ull * bytes);
            }
        }
    }
    return s;
}

/// The go-back-N efficiency of the worst pair of ranks.
double
WorstEfficiency(const ComparisonSetup& setup)
{
    if (!HasLossyLinks(setup.fabric.faults) || !setup.graph)
    {
        return 1;
    }
    const TopologyGraph& g = *setup.graph;
    const std::vector<ResolvedLossyLink> lossy = ResolveLossyLinks(setup.fabric.faults, g);
    // The NIC's recovery parameters as this run's attributes set them.
    const ScopedAttributeDefaults attributes(setup.config.attributes);
    Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
    TimeValue rto;
    TimeValue nakInterval;
    UintegerValue ackInterval;
    nic->GetAttribute("RetransmitTimeout", rto);
    nic->GetAttribute("NakInterval", nakInterval);
    nic->GetAttribute("AckInterval", ackInterval);
    double worst = 1;
    for (uint32_t src = 0; src < setup.ranks; ++src)
    {
        for (uint32_t dst = 0; dst < setup.ranks; ++dst)
        {
            if (src == dst)
            {
                continue;
            }
            const TopologyPath path = PairPath(g, src, dst);
            const TopologyPath back = PairPath(g, dst, src);
            // The largest IB MTU that fits the path with the transport
            // headers, as the packet backend's NICs choose it.
            uint32_t data = 4096;
            while (data > 256 && data + RdmaNic::kMaxTransportHeader > path.MinMtuBytes())
            {
                data /= 2;
            }
            const double p = 1 - Survival(path, lossy, kSimHeader + kBth + data);
            if (p <= 0)
            {
                continue;
            }
            const double q = 1 - Survival(back, lossy, kSimHeader + kNakPayload);
            GoBackNLink link;
            // Back to back at the sender's link; the NAK loop is what follows
            // the revealing packet's serialization: the rest of its trip and
            // the NAK's.
            link.packetTime = path.hops.front().rate.CalculateBytesTxTime(data + kBth + path.hops.front().headerBytes);
            link.nakLoop = path.UnloadedPacketTime(data + kBth) - link.packetTime + back.UnloadedPacketTime(kNakPayload);
            link.retransmitTimeout = rto.Get();
            link.nakInterval = nakInterval.Get();
            link.ackInterval = uint32_t(ackInterval.Get());
            worst = std::min(worst, GoBackNEfficiency(p, q, link));
        }
    }
    return worst;
}

class GoBackNBackend : public ComparisonBackend
{
  public:
    std::string Name() const override { return "gbn"; }

    bool PerParameterSource() const override { return true; }

    BackendAnswer Run(const ComparisonPoint& point, ComparisonContext& context) const override
    {
        const ComparisonSetup& setup = context.Setup();
        const double eta = WorstEfficiency(setup);
        ComparisonPoint lossy = point;
        for (PointToPointParameters* p : {&lossy.flat, &lossy.level[0], &lossy.level[1]})
        {
            p->beta = DataRate(uint64_t(double(p->beta.GetBitRate()) * eta));
        }
        BackendAnswer a;
        a.time = ClosedTime(lossy, setup.config.model.softwareOverhead);
        a.parameters = &point;
        a.columns.Set("gbn_efficiency", eta);
        if (!setup.fabric.faults.empty())
        {
            a.columns.Set("faults_seen", FaultsSeen(setup.fabric.faults, {"lossy_link"}));
        }
        return a;
    }
};

} // namespace

std::unique_ptr<ComparisonBackend>
MakeGoBackNBackend()
{
    return std::make_unique<GoBackNBackend>();
}

} // namespace ns3
