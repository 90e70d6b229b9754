// SPDX-License-Identifier: GPL-2.0-only
//
// The efficiency of go-back-N ARQ on a lossy link, in the form that matches
// hockney's RDMA NIC (contrib/fabric, RdmaNic): a gap is reported by one NAK
// (PSN sequence error, sent once per gap as the IB responder does), and what
// a NAK cannot report -- a lost NAK, or a retransmission lost while the
// responder has already NAKed -- waits for the retransmission timeout.
//
// The classic analysis (D. Bertsekas and R. Gallager, Data Networks, 2nd
// ed., Prentice Hall 1992, section 2.4.2, go back n ARQ; W. Stallings, Data
// and Computer Communications, appendix on ARQ performance): with packets
// sent back to back, each lost with probability p independently, and each
// loss costing W packet slots (the lost one and the W - 1 sent behind it
// before the sender goes back), the expected slots per delivered packet are
// S = (1 + (W - 1) p) / (1 - p), so the efficiency (goodput / line-rate
// goodput) is
//     eta = (1 - p) / (1 + (W - 1) p).
// Derivation: S = (1 - p) 1 + p (W + S).
//
// For the NIC, a data loss is seen when the next packet arrives; the NAK
// goes back and the sender finishes the packet it is sending, so the loss
// costs W = 2 + ceil((2 d + T_c) / T) slots (T: packet time, d: one-way
// latency, T_c: the NAK's serialization): the NAK path, one round trip of
// the pipe. A lost NAK (probability q) or a retransmission lost again
// (probability p) leaves the gap open; the NIC's responder NAKs an open gap
// again NakInterval after its last NAK, so either costs
// W_I = 2 + ceil((2 d + T_c + NakInterval) / T) slots from the loss:
//     W_eff = (1 - q) (1 - p) W + (q + (1 - q) p) W_I.
// With IBTA's one NAK per gap (NakInterval 0) only the transport timer is
// left. It runs from the next packet that asks for an acknowledgement
// (AckReq, every A packets; the sender is then on a packet boundary, so the
// go-back starts R = ceil(RTO / T) slots later) and goes back to the oldest
// unacknowledged packet: a lost NAK costs R + A - 1 slots (back to the
// block's start), a lost retransmission R + (A - 1) / 2 more after W (the
// resent stream reaches the block's AckReq half a block later on average):
//     W_eff = (1 - q) W + q (R + A - 1) + (1 - q) p (R + (A - 1) / 2).
// Either way, to first order in p, eta = (1 - p) / (1 + (W_eff - 1) p).
// Not included: the message's tail (its last packet has no successor to
// reveal a loss: one timeout, p R / N of N packets), higher orders (a loss
// during a recovery, lost ACKs, which are cumulative), and a window or rate
// limit below the line rate. doc/analytic.md, "Go-back-N on a lossy link".
#ifndef HOCKNEY_GO_BACK_N_H
#define HOCKNEY_GO_BACK_N_H

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/// The timing of a go-back-N sender streaming at line rate.
struct GoBackNLink
{
    Time packetTime;        ///< T: one data packet on the wire (back to back)
    Time nakLoop;           ///< 2 d + T_c: the NAK's trip after the revealing packet arrived
    Time retransmitTimeout; ///< RTO
    Time nakInterval;       ///< the responder's NAK refresh (0: one NAK per gap, IBTA)
    uint32_t ackInterval{64}; ///< A: packets per AckReq
};

/// W = 2 + ceil(nakLoop / T): packet slots a loss recovered by NAK costs.
double GoBackNWindow(const GoBackNLink& link);

/// The expected packet slots one loss costs (p = dataLoss, q = controlLoss,
/// the NAK's loss probability): (1 - q) (1 - p) W + (q + (1 - q) p) W_I with a
/// NakInterval, else (1 - q) W + q (R + A - 1) + (1 - q) p (R + (A - 1) / 2),
/// R = ceil(RTO / T).
double GoBackNEffectiveWindow(double dataLoss, double controlLoss, const GoBackNLink& link);

/// eta = (1 - p) / (1 + (W_eff - 1) p): goodput as a fraction of the
/// loss-free goodput (Bertsekas and Gallager, section 2.4.2, with W_eff).
/// \throws std::invalid_argument for a probability outside [0, 1) or a
/// packet time <= 0.
double GoBackNEfficiency(double dataLoss, double controlLoss, const GoBackNLink& link);

/// 1 - (1 - b)^bits: a packet of \p bits lost at bit-error rate \p b.
double PacketErrorRate(double bitErrorRate, uint64_t bits);

} // namespace ns3

#endif
