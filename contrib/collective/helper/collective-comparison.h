// SPDX-License-Identifier: GPL-2.0-only
//
// One collective, every backend, the same topology (`hockney compare`): the
// configuration (from flags or a scenario file, every field checked,
// comparison-scenario.cc), the backends (one class each, registered by name in
// comparison-backend.h), and the rows (RunComparison, collective-comparison.cc).
// A scenario may carry a workload of flows instead of the collective
// (comparison-flows.h).
//
// Backends, all running the same schedule (except closed):
//   closed     the closed form of the algorithm (collective-closed-form.h), no simulation
//   alphabeta  the executor on the analytic channel with the alpha-beta model
//              (contention policy model.contention: none, the default, or
//              endpoint; "shared" is refused: link sharing over the
//              topology's routes is the flow backend)
//   loggp      the executor on the analytic channel with LogGP (o from model,
//              else the endpoint's SendOverhead; g from model, else 0;
//              L = alpha - 2o; G = 1/beta), endpoint policy: LogGP's o, g and
//              G serialize each rank's messages
//   flow       the executor on the analytic channel with the shared policy,
//              routed over the topology's paths (max-min fair link sharing)
//   packet     the executor on the packet-level fabric (when built)
// Parameters: "derived" from the topology's paths (topology-parameters.h);
// "calibrated", alpha and beta fitted (calibration.h, model alphabeta) to a
// packet-level point-to-point sweep around the point's message size m (m/4 ..
// 4m, m the largest message of the critical path) on the worst pair of each
// level of the schedule; or "given" (--alpha and --beta).
//
// Regime of a point, decided in this order:
//   congestion-control  the packet run paused (PFC) or cut rates (CNPs)
//   incast              some rank receives from two or more senders in one step
//                       while no rank sends to more than one (many-to-one)
//   contention          the flow backend (links shared max-min) is more than
//                       10 % slower than the contention-free closed form
//                       (not decided for a packet-only run of more than
//                       65 536 messages, where the flow model, unasked for,
//                       would cost more than the packets)
//   latency-bound       the closed form's alpha terms are at least its n/beta terms
//   bandwidth-bound     otherwise
#ifndef HOCKNEY_COLLECTIVE_COMPARISON_H
#define HOCKNEY_COLLECTIVE_COMPARISON_H

#include "analytic-channel.h"
#include "collective-algorithms.h"
#include "comparison-faults.h"
#include "flow-workload.h"
#include "result-row.h"
#include "topology-description.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// Model parameters a user may set (scenario "model" object or flags).
struct ComparisonModel
{
    std::optional<Time> alpha;     ///< given alpha (with beta: params "given")
    std::optional<DataRate> beta;  ///< given beta
    AnalyticChannel::ContentionPolicy contention = AnalyticChannel::NONE; ///< alphabeta backend
    Time softwareOverhead;         ///< per message, added to alpha (and LogGP's o)
    /// LogGP overhead (part of alpha: L = alpha - 2o); unset: the packet
    /// endpoint's SendOverhead (0 on the ideal fabric or with given parameters)
    std::optional<Time> o;
    Time g;                        ///< LogGP gap between messages
};

/// The NVLink transfer unit the packet backend uses unless told otherwise:
/// 4 KiB (16 link packets of 256 B in one event), whose ring AllReduce times
/// stayed within 0.21 % of 256-byte packets on dgx-h100 (64 KB - 1 GB) and
/// within 0.15 % on rail-h100-2n (64 KB - 64 MB) (doc/collective.md). PCIe
/// keeps 256 B: behind a PCIe link the unit is also the NIC's packet on the
/// network, and 4 KiB there moved rail-h100-4n's 64 MB ring by 8.6 %.
constexpr uint32_t kDefaultTransferUnitBytes = 4096;

