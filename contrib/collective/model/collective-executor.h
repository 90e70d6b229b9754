// SPDX-License-Identifier: GPL-2.0-only
//
// Runs any CollectiveSchedule on any Transport: an op starts (is handed to the
// transport) as soon as every op it depends on has been delivered (an op
// through a PXN proxy as its two legs, src -> proxy and proxy -> dst, started
// together and delivered when both are: a streaming relay), and the
// collective ends when the last op is delivered. The executor records each op's
// start and delivery, the end of each algorithm step and the total time; it
// holds no collective logic (that is the schedule's) and no network logic
// (that is the transport's).
//
// The endpoint (nccl-protocol.h, NcclEndpoint): the executor is where a
// rank's software sits, so it applies NCCL's endpoint costs on every
// backend alike: the collective's first messages wait LaunchOverhead (kernel
// launch + NCCL's base latency), every message waits its step latency at the
// sender (StepLatency inside a node, NetStepLatency across nodes, nodes of
// GpusPerNode consecutive ranks; Simple: once per SimpleChunkBytes it spans)
// and goes to the transport as its protocol's wire bytes (Protocol). With
// LL or LL128 the sending GPU moves the message's data at most at the
// protocol's copy rate (LlCopyRate, Ll128CopyRate: NCCL's llMaxBw and LL128
// per-channel maxima): a rank's messages share its copy rate in the order
// they are sent, and a message is delivered no earlier than its copy ends,
// whatever the transport (the wire and the copy run together). A
// network connection (a pair of ranks on different nodes) has at most
// NetStepsInFlight steps in flight (default 1): the next message across it
// starts its step latency when the previous one has been delivered, so the
// network's step latency adds to its transfer instead of hiding behind the
// NIC's queue (NCCL's tuning model, latency x steps + bytes / bw, and the
// multi-node curves at >= 64 MB: doc/collective.md). With NetSlots set the
// connection runs NCCL's slots instead (LaunchSlices .. ReturnCredit, apart
// from the rest): a message across nodes goes as the slices NCCL's proxy
// posts (NcclEndpoint::NetSlices), each holding its slots of the
// connection's NetSlots until NetCreditDelay after its delivery (with
// DependencyNotice Message: until the receiver's credit message, posted
// NetCreditDelay after the delivery, reaches the sender; SliceReceived). The
// defaults (Simple, zero latencies, one node) send the schedule's bytes at once.
//
// How a delivery reaches the ops that wait for it (DependencyNotice):
// Instant (default), the waiting op starts the instant the delivery happens,
// wherever it is (shared memory, the assumption of every closed form);
// Message, a delivery at GPU Y releases an op sent by GPU X != Y only when a
// notification of kNoticeBytes from Y has reached X through the transport
// (NCCL's ready flag or credit, an MPI completion), one per (delivered op,
// distinct waiting GPU), and a NetStepsInFlight window reopens when the
// receiver's credit message reaches the sender (NCCL's slots too, sent only
// while the sender still needs it: none in flight when the collective ends).
// Notifications are not ops.
// In Message mode an op whose receiver cannot tell from its own message
// alone that the data is all there carries a ready flag too (kNoticeBytes,
// on the connection of its last leg, tagged after the notices and credits):
// a PXN op's proxy posts it when the NVLink leg has landed in its buffer
// (NCCL's proxy sees the sender's tail move), an LL or LL128 op's sender
// when its copy ends (the flag of the last line); the op is delivered when
// its last leg and its flag are in, and a PXN op's window credit goes back
// to the proxy, on the queue pair the data came on. What the receiver
// needs then travels with the messages, so a run split over MPI ranks
// reproduces it.
#ifndef HOCKNEY_COLLECTIVE_EXECUTOR_H
#define HOCKNEY_COLLECTIVE_EXECUTOR_H

#include "collective-schedule.h"
#include "collective-transport.h"
#include "nccl-protocol.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <vector>

