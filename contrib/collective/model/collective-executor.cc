// SPDX-License-Identifier: GPL-2.0-only
#include "collective-executor.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/uinteger.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyCollectiveExecutor");
NS_OBJECT_ENSURE_REGISTERED(CollectiveExecutor);

namespace
{
/// The tag of leg \p leg (0, or 1: a PXN op's proxy -> dst) of op \p op:
/// what names a message to its receiver, whatever rank sent it.
uint32_t
Tag(uint32_t op, uint32_t leg)
{
    return op * 2 + leg;
}
} // namespace

TypeId
CollectiveExecutor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveExecutor")
            .SetParent<Object>()
            .SetGroupName("Collective")
            .AddConstructor<CollectiveExecutor>()
            .AddAttribute("CheckSchedule",
                          "Check the schedule (data reaches every rank that needs it, no cycle) before it runs.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CollectiveExecutor::m_check),
                          MakeBooleanChecker())
            .AddAttribute("TimeLimit",
                          "Run() gives up (and names the waiting ops) after this much simulated time; 0 = none.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&CollectiveExecutor::m_timeLimit),
                          MakeTimeChecker())
            .AddAttribute("Protocol",
                          "NCCL protocol of every message: its wire bytes (LL 2x, LL128 128/120, Simple 1x) "
                          "and, for Simple, one step latency per SimpleChunkBytes.",
                          EnumValue(static_cast<int>(NcclProtocol::SIMPLE)),
                          MakeEnumAccessor(&CollectiveExecutor::m_protocol),
                          MakeEnumChecker(static_cast<int>(NcclProtocol::SIMPLE), "simple",
                                          static_cast<int>(NcclProtocol::LL128), "ll128",
                                          static_cast<int>(NcclProtocol::LL), "ll"))
            .AddAttribute("LaunchOverhead",
                          "Delay before the collective's first messages: kernel launch plus NCCL's base latency.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&CollectiveExecutor::m_launchOverhead),
                          MakeTimeChecker())
            .AddAttribute("StepLatency",
                          "Sender's delay before each message inside a node (NCCL's hwLat over NVLink).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&CollectiveExecutor::m_stepLatency),
                          MakeTimeChecker())
            .AddAttribute("NetStepLatency",
                          "Sender's delay before each message across nodes (NCCL's hwLat over the network).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&CollectiveExecutor::m_netStepLatency),
                          MakeTimeChecker())
            .AddAttribute("GpusPerNode",
                          "Ranks per node (rank / GpusPerNode is the node) for NetStepLatency; 0 = one node.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveExecutor::m_gpusPerNode),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SimpleChunkBytes",
                          "Simple: bytes per synchronisation of a message (NCCL's 512 KiB step x the NCCL "
                          "channels one message stands for); 0 = one per message.",
                          UintegerValue(kNcclRingChannels * kNcclSimpleStepBytes),
                          MakeUintegerAccessor(&CollectiveExecutor::m_simpleChunkBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("LlCopyRate",
                          "LL: the sending GPU's data rate through the protocol (NCCL's llMaxBw, one Hopper "
                          "node: 141 GB/s); a message is delivered no earlier than its data is copied. 0 = no cap.",
                          DataRateValue(NcclCopyRate(NcclProtocol::LL)),
                          MakeDataRateAccessor(&CollectiveExecutor::m_llCopyRate),
                          MakeDataRateChecker())
            .AddAttribute("Ll128CopyRate",
                          "LL128: the sending GPU's data rate through the protocol (NCCL's perChMaxRingLL128Bw, "
                          "Hopper 36.7 GB/s, x 16 channels: 587.2 GB/s). 0 = no cap.",
                          DataRateValue(NcclCopyRate(NcclProtocol::LL128)),
                          MakeDataRateAccessor(&CollectiveExecutor::m_ll128CopyRate),
                          MakeDataRateChecker())
            .AddAttribute("NetStepsInFlight",
                          "Steps in flight on one network connection (a rank pair across nodes): the next "
                          "message across it waits for the delivery of the one this many before it, then its "
                          "NetStepLatency; 0 = no limit (the latency overlaps the NIC's queue).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&CollectiveExecutor::m_netStepsInFlight),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("NetSlots",
                          "NCCL's slots on one network connection: NCCL_STEPS (8) x the NCCL channels a schedule "
                          "channel stands for. A message across nodes goes as NCCL's slices, each holding its "
                          "slots until NetCreditDelay after its delivery; 0 = off (NetStepsInFlight instead).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveExecutor::m_netSlots),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("NetCreditDelay",
                          "NetSlots: a slice's slots return to the sender this long after its delivery "
                          "(the receiver's credit crossing the network).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&CollectiveExecutor::m_netCreditDelay),
                          MakeTimeChecker())
            .AddAttribute("HwLatHoldsFabricLatency",
                          "Read where compare builds a point's NCCL endpoint: true = NCCL's hwLat is a "
                          "step's whole latency, the fabric's own latency of the hop (the point's alpha of "
                          "the level) part of it, so a step waits hwLat - alpha (at least 0) before its "
                          "message; false = hwLat before the message, the fabric's latency on top.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&CollectiveExecutor::m_hwLatHoldsFabricLatency),
                          MakeBooleanChecker())
            .AddAttribute("DependencyNotice",
                          "How a delivery at one GPU releases the ops another GPU sends that wait for it: "
                          "instant (at once, shared memory: the closed forms' assumption) or message (a "
                          "notification of kNoticeBytes (8 B) from the receiving GPU through the transport; "
                          "a NetStepsInFlight window reopens by the receiver's credit message too).",
                          EnumValue(static_cast<int>(DependencyNotice::INSTANT)),
                          MakeEnumAccessor(&CollectiveExecutor::m_dependencyNotice),
                          MakeEnumChecker(static_cast<int>(DependencyNotice::INSTANT), "instant",
                                          static_cast<int>(DependencyNotice::MESSAGE), "message"))
            .AddTraceSource("OpStart",
                            "An op was handed to the transport.",
                            MakeTraceSourceAccessor(&CollectiveExecutor::m_opStartTrace),
                            "ns3::CollectiveExecutor::OpTracedCallback")
            .AddTraceSource("OpDelivered",
                            "An op's last byte arrived.",
                            MakeTraceSourceAccessor(&CollectiveExecutor::m_opDeliveredTrace),
                            "ns3::CollectiveExecutor::OpTracedCallback")
            .AddTraceSource("OpCompleted",
                            "An op's last byte arrived: the op with its step, start and end.",
                            MakeTraceSourceAccessor(&CollectiveExecutor::m_opCompletedTrace),
                            "ns3::CollectiveExecutor::ExecutedOpTracedCallback");
    return tid;
}

CollectiveExecutor::CollectiveExecutor()
    : m_schedule(nullptr),
      m_delivered(0),
      m_localOps(0),
      m_check(true),
      m_protocol(static_cast<int>(NcclProtocol::SIMPLE)),
      m_gpusPerNode(0),
      m_simpleChunkBytes(kNcclRingChannels * kNcclSimpleStepBytes),
      m_llCopyRate(NcclCopyRate(NcclProtocol::LL)),
      m_ll128CopyRate(NcclCopyRate(NcclProtocol::LL128)),
      m_netStepsInFlight(1),
      m_netSlots(0),
      m_dependencyNotice(static_cast<int>(DependencyNotice::INSTANT))
{
}

void
CollectiveExecutor::DoDispose()
{
    m_transport = nullptr;
    m_done = nullptr;
    Object::DoDispose();
}

NcclEndpoint
CollectiveExecutor::GetEndpoint() const
{
    NcclEndpoint e;
    e.protocol = static_cast<NcclProtocol>(m_protocol);
    e.launch = m_launchOverhead;
    e.intraStep = m_stepLatency;
    e.interStep = m_netStepLatency;
    e.gpusPerNode = m_gpusPerNode;
    e.simpleChunkBytes = m_simpleChunkBytes;
    e.copyRate = e.protocol == NcclProtocol::LL      ? m_llCopyRate
                 : e.protocol == NcclProtocol::LL128 ? m_ll128CopyRate
                                                     : DataRate(0);
    e.netStepsInFlight = m_netStepsInFlight;
    e.netSlots = m_netSlots;
    e.netCreditDelay = m_netCreditDelay;
    e.netCreditCrossing = m_netCreditCrossing;
    return e;
}

void
CollectiveExecutor::SetEndpoint(const NcclEndpoint& e)
{
    m_protocol = static_cast<int>(e.protocol);
    m_launchOverhead = e.launch;
    m_stepLatency = e.intraStep;
    m_netStepLatency = e.interStep;
    m_gpusPerNode = e.gpusPerNode;
    m_simpleChunkBytes = e.simpleChunkBytes;
    m_netStepsInFlight = e.netStepsInFlight;
    m_netSlots = e.netSlots;
    m_netCreditDelay = e.netCreditDelay;
    m_netCreditCrossing = e.netCreditCrossing;
    if (e.protocol == NcclProtocol::LL)
    {
        m_llCopyRate = e.copyRate;
    }
    else if (e.protocol == NcclProtocol::LL128)
    {
        m_ll128CopyRate = e.copyRate;
    }
}

void
CollectiveExecutor::Start(const CollectiveSchedule& schedule, Ptr<CollectiveTransport> transport, std::function<void()> done)
{
    if (m_check)
    {
        schedule.Validate();
    }
    if (!m_owner.empty())
    {
        const std::string problem = FindCrossRankDependency(schedule, m_owner);
        if (!problem.empty())
        {
            throw std::logic_error(problem);
        }
    }
    if (transport->GetRanks() < schedule.GetRanks())
    {
        throw std::logic_error("schedule " + schedule.GetName() + " has " +
                               std::to_string(schedule.GetRanks()) + " ranks, the transport " +
                               std::to_string(transport->GetRanks()));
    }
    m_copy = schedule;
    m_schedule = &m_copy;
    m_transport = transport;
    m_done = std::move(done);
    m_endpoint = GetEndpoint();
    const auto& ops = m_schedule->GetOps();
    const uint32_t n = static_cast<uint32_t>(ops.size());
    m_waiting.assign(n, 0);
    m_dependents.assign(n, {});
    m_notices.assign(n, {});
    m_opStart.assign(n, Time(0));
    m_legsLeft.assign(n, 0);
    m_flagTag.assign(n, kNoFlag);
    m_opDelivered.assign(n, Time(0));
    m_copyEnd.assign(n, Time(0));
    m_slicesLeft.assign(n, 0);
    m_copyFree.assign(m_schedule->GetRanks(), Simulator::Now());
    m_delivered = 0;
    m_localOps = 0;
    m_connections.clear();
    m_start = Simulator::Now();
    m_end = m_start;
    for (uint32_t i = 0; i < n; ++i)
    {
        m_localOps += Local(ops[i].dst) ? 1 : 0;
        const auto legs = ops[i].Legs();
        // What the receiver waits for: every leg, or (a ready flag) the
        // leg that reaches it and the flag.
        m_legsLeft[i] = Flagged(ops[i]) ? 2 : static_cast<uint32_t>(legs.size());
        const uint32_t last = static_cast<uint32_t>(legs.size()) - 1;
        if (Local(ops[i].dst) && !Local(legs[last].first) && !Sliced(ops[i], m_endpoint))
        {
            // Sent by another MPI rank: its delivery here is matched by tag
            // (FindCrossRankDependency allows only the last leg across
            // ranks, no switch group; the flag is registered with the notices;
            // slices: NumberSlices).
            transport->ExpectTagged(legs[last].first, ops[i].dst, Tag(i, last), [this, i]() { LegIn(i); });
        }
        m_waiting[i] = static_cast<uint32_t>(ops[i].deps.size());
        for (uint32_t d : ops[i].deps)
        {
            m_dependents[d].push_back(i);
        }
    }
    // Slices (NCCL's slots) take the tags after the ops' and the notices',
    // numbered from the schedule (the same on every MPI rank): an id of the
    // messenger's own numbering could be a tag still in flight from the same
    // GPU, and the second message would take the first's delivery callback.
    NumberSlices(transport, Messages() ? ExpectNotices(transport) : 2 * static_cast<uint32_t>(ops.size()));
    // The connections first (CollectiveTransport::Connect), by the op's
    // depth in the dependency graph (the longest chain of ops before it),
    // then its index: a queue pair's number then does not depend on which
    // message happened to be sent first, nor on how the run is split over
    // ranks; and it is the order in which one process met the pairs
    // whenever the ops of one depth start in index order.
    std::vector<uint32_t> depth(n, 0);
    {
        std::vector<uint32_t> left = m_waiting;
        std::vector<uint32_t> ready;
        for (uint32_t i = 0; i < n; ++i)
        {
            if (left[i] == 0)
            {
                ready.push_back(i);
            }
        }
        while (!ready.empty())
        {
            const uint32_t i = ready.back();
            ready.pop_back();
            for (uint32_t j : m_dependents[i])
            {
                depth[j] = std::max(depth[j], depth[i] + 1);
                if (--left[j] == 0)
                {
                    ready.push_back(j);
                }
            }
        }
    }
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&depth](uint32_t a, uint32_t b) { return depth[a] < depth[b]; });
    for (uint32_t i : order)
    {
        if (ops[i].group == ScheduleOp::kNoSwitchGroup)
        {
            for (auto [src, dst] : ops[i].Legs())
            {
                transport->Connect(src, dst);
            }
        }
    }
    // The notifications' connections after the ops' (which they most often
    // reuse, a pair's reverse), in op order: the same on every MPI rank.
    for (uint32_t i = 0; i < n; ++i)
    {
        for (const Notice& x : m_notices[i])
        {
            transport->Connect(ops[i].dst, x.gpu);
        }
    }
    m_groups.assign(m_schedule->GetSwitchGroupCount(), SwitchGroup());
    for (uint32_t i = 0; i < n; ++i)
    {
        if (ops[i].group != ScheduleOp::kNoSwitchGroup)
        {
            SwitchGroup& g = m_groups[ops[i].group];
            g.id = ops[i].group;
            g.sources.push_back(ops[i].src);
            g.receivers.push_back(ops[i].dst);
            ++g.ops;
        }
    }
    for (SwitchGroup& g : m_groups)
    {
        for (auto* v : {&g.sources, &g.receivers})
        {
            std::sort(v->begin(), v->end());
            v->erase(std::unique(v->begin(), v->end()), v->end());
        }
    }
    NS_LOG_INFO("start " << m_schedule->GetName() << ": " << n << " ops on " << transport->GetTransportName());
    for (uint32_t i = 0; i < n; ++i)
    {
        if (m_waiting[i] == 0 && Local(ops[i].src))
        {
            if (m_launchOverhead.IsZero())
            {
                Launch(i);
            }
            else
            {
                Simulator::Schedule(m_launchOverhead, &CollectiveExecutor::Launch, this, i);
            }
        }
    }
    // After the launches: an MPI rank whose GPUs receive nothing still sends.
    if (m_localOps == 0 && m_done)
    {
        m_done();
    }
}

