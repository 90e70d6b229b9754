// SPDX-License-Identifier: GPL-2.0-only
#include "collective-transport.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(Transport);

TypeId
Transport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HockneyTransport").SetParent<Object>().SetGroupName("Collective");
    return tid;
}

Transport::~Transport() = default;

} // namespace ns3
