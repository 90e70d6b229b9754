// SPDX-License-Identifier: GPL-2.0-only
//
// Backend "packet": the executor on the packet-level fabric (PacketTransport),
// with the simulated-time watchdog, a wall-clock limit per run and, after the
// run, the fabric's conservation check. Its time is the reference the other
// rows' error is measured against, and its counters decide the
// congestion-control regime (comparison-regime.h).
#include "accuracy-traces.h"
#include "collective-executor.h"
#include "comparison-backend.h"
#include "comparison-packet-fabric.h"
#include "fabric-channel.h"
#include "fabric-fault-injector.h"
#include "fabric-pcap-helper.h"
#include "input-error.h"
#include "units.h"

#include "lazy-heap-scheduler.h"
#include "partitioned-run-end.h"
#include "tie-keyed-events.h"

#include "ns3/boolean.h"
#include "ns3/global-value.h"
#include "ns3/string.h"
#include "ns3/simulator.h"

#ifdef NS3_MPI
#include "fabric-remote-channel.h"

#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <tuple>

#include <sys/resource.h>

namespace ns3
{

namespace
{

struct PacketResult
{
    Time time;                  ///< the collective's time (unset if stopped)
    PacketRunCounters counters;
    uint64_t events = 0;        ///< ns-3 events executed by the run
    double wallSeconds = 0;     ///< wall-clock time of the run (build to finish)
    Time simulated;             ///< simulated time the run reached
    uint64_t peakRssBytes = 0;  ///< peak resident memory (see PeakRssBytes)
    bool stopped = false;       ///< stopped before it finished
    PacketStop stop = PacketStop::WALL_LIMIT; ///< why, when stopped
    std::string status = "complete"; ///< the row's status
    std::string stoppedAt;      ///< how far it got, when stopped
};

/// Peak resident memory of the process so far, in bytes: VmHWM of
/// /proc/self/status, else getrusage's. Not reset per run: resetting it
/// (/proc/self/clear_refs) would also hide earlier peaks from a parent's
/// wait4, and a run is usually the process's largest part anyway.
uint64_t
PeakRssBytes()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::stoull(line.substr(6)) * 1024; // "VmHWM:   123456 kB"
        }
    }
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

/// What a packet run writes besides its row (ComparisonConfig's outputs).
struct PacketOutputs
{
    std::vector<ExecutedOp>* ops = nullptr; ///< each op, when given
    const TopologyGraph* graph = nullptr;   ///< the fabric's graph (port names of the traces)
    std::string tracesDir;                  ///< time series, when non-empty
    Time traceInterval;
    std::string pcapDir;                    ///< pcap of every port, when non-empty
    std::string estimateLine;               ///< printed once the fabric is built, when non-empty
};

/// A partitioned run that ends at the last delivery runs twice (doc/fabric.md,
/// "hockney compare under mpirun"): a probe to the drain end that learns the
/// place of the last delivery's event, then the run whose rows count, every
/// rank stopped at that place.
struct DeliveryEnd
{
    bool probe = false;                     ///< the first run
    std::shared_ptr<const EventPlace> last; ///< the second: the last delivery's place
    uint32_t lastRank = 0;                  ///< the rank that runs it
    uint64_t channelsBefore = 0;            ///< the probe's FabricChannel::GetCreatedCount at its start
};

/// Under mpirun (ComparisonFabric::mpiSimulator): ns-3's distributed
/// simulator on MPI_COMM_WORLD for one packet run, chosen before the
/// simulator is first touched.
void
EnterPartitionedRun(const ComparisonFabric& f)
{
#ifdef NS3_MPI
    if (!f.mpiSimulator.empty() && !MpiInterface::IsEnabled())
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(f.mpiSimulator));
        MpiInterface::Enable(MPI_COMM_WORLD);
    }
    if (MpiInterface::IsEnabled())
    {
        return;
    }
