// SPDX-License-Identifier: GPL-2.0-only
#include "collective-transport.h"

#include <stdexcept>
#include <string>

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

void
CollectiveTransport::Connect(uint32_t, uint32_t)
{
}

void
CollectiveTransport::SendTagged(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t, DeliveryCallback onDelivered)
{
    Send(src, dst, bytes, std::move(onDelivered));
}

void
CollectiveTransport::ExpectTagged(uint32_t src, uint32_t dst, uint32_t, DeliveryCallback)
{
    throw std::logic_error(GetTransportName() + " transport: a message " + std::to_string(src) + " -> " +
                           std::to_string(dst) + " from another MPI rank (one process only)");
}

void
CollectiveTransport::SendThroughSwitch(uint32_t src,
                                       uint32_t dst,
                                       uint64_t bytes,
                                       const SwitchGroup& group,
                                       DeliveryCallback onDelivered)
{
    m_switchGroups[group.id].waiting.push_back(std::move(onDelivered));
    const uint32_t id = group.id;
    const uint32_t ops = group.ops;
    // An op of a rank to itself (a reduce-scatter head's own copy) goes up
    // its link and comes down it; priced as a message to another member of
    // the group, the same alpha + bytes / beta on a channel without
    // contention (on the flow backend it loads that member's link once more).
    uint32_t to = dst;
    if (src == dst)
    {
        for (const std::vector<uint32_t>* v : {&group.receivers, &group.sources})
        {
            for (uint32_t r : *v)
            {
                if (r != src && to == dst)
                {
                    to = r;
                }
            }
        }
    }
    Send(src, to, bytes, [this, id, ops]() {
        PendingGroup& g = m_switchGroups[id];
        if (++g.arrived < ops)
        {
            return;
        }
        std::vector<DeliveryCallback> done = std::move(g.waiting);
        m_switchGroups.erase(id);
        for (const DeliveryCallback& cb : done)
        {
            cb();
        }
    });
}

} // namespace ns3