/// Knobs applied to every tier of the topology before anything is built.
struct ComparisonFabric
{
    bool ideal = false;                   ///< no headers, no forwarding latency, no buffer limits
    /// packet backend: the endpoints as NCCL's (set with the NCCL model,
    /// ComparisonSetup::nccl): every message eager into a pre-registered
    /// buffer (no rendezvous or pipeline handshakes: NCCL's connections are
    /// set up once) and no CPU overhead per message (a GPU kernel posts it);
    /// the executor's step latencies are the per-message cost instead.
    bool ncclEndpoints = false;
    std::optional<uint32_t> headerBytes;  ///< per packet, every tier
    std::optional<uint32_t> mtuBytes;     ///< payload per packet, every tier
    std::optional<TopologyFlowControl> flowControl;
    std::string congestionControl = "dcqcn"; ///< packet backend: a registered name (RdmaCcRegistry)
    /// packet backend: a preset of the congestion control ("": its default attributes)
    std::string congestionPreset;
    /// packet backend: attributes of the congestion control set after the
    /// preset (name, value), checked when read
    std::vector<std::pair<std::string, std::string>> congestionAttributes;
    /// packet backend: an RdmaHelper NIC preset for the Ethernet and
    /// InfiniBand NICs ("": attributes derived from the tiers)
    std::string nicPreset;
    Time timeLimit = Seconds(10);         ///< packet backend: simulated-time watchdog
    /// packet backend: wall-clock limit of one packet run (0: stop at once)
    Time wallLimit = Seconds(600);
    /// packet backend: the simulator's event queue, the TypeId name of an
    /// ns3::Scheduler. The order of events is (time, scheduling order) with
    /// every scheduler, so the choice changes speed, not results. Default: a
    /// calendar queue, a ring of time buckets with a heap for the far future
    /// (ring-calendar-scheduler.h); "ns3::LazyHeapScheduler" is the binary
    /// heap it replaced, "ns3::MapScheduler" ns-3's own default.
    std::string scheduler = "ns3::RingCalendarScheduler";
    /// packet backend under mpirun: which MPI rank owns each node of the
    /// fabric (FabricNetwork::Partition: auto, pod or rank-map:FILE;
    /// topology-partition.h). One process: checked, no effect.
    std::string partition = "auto";
    /// packet backend: end the run the longest link delay (+1 ps) after the
    /// last delivery (PartitionedRunEnd), the end every MPI rank can agree
    /// on; false: at the last delivery (one process only).
    bool drainEnd = false;
    /// packet backend under mpirun (compare sets it): the TypeId name of
    /// ns-3's distributed simulator each packet run enables MpiInterface
    /// with, on MPI_COMM_WORLD, and disables after (a process runs one
    /// partitioned run after another: doc/fabric.md, "hockney compare under
    /// mpirun"); "": one process.
    std::string mpiSimulator;
    /// packet backend: start a run whose memory estimate exceeds the memory
    /// available (packet-run-estimate.h) instead of refusing it (exit 2)
    bool forceMemory = false;
    /// packet backend, NVLink tiers: bytes per simulated transfer unit,
    /// framed as its link packets (FabricNetwork::NvlinkTransferUnitBytes);
    /// 0 = every link packet. Unset: kDefaultTransferUnitBytes.
    std::optional<uint32_t> transferUnitBytes;
    /// packet backend, PCIe tiers: the same (FabricNetwork::PcieTransferUnitBytes);
    /// unset: 0, every link packet (see kDefaultTransferUnitBytes).
    std::optional<uint32_t> pcieTransferUnitBytes;
    /// packet backend, RoCE / Ethernet / InfiniBand (and the PCIe links
    /// that carry a NIC's packets): bytes of data a NIC sends as one
    /// simulated packet, framed as its MTU packets
    /// (FabricNetwork::NetworkTransferUnitBytes); 0 (unset) = every MTU packet.
    uint32_t networkTransferUnitBytes = 0;
    /// packet backend: faults injected into the fabric (fabric.faults,
    /// comparison-faults.h; lossy_link entries are also priced by the gbn
    /// backend); the analytic backends run without them.
    std::vector<ScenarioFault> faults;
    /// The units in force for NVLink and PCIe tiers.
    uint32_t NvlinkUnit() const { return transferUnitBytes.value_or(kDefaultTransferUnitBytes); }
    uint32_t PcieUnit() const { return pcieTransferUnitBytes.value_or(0); }
};

