// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-egress-scheduler.h"

#include "fabric-log.h"
#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricEgressScheduler");
NS_OBJECT_ENSURE_REGISTERED(FabricEgressScheduler);
NS_OBJECT_ENSURE_REGISTERED(FabricStrictPriorityScheduler);
NS_OBJECT_ENSURE_REGISTERED(FabricRoundRobinScheduler);
NS_OBJECT_ENSURE_REGISTERED(FabricDwrrScheduler);

TypeId
FabricEgressScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricEgressScheduler")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddAttribute("StrictPriorityClasses",
                          "Bit mask of classes served by strict priority (higher class "
                          "first) before the others; default class 7 (ACKs, CNPs).",
                          UintegerValue(0x80),
                          MakeUintegerAccessor(&FabricEgressScheduler::m_strictMask),
                          MakeUintegerChecker<uint8_t>());
    return tid;
}

FabricEgressScheduler::~FabricEgressScheduler() = default;

bool
FabricEgressScheduler::DequeueStrict(FabricNetDevice& port, uint8_t classes)
{
    uint32_t bytes = 0;
    for (int c = kFabricClasses - 1; c >= 0; --c)
    {
        if ((classes >> c) & 1u && port.TakeFromClass(uint8_t(c), bytes))
        {
            return true;
        }
    }
    return false;
}

// ---------------------------------------------------------------- strict

TypeId
FabricStrictPriorityScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricStrictPriorityScheduler")
                            .SetParent<FabricEgressScheduler>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricStrictPriorityScheduler>();
    return tid;
}

bool
FabricStrictPriorityScheduler::Dequeue(FabricNetDevice& port, uint8_t candidates)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(candidates));
    return DequeueStrict(port, candidates);
}

// ---------------------------------------------------------------- round robin

TypeId
FabricRoundRobinScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricRoundRobinScheduler")
                            .SetParent<FabricEgressScheduler>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricRoundRobinScheduler>();
    return tid;
}

bool
FabricRoundRobinScheduler::Dequeue(FabricNetDevice& port, uint8_t candidates)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(candidates));
    if ((m_strictMask & candidates) && DequeueStrict(port, m_strictMask & candidates))
    {
        return true;
    }
    // The classes of `others` in turn order m_next, m_next + 1, ... (mod 8),
    // found by bit scans instead of a visit of all eight: the mask rotated
    // right by m_next has them in bit order. A class that could not send is
    // cleared, which leaves the order of the others as it was. This runs at
    // every start of a queued packet (a switch port's release).
    static_assert(kFabricClasses == 8, "the rotation below is of an 8-bit class mask");
    uint32_t bytes = 0;
    uint32_t left = candidates & uint8_t(~m_strictMask);
    while (left)
    {
        const uint32_t rotated = ((left >> m_next) | (left << (kFabricClasses - m_next))) & 0xFFu;
        const uint8_t c = uint8_t((m_next + __builtin_ctz(rotated)) % kFabricClasses);
        if (port.TakeFromClass(c, bytes))
        {
            m_next = (c + 1) % kFabricClasses;
            return true;
        }
        left &= ~(1u << c);
    }
    return false;
}

// ---------------------------------------------------------------- DWRR

TypeId
FabricDwrrScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricDwrrScheduler")
            .SetParent<FabricEgressScheduler>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricDwrrScheduler>()
            .AddAttribute("Quantum",
                          "Payload bytes a visit adds to a class's deficit per unit weight.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&FabricDwrrScheduler::m_quantum),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ClassWeights",
                          "Weights of classes 0-7, comma separated (0: never served by "
                          "DWRR).",
                          StringValue("1,1,1,1,1,1,1,1"),
                          MakeStringAccessor(&FabricDwrrScheduler::SetClassWeights,
                                             &FabricDwrrScheduler::GetClassWeights),
                          MakeStringChecker());
    return tid;
}

FabricDwrrScheduler::FabricDwrrScheduler()
{
    m_weights.fill(1);
}

void
FabricDwrrScheduler::SetClassWeights(std::string s)
{
    NS_LOG_FUNCTION(this << s);
    std::array<uint32_t, kFabricClasses> w{};
    std::istringstream is(s);
    std::string tok;
    uint8_t c = 0;
    while (std::getline(is, tok, ','))
    {
        if (c >= kFabricClasses || tok.empty() ||
            tok.find_first_not_of("0123456789") != std::string::npos)
        {
            throw std::invalid_argument("ClassWeights: expected 8 comma-separated integers");
        }
        w[c++] = std::stoul(tok);
    }
    if (c != kFabricClasses)
    {
        throw std::invalid_argument("ClassWeights: expected 8 comma-separated integers");
    }
    m_weights = w;
}

std::string
FabricDwrrScheduler::GetClassWeights() const
{
    std::ostringstream os;
    for (uint8_t c = 0; c < kFabricClasses; ++c)
    {
        os << (c ? "," : "") << m_weights[c];
    }
    return os.str();
}

bool
FabricDwrrScheduler::Dequeue(FabricNetDevice& port, uint8_t candidates)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(candidates));
    if ((m_strictMask & candidates) && DequeueStrict(port, m_strictMask & candidates))
    {
        return true;
    }
    // A class in debt (its last packet exceeded its quantum) may need several
    // visits before it may send again; 64 rounds bound the search.
    for (int pass = 0; pass < 64; ++pass)
    {
        bool starved = false;
        for (uint8_t k = 0; k < kFabricClasses; ++k)
        {
            uint8_t c = (m_next + k) % kFabricClasses;
            if ((m_strictMask >> c) & 1u || m_weights[c] == 0)
            {
                continue;
            }
            if (!((candidates >> c) & 1u))
            {
                m_deficit[c] = 0;
                continue;
            }
            if (m_deficit[c] <= 0)
            {
                m_deficit[c] += int64_t(m_weights[c]) * m_quantum;
                if (m_deficit[c] <= 0)
                {
                    starved = true;
                    continue;
                }
            }
            uint32_t bytes = 0;
            if (port.TakeFromClass(c, bytes))
            {
                m_deficit[c] -= bytes;
                m_next = m_deficit[c] > 0 ? c : (c + 1) % kFabricClasses;
                return true;
            }
            m_deficit[c] = 0;
        }
        if (!starved)
        {
            return false;
        }
    }
    return false;
}

} // namespace ns3
