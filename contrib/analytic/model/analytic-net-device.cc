// SPDX-License-Identifier: GPL-2.0-only
#include "analytic-net-device.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyAnalyticNetDevice");
NS_OBJECT_ENSURE_REGISTERED(AnalyticNetDevice);

TypeId
AnalyticNetDevice::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AnalyticNetDevice")
                            .SetParent<NetDevice>()
                            .SetGroupName("Analytic")
                            .AddConstructor<AnalyticNetDevice>()
                            .AddAttribute("Mtu",
                                          "Reported MTU in bytes; messages are priced whole, not segmented.",
                                          UintegerValue(65535),
                                          MakeUintegerAccessor(&AnalyticNetDevice::SetMtu,
                                                               &AnalyticNetDevice::GetMtu),
                                          MakeUintegerChecker<uint16_t>());
    return tid;
}

AnalyticNetDevice::AnalyticNetDevice()
    : m_address(Mac48Address::Allocate()),
      m_ifIndex(0),
      m_channelIndex(0),
      m_mtu(65535)
{
}

void
AnalyticNetDevice::DoDispose()
{
    m_channel = nullptr;
    m_node = nullptr;
    m_rxCallback = MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    m_promiscCallback = MakeNullCallback<bool,
                                         Ptr<NetDevice>,
                                         Ptr<const Packet>,
                                         uint16_t,
                                         const Address&,
                                         const Address&,
                                         NetDevice::PacketType>();
    NetDevice::DoDispose();
}

void
AnalyticNetDevice::Attach(Ptr<AnalyticChannel> channel)
{
    m_channel = channel;
    m_channelIndex = channel->Attach(this);
}

uint32_t
AnalyticNetDevice::GetChannelIndex() const
{
    return m_channelIndex;
}

uint64_t
AnalyticNetDevice::SendMessage(uint32_t dst, uint64_t bytes, AnalyticChannel::DeliveryCallback onDelivered)
{
    return m_channel->SendMessage(m_channelIndex, dst, bytes, std::move(onDelivered));
}

void
AnalyticNetDevice::Receive(const AnalyticMessage& message)
{
    if (!message.packet)
    {
        return;
    }
    const Address from = m_channel->GetAnalyticDevice(message.src)->GetAddress();
    if (!m_promiscCallback.IsNull())
    {
        m_promiscCallback(this, message.packet, message.protocol, from, m_address, NetDevice::PACKET_HOST);
    }
    if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, message.packet, message.protocol, from);
    }
}

void
AnalyticNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
AnalyticNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
AnalyticNetDevice::GetChannel() const
{
    return m_channel;
}

void
AnalyticNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
AnalyticNetDevice::GetAddress() const
{
    return m_address;
}

bool
AnalyticNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
AnalyticNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
AnalyticNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
AnalyticNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    // The link never changes state.
}

bool
AnalyticNetDevice::IsBroadcast() const
{
    return true;
}

Address
AnalyticNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
AnalyticNetDevice::IsMulticast() const
{
    return false;
}

Address
AnalyticNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
AnalyticNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
AnalyticNetDevice::IsBridge() const
{
    return false;
}

bool
AnalyticNetDevice::IsPointToPoint() const
{
    return m_channel && m_channel->GetNDevices() == 2;
}

bool
AnalyticNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    if (!m_channel)
    {
        return false;
    }
    if (Mac48Address::IsMatchingType(dest) && Mac48Address::ConvertFrom(dest).IsBroadcast())
    {
        for (uint32_t i = 0; i < m_channel->GetNDevices(); ++i)
        {
            if (i != m_channelIndex)
            {
                m_channel->SendMessage(m_channelIndex, i, packet->GetSize(), nullptr, packet->Copy(), protocolNumber);
            }
        }
        return true;
    }
    const int32_t dst = m_channel->FindDevice(dest);
    if (dst < 0)
    {
        return false;
    }
    m_channel->SendMessage(m_channelIndex, static_cast<uint32_t>(dst), packet->GetSize(), nullptr, packet, protocolNumber);
    return true;
}

bool
AnalyticNetDevice::SendFrom(Ptr<Packet> packet, const Address& source, const Address& dest, uint16_t protocolNumber)
{
    return false;
}

Ptr<Node>
AnalyticNetDevice::GetNode() const
{
    return m_node;
}

void
AnalyticNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
AnalyticNetDevice::NeedsArp() const
{
    return false;
}

void
AnalyticNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
AnalyticNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
AnalyticNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
