// SPDX-License-Identifier: GPL-2.0-only
//
// In-switch reduction and multicast (NVLink SHARP, "NVLS", of the third-
// generation NVSwitch): the engine a FabricSwitch hands the packets of a
// reduction group to. The members of a group send their contribution of a
// buffer as DATA packets addressed to the group (GroupAddress); the switch
// matches the k-th packet of every source (NVLink delivers in order on its
// one port, so position identifies the data), adds them in an accumulator
// slot and, once every source's k-th packet is in, sends the sum to every
// receiver: one copy per receiver port (multicast replication at the
// egress), addressed to the receiver, with the group address as source.
// This is the multimem.red / multimem.ld_reduce plus multimem.st semantics
// of NCCL's NVLS AllReduce reduced to what the links see: each member sends
// its n bytes up once and receives the n-byte sum down once.
//
// Timing: a contribution is absorbed by its ingress port's reduction unit at
// ReductionRate (0: at once), not before its last bit arrived; a slot's sum
// leaves ForwardingLatency (the switch's) + ReductionLatency after its last
// contribution was absorbed. Buffers: a contribution holds its ingress
// buffer (so its link's credits) until absorbed; absorbing the first
// contribution of a slot needs the slot's bytes free in the accumulator
// (ReductionBufferBytes), held until the last copy of the sum has started
// leaving. A full accumulator therefore back-pressures the senders through
// the ordinary credit loop.
//
// Conservation (CheckFabricConservation): contributions absorbed are
// consumed here (GetConsumedBytes), copies enqueued are produced here
// (GetReplicatedBytes), contributions waiting for the unit are held here
// (GetHeldBytes): injected + replicated == delivered + consumed + dropped +
// in flight.
#ifndef HOCKNEY_FABRIC_SWITCH_REDUCTION_H
#define HOCKNEY_FABRIC_SWITCH_REDUCTION_H

#include "fabric-header.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace ns3
{

class FabricSwitch;

/// Fabric addresses from here up (below kFabricNoAddress) name reduction
/// groups, not endpoints.
constexpr uint32_t kFabricGroupAddressBase = 0xF0000000u;
/// The ingress "port" of a multicast copy in a switch egress queue: its
/// departure goes to the reduction engine, not to an ingress buffer.
constexpr uint32_t kFabricReductionIngress = 0xFFFFFFFEu;

/// What a switch's reduction engine did (payload bytes).
struct FabricReductionCounters
{
    uint64_t contributions{0};     ///< contribution packets absorbed (each reduced exactly once)
    uint64_t consumedBytes{0};     ///< their payload
    uint64_t reductions{0};        ///< slots completed (sums produced)
    uint64_t copies{0};            ///< multicast copies enqueued at egress ports
    uint64_t replicatedBytes{0};   ///< their payload
    uint64_t heldBytes{0};         ///< payload of contributions waiting for their unit now
};

/// The ReductionRate of an NVSwitch port whose NVLink lanes run at \p laneRate:
/// one calibration per system, from NCCL's own NVLS bandwidth model
/// (src/graph/tuning.cc: NVLS bandwidth = bwIntra x nvlsEfficiency, and
/// algorithm bandwidth = that x N/(N+1) for its two-phase traffic), taken
/// at the 8 GPUs of a DGX: NVLink 4 (25 GB/s lanes, H100) 18 x 20.6 GB/s
/// x 0.85 x 8/9 = 280.2 GB/s; NVLink 5 (50 GB/s lanes, B200) 18 x 40.1
/// GB/s x 0.74 x 8/9 = 474.8 GB/s; other lane rates 0 (no limit). NCCL's
/// constants: validation/data/nccl_tuning_bw_constants.csv.
DataRate NvlsReductionRate(DataRate laneRate);

class FabricSwitchReduction : public Object
{
  public:
    static TypeId GetTypeId();
    FabricSwitchReduction();
    ~FabricSwitchReduction() override;

    /// The address of group \p group (< 2^28).
    static uint32_t GroupAddress(uint32_t group);
    /// True if \p address names a group.
    static bool IsGroupAddress(uint32_t address);

    /// Called by FabricSwitch::SetReduction.
    void SetSwitch(FabricSwitch* sw);

    /// Declares group \p group: its contributions come in on \p sourcePorts
    /// (switch port indices, one contributor each) and every sum goes out on
    /// \p receiverPorts to the endpoint addresses \p receiverAddresses, each
    /// \p bytes long in all (the control plane of a multicast object, set up
    /// before its first packet, as NCCL binds one at communicator set-up).
    /// Throws std::invalid_argument for an empty list, an unknown port, a
    /// group already declared and not finished, or mismatched lists.
    void AddGroup(uint32_t group,
                  const std::vector<uint32_t>& sourcePorts,
                  const std::vector<uint32_t>& receiverPorts,
                  const std::vector<uint32_t>& receiverAddresses,
                  uint64_t bytes);
    /// True while \p group is declared and not every copy of its sums has left.
    bool HasGroup(uint32_t group) const;

    /// A packet addressed to a group arrived on \p inPort (FabricSwitch::Receive).
    void Receive(uint32_t inPort, Ptr<Packet> packet, const FabricHeader& header, uint32_t inWireBytes,
                 Time rxEnd);
    /// A copy of slot \p slot started leaving (FabricSwitch::NotifyDequeued).
    void CopyDeparted(uint32_t slot);

    FabricReductionCounters GetCounters() const;

    /// Trace signature of Reduced: group, packet index in the group, payload bytes, sources reduced.
    using ReducedTracedCallback = void (*)(uint32_t group, uint32_t index, uint32_t bytes, uint32_t sources);

  protected:
    void DoDispose() override;

  private:
    struct Group
    {
        std::vector<uint32_t> sources;   ///< ports
        std::vector<uint32_t> receivers; ///< ports
        std::vector<uint32_t> addresses; ///< receivers' endpoint addresses
        uint64_t bytes{0};
        uint64_t bytesOut{0};            ///< sum bytes whose copies all left
        std::map<uint32_t, uint32_t> nextIndex; ///< per source port: its next packet's index
        std::map<uint32_t, uint32_t> slots;     ///< packet index -> slot id
    };

    struct Slot
    {
        uint32_t group{0};
        uint32_t index{0};
        uint32_t bytes{0};
        uint8_t cls{0};
        uint32_t absorbed{0};
        uint32_t copiesLeft{0};
    };

    struct Waiting
    {
        Ptr<Packet> packet;
        FabricHeader header;
        uint32_t inWireBytes;
        uint32_t index;
        Time rxEnd;
    };

    /// Starts the head of \p port's queue in its unit if the unit is free
    /// and the accumulator can take it.
    void TryAbsorb(uint32_t port);
    void Absorbed(uint32_t port);
    void Emit(uint32_t slot);
    uint32_t SlotFor(Group& g, uint32_t group, uint32_t index, uint32_t bytes, uint8_t cls, bool& created);

    FabricSwitch* m_switch{nullptr};
    Time m_latency;
    DataRate m_rate;
    uint64_t m_bufferBytes{0};
    uint64_t m_used{0};
    std::map<uint32_t, Group> m_groups;
    std::map<uint32_t, Slot> m_slots;
    uint32_t m_nextSlot{0};
    std::map<uint32_t, std::deque<Waiting>> m_queues; ///< per ingress port
    std::map<uint32_t, bool> m_busy;                  ///< per ingress port: its unit is absorbing
    FabricReductionCounters m_counters;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_reducedTrace;
};

} // namespace ns3

#endif