namespace ns3
{

/// One op as it ran: what the OpCompleted trace reports when its last byte
/// arrives, with everything a per-op table needs (compare --per-op).
struct ExecutedOp
{
    uint32_t op;    ///< index in the schedule
    uint32_t src;   ///< sending rank
    uint32_t dst;   ///< receiving rank
    uint64_t bytes;
    uint32_t step;  ///< the algorithm step it belongs to
    Time start;     ///< handed to the transport, relative to the collective's start
    Time end;       ///< delivered, relative to the collective's start
};

/// How a delivery releases the ops waiting for it at another GPU
/// (CollectiveExecutor's DependencyNotice attribute).
enum class DependencyNotice
{
    INSTANT, ///< at once (shared memory: one process's view, the closed forms')
    MESSAGE, ///< by a notification message from the receiving GPU through the transport
};

class CollectiveExecutor : public Object
{
  public:
    /// Payload of a notification (DependencyNotice Message): NCCL's ready
    /// flag and credit are 64-bit counters (ncclSendMem::head,
    /// ncclRecvMem::tail are uint64_t), posted as one 8-byte RDMA write.
    static constexpr uint64_t kNoticeBytes = 8;
    /// m_flagTag of an op without a ready flag.
    static constexpr uint32_t kNoFlag = UINT32_MAX;

    /// Trace signature of OpStart and OpDelivered: op index, src, dst, bytes.
    using OpTracedCallback = void (*)(uint32_t op, uint32_t src, uint32_t dst, uint64_t bytes);
    /// Trace signature of OpCompleted.
    using ExecutedOpTracedCallback = void (*)(const ExecutedOp& op);

    static TypeId GetTypeId();
    CollectiveExecutor();

    /// Starts \p schedule on \p transport now (Check() first, unless the
    /// CheckSchedule attribute is false: a bad schedule throws std::logic_error).
    /// \p done runs when the last op is delivered.
    void Start(const CollectiveSchedule& schedule, Ptr<CollectiveTransport> transport, std::function<void()> done = {});
    /// Start(), then Simulator::Run() until the collective ends (the simulator
    /// is stopped then, so periodic events of a fabric do not keep it running)
    /// or the TimeLimit passes. Returns the total time; throws std::runtime_error
    /// naming the ops still waiting if the schedule did not finish. With
    /// \p onDone, that runs at the end instead and must stop the simulator
    /// itself (a partitioned run's agreed end, PartitionedRunEnd).
    Time Run(const CollectiveSchedule& schedule, Ptr<CollectiveTransport> transport,
             std::function<void()> onDone = {});

    bool IsComplete() const;
    uint32_t GetDeliveredOps() const;
    Time GetStartTime() const;
    /// Last delivery minus start (zero for an empty schedule).
    Time GetTotalTime() const;
    /// Per step k: when its last op was delivered, relative to the start.
    std::vector<Time> GetStepEndTimes() const;
    /// Per step k: its end minus the previous step's end (the first: minus the start).
    std::vector<Time> GetStepDurations() const;
    /// Per op, absolute simulation times (zero if it never happened).
    const std::vector<Time>& GetOpStartTimes() const;
    const std::vector<Time>& GetOpDeliveryTimes() const;

    /// The endpoint costs in force (from the attributes).
    NcclEndpoint GetEndpoint() const;
    /// Sets the attributes from \p endpoint.
    void SetEndpoint(const NcclEndpoint& endpoint);

