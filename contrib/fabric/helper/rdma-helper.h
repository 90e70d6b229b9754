// SPDX-License-Identifier: GPL-2.0-only
//
// RDMA endpoints from named presets: the NIC (or NVLink transfer engine) of a
// port, its congestion control by name, and the per-rank messaging layer.
//
//   RdmaHelper rdma;
//   Ptr<RdmaNic> nic = rdma.Install(port, "cx7-ndr-ib");       // checks the port
//   Ptr<RdmaCongestionControl> cc = RdmaHelper::CreateCongestionControl(
//       "dcqcn:production", port->GetDataRate());
//   Ptr<RdmaMessenger> comm = CreateObject<RdmaMessenger>();
//   Ptr<RdmaEndpoint> ep = rdma.CreateEndpoint();  ep->AddNic(nic, domain);
//   comm->AddEndpoint(ep);  comm->Send(0, 1, bytes, callback);
#ifndef HOCKNEY_RDMA_HELPER_H
#define HOCKNEY_RDMA_HELPER_H

#include "dcqcn.h"
#include "rdma-endpoint.h"
#include "rdma-nic.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{

/// The NIC-side numbers of one preset, with their source.
struct RdmaNicPreset
{
    std::string name;
    DataRate lineRate;      ///< port rate the preset is for
    uint32_t mtu;           ///< RdmaNic::Mtu
    DataRate pcieRate;      ///< RdmaNic::PcieRate
    Time pcieLatency;       ///< RdmaNic::PcieLatency
    Time engineStartup;     ///< RdmaNic::EngineStartup
    bool headersInTag;      ///< RdmaNic::HeadersInTag
    uint32_t ackInterval;   ///< RdmaNic::AckInterval
    bool ackHighPriority;   ///< RdmaNic::AckHighPriority
    std::string congestion; ///< CreateCongestionControl spec
    std::string source;
};

class RdmaHelper
{
  public:
    /// cx7-ndr-ib, dgx-h100-nic, roce-100g, roce-400g, nvlink4.
    static std::vector<std::string> PresetNames();
    /// \throws std::invalid_argument naming the preset field for an unknown name.
    static RdmaNicPreset Preset(const std::string& name);

    /// A registered algorithm by name, optionally with a preset (RdmaCcRegistry:
    /// "none", "dcqcn" (= dcqcn:paper), "dcqcn:paper", "dcqcn:production",
    /// "dcqcn:connectx", and whatever else registered itself).
    /// \throws std::invalid_argument otherwise or for rate 0.
    static Ptr<RdmaCongestionControl> CreateCongestionControl(const std::string& spec,
                                                              DataRate lineRate);

    /**
     * A NIC with the preset's parameters (and its congestion control scaled
     * to the port's rate) attached to `port`. \throws std::invalid_argument if
     * the port's rate differs from the preset's, or its MTU is too small.
     */
    Ptr<RdmaNic> Install(Ptr<FabricNetDevice> port, const std::string& preset) const;

    /// Sets the preset's endpoint numbers on \p nic: PcieRate, PcieLatency,
    /// EngineStartup, AckInterval, AckHighPriority (Install and a compare
    /// scenario's fabric.nic both use it; the MTU and HeadersInTag are set by
    /// each, since compare derives them from the path as well).
    static void ApplyEndpointNumbers(const RdmaNicPreset& preset, Ptr<RdmaNic> nic);

    /// An endpoint with the default protocol attributes (RdmaEndpoint's TypeId).
    Ptr<RdmaEndpoint> CreateEndpoint() const;
};

} // namespace ns3

#endif
