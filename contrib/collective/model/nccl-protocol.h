// SPDX-License-Identifier: GPL-2.0-only
//
// NCCL's three protocols and the endpoint costs of its kernels, as the
// executor runs them and the closed form prices them (doc/collective.md,
// "Protocols, tuning and the software floor").
//
// Protocols (NCCL src/device/prims_{simple,ll,ll128}.h, described, not copied):
//   LL      every 8 bytes of data travel with an 8-byte flag in one 16-byte
//           store: wire efficiency 50 %, no fence (the flag rides with the data)
//   LL128   every 128-byte line carries 120 bytes of data and 8 of flag:
//           efficiency 120/128, no fence
//   Simple  full lines; each step (NCCL_BUFFSIZE / NCCL_STEPS = 512 KiB per
//           channel) ends with a memory fence and a flag write the receiver
//           polls: efficiency 1, one synchronisation per step
// Copy rate: LL and LL128 move data with the GPU's threads (stores of data
// and flag, and the receiver's polling loads), not with bulk copies, so a
// GPU moves at most so many data bytes per second through them whatever the
// link: NCCL's tuning model caps Ring LL's bus bandwidth at llMaxBw (141 GB/s
// on one Hopper node, 282 Blackwell) and Ring LL128's at
// perChMaxRingLL128Bw per channel (36.7 GB/s Hopper, 40 Blackwell) x its
// channels (16 on 8 x H100); a ring allreduce's bus bandwidth is each rank's
// data rate per step, so these are per-GPU data rates. Simple uses bulk
// copies at the link's rate: no cap.
// Per-step latency: NCCL's tuning model (src/graph/tuning.cc, the values in
// validation/data/nccl_tuning_constants.csv): a base latency per collective
// (baseLat) and a hardware latency per algorithm step (hwLat) by link kind,
// NVLink inside a node and the network across nodes.
//
// The endpoint model (NcclEndpoint) is what the executor applies to every
// message, on every backend: the message goes on the wire as its protocol's
// wire bytes, after a per-step delay at the sending endpoint (hwLat of the
// link the message crosses; for Simple, once per Simple step the message
// spans: its per-chunk synchronisation); the collective's first messages wait
// for the launch (the host's kernel launch plus NCCL's baseLat).
#ifndef HOCKNEY_NCCL_PROTOCOL_H
#define HOCKNEY_NCCL_PROTOCOL_H

#include "collective-algorithms.h"
#include "collective-closed-form.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

enum class NcclProtocol
{
    SIMPLE = 0,
    LL128 = 1,
    LL = 2,
};

/// "simple", "ll128", "ll".
std::string ToString(NcclProtocol p);
/// Every protocol, in NCCL's order of preference at equal time (Simple first).
std::vector<NcclProtocol> AllNcclProtocols();
/// "auto" (nullopt) or a protocol name (case-insensitive, "LL128" too);
/// throws InputError naming \p field, listing the names, otherwise.
std::optional<NcclProtocol> ParseNcclProtocolChoice(const std::string& text, const std::string& field);

/// Bytes on the wire for \p bytes of data: LL ceil(b/8) x 16, LL128
/// ceil(b/120) x 128, Simple b.
uint64_t NcclWireBytes(NcclProtocol p, uint64_t bytes);
/// Data bytes per wire byte at large sizes: 0.5, 120/128, 1.
double NcclWireEfficiency(NcclProtocol p);

/// Bytes of one Simple step of one NCCL channel: NCCL_BUFFSIZE (4 MiB) /
/// NCCL_STEPS (8).
constexpr uint64_t kNcclSimpleStepBytes = 524288;
/// NCCL channels a ring runs on 8 x H100 NVSwitch ("Channel xx/16" in the
/// init logs of NVIDIA/nccl issue #1453): their steps run side by side, so a
/// message of one schedule channel spans one synchronisation per
/// kNcclRingChannels x kNcclSimpleStepBytes / channels bytes.
constexpr uint32_t kNcclRingChannels = 16;

/// LL's per-GPU copy rate: NCCL's llMaxBw for one Hopper node (tuning.cc,
/// validation/data/nccl_tuning_bw_constants.csv), 141 GB/s of data.
constexpr uint64_t kNcclLlCopyBytesPerSecond = 141000000000ULL;
/// LL128's per-GPU copy rate: perChMaxRingLL128Bw for Hopper (36.7 GB/s a
/// channel) x the kNcclRingChannels (16) channels of 8 x H100: 587.2 GB/s.
constexpr uint64_t kNcclLl128CopyBytesPerSecond = 587200000000ULL;
/// The per-GPU copy rate of \p p (the two above; 0, no cap, for Simple).
DataRate NcclCopyRate(NcclProtocol p);