struct ComparisonConfig
{
    std::string topologyName;                  ///< for rows; "" when none
    std::optional<TopologyDescription> topology;
    CollectiveKind collective = CollectiveKind::ALL_REDUCE;
    /// A registered algorithm, or "auto": NCCL's choice per size over the
    /// collective's registered algorithms x protocols (nccl-protocol.h).
    std::string algorithm = "ring";
    /// NCCL's endpoint model (nccl-protocol.h; doc/collective.md,
    /// "Protocols, tuning and the software floor"): "" off (every message
    /// as the schedule's bytes, no launch or step latency: the model before
    /// protocols), "auto" (NCCL's choice per size), "simple", "ll128", "ll".
    /// algorithm "auto" with "" is "auto".
    std::string protocol;
    /// With a protocol: the host's kernel launch before NCCL's base latency
    /// (0: multi-process; doc/collective.md has the single-process calibration).
    Time launchOverhead;
    uint32_t ranks = 0;       ///< 0: every endpoint of the topology
    uint32_t channels = 1;
    uint32_t slices = 1;
    /// hierarchical: the pipeline chunk (CollectiveSpec::chunkBytes; 0: slices only); nvls-tree
    /// cuts NCCL's 128 KiB NVLS chunks when it is set (0: slices only).
    uint64_t chunkBytes = kNcclChunkBytes;
    uint32_t root = 0;
    uint32_t gpusPerNode = 0; ///< hierarchical; 0: from the topology
    std::vector<uint64_t> sizes{1048576};
    std::vector<std::string> backends{"closed", "alphabeta", "loggp", "flow"};
    /// The backends were named (--backends or scenario.backends), not the
    /// default list: flows run the default list's flow forms, but refuse a
    /// named backend without one.
    bool backendsGiven{false};
    /// "derived", "calibrated" or both: rows of closed, alphabeta and loggp for
    /// each (flow is always derived: its structure is the topology's).
    std::vector<std::string> params{"derived"};
    ComparisonModel model;
    ComparisonFabric fabric;
    uint32_t seed = 1;
    /// Outputs beyond the rows, none unless asked for (compare's --per-op,
    /// --traces, --pcap; doc/collective.md, "Outputs").
    /// Set: receives, after each size, one row per op of every backend run
    /// that executes the schedule (alphabeta, loggp, flow, packet): the op's
    /// ranks, bytes, step and start and end relative to the collective's start.
    std::function<void(const ResultRow&)> perOp;
    /// Non-empty: each packet run writes its time series (queue depth, PFC
    /// pauses, QP rates, ECN marks and CNPs; accuracy-traces.h) here.
    std::string tracesDir;
    Time traceInterval = MicroSeconds(1); ///< sampling interval of the time series
    /// Non-empty: each packet run writes a pcap file per port here (FabricPcapHelper).
    std::string pcapDir;
    /// A scenario's "attributes" (ns-3 attribute name, value), checked when
    /// read and set as defaults only while RunComparison runs this config (a
    /// --ns3:: flag for the same attribute wins).
    std::vector<std::pair<std::string, std::string>> attributes;
    /// A workload of flows instead of the collective (scenario.flows or
    /// scenario.flows_csv; comparison-flows.h); empty: the collective runs.
    std::vector<FlowSpec> flows;
    /// The directory of the scenario file ApplyScenarioFile read ("" for a
    /// scenario applied from JSON): scenario.flows_csv is relative to it.
    std::string scenarioDirectory;
    /// The fields ApplyScenario set ("sizes", "model.beta", "fabric.mtu_bytes",
    /// ...), so that an error names the scenario field rather than the flag;
    /// a flag that overrides a field erases it (see FieldName).
    std::set<std::string> scenarioFields;
    /// "scenario.KEY" when \p key came from the scenario, else \p flag.
    std::string FieldName(const std::string& key, const std::string& flag) const;
};

/// The names of the backends compare knows (ComparisonBackendRegistry), in row order.
const std::vector<std::string>& ComparisonBackends();
/// "closed,alphabeta" -> list; throws InputError naming \p field for an unknown
/// or repeated backend.
std::vector<std::string> ParseBackends(const std::string& text, const std::string& field);
/// "derived,calibrated" -> list; throws InputError naming \p field.
std::vector<std::string> ParseParameterSources(const std::string& text, const std::string& field);
/// "none" | "endpoint" | "shared"; throws InputError naming \p field.
AnalyticChannel::ContentionPolicy ParseContentionPolicy(const std::string& text, const std::string& field);
/// "instant" | "message": the executors' DependencyNotice (collective-executor.h)
/// while \p config runs, as one of its attributes; throws InputError naming \p field.
void SetDependencyNotice(const std::string& text, const std::string& field, ComparisonConfig& config);

