// SPDX-License-Identifier: GPL-2.0-only
#include "switch-buffer.h"

#include "fabric-log.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricSwitchBuffer");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitchBuffer);

TypeId
FabricSwitchBuffer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSwitchBuffer")
            .SetParent<Object>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricSwitchBuffer>()
            .AddAttribute("BufferBytes",
                          "Total packet buffer of the switch (12-32 MB in public RDMA simulations, see doc/fabric.md).",
                          UintegerValue(12000000),
                          MakeUintegerAccessor(&FabricSwitchBuffer::m_bufferBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("ReserveBytes",
                          "Private reserve of each (ingress port, class), or of each ingress "
                          "port (ReserveAccounting), 4 KiB as in the public Broadcom-style "
                          "simulations.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&FabricSwitchBuffer::m_reserve),
                          MakeUintegerChecker<uint64_t>())
            // The HPCC simulator's switch-mmu.cc takes one reserve per port
            // from the pool (ConfigNPort: total_rsrv += reserve per port) but
            // lets each (port, queue) fill one; PerPort keeps the pool exact
            // by sharing the port's reserve among its classes (the same when
            // one class of a port holds data).
            .AddAttribute("ReserveAccounting",
                          "PerPortClass: a reserve per (ingress port, class), 8 per port "
                          "taken from the pool; PerPort: one reserve per ingress port, "
                          "shared by its classes",
                          EnumValue(PER_PORT_CLASS),
                          MakeEnumAccessor(&FabricSwitchBuffer::m_reserveAccounting),
                          MakeEnumChecker(PER_PORT_CLASS, "PerPortClass", PER_PORT, "PerPort"))
            .AddAttribute("ResumeOffsetBytes",
                          "XON once shared use + this <= the dynamic threshold (3 KiB).",
                          UintegerValue(3072),
                          MakeUintegerAccessor(&FabricSwitchBuffer::m_resumeOffset),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Alpha",
                          "alpha_DT of the dynamic threshold T = alpha x free shared buffer.",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&FabricSwitchBuffer::m_alpha),
                          MakeDoubleChecker<double>(0.0));
    return tid;
}

FabricSwitchBuffer::FabricSwitchBuffer() = default;
FabricSwitchBuffer::~FabricSwitchBuffer() = default;

void
FabricSwitchBuffer::AddPort(uint32_t port, PortMode mode, uint64_t headroomBytes,
                            uint8_t losslessMask)
{
    NS_LOG_FUNCTION(this << port << mode << headroomBytes << unsigned(losslessMask));
    if (port != m_ports.size())
    {
        throw std::invalid_argument("port: expected ports added in order 0, 1, ...");
    }
    Port p;
    p.mode = mode;
    p.losslessMask = losslessMask;
    p.headroom = mode == LOSSLESS ? headroomBytes : 0;
    m_ports.push_back(p);
    m_sumHeadroom += p.headroom;
    if (mode != CREDIT)
    {
        ++m_reservedPorts;
    }
}

void
FabricSwitchBuffer::SetHeadroomBytes(uint32_t port, uint64_t bytes)
{
    NS_LOG_FUNCTION(this << port << bytes);
    Port& p = m_ports.at(port);
    if (p.mode != LOSSLESS)
    {
        return;
    }
    m_sumHeadroom = m_sumHeadroom - p.headroom + bytes;
    p.headroom = bytes;
}

uint64_t
FabricSwitchBuffer::GetTotalReserveBytes() const
{
    // Summed here, not at AddPort, so ReserveBytes may change later.
    const uint64_t perPort = m_reserveAccounting == PER_PORT ? 1 : kFabricClasses;
    return uint64_t(m_reservedPorts) * perPort * m_reserve;
}

uint64_t
FabricSwitchBuffer::GetThreshold() const
{
    uint64_t fixed = m_sumHeadroom + GetTotalReserveBytes() + m_sharedUsed;
    if (fixed >= m_bufferBytes)
    {
        return 0;
    }
    return uint64_t(m_alpha * double(m_bufferBytes - fixed));
}

