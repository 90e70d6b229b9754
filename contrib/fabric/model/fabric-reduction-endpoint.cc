// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-reduction-endpoint.h"

#include "fabric-switch-reduction.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricReductionEndpoint");
NS_OBJECT_ENSURE_REGISTERED(FabricReductionEndpoint);

TypeId
FabricReductionEndpoint::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricReductionEndpoint")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricReductionEndpoint>()
                            .AddAttribute("Window",
                                          "Contribution packets kept queued at the port (enough to keep "
                                          "the link busy; more only costs memory).",
                                          UintegerValue(4),
                                          MakeUintegerAccessor(&FabricReductionEndpoint::m_window),
                                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

FabricReductionEndpoint::FabricReductionEndpoint() = default;
FabricReductionEndpoint::~FabricReductionEndpoint() = default;

void
FabricReductionEndpoint::DoDispose()
{
    m_port = nullptr;
    m_next = FabricNetDevice::FabricRxCallback();
    m_expect.clear();
    m_toSend.clear();
    Object::DoDispose();
}

void
FabricReductionEndpoint::Attach(Ptr<FabricNetDevice> port)
{
    m_port = port;
    m_next = port->GetFabricReceiveCallback();
    port->SetFabricReceiveCallback(MakeCallback(&FabricReductionEndpoint::Receive, this));
    port->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&FabricReductionEndpoint::TxBegin, this));
}

void
FabricReductionEndpoint::Contribute(uint32_t group, uint64_t bytes)
{
    if (!m_port)
    {
        throw std::logic_error("FabricReductionEndpoint::Contribute before Attach");
    }
    m_toSend.emplace_back(group, bytes);
    Pump();
}

void
FabricReductionEndpoint::ExpectSum(uint32_t group, uint64_t bytes, std::function<void()> done)
{
    Expectation& e = m_expect[group];
    e.bytes = bytes;
    e.done = std::move(done);
    if (e.received >= e.bytes) // arrived before it was expected
    {
        auto cb = std::move(e.done);
        m_expect.erase(group);
        cb();
    }
}

void
FabricReductionEndpoint::Pump()
{
    while (m_queued < m_window && !m_toSend.empty())
    {
        auto& [group, left] = m_toSend.front();
        const uint32_t size = static_cast<uint32_t>(std::min<uint64_t>(left, m_port->GetMtu()));
        FabricHeader h(m_port->GetFabricAddress(), FabricSwitchReduction::GroupAddress(group), group, 0);
        if (!m_port->SendFabric(Create<Packet>(size), h))
        {
            throw std::logic_error("FabricReductionEndpoint: the port refused a contribution packet");
        }
        ++m_queued;
        m_sent += size;
        left -= size;
        if (left == 0)
        {
            m_toSend.pop_front();
        }
    }
}

void
FabricReductionEndpoint::TxBegin(Ptr<const Packet> packet)
{
    FabricHeader h;
    packet->PeekHeader(h);
    if (FabricSwitchReduction::IsGroupAddress(h.GetDestination()) && h.GetSource() == m_port->GetFabricAddress())
    {
        --m_queued;
        Pump();
    }
}

void
FabricReductionEndpoint::Receive(Ptr<FabricNetDevice> dev, Ptr<Packet> packet, const FabricHeader& header)
{
    if (!FabricSwitchReduction::IsGroupAddress(header.GetSource()))
    {
        if (!m_next.IsNull())
        {
            m_next(dev, packet, header);
        }
        return;
    }
    const uint32_t bytes = packet->GetSize() - FabricHeader::kSerializedSize;
    m_received += bytes;
    const uint32_t group = header.GetSource() - kFabricGroupAddressBase;
    Expectation& e = m_expect[group];
    e.received += bytes;
    if (e.done && e.received >= e.bytes)
    {
        auto cb = std::move(e.done);
        m_expect.erase(group);
        cb();
    }
}

} // namespace ns3