#endif
    if (f.mpiSimulator.empty())
    {
        // One process: ns-3's simulator semantics without the per-event log
        // checks of Debian's build (FastSimulatorImpl; the same events in
        // the same order, so the same outputs and `events`).
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FastSimulatorImpl"));
    }
}

/// Simulator::Destroy; after a run over MPI ranks, the simulator of one
/// process again for what follows, and MpiInterface disabled: ns-3.37's
/// granted-time-window simulator frees its receive buffers when destroyed
/// (DistributedSimulatorImpl::Destroy -> GrantedTimeWindowMpiInterface::Destroy)
/// and can only be enabled anew (a fresh duplicate of the communicator, its
/// buffers and receives posted again: EnterPartitionedRun); the
/// null-message one frees its buffers in Disable. Every message of the run
/// was received when it ends (both algorithms run until every rank has
/// received what was sent to it), so none is left for the next run's
/// communicator (a new one: MPI never matches across communicators).
void
DestroySimulator(uint32_t mpiRanks)
{
    Simulator::Destroy();
    if (mpiRanks > 1)
    {
#ifdef NS3_MPI
        if (MpiInterface::IsEnabled())
        {
            MpiInterface::Disable();
        }
#endif
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    }
}

PacketResult
RunPacketOnce(const ComparisonPoint& pt,
              const TopologyDescription& desc,
              const ComparisonFabric& f,
              uint32_t seed,
              const std::function<void(const std::string&)>& progress,
              const std::string& wallField,
              const std::string& timeField,
              const PacketOutputs& outputs,
              DeliveryEnd* deliveryEnd)
{
    using Clock = std::chrono::steady_clock;
    const auto wallStart = Clock::now();
    EnterPartitionedRun(f);
#ifdef NS3_MPI
    const uint64_t messageEventsBefore = FabricRemoteChannel::GetMessageEvents();
#endif
    // The probe records every event's place (EventLineage), from the start.
    EventLineage lineage;
    struct LineageOn
    {
        explicit LineageOn(EventLineage* l) { tie_keys::g_lineage = l; }
        ~LineageOn() { tie_keys::g_lineage = nullptr; }
    };
    std::optional<LineageOn> lineageOn;
    if (deliveryEnd && deliveryEnd->probe)
    {
        lineageOn.emplace(&lineage);
    }
    const bool replay = deliveryEnd && !deliveryEnd->probe;
    // This run's links' tie keys start here (a place of the probe's, StopAfterPlace).
    const uint64_t channelsBefore = FabricChannel::GetCreatedCount();
    if (deliveryEnd && deliveryEnd->probe)
    {
        deliveryEnd->channelsBefore = channelsBefore;
    }
    const uint64_t eventsBefore = Simulator::GetEventCount();
    Ptr<FabricWatchdog> watchdog;
    Ptr<PacketTransport> t = BuildPacketRun(desc, f, seed, &watchdog);
    if (progress && !outputs.estimateLine.empty())
    {
        progress(outputs.estimateLine);
    }
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false));
    exec->SetAttribute("TimeLimit", TimeValue(f.timeLimit));
    ApplyEndpoint(exec, pt);
    // A partitioned run (ranks > 1: MPI) or a one-process run that must match
    // one: the drain end every rank agrees on.
    const TopologyPartition& partition = t->GetNetwork()->GetPartition();
    const uint32_t mpiRanks = partition.ranks;
    Ptr<PartitionedRunEnd> end;
    std::shared_ptr<const EventPlace> localDonePlace; // the probe's
    uint64_t placeEvents = 0;                         // the second run's: StopAfterPlace
    std::vector<uint32_t> owner;                      // each GPU's MPI rank
    if (mpiRanks > 1)
    {
        const TopologyGraph& g = t->GetNetwork()->GetTopology();
        owner.resize(pt.schedule.GetRanks());
        for (uint32_t gpu = 0; gpu < owner.size(); ++gpu)
        {
            owner[gpu] = partition.owner[g.EndpointNode(gpu)];
        }
#ifdef NS3_MPI
        exec->SetPartition(owner, MpiInterface::GetSystemId());
        if (replay && MpiInterface::GetSystemId() != deliveryEnd->lastRank)
        {
            placeEvents = PartitionedRunEnd::StopAfterPlace(deliveryEnd->last,
                                                            channelsBefore - deliveryEnd->channelsBefore);
        }
#endif
    }
    if (!replay && (f.drainEnd || mpiRanks > 1))
    {
        const TopologyGraph& g = t->GetNetwork()->GetTopology();
        Time drain(0);
        for (uint32_t l = 0; l < g.LinkCount(); ++l)
        {
            drain = std::max(drain, g.LinkTier(l).delay);
        }
        end = CreateObject<PartitionedRunEnd>();
        end->Setup(drain, [drain](Time last) { PartitionedRunEnd::StopAt(last + drain + PicoSeconds(1)); });
    }
    RecordOps(exec, outputs.ops);
    // One run per size: its files are named by the size.
    const std::string runName = "packet-" + std::to_string(pt.spec.bytes);
    if (!outputs.pcapDir.empty())
    {
        FabricPcapHelper::EnablePcap(outputs.pcapDir + "/" + runName, t->GetNetwork()->GetNodes());
    }
    std::unique_ptr<PacketTraceRecorder> recorder;
    if (!outputs.tracesDir.empty())
    {
        recorder = std::make_unique<PacketTraceRecorder>(*outputs.graph, t);
        recorder->Start(exec, outputs.traceInterval);
    }
    // Written whether the run finished or stopped: the series up to the stop
    // show where it was.
    auto writeTraces = [&]() {
        if (recorder)
        {
            recorder->WriteCsv(outputs.tracesDir, runName);
        }
    };
    // A progress line every few wall-clock seconds of a long packet run.
    const uint32_t total = static_cast<uint32_t>(pt.schedule.GetOps().size());
    PacketWallWatch watch(
        wallStart,
        f.wallLimit,
        [&]() {
            return std::to_string(exec->GetDeliveredOps()) + "/" + std::to_string(total) +
                   " messages delivered, simulated " + std::to_string(Simulator::Now().GetMicroSeconds()) + " us";
        },
        // With an agreed end the checks go on to it, on every rank alike
        // (a rank's own part may be complete long before the run's end).
        [&]() { return !end && !replay && exec->IsComplete(); },
        progress,
        "packet " + ToString(pt.spec.collective) + " " + pt.spec.algorithm + " " + std::to_string(pt.spec.bytes) +
            " B");
    watch.Start();
    // Over MPI ranks: numbers added, or gathered, over every rank.
    FabricSumOverRanks sumOverRanks;
    std::function<std::vector<uint64_t>(const std::vector<uint64_t>&)> gatherOverRanks;