/// NCCL's algorithm family of a registered algorithm: "ring", "tree"
/// (also by an alias "double-binary-tree"), "nvls" or "nvlstree"
/// ("nvls-tree") by its name or aliases; "" for an algorithm NCCL does not
/// have (rhd, hierarchical, ...).
std::string NcclFamily(const std::string& algorithm);

/// NCCL's latencies of an algorithm x protocol (tuning.cc's baseLat and hwLat).
struct NcclLatencies
{
    Time base;  ///< once per collective (baseLat)
    Time intra; ///< per step over NVLink (hwLat[NVLINK])
    Time inter; ///< per step over the network (hwLat[NET])
};

/// The latencies NCCL's tuning model gives \p algorithm (a registry name)
/// with \p p, nullopt where NCCL has no such pair (NVLS runs Simple only).
/// Tree ("tree") and NVLS ("nvls") have their own rows; every other
/// algorithm is priced with Ring's (NCCL has no row for it).
std::optional<NcclLatencies> NcclTuningLatencies(const std::string& algorithm, NcclProtocol p);

/// NCCL's latency floor of \p kind on \p ranks over \p nodes nodes
/// (ncclTopoTuneModel's latencies with LL, the protocol of the smallest
/// sizes): Ring baseLat + (nsteps - nInterSteps) hwLat[NVLink] +
/// nInterSteps hwLat[NET], nsteps 2(N-1) for AllReduce and N-1 for
/// AllGather / ReduceScatter (nInterSteps the same over nodes); for
/// AllReduce the lower of that and Tree's baseLat + 2 ((N/nodes - 1)
/// hwLat[NVLink] + log2(nodes) hwLat[NET]). nullopt for the other
/// collectives (NCCL prices them otherwise) or fewer than 2 ranks.
std::optional<Time> NcclLatencyFloor(CollectiveKind kind, uint32_t ranks, uint32_t nodes);

/// NCCL_STEPS: the slots of one NCCL channel's connection buffer (src/include/device.h).
constexpr uint32_t kNcclSteps = 8;
/// Simple ring AllReduce: ALLREDUCE_CHUNKSTEPS (NCCL_STEPS / 2) slots a chunk,
/// ALLREDUCE_SLICESTEPS (NCCL_STEPS / 4) a slice (src/include/collectives.h).
constexpr uint32_t kNcclSimpleChunkSteps = kNcclSteps / 2;
constexpr uint32_t kNcclSimpleSliceSteps = kNcclSteps / 4;
/// Data bytes of one LL step: 64 KiB of 16-byte lines (NCCL_LL_LINES_PER_THREAD
/// 8 x NCCL_LL_MAX_NTHREADS 512 x 16 B), half of it flags.
constexpr uint64_t kNcclLlStepDataBytes = 32768;
/// Data bytes of one LL128 step: 120 x 640 x 8 B = 614400 wire bytes
/// (NCCL_LL128_ELEMS_PER_THREAD x NCCL_LL128_MAX_NTHREADS x 8), 15/16 of it data.
constexpr uint64_t kNcclLl128StepDataBytes = 576000;

/// One piece of a network message as NCCL's proxy posts it: \p bytes of data
/// holding \p slots slots of the connection until its credit returns.
struct NcclNetSlice
{
    uint64_t bytes;
    uint32_t slots;
};