void
CollectiveExecutor::Launch(uint32_t i)
{
    const ScheduleOp& op = m_schedule->GetOps()[i];
    const bool crosses = m_endpoint.CrossesNodes(op.src, op.dst);
    const bool slots = Sliced(op, m_endpoint);
    if (Windowed(op, m_endpoint))
    {
        // NCCL's proxy posts a connection's steps in order and a step's
        // flag and credit travel with it: with the window full, the op
        // waits for a delivery on its connection (Delivered releases it).
        NetConnection& c = m_connections[{op.src, op.dst}];
        if (c.inFlight >= m_endpoint.netStepsInFlight)
        {
            c.waiting.push_back(i);
            return;
        }
        ++c.inFlight;
    }
    m_opStart[i] = Simulator::Now();
    m_opStartTrace(i, op.src, op.dst, op.bytes);
    // The sender's step latency is an endpoint delay: the message reaches
    // the transport (and the wire) only after it.
    const Time delay = m_endpoint.StepDelay(crosses, op.bytes);
    void (CollectiveExecutor::*send)(uint32_t) = slots ? &CollectiveExecutor::LaunchSlices : &CollectiveExecutor::Send;
    if (delay.IsZero())
    {
        (this->*send)(i);
    }
    else
    {
        Simulator::Schedule(delay, send, this, i);
    }
}

