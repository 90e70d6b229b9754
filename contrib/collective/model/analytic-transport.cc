// SPDX-License-Identifier: GPL-2.0-only
#include "analytic-transport.h"

#include "analytic-net-device.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyAnalyticTransport");
NS_OBJECT_ENSURE_REGISTERED(AnalyticTransport);

TypeId
AnalyticTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AnalyticTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("Collective")
                            .AddConstructor<AnalyticTransport>();
    return tid;
}

AnalyticTransport::AnalyticTransport()
    : m_policy(AnalyticChannel::NONE)
{
}

void
AnalyticTransport::DoDispose()
{
    m_channels.clear();
    m_nodes = NodeContainer();
    m_levelOf = nullptr;
    CollectiveTransport::DoDispose();
}

void
AnalyticTransport::Install(uint32_t ranks, Ptr<AnalyticModel> model, AnalyticChannel::ContentionPolicy policy)
{
    NodeContainer nodes;
    nodes.Create(ranks);
    Install(nodes, model, policy);
}

void
AnalyticTransport::Install(const NodeContainer& nodes, Ptr<AnalyticModel> model, AnalyticChannel::ContentionPolicy policy)
{
    m_nodes = nodes;
    m_policy = policy;
    m_channels.clear();
    AddLevel(model);
}

uint32_t
AnalyticTransport::AddLevel(Ptr<AnalyticModel> model)
{
    Ptr<AnalyticChannel> channel = CreateObject<AnalyticChannel>();
    channel->SetModel(model);
    channel->SetContentionPolicy(m_policy);
    channel->Install(m_nodes);
    m_channels.push_back(channel);
    return static_cast<uint32_t>(m_channels.size() - 1);
}

void
AnalyticTransport::SetLevelFunction(LevelFunction f)
{
    m_levelOf = std::move(f);
}

Ptr<AnalyticChannel>
AnalyticTransport::GetAnalyticChannel(uint32_t level) const
{
    return m_channels.at(level);
}

uint32_t
AnalyticTransport::GetLevelCount() const
{
    return static_cast<uint32_t>(m_channels.size());
}

NodeContainer
AnalyticTransport::GetNodes() const
{
    return m_nodes;
}

void
AnalyticTransport::Send(uint32_t src, uint32_t dst, uint64_t bytes, DeliveryCallback onDelivered)
{
    const uint32_t level = m_levelOf ? m_levelOf(src, dst) : 0;
    if (level >= m_channels.size())
    {
        throw std::logic_error("AnalyticTransport: level " + std::to_string(level) + " for " +
                               std::to_string(src) + "->" + std::to_string(dst) + " has no channel");
    }
    m_channels[level]->SendMessage(src, dst, bytes, [onDelivered](const AnalyticMessage&) { onDelivered(); });
}

uint32_t
AnalyticTransport::GetRanks() const
{
    return m_nodes.GetN();
}

std::string
AnalyticTransport::GetTransportName() const
{
    if (m_channels.empty())
    {
        return "analytic";
    }
    Ptr<AnalyticModel> model = m_channels[0]->GetModel();
    const char* policy = m_policy == AnalyticChannel::NONE ? "none"
                         : m_policy == AnalyticChannel::ENDPOINT ? "endpoint"
                                                                  : "shared";
    return "analytic(" + (model ? model->GetModelName() : std::string("?")) + "," + policy + ")";
}

} // namespace ns3