uint64_t
FabricSwitchBuffer::GetUsed(uint32_t port, uint8_t cls) const
{
    const Port& p = m_ports[port];
    return p.use[cls].reserveUsed + p.use[cls].sharedUsed + p.use[cls].headroomUsed;
}

bool
FabricSwitchBuffer::Admit(uint32_t port, uint8_t cls, uint32_t bytes)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << port << unsigned(cls) << bytes);
    Port& p = m_ports[port];
    if (p.mode == CREDIT)
    {
        // Dedicated space: the credit the sender was granted.
        p.use[cls].reserveUsed += bytes;
        m_totalUsed += bytes;
        return true;
    }
    uint64_t toReserve = 0;
    const uint64_t reserveUsed =
        m_reserveAccounting == PER_PORT ? p.reserveTotal : p.use[cls].reserveUsed;
    if (reserveUsed < m_reserve)
    {
        toReserve = std::min<uint64_t>(bytes, m_reserve - reserveUsed);
    }
    uint64_t rest = bytes - toReserve;
    uint64_t toShared = 0;
    uint64_t toHeadroom = 0;
    if (rest > 0)
    {
        if (p.use[cls].headroomUsed == 0 && p.use[cls].sharedUsed + rest <= GetThreshold())
        {
            toShared = rest;
        }
        else if (p.mode == LOSSLESS && ((p.losslessMask >> cls) & 1u) &&
                 p.headroomTotal + rest <= p.headroom)
        {
            toHeadroom = rest;
        }
        else
        {
            ++m_drops;
            return false;
        }
    }
    p.use[cls].reserveUsed += toReserve;
    p.reserveTotal += toReserve;
    p.use[cls].sharedUsed += toShared;
    p.use[cls].headroomUsed += toHeadroom;
    p.headroomTotal += toHeadroom;
    m_sharedUsed += toShared;
    m_totalUsed += bytes;
    return true;
}

void
FabricSwitchBuffer::Release(uint32_t port, uint8_t cls, uint32_t bytes)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << port << unsigned(cls) << bytes);
    Port& p = m_ports[port];
    m_totalUsed -= bytes;
    if (p.mode == CREDIT)
    {
        p.use[cls].reserveUsed -= bytes;
        return;
    }
    uint64_t left = bytes;
    uint64_t h = std::min<uint64_t>(left, p.use[cls].headroomUsed);
    p.use[cls].headroomUsed -= h;
    p.headroomTotal -= h;
    left -= h;
    uint64_t s = std::min<uint64_t>(left, p.use[cls].sharedUsed);
    p.use[cls].sharedUsed -= s;
    m_sharedUsed -= s;
    left -= s;
    const uint64_t r = std::min<uint64_t>(left, p.use[cls].reserveUsed);
    p.use[cls].reserveUsed -= r;
    p.reserveTotal -= r;
}

bool
FabricSwitchBuffer::IsLossless(uint32_t port, uint8_t cls) const
{
    const Port& p = m_ports[port];
    return p.mode == LOSSLESS && ((p.losslessMask >> cls) & 1u);
}

bool
FabricSwitchBuffer::IsXoffCondition(uint32_t port, uint8_t cls) const
{
    const ClassUse& u = m_ports[port].use[cls];
    if (!IsLossless(port, cls))
    {
        return false;
    }
    return u.headroomUsed > 0 || (u.sharedUsed > 0 && u.sharedUsed >= GetThreshold());
}

bool
FabricSwitchBuffer::IsXonCondition(uint32_t port, uint8_t cls) const
{
    const ClassUse& u = m_ports[port].use[cls];
    if (u.headroomUsed > 0)
    {
        return false;
    }
    return u.sharedUsed == 0 || u.sharedUsed + m_resumeOffset <= GetThreshold();
}

} // namespace ns3
