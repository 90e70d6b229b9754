// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-remote-channel.h"
#include "fast-simulator-impl.h"

#ifdef NS3_MPI

#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricRemoteChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricCrossingHeader);
NS_OBJECT_ENSURE_REGISTERED(FabricRemoteChannel);

namespace
{
uint64_t g_receipts = 0; ///< FabricRemoteChannel::GetReceipts
uint64_t g_guards = 0;   ///< FabricRemoteChannel::SendMessage's empty events

void
Guard()
{
}
} // namespace

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
    return 1 + 8 + 8 + 8 + 8 + FabricHeader::kSerializedSize + 1 + 4 + 2 + 8 * kFabricClasses +
           ((what & kTransport) ? kTransportSize : 0);
}

void
FabricCrossingHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(what);
    i.WriteHtonU64(static_cast<uint64_t>(at.GetTimeStep()));
    i.WriteHtonU64(static_cast<uint64_t>(rxEnd.GetTimeStep()));
    i.WriteHtonU64(sequence);
    i.WriteHtonU64(token);
    header.Serialize(i);
    i.Next(FabricHeader::kSerializedSize);
    i.WriteU8(frame.kind);
    i.WriteHtonU32(frame.source);
    i.WriteHtonU16(frame.classEnable);
    for (uint64_t v : frame.values)
    {
        i.WriteHtonU64(v);
    }
    if (what & kTransport)
    {
        const FabricLinkTransport& t = header.GetLinkTransport();
        i.WriteHtonU32(t.destQp);
        i.WriteHtonU32(t.psn);
        i.WriteHtonU32(t.immediate);
        i.WriteHtonU16(t.pkey);
        i.WriteU8(t.opcode);
        i.WriteU8(t.bthFlags);
        i.WriteU8(t.ackFlags);
        i.WriteU8(t.syndrome);
        i.WriteU8(t.pad);
        i.WriteU8(0);
    }
}

uint32_t
FabricCrossingHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    what = i.ReadU8();
    at = TimeStep(static_cast<int64_t>(i.ReadNtohU64()));
    rxEnd = TimeStep(static_cast<int64_t>(i.ReadNtohU64()));
    sequence = i.ReadNtohU64();
    token = i.ReadNtohU64();
    header.Deserialize(i);
    i.Next(FabricHeader::kSerializedSize);
    frame.kind = static_cast<FabricHeader::Kind>(i.ReadU8());
    frame.source = i.ReadNtohU32();
    frame.classEnable = i.ReadNtohU16();
    for (uint64_t& v : frame.values)
    {
        v = i.ReadNtohU64();
    }
    if (what & kTransport)
    {
        FabricLinkTransport t;
        t.destQp = i.ReadNtohU32();
        t.psn = i.ReadNtohU32();
        t.immediate = i.ReadNtohU32();
        t.pkey = i.ReadNtohU16();
        t.opcode = i.ReadU8();
        t.bthFlags = i.ReadU8();
        t.ackFlags = i.ReadU8();
        t.syndrome = i.ReadU8();
        t.pad = i.ReadU8();
        i.ReadU8();
        t.present = true;
        header.SetLinkTransport(t);
    }
    return i.GetDistanceFrom(start);
}

