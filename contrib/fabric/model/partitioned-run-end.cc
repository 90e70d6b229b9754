// SPDX-License-Identifier: GPL-2.0-only
#include "partitioned-run-end.h"

#include "tie-keyed-events.h"

#include "ns3/log.h"
#include "ns3/boolean.h"
#include "ns3/simple-channel.h"
#include "ns3/simple-net-device.h"
#include "ns3/simulator.h"

#ifdef NS3_MPI
#include "fabric-remote-channel.h"

#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

#include <algorithm>
#include <cstring>
#include <stdexcept>

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
        // A node per rank, and between every two a point-to-point link of
        // the given delay: ns-3's null-message simulator exchanges messages
        // (and promises) only with the ranks it shares such a link with, so
        // a rank sharing no fabric link with another could neither reach nor
        // hear it (ns-3.37 crashes sending to such a rank). The links never
        // lower the lookahead: the delay is at least the partition's.
        m_ranks = MpiInterface::GetSize();
        const uint32_t self = MpiInterface::GetSystemId();
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            m_nodes.push_back(CreateObject<Node>(r));
        }
        m_devices.assign(m_ranks * m_ranks, nullptr);
        for (uint32_t a = 0; a < m_ranks; ++a)
        {
            for (uint32_t b = a + 1; b < m_ranks; ++b)
            {
                Ptr<SimpleChannel> channel = CreateObject<SimpleChannel>();
                channel->SetAttribute("Delay", TimeValue(delay));
                for (uint32_t end : {a, b})
                {
                    Ptr<SimpleNetDevice> dev = CreateObject<SimpleNetDevice>();
                    dev->SetAttribute("PointToPointMode", BooleanValue(true));
                    m_nodes[end]->AddDevice(dev);
                    dev->SetChannel(channel);
                    if (end == self)
                    {
                        Ptr<MpiReceiver> rx = CreateObject<MpiReceiver>();
                        rx->SetReceiveCallback(MakeCallback(&PartitionedRunEnd::Receive, this));
                        dev->AggregateObject(rx);
                    }
                    // Rank `end`'s device towards the other.
                    m_devices[end * m_ranks + (end == a ? b : a)] = dev;
                }
            }
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
        // Sent from an event of its own: a rank with nothing to do is done
        // in the executor's Start, before Simulator::Run, where ns-3's
        // null-message interface has no links to send on yet.
        Simulator::ScheduleNow(&PartitionedRunEnd::Announce, this);
    }
#endif
    Check();
}

void
PartitionedRunEnd::Announce()
{
#ifdef NS3_MPI
    const int64_t t = Simulator::Now().GetTimeStep();
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        if (r == MpiInterface::GetSystemId())
        {
            continue;
        }
        Ptr<Packet> p = Create<Packet>(reinterpret_cast<const uint8_t*>(&t), sizeof(t));
        Ptr<NetDevice> to = m_devices[r * m_ranks + MpiInterface::GetSystemId()];
        FabricRemoteChannel::SendMessage(p, Simulator::Now() + m_delay, m_nodes[r]->GetId(), to->GetIfIndex());
    }
#endif
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

namespace
{
void
StopNow()
{
    Simulator::Stop();
}
} // namespace

void
PartitionedRunEnd::StopAt(Time at)
{
    if (at < Simulator::Now())
    {
        throw std::logic_error("PartitionedRunEnd::StopAt: expected a time not before now (" +
                               std::to_string(Simulator::Now().GetPicoSeconds()) + " ps), got " +
                               std::to_string(at.GetPicoSeconds()) + " ps");
    }
    SchedulerTieKey first(SchedulerTieKey::kReservedMajor, 0);
    Simulator::Schedule(at - Simulator::Now(), &StopNow);
}

uint64_t
PartitionedRunEnd::GetOwnEvents() const
{
    // The receipts, the announcement, this rank's node's and devices' initialization
    // (the other ranks' nodes are FabricRemoteChannel::GetMpiOnlyEvents').
    return m_ranks > 1 ? (m_ranks - 1) + 1 + (m_ranks - 1) + 1 : 0;
}

} // namespace ns3
