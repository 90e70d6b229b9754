// SPDX-License-Identifier: GPL-2.0-only
//
// ECN marking at a switch egress, RED on the instantaneous queue as DCQCN's
// congestion point does it (Zhu et al., SIGCOMM 2015): no mark below Kmin,
// probability rising linearly from 0 at Kmin to Pmax at Kmax, always above
// Kmax. Only ECT packets are marked (to CE). Two choices are attributes:
// where the queue is read (MarkAt: Dequeue, the default, sees the bytes of
// the packet's class still queued behind it when it starts transmission, as
// the HPCC simulator's switch-node.cc marks in SwitchNotifyDequeue; Enqueue
// sees the bytes ahead of it when it joins the egress queue, RED's classic
// point of egress admission) and what is counted (QueueBytes: Payload, the
// default, bytes after the fabric header; Wire, on-wire bytes as the switch
// buffer counts them). doc/fabric.md, "ECN marking options".
// Kmin, Kmax and Pmax come from a named marking table for the port's rate
// (Table attribute; doc/fabric.md, "ECN marking tables"): PerRate, the
// default, the HPCC authors' production-style set as used in public ns-3
// RDMA configurations (KB = 1000 B, Pmax 0.2): <=25G 100/400, 100G
// 400/1600, 200G 600/2400, >=400G 800/3200, a rate between rows taking the
// row below it; Paper, the DCQCN paper's deployment (Zhu et al., SIGCOMM
// 2015: Kmin 5 KB, Kmax 200 KB, Pmax 1 %, any rate); Linear, 100 and 400 KB
// per 25 Gb/s of link rate with Pmax 0.2 (the HPCC simulator's run.py
// formula, kmin = 100 * bw / 25). Kmin, Kmax or Pmax set by the user win.
#ifndef HOCKNEY_ECN_MARKER_H
#define HOCKNEY_ECN_MARKER_H

#include "ns3/data-rate.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

class FabricEcnMarker : public Object
{
  public:
    /// Where the egress port reads the queue for the marking decision.
    enum MarkPoint
    {
        DEQUEUE, ///< at transmission start: bytes queued behind the packet
        ENQUEUE  ///< when the packet joins the egress queue: bytes ahead of it
    };

    /// Which bytes of the queue are compared with Kmin / Kmax.
    enum QueueMeasure
    {
        PAYLOAD, ///< bytes after the fabric header (transport headers + payload)
        WIRE     ///< on-wire bytes (framing, preamble and gap included)
    };

    /// A named table of Kmin, Kmax, Pmax by link rate (file comment).
    enum MarkingTable
    {
        PER_RATE,
        PAPER,
        LINEAR
    };

    static TypeId GetTypeId();
    FabricEcnMarker();
    ~FabricEcnMarker() override;

    /// RED line: mark probability for a queue of `queueBytes`.
    double MarkProbability(uint64_t queueBytes) const;
    /// Draws once against MarkProbability (no draw below Kmin or above Kmax).
    bool ShouldMark(uint64_t queueBytes);
    /// For a network transfer unit of \p linkPackets link packets: marked
    /// with probability 1 - (1 - p)^n (any of its packets marked), one draw;
    /// ShouldMark(queueBytes) for n = 1.
    bool ShouldMark(uint64_t queueBytes, uint32_t linkPackets);

    /// Sets Kmin, Kmax, Pmax from the marker's table (Table) at \p rate.
    void ConfigureForRate(DataRate rate);
    /// Kmin, Kmax, Pmax of \p table at \p rate.
    static void DefaultsForRate(DataRate rate,
                                uint64_t& kmin,
                                uint64_t& kmax,
                                double& pmax,
                                MarkingTable table = PER_RATE);

    void SetThresholds(uint64_t kminBytes, uint64_t kmaxBytes, double pmax);
    uint64_t GetKmin() const { return m_kmin; }
    uint64_t GetKmax() const { return m_kmax; }
    double GetPmax() const { return m_pmax; }

    bool MarksAtEnqueue() const { return m_markPoint == ENQUEUE; }
    /// The queue length the RED line is read at, from both counts of a class queue.
    uint64_t QueueBytes(uint64_t payloadBytes, uint64_t wireBytes) const
    {
        return m_measure == WIRE ? wireBytes : payloadBytes;
    }

    /// Fixes the random stream; returns the number of streams used (1).
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    uint64_t m_kmin{400000};
    uint64_t m_kmax{1600000};
    double m_pmax{0.2};
    MarkingTable m_table{PER_RATE};
    MarkPoint m_markPoint{DEQUEUE};
    QueueMeasure m_measure{PAYLOAD};
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif
