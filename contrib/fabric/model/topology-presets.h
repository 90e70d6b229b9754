// SPDX-License-Identifier: GPL-2.0-only
//
// Builders that turn a few parameters into a TopologyDescription (an NVSwitch
// domain, a two-tier leaf-spine, a three-tier k-ary fat tree, a rail-optimized
// GPU cluster with PCIe between each GPU and its NIC), the tier presets they use
// (NVLink 4/5, PCIe Gen5 x16, InfiniBand NDR, RoCEv2) as data with their sources,
// and named presets: dgx-h100, dgx-b200, rail-h100-<N>n, rail-b200-<N>n,
// roce-leafspine, fat-tree (k = 4) and fat-tree-k<K>. A preset name may carry
// options after a colon: "roce-leafspine:oversubscription=2,leaves=4",
// "dgx-h100:nvswitch-chips=4", "fat-tree:k=8".
//
// Sources: doc/fabric.md ("Sources (hardware figures, ...)") and
// validation/data/hardware_anchors.csv, which name the vendor pages and
// datasheets (NVLink 4: 18 links, 450 GB/s per direction per GPU, NVIDIA
// Hopper architecture page; NVLink 5: 900 GB/s; IB NDR 400 Gb/s, Quantum-2
// 64 x 400G ports, NVIDIA QM97X0 manual; PCIe Gen5 x16 63.0 GB/s raw per
// direction, PCI-SIG). Numbers not in those are marked "assumption" where they
// are set.
#ifndef HOCKNEY_TOPOLOGY_PRESETS_H
#define HOCKNEY_TOPOLOGY_PRESETS_H

#include "topology-description.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// Port MTU of the IB and RoCE tiers: the 4096 B RDMA data MTU plus the 32 B of
/// transport headers (BTH 12, RETH 16, ImmDt 4) that the RDMA NIC carries as
/// port payload (fabric-header.h counts the MTU after the FabricHeader).
constexpr uint32_t kRdmaPortMtuBytes = 4096 + 32;

/// NVLink tier ("nvlink"): generation 4 (H100, 25 GB/s per lane and direction)
/// or 5 (B200, 50 GB/s); credit flow control; NVSwitch cut-through.
TopologyTier NvLinkTier(int generation);
/// PCIe Gen5 lane tier ("pcie"): 32 GT/s with 128b/130b coding per lane; a x16
/// link is 63.0 GB/s per direction. Its forwarding nodes are the NICs.
TopologyTier PcieGen5Tier();
/// InfiniBand NDR 400 Gb/s tier (credit flow control, cut-through switches).
TopologyTier InfinibandNdrTier(const std::string& name);
/// RoCEv2 Ethernet tier at \p rate (PFC, store-and-forward switches).
TopologyTier RoceTier(const std::string& name, DataRate rate);

/// An NVSwitch domain of GPUs (DGX H100-like by default).
struct NvSwitchDomainParams
{
    uint32_t gpus = 8;
    /// NVLink lanes per GPU, split over the NVSwitch chips as chipLanes says.
    std::vector<uint32_t> chipLanes = {5, 4, 4, 5};
    /// false: one logical switch, each GPU one port of sum(chipLanes) lanes;
    /// true: one switch per chip, each GPU one link per chip (ECMP across chips).
    bool splitChips = false;
    uint32_t chipPorts = 64; ///< NVLink ports of one NVSwitch chip (third generation: 64)
    TopologyTier nvlink = NvLinkTier(4);
    std::string prefix;      ///< prepended to node names ("n0." in a cluster)
};

/// A two-tier leaf-spine of hosts. Each leaf has `hostsPerLeaf` host links and
/// U = hostsPerLeaf x host rate / (oversubscription x spine-link rate) uplinks
/// (U must come out whole), given to the spines round-robin.
struct LeafSpineParams
{
    uint32_t leaves = 4;
    uint32_t spines = 2;
    uint32_t hostsPerLeaf = 8;
    double oversubscription = 1.0; ///< leaf down capacity / up capacity
    uint32_t switchPorts = 64;
    TopologyTier leaf = RoceTier("leaf", DataRate("100Gbps"));
    TopologyTier spine = RoceTier("spine", DataRate("100Gbps"));
};

/// The three-tier k-ary fat tree of Al-Fares et al. (SIGCOMM 2008): k pods of
/// k/2 edge and k/2 aggregation switches, (k/2)^2 cores, k/2 hosts per edge,
/// k^3/4 hosts, every switch k ports.
struct FatTreeParams
{
    uint32_t k = 4;
    TopologyTier edge = RoceTier("edge", DataRate("100Gbps"));
    TopologyTier aggregation = RoceTier("aggregation", DataRate("100Gbps"));
    TopologyTier core = RoceTier("core", DataRate("100Gbps"));
};

/// A rail-optimized cluster: `nodes` servers of `gpusPerNode` GPUs behind an
/// NVSwitch domain each, one NIC per GPU (over a PCIe link, or inside the GPU
/// endpoint when pcie is false), NIC i of every server on rail leaf i, spines
/// above the rail leaves. When one leaf cannot hold every server with its
/// uplinks, the servers come in scalable units (NVIDIA DGX SuperPOD: 32
/// DGX H100 a unit at 1:1 on 64-port Quantum-2 switches), each with a leaf
/// per rail ("su<U>.rail<R>"; "rail<R>" for a single unit), every leaf wired
/// to every spine alike.
struct RailOptimizedParams
{
    uint32_t nodes = 2;
    /// Servers per scalable unit (one rail leaf each); 0: all in one unit if
    /// one leaf holds them with their uplinks, else the most that a leaf
    /// holds (32 at 1:1 with 64 ports, the SuperPOD's unit).
    uint32_t unitNodes = 0;
    uint32_t gpusPerNode = 8;
    NvSwitchDomainParams domain; ///< gpus is overridden by gpusPerNode
    bool pcie = true;
    TopologyTier pcieTier = PcieGen5Tier();
    uint32_t pcieLanes = 16;
    TopologyTier rail = InfinibandNdrTier("rail");
    TopologyTier spine = InfinibandNdrTier("spine");
    /// Spines; 0 picks the fewest (at least 2 when a leaf has 2 uplinks or more)
    /// that divide the uplinks evenly and fit switchPorts.
    uint32_t spines = 0;
    double oversubscription = 1.0; ///< rail-leaf down capacity / up capacity
    uint32_t switchPorts = 64;     ///< Quantum-2: 64 x 400G
};

TopologyDescription BuildNvSwitchDomain(const NvSwitchDomainParams& p);
TopologyDescription BuildLeafSpine(const LeafSpineParams& p);
TopologyDescription BuildFatTree(const FatTreeParams& p);
TopologyDescription BuildRailOptimized(const RailOptimizedParams& p);

/// A named preset, with optional ":key=value,..." options; throws InputError
/// naming "preset" (unknown name, bad N) or "preset.KEY" (bad option).
TopologyDescription MakePreset(const std::string& name);
/// The base preset names, for help texts and errors.
std::vector<std::string> PresetNames();

/// A scenario object: {"preset": "NAME"} or the explicit form of
/// TopologyDescriptionFromJson ({"tiers", "nodes", "links"}); does not validate
/// the explicit form (TopologyGraph does).
TopologyDescription TopologyFromScenarioJson(const nlohmann::json& j);
/// Reads a scenario file; throws InputError naming "scenario" if it cannot be
/// read or parsed.
TopologyDescription TopologyFromScenarioFile(const std::string& path);

} // namespace ns3

#endif
