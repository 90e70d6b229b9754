// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-helper.h"

#include "attribute-defaults.h"
#include "credit-flow-control.h"
#include "ecn-marker.h"
#include "fabric-pcap-helper.h"
#include "fabric-remote-channel.h"
#include "pfc-flow-control.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricHelper");

Ptr<FabricSwitch>
FabricHelper::CreateSwitch() const
{
    return CreateObject<FabricSwitch>();
}

Ptr<FabricSwitch>
FabricHelper::CreateSwitch(Time forwardingLatency, bool cutThrough, uint32_t systemId) const
{
    NS_LOG_FUNCTION(this << forwardingLatency << cutThrough << systemId);
    Ptr<FabricSwitch> sw = CreateObject<FabricSwitch>(systemId);
    sw->SetAttribute("ForwardingLatency", TimeValue(forwardingLatency));
    sw->SetAttribute("CutThrough", BooleanValue(cutThrough));
    return sw;
}

void
FabricHelper::ConfigureDevice(Ptr<FabricNetDevice> dev, const FabricLinkConfig& cfg)
{
    NS_LOG_FUNCTION(dev);
    if (cfg.rate.GetBitRate() == 0)
    {
        throw std::invalid_argument("rate: expected a data rate > 0");
    }
    if (cfg.mtu == 0)
    {
        throw std::invalid_argument("mtu: expected > 0 bytes");
    }
    // A link's rate, framing and MTU are its topology tier's, and the
    // analytic backends derive their parameters from the same tier: a
    // per-device default would make the packet fabric a different network
    // from the one the other rows describe, so it is refused, naming the
    // knob that changes the tier for every backend.
    RefuseUserAttribute("ns3::FabricNetDevice::DataRate",
                        "each link's rate is its topology tier's lane_rate x lanes, which every backend uses; "
                        "set lane_rate in a topology file's tiers instead");
    RefuseUserAttribute("ns3::FabricNetDevice::HeaderBytes",
                        "each link's framing is its topology tier's header_bytes, which every backend uses; "
                        "set fabric.header_bytes in a scenario or the tier's header_bytes instead");
    RefuseUserAttribute("ns3::FabricNetDevice::Mtu",
                        "each link's MTU is its topology tier's mtu_bytes, which every backend uses; "
                        "set fabric.mtu_bytes in a scenario or the tier's mtu_bytes instead");
    RefuseUserAttribute("ns3::FabricNetDevice::UnitLinkPackets",
                        "a port's largest unit is the network transfer unit's, which sizes the PFC headroom; "
                        "set --network-transfer-unit (fabric.network_transfer_unit_bytes) instead");
    dev->SetDataRate(cfg.rate);
    dev->SetHeaderBytes(cfg.headerBytes);
    dev->SetAttribute("MinWireBytes", UintegerValue(cfg.minWireBytes));
    dev->SetAttribute("ControlFrameBytes", UintegerValue(cfg.controlFrameBytes));
    dev->SetMtu(cfg.mtu);
    dev->SetAttribute("HeaderGranuleBytes", UintegerValue(cfg.headerGranuleBytes));
    if (cfg.maxPayloadBytes > cfg.mtu)
    {
        dev->SetMaxPayloadBytes(cfg.maxPayloadBytes);
    }
    dev->SetUnitLinkPackets(cfg.unitLinkPackets);
    dev->SetLinkType(cfg.linkType);
    ApplyUserAttributes(dev); // MinWireBytes, ControlFrameBytes, HeaderGranuleBytes, ...
    Ptr<FabricFlowControl> fc = CreateFabricFlowControl(cfg.flowControl);
    fc->SetParameters({cfg.creditBufferBytes, cfg.creditPiggyback, cfg.losslessClasses});
    ApplyUserAttributes(fc); // e.g. LosslessClasses, PeerBufferBytes: the user's value wins
    dev->SetFlowControl(fc);
}

FabricLink
FabricHelper::Connect(Ptr<Node> a, Ptr<Node> b, const FabricLinkConfig& cfg) const
{
    NS_LOG_FUNCTION(this << a << b);
    if (cfg.delay.IsStrictlyNegative())
    {
        throw std::invalid_argument("delay: expected a time >= 0");
    }
    FabricLink l;
    l.devA = CreateObject<FabricNetDevice>();
    l.devB = CreateObject<FabricNetDevice>();
    ConfigureDevice(l.devA, cfg);
    ConfigureDevice(l.devB, cfg);
    a->AddDevice(l.devA);
    b->AddDevice(l.devB);
#ifdef NS3_MPI
    // Ends owned by different MPI ranks: a link that crosses between them.
    if (a->GetSystemId() != b->GetSystemId())
    {
        l.channel = CreateObject<FabricRemoteChannel>();
    }
    else
#endif
    {
        l.channel = CreateObject<FabricChannel>();
    }
    l.channel->SetDelay(cfg.delay);
    l.devA->Attach(l.channel);
    l.devB->Attach(l.channel);
    auto join = [&cfg](Ptr<Node> n, Ptr<FabricNetDevice> d) {
        Ptr<FabricSwitch> sw = DynamicCast<FabricSwitch>(n);
        if (!sw)
        {
            return 0xFFFFFFFFu;
        }
        uint32_t port = sw->AddPort(d);
        ApplyUserAttributes(d); // AddPort gives the port the switch's CutThrough
        if (cfg.headroomBytes > 0)
        {
            sw->GetBuffer()->SetHeadroomBytes(port, cfg.headroomBytes);
        }
        if (!cfg.ecn)
        {
            d->SetEcnMarker(nullptr);
        }
        else if (d->GetEcnMarker() && cfg.ecnKminBytes > 0)
        {
            d->GetEcnMarker()->SetThresholds(cfg.ecnKminBytes, cfg.ecnKmaxBytes, cfg.ecnPmax);
        }
        return port;
    };
    l.portA = join(a, l.devA);
    l.portB = join(b, l.devB);
#ifdef NS3_MPI
    if (a->GetSystemId() != b->GetSystemId())
    {
        // Each end hears the other rank through its MpiReceiver.
        FabricRemoteChannel::InstallReceiver(l.devA);
        FabricRemoteChannel::InstallReceiver(l.devB);
    }
#endif
    return l;
}

void
FabricHelper::EnablePcap(const std::string& prefix, Ptr<FabricNetDevice> dev)
{
    FabricPcapHelper::EnablePcap(prefix, dev);
}

void
FabricHelper::EnablePcap(const std::string& prefix, const NodeContainer& nodes)
{
    FabricPcapHelper::EnablePcap(prefix, nodes);
}

} // namespace ns3