    /// Partitioned runs (ns-3's MPI distributed simulator): each MPI rank
    /// would start the ops its GPUs send and see the deliveries to its GPUs,
    /// so an op whose start or delivery needs, at that very instant, what
    /// only another MPI rank knows cannot run exactly under conservative
    /// synchronisation (the other rank's news arrives a lookahead later).
    /// With GPU g on MPI rank \p owner[g] and this executor's attributes,
    /// returns "" when \p schedule has no such op, else one line naming the
    /// first and why: with DependencyNotice instant, a dependency on a
    /// delivery at a GPU of another MPI rank and a network connection across
    /// MPI ranks with more ops than NetStepsInFlight (the window opens at the
    /// receiver's delivery), an op across MPI ranks in NCCL's slots (NetSlots;
    /// the slots come back by shared memory), a PXN op whose receiver is on
    /// another MPI rank than its proxy and a protocol with a copy rate (LL,
    /// LL128) on an op across MPI ranks (the receiver needs the ready flag;
    /// the line says to pass --dependencies=message, which carries all of
    /// these as messages); in both modes, a PXN op whose proxy is on another
    /// MPI rank than its sender; an in-switch (NVLS) group spanning MPI
    /// ranks; with messages, NCCL's slots on a connection whose ops cut into
    /// different slot sequences (the credits the sender needs then depend on
    /// the order its ops go: SlotSequences). Throws std::invalid_argument if
    /// \p owner has fewer entries than the schedule has ranks.
    std::string FindCrossRankDependency(const CollectiveSchedule& schedule, const std::vector<uint32_t>& owner) const;
    /// A partitioned run: this process is MPI rank \p local and GPU g is on
    /// MPI rank \p owner[g]. Start() then starts only the ops this rank's
    /// GPUs send and waits only for the deliveries to its GPUs (matched by
    /// tag, CollectiveTransport::SendTagged); IsComplete, GetDeliveredOps,
    /// GetTotalTime and the per-op times are this rank's, and done runs when
    /// its deliveries are in. FindCrossRankDependency must have found
    /// nothing (Start throws std::logic_error otherwise). Empty: one process.
    void SetPartition(std::vector<uint32_t> owner, uint32_t local);
    /// The ops this process waits for (all, or its GPUs' receives).
    uint32_t GetLocalOps() const;

  protected:
    void DoDispose() override;

  private:
    void Launch(uint32_t op);
    void Send(uint32_t op);
    /// The transport delivered \p op: Delivered now, or when its copy ends.
    void Arrived(uint32_t op);
    /// One of \p op's messages to its receiver (a leg, its ready flag) is in:
    /// Arrived when the last is.
    void LegIn(uint32_t op);
    /// Whether \p op carries a ready flag (Message mode; not in a switch
    /// group or NCCL's slots): a PXN op, or a protocol with a copy rate.
    bool Flagged(const ScheduleOp& op) const;
    /// The sender of \p op's ready flag and the receiver of its window's
    /// credits (the end of its queue pair at the sender's server): its
    /// proxy, else its sender.
    static uint32_t FlagSender(const ScheduleOp& op);
    /// \p op's data is all at the flag's sender (PXN: leg 0 landed at the
    /// proxy; else: Send): its flag goes when the sender's copy has ended.
    void DataReady(uint32_t op);
    /// Posts \p op's ready flag to its receiver, now.
    void SendFlag(uint32_t op);
    /// \p then(\p op) now, or when \p op's copy at its sender ends if later.
    void AfterCopy(uint32_t op, void (CollectiveExecutor::*then)(uint32_t));
    void Delivered(uint32_t op);
    /// GPU g runs in this process (always, without a partition).
    bool Local(uint32_t gpu) const { return m_owner.empty() || m_owner[gpu] == m_local; }

