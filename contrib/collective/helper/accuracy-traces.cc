// SPDX-License-Identifier: GPL-2.0-only
#include "accuracy-traces.h"

#include "attribute-defaults.h"
#include "collective-algorithms.h"
#include "collective-executor.h"
#include "comparison-congestion-control.h"
#include "input-error.h"
#include "packet-transport.h"
#include "rdma-endpoint.h"
#include "rdma-nic.h"
#include "topology-graph.h"
#include "topology-parameters.h"

#include "ns3/boolean.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iomanip>
#include <memory>
#include <stdexcept>

namespace ns3
{

namespace
{

CollectiveSpec
IncastSpec(const ComparisonConfig& config, uint32_t ranks)
{
    CollectiveSpec spec;
    spec.collective = CollectiveKind::INCAST;
    spec.algorithm = "direct";
    spec.ranks = ranks;
    spec.bytes = config.sizes.back();
    spec.root = config.root;
    spec.Validate();
    return spec;
}

} // namespace

PacketTraceRecorder::PacketTraceRecorder(const TopologyGraph& graph, Ptr<PacketTransport> t)
    : m_transport(t)
{
    for (uint32_t l = 0; l < graph.LinkCount(); ++l)
    {
        for (bool aSide : {true, false})
        {
            const uint32_t from = aSide ? graph.LinkA(l) : graph.LinkB(l);
            const uint32_t to = aSide ? graph.LinkB(l) : graph.LinkA(l);
            const std::string name =
                std::to_string(l) + ":" + graph.Node(from).name + ">" + graph.Node(to).name;
            Ptr<FabricNetDevice> port = t->GetNetwork()->GetLinkDevice(l, aSide);
            port->TraceConnectWithoutContext(
                "EcnMark",
                MakeBoundCallback(
                    +[](std::vector<Event>* events, std::string where, Ptr<const Packet>, uint64_t queue) {
                        events->push_back(Event{Simulator::Now().GetSeconds(), "ecn-mark", where, 0, queue});
                    },
                    &m_events,
                    name));
            m_ports.push_back(port);
            m_names.push_back(name);
        }
    }
    Ptr<RdmaMessenger> messenger = t->GetMessenger();
    for (uint32_t r = 0; r < messenger->GetNRanks(); ++r)
    {
        Ptr<RdmaEndpoint> ep = messenger->GetEndpoint(r);
        for (uint32_t i = 0; i < ep->GetNNics(); ++i)
        {
            ep->GetNic(i)->TraceConnectWithoutContext(
                "CnpTx",
                MakeBoundCallback(
                    +[](std::vector<Event>* events, std::string where, uint32_t qpn) {
                        events->push_back(Event{Simulator::Now().GetSeconds(), "cnp", where, qpn, 0});
                    },
                    &m_events,
                    "rank" + std::to_string(r)));
        }
    }
}

uint32_t
PacketTraceRecorder::PortIndex(const TopologyGraph& graph, uint32_t link, uint32_t from)
{
    return 2 * link + (graph.LinkA(link) == from ? 0 : 1);
}

void
PacketTraceRecorder::Start(Ptr<CollectiveExecutor> exec, Time interval)
{
    m_exec = exec;
    m_interval = interval;
    Simulator::Schedule(Time(0), &PacketTraceRecorder::TakeSample, this);
}

void
PacketTraceRecorder::TakeSample()
{
    Sample s;
    s.timeS = Simulator::Now().GetSeconds();
    s.pausedPorts = 0;
    s.pausesSent = 0;
    for (const auto& p : m_ports)
    {
        s.queueBytes.push_back(p->GetTotalQueueBytes());
        s.pausedPorts += p->GetBlockedClasses() != 0 ? 1 : 0;
        s.pausesSent += p->GetCounters().pausesSent;
    }
    Ptr<RdmaMessenger> messenger = m_transport->GetMessenger();
    for (uint32_t r = 0; r < messenger->GetNRanks(); ++r)
    {
        Ptr<RdmaEndpoint> ep = messenger->GetEndpoint(r);
        for (uint32_t i = 0; i < ep->GetNNics(); ++i)
        {
            for (uint32_t qpn : ep->GetNic(i)->GetQpns())
            {
                Ptr<RdmaRateState> state = ep->GetNic(i)->GetRateState(qpn);
                s.qps.push_back({r, qpn, static_cast<double>(state->GetRate().GetBitRate()), state->GetWindow()});
            }
        }
    }
    m_samples.push_back(std::move(s));
    if (!m_exec->IsComplete())
    {
        Simulator::Schedule(m_interval, &PacketTraceRecorder::TakeSample, this);
    }
}

void
PacketTraceRecorder::WriteCsv(const std::string& dir, const std::string& prefix) const
{
    auto open = [&](const std::string& name) {
        const std::string path = dir + "/" + prefix + "-" + name + ".csv";
        auto f = std::make_unique<std::ofstream>(path);
        if (!*f)
        {
            throw std::runtime_error("cannot write " + path);
        }
        WriteCsvProvenance(*f);
        *f << std::setprecision(10);
        return f;
    };
    auto queues = open("queues");
    *queues << "time_s";
    for (const std::string& n : m_names)
    {
        *queues << "," << n;
    }
    *queues << "\n";
    auto pfc = open("pfc");
    *pfc << "time_s,paused_ports,pfc_pauses_sent\n";
    auto rates = open("rates");
    *rates << "time_s,rank,qpn,rate_bps,window_bytes\n";
    for (const Sample& s : m_samples)
    {
        *queues << s.timeS;
        for (uint64_t q : s.queueBytes)
        {
            *queues << "," << q;
        }
        *queues << "\n";
        *pfc << s.timeS << "," << s.pausedPorts << "," << s.pausesSent << "\n";
        for (const Sample::Qp& q : s.qps)
        {
            *rates << s.timeS << "," << q.rank << "," << q.qpn << "," << q.rateBps << "," << q.windowBytes << "\n";
        }
    }
    auto events = open("events");
    *events << "time_s,event,where,qpn,queue_bytes\n";
    for (const Event& e : m_events)
    {
        *events << e.timeS << "," << e.kind << "," << e.where << "," << e.qpn << "," << e.queueBytes << "\n";
    }
}

std::vector<IncastSample>
RecordIncastTrace(const ComparisonConfig& config, Time step)
{
    ValidateComparison(config);
    const ScopedAttributeDefaults attributes(config.attributes); // the scenario's, for this run only
    if (!config.topology)
    {
        throw InputError("scenario.topology", "expected a topology for the incast trace");
    }
    TopologyGraph graph(*config.topology);
    const CollectiveSpec spec = IncastSpec(config, config.ranks ? config.ranks : graph.EndpointCount());
    CollectiveSchedule schedule = BuildSchedule(spec);

    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    t->SetSeed(config.seed); // as compare's packet runs
    // The scenario's congestion control (none on the ideal fabric, as in compare).
    t->Build(graph.Description(), MakeCongestionControl(config.fabric));
    // Set up before the run, as verbs does: each sender's first QP is the
    // one towards the root.
    Ptr<RdmaMessenger> messenger = t->GetMessenger();
    std::vector<std::pair<uint32_t, uint32_t>> senderQps; // (rank, qpn)
    for (uint32_t r = 0; r < spec.ranks; ++r)
    {
        if (r != spec.root)
        {
            messenger->Connect(r, spec.root);
            senderQps.emplace_back(r, messenger->GetEndpoint(r)->GetNic(0)->GetQpns().front());
        }
    }
    // The bottleneck: the last hop's port towards the receiver.
    const TopologyPath path = PairPath(graph, spec.root == 0 ? 1 : 0, spec.root);
    const uint32_t bottleneck = PacketTraceRecorder::PortIndex(graph, path.hops.back().link, path.hops.back().from);

    PacketTraceRecorder recorder(graph, t);
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false));
    exec->SetAttribute("TimeLimit", TimeValue(config.fabric.timeLimit));
    recorder.Start(exec, step);
    exec->Run(schedule, t);
    Simulator::Destroy();

    std::vector<IncastSample> samples;
    for (const PacketTraceRecorder::Sample& s : recorder.Samples())
    {
        IncastSample i{s.timeS, s.queueBytes[bottleneck], s.pausedPorts, s.pausesSent, {}, {}};
        for (const auto& [rank, qpn] : senderQps)
        {
            for (const PacketTraceRecorder::Sample::Qp& q : s.qps)
            {
                if (q.rank == rank && q.qpn == qpn)
                {
                    i.senderRateBps.push_back(q.rateBps);
                    i.senderWindowBytes.push_back(q.windowBytes);
                }
            }
        }
        samples.push_back(std::move(i));
    }
    return samples;
}

