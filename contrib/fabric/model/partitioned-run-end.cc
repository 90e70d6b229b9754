// SPDX-License-Identifier: GPL-2.0-only
#include "partitioned-run-end.h"

#include "ns3/log.h"
#include "ns3/simple-net-device.h"
#include "ns3/simulator.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

#include <algorithm>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyPartitionedRunEnd");
NS_OBJECT_ENSURE_REGISTERED(PartitionedRunEnd);

TypeId
PartitionedRunEnd::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PartitionedRunEnd")
                            .SetParent<Object>()
                            .SetGroupName("Fabric")
                            .AddConstructor<PartitionedRunEnd>();
    return tid;
}

PartitionedRunEnd::PartitionedRunEnd() = default;

void
PartitionedRunEnd::DoDispose()
{
    m_atEnd = nullptr;
    m_nodes.clear();
    m_devices.clear();
    Object::DoDispose();
}

void
PartitionedRunEnd::Setup(Time delay, std::function<void(Time)> atEnd)
{
    m_delay = delay;
    m_atEnd = std::move(atEnd);
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled() && MpiInterface::GetSize() > 1)
    {
        m_ranks = MpiInterface::GetSize();
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            Ptr<Node> node = CreateObject<Node>(r);
            Ptr<SimpleNetDevice> dev = CreateObject<SimpleNetDevice>();
            node->AddDevice(dev);
            if (r == MpiInterface::GetSystemId())
            {
                Ptr<MpiReceiver> rx = CreateObject<MpiReceiver>();
                rx->SetReceiveCallback(MakeCallback(&PartitionedRunEnd::Receive, this));
                dev->AggregateObject(rx);
            }
            m_nodes.push_back(node);
            m_devices.push_back(dev);
        }
    }
#endif
}

void
PartitionedRunEnd::LocalDone()
{
    m_localDone = true;
    m_last = std::max(m_last, Simulator::Now());
#ifdef NS3_MPI
    if (m_ranks > 1)
    {
        const int64_t t = Simulator::Now().GetTimeStep();
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            if (r == MpiInterface::GetSystemId())
            {
                continue;
            }
            Ptr<Packet> p = Create<Packet>(reinterpret_cast<const uint8_t*>(&t), sizeof(t));
            MpiInterface::SendPacket(p, Simulator::Now() + m_delay, m_nodes[r]->GetId(), m_devices[r]->GetIfIndex());
        }
    }
#endif
    Check();
}

void
PartitionedRunEnd::Receive(Ptr<Packet> p)
{
    int64_t t = 0;
    p->CopyData(reinterpret_cast<uint8_t*>(&t), sizeof(t));
    m_last = std::max(m_last, TimeStep(t));
    ++m_heard;
    Check();
}

void
PartitionedRunEnd::Check()
{
    if (m_ended || !m_localDone || m_heard + 1 < m_ranks)
    {
        return;
    }
    m_ended = true;
    NS_LOG_INFO("every rank done, the last at " << m_last.As(Time::US));
    if (m_atEnd)
    {
        m_atEnd(m_last);
    }
}

Time
PartitionedRunEnd::GetEnd() const
{
    return m_ended ? m_last : Time(0);
}

uint64_t
PartitionedRunEnd::GetOwnEvents() const
{
    return m_ranks - 1;
}

} // namespace ns3