void
CollectiveExecutor::Send(uint32_t i)
{
    const ScheduleOp& op = m_schedule->GetOps()[i];
    const uint64_t wire = m_endpoint.WireBytes(op.bytes);
    // The sender's GPU copies the data at the protocol's rate, one message
    // after the other, while the wire carries it.
    const Time copyStart = std::max(Simulator::Now(), m_copyFree[op.src]);
    m_copyEnd[i] = copyStart + m_endpoint.CopyTime(op.bytes);
    m_copyFree[op.src] = m_copyEnd[i];
    if (op.group != ScheduleOp::kNoSwitchGroup)
    {
        m_transport->SendThroughSwitch(op.src, op.dst, wire, m_groups[op.group], [this, i]() { Arrived(i); });
        return;
    }
    // A PXN op's two legs start together: NCCL's proxy posts each chunk to
    // its NIC as it lands, so the relay streams rather than storing the
    // whole message (a cut-through relay; the op ends when both are in,
    // or, with a ready flag, when leg 1 and the proxy's flag are).
    const auto legs = op.Legs();
    const bool flagged = m_flagTag[i] != kNoFlag;
    for (uint32_t leg = 0; leg < legs.size(); ++leg)
    {
        auto [src, dst] = legs[leg];
        // Tagged by op and leg, so that a receiver on another MPI rank knows
        // the message (its rank registered the callback: none here).
        CollectiveTransport::DeliveryCallback arrived;
        if (flagged && leg + 1 < legs.size())
        {
            // The NVLink leg lands at the proxy (this rank's GPU too:
            // FindCrossRankDependency), which then posts the flag.
            arrived = [this, i]() { DataReady(i); };
        }
        else if (Local(op.dst))
        {
            arrived = [this, i]() { LegIn(i); };
        }
        m_transport->SendTagged(src, dst, wire, Tag(i, leg), std::move(arrived));
    }
    if (flagged && legs.size() == 1)
    {
        DataReady(i);
    }
}