bool
HasSenderWindows(const std::vector<IncastSample>& samples)
{
    return std::any_of(samples.begin(), samples.end(), [](const IncastSample& s) {
        return std::any_of(s.senderWindowBytes.begin(), s.senderWindowBytes.end(), [](uint64_t w) { return w > 0; });
    });
}

void
WriteIncastTraceCsv(const std::string& path, const std::vector<IncastSample>& samples)
{
    // Window columns only for a window-based control: the files of rate-based
    // runs keep their columns.
    const bool windows = HasSenderWindows(samples);
    size_t senders = 0;
    for (const IncastSample& s : samples)
    {
        senders = std::max(senders, s.senderRateBps.size());
    }
    std::ofstream ts(path);
    WriteCsvProvenance(ts);
    ts << "time_s,queue_bytes,paused_ports,pfc_pauses_sent";
    for (size_t i = 0; i < senders; ++i)
    {
        ts << ",sender" << i << "_rate_bps";
    }
    for (size_t i = 0; windows && i < senders; ++i)
    {
        ts << ",sender" << i << "_window_bytes";
    }
    ts << "\n";
    for (const IncastSample& s : samples)
    {
        ts << s.timeS << "," << s.queueBytes << "," << s.pausedPorts << "," << s.pausesSent;
        for (double r : s.senderRateBps)
        {
            ts << "," << r;
        }
        for (size_t i = 0; windows && i < s.senderWindowBytes.size(); ++i)
        {
            ts << "," << s.senderWindowBytes[i];
        }
        ts << "\n";
    }
}

} // namespace ns3
