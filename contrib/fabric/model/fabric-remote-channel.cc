// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-remote-channel.h"

#ifdef NS3_MPI

#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricRemoteChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricCrossingHeader);
NS_OBJECT_ENSURE_REGISTERED(FabricRemoteChannel);

TypeId
FabricCrossingHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricCrossingHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricCrossingHeader>();
    return tid;
}

TypeId
FabricCrossingHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricCrossingHeader::GetSerializedSize() const
{
    return 1 + 8 + FabricHeader::kSerializedSize + 1 + 4 + 2 + 8 * kFabricClasses;
}

void
FabricCrossingHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(what);
    i.WriteHtonU64(static_cast<uint64_t>(rxEnd.GetTimeStep()));
    header.Serialize(i);
    i.Next(FabricHeader::kSerializedSize);
    i.WriteU8(frame.kind);
    i.WriteHtonU32(frame.source);
    i.WriteHtonU16(frame.classEnable);
    for (uint64_t v : frame.values)
    {
        i.WriteHtonU64(v);
    }
}

uint32_t
FabricCrossingHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    what = i.ReadU8();
    rxEnd = TimeStep(static_cast<int64_t>(i.ReadNtohU64()));
    header.Deserialize(i);
    i.Next(FabricHeader::kSerializedSize);
    frame.kind = static_cast<FabricHeader::Kind>(i.ReadU8());
    frame.source = i.ReadNtohU32();
    frame.classEnable = i.ReadNtohU16();
    for (uint64_t& v : frame.values)
    {
        v = i.ReadNtohU64();
    }
    return i.GetDistanceFrom(start);
}

void
FabricCrossingHeader::Print(std::ostream& os) const
{
    os << "what=" << unsigned(what) << " rxEnd=" << rxEnd << " ";
    header.Print(os);
}

TypeId
FabricRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricRemoteChannel")
                            .SetParent<FabricChannel>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricRemoteChannel>();
    return tid;
}

bool
FabricRemoteChannel::IsLocal(const FabricNetDevice* device)
{
    return device->GetNode()->GetSystemId() == MpiInterface::GetSystemId();
}

void
FabricRemoteChannel::Transmit(Ptr<Packet> packet, const FabricHeader& header, const FabricNetDevice* src,
                              Time txTime, Time headerTime, const FabricControlFrame* ride)
{
    FabricNetDevice* peer = PeekPointer(GetPeer(src));
    if (IsLocal(peer))
    {
        FabricChannel::Transmit(packet, header, src, txTime, headerTime, ride);
        return;
    }
    // As FabricChannel::Transmit: the packet at its header (cut-through
    // receiver) or its last bit, a riding frame with the last bit.
    const bool cutThrough = peer->IsCutThrough();
    FabricCrossingHeader c;
    c.what = FabricCrossingHeader::kPacket;
    c.rxEnd = Simulator::Now() + GetDelay() + txTime;
    c.header = header;
    if (ride && !cutThrough)
    {
        c.what |= FabricCrossingHeader::kFrame;
        c.frame = *ride;
    }
    // The sender may keep its packet (retransmission): the crossing is a copy.
    Send(peer, packet->Copy(), c, GetDelay() + (cutThrough ? headerTime : txTime));
    if (ride && cutThrough)
    {
        TransmitControl(*ride, src, txTime);
    }
}

void
FabricRemoteChannel::TransmitControl(const FabricControlFrame& frame, const FabricNetDevice* src, Time txTime)
{
    FabricNetDevice* peer = PeekPointer(GetPeer(src));
    if (IsLocal(peer))
    {
        FabricChannel::TransmitControl(frame, src, txTime);
        return;
    }
    FabricCrossingHeader c;
    c.what = FabricCrossingHeader::kFrame;
    c.frame = frame;
    Send(peer, Create<Packet>(), c, GetDelay() + txTime);
}

void
FabricRemoteChannel::Send(FabricNetDevice* peer, Ptr<Packet> packet, const FabricCrossingHeader& crossing, Time at)
{
    packet->AddHeader(crossing);
    MpiInterface::SendPacket(packet, Simulator::Now() + at, peer->GetNode()->GetId(), peer->GetIfIndex());
}

void
FabricRemoteChannel::Arrive(FabricNetDevice* device, Ptr<Packet> packet)
{
    FabricCrossingHeader c;
    packet->RemoveHeader(c);
    if ((c.what & FabricCrossingHeader::kPacket) && (c.what & FabricCrossingHeader::kFrame))
    {
        device->ReceiveWithControl(packet, c.header, c.rxEnd, c.frame);
    }
    else if (c.what & FabricCrossingHeader::kPacket)
    {
        device->Receive(packet, c.header, c.rxEnd);
    }
    else
    {
        device->ReceiveControl(c.frame);
    }
}

void
FabricRemoteChannel::InstallReceiver(Ptr<FabricNetDevice> device)
{
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    receiver->SetReceiveCallback(MakeBoundCallback(&FabricRemoteChannel::Arrive, PeekPointer(device)));
    device->AggregateObject(receiver);
}

} // namespace ns3

#endif // NS3_MPI
