// SPDX-License-Identifier: GPL-2.0-only
//
// A port on an AnalyticChannel. Send() hands the packet to the channel as a
// message of the packet's size to the device with the destination address (or
// to every other device for the broadcast address); the peer's receive callback
// gets it after the channel's model time. Messages are not segmented: the MTU
// attribute is reported, not enforced, because the algebra prices whole messages.
#ifndef HOCKNEY_ANALYTIC_NET_DEVICE_H
#define HOCKNEY_ANALYTIC_NET_DEVICE_H

#include "analytic-channel.h"

#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"

namespace ns3
{

class AnalyticNetDevice : public NetDevice
{
  public:
    static TypeId GetTypeId();
    AnalyticNetDevice();

    /// Joins \p channel (sets the channel index).
    void Attach(Ptr<AnalyticChannel> channel);
    /// The index on the channel (valid after Attach).
    uint32_t GetChannelIndex() const;
    /// Sends a message of \p bytes to the device of channel index \p dst, with no
    /// packet; returns the message id (see AnalyticChannel::SendMessage).
    uint64_t SendMessage(uint32_t dst, uint64_t bytes, AnalyticChannel::DeliveryCallback onDelivered = nullptr);

    /// Called by the channel at delivery, in this device's node context.
    void Receive(const AnalyticMessage& message);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override;
    /// True when the channel joins exactly two devices.
    bool IsPointToPoint() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet, const Address& source, const Address& dest, uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    Ptr<AnalyticChannel> m_channel;
    Ptr<Node> m_node;
    Mac48Address m_address;
    uint32_t m_ifIndex;
    uint32_t m_channelIndex;
    uint16_t m_mtu;
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;
};

} // namespace ns3

#endif
