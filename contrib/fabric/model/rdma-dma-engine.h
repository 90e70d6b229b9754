// SPDX-License-Identifier: GPL-2.0-only
//
// The DMA engine of an RdmaNic on its own PCIe link: the doorbell and WQE
// fetch of a posted message, payload reads for transmission and posted
// writes of received payload. Reads (and WQE fetches) share the link's read
// direction in issue order, each returning a round trip after its request;
// writes share the other direction. The rate of a transfer is
// min(PcieRate, MemoryRate), so beta_eff = min(memory, PCIe, link) x eta
// comes out of a run. A plain class: the NIC calls it per packet.
#ifndef HOCKNEY_RDMA_DMA_ENGINE_H
#define HOCKNEY_RDMA_DMA_ENGINE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

class RdmaDmaEngine
{
  public:
    /// \throws std::invalid_argument naming the RdmaNic attribute for 0.
    void SetPcieRate(DataRate r);
    /// \throws std::invalid_argument naming the RdmaNic attribute for 0.
    void SetMemoryRate(DataRate r);
    /// \throws std::invalid_argument naming the RdmaNic attribute if negative.
    void SetPcieLatency(Time t);
    /// \throws std::invalid_argument naming the RdmaNic attribute if negative.
    void SetEngineStartup(Time t);
    void SetWqeBytes(uint32_t b) { m_wqeBytes = b; }

    DataRate GetPcieRate() const { return m_pcieRate; }
    DataRate GetMemoryRate() const { return m_memoryRate; }
    Time GetPcieLatency() const { return m_pcieLatency; }
    Time GetEngineStartup() const { return m_engineStartup; }
    uint32_t GetWqeBytes() const { return m_wqeBytes; }

    /// min(PcieRate, MemoryRate).
    DataRate Rate() const { return std::min(m_pcieRate, m_memoryRate); }
    /// Transfer time of `bytes` at Rate().
    Time TransferTime(uint64_t bytes) const;
    /// A message posted at `now`: doorbell (an MMIO write, one PCIe crossing)
    /// plus EngineStartup, then the WQE read. Returns when the WQE is in the NIC.
    Time FetchWqe(Time now);
    /// A payload read of `bytes` requested at `now`: when the data is in the NIC.
    Time Read(Time now, uint64_t bytes);
    /// A posted write of `bytes` received at `now`: when it is in memory.
    Time Write(Time now, uint64_t bytes);

  private:
    DataRate m_pcieRate;
    DataRate m_memoryRate;
    Time m_pcieLatency;
    Time m_engineStartup;
    uint32_t m_wqeBytes{64};
    Time m_readFreeAt;  ///< the read direction is busy until then
    Time m_writeFreeAt; ///< the write direction is busy until then
    /// The last TransferTime computed (bytes, time), at the rates set: a
    /// NIC's reads and writes are mostly of one segment size, so the
    /// division (a double, rounded) runs once per size, not per packet.
    /// ~0: none (the rates changed).
    mutable uint64_t m_lastBytes{~uint64_t(0)};
    mutable Time m_lastTime;
};

} // namespace ns3

#endif
