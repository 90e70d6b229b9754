// SPDX-License-Identifier: GPL-2.0-only
//
// hockney compare: one collective, every backend, the same topology
// (contrib/collective/doc/collective.md, "hockney compare"). Flags override the
// fields of --scenario.
#include "calibration-parameters.h"
#include "collective-algorithms.h"
#include "collective-comparison.h"
#include "comparison-mpi.h"
#include "flags.h"
#include "mpi-world.h"
#include "input-error.h"
#include "nccl-protocol.h"
#include "result-row.h"
#include "topology-presets.h"
#include "units.h"

#include "ns3/global-value.h"
#include "ns3/string.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

#include <algorithm>
#include <sstream>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <tuple>

namespace
{

/// Every registered algorithm name, each once, in the order of the collectives
/// and of their registry entries: a new algorithm file shows up here unedited.
std::string
AlgorithmNamesHelp()
{
    using K = ns3::CollectiveKind;
    std::vector<std::string> names;
    for (K k : {K::ALL_REDUCE, K::ALL_GATHER, K::REDUCE_SCATTER, K::BROADCAST, K::ALL_TO_ALL, K::INCAST})
    {
        for (const auto& n : ns3::AlgorithmsOf(k))
        {
            if (std::find(names.begin(), names.end(), n) == names.end())
            {
                names.push_back(n);
            }
        }
    }
    return hockney::Join(names, " | ") +
           " | auto (NCCL's choice per size over these x protocols; doc/collective.md) (default: the collective's first)";
}

void
DeclareCompareFlags(hockney::Flags& f)
{
    f.Add("topology", "dgx-h100", "topology preset (dgx-h100, rail-h100-Nn, roce-leafspine[:oversubscription=R], ...)")
        .Add("scenario", "", "JSON scenario file (topology, collective, algorithm, sizes, backends, model, fabric)")
        .Add("collective", "allreduce", "allreduce | allgather | reducescatter | broadcast | alltoall | incast")
        .Add("algorithm", "", AlgorithmNamesHelp())
        .Add("protocol", "", "NCCL protocol: auto | simple | ll128 | ll (wire bytes, per-step latency, launch; "
                             "default: none, the schedule's bytes without endpoint latencies)")
        .Add("launch-overhead", "", "with a protocol: host kernel-launch time before NCCL's base latency "
                                    "(default 0s, multi-process; single-process 8 x H100: see doc/collective.md)")
        .Add("dependencies", "instant", "how a delivery releases the ops another GPU sends that wait for it: "
                                        "instant (at once, shared memory; the closed forms') | message (an 8 B "
                                        "notification through the backend's network; mpirun needs it for "
                                        "dependencies across ranks); doc/collective.md")
        .Add("ranks", "", "ranks (default: every endpoint of the topology)")
        .Add("bytes", "1MB", "sizes as nccl-tests counts them, e.g. 1KB,1MB,1GB")
        .Add("backends", "closed,alphabeta,loggp,flow", "closed,gbn,alphabeta,loggp,flow,packet (gbn: closed with the go-back-N loss of fabric.faults)")
        .Add("channels", "1", "NCCL-style channels (independent copies of the algorithm)")
        .Add("slices", "1", "pipeline slices per channel")
        .Add("chunk-bytes", "2MiB", "hierarchical: pipeline chunk, bytes a rank sends per intra-node step of one "
                                    "chunk (NCCL's Simple ring chunkSize; 0: --slices chunks, the phases in "
                                    "sequence when 1)")
        .Add("root", "0", "root rank of broadcast and incast")
        .Add("gpus-per-node", "", "hierarchical: ranks per server (default: from the topology)")
        .Add("params", "derived", "analytic parameters: derived (from the topology's paths), calibrated (fitted to "
                                  "a packet-level point-to-point sweep) or derived,calibrated")
        .Add("alpha", "", "given alpha for every analytic backend (with --beta) instead of the derived one")
        .Add("beta", "", "given beta (with --alpha)")
        .Add("calibration", "", "given alpha and beta from a parameter file of hockney calibrate --output "
                                "(its alphabeta fit of this collective, else of any); not with --alpha/--beta")
        .Add("contention", "none", "contention policy of the alphabeta backend: none | endpoint (links shared "
                                   "over the topology's routes: the flow backend)")
        .Add("wall-limit", "600s", "packet backend: wall-clock limit of each packet run (0s: stop at once); "
                                  "when reached, every row is printed (packet status stopped-at-wall-limit, later "
                                  "sizes not-run-after-wall-limit) and compare exits 3")
        .Add("scheduler", "ns3::RingCalendarScheduler",
             "packet backend: the simulator's event queue (an ns-3 scheduler TypeId; ns3::MapScheduler is ns-3's "
             "default); results are the same with every one, the speed is not")
        .Add("partition", "auto", "packet backend under mpirun: which MPI rank owns each node of the fabric: "
                                  "auto | pod | rank-map:FILE (lines NODE RANK); see doc/fabric.md, MPI")
        .Add("end", "delivery", "packet backend: where a run stops: delivery (at the last delivery) or drain (the "
                                "longest link delay + 1 ps after it, what a run over MPI ranks can agree on; "
                                "mpirun needs it, and the one-process run compared with it)")
        .Add("sync", "gtw", "packet backend under mpirun: ns-3's synchronisation, gtw (granted time window) or "
                            "nullmsg (null messages); one process: ignored")
        .AddSwitch("force-memory", "packet backend: start a run whose memory estimate (printed on stderr before "
                                   "each packet run) exceeds the memory available (MemAvailable, or "
                                   "HOCKNEY_MEMORY_AVAILABLE); without it such a run is refused, exit 2")
        .Add("transfer-unit", "", "packet backend, NVLink: bytes per simulated transfer unit, framed as its "
                                  "256 B link packets (0: every link packet; default: see doc/collective.md)")
        .Add("pcie-transfer-unit", "0", "packet backend, PCIe: the same for PCIe links (also the RDMA packet of a "
                                        "NIC behind one)")
        .Add("network-transfer-unit", "0", "packet backend, RoCE/InfiniBand: bytes of data a NIC sends as one "
                                            "simulated packet, framed as its MTU packets (0: every MTU packet; a "
                                            "multiple of the NIC's MTU; doc/fabric.md, Network transfer units)")
        .Add("format", "table", "table | csv | json")
        .Add("output", "", "directory to also write compare.csv into")
        .Add("per-op", "", "CSV file of one row per schedule operation (rank, peer, op_bytes, step, start_s, "
                           "end_s) of every backend that executes the schedule (alphabeta, loggp, flow, packet)")
        .Add("traces", "", "packet backend: directory for each run's time series (PREFIX-queues/pfc/rates.csv) "
                           "and its ECN marks and CNPs (PREFIX-events.csv), PREFIX packet-BYTES")
        .Add("trace-interval", "1us", "sampling interval of --traces")
        .Add("pcap", "", "packet backend: directory for a pcap file per port of each run (RoCEv2 on Ethernet "
                         "ports, as Wireshark dissects it), packet-BYTES-NODE-DEVICE.pcap")
        .Add("seed", "1", "random seed of the packet backend: its ECMP hash (EcmpSeed = seed - 1) and RED "
                          "marking draws (--reproducible: the same bytes for the same seed)");
}

// The flags laid over the fields of --scenario. A flag that overrides a
// scenario field erases it from c.scenarioFields, so that errors then name the flag.
class ScenarioOverride
{
  public:
    ScenarioOverride(const hockney::Flags& f, ns3::ComparisonConfig& c)
        : m_f(f),
          m_c(c)
    {
    }