bool
CollectiveExecutor::Flagged(const ScheduleOp& op) const
{
    return Messages() && op.group == ScheduleOp::kNoSwitchGroup && !Sliced(op, m_endpoint) &&
           (op.proxy != ScheduleOp::kNoProxy || m_endpoint.CopyTime(op.bytes).IsStrictlyPositive());
}

uint32_t
CollectiveExecutor::FlagSender(const ScheduleOp& op)
{
    return op.proxy != ScheduleOp::kNoProxy ? op.proxy : op.src;
}

void
CollectiveExecutor::DataReady(uint32_t i)
{
    // The flag of the last line is written when the sender's copy ends
    // (LL, LL128), and a proxy can post it only once the data it relays
    // has landed: the later of the two.
    AfterCopy(i, &CollectiveExecutor::SendFlag);
}

void
CollectiveExecutor::AfterCopy(uint32_t i, void (CollectiveExecutor::*then)(uint32_t))
{
    if (Simulator::Now() < m_copyEnd[i])
    {
        Simulator::Schedule(m_copyEnd[i] - Simulator::Now(), then, this, i);
        return;
    }
    (this->*then)(i);
}

void
CollectiveExecutor::SendFlag(uint32_t i)
{
    const ScheduleOp& op = m_schedule->GetOps()[i];
    CollectiveTransport::DeliveryCallback in;
    if (Local(op.dst))
    {
        in = [this, i]() { LegIn(i); };
    }
    m_transport->SendTagged(FlagSender(op), op.dst, kNoticeBytes, m_flagTag[i], std::move(in));
}

void
CollectiveExecutor::LegIn(uint32_t i)
{
    if (--m_legsLeft[i] == 0)
    {
        Arrived(i);
    }
}

void
CollectiveExecutor::Arrived(uint32_t i)
{
    AfterCopy(i, &CollectiveExecutor::Delivered);
}

void
CollectiveExecutor::Delivered(uint32_t i)
{
    const ScheduleOp& op = m_schedule->GetOps()[i];
    m_opDelivered[i] = Simulator::Now();
    m_end = std::max(m_end, m_opDelivered[i]);
    ++m_delivered;
    m_opDeliveredTrace(i, op.src, op.dst, op.bytes);
    // The connection's next waiting op goes first, before the ops this
    // delivery makes ready (which queue behind it; with messages, the
    // credit is sent before the notifications).
    if (Windowed(op, m_endpoint) && !Messages() && Local(op.src))
    {
        ReopenWindow({op.src, op.dst});
    }
    if (Windowed(op, m_endpoint) && Messages())
    {
        // The receiver's credit, sent only while the sender has an op
        // waiting for it (none is in flight when the collective ends),
        // back on the queue pair the data came on: to a PXN op's proxy,
        // whose server-mate, the sender, reads it there (NCCL's proxy
        // holds the connection's head).
        NetConnection& c = m_connections[{op.src, op.dst}];
        if (c.creditsSent < c.creditsNeeded)
        {
            CollectiveTransport::DeliveryCallback credited;
            if (Local(op.src))
            {
                credited = [this, key = std::make_pair(op.src, op.dst)]() { ReopenWindow(key); };
            }
            m_transport->SendTagged(op.dst, FlagSender(op), kNoticeBytes, c.firstCreditTag + c.creditsSent++,
                                    std::move(credited));
        }
    }
    if (!m_opCompletedTrace.IsEmpty())
    {
        m_opCompletedTrace(
            ExecutedOp{i, op.src, op.dst, op.bytes, op.step, m_opStart[i] - m_start, m_opDelivered[i] - m_start});
    }
    if (Messages())
    {
        // The receiver's own ops at once, then the notices: with no step
        // latency a released op's first packets reach the receiver's NIC
        // before the notices, which then interleave with them packet by
        // packet (the NIC's queue pairs take turns), not behind whole messages.
        NoticeArrived(i, op.dst);
        for (const Notice& x : m_notices[i])
        {
            CollectiveTransport::DeliveryCallback noticed;
            if (Local(x.gpu))
            {
                noticed = [this, i, gpu = x.gpu]() { NoticeArrived(i, gpu); };
            }
            m_transport->SendTagged(op.dst, x.gpu, kNoticeBytes, x.tag, std::move(noticed));
        }
    }
    else
    {
        for (uint32_t j : m_dependents[i])
        {
            Release(j);
        }
    }
    if (m_delivered == m_localOps)
    {
        NS_LOG_INFO("done " << m_schedule->GetName() << " in " << (m_end - m_start).As(Time::US));
        if (m_done)
        {
            m_done();
        }
    }
}

void
CollectiveExecutor::Release(uint32_t j)
{
    if (--m_waiting[j] == 0)
    {
        Launch(j);
    }
}

void
CollectiveExecutor::NoticeArrived(uint32_t i, uint32_t gpu)
{
    const auto& ops = m_schedule->GetOps();
    for (uint32_t j : m_dependents[i])
    {
        if (ops[j].src == gpu)
        {
            Release(j);
        }
    }
}