#ifdef NS3_MPI
    if (mpiRanks > 1)
    {
        sumOverRanks = [](std::vector<uint64_t>& v) {
            MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_SUM,
                          MpiInterface::GetCommunicator());
        };
        gatherOverRanks = [mpiRanks](const std::vector<uint64_t>& mine) {
            const int n = static_cast<int>(mine.size());
            std::vector<int> counts(mpiRanks);
            MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MpiInterface::GetCommunicator());
            std::vector<int> displs(mpiRanks);
            int total = 0;
            for (uint32_t i = 0; i < mpiRanks; ++i)
            {
                displs[i] = total;
                total += counts[i];
            }
            std::vector<uint64_t> all(static_cast<size_t>(total));
            MPI_Allgatherv(mine.data(), n, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T,
                           MpiInterface::GetCommunicator());
            return all;
        };
    }
#endif
    PacketResult r;
    auto measure = [&]() {
        if (gatherOverRanks && watchdog)
        {
            // Each rank's watchdog saw its own ports' storms: every rank's,
            // in the order one process lists them (the rows' pfc_storms).
            watchdog->GatherPfcStorms(gatherOverRanks);
        }
        if (outputs.ops && sumOverRanks)
        {
            // Each op's start is known at its sender's rank, its delivery
            // at its receiver's (whose OpCompleted recorded it): the one
            // process's list, every op delivered (the rows sort it by op).
            const auto& ops = pt.schedule.GetOps();
            const size_t n = ops.size();
            std::vector<uint64_t> v(3 * n, 0);
#ifdef NS3_MPI
            const uint32_t self = MpiInterface::GetSystemId();
            for (size_t i = 0; i < n; ++i)
            {
                if (owner[ops[i].src] == self)
                {
                    v[i] = static_cast<uint64_t>(exec->GetOpStartTimes()[i].GetTimeStep());
                }
                if (owner[ops[i].dst] == self && exec->GetOpDeliveryTimes()[i].IsStrictlyPositive())
                {
                    v[n + i] = static_cast<uint64_t>(exec->GetOpDeliveryTimes()[i].GetTimeStep());
                    v[2 * n + i] = 1;
                }
            }
#endif
            sumOverRanks(v);
            outputs.ops->clear();
            const Time start = exec->GetStartTime();
            for (size_t i = 0; i < n; ++i)
            {
                if (v[2 * n + i])
                {
                    const ScheduleOp& op = ops[i];
                    outputs.ops->push_back(ExecutedOp{static_cast<uint32_t>(i), op.src, op.dst, op.bytes, op.step,
                                                      TimeStep(static_cast<int64_t>(v[i])) - start,
                                                      TimeStep(static_cast<int64_t>(v[n + i])) - start});
                }
            }
        }
        r.counters = t->GetCounters();
        r.events = Simulator::GetEventCount() - eventsBefore;
        r.simulated = Simulator::Now();
        r.wallSeconds = std::chrono::duration<double>(Clock::now() - wallStart).count();
        r.peakRssBytes = PeakRssBytes();
#ifdef NS3_MPI
        if (mpiRanks > 1)
        {
            // Summed over the ranks; the events without what only MPI runs
            // have: crossings' receipts, the other ranks' nodes'
            // initialization (FabricRemoteChannel::GetMpiOnlyEvents), the
            // end's receipts and its own node's and devices' initialization
            // (PartitionedRunEnd::GetOwnEvents), and every rank's stop but one.
            // And the wall watch's checks, which every rank runs alike: rank 0's count.
            Ptr<FabricFaultInjector> injector = t->GetObject<FabricFaultInjector>();
            // The delivery end's second run: the events in the last
            // delivery's place on the other ranks (StopAfterPlace), and no
            // stop event (one process stops in the delivery's event).
            const uint64_t mpiOnly = FabricRemoteChannel::GetMpiOnlyEvents() - messageEventsBefore +
                                     (end ? end->GetOwnEvents() + 1 : placeEvents) +
                                     (MpiInterface::GetSystemId() == 0 ? 0 : watch.GetChecks()) +
                                     (injector ? injector->GetReplicaEvents() : 0);
            PacketRunCounters& k = r.counters;
            uint64_t events = r.events - mpiOnly;
            std::vector<uint64_t*> fields = {&k.bytesSent, &k.bytesDelivered, &k.drops,       &k.pfcPauses, &k.ecnMarks,
                                             &k.cnps,      &k.dataHops,       &k.controlHops, &events};
            for (auto& d : k.dropsBy)
            {
                fields.push_back(&d);
            }
            SumOverRanks(sumOverRanks, fields);
            r.events = events + (end ? 1 : 0);
            // The slowest rank's wall time, the largest rank's memory.
            MPI_Allreduce(MPI_IN_PLACE, &r.wallSeconds, 1, MPI_DOUBLE, MPI_MAX, MpiInterface::GetCommunicator());
            MPI_Allreduce(MPI_IN_PLACE, &r.peakRssBytes, 1, MPI_UINT64_T, MPI_MAX,
                          MpiInterface::GetCommunicator());
        }
#endif
    };
    try
    {
        std::function<void()> onDone;
        if (end)
        {
            onDone = [&, end]() {
                localDonePlace = lineage.Current();
                end->LocalDone();
            };
        }
        else if (replay)
        {
            // The rank of the last delivery stops in its event, as one
            // process; the others in its place (StopAfterPlace).
#ifdef NS3_MPI
            const bool last = MpiInterface::GetSystemId() == deliveryEnd->lastRank;
#else
            const bool last = true;
#endif
            onDone = last ? std::function<void()>([]() { Simulator::Stop(); }) : std::function<void()>([]() {});
        }
        r.time = exec->Run(pt.schedule, t, onDone);
        if (end)
        {
            r.time = end->GetEnd() - exec->GetStartTime();
        }
        else if (replay)
        {
            r.time = TimeStep(static_cast<int64_t>(deliveryEnd->last->ts)) - exec->GetStartTime();
        }
    }
    catch (const std::runtime_error& e)
    {
        // The executor did not finish: stopped by the wall watch (its limit
        // or an interrupt), or the simulation itself ended without the
        // collective, at fabric.time_limit or by the watchdog (a stall).
        // Anything else is a failure of the program and goes on.
        const bool fired = watchdog && watchdog->HasFired();
        const bool timeLimit = f.timeLimit.IsStrictlyPositive() && Simulator::Now() >= f.timeLimit;
        if (!watch.Stopped() && (exec->IsComplete() || !(fired || timeLimit)))
        {
            if (f.faults.empty() || exec->IsComplete())
            {
                throw; // a failure of the program, faults or not
            }
            // The simulation ran out of events before the time limit with
            // the collective unfinished: the faults are why (nothing is left
            // that could finish it), which is said as an input error naming
            // them, not an internal failure. A run still going at
            // fabric.time_limit is a stop instead (exit 4, the faults named
            // in its message): README, "Exit status".
            throw InputError("scenario.fabric.faults",
                             "expected faults the packet run can finish under (it ended at simulated " +
                                 units::FormatSeconds(Simulator::Now().GetSeconds()) +
                                 " with nothing left to do); " + e.what() + "; faults: " +
                                 DescribeFaults(f.faults));
        }
        // Stopped, not failed: what the run did so far is reported (the
        // rows say how far it got); conservation cannot hold mid-flight.
        const std::string delivered = std::to_string(exec->GetDeliveredOps()) + "/" + std::to_string(total) +
                                      " messages delivered, simulated " +
                                      std::to_string(Simulator::Now().GetMicroSeconds()) + " us";
        measure();
        writeTraces();
        DestroySimulator(mpiRanks);
        r.stopped = true;
        const std::string run = "packet run of " + ToString(pt.spec.collective) + " " + pt.spec.algorithm + " " +
                                std::to_string(pt.spec.bytes) + " B on " + std::to_string(pt.spec.ranks) + " ranks: ";
        if (watch.Stopped())
        {
            r.stop = watch.Kind();
            r.status = r.stop == PacketStop::INTERRUPT ? "stopped-by-interrupt" : "stopped-at-wall-limit";
            r.stoppedAt = run + watch.Reason(wallField) + " after " + watch.StoppedAt();
        }
        else
        {
            r.stop = PacketStop::UNFINISHED;
            r.status = fired ? "stalled" : "stopped-at-time-limit";
            r.stoppedAt = run +
                          (fired ? "stalled (" + watchdog->GetMessage() + ")"
                                 : "did not finish within the simulated time limit of " +
                                       units::FormatSeconds(f.timeLimit.GetSeconds()) + " (" + timeField + ")") +
                          " after " + delivered;
            if (!f.faults.empty())
            {
                // Most likely why: a fault that never ends (README, "Exit status").
                r.stoppedAt += "; under scenario.fabric.faults: " + DescribeFaults(f.faults);
            }
        }
        return r;
    }
    measure();
