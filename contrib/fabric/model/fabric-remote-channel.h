// SPDX-License-Identifier: GPL-2.0-only
//
// A fabric link whose two ends may live on different MPI ranks of ns-3's
// distributed simulator (DistributedSimulatorImpl or
// NullMessageSimulatorImpl; contrib/fabric/doc/fabric.md, "Past one machine:
// MPI"). Every rank builds the whole topology, each node with the system id
// (rank) that owns it; a packet or link-local frame whose receiving port is on
// this rank goes as on a FabricChannel, one whose receiving port is on another
// rank is serialised and handed to MpiInterface::SendPacket for the time it
// would have been delivered, and the MpiReceiver aggregated on the receiving
// port (InstallReceiver) delivers it there as FabricChannel would. The
// channel's Delay is the lookahead: every crossing arrives at least Delay
// after it left.
//
// What crosses: the packet (its bytes and tags, Packet::Serialize), the
// FabricHeader as the sender's port had it, the time its last bit arrives
// (cut-through receivers are handed it at its header), and a link-local frame
// (PFC pause, credit update) in its plain fields, alone or riding in the
// packet. Not supported across ranks: link faults (SetLinkUp) on the link.
//
// Built only with ns-3's mpi module (NS3_MPI).
#ifndef HOCKNEY_FABRIC_REMOTE_CHANNEL_H
#define HOCKNEY_FABRIC_REMOTE_CHANNEL_H

#ifdef NS3_MPI

#include "fabric-channel.h"

#include "ns3/header.h"

namespace ns3
{

class FabricNetDevice;

/**
 * \brief What a packet or frame carries across ranks besides its own bytes:
 * the FabricHeader, the last-bit time, the frame. Serialized layout (network
 * order): u8 what (bit 0 packet, bit 1 frame), u64 last-bit time in
 * simulator time steps, the FabricHeader (16 B), then the frame: u8 kind,
 * u32 source, u16 class-enable, 8 x u64 values.
 */
class FabricCrossingHeader : public Header
{
  public:
    static constexpr uint8_t kPacket = 1;
    static constexpr uint8_t kFrame = 2;
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t what{0};
    Time rxEnd;
    FabricHeader header;
    FabricControlFrame frame;
};

class FabricRemoteChannel : public FabricChannel
{
  public:
    static TypeId GetTypeId();

    void Transmit(Ptr<Packet> packet, const FabricHeader& header, const FabricNetDevice* src, Time txTime,
                  Time headerTime, const FabricControlFrame* ride = nullptr) override;
    void TransmitControl(const FabricControlFrame& frame, const FabricNetDevice* src, Time txTime) override;

    /// Aggregates the MpiReceiver that hands what other ranks send to
    /// \p device (a port on this rank whose peer is on another).
    static void InstallReceiver(Ptr<FabricNetDevice> device);
    /// True if \p device's node is this rank's (MpiInterface::GetSystemId).
    static bool IsLocal(const FabricNetDevice* device);

  private:
    /// Hands \p crossing (and the packet after it, if any) to \p peer on
    /// its rank at \p at from now.
    void Send(FabricNetDevice* peer, Ptr<Packet> packet, const FabricCrossingHeader& crossing, Time at);
    /// The MpiReceiver's callback: what a rank sent to \p device.
    static void Arrive(FabricNetDevice* device, Ptr<Packet> packet);
};

} // namespace ns3

#endif // NS3_MPI

#endif