    /// Whether \p op crosses nodes with NetSlots on (sent as NCCL's slices), under endpoint \p e.
    static bool Sliced(const ScheduleOp& op, const NcclEndpoint& e);
    /// Each op's slices under \p e (NcclEndpoint::NetSlices; none for an op
    /// not Sliced), the one record the executor reads them from: their
    /// slots each at most NetSlots (a slice wider than the window goes
    /// alone and holds all of it, as it would holding more: nothing else
    /// fits beside it either way).
    static std::vector<std::vector<NcclNetSlice>> CutSlices(const std::vector<ScheduleOp>& ops,
                                                            const NcclEndpoint& e);
    /// A network connection's slices (NetSlots): their slot counts in the
    /// order the sender posts them when every order of its ops gives the
    /// same sequence (its ops cut alike, or every slice holds as many
    /// slots: \p known), their total and their number.
    struct SlotSequence
    {
        bool known = true;
        std::vector<uint32_t> order; ///< when known
        uint32_t total = 0;
        uint32_t slices = 0;
    };
    /// Per network connection (src, dst) with sliced ops (\p slices, CutSlices), in key order.
    static std::map<std::pair<uint32_t, uint32_t>, SlotSequence> SlotSequences(
        const std::vector<ScheduleOp>& ops, const std::vector<std::vector<NcclNetSlice>>& slices);
    /// Whether \p op takes a place in its connection's whole-message window
    /// (NetStepsInFlight), under endpoint \p e.
    static bool Windowed(const ScheduleOp& op, const NcclEndpoint& e);
    /// One of \p op's dependencies is satisfied where it starts: \p op starts when none is left.
    void Release(uint32_t op);
    /// The notification of op \p delivered's delivery reached GPU \p gpu:
    /// releases the ops \p gpu sends that wait for it (DependencyNotice Message).
    void NoticeArrived(uint32_t delivered, uint32_t gpu);
    /// A place in \p connection's window is free at its sender: its next waiting op goes.
    void ReopenWindow(std::pair<uint32_t, uint32_t> connection);
    /// DependencyNotice Message, at Start: numbers the notifications and
    /// the windows' credits (tags past the ops') and registers with
    /// \p transport the ones another MPI rank sends to this one's GPUs.
    /// \return the first tag past them
    uint32_t ExpectNotices(Ptr<CollectiveTransport> transport);
    bool Messages() const { return m_dependencyNotice == static_cast<int>(DependencyNotice::MESSAGE); }

    // NCCL's slots on a network connection (NetSlots > 0), apart from the
    // whole-message window above.
    /// \p op's step latency is over: queue its slices on its connection.
    void LaunchSlices(uint32_t op);
    /// Hand the connection's queued slices to the transport while their slots are free.
    void PumpSlots(std::pair<uint32_t, uint32_t> connection);
    /// NCCL's slots, at the start: numbers the slices (tags from \p tag on,
    /// two a slice: its legs) and, with DependencyNotice Message, the slots'
    /// credits connection by connection; registers with \p transport the
    /// ones another MPI rank sends to this one's GPUs.
    /// \return the first tag past them
    uint32_t NumberSlices(Ptr<CollectiveTransport> transport, uint32_t tag);
    /// A slice of \p op holding \p slots of \p connection arrived at its
    /// receiver: its credit (returned after NetCreditDelay, or posted then
    /// as a message while the sender still needs slots back), then SliceArrived.
    void SliceReceived(std::pair<uint32_t, uint32_t> connection, uint32_t op, uint32_t slots);
    /// A slice of \p op arrived: \p op is in once its last slice is.
    void SliceArrived(uint32_t op);
    /// \p slots come back to \p connection (the receiver's credit).
    void ReturnCredit(std::pair<uint32_t, uint32_t> connection, uint32_t slots);

    const CollectiveSchedule* m_schedule;
    CollectiveSchedule m_copy; // the schedule outlives Start's caller
    Ptr<CollectiveTransport> m_transport;
    std::function<void()> m_done;
    std::vector<uint32_t> m_waiting;                 // per op: deps not yet delivered
    std::vector<std::vector<uint32_t>> m_dependents; // per op: ops waiting on it
    std::vector<SwitchGroup> m_groups;               // per in-switch group of the schedule
    std::vector<Time> m_opStart;
    std::vector<uint32_t> m_legsLeft;                // per op: legs (PXN: 2) or last leg and flag not yet in
    std::vector<uint32_t> m_flagTag;                 // per op (Message): its ready flag's tag, or kNoFlag
    std::vector<Time> m_opDelivered;
    std::vector<Time> m_copyEnd;                     // per op: its data moved by the sender's GPU
    std::vector<Time> m_copyFree;                    // per rank: its GPU's copy is free from
    uint32_t m_delivered;
    uint32_t m_localOps;             // ops delivered here (all without a partition)
    std::vector<uint32_t> m_owner;   // SetPartition's; empty: one process
    uint32_t m_local = 0;
    Time m_start;
    Time m_end;