    /// True when --flag is given (or, with \p withoutScenario, when there is no
    /// --scenario to take \p key from): the flag then sets the field.
    bool Take(const std::string& flag, const std::string& key, bool withoutScenario = false)
    {
        if (!m_f.IsSet(flag) && !(withoutScenario && !m_f.IsSet("scenario")))
        {
            return false;
        }
        ByFlag(key);
        return true;
    }

    /// The flag sets \p key: an error then names the flag, not the scenario field.
    void ByFlag(const std::string& key)
    {
        m_c.scenarioFields.erase(key);
    }

  private:
    const hockney::Flags& m_f;
    ns3::ComparisonConfig& m_c;
};

// Counts are range-checked before the cast, so 2^32 + 8 is not 8.
uint32_t
Count(const hockney::Flags& f, const std::string& name, uint64_t minimum)
{
    uint64_t v = ns3::units::ParseCount(f.Get(name), "--" + name);
    if (v < minimum || v > UINT32_MAX)
    {
        throw ns3::InputError("--" + name, "expected an integer from " + std::to_string(minimum) + " to " +
                                               std::to_string(UINT32_MAX) + ", got " + f.Get(name));
    }
    return static_cast<uint32_t>(v);
}

// What runs: the topology, the collective and its algorithm.
void
ApplyWhatRuns(const hockney::Flags& f, ScenarioOverride& o, ns3::ComparisonConfig& c)
{
    if (f.IsSet("topology") || !c.topology)
    {
        o.ByFlag("topology");
        try
        {
            c.topology = ns3::MakePreset(f.Get("topology"));
        }
        catch (const std::invalid_argument& e)
        {
            throw ns3::InputError("--topology", e.what());
        }
        c.topologyName = f.Get("topology");
    }
    if (o.Take("collective", "collective"))
    {
        c.collective = ns3::ParseCollectiveKind(f.Get("collective"), "--collective");
    }
    if (o.Take("algorithm", "algorithm"))
    {
        c.algorithm = f.Get("algorithm");
    }
    else if (!f.IsSet("scenario") || f.IsSet("collective"))
    {
        o.ByFlag("algorithm");
        c.algorithm = ns3::AlgorithmsOf(c.collective).front();
    }
    if (o.Take("protocol", "protocol"))
    {
        c.protocol = f.Get("protocol");
        ns3::ParseNcclProtocolChoice(c.protocol, "--protocol");
    }
    if (o.Take("launch-overhead", "launch_overhead"))
    {
        c.launchOverhead = ns3::units::ParseTime(f.Get("launch-overhead"), "--launch-overhead");
    }
    if (o.Take("dependencies", "dependencies"))
    {
        ns3::SetDependencyNotice(f.Get("dependencies"), "--dependencies", c);
    }
}

// Its shape: ranks, sizes, backends, channels and slices, root, servers, seed.
void
ApplyShape(const hockney::Flags& f, ScenarioOverride& o, ns3::ComparisonConfig& c)
{
    if (o.Take("ranks", "ranks"))
    {
        c.ranks = Count(f, "ranks", 2);
    }
    if (o.Take("bytes", "sizes", true))
    {
        c.sizes = hockney::ParseSizeList(f, "bytes", false);
    }
    if (o.Take("backends", "backends", true))
    {
        c.backends = ns3::ParseBackends(f.Get("backends"), "--backends");
        c.backendsGiven = f.IsSet("backends");
    }
    if (o.Take("channels", "channels", true))
    {
        c.channels = Count(f, "channels", 1);
    }
    if (o.Take("slices", "slices", true))
    {
        c.slices = Count(f, "slices", 1);
    }
    if (o.Take("chunk-bytes", "chunk_bytes", true))
    {
        c.chunkBytes = ns3::units::ParseBytes(f.Get("chunk-bytes"), "--chunk-bytes");
    }
    if (o.Take("root", "root"))
    {
        c.root = Count(f, "root", 0);
    }
    if (o.Take("gpus-per-node", "gpus_per_node"))
    {
        c.gpusPerNode = Count(f, "gpus-per-node", 1);
    }
    if (o.Take("seed", "seed"))
    {
        c.seed = Count(f, "seed", 0);
    }
}

// alpha and beta of a calibration file: its alphabeta fit of this collective,
// else of another collective, which stderr names (a per-step fit carries
// over only as far as the two collectives' steps are alike).
void
ApplyCalibration(const std::string& path, ns3::ComparisonConfig& c)
{
    const auto all = ns3::LoadCalibratedParameters(path, "--calibration");
    const std::string collective = ns3::ToString(c.collective);
    bool forThis = false;
    for (const auto& p : all)
    {
        forThis = forThis || (p.model == "alphabeta" && p.collective == collective);
    }
    // A fit is per ring step (calibration-parameters.h): the same alpha and
    // beta price every message of compare's schedules.
    const ns3::CalibratedParameters fit =
        ns3::SelectCalibratedParameters(all, "alphabeta", forThis ? collective : "", "--calibration");
    if (!forThis)
    {
        std::cerr << "hockney compare: warning: --calibration: " << path << " has no alphabeta fit of " << collective
                  << "; using its fit of " << fit.collective << "\n";
    }
    ns3::Ptr<ns3::AlphaBetaModel> m = fit.MakeAlphaBetaModel();
    c.model.alpha = m->GetAlpha(1);
    c.model.beta = hockney::ToDataRate(m->MaxBandwidth());
}

// The analytic backends' parameters: their source, a given alpha and beta, contention.
void
ApplyModel(const hockney::Flags& f, ScenarioOverride& o, ns3::ComparisonConfig& c)
{
    if (o.Take("params", "params"))
    {
        c.params = ns3::ParseParameterSources(f.Get("params"), "--params");
    }
    if (f.IsSet("calibration"))
    {
        if (f.IsSet("alpha") || f.IsSet("beta"))
        {
            throw ns3::InputError("--calibration", "expected either --calibration or --alpha/--beta, not both");
        }
        o.ByFlag("model.alpha");
        o.ByFlag("model.beta");
        ApplyCalibration(f.Get("calibration"), c);
    }
    if (o.Take("alpha", "model.alpha"))
    {
        c.model.alpha = ns3::units::ParseTime(f.Get("alpha"), "--alpha");
    }
    if (o.Take("beta", "model.beta"))
    {
        c.model.beta = ns3::units::ParseDataRate(f.Get("beta"), "--beta");
        if (c.model.beta->GetBitRate() == 0)
        {
            throw ns3::InputError("--beta", "expected a positive rate, got " + f.Get("beta"));
        }
    }
    if (o.Take("contention", "model.contention"))
    {
        c.model.contention = ns3::ParseContentionPolicy(f.Get("contention"), "--contention");
    }
}

// The packet backend: transfer units and the wall-clock limit.
void
ApplyFabric(const hockney::Flags& f, ScenarioOverride& o, ns3::ComparisonConfig& c)
{
    for (const auto& [flag, key, unit] :
         {std::tuple{"transfer-unit", "fabric.transfer_unit_bytes", &c.fabric.transferUnitBytes},
          std::tuple{"pcie-transfer-unit", "fabric.pcie_transfer_unit_bytes", &c.fabric.pcieTransferUnitBytes}})
    {
        if (!o.Take(flag, key))
        {
            continue;
        }
        const std::string v = f.Get(flag);
        if (v.empty() || v.size() > 5 || v.find_first_not_of("0123456789") != std::string::npos)
        {
            throw ns3::InputError(std::string("--") + flag, "expected a byte count (0, or a power of two 256-4096), got '" + v + "'");
        }
        *unit = static_cast<uint32_t>(std::stoul(v));
    }
    if (o.Take("network-transfer-unit", "fabric.network_transfer_unit_bytes"))
    {
        const std::string v = f.Get("network-transfer-unit");
        if (v.empty() || v.size() > 8 || v.find_first_not_of("0123456789") != std::string::npos)
        {
            throw ns3::InputError("--network-transfer-unit",
                                  "expected a byte count (0, or a multiple of the NIC's MTU), got '" + v + "'");
        }
        c.fabric.networkTransferUnitBytes = static_cast<uint32_t>(std::stoul(v));
    }
    c.fabric.forceMemory = f.GetSwitch("force-memory");
    if (o.Take("scheduler", "fabric.scheduler"))
    {
        c.fabric.scheduler = f.Get("scheduler");
    }
    if (o.Take("partition", "fabric.partition"))
    {
        c.fabric.partition = f.Get("partition");
    }
    if (f.Get("end") != "delivery" && f.Get("end") != "drain")
    {
        throw ns3::InputError("--end", "expected delivery or drain, got '" + f.Get("end") + "'");
    }
    c.fabric.drainEnd = f.Get("end") == "drain";
    if (f.Get("sync") != "gtw" && f.Get("sync") != "nullmsg")
    {
        throw ns3::InputError("--sync", "expected gtw or nullmsg, got '" + f.Get("sync") + "'");
    }
    if (o.Take("wall-limit", "fabric.wall_limit"))
    {
        c.fabric.wallLimit = ns3::units::ParseWallClockLimit(f.Get("wall-limit"), "--wall-limit");
        if (c.fabric.wallLimit.IsStrictlyNegative())
        {
            throw ns3::InputError("--wall-limit", "expected a wall-clock time >= 0, got " + f.Get("wall-limit"));
        }
    }
}

// The outputs are checked before the (possibly long) run, so a typo or an
// unwritable path fails at once as bad input (exit 2 naming the flag and the
// path) rather than after the table. Returns compare.csv's path, or "".
std::string
PrepareOutputs(const hockney::Flags& f, ns3::ComparisonConfig& c, std::vector<ns3::ResultRow>& perOp)
{
    std::string compareCsv;
    if (!f.Get("output").empty())
    {
        hockney::CreateOutputDirectory(f.Get("output"), true);
        compareCsv = f.Get("output") + "/compare.csv";
        hockney::CheckWritableFile(compareCsv, "--output");
    }
    if (!f.Get("per-op").empty())
    {
        hockney::CheckWritableFile(f.Get("per-op"), "--per-op");
        c.perOp = [&perOp](const ns3::ResultRow& row) { perOp.push_back(row); };
    }
    for (const auto& [flag, dir] : {std::pair{"traces", &c.tracesDir}, std::pair{"pcap", &c.pcapDir}})
    {
        if (!f.Get(flag).empty())
        {
            // Both record packet runs: without one they would silently stay empty.
            if (std::find(c.backends.begin(), c.backends.end(), "packet") == c.backends.end())
            {
                throw ns3::InputError(std::string("--") + flag,
                                      "expected the packet backend among the backends (it records packet runs)");
            }
            *dir = f.Get(flag);
            hockney::CreateOutputDirectory(*dir, true, std::string("--") + flag);
            // A directory that exists may still refuse files (read-only).
            const std::string probe = *dir + "/.hockney-write-check";
            hockney::CheckWritableFile(probe, std::string("--") + flag);
            std::remove(probe.c_str());
        }
    }
    if (f.IsSet("trace-interval") && c.tracesDir.empty())
    {
        throw ns3::InputError("--trace-interval", "expected --traces=DIR with it (it sets the sampling of --traces)");
    }
    c.traceInterval = ns3::units::ParseTime(f.Get("trace-interval"), "--trace-interval");
    if (!c.traceInterval.IsStrictlyPositive())
    {
        throw ns3::InputError("--trace-interval", "expected a positive time, got " + f.Get("trace-interval"));
    }
    return compareCsv;
}

// Runs the comparison and writes its rows (also to --output's compare.csv,
// and the per-op rows to --per-op's file); returns the exit status.
int
RunAndWrite(const ns3::ComparisonConfig& c, ns3::OutputFormat format, const std::string& compareCsv,
            const std::string& perOpFile, const std::vector<ns3::ResultRow>& perOp, std::ostream& out)
{
    // Ctrl-C or SIGTERM stops the packet run at its next check; the rows
    // done are printed (PacketStop::INTERRUPT).
    hockney::InterruptGuard guard;
    // Under mpirun rank 0 writes the rows (every rank holds them, reduced).
    const bool writes = hockney::MpiWorld::Rank() == 0;
    std::ostringstream elsewhere;
    std::ostream& rows = writes ? out : elsewhere;
    auto write = [&](const std::vector<ns3::ResultRow>& r) {
        ns3::WriteRows(rows, "compare", r, format);
        if (writes && !compareCsv.empty())
        {
            ns3::WriteCsvFile(compareCsv, r);
        }
        if (writes && !perOpFile.empty())
        {
            ns3::WriteCsvFile(perOpFile, perOp);
        }
    };
    try
    {
        write(ns3::RunComparison(c, [writes](const std::string& line) {
            if (writes)
            {
                std::cerr << line << "\n";
            }
        }));
    }
    catch (const ns3::PacketRunStopped& e)
    {
        // Not a failure of the program: a limit the user set, an outcome of
        // the scenario (not finished in simulated time) or an interrupt.
        // Every row is printed (the stopped run's events, hops and wall time
        // say how far from finishing it was), and the exit status tells a
        // script why the packet rows are incomplete.
        write(e.Rows());
        std::cerr << "hockney compare: " << e.what() << "\n";
        return ns3::ExitStatusOf(e.Kind());
    }
    return 0;
}

// `mpirun -np N hockney compare` (doc/fabric.md, "hockney compare under
// mpirun"): a packet run split over the ranks must print what one process
// prints, to the picosecond. What cannot be exact under conservative
// synchronisation is refused before anything runs (exit 2, one line): an op
// waiting for what another rank knows at that instant, a pcap of every
// port, a time series of every port. Each packet run then runs on ns-3's
// distributed simulator (ComparisonFabric::mpiSimulator; the delivery end
// twice: comparison-backend-packet.cc).
void
CheckPartitioned(const hockney::Flags& f, ns3::ComparisonConfig& c)
{
    const uint32_t ranks = static_cast<uint32_t>(hockney::MpiWorld::Size());
    if (!c.flows.empty())
    {
        throw ns3::InputError("mpirun", "expected a collective under mpirun (a scenario of flows runs as one "
                                        "process), got " + std::to_string(ranks) + " ranks");
    }
    if (c.backends != std::vector<std::string>{"packet"})
    {
        throw ns3::InputError("mpirun", "expected --backends=packet under mpirun (only the packet backend "
                                        "splits over ranks), got " + std::to_string(ranks) + " ranks");
    }
    if (!f.Get("pcap").empty())
    {
        throw ns3::InputError("--pcap", "expected no --pcap under mpirun (each rank sees only its own ports' "
                                        "packets, and one file per port of every rank is not one process's)");
    }
    if (!f.Get("traces").empty())
    {
        throw ns3::InputError("--traces", "expected no --traces under mpirun (the time series sample every "
                                          "port and queue, each rank's own; one process only for now)");
    }
    const ns3::PartitionedComparisonCheck check = ns3::CheckPartitionedComparison(c, ranks);
    if (!check.problem.empty())
    {
        throw ns3::InputError("mpirun", check.problem + " (" + check.partition + ")");
    }
    c.fabric.mpiSimulator = f.Get("sync") == "nullmsg" ? "ns3::NullMessageSimulatorImpl" : "ns3::DistributedSimulatorImpl";
}

int
Compare(const std::vector<std::string>& args, std::ostream& out)
{
    hockney::Flags f;
    DeclareCompareFlags(f);
    if (!f.Parse(args, out))
    {
        return 0;
    }
    ns3::ComparisonConfig c;
    const ns3::OutputFormat format = ns3::ParseOutputFormat(f.Get("format"));
    if (f.IsSet("scenario"))
    {
        ns3::ApplyScenarioFile(f.Get("scenario"), c);
    }
    ScenarioOverride o(f, c);
    ApplyWhatRuns(f, o, c);
    ApplyShape(f, o, c);
    ApplyModel(f, o, c);
    ApplyFabric(f, o, c);
    // ns-3's MPI interface leaves before MpiWorld finalises MPI.
    struct LeaveMpi
    {
        ~LeaveMpi()
        {
#ifdef NS3_MPI
            if (ns3::MpiInterface::IsEnabled())
            {
                ns3::MpiInterface::Disable();
            }
#endif
        }
    } leave;
    if (hockney::MpiWorld::Size() > 1)
    {
        CheckPartitioned(f, c);
    }
    if (!c.flows.empty())
    {
        // Flows replace the collective (comparison-flows.h).
        for (const char* flag :
             {"collective", "algorithm", "protocol", "launch-overhead", "dependencies", "ranks", "bytes", "channels",
              "slices", "chunk-bytes", "root", "gpus-per-node"})
        {
            if (f.IsSet(flag))
            {
                throw ns3::InputError(std::string("--") + flag,
                                      "expected no collective flag with a scenario of flows");
            }
        }
        // A flow is one RDMA WRITE or SEND, not a schedule of operations; the
        // time series recorder follows a collective's executor.
        for (const char* flag : {"per-op", "traces"})
        {
            if (!f.Get(flag).empty())
            {
                throw ns3::InputError(std::string("--") + flag,
                                      "expected no --" + std::string(flag) +
                                          " with a scenario of flows (it records a collective's schedule; "
                                          "--pcap records flows)");
            }
        }
    }
    ns3::OutputProvenance().seed = c.seed;
    std::vector<ns3::ResultRow> perOp;
    const std::string compareCsv = PrepareOutputs(f, c, perOp);
    return RunAndWrite(c, format, compareCsv, f.Get("per-op"), perOp, out);
}

hockney::CommandRegistrar registrar("compare", "one collective on every backend: closed form, alpha-beta, LogGP, "
                                               "flow, packet, with errors vs the packets",
                                    &Compare);

} // namespace
