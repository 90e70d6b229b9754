// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-dma-engine.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

void
RdmaDmaEngine::SetPcieRate(DataRate r)
{
    if (r.GetBitRate() == 0)
    {
        throw std::invalid_argument("RdmaNic::PcieRate: expected a rate > 0, got 0");
    }
    m_pcieRate = r;
    m_lastBytes = ~uint64_t(0);
}

void
RdmaDmaEngine::SetMemoryRate(DataRate r)
{
    if (r.GetBitRate() == 0)
    {
        throw std::invalid_argument("RdmaNic::MemoryRate: expected a rate > 0, got 0");
    }
    m_memoryRate = r;
    m_lastBytes = ~uint64_t(0);
}

void
RdmaDmaEngine::SetPcieLatency(Time t)
{
    if (t.IsStrictlyNegative())
    {
        throw std::invalid_argument("RdmaNic::PcieLatency: expected a time >= 0");
    }
    m_pcieLatency = t;
}

void
RdmaDmaEngine::SetEngineStartup(Time t)
{
    if (t.IsStrictlyNegative())
    {
        throw std::invalid_argument("RdmaNic::EngineStartup: expected a time >= 0");
    }
    m_engineStartup = t;
}

Time
RdmaDmaEngine::TransferTime(uint64_t bytes) const
{
    if (bytes == m_lastBytes)
    {
        return m_lastTime;
    }
    // Exact in picoseconds; CalculateBytesTxTime takes 32-bit sizes.
    m_lastTime = PicoSeconds(static_cast<int64_t>(
        std::llround(static_cast<double>(bytes) * 8e12 / Rate().GetBitRate())));
    m_lastBytes = bytes;
    return m_lastTime;
}

Time
RdmaDmaEngine::FetchWqe(Time now)
{
    // The WQE read is a DMA read whose data returns a round trip after the
    // request, in its slot on the link.
    Time doorbell = now + m_pcieLatency + m_engineStartup;
    Time slot = std::max(doorbell + 2 * m_pcieLatency, m_readFreeAt);
    m_readFreeAt = slot + TransferTime(m_wqeBytes);
    return m_readFreeAt;
}

Time
RdmaDmaEngine::Read(Time now, uint64_t bytes)
{
    Time slot = std::max(now + 2 * m_pcieLatency, m_readFreeAt);
    m_readFreeAt = slot + TransferTime(bytes);
    return m_readFreeAt;
}

Time
RdmaDmaEngine::Write(Time now, uint64_t bytes)
{
    m_writeFreeAt = std::max(now, m_writeFreeAt) + TransferTime(bytes);
    return m_writeFreeAt;
}

} // namespace ns3