/// The endpoint costs the executor applies (CollectiveExecutor's attributes
/// Protocol, LaunchOverhead, StepLatency, NetStepLatency, GpusPerNode,
/// SimpleChunkBytes, NetStepsInFlight, NetSlots, NetCreditDelay carry the
/// same fields).
struct NcclEndpoint
{
    NcclProtocol protocol = NcclProtocol::SIMPLE;
    Time launch;                ///< before the first message: host launch + baseLat
    Time intraStep;             ///< per step inside a node
    Time interStep;             ///< per step across nodes
    uint32_t gpusPerNode = 0;   ///< ranks per node (0: one node)
    uint64_t simpleChunkBytes = kNcclRingChannels * kNcclSimpleStepBytes; ///< Simple: bytes per synchronisation
    DataRate copyRate{0};       ///< the sending GPU's data rate through the protocol (0: no cap)
    /// Whole messages in flight on one network connection (0: no limit);
    /// used when netSlots is 0.
    uint32_t netStepsInFlight = 1;
    /// NCCL's slots on one network connection of a schedule channel:
    /// kNcclSteps x the NCCL channels the schedule channel stands for
    /// (0: off, the netStepsInFlight window of whole messages instead).
    uint32_t netSlots = 0;
    /// A slice's slots come back to the sender this long after the slice
    /// was delivered (the receiver proxy's credit crossing the network).
    Time netCreditDelay;
    /// Of netCreditDelay, the credit's crossing of the network (a point's
    /// inter-node alpha where no delay was given: PointEndpoint; 0 when the
    /// delay was given). Where the credit is a message on the fabric
    /// (CollectiveExecutor's DependencyNotice Message) the fabric takes the
    /// crossing and the receiver waits only netCreditDelay - netCreditCrossing
    /// before posting it; the closed forms price the whole delay.
    Time netCreditCrossing;
    /// NCCL's hwLat holds the hop's own latency (CollectiveExecutor's
    /// HwLatHoldsFabricLatency in force, default false): whoever knows the
    /// point's alphas applies NcclEndpointBesideFabric.
    bool hwLatHoldsFabric = false;

    /// Whether ranks \p a and \p b sit on different nodes (rank / gpusPerNode).
    bool CrossesNodes(uint32_t a, uint32_t b) const;
    /// The sender's delay before a message of \p bytes (data) on \p inter
    /// links: the step latency, for Simple once per chunk it spans.
    Time StepDelay(bool inter, uint64_t bytes) const;
    uint64_t WireBytes(uint64_t bytes) const { return NcclWireBytes(protocol, bytes); }
    /// The time the sender's GPU takes to move \p bytes of data at copyRate (0 without a cap).
    Time CopyTime(uint64_t bytes) const;
    /// The NCCL channels one schedule channel's network connection stands for (netSlots / kNcclSteps, at least 1).
    uint32_t NcclChannelsPerConnection() const;
    /// How NCCL's ring cuts a message of \p bytes (one schedule channel's,
    /// spread over NcclChannelsPerConnection NCCL channels) into the slices
    /// its proxy posts, in order: per NCCL channel a share of ceil(bytes /
    /// channels); Simple in chunks of 4 steps (2 MiB), each 2 slices of 2
    /// steps, a slice at least 1/32 of 2 steps (prims_simple.h), a chunk
    /// of one slice holding all 4 steps (its empty slice still posts them);
    /// LL and LL128 one step a slice (their chunk), 32 KiB and 576000 B of data.
    std::vector<NcclNetSlice> NetSlices(uint64_t bytes) const;
};

/// The endpoint of \p algorithm with \p p on a node of \p gpusPerNode ranks:
/// NCCL's latencies, launch = \p hostLaunch + baseLat, \p channels schedule
/// channels (Simple chunk kNcclRingChannels x 512 KiB / channels, at least
/// 512 KiB), the protocol's copy rate (NcclCopyRate). NVLS: its hwLat once, in the launch, no step latency (NCCL's
/// NVLS latency is per collective). NVLSTree on \p nodes nodes: NCCL's
/// hwLat[NVLink] + 2 floor(log2 nodes) hwLat[NET] once, in the launch, no
/// step latency. nullopt where NCCL has no such pair.
std::optional<NcclEndpoint> MakeNcclEndpoint(const std::string& algorithm,
                                             NcclProtocol p,
                                             Time hostLaunch,
                                             uint32_t gpusPerNode,
                                             uint32_t channels,
                                             uint32_t nodes = 1);

/// \p e with NCCL's step latencies less the fabric's own latency of a hop:
/// NCCL's hwLat (tuning.cc) is the whole latency of one step over its link
/// (its model is latency x steps + bytes / bw, with no separate wire
/// latency), and a transport already charges a message its path's latency
/// (\p intraAlpha inside a node, \p interAlpha across nodes: a point's
/// derived alpha on each level, the packet fabric's links, switches and NIC
/// pipeline). The endpoint adds only the rest, hwLat - alpha, at least 0, so
/// a step costs NCCL's hwLat + bytes / bw, not hwLat + alpha + bytes / bw.
NcclEndpoint NcclEndpointBesideFabric(NcclEndpoint e, Time intraAlpha, Time interAlpha);