#ifdef NS3_MPI
    if (mpiRanks > 1)
    {
        // Each rank's watchdog watches its own ports: a stall anywhere fails the run.
        int fired = watchdog && watchdog->HasFired() ? 1 : 0;
        MPI_Allreduce(MPI_IN_PLACE, &fired, 1, MPI_INT, MPI_MAX, MpiInterface::GetCommunicator());
        if (fired)
        {
            throw std::runtime_error("packet run of " + pt.schedule.GetName() + " over " +
                                     std::to_string(mpiRanks) + " ranks: the watchdog of a rank fired" +
                                     (watchdog->HasFired() ? " (this rank's: " + watchdog->GetMessage() + ")" : ""));
        }
    }
#endif
    // Over MPI ranks the same check on every rank, over every rank's ports
    // (a port's own check cannot see a packet that crossed to another rank):
    // the same verdict and message as one process.
    const FabricConservation cons = t->FinishRun(sumOverRanks);
    if (!cons.ok)
    {
        throw std::runtime_error("packet run of " + pt.schedule.GetName() + ": " + cons.message);
    }
    if (deliveryEnd && deliveryEnd->probe && gatherOverRanks)
    {
        // Every rank's last delivery's place, and the one one process runs
        // last: the latest time, then the order of their places.
        const std::vector<uint64_t> all = gatherOverRanks(PartitionedRunEnd::EncodePlace(localDonePlace.get()));
        size_t at = 0;
        bool found = false;
        for (uint32_t rank = 0; rank < mpiRanks; ++rank)
        {
            std::shared_ptr<const EventPlace> place = PartitionedRunEnd::DecodePlace(all, at);
            if (!place)
            {
                continue; // done before the run: nothing delivered there
            }
            const int order = found ? EventLineage::Order(place.get(), deliveryEnd->last.get()) : 1;
            if (order == 0)
            {
                throw std::runtime_error("packet run of " + pt.schedule.GetName() +
                                         ": the last deliveries of MPI ranks " + std::to_string(deliveryEnd->lastRank) +
                                         " and " + std::to_string(rank) +
                                         " cannot be ordered as one process orders them (--end=drain ends alike)");
            }
            if (order > 0)
            {
                deliveryEnd->last = place;
                deliveryEnd->lastRank = rank;
                found = true;
            }
        }
        if (!found || TimeStep(static_cast<int64_t>(deliveryEnd->last->ts)) != end->GetEnd())
        {
            throw std::logic_error("packet run of " + pt.schedule.GetName() +
                                   ": the ranks' last deliveries do not end the run");
        }
    }
    writeTraces();
    DestroySimulator(mpiRanks);
    return r;
}