/// Applies a scenario object to \p config: every field is checked, an unknown
/// or malformed one throws InputError naming it ("scenario.model.alpha: ...").
/// Fields: topology (preset name or object), collective, algorithm, protocol,
/// launch_overhead, dependencies (instant | message), ranks,
/// sizes (list or "1KB,1MB"), backends, params, channels, slices, chunk_bytes, root, gpus_per_node,
/// seed, model {alpha, beta, contention, software_overhead, o, g},
/// fabric {ideal, header_bytes, mtu_bytes, flow_control, congestion_control (a name or
/// {name, preset, ATTRIBUTE: VALUE}, comparison-congestion-control.h), nic (an
/// RdmaHelper NIC preset), time_limit, wall_limit, faults (comparison-faults.h)},
/// attributes, and instead of
/// the collective fields flows or flows_csv (comparison-flows.h). A topology
/// object {"preset": NAME, KEY: VALUE, ...} is the
/// preset "NAME:KEY=VALUE,..." (its options, checked by the preset). A
/// collective without an algorithm gets the collective's first algorithm.
void ApplyScenario(const nlohmann::json& scenario, ComparisonConfig& config);
/// The text of a scenario file, read once; records the file and its SHA-256 in
/// the outputs' provenance. Throws InputError naming "--scenario" if it
/// cannot be read.
std::string ReadScenarioText(const std::string& path);
/// Reads and applies a scenario file (ReadScenarioText); throws InputError
/// naming "--scenario" if it cannot be read or is not JSON.
void ApplyScenarioFile(const std::string& path, ComparisonConfig& config);

/// Checks the whole configuration (backends registered, a topology for those
/// that need one, parameters, ...); throws InputError naming the field.
/// RunComparison also checks the ranks against the topology.
void ValidateComparison(const ComparisonConfig& config);

/// Why a packet run stopped before its collective (or flows) finished.
enum class PacketStop
{
    /// It did not finish by fabric.time_limit of simulated time, or the
    /// fabric's watchdog found it stalled (a deadlock, or a lossy class
    /// waiting for a retransmission beyond the limit): a model outcome the
    /// scenario caused. Row status "stopped-at-time-limit" or "stalled";
    /// later sizes still run. hockney exits 4.
    UNFINISHED,
    /// fabric.wall_limit of wall-clock time was reached. Row status
    /// "stopped-at-wall-limit", later sizes' packet rows
    /// "not-run-after-wall-limit". hockney exits 3.
    WALL_LIMIT,
    /// SIGINT or SIGTERM (RequestPacketRunInterrupt). Row status
    /// "stopped-by-interrupt", every row of later sizes
    /// "not-run-after-interrupt". hockney exits 130.
    INTERRUPT,
};

/// The exit status of hockney for a stop of this kind: 4, 3 or 130.
int ExitStatusOf(PacketStop kind);

/// Asks every packet run to stop at its next check (every 5 us of simulated
/// time) and RunComparison to start no other size. Async-signal-safe: it
/// only sets a std::sig_atomic_t, for SIGINT and SIGTERM handlers.
void RequestPacketRunInterrupt();
/// Whether RequestPacketRunInterrupt was called (and not cleared).
bool PacketRunInterrupted();
/// Forgets an interrupt (tests; a process that goes on after one).
void ClearPacketRunInterrupt();

/// A packet run stopped before it finished (PacketStop): not a failure of
/// the program, and what it did is reported. Rows() holds every row: the
/// stopped point's packet row (time_s null, status naming the stop, with
/// its events, hops, wall and simulated time), and for the sizes after it
/// the rows PacketStop describes. what() says how far the stopped run got;
/// Kind() is the most severe stop of the comparison (an interrupt over a
/// wall limit over an unfinished run).
class PacketRunStopped : public std::runtime_error
{
  public:
    PacketRunStopped(const std::string& what, std::vector<ResultRow> rows, PacketStop kind = PacketStop::WALL_LIMIT)
        : std::runtime_error(what),
          m_rows(std::move(rows)),
          m_kind(kind)
    {
    }

    const std::vector<ResultRow>& Rows() const { return m_rows; }

    PacketStop Kind() const { return m_kind; }

  private:
    std::vector<ResultRow> m_rows;
    PacketStop m_kind;
};

/// Runs every backend on every size; one row per (size, backend). \p progress,
/// when set, receives the estimate of each packet run (packet-run-estimate.h)
/// and a line for each long one. Before anything runs, a packet run whose
/// memory estimate exceeds the memory available is refused (InputError naming
/// --force-memory, unless fabric.forceMemory). Throws PacketRunStopped, after
/// every size, when a packet run stopped (PacketStop).
std::vector<ResultRow> RunComparison(const ComparisonConfig& config,
                                     std::function<void(const std::string&)> progress = {});

} // namespace ns3

#endif
