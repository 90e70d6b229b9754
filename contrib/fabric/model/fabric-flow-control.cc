// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-flow-control.h"

#include "credit-flow-control.h"
#include "pfc-flow-control.h"
#include "switch-buffer.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyFabricFlowControl");

NS_OBJECT_ENSURE_REGISTERED(FabricFlowControl);

std::string
ToString(FabricFlowControlMode m)
{
    switch (m)
    {
    case FabricFlowControlMode::NONE:
        return "none";
    case FabricFlowControlMode::PFC:
        return "pfc";
    case FabricFlowControlMode::CREDIT:
        return "credit";
    }
    return "none";
}

FabricFlowControlMode
ParseFabricFlowControlMode(const std::string& s)
{
    if (s == "none")
    {
        return FabricFlowControlMode::NONE;
    }
    if (s == "pfc")
    {
        return FabricFlowControlMode::PFC;
    }
    if (s == "credit")
    {
        return FabricFlowControlMode::CREDIT;
    }
    throw std::invalid_argument("flow-control: expected none, pfc or credit, got '" + s + "'");
}

TypeId
FabricFlowControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricFlowControl")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricFlowControl>();
    return tid;
}

FabricFlowControl::~FabricFlowControl() = default;

void
FabricFlowControl::Attach(FabricNetDevice* device)
{
    NS_LOG_FUNCTION(this << device);
    m_device = device;
}

void
FabricFlowControl::AddSwitchIngress(FabricSwitchBuffer& buffer, uint32_t port,
                                    uint64_t headroomBytes) const
{
    NS_LOG_FUNCTION(this << port << headroomBytes);
    buffer.AddPort(port, FabricSwitchBuffer::LOSSY, headroomBytes, 0);
}

void
FabricFlowControl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_device = nullptr;
    Object::DoDispose();
}

Ptr<FabricFlowControl>
CreateFabricFlowControl(FabricFlowControlMode mode)
{
    switch (mode)
    {
    case FabricFlowControlMode::PFC:
        return CreateObject<FabricPfcFlowControl>();
    case FabricFlowControlMode::CREDIT:
        return CreateObject<FabricCreditFlowControl>();
    case FabricFlowControlMode::NONE:
        break;
    }
    return CreateObject<FabricFlowControl>();
}

} // namespace ns3
