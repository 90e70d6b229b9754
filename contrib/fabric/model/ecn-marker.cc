// SPDX-License-Identifier: GPL-2.0-only
#include "ecn-marker.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricEcnMarker);

TypeId
FabricEcnMarker::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricEcnMarker")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricEcnMarker>()
            .AddAttribute("Kmin", "Queue bytes below which nothing is marked.",
                          UintegerValue(400000),
                          MakeUintegerAccessor(&FabricEcnMarker::m_kmin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Kmax", "Queue bytes above which everything ECT is marked.",
                          UintegerValue(1600000),
                          MakeUintegerAccessor(&FabricEcnMarker::m_kmax),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Pmax", "Mark probability reached at Kmax.",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&FabricEcnMarker::m_pmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Table",
                          "The table Kmin, Kmax and Pmax are taken from for the port's rate when "
                          "a switch adds the port: PerRate (HPCC authors' per-rate set), Paper "
                          "(DCQCN paper: 5 KB, 200 KB, 1 %), Linear (100 and 400 KB per 25 Gb/s, "
                          "Pmax 0.2); Kmin, Kmax or Pmax set by the user win",
                          EnumValue(PER_RATE),
                          MakeEnumAccessor(&FabricEcnMarker::m_table),
                          MakeEnumChecker(PER_RATE, "PerRate", PAPER, "Paper", LINEAR, "Linear"))
            // The HPCC simulator marks at dequeue (switch-node.cc
            // SwitchNotifyDequeue, after the packet left the queue); DCQCN's
            // paper leaves the point open (RED on the egress queue).
            .AddAttribute("MarkAt",
                          "Dequeue: read the class queue behind the packet when it starts "
                          "transmission; Enqueue: read the queue ahead of it when it joins "
                          "the egress queue",
                          EnumValue(DEQUEUE),
                          MakeEnumAccessor(&FabricEcnMarker::m_markPoint),
                          MakeEnumChecker(DEQUEUE, "Dequeue", ENQUEUE, "Enqueue"))
            // The HPCC simulator counts each packet as stored (p->GetSize():
            // PPP, IPv4, UDP and its own headers with the payload, no preamble
            // or gap), between the two counts offered here.
            .AddAttribute("QueueBytes",
                          "Payload: bytes after the fabric header; Wire: on-wire bytes of the "
                          "egress link (framing, preamble and gap), as the switch buffer counts",
                          EnumValue(PAYLOAD),
                          MakeEnumAccessor(&FabricEcnMarker::m_measure),
                          MakeEnumChecker(PAYLOAD, "Payload", WIRE, "Wire"));
    return tid;
}

FabricEcnMarker::FabricEcnMarker()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

FabricEcnMarker::~FabricEcnMarker() = default;

void
FabricEcnMarker::DoDispose()
{
    m_rng = nullptr;
    Object::DoDispose();
}

void
FabricEcnMarker::SetThresholds(uint64_t kminBytes, uint64_t kmaxBytes, double pmax)
{
    if (kmaxBytes < kminBytes)
    {
        throw std::invalid_argument("ecn-kmax: expected Kmax >= Kmin");
    }
    if (pmax < 0.0 || pmax > 1.0)
    {
        throw std::invalid_argument("ecn-pmax: expected a probability in [0, 1]");
    }
    m_kmin = kminBytes;
    m_kmax = kmaxBytes;
    m_pmax = pmax;
}

void
FabricEcnMarker::DefaultsForRate(DataRate rate, uint64_t& kmin, uint64_t& kmax, double& pmax, MarkingTable table)
{
    const uint64_t gbps = rate.GetBitRate() / 1000000000ull;
    if (table == PAPER)
    {
        // Zhu et al., SIGCOMM 2015, the deployment's values (KB = 1000 B).
        kmin = 5000;
        kmax = 200000;
        pmax = 0.01;
        return;
    }
    if (table == LINEAR)
    {
        // The HPCC simulator's run.py: kmin 100 * bw / 25, kmax 400 * bw / 25
        // (KB, bw in Gb/s), pmax 0.2.
        const double bw = static_cast<double>(rate.GetBitRate()) * 1e-9;
        kmin = static_cast<uint64_t>(std::llround(100 * bw / 25 * 1000));
        kmax = static_cast<uint64_t>(std::llround(400 * bw / 25 * 1000));
        pmax = 0.2;
        return;
    }
    // HPCC authors' production-style set (doc/fabric.md, Sources), KB = 1000 B.
    uint64_t kminKB = 100;
    uint64_t kmaxKB = 400;
    if (gbps >= 400)
    {
        kminKB = 800;
        kmaxKB = 3200;
    }
    else if (gbps >= 200)
    {
        kminKB = 600;
        kmaxKB = 2400;
    }
    else if (gbps >= 100)
    {
        kminKB = 400;
        kmaxKB = 1600;
    }
    kmin = kminKB * 1000;
    kmax = kmaxKB * 1000;
    pmax = 0.2;
}

void
FabricEcnMarker::ConfigureForRate(DataRate rate)
{
    DefaultsForRate(rate, m_kmin, m_kmax, m_pmax, m_table);
}

double
FabricEcnMarker::MarkProbability(uint64_t q) const
{
    if (q <= m_kmin)
    {
        return 0.0;
    }
    if (q > m_kmax)
    {
        return 1.0;
    }
    return m_pmax * double(q - m_kmin) / double(m_kmax - m_kmin);
}

bool
FabricEcnMarker::ShouldMark(uint64_t q)
{
    if (q <= m_kmin)
    {
        return false;
    }
    if (q > m_kmax)
    {
        return true;
    }
    return m_rng->GetValue() < MarkProbability(q);
}

bool
FabricEcnMarker::ShouldMark(uint64_t q, uint32_t linkPackets)
{
    if (linkPackets <= 1 || q <= m_kmin || q > m_kmax)
    {
        return ShouldMark(q);
    }
    // A unit of n link packets is marked if any of them would be, each
    // drawn at the same queue length (the queue a unit sees does not move
    // while it leaves): 1 - (1 - p)^n, still one draw.
    const double keep = std::pow(1.0 - MarkProbability(q), double(linkPackets));
    return m_rng->GetValue() < 1.0 - keep;
}

int64_t
FabricEcnMarker::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

} // namespace ns3
