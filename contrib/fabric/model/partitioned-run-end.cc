// SPDX-License-Identifier: GPL-2.0-only
#include "partitioned-run-end.h"
#include "fast-simulator-impl.h"

#include "fabric-channel.h"
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
    m_last = std::max(m_last, hotsim::Now());
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
    const int64_t t = hotsim::Now().GetTimeStep();
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        if (r == MpiInterface::GetSystemId())
        {
            continue;
        }
        Ptr<Packet> p = Create<Packet>(reinterpret_cast<const uint8_t*>(&t), sizeof(t));
        Ptr<NetDevice> to = m_devices[r * m_ranks + MpiInterface::GetSystemId()];
        FabricRemoteChannel::SendMessage(p, hotsim::Now() + m_delay, m_nodes[r]->GetId(), to->GetIfIndex());
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
    if (at < hotsim::Now())
    {
        throw std::logic_error("PartitionedRunEnd::StopAt: expected a time not before now (" +
                               std::to_string(hotsim::Now().GetPicoSeconds()) + " ps), got " +
                               std::to_string(at.GetPicoSeconds()) + " ps");
    }
    SchedulerTieKey first(SchedulerTieKey::kReservedMajor, 0);
    hotsim::Schedule(at - hotsim::Now(), &StopNow);
}

std::vector<uint64_t>
PartitionedRunEnd::EncodePlace(const EventPlace* place)
{
    std::vector<uint64_t> out{0};
    for (const EventPlace* p = place; p; p = p->parent.get())
    {
        ++out[0];
        out.push_back(p->ts);
        out.push_back(p->tie);
    }
    return out;
}

std::shared_ptr<const EventPlace>
PartitionedRunEnd::DecodePlace(const std::vector<uint64_t>& v, size_t& at)
{
    const uint64_t n = v.at(at++);
    const size_t first = at;
    at += 2 * n;
    std::shared_ptr<const EventPlace> place;
    for (uint64_t k = n; k-- > 0;)
    {
        place = std::make_shared<const EventPlace>(EventPlace{v.at(first + 2 * k), v.at(first + 2 * k + 1), place});
    }
    return place;
}

namespace
{
/// The chain's event at \p k: the next one down, or (k = 0) the stop.
void
PlaceStep(std::shared_ptr<const std::vector<uint64_t>> times, size_t k)
{
    if (k == 0)
    {
        Simulator::Stop();
        return;
    }
    hotsim::Schedule(TimeStep(static_cast<int64_t>((*times)[k - 1])) - hotsim::Now(), &PlaceStep, times,
                        k - 1);
}
} // namespace

uint64_t
PartitionedRunEnd::StopAfterPlace(const std::shared_ptr<const EventPlace>& place, uint64_t channelShift)
{
    // From the place outward to its keyed ancestor: that one is placed by
    // its key alone, each unkeyed one below by the event it was scheduled
    // from (events of one time run keyed ones first, then in the order
    // they were scheduled: EventPlace).
    auto times = std::make_shared<std::vector<uint64_t>>();
    const EventPlace* root = nullptr;
    for (const EventPlace* p = place.get(); p; p = p->parent.get())
    {
        times->push_back(p->ts);
        root = p;
        if (p->tie != KeyedEvent::kNoKey)
        {
            break;
        }
    }
    if (!root || root->tie == KeyedEvent::kNoKey)
    {
        throw std::runtime_error("PartitionedRunEnd::StopAfterPlace: the last delivery's event descends from one "
                                 "scheduled before the run, whose place among another rank's events is not known");
    }
    uint64_t major = root->tie >> SchedulerTieKey::kMinorBits;
    if (major >= SchedulerTieKey::kFirstMajor)
    {
        major += 2 * channelShift; // a link's (FabricChannel::TieMajor)
    }
    const uint64_t minor = root->tie & (SchedulerTieKey::kMinorLimit - 1);
    SchedulerTieKey key(major, minor);
    hotsim::Schedule(TimeStep(static_cast<int64_t>(root->ts)) - hotsim::Now(), &PlaceStep,
                        std::shared_ptr<const std::vector<uint64_t>>(times), times->size() - 1);
    return times->size();
}

uint64_t
PartitionedRunEnd::GetOwnEvents() const
{
    // The receipts, the announcement, this rank's node's and devices' initialization
    // (the other ranks' nodes are FabricRemoteChannel::GetMpiOnlyEvents').
    return m_ranks > 1 ? (m_ranks - 1) + 1 + (m_ranks - 1) + 1 : 0;
}

} // namespace ns3