/// \p once (RunPacketOnce with the point's inputs) to the end \p f asks for.
PacketResult
RunPacket(const ComparisonFabric& f,
          const PacketOutputs& outputs,
          const std::function<PacketResult(const PacketOutputs&, DeliveryEnd*)>& once)
{
    if (f.mpiSimulator.empty() || f.drainEnd)
    {
        return once(outputs, nullptr);
    }
    // Over MPI ranks to the last delivery: the probe (no outputs), then the
    // run that counts; the wall time is both's.
    DeliveryEnd deliveryEnd;
    deliveryEnd.probe = true;
    const PacketOutputs none{nullptr, outputs.graph, "", outputs.traceInterval, "", outputs.estimateLine};
    const PacketResult probe = once(none, &deliveryEnd);
    if (probe.stopped)
    {
        return probe;
    }
    deliveryEnd.probe = false;
    PacketOutputs counted = outputs;
    counted.estimateLine.clear(); // said once
    PacketResult r = once(counted, &deliveryEnd);
    r.wallSeconds += probe.wallSeconds;
    return r;
}

class PacketBackend : public ComparisonBackend
{
  public:
    std::string Name() const override { return "packet"; }

    bool NeedsTopology() const override { return true; }

    BackendAnswer Run(const ComparisonPoint& point, ComparisonContext& context) const override
    {
        const ComparisonSetup& setup = context.Setup();
        const ComparisonFabric& fabric = setup.fabric;
        BackendAnswer a;
        const ComparisonConfig& c = setup.config;
        const PacketOutputs outputs{RecordsOps(setup) ? &a.ops : nullptr, setup.graph.get(), c.tracesDir,
                                    c.traceInterval, c.pcapDir, context.packetEstimateLine};
        const std::string wallField = c.FieldName("fabric.wall_limit", "--wall-limit");
        const std::string timeField = c.FieldName("fabric.time_limit", "scenario.fabric.time_limit");
        const PacketResult packet =
            RunPacket(fabric, outputs, [&](const PacketOutputs& o, DeliveryEnd* deliveryEnd) {
                return RunPacketOnce(point, setup.packetDesc, fabric, c.seed, setup.progress, wallField, timeField, o,
                                     deliveryEnd);
            });
        a.time = packet.time;
        a.reference = true;
        const PacketRunCounters& k = packet.counters;
        a.congestionControlActed = k.pfcPauses > 0 || k.cnps > 0;
        a.stoppedAt = packet.stoppedAt;
        a.stop = packet.stop;
        a.columns.Set("bytes_sent", k.bytesSent)
            .Set("bytes_delivered", k.bytesDelivered)
            .Set("drops", k.drops);
        SetDropColumns(a.columns, k, fabric.faults);
        if (!fabric.faults.empty())
        {
            a.columns.Set("faults_seen",
                          FaultsSeen(fabric.faults, {"link_down", "slow_link", "pfc_storm", "lossy_link"}));
        }
        a.columns.Set("pfc_pauses", k.pfcPauses)
            .Set("ecn_marks", k.ecnMarks)
            .Set("cnps", k.cnps)
            .Set("events", packet.events)
            .Set("data_hops", k.dataHops)
            .Set("control_hops", k.controlHops)
            .Set("wall_s", packet.wallSeconds)
            .Set("sim_s", packet.simulated.GetSeconds())
            .Set("peak_rss_bytes", packet.peakRssBytes)
            .Set("status", packet.status);
        // The transfer units, where they apply: the bytes one packet
        // of the NVLink / PCIe tiers stands for (0: every link packet).
        const TopologyDescription& desc = setup.packetDesc;
        for (const auto& [key, protocol, unit] :
             {std::tuple{"transfer_unit_bytes", "nvlink", fabric.NvlinkUnit()},
              std::tuple{"pcie_transfer_unit_bytes", "pcie", fabric.PcieUnit()}})
        {
            // Copied into the lambda: C++17 cannot capture a structured binding.
            const bool applies = std::any_of(desc.tiers.begin(), desc.tiers.end(),
                                             [tierProtocol = protocol](const TopologyTier& t) { return t.protocol == tierProtocol; });
            applies ? a.columns.Set(key, static_cast<uint64_t>(unit)) : a.columns.SetNull(key);
        }
        // The network transfer unit: data bytes one packet of the RoCE /
        // InfiniBand NICs stands for (0: every MTU packet); null without NICs
        // on such links.
        const bool network = std::any_of(desc.tiers.begin(), desc.tiers.end(), [](const TopologyTier& t) {
            return FabricNetwork::CarriesNetworkUnit(t) && t.protocol != "pcie";
        });
        network ? a.columns.Set("network_transfer_unit_bytes", static_cast<uint64_t>(fabric.networkTransferUnitBytes))
                : a.columns.SetNull("network_transfer_unit_bytes");
        return a;
    }
};

} // namespace

std::unique_ptr<ComparisonBackend>
MakePacketBackend()
{
    return std::make_unique<PacketBackend>();
}

} // namespace ns3