void
CollectiveExecutor::ReopenWindow(std::pair<uint32_t, uint32_t> key)
{
    NetConnection& c = m_connections[key];
    --c.inFlight;
    if (!c.waiting.empty())
    {
        const uint32_t next = c.waiting.front();
        c.waiting.pop_front();
        Launch(next);
    }
}

uint32_t
CollectiveExecutor::ExpectNotices(Ptr<CollectiveTransport> transport)
{
    // Tags past the ops' (Tag(i, leg) < 2 n): the notifications, in op
    // order, then the windows' credits, connection by connection, then the
    // ready flags, in op order. Every
    // MPI rank numbers them alike from the schedule; a rank registers the
    // ones that come to its GPUs from another rank's.
    const auto& ops = m_schedule->GetOps();
    const uint32_t n = static_cast<uint32_t>(ops.size());
    uint32_t tag = 2 * n;
    for (uint32_t i = 0; i < n; ++i)
    {
        std::vector<uint32_t> gpus;
        for (uint32_t j : m_dependents[i])
        {
            if (ops[j].src != ops[i].dst)
            {
                gpus.push_back(ops[j].src);
            }
        }
        std::sort(gpus.begin(), gpus.end());
        gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
        for (uint32_t gpu : gpus)
        {
            m_notices[i].push_back({gpu, tag});
            if (Local(gpu) && !Local(ops[i].dst))
            {
                transport->ExpectTagged(ops[i].dst, gpu, tag, [this, i, gpu]() { NoticeArrived(i, gpu); });
            }
            ++tag;
        }
    }
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> windowed;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> creditTo; // the credits' receiver: the sender or its proxy
    for (const ScheduleOp& op : ops)
    {
        windowed[{op.src, op.dst}] += Windowed(op, m_endpoint) ? 1 : 0;
        creditTo[{op.src, op.dst}] = FlagSender(op);
    }
    for (const auto& entry : windowed)
    {
        // A copy, not a structured binding: C++17 lambdas cannot capture those.
        const std::pair<uint32_t, uint32_t> key = entry.first;
        const uint32_t count = entry.second;
        if (count <= m_endpoint.netStepsInFlight)
        {
            continue;
        }
        NetConnection& c = m_connections[key];
        c.creditsNeeded = count - m_endpoint.netStepsInFlight;
        c.firstCreditTag = tag;
        for (uint32_t k = 0; k < c.creditsNeeded; ++k, ++tag)
        {
            if (Local(key.first) && !Local(key.second))
            {
                transport->ExpectTagged(key.second, creditTo[key], tag, [this, key]() { ReopenWindow(key); });
            }
        }
    }
    // Then the ready flags, in op order.
    for (uint32_t i = 0; i < n; ++i)
    {
        if (!Flagged(ops[i]))
        {
            continue;
        }
        m_flagTag[i] = tag;
        const uint32_t from = FlagSender(ops[i]);
        if (Local(ops[i].dst) && !Local(from))
        {
            transport->ExpectTagged(from, ops[i].dst, tag, [this, i]() { LegIn(i); });
        }
        ++tag;
    }
    return tag;
}

bool
CollectiveExecutor::Sliced(const ScheduleOp& op, const NcclEndpoint& e)
{
    // An in-switch op (NVLS) is no network connection's: no slots.
    return e.netSlots > 0 && op.group == ScheduleOp::kNoSwitchGroup && e.CrossesNodes(op.src, op.dst);
}

std::vector<std::vector<NcclNetSlice>>
CollectiveExecutor::CutSlices(const std::vector<ScheduleOp>& ops, const NcclEndpoint& e)
{
    std::vector<std::vector<NcclNetSlice>> out(ops.size());
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (!Sliced(ops[i], e))
        {
            continue;
        }
        out[i] = e.NetSlices(ops[i].bytes);
        for (NcclNetSlice& s : out[i])
        {
            s.slots = std::min(s.slots, e.netSlots);
        }
    }
    return out;
}

std::map<std::pair<uint32_t, uint32_t>, CollectiveExecutor::SlotSequence>
CollectiveExecutor::SlotSequences(const std::vector<ScheduleOp>& ops,
                                  const std::vector<std::vector<NcclNetSlice>>& slices)
{
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::vector<uint32_t>>> cuts;
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        if (!slices[i].empty())
        {
            std::vector<uint32_t>& cut = cuts[{ops[i].src, ops[i].dst}].emplace_back();
            for (const NcclNetSlice& s : slices[i])
            {
                cut.push_back(s.slots);
            }
        }
    }
    std::map<std::pair<uint32_t, uint32_t>, SlotSequence> out;
    for (const auto& [key, list] : cuts)
    {
        // A message's slices go together, in its order: whichever order
        // the ops go in, the sequence is the same when they all cut alike
        // or when every slice holds the same slots.
        SlotSequence& q = out[key];
        bool alike = true;
        bool uniform = true;
        for (const std::vector<uint32_t>& cut : list)
        {
            alike = alike && cut == list.front();
            for (uint32_t s : cut)
            {
                uniform = uniform && s == list.front().front();
                q.total += s;
                ++q.slices;
                q.order.push_back(s);
            }
        }
        q.known = alike || uniform;
        if (!q.known)
        {
            q.order.clear();
        }
    }
    return out;
}

bool
CollectiveExecutor::Windowed(const ScheduleOp& op, const NcclEndpoint& e)
{
    return e.netStepsInFlight > 0 && !Sliced(op, e) && e.CrossesNodes(op.src, op.dst);
}