/// One message of \p bytes through an idle network connection with the
/// endpoint's slots (NetSlices, netSlots, netCreditDelay), as the executor
/// sends it on a port that serialises: \p p2p(w) is the time of w wire
/// bytes, p2p(w) - p2p(0) their serialisation. A slice starts when the port
/// is free and its slots are back (creditDelay after the arrival of the
/// slice that held them); the last arrival is the answer.
Time NcclSlotStreamTime(const NcclEndpoint& endpoint, uint64_t bytes, const std::function<Time(double)>& p2p);

/// The closed form with the endpoint: launch + ClosedFormTime with
/// T(l, m) = StepDelay(l, m) + max(p2p(l, wire bytes of m), CopyTime(C x m)):
/// the wire and the GPU's copy run together, the slower one sets the pace; m
/// is one channel's message and the GPU copies all C channels' (the copy
/// rate is the GPU's, as the executor's copy queue per rank). A flat algorithm
/// (not usesNodes) of L critical steps on nodes of G ranks is charged the
/// network's step latency on ceil(L/G) of its steps and NVLink's on the rest
/// (the executor charges only the messages that cross). The window of the
/// endpoint: with one whole message in flight (netStepsInFlight 1, no
/// slots) every step of a ring pays the network's latency (its crossing's
/// messages in sequence); with more, none or NCCL's slots the ceil(L/G)
/// share above; with slots a crossing step's wire time is
/// NcclSlotStreamTime (the connection taken idle at each step).
Time NcclClosedFormTime(const CollectiveSpec& spec, const NcclEndpoint& endpoint, const PointToPointTime& p2p);

/// NCCL's bandwidth refinements of its tuning model (tuning.cc; the factor
/// by which an algorithm x protocol's bus bandwidth is below the link's):
/// Ring LL 1/4 (allreduce or more than one node, else 1/3), Ring LL128 0.92,
/// Ring Simple 1; Tree 0.92 x (LL 1/3.8, LL128 7/9 on one node else
/// 120/128, Simple 1); NVLS and NVLSTree 0.85 (Hopper's nvlsEfficiency). Other
/// algorithms: Ring's. The caps (llMaxBw, per-channel maxima) are left out.
double NcclTuningBandwidthFactor(const std::string& algorithm, NcclProtocol p, CollectiveKind kind, uint32_t nodes);

/// NCCL's treeCorrectionFactor (tuning.cc, ncclTopoGetAlgoTime): its
/// trees reach less than its model's bandwidth at medium sizes, so NCCL
/// multiplies a Tree AllReduce's bandwidth by a factor per power of two of
/// the size, from 64 B (index log2(bytes / 64), floored) to 256 MB; 1 outside
/// the table. LL 0.4 at 512 KiB, LL128 0.6 from 512 KiB to 2 MiB and 0.8 at
/// 4 MiB, Simple 0.7 at 32 MiB and 0.8 at 64 MiB, for example.
double NcclTreeCorrectionFactor(NcclProtocol p, uint64_t bytes);

/// NCCL's tuning model for \p spec (what its choice compares, not what
/// runs): launch + ClosedFormTime with T(l, m) = step latency of l (once
/// per step: NCCL's latency x steps) + max(p2p(l, m / factor), CopyTime(C x m))
/// (its bytes / bw, with bw at most llMaxBw or LL128's per-channel maxima),
/// the factor NcclTuningBandwidthFactor's, and for a tree AllReduce
/// NcclTreeCorrectionFactor's of the collective's bytes.
Time NcclTuningTime(const CollectiveSpec& spec, const NcclEndpoint& endpoint, const PointToPointTime& p2p);

/// One candidate of NCCL's choice: an algorithm and a protocol.
struct NcclChoice
{
    std::string algorithm;
    NcclProtocol protocol = NcclProtocol::SIMPLE;
    Time predicted; ///< the tuning model's time
};

/// NCCL's choice (tuning.cc's ncclTopoGetAlgoTime, then the fastest): the
/// fastest predicted time over \p algorithms x \p protocols; \p predict
/// returns nullopt for a pair that does not apply (the algorithm does not
/// fit the point, or NCCL lacks the pair). Ties go to the earlier
/// algorithm, then the earlier protocol. Throws std::logic_error when no
/// pair applies.
NcclChoice ChooseNccl(const std::vector<std::string>& algorithms,
                      const std::vector<NcclProtocol>& protocols,
                      const std::function<std::optional<Time>(const std::string&, NcclProtocol)>& predict);

} // namespace ns3

#endif
