// SPDX-License-Identifier: GPL-2.0-only
//
// Shared switch buffer with per-ingress-port x priority accounting, as
// Broadcom-style switches are simulated publicly (the HPCC simulator's
// switch-mmu.cc, github.com/alibaba-edu/High-Precision-Congestion-Control;
// doc/fabric.md, Sources). Each (port, class) first fills its private reserve
// (ReserveAccounting PerPortClass; PerPort: one reserve per ingress port that
// its classes share, so the pool loses one reserve per port, not eight), then
// the shared pool up to the dynamic threshold
//     T = alpha_DT x (B - sum headroom - sum reserve - shared used),
// then (lossless classes only) its port's headroom; a packet that fits none of
// them is dropped. The headroom is one pool per port: the headroom use of all
// classes of a port together never exceeds the port's headroom. XOFF is
// asserted once headroom is in use or the shared use of (port, class) reaches
// T (the switch also asserts it when a lossless packet over T is refused);
// XON once the class's headroom use is zero and shared use + resume offset
// <= T (or shared use is zero).
// Ports whose link runs credit flow control are admitted unconditionally:
// their space is the credit the peer was granted.
// All byte counts are on-wire bytes of the ingress link.
#ifndef HOCKNEY_SWITCH_BUFFER_H
#define HOCKNEY_SWITCH_BUFFER_H

#include "fabric-header.h"

#include "ns3/object.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

class FabricSwitchBuffer : public Object
{
  public:
    /// What one ReserveBytes reserve belongs to.
    enum ReserveAccounting
    {
        PER_PORT_CLASS, ///< every (ingress port, class): 8 reserves per port
        PER_PORT        ///< every ingress port, shared by its classes
    };

    /// How an ingress port is accounted.
    enum PortMode
    {
        LOSSY,    ///< reserve + shared, then drop
        LOSSLESS, ///< reserve + shared + headroom, XOFF/XON (PFC)
        CREDIT    ///< always admitted (credit-limited by the sender)
    };

    static TypeId GetTypeId();
    FabricSwitchBuffer();
    ~FabricSwitchBuffer() override;

    /// Registers ingress port `port` (ports are numbered 0, 1, ... in order).
    /// \param headroomBytes this port's headroom (one pool for all its classes)
    /// \param losslessMask classes that are lossless on a LOSSLESS port
    void AddPort(uint32_t port, PortMode mode, uint64_t headroomBytes, uint8_t losslessMask = 0xFF);
    uint32_t GetNPorts() const { return m_ports.size(); }
    /// How ingress port `port` is accounted (AddPort).
    PortMode GetPortMode(uint32_t port) const { return m_ports[port].mode; }

    /// Tries to admit `bytes` on (port, cls); false = drop.
    bool Admit(uint32_t port, uint8_t cls, uint32_t bytes);
    /// Returns `bytes` of (port, cls) to the pool (headroom first, then shared, then reserve).
    void Release(uint32_t port, uint8_t cls, uint32_t bytes);

    /// Current dynamic threshold T in bytes (0 when the pool is exhausted).
    uint64_t GetThreshold() const;
    /// XOFF condition for (port, cls), regardless of current pause state.
    bool IsXoffCondition(uint32_t port, uint8_t cls) const;
    /// True if (port, cls) is a lossless class of a LOSSLESS (PFC) port.
    bool IsLossless(uint32_t port, uint8_t cls) const;
    /// XON condition for (port, cls).
    bool IsXonCondition(uint32_t port, uint8_t cls) const;

    uint64_t GetBufferBytes() const { return m_bufferBytes; }
    uint64_t GetReserveBytes() const { return m_reserve; }
    /// Reserve bytes the pool sets aside in total (taken from B before T).
    uint64_t GetTotalReserveBytes() const;
    uint64_t GetResumeOffsetBytes() const { return m_resumeOffset; }
    double GetAlpha() const { return m_alpha; }
    uint64_t GetHeadroomBytes(uint32_t port) const { return m_ports[port].headroom; }
    void SetHeadroomBytes(uint32_t port, uint64_t bytes);
    /// Bytes held by (port, cls) in total and in each region.
    uint64_t GetUsed(uint32_t port, uint8_t cls) const;
    uint64_t GetSharedUsed(uint32_t port, uint8_t cls) const { return m_ports[port].use[cls].sharedUsed; }
    uint64_t GetHeadroomUsed(uint32_t port, uint8_t cls) const { return m_ports[port].use[cls].headroomUsed; }
    /// Headroom held by all classes of `port` together (<= GetHeadroomBytes(port)).
    uint64_t GetPortHeadroomUsed(uint32_t port) const { return m_ports[port].headroomTotal; }
    uint64_t GetTotalSharedUsed() const { return m_sharedUsed; }
    uint64_t GetTotalUsed() const { return m_totalUsed; }
    uint64_t GetDrops() const { return m_drops; }

  private:
    /// What one class of a port holds, in one place: a packet's admission
    /// and release read and write all three (on a large fabric the port's
    /// entry is a cache miss; per-class arrays made it four).
    struct ClassUse
    {
        uint64_t reserveUsed{0};  ///< bytes in the class's reserve
        uint64_t sharedUsed{0};   ///< bytes in the shared pool
        uint64_t headroomUsed{0}; ///< bytes in the PFC headroom (Port::headroom: its size)
    };
    struct Port
    {
        PortMode mode{LOSSY};
        uint8_t losslessMask{0xFF};
        uint64_t headroom{0};
        uint64_t headroomTotal{0}; ///< sum of use[].headroomUsed over the classes
        uint64_t reserveTotal{0};  ///< sum of use[].reserveUsed over the classes
        std::array<ClassUse, kFabricClasses> use{};
    };

    uint64_t m_bufferBytes{12000000};
    uint64_t m_reserve{4096};
    uint64_t m_resumeOffset{3072};
    double m_alpha{0.125};
    ReserveAccounting m_reserveAccounting{PER_PORT_CLASS};
    std::vector<Port> m_ports;
    uint64_t m_sumHeadroom{0};
    uint32_t m_reservedPorts{0}; ///< ports (not credit) holding reserves
    uint64_t m_sharedUsed{0};
    uint64_t m_totalUsed{0};
    uint64_t m_drops{0};
};

} // namespace ns3

#endif
