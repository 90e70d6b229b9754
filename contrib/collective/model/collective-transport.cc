// SPDX-License-Identifier: GPL-2.0-only
#include "collective-transport.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveTransport);

TypeId
CollectiveTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CollectiveTransport").SetParent<Object>().SetGroupName("Collective");
    return tid;
}

CollectiveTransport::~CollectiveTransport() = default;

} // namespace ns3
