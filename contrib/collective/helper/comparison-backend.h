// SPDX-License-Identifier: GPL-2.0-only
//
// The backends of `hockney compare` as objects: each answers "how long does
// this point take" one way (collective-comparison.h lists them), and the
// registry, in row order, is where --backends and scenario.backends names
// are looked up. RunComparison (collective-comparison.cc) runs the selected
// ones on each point; the regime and the error against the packet run are
// decided once for all of them (comparison-regime.h).
//
// Adding a backend: a class deriving from ComparisonBackend in its own
// comparison-backend-NAME.cc, a Make...Backend() factory declared below, and
// one line in the registry (comparison-backend.cc) at its place in row order.
#ifndef HOCKNEY_COMPARISON_BACKEND_H
#define HOCKNEY_COMPARISON_BACKEND_H

#include "analytic-model.h"
#include "analytic-transport.h"
#include "collective-executor.h"
#include "comparison-point.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

class AlphaBetaModel;

/// What one backend answered for one point: the time and what its row says
/// besides the columns every row has.
struct BackendAnswer
{
    std::string backend; ///< the backend's name (set by RunComparison)
    Time time; ///< the collective's time (meaningless when stopped)
    /// The point whose alpha and beta the backend used (the row's alpha_s,
    /// beta_Bps, params); null: it used none (the packet fabric).
    const ComparisonPoint* parameters = nullptr;
    ResultRow columns; ///< backend-specific columns, after the common ones
    /// A measurement, not a model: the other rows' error is relative to it.
    bool reference = false;
    /// PFC paused or rates were cut (CNPs): the congestion-control regime.
    bool congestionControlActed = false;
    /// Non-empty: the run stopped before it finished; how far it got
    /// (the message of PacketRunStopped).
    std::string stoppedAt;
    /// Why, when stoppedAt is set.
    PacketStop stop = PacketStop::WALL_LIMIT;
    /// Each op as the executor ran it, when the comparison asks for them
    /// (ComparisonConfig::perOp; RecordsOps); a stopped run's delivered ones.
    std::vector<ExecutedOp> ops;
};

/// Whether the comparison of \p setup wants each op (compare --per-op).
bool RecordsOps(const ComparisonSetup& setup);

/// One point's context: the comparison-wide setup and the results backends
/// (and the regime) share, each computed once.
class ComparisonContext
{
  public:
    /// \p derived is the point with the derived (or given) parameters.
    ComparisonContext(const ComparisonSetup& setup, const ComparisonPoint& derived);

    const ComparisonSetup& Setup() const { return m_setup; }

    /// The flow model's time of the derived point (max-min fair link sharing
    /// over the topology's routes, RunFlowModel), computed on first use: the
    /// flow backend's answer and the contention evidence of the regime.
    Time FlowModelTime();
    /// The flow model's ops (recorded when RecordsOps), after FlowModelTime.
    const std::vector<ExecutedOp>& FlowModelOps() const { return m_flowOps; }
    /// Whether the flow model has run for this point (FlowModelTime called).
    bool FlowModelRan() const { return m_flow.has_value(); }

    /// The estimate line of this point's packet run (packet-run-estimate.h),
    /// which the packet backend prints once its fabric is built (so that a
    /// bad attribute found while building stays the one line on stderr).
    std::string packetEstimateLine;

  private:
    const ComparisonSetup& m_setup;
    const ComparisonPoint& m_derived;
    std::optional<Time> m_flow;
    std::vector<ExecutedOp> m_flowOps;
};

class ComparisonBackend
{
  public:
    virtual ~ComparisonBackend() = default;
    /// The name --backends and the rows use.
    virtual std::string Name() const = 0;
    /// Needs the topology (its routes or its packet fabric), not only alpha
    /// and beta: refused without one (ValidateComparison).
    virtual bool NeedsTopology() const { return false; }
    /// true: runs once per parameter source (derived or given, calibrated),
    /// on that source's point; false: once per point, on the derived one.
    virtual bool PerParameterSource() const { return false; }
    /// The answer for \p point. Throws InputError for bad input it alone
    /// detects, std::runtime_error when the run fails.
    virtual BackendAnswer Run(const ComparisonPoint& point, ComparisonContext& context) const = 0;
};

/// Every backend, in row order.
const std::vector<std::unique_ptr<ComparisonBackend>>& ComparisonBackendRegistry();
/// The backend named \p name, or null.
const ComparisonBackend* FindComparisonBackend(const std::string& name);
/// The backend named \p name; throws InputError naming \p field, listing the
/// known names, when there is none.
const ComparisonBackend& LookUpBackend(const std::string& name, const std::string& field);

std::unique_ptr<ComparisonBackend> MakeClosedBackend();
/// "gbn": the closed form with beta times the go-back-N efficiency of the lossy links.
std::unique_ptr<ComparisonBackend> MakeGoBackNBackend();
std::unique_ptr<ComparisonBackend> MakeAlphaBetaBackend();
std::unique_ptr<ComparisonBackend> MakeLogGpBackend();
std::unique_ptr<ComparisonBackend> MakeFlowBackend();
std::unique_ptr<ComparisonBackend> MakePacketBackend();

// Shared by the backends and the regime.

/// The closed form of \p pt, \p extra added to each level's alpha.
Time ClosedTime(const ComparisonPoint& pt, Time extra);
/// An alpha-beta model of \p p with \p extra added to alpha.
Ptr<AlphaBetaModel> MakeAlphaBeta(const PointToPointParameters& p, Time extra);
/// The executor's time of \p pt's schedule on the analytic channel, one
/// model per level (\p makeModel), contention policy \p policy; each op
/// into \p ops when given.
Time RunOnAnalyticChannel(const ComparisonPoint& pt,
                          const std::function<Ptr<AnalyticModel>(const PointToPointParameters&)>& makeModel,
                          AnalyticChannel::ContentionPolicy policy,
                          std::vector<ExecutedOp>* ops = nullptr);
/// The executor's time of \p pt's schedule on \p t (installed), the
/// simulator destroyed after it; each op into \p ops when given.
Time RunScheduleOn(const ComparisonPoint& pt, Ptr<AnalyticTransport> t, std::vector<ExecutedOp>* ops = nullptr);
/// Gives \p exec the NCCL endpoint costs of \p pt, when it has them.
void ApplyEndpoint(Ptr<CollectiveExecutor> exec, const ComparisonPoint& pt);
/// Appends every op \p exec completes to \p ops (nothing when null): the
/// one observer of the executor's OpCompleted for every backend.
void RecordOps(Ptr<CollectiveExecutor> exec, std::vector<ExecutedOp>* ops);
/// The flow model's transport: the analytic channel with the shared policy
/// over the routes of \p pairs, each message capped by the fastest of their
/// payload rates and \p fastest, plus \p extra (comparison-backend-flow.cc).
Ptr<AnalyticTransport> MakeFlowTransport(const ComparisonSetup& setup,
                                         uint32_t ranks,
                                         const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                                         DataRate fastest,
                                         Time extra);
/// The flow model's time of \p pt (comparison-backend-flow.cc); each op into
/// \p ops when given.
Time RunFlowModel(const ComparisonPoint& pt, const ComparisonSetup& setup, std::vector<ExecutedOp>* ops = nullptr);

} // namespace ns3

#endif
