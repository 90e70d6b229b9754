// SPDX-License-Identifier: GPL-2.0-only
//
// The closed-form time of every algorithm: the third answer, with no
// simulation at all. Each algorithm's critical path is a
// list of steps, one message each, priced by a point-to-point time T(m) (alpha +
// m / beta, or any AnalyticModel's GetMessageTime). With S pieces pipelined
// through stages j of steps k (see collective-algorithms.h) the time is that
// of a flow shop: the fill plus (S - 1) times the slowest stage,
//     sum_k T(m_k) + (S - 1) max_j sum_{k in j} T(m_k).
// In most algorithms every step is a stage (S = slices), which for equal
// steps is the classic (K + S - 1) T(m); the hierarchical AllReduce has three
// stages (its phases, each holding one chunk at a time) and S chunks
// (CollectiveSpec::chunkBytes). With one slice and one
// channel, and T(m) = alpha + m / beta, the forms are the textbook ones
// (M bytes as nccl-tests counts them, N ranks):
//   ring allreduce          2(N-1) (alpha + M/(N beta))
//   double binary tree      2D (alpha + M/(2 beta)), D the trees' depth
//   halving-doubling        2 log2(N) alpha + 2 (N-1)/N M/beta (N a power of two;
//                           otherwise a fold of M in and out: + 2 (alpha + M/beta))
//   ring allgather          (N-1) (alpha + M/(N beta))
//   ring reducescatter      (N-1) (alpha + M/(N beta))
//   ring (chain) broadcast  (N-1) (alpha + M/beta); with S slices (N-2+S)(alpha + M/(S beta))
//   binomial broadcast      ceil(log2 N) (alpha + M/beta)
//   pairwise alltoall       (N-1) (alpha + M/(N beta))
//   all-at-once alltoall    alpha + M/(N beta)   (no contention: see the channel policies)
//   incast                  alpha + M/(N beta)   (likewise)
//   hierarchical (G GPUs a node, K nodes), one chunk
//                           2(G-1)(alpha_1 + M/(G beta_1)) + 2(K-1)(alpha_2 + M/(G K beta_2));
//                           with C chunks, stages t_1 = t_3 = (G-1)(alpha_1 + M/(C G beta_1)),
//                           t_2 = 2(K-1)(alpha_2 + M/(C G K beta_2)):
//                           t_1 + t_2 + t_3 + (C-1) max(t_1, t_2)
//   node tree (G GPUs a server, D the server trees' depth)
//                           2(G-1)(alpha_0 + M/(2 beta_0)) + 2D(alpha_1 + M/(2 beta_1))
//   ring on a rail layout   2(N-1) max(alpha_1 + M/(N beta_1), alpha_0 + M/(N beta_0))
//   pxn alltoall            max(alpha_1 + M/(N beta_1), alpha_0 + M/(N beta_0))
//                           (a PXN step: its two legs at once, CriticalStep::relayed)
// These hold for the algebra's "no contention" assumption: the executor on the
// contention-free channel reproduces them exactly (tests), and the other
// backends show what contention adds.
#ifndef HOCKNEY_COLLECTIVE_CLOSED_FORM_H
#define HOCKNEY_COLLECTIVE_CLOSED_FORM_H

#include "analytic-model.h"
#include "collective-algorithm-registry.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/// The critical path of \p spec (its largest channel, one slice per step),
/// from its algorithm's registry entry; InputError naming --algorithm if the
/// collective has no such algorithm (aliases are accepted).
std::vector<CriticalStep> CriticalPath(const CollectiveSpec& spec);

/// Point-to-point time of one message of \p bytes on \p level.
using PointToPointTime = std::function<Time(uint32_t level, double bytes)>;

/// Whether the pipeline's stages are priced with their ports' loads
/// (CriticalStep::load): CHARGED, what the fabric runs; IGNORED, the
/// contention-free channel's answer (every message its port alone) and
/// NCCL's tuning model, which has its own figures.
enum class PortLoads
{
    CHARGED,
    IGNORED
};

/// sum_k T(m_k) + (S - 1) x the slowest stage over CriticalPath(spec), S its
/// PipelineDepth; a stage's steps priced at T(load_k m_k) with \p loads CHARGED.
Time ClosedFormTime(const CollectiveSpec& spec, const PointToPointTime& p2p, PortLoads loads = PortLoads::CHARGED);
/// With T(m) = alpha + m / beta on every level.
Time ClosedFormTime(const CollectiveSpec& spec, Time alpha, DataRate beta);
/// With T(m) = alpha_l + m / beta_l on level l (0: intra-node, 1: inter-node).
Time ClosedFormTime(const CollectiveSpec& spec, Time alpha0, DataRate beta0, Time alpha1, DataRate beta1);
/// With T(m) = model->GetMessageTime(m) (level 1 uses \p inter when given).
Time ClosedFormTime(const CollectiveSpec& spec, Ptr<const AnalyticModel> intra, Ptr<const AnalyticModel> inter = nullptr);

/// alpha + bytes / beta as a Time, rounded to the nearest tick.
Time AlphaBetaTime(Time alpha, DataRate beta, double bytes);

} // namespace ns3

#endif