void
CollectiveExecutor::LaunchSlices(uint32_t i)
{
    // NCCL's proxy posts a connection's slices in the order its kernel
    // fills them; a slice goes when the connection has its slots free
    // (prims_simple.h: the sender waits for head + NCCL_STEPS >= step +
    // sliceSteps). The GPU copies the message as in Send.
    const ScheduleOp& op = m_schedule->GetOps()[i];
    const Time copyStart = std::max(Simulator::Now(), m_copyFree[op.src]);
    m_copyEnd[i] = copyStart + m_endpoint.CopyTime(op.bytes);
    m_copyFree[op.src] = m_copyEnd[i];
    const std::vector<NcclNetSlice>& slices = m_slices[i];
    NetConnection& c = m_connections[{op.src, op.dst}];
    for (uint32_t k = 0; k < slices.size(); ++k)
    {
        c.slices.push_back({i, k, slices[k]});
    }
    PumpSlots({op.src, op.dst});
}

void
CollectiveExecutor::PumpSlots(std::pair<uint32_t, uint32_t> key)
{
    NetConnection& c = m_connections[key];
    while (!c.slices.empty())
    {
        const QueuedSlice q = c.slices.front();
        // At most the whole window (CutSlices): a wider slice goes alone.
        const uint32_t slots = q.slice.slots;
        if (c.slotsUsed > 0 && c.slotsUsed + slots > m_netSlots)
        {
            return;
        }
        c.slices.pop_front();
        c.slotsUsed += slots;
        if (Messages())
        {
            c.posted.push_back(slots);
        }
        const ScheduleOp& op = m_schedule->GetOps()[q.op];
        const uint64_t wire = m_endpoint.WireBytes(q.slice.bytes);
        const auto legs = op.Legs();
        auto legsLeft = std::make_shared<uint32_t>(static_cast<uint32_t>(legs.size()));
        for (uint32_t leg = 0; leg < legs.size(); ++leg)
        {
            auto [src, dst] = legs[leg];
            // A receiver on another MPI rank registered its callback (NumberSlices).
            CollectiveTransport::DeliveryCallback arrived;
            if (Local(op.dst))
            {
                arrived = [this, q, key, slots, legsLeft]() {
                    if (--*legsLeft == 0)
                    {
                        SliceReceived(key, q.op, slots);
                    }
                };
            }
            m_transport->SendTagged(src, dst, wire, m_sliceTag[q.op] + 2 * q.index + leg, std::move(arrived));
        }
    }
}

uint32_t
CollectiveExecutor::NumberSlices(Ptr<CollectiveTransport> transport, uint32_t tag)
{
    // Two tags a slice (its legs: a PXN op's second goes from the proxy),
    // op by op, then the slots' credits connection by connection, as many
    // tags as the connection has slices (at most one credit a slice).
    const auto& ops = m_schedule->GetOps();
    m_slices = CutSlices(ops, m_endpoint);
    m_sliceTag.assign(ops.size(), 0);
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        const std::vector<NcclNetSlice>& slices = m_slices[i];
        if (slices.empty())
        {
            continue;
        }
        m_sliceTag[i] = tag;
        // Set here, not when the slices go: the receiver may be on another MPI rank.
        m_slicesLeft[i] = static_cast<uint32_t>(slices.size());
        if (Local(ops[i].dst) && !Local(ops[i].src))
        {
            // The slices' one leg that crosses: FindCrossRankDependency
            // refuses a sliced op through a PXN proxy across ranks (slices
            // carry no ready flag), so the sender sends it.
            const std::pair<uint32_t, uint32_t> key{ops[i].src, ops[i].dst};
            for (uint32_t k = 0; k < slices.size(); ++k)
            {
                transport->ExpectTagged(key.first, key.second, tag + 2 * k,
                                        [this, key, i, s = slices[k].slots]() { SliceReceived(key, i, s); });
            }
        }
        tag += 2 * static_cast<uint32_t>(slices.size());
    }
    if (!Messages())
    {
        return tag;
    }
    for (auto& entry : SlotSequences(ops, m_slices))
    {
        const std::pair<uint32_t, uint32_t> key = entry.first;
        NetConnection& c = m_connections[key];
        c.sequence = std::move(entry.second);
        c.slotsNeeded = c.sequence.total > m_netSlots ? c.sequence.total - m_netSlots : 0;
        c.firstSlotCreditTag = tag;
        if (Local(key.first) && !Local(key.second))
        {
            // The sender's rank knows the credits it will get and their
            // slots from the schedule (SliceReceived: a known sequence
            // across ranks, FindCrossRankDependency).
            uint32_t credited = 0;
            for (uint32_t k = 0; credited < c.slotsNeeded; ++k)
            {
                const uint32_t slots = std::min(c.sequence.order.at(k), c.slotsNeeded - credited);
                credited += slots;
                transport->ExpectTagged(key.second, key.first, tag + k,
                                        [this, key, slots]() { ReturnCredit(key, slots); });
            }
        }
        tag += c.sequence.slices;
    }
    return tag;
}