    bool m_check;
    Time m_timeLimit;
    int m_protocol; // an NcclProtocol (EnumValue holds an int)
    Time m_launchOverhead;
    Time m_stepLatency;
    Time m_netStepLatency;
    uint32_t m_gpusPerNode;
    uint64_t m_simpleChunkBytes;
    DataRate m_llCopyRate;
    DataRate m_ll128CopyRate;
    uint32_t m_netStepsInFlight;
    uint32_t m_netSlots;
    Time m_netCreditDelay;
    Time m_netCreditCrossing; // of m_netCreditDelay, the network's (NcclEndpoint::netCreditCrossing)
    bool m_hwLatHoldsFabricLatency; ///< read by MakeNcclEndpoint only (NcclEndpoint::hwLatHoldsFabric)
    int m_dependencyNotice; // a DependencyNotice
    /// A notification of a delivery to a GPU that waits for it (Message).
    struct Notice
    {
        uint32_t gpu; ///< the waiting GPU (sends the ops it releases)
        uint32_t tag; ///< its message's tag, from the delivering GPU
    };
    std::vector<std::vector<NcclNetSlice>> m_slices; // per op: its slices (CutSlices; NumberSlices)
    std::vector<uint32_t> m_sliceTag;           // per sliced op: its first slice's tag (past the ops' and notices')
    std::vector<std::vector<Notice>> m_notices; // per op (Message): distinct waiting GPUs but its receiver
    /// A slice queued on a network connection: its op, its index in the op, data bytes and slots.
    struct QueuedSlice
    {
        uint32_t op;
        uint32_t index;
        NcclNetSlice slice;
    };
    /// A network connection (src, dst across nodes): its steps in flight
    /// and the ops waiting for a slot, in the order they became ready; with
    /// NetSlots, its slots in use and the slices waiting for them.
    struct NetConnection
    {
        uint32_t inFlight = 0;
        std::deque<uint32_t> waiting;
        uint32_t slotsUsed = 0;
        std::deque<QueuedSlice> slices;
        // DependencyNotice Message, at the receiver: the window's credits
        // the sender will need (its windowed ops beyond NetStepsInFlight),
        // the tag of the first, and how many were sent.
        uint32_t creditsNeeded = 0;
        uint32_t firstCreditTag = 0;
        uint32_t creditsSent = 0;
        // NetSlots with DependencyNotice Message (SliceReceived): the slots
        // the sender must get back to post its last slice, its slices' slot
        // counts in posting order (from the schedule when known, else the
        // sender's record, one process only), and at the receiver the
        // slices arrived, the slots credited and the first credit's tag.
        uint32_t slotsNeeded = 0;
        SlotSequence sequence;
        std::vector<uint32_t> posted;
        uint32_t slicesArrived = 0;
        uint32_t slotsCredited = 0;
        uint32_t firstSlotCreditTag = 0;
    };
    std::vector<uint32_t> m_slicesLeft; // per op: slices not yet arrived (NetSlots)
    std::map<std::pair<uint32_t, uint32_t>, NetConnection> m_connections;
    NcclEndpoint m_endpoint; // built from the attributes at Start
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t> m_opStartTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t> m_opDeliveredTrace;
    TracedCallback<const ExecutedOp&> m_opCompletedTrace;
};

} // namespace ns3

#endif
