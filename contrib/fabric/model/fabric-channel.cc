// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-channel.h"

#include "fabric-log.h"
#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the link (each direction).",
                                          TimeValue(NanoSeconds(1000)),
                                          MakeTimeAccessor(&FabricChannel::m_delay),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

FabricChannel::FabricChannel() = default;
FabricChannel::~FabricChannel() = default;

void
FabricChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_dev[0] = nullptr;
    m_dev[1] = nullptr;
    Channel::DoDispose();
}

bool
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    for (auto& d : m_dev)
    {
        if (!d)
        {
            d = device;
            return true;
        }
    }
    return false;
}

Ptr<FabricNetDevice>
FabricChannel::GetPeer(const FabricNetDevice* device) const
{
    if (PeekPointer(m_dev[0]) == device)
    {
        return m_dev[1];
    }
    if (PeekPointer(m_dev[1]) == device)
    {
        return m_dev[0];
    }
    return nullptr;
}

void
FabricChannel::Transmit(Ptr<Packet> packet, const FabricHeader& header, const FabricNetDevice* src,
                        Time txTime, Time headerTime)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << packet << src << txTime);
    FabricNetDevice* peer = PeekPointer(m_dev[PeekPointer(m_dev[0]) == src ? 1 : 0]);
    Time rxEnd = Simulator::Now() + m_delay + txTime;
    Time at = m_delay + (peer->IsCutThrough() ? headerTime : txTime);
    Simulator::ScheduleWithContext(peer->GetNode()->GetId(), at, &FabricChannel::Deliver, this, peer,
                                   packet, header, rxEnd, Token());
}

void
FabricChannel::Deliver(FabricNetDevice* peer, Ptr<Packet> packet, FabricHeader header, Time rxEnd,
                       uint64_t token)
{
    if (token == m_downs)
    {
        peer->Receive(packet, header, rxEnd);
        return;
    }
    // Sent while up and lost on the way (charged to the peer's credit), or
    // sent onto the dead link.
    peer->LoseOnLink(packet, header, token != kLost);
}

void
FabricChannel::DeliverControl(FabricNetDevice* peer, FabricControlFrame frame, uint64_t token)
{
    if (token == m_downs)
    {
        peer->ReceiveControl(frame);
    }
}

void
FabricChannel::SetLinkUp(bool up)
{
    NS_LOG_FUNCTION(this << up);
    if (up == m_up)
    {
        return;
    }
    m_up = up;
    if (!up)
    {
        ++m_downs; // whatever is on the wire now is lost
    }
    for (auto& d : m_dev)
    {
        if (d)
        {
            d->NotifyLinkState(up);
        }
    }
}

void
FabricChannel::TransmitControl(const FabricControlFrame& frame, const FabricNetDevice* src, Time txTime)
{
    HOCKNEY_HOT_LOG_FUNCTION(this << unsigned(frame.kind) << src << txTime);
    FabricNetDevice* peer = PeekPointer(m_dev[PeekPointer(m_dev[0]) == src ? 1 : 0]);
    Simulator::ScheduleWithContext(peer->GetNode()->GetId(), m_delay + txTime,
                                   &FabricChannel::DeliverControl, this, peer, frame, Token());
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_dev[1] ? 2 : (m_dev[0] ? 1 : 0);
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return i < 2 ? m_dev[i] : nullptr;
}

} // namespace ns3