void
FabricCrossingHeader::Print(std::ostream& os) const
{
    os << "what=" << unsigned(what) << " at=" << at << " rxEnd=" << rxEnd << " seq=" << sequence << " ";
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

uint64_t
FabricRemoteChannel::GetReceipts()
{
    return g_receipts;
}

uint64_t
FabricRemoteChannel::GetMessageEvents()
{
    return g_receipts + g_guards;
}

uint64_t
FabricRemoteChannel::GetMpiOnlyEvents()
{
    uint64_t n = GetMessageEvents();
    for (uint32_t v = 0; v < NodeList::GetNNodes(); ++v)
    {
        Ptr<Node> node = NodeList::GetNode(v);
        if (node->GetSystemId() != MpiInterface::GetSystemId())
        {
            n += 1 + node->GetNDevices();
        }
    }
    return n;
}

void
FabricRemoteChannel::Transmit(Ptr<Packet> packet, const FabricHeaderFields& header, const FabricNetDevice* src,
                              Time txTime, Time headerTime, Time now, const FabricControlFrame* ride)
{
    FabricNetDevice* peer = PeekPointer(GetPeer(src));
    if (IsLocal(peer))
    {
        FabricChannel::Transmit(packet, header, src, txTime, headerTime, now, ride);
        return;
    }
    // As FabricChannel::Transmit: the packet at its header (cut-through
    // receiver), its first link packet (a unit at a pipelining port) or its
    // last bit, a riding frame with the last bit.
    const uint32_t dir = Direction(src);
    FabricCrossingHeader c;
    c.what = FabricCrossingHeader::kPacket;
    c.at = now + GetDelay() + (peer->ReceivesBeforeLastBit(header) ? headerTime : txTime);
    c.rxEnd = now + GetDelay() + txTime;
    c.sequence = NextSequence(dir);
    c.token = Token(); // the link as the packet leaves, as FabricChannel::Transmit
    c.header = FabricHeader(header);
    if (header.HasLinkTransport())
    {
        c.what |= FabricCrossingHeader::kTransport;
    }
    if (ride)
    {
        c.what |= FabricCrossingHeader::kFrame;
        c.frame = *ride;
    }
    // The sender may keep its packet (retransmission): the crossing is a copy.
    Send(peer, packet->Copy(), c);
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
    c.at = hotsim::Now() + GetDelay() + txTime;
    c.rxEnd = c.at;
    c.sequence = NextSequence(Direction(src));
    c.token = Token();
    c.frame = frame;
    Send(peer, Create<Packet>(), c);
}

void
FabricRemoteChannel::Send(FabricNetDevice* peer, Ptr<Packet> packet, const FabricCrossingHeader& crossing)
{
    // Due one step early (see the header); the lookahead, Delay, holds if
    // what crosses takes at least one step to serialize.
    const Time due = crossing.at - TimeStep(1);
    NS_ABORT_MSG_IF(due < hotsim::Now() + GetDelay(),
                    "FabricRemoteChannel: a crossing with no serialization time (due "
                        << crossing.at << ", sent " << hotsim::Now() << ", delay " << GetDelay() << ")");
    packet->AddHeader(crossing);
    SendMessage(packet, due, peer->GetNode()->GetId(), peer->GetIfIndex());
}

void
FabricRemoteChannel::SendMessage(Ptr<Packet> packet, Time due, uint32_t node, uint32_t dev)
{
    // (The simulator is chosen once per process before the run: the same
    // answer for every message of a run.)
    static const TypeId nullMessages = TypeId::LookupByName("ns3::NullMessageSimulatorImpl");
    if (Simulator::GetImplementation()->GetInstanceTypeId() == nullMessages)
    {
        ++g_guards;
        hotsim::Schedule(Time(0), &Guard);
    }
    MpiInterface::SendPacket(packet, due, node, dev);
}

void
FabricRemoteChannel::Arrive(FabricNetDevice* device, Ptr<Packet> packet)
{
    ++g_receipts;
    FabricCrossingHeader c;
    packet->RemoveHeader(c);
    auto* channel = static_cast<FabricRemoteChannel*>(PeekPointer(device->GetChannel()));
    channel->Schedule(device, packet, c);
}

void
FabricRemoteChannel::Schedule(FabricNetDevice* device, Ptr<Packet> packet, const FabricCrossingHeader& c)
{
    // The direction the far end sent in: towards device.
    const uint32_t dir = 1 - Direction(device);
    if (c.what & FabricCrossingHeader::kPacket)
    {
        ScheduleArrival(device, dir, c.sequence, std::move(packet), c.header, c.at, c.rxEnd,
                        (c.what & FabricCrossingHeader::kFrame) ? &c.frame : nullptr, c.token,
                        hotsim::Now());
    }
    else
    {
        ScheduleControlArrival(device, dir, c.sequence, c.frame, c.at, c.token);
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