void
CollectiveExecutor::SliceReceived(std::pair<uint32_t, uint32_t> key, uint32_t i, uint32_t slots)
{
    // The credit first, then the delivery (which may release ops).
    if (!Messages())
    {
        if (m_netCreditDelay.IsZero())
        {
            ReturnCredit(key, slots);
        }
        else
        {
            Simulator::Schedule(m_netCreditDelay, &CollectiveExecutor::ReturnCredit, this, key, slots);
        }
        SliceArrived(i);
        return;
    }
    // DependencyNotice Message: the receiver posts the credit as an 8 B
    // message its own delay after the delivery (NetCreditDelay less the
    // crossing, which the fabric now takes: NcclEndpoint::netCreditCrossing;
    // NCCL's receiver proxy posting its receive, an RDMA write of its fifo
    // entry), and only
    // while the sender still needs slots back. The rule, exact and the
    // same on every MPI rank: let s_0, s_1, ... be the connection's slices'
    // slots in the order the sender posts them (CutSlices, each <= W =
    // NetSlots), P_k = s_0 + ... + s_k, U their total and R = max(0, U - W).
    // The k-th slice to arrive (k = 0, 1, ..., whichever it is) sends
    // credit k, of a_k = min(s_k, R - P_{k-1}) slots, iff P_{k-1} < R: the
    // credits return exactly R slots, each a_k > 0.
    // - Nothing waits for ever: slice j waits while the slots in use,
    //   P_{j-1} - (slots returned), exceed W - s_j, i.e. while fewer than
    //   P_j - W are back. Slices 0..j-1 were posted, so j of them arrive
    //   and credits 0..j-1 return min(P_{j-1}, R) >= P_j - W slots
    //   (P_{j-1} = P_j - s_j >= P_j - W, and R >= P_j - W as P_j <= U).
    // - None is in flight at the end: the last slice goes only when
    //   U - W = R slots are back (or the window is empty: U - s_last <= R),
    //   so after every credit arrived; its op is delivered later, and the
    //   collective ends no earlier.
    // - The sender posts as if every slice's slots came back (instant's
    //   rule): with R back every later slice fits, as with more.
    // The credits depend only on the count of arrivals and the sequence,
    // not on which slice arrives when: with the sequence known from the
    // schedule (its ops cut alike or every slice holds as many slots) both
    // ranks of a cut connection compute them (NumberSlices); otherwise, one
    // process only, s_k is the sender's record. NetStepsInFlight's credits
    // are the case s_k = 1, W = NetStepsInFlight (Delivered).
    NetConnection& c = m_connections[key];
    const uint32_t k = c.slicesArrived++;
    if (c.slotsCredited < c.slotsNeeded)
    {
        const uint32_t s = c.sequence.known ? c.sequence.order[k] : c.posted[k];
        const uint32_t credit = std::min(s, c.slotsNeeded - c.slotsCredited);
        c.slotsCredited += credit;
        const uint32_t tag = c.firstSlotCreditTag + k;
        auto post = [this, key, credit, tag]() {
            CollectiveTransport::DeliveryCallback credited;
            if (Local(key.first))
            {
                credited = [this, key, credit]() { ReturnCredit(key, credit); };
            }
            m_transport->SendTagged(key.second, key.first, kNoticeBytes, tag, std::move(credited));
        };
        const Time own = m_netCreditDelay - m_netCreditCrossing;
        if (own.IsZero())
        {
            post();
        }
        else
        {
            Simulator::Schedule(own, post);
        }
    }
    SliceArrived(i);
}

void
CollectiveExecutor::SliceArrived(uint32_t i)
{
    if (--m_slicesLeft[i] == 0)
    {
        Arrived(i);
    }
}

void
CollectiveExecutor::ReturnCredit(std::pair<uint32_t, uint32_t> key, uint32_t slots)
{
    NetConnection& c = m_connections[key];
    c.slotsUsed -= slots;
    PumpSlots(key);
}

Time
CollectiveExecutor::Run(const CollectiveSchedule& schedule, Ptr<CollectiveTransport> transport,
                        std::function<void()> onDone)
{
    // With onDone the run goes on to the end it sets even when this rank's
    // part is done at once (a rank that receives nothing still forwards).
    const bool ownEnd = static_cast<bool>(onDone);
    Start(schedule, transport, ownEnd ? std::move(onDone) : std::function<void()>([]() { Simulator::Stop(); }));
    if (!IsComplete() || ownEnd)
    {
        if (m_timeLimit.IsStrictlyPositive())
        {
            Simulator::Stop(m_timeLimit);
        }
        Simulator::Run();
    }
    if (!IsComplete())
    {
        uint32_t waiting = 0;
        uint32_t first = 0;
        bool found = false;
        for (uint32_t i = 0; i < m_opDelivered.size(); ++i)
        {
            if (m_opDelivered[i].IsZero() && !(m_opStart[i].IsZero() && m_waiting[i] > 0))
            {
                ++waiting;
                if (!found)
                {
                    first = i;
                    found = true;
                }
            }
        }
        std::string where;
        if (found)
        {
            const ScheduleOp& op = m_schedule->GetOps()[first];
            where = "; first in flight: op " + std::to_string(first) + " " + std::to_string(op.src) + "->" +
                    std::to_string(op.dst) + " (" + std::to_string(op.bytes) + " bytes)";
        }
        throw std::runtime_error(schedule.GetName() + " did not finish: " + std::to_string(m_delivered) +
                                 " of " + std::to_string(m_opDelivered.size()) + " ops delivered at " +
                                 std::to_string(Simulator::Now().GetSeconds()) + " s, " +
                                 std::to_string(waiting) + " in flight" + where);
    }
    return GetTotalTime();
}

