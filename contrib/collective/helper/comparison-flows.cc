// SPDX-License-Identifier: GPL-2.0-only
#include "comparison-flows.h"

#include "alpha-beta-model.h"
#include "analytic-transport.h"
#include "comparison-backend.h"
#include "comparison-packet-fabric.h"
#include "comparison-point.h"
#include "fabric-pcap-helper.h"
#include "input-error.h"
#include "packet-run-estimate.h"
#include "units.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

namespace ns3
{

namespace
{

/// What one backend answered for one flow.
struct FlowOutcome
{
    std::optional<Time> lastByte; ///< the last byte at the receiver
    std::optional<Time> ack;      ///< packet: the last ACK at the sender
    // packet only:
    uint64_t bytesSent = 0;       ///< acknowledged at the sender (its send completion)
    uint64_t bytesDelivered = 0;  ///< accepted in order at the receiver (its receive completion)
    uint64_t retransmissions = 0; ///< go-back-N restarts of the flow's QP (NAK or timeout)
    uint64_t cnps = 0;            ///< CNPs the flow's sender received
    std::optional<PointToPointParameters> parameters; ///< alphabeta: the alpha and beta it used
};

/// One backend's run of the whole workload.
struct FlowsAnswer
{
    std::string backend;
    std::vector<FlowOutcome> flows;
    ResultRow columns; ///< the summary row's backend-specific columns
    /// The packet run stopped before every flow completed (PacketStop): what
    /// it got to, for the message of PacketRunStopped (its flows have no
    /// outcome).
    std::string stoppedAt;
    PacketStop stop = PacketStop::WALL_LIMIT; ///< why, when stoppedAt is set
};

// --- analytic backends ---

/// Posts each flow on \p t at its start, runs the simulator and records each
/// delivery as the flow's last byte.
std::vector<FlowOutcome>
RunOnTransport(const std::vector<FlowSpec>& flows, Ptr<AnalyticTransport> t)
{
    std::vector<FlowOutcome> out(flows.size());
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const FlowSpec& f = flows[i];
        Simulator::Schedule(f.start, [t, &f, &out, i]() {
            t->Send(f.srcRank, f.dstRank, f.bytes, [&out, i]() { out[i].lastByte = Simulator::Now(); });
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    return out;
}

/// The alpha and beta of one flow: the given ones, or those derived from its
/// pair's path (topology-parameters.h).
PointToPointParameters
FlowParameters(const ComparisonSetup& setup, const FlowSpec& f)
{
    const ComparisonModel& m = setup.config.model;
    if (m.alpha && m.beta)
    {
        return PointToPointParameters{*m.alpha, *m.beta};
    }
    const TopologyPath path = PairPath(*setup.graph, f.srcRank, f.dstRank);
    return DerivePathParameters(path, TransportHeaderOf(*setup.graph, path, setup.rdmaHeader));
}

FlowsAnswer
RunAlphaBeta(const ComparisonSetup& setup, const std::vector<FlowSpec>& flows)
{
    const Time sw = setup.config.model.softwareOverhead;
    // One channel (level) per distinct (alpha, beta): each pair's messages
    // are priced with its own path's parameters.
    auto t = CreateObject<AnalyticTransport>();
    std::map<std::pair<int64_t, uint64_t>, uint32_t> levels;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> levelOfPair;
    std::vector<PointToPointParameters> used;
    for (const FlowSpec& f : flows)
    {
        const PointToPointParameters p = FlowParameters(setup, f);
        used.push_back(p);
        const auto key = std::make_pair(p.alpha.GetTimeStep(), p.beta.GetBitRate());
        auto it = levels.find(key);
        if (it == levels.end())
        {
            uint32_t level = 0;
            if (levels.empty())
            {
                t->Install(setup.ranks, MakeAlphaBeta(p, sw), setup.config.model.contention);
            }
            else
            {
                level = t->AddLevel(MakeAlphaBeta(p, sw));
            }
            it = levels.emplace(key, level).first;
        }
        levelOfPair[{f.srcRank, f.dstRank}] = it->second;
    }
    t->SetLevelFunction([levelOfPair](uint32_t a, uint32_t b) { return levelOfPair.at({a, b}); });
    FlowsAnswer a;
    a.flows = RunOnTransport(flows, t);
    for (size_t i = 0; i < flows.size(); ++i)
    {
        a.flows[i].parameters = used[i];
    }
    return a;
}

FlowsAnswer
RunMaxMin(const ComparisonSetup& setup, const std::vector<FlowSpec>& flows)
{
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const FlowSpec& f : flows)
    {
        pairs.insert({f.srcRank, f.dstRank});
    }
    // No messaging layer: the software overhead is the model's only (the
    // endpoint's send and receive overheads price the collectives' messenger).
    FlowsAnswer a;
    a.flows = RunOnTransport(flows,
                             MakeFlowTransport(setup, setup.ranks, {pairs.begin(), pairs.end()}, DataRate(0),
                                               setup.config.model.softwareOverhead));
    return a;
}

// --- packet backend ---

/// Maps the NICs' completions, retransmissions and CNPs to flows: a flow is
/// its sender's (NIC, QP) and its receiver's.
class FlowRecorder
{
  public:
    explicit FlowRecorder(std::vector<FlowOutcome>& out)
        : m_out(out)
    {
    }

    void AddFlow(size_t i, Ptr<RdmaNic> a, uint32_t qa, Ptr<RdmaNic> b, uint32_t qb)
    {
        m_sender[{PeekPointer(a), qa}] = i;
        m_receiver[{PeekPointer(b), qb}] = i;
        for (const Ptr<RdmaNic>& nic : {a, b})
        {
            if (!m_hooked.insert(PeekPointer(nic)).second)
            {
                continue;
            }
            // The messenger's endpoint does not know these QPs: the
            // completions are the recorder's alone.
            nic->SetSendCompletionCallback(RdmaNic::CompletionCallback());
            nic->SetReceiveCompletionCallback(RdmaNic::CompletionCallback());
            const RdmaNic* key = PeekPointer(nic);
            nic->TraceConnectWithoutContext("SendComplete",
                                            MakeCallback(&FlowRecorder::SendDone, this).Bind(key));
            nic->TraceConnectWithoutContext("ReceiveComplete",
                                            MakeCallback(&FlowRecorder::ReceiveDone, this).Bind(key));
            nic->TraceConnectWithoutContext("Retransmit", MakeCallback(&FlowRecorder::Retransmit, this).Bind(key));
            nic->TraceConnectWithoutContext("CnpRx", MakeCallback(&FlowRecorder::CnpReceived, this).Bind(key));
        }
    }

    /// Flows both ends of which completed.
    size_t Complete() const
    {
        size_t n = 0;
        for (const FlowOutcome& o : m_out)
        {
            n += o.ack && o.lastByte ? 1 : 0;
        }
        return n;
    }

  private:
    FlowOutcome* Find(const std::map<std::pair<const RdmaNic*, uint32_t>, size_t>& m, const RdmaNic* nic, uint32_t qpn)
    {
        auto it = m.find({nic, qpn});
        return it == m.end() ? nullptr : &m_out[it->second];
    }

    void SendDone(const RdmaNic* nic, const RdmaCompletion& c)
    {
        if (FlowOutcome* o = Find(m_sender, nic, c.qpn))
        {
            o->ack = Simulator::Now();
            o->bytesSent = c.bytes;
            Done();
        }
    }

    void ReceiveDone(const RdmaNic* nic, const RdmaCompletion& c)
    {
        if (FlowOutcome* o = Find(m_receiver, nic, c.qpn))
        {
            o->lastByte = Simulator::Now();
            o->bytesDelivered = c.bytes;
            Done();
        }
    }

    void Retransmit(const RdmaNic* nic, uint32_t qpn, uint64_t)
    {
        if (FlowOutcome* o = Find(m_sender, nic, qpn))
        {
            ++o->retransmissions;
        }
    }

    void CnpReceived(const RdmaNic* nic, uint32_t qpn)
    {
        if (FlowOutcome* o = Find(m_sender, nic, qpn))
        {
            ++o->cnps;
        }
    }

    /// Both ends of every flow complete: the run is over (the fabric's
    /// timers would otherwise run on to the time limit).
    void Done()
    {
        if (++m_completions == 2 * m_out.size())
        {
            Simulator::Stop();
        }
    }

    std::vector<FlowOutcome>& m_out;
    std::map<std::pair<const RdmaNic*, uint32_t>, size_t> m_sender;
    std::map<std::pair<const RdmaNic*, uint32_t>, size_t> m_receiver;
    std::set<const RdmaNic*> m_hooked;
    size_t m_completions = 0;
};

FlowsAnswer
RunPacketFlows(const ComparisonSetup& setup, const std::vector<FlowSpec>& flows, const std::string& estimateLine)
{
    using Clock = std::chrono::steady_clock;
    const auto wallStart = Clock::now();
    const uint64_t eventsBefore = Simulator::GetEventCount();
    Ptr<FabricWatchdog> watchdog;
    Ptr<PacketTransport> t = BuildPacketRun(setup.packetDesc, setup.fabric, setup.config.seed, &watchdog);
    if (setup.progress && !estimateLine.empty())
    {
        setup.progress(estimateLine); // once built: a bad attribute stays the one line on stderr
    }
    if (!setup.config.pcapDir.empty())
    {
        FabricPcapHelper::EnablePcap(setup.config.pcapDir + "/packet-flows", t->GetNetwork()->GetNodes());
    }
    FlowsAnswer a;
    a.flows.resize(flows.size());
    FlowRecorder recorder(a.flows);
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const FlowSpec& f = flows[i];
        auto [src, dst] = t->NicPair(f.srcRank, f.dstRank);
        auto [qa, qb] = RdmaNic::Connect(src, dst, f.cls);
        recorder.AddFlow(i, src, qa, dst, qb);
        // One work request of all its bytes: the NIC segments it into MTU
        // packets, the last one carrying the remainder (any size).
        Simulator::Schedule(f.start, [src = src, qa = qa, &f, i]() {
            src->PostSend(qa, f.bytes, f.write, static_cast<uint32_t>(i));
        });
    }
    const std::string total = std::to_string(flows.size());
    PacketWallWatch watch(
        wallStart,
        setup.fabric.wallLimit,
        [&]() {
            return std::to_string(recorder.Complete()) + "/" + total + " flows complete, simulated " +
                   std::to_string(Simulator::Now().GetMicroSeconds()) + " us";
        },
        [&]() { return recorder.Complete() == flows.size(); },
        setup.progress,
        "packet " + total + " flows");
    watch.Start();
    Simulator::Stop(setup.fabric.timeLimit);
    Simulator::Run();
    const Time simulated = Simulator::Now();
    // Not every flow completed and the simulation ended at
    // fabric.time_limit or by the watchdog (a stall): a model outcome of the
    // scenario (PacketStop::UNFINISHED), reported as a stop.
    const bool fired = watchdog && watchdog->HasFired();
    const bool unfinished = recorder.Complete() < flows.size() &&
                            (fired || (setup.fabric.timeLimit.IsStrictlyPositive() && simulated >= setup.fabric.timeLimit));
    if (watch.Stopped() || unfinished)
    {
        // Stopped, not failed; conservation cannot hold mid-flight. The
        // summary row says how far it got (RunFlowComparison throws
        // PacketRunStopped with every row).
        const std::string status = std::to_string(recorder.Complete()) + "/" + total +
                                   " flows complete, simulated " + std::to_string(simulated.GetMicroSeconds()) +
                                   " us";
        const PacketRunCounters k = t->GetCounters();
        a.stop = watch.Stopped() ? watch.Kind() : PacketStop::UNFINISHED;
        const std::string rowStatus = a.stop == PacketStop::INTERRUPT    ? "stopped-by-interrupt"
                                      : a.stop == PacketStop::WALL_LIMIT ? "stopped-at-wall-limit"
                                      : fired                            ? "stalled"
                                                                         : "stopped-at-time-limit";
        a.columns.Set("events", Simulator::GetEventCount() - eventsBefore)
            .Set("data_hops", k.dataHops)
            .Set("control_hops", k.controlHops)
            .Set("wall_s", std::chrono::duration<double>(Clock::now() - wallStart).count())
            .Set("sim_s", simulated.GetSeconds())
            .Set("status", rowStatus);
        const std::string why =
            watch.Stopped()
                ? watch.Reason(setup.config.FieldName("fabric.wall_limit", "--wall-limit")) + " after " +
                      watch.StoppedAt()
            : fired ? "stalled (" + watchdog->GetMessage() + ") after " + status
                    : "did not finish within the simulated time limit of " +
                          units::FormatSeconds(setup.fabric.timeLimit.GetSeconds()) + " (" +
                          setup.config.FieldName("fabric.time_limit", "scenario.fabric.time_limit") + ") after " +
                          status;
        Simulator::Destroy();
        a.stoppedAt = "packet run of " + total + " flows: " + why;
        if (a.stop == PacketStop::UNFINISHED && !setup.fabric.faults.empty())
        {
            // Most likely why: a fault that never ends (README, "Exit status").
            a.stoppedAt += "; under scenario.fabric.faults: " + DescribeFaults(setup.fabric.faults);
        }
        return a;
    }
    std::string failure;
    for (size_t i = 0; i < flows.size() && failure.empty(); ++i)
    {
        const FlowOutcome& o = a.flows[i];
        const FlowSpec& f = flows[i];
        const std::string name = "flow " + std::to_string(i) + " (" + f.src + " -> " + f.dst + ", " +
                                 std::to_string(f.bytes) + " B)";
        if (!o.ack || !o.lastByte)
        {
            failure = name + " did not complete within the time limit of " +
                      std::to_string(setup.fabric.timeLimit.GetSeconds()) + " s simulated";
        }
        else if (o.bytesSent != f.bytes || o.bytesDelivered != f.bytes)
        {
            failure = name + ": " + std::to_string(o.bytesSent) + " B acknowledged, " +
                      std::to_string(o.bytesDelivered) + " B delivered";
        }
    }
    const FabricConservation cons = t->FinishRun();
    if (!cons.ok)
    {
        failure += (failure.empty() ? "" : "; ") + cons.message;
    }
    const PacketRunCounters k = t->GetCounters();
    const uint64_t events = Simulator::GetEventCount() - eventsBefore;
    Simulator::Destroy();
    if (!failure.empty() && !setup.fabric.faults.empty())
    {
        // As a collective's packet run (comparison-backend-packet.cc): what
        // the faults prevent is said as an input error naming them.
        throw InputError("scenario.fabric.faults", "expected faults the packet run can finish under; packet run of "
                                                   "flows: " + failure + "; faults: " +
                                                       DescribeFaults(setup.fabric.faults));
    }
    if (!failure.empty())
    {
        throw std::runtime_error("packet run of flows: " + failure);
    }
    a.columns.Set("drops", k.drops);
    SetDropColumns(a.columns, k, setup.fabric.faults);
    a.columns.Set("pfc_pauses", k.pfcPauses)
        .Set("ecn_marks", k.ecnMarks)
        .Set("events", events)
        .Set("data_hops", k.dataHops)
        .Set("control_hops", k.controlHops)
        .Set("wall_s", std::chrono::duration<double>(Clock::now() - wallStart).count())
        .Set("sim_s", simulated.GetSeconds())
        .Set("status", "complete");
    return a;
}

// --- rows ---

/// The backends of a flows comparison, in row order: the configuration's,
/// or alphabeta and flow for the default list (closed and LogGP have no flow form).
std::vector<std::string>
FlowBackends(const ComparisonConfig& c)
{
    const std::vector<std::string> defaults{"closed", "alphabeta", "loggp", "flow"};
    if (!c.backendsGiven && c.backends == defaults)
    {
        return {"alphabeta", "flow"};
    }
    std::vector<std::string> out;
    for (const std::string& b : c.backends)
    {
        if (b != "alphabeta" && b != "flow" && b != "packet")
        {
            throw InputError(c.FieldName("backends", "--backends"),
                             "expected alphabeta, flow or packet with flows, got '" + b + "' (no flow form)");
        }
    }
    for (const char* b : {"alphabeta", "flow", "packet"})
    {
        if (std::find(c.backends.begin(), c.backends.end(), b) != c.backends.end())
        {
            out.push_back(b);
        }
    }
    return out;
}

void
SetOptional(ResultRow& row, const std::string& key, const std::optional<Time>& t)
{
    t ? row.Set(key, t->GetSeconds()) : row.SetNull(key);
}

/// (x - reference) / reference, null without a reference.
void
SetError(ResultRow& row, double x, std::optional<double> reference)
{
    reference && *reference > 0 ? row.Set("error", (x - *reference) / *reference) : row.SetNull("error");
}

ResultRow
FlowRow(const ComparisonConfig& c,
        const TopologyGraph& graph,
        size_t i,
        const FlowSpec& f,
        const FlowsAnswer& a,
        std::optional<double> packetFct)
{
    const FlowOutcome& o = a.flows[i];
    const double fct = (*o.lastByte - f.start).GetSeconds();
    // The ideal: the bytes at the path's bottleneck line rate (no header
    // deducted) after its base latency (propagation and forwarding).
    const TopologyPath path = PairPath(graph, f.srcRank, f.dstRank);
    const double ideal = static_cast<double>(f.bytes) * 8.0 / static_cast<double>(path.BottleneckRate().GetBitRate()) +
                         path.TotalLatency().GetSeconds();
    ResultRow row;
    row.Set("workload", "flows")
        .Set("flow", static_cast<uint64_t>(i))
        .Set("src", f.src)
        .Set("dst", f.dst)
        .Set("bytes", f.bytes)
        .Set("start_s", f.start.GetSeconds())
        .Set("class", static_cast<int>(f.cls))
        .Set("verb", f.write ? "write" : "send")
        .Set("backend", a.backend);
    SetOptional(row, "last_byte_s", o.lastByte);
    row.Set("fct_s", fct).Set("ideal_s", ideal).Set("slowdown", fct / ideal);
    // The packet row is the reference: no error of its own.
    SetError(row, fct, a.backend == "packet" ? std::nullopt : packetFct);
    SetOptional(row, "ack_s", o.ack);
    const bool packet = a.backend == "packet";
    for (const auto& [key, value] : {std::pair{"retransmissions", o.retransmissions}, std::pair{"cnps", o.cnps},
                                     std::pair{"bytes_sent", o.bytesSent},
                                     std::pair{"bytes_delivered", o.bytesDelivered}})
    {
        packet ? row.Set(key, value) : row.SetNull(key);
    }
    if (o.parameters)
    {
        row.Set("alpha_s", (o.parameters->alpha + c.model.softwareOverhead).GetSeconds())
            .Set("beta_Bps", static_cast<double>(o.parameters->beta.GetBitRate()) / 8.0);
    }
    else
    {
        row.SetNull("alpha_s").SetNull("beta_Bps");
    }
    row.Set("topology", c.topologyName.empty() ? std::string("none") : c.topologyName);
    return row;
}

/// The backend's summary: the last completion and its span from the first
/// start, the total bytes, and the error of the span against the packets'.
uint64_t
TotalBytes(const std::vector<FlowSpec>& flows)
{
    uint64_t total = 0;
    for (const FlowSpec& f : flows)
    {
        total += f.bytes;
    }
    return total;
}

ResultRow
SummaryRow(const ComparisonConfig& c,
           const std::vector<FlowSpec>& flows,
           const FlowsAnswer& a,
           std::optional<double> packetSpan,
           double* span)
{
    Time first = Time::Max();
    Time last(0);
    std::optional<Time> lastAck;
    const uint64_t total = TotalBytes(flows);
    uint64_t sums[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const FlowOutcome& o = a.flows[i];
        first = std::min(first, flows[i].start);
        last = std::max(last, *o.lastByte);
        if (o.ack)
        {
            lastAck = std::max(lastAck.value_or(Time(0)), *o.ack);
        }
        sums[0] += o.retransmissions;
        sums[1] += o.cnps;
        sums[2] += o.bytesSent;
        sums[3] += o.bytesDelivered;
    }
    *span = (last - first).GetSeconds();
    ResultRow row;
    row.Set("workload", "flows")
        .Set("flow", "all")
        .SetNull("src")
        .SetNull("dst")
        .Set("bytes", total)
        .Set("start_s", first.GetSeconds())
        .SetNull("class")
        .SetNull("verb")
        .Set("backend", a.backend)
        .Set("last_byte_s", last.GetSeconds())
        .Set("fct_s", *span)
        .SetNull("ideal_s")
        .SetNull("slowdown");
    SetError(row, *span, a.backend == "packet" ? std::nullopt : packetSpan);
    SetOptional(row, "ack_s", lastAck);
    const bool packet = a.backend == "packet";
    const char* keys[4] = {"retransmissions", "cnps", "bytes_sent", "bytes_delivered"};
    for (int k = 0; k < 4; ++k)
    {
        packet ? row.Set(keys[k], sums[k]) : row.SetNull(keys[k]);
    }
    row.SetNull("alpha_s").SetNull("beta_Bps");
    row.Set("topology", c.topologyName.empty() ? std::string("none") : c.topologyName);
    for (const auto& [key, value] : a.columns.Fields())
    {
        row.Set(key, value);
    }
    return row;
}

} // namespace

void
ApplyScenarioFlows(const nlohmann::json& j, ComparisonConfig& c)
{
    const bool json = j.contains("flows");
    const bool csv = j.contains("flows_csv");
    if (!json && !csv)
    {
        return;
    }
    if (json && csv)
    {
        throw InputError("scenario.flows_csv", "expected either flows or flows_csv, not both");
    }
    const std::string field = json ? "scenario.flows" : "scenario.flows_csv";
    for (const char* k :
         {"collective", "algorithm", "ranks", "sizes", "channels", "slices", "chunk_bytes", "root", "gpus_per_node"})
    {
        if (j.contains(k))
        {
            throw InputError(std::string("scenario.") + k,
                             "expected no collective field in a scenario of flows (" + field +
                                 " replaces the collective)");
        }
    }
    if (json)
    {
        c.flows = ParseFlowsJson(j.at("flows"), field);
        return;
    }
    if (!j.at("flows_csv").is_string() || j.at("flows_csv").get<std::string>().empty())
    {
        throw InputError(field, "expected the path of a flow list CSV, got " + j.at("flows_csv").dump());
    }
    std::string path = j.at("flows_csv").get<std::string>();
    if (path[0] != '/' && !c.scenarioDirectory.empty())
    {
        path = c.scenarioDirectory + "/" + path;
    }
    c.flows = ReadFlowsCsv(path, field);
}

std::vector<ResultRow>
RunFlowComparison(const ComparisonConfig& c, std::function<void(const std::string&)> progress)
{
    if (!c.topology)
    {
        throw InputError("--topology", "expected a topology: flows name its hosts");
    }
    for (const std::string& p : c.params)
    {
        if (p != "derived")
        {
            throw InputError(c.FieldName("params", "--params"),
                             "expected derived with flows (calibration fits a collective's messages), got '" + p +
                                 "'");
        }
    }
    const std::vector<std::string> backends = FlowBackends(c);
    if (std::find(backends.begin(), backends.end(), "packet") != backends.end())
    {
        // The packet run stops at its simulated time limit: a flow that
        // starts at or after it could never be delivered.
        for (size_t i = 0; i < c.flows.size(); ++i)
        {
            if (c.flows[i].start >= c.fabric.timeLimit)
            {
                throw InputError(c.FieldName("flows_csv", "scenario.flows") + "[" + std::to_string(i) + "].start",
                                 "expected a start before the packet run's time limit (fabric.time_limit, " +
                                     units::FormatSeconds(c.fabric.timeLimit.GetSeconds()) + "), got " +
                                     units::FormatSeconds(c.flows[i].start.GetSeconds()));
            }
        }
    }
    std::vector<FlowSpec> flows = c.flows;
    ResolveFlowHosts(flows, *c.topology);
    const ComparisonSetup setup(c, std::move(progress));
    std::string estimateLine;
    if (std::find(backends.begin(), backends.end(), "packet") != backends.end())
    {
        // Estimated, and refused if it would not fit in memory, before anything runs.
        std::vector<EstimateMessage> messages;
        for (const FlowSpec& f : flows)
        {
            messages.push_back({f.srcRank, f.dstRank, f.bytes});
        }
        const std::string label = std::to_string(flows.size()) + (flows.size() == 1 ? " flow" : " flows");
        const PacketRunEstimate e = EstimatePacketRun(*setup.graph, setup.fabric, messages);
        CheckPacketRunMemory(e, label, setup.fabric.forceMemory, "--force-memory");
        estimateLine = e.Line(label);
    }

    std::vector<FlowsAnswer> answers;
    for (const std::string& b : backends)
    {
        answers.push_back(b == "alphabeta" ? RunAlphaBeta(setup, flows)
                          : b == "flow"    ? RunMaxMin(setup, flows)
                                           : RunPacketFlows(setup, flows, estimateLine));
        answers.back().backend = b;
        for (size_t i = 0; i < flows.size() && answers.back().stoppedAt.empty(); ++i)
        {
            if (!answers.back().flows[i].lastByte)
            {
                throw std::runtime_error(b + " run of flows: flow " + std::to_string(i) + " was not delivered");
            }
        }
    }
    // A packet run stopped by its wall-clock limit has no flow outcomes: the
    // other backends' rows stand, its own is one summary row saying so.
    std::optional<FlowsAnswer> stopped;
    if (!answers.empty() && !answers.back().stoppedAt.empty())
    {
        stopped = answers.back();
        answers.pop_back();
    }
    const FlowsAnswer* packet = nullptr;
    for (const FlowsAnswer& a : answers)
    {
        packet = a.backend == "packet" ? &a : packet;
    }
    std::vector<ResultRow> rows;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        std::optional<double> packetFct;
        if (packet)
        {
            packetFct = (*packet->flows[i].lastByte - flows[i].start).GetSeconds();
        }
        for (const FlowsAnswer& a : answers)
        {
            rows.push_back(FlowRow(c, *setup.graph, i, flows[i], a, packetFct));
        }
    }
    std::optional<double> packetSpan;
    double span = 0;
    if (packet)
    {
        SummaryRow(c, flows, *packet, std::nullopt, &span);
        packetSpan = span;
    }
    for (const FlowsAnswer& a : answers)
    {
        rows.push_back(SummaryRow(c, flows, a, packetSpan, &span));
    }
    if (stopped)
    {
        ResultRow row;
        row.Set("workload", "flows").Set("flow", "all").Set("backend", "packet").Set("bytes", TotalBytes(flows));
        for (const char* key : {"last_byte_s", "fct_s", "error", "ack_s"})
        {
            row.SetNull(key);
        }
        row.Set("topology", c.topologyName.empty() ? std::string("none") : c.topologyName);
        for (const auto& [key, value] : stopped->columns.Fields())
        {
            row.Set(key, value);
        }
        rows.push_back(row);
        throw PacketRunStopped(stopped->stoppedAt, rows, stopped->stop);
    }
    return rows;
}

} // namespace ns3