std::string
CollectiveExecutor::FindCrossRankDependency(const CollectiveSchedule& schedule,
                                            const std::vector<uint32_t>& owner) const
{
    if (owner.size() < schedule.GetRanks())
    {
        throw std::invalid_argument("FindCrossRankDependency: expected an MPI rank for each of the " +
                                    std::to_string(schedule.GetRanks()) + " ranks of " + schedule.GetName() +
                                    ", got " + std::to_string(owner.size()));
    }
    const NcclEndpoint e = GetEndpoint();
    const auto& ops = schedule.GetOps();
    auto name = [&](uint32_t i) {
        const ScheduleOp& op = ops[i];
        return schedule.GetName() + ": op " + std::to_string(i) + " (GPU " + std::to_string(op.src) + " -> " +
               std::to_string(op.dst) + ", step " + std::to_string(op.step) + ")";
    };
    auto where = [&](uint32_t gpu) {
        return "GPU " + std::to_string(gpu) + " on MPI rank " + std::to_string(owner[gpu]);
    };
    // What only a message can carry across MPI ranks (DependencyNotice
    // Message), and what nothing carries yet.
    const std::string instant = "; a dependency across MPI ranks must travel as a message: pass "
                                "--dependencies=message (the executor's DependencyNotice)";
    const std::string why = "; not supported across MPI ranks yet";
    const bool messages = Messages();
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> perConnection;
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> groupRank; // group -> (MPI rank, first op)
    std::map<std::pair<uint32_t, uint32_t>, SlotSequence> sequences; // NetSlots, messages: when first needed
    std::vector<std::vector<NcclNetSlice>> slices;                   // the same
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        const ScheduleOp& op = ops[i];
        // The op starts where its sender is: what it waits for must be seen
        // there, or come as a notification.
        for (uint32_t d : op.deps)
        {
            // A dependency is seen where its receiver is (a PXN op: where
            // both legs end, checked below).
            if (!messages && owner[ops[d].dst] != owner[op.src])
            {
                return name(i) + " waits for op " + std::to_string(d) + " delivered at " + where(ops[d].dst) +
                       ", but starts at " + where(op.src) + instant;
            }
        }
        // A PXN op: both legs start at its sender, so the proxy must be
        // there; its receiver learns that the NVLink leg has landed by the
        // proxy's ready flag, a message only with DependencyNotice Message.
        if (op.proxy != ScheduleOp::kNoProxy && owner[op.proxy] != owner[op.src])
        {
            return name(i) + " goes through its PXN proxy " + where(op.proxy) + ", but starts at " + where(op.src) +
                   " (both legs start together at the sender)" + why;
        }
        if (op.proxy != ScheduleOp::kNoProxy && owner[op.proxy] != owner[op.dst] && !messages)
        {
            return name(i) + " goes through its PXN proxy " + where(op.proxy) + " to " + where(op.dst) +
                   ", which must learn that the NVLink leg has landed (the proxy's ready flag)" + instant;
        }
        if (op.group != ScheduleOp::kNoSwitchGroup)
        {
            for (uint32_t gpu : {op.src, op.dst})
            {
                auto [it, fresh] = groupRank.emplace(op.group, std::make_pair(owner[gpu], i));
                if (!fresh && it->second.first != owner[gpu])
                {
                    return name(i) + " is in in-switch group " + std::to_string(op.group) + " with op " +
                           std::to_string(it->second.second) + ", on MPI rank " + std::to_string(it->second.first) +
                           ", and has " + where(gpu) + " (the switch sums every copy of the group)" + why;
                }
            }
        }
        if (owner[op.src] == owner[op.dst])
        {
            continue;
        }
        if (!messages && e.CopyTime(op.bytes).IsStrictlyPositive())
        {
            return name(i) + " crosses from " + where(op.src) + " to " + where(op.dst) + " under protocol " +
                   ToString(e.protocol) +
                   ", whose delivery waits for the sender's copy (LlCopyRate, Ll128CopyRate: the sender's ready flag)" +
                   instant;
        }
        if (Sliced(op, e))
        {
            const std::string slots = name(i) + " crosses from " + where(op.src) + " to " + where(op.dst) +
                                      " in NCCL's slots (NetSlots " + std::to_string(e.netSlots) + ")";
            if (!messages)
            {
                return slots + ", whose credits return from the receiver" + instant;
            }
            if (op.proxy != ScheduleOp::kNoProxy || e.CopyTime(op.bytes).IsStrictlyPositive())
            {
                // Slices carry no ready flag (Flagged): what a PXN leg or an
                // LL copy adds to their delivery stays at the sender's rank.
                return slots + " through a PXN proxy or with a copy rate (LL, LL128): slices carry no ready flag" +
                       why;
            }
            if (sequences.empty())
            {
                slices = CutSlices(ops, e);
                sequences = SlotSequences(ops, slices);
            }
            if (!sequences.at({op.src, op.dst}).known)
            {
                return slots + " on a connection whose ops cut into different slot sequences (their sizes "
                               "differ): which credits the sender still needs depends on the order its ops go" +
                       why;
            }
        }
        if (!messages && Windowed(op, e) && ++perConnection[{op.src, op.dst}] > e.netStepsInFlight)
        {
            return name(i) + " is message " + std::to_string(perConnection[{op.src, op.dst}]) +
                   " of the network connection from " + where(op.src) + " to " + where(op.dst) +
                   ", whose window of NetStepsInFlight " + std::to_string(e.netStepsInFlight) +
                   " opens at the receiver's delivery" + instant;
        }
    }
    return "";
}

bool
CollectiveExecutor::IsComplete() const
{
    return m_schedule && m_delivered == m_localOps;
}

void
CollectiveExecutor::SetPartition(std::vector<uint32_t> owner, uint32_t local)
{
    m_owner = std::move(owner);
    m_local = local;
}

uint32_t
CollectiveExecutor::GetLocalOps() const
{
    return m_localOps;
}

uint32_t
CollectiveExecutor::GetDeliveredOps() const
{
    return m_delivered;
}

Time
CollectiveExecutor::GetStartTime() const
{
    return m_start;
}

Time
CollectiveExecutor::GetTotalTime() const
{
    return m_end - m_start;
}

std::vector<Time>
CollectiveExecutor::GetStepEndTimes() const
{
    std::vector<Time> end;
    if (!m_schedule)
    {
        return end;
    }
    end.assign(m_schedule->GetStepCount(), Time(0));
    const auto& ops = m_schedule->GetOps();
    for (uint32_t i = 0; i < ops.size(); ++i)
    {
        end[ops[i].step] = std::max(end[ops[i].step], m_opDelivered[i] - m_start);
    }
    return end;
}

std::vector<Time>
CollectiveExecutor::GetStepDurations() const
{
    std::vector<Time> end = GetStepEndTimes();
    std::vector<Time> d(end.size());
    Time prev(0);
    for (size_t k = 0; k < end.size(); ++k)
    {
        d[k] = end[k] - prev;
        prev = std::max(prev, end[k]);
    }
    return d;
}

const std::vector<Time>&
CollectiveExecutor::GetOpStartTimes() const
{
    return m_opStart;
}

const std::vector<Time>&
CollectiveExecutor::GetOpDeliveryTimes() const
{
    return m_opDelivered;
}

} // namespace ns3
