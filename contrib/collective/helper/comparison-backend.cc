// SPDX-License-Identifier: GPL-2.0-only
//
// The registry of compare's backends (row order), the name lookup of
// --backends, the per-point context, and the executor run on the analytic
// channel that the alphabeta and loggp backends share.
#include "comparison-backend.h"

#include "analytic-transport.h"
#include "collective-executor.h"
#include "input-error.h"
#include "units.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

const std::vector<std::unique_ptr<ComparisonBackend>>&
ComparisonBackendRegistry()
{
    // Row order: the parameter-source backends first, then the topology's.
    static const std::vector<std::unique_ptr<ComparisonBackend>> registry = [] {
        std::vector<std::unique_ptr<ComparisonBackend>> r;
        r.push_back(MakeClosedBackend());
        r.push_back(MakeGoBackNBackend());
        r.push_back(MakeAlphaBetaBackend());
        r.push_back(MakeLogGpBackend());
        r.push_back(MakeFlowBackend());
        r.push_back(MakePacketBackend());
        return r;
    }();
    return registry;
}

const ComparisonBackend*
FindComparisonBackend(const std::string& name)
{
    for (const auto& b : ComparisonBackendRegistry())
    {
        if (b->Name() == name)
        {
            return b.get();
        }
    }
    return nullptr;
}

const ComparisonBackend&
LookUpBackend(const std::string& name, const std::string& field)
{
    const ComparisonBackend* b = FindComparisonBackend(name);
    if (!b)
    {
        throw InputError(field, "expected backends among " + JoinNames(ComparisonBackends()) + ", got '" + name + "'");
    }
    return *b;
}

const std::vector<std::string>&
ComparisonBackends()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& b : ComparisonBackendRegistry())
        {
            n.push_back(b->Name());
        }
        return n;
    }();
    return names;
}

std::vector<std::string>
ParseBackends(const std::string& text, const std::string& field)
{
    std::vector<std::string> out;
    for (const auto& item : units::SplitList(text, field))
    {
        LookUpBackend(item, field);
        if (std::find(out.begin(), out.end(), item) != out.end())
        {
            throw InputError(field, "backend '" + item + "' given twice; expected each once");
        }
        out.push_back(item);
    }
    return out;
}

ComparisonContext::ComparisonContext(const ComparisonSetup& setup, const ComparisonPoint& derived)
    : m_setup(setup),
      m_derived(derived)
{
}

Time
ComparisonContext::FlowModelTime()
{
    if (!m_flow)
    {
        m_flow = RunFlowModel(m_derived, m_setup, RecordsOps(m_setup) ? &m_flowOps : nullptr);
    }
    return *m_flow;
}

Time
RunOnAnalyticChannel(const ComparisonPoint& pt,
                     const std::function<Ptr<AnalyticModel>(const PointToPointParameters&)>& makeModel,
                     AnalyticChannel::ContentionPolicy policy,
                     std::vector<ExecutedOp>* ops)
{
    auto t = CreateObject<AnalyticTransport>();
    const uint32_t g = pt.spec.LocalRanks();
    if (pt.hierarchical)
    {
        t->Install(pt.spec.ranks, makeModel(pt.level[0]), policy);
        t->AddLevel(makeModel(pt.level[1]));
        // Servers of g consecutive ranks, or the topology's (a rail layout).
        const std::vector<uint32_t> server = pt.spec.placement.server;
        t->SetLevelFunction([g, server](uint32_t a, uint32_t b) {
            if (!server.empty())
            {
                return server[a] == server[b] ? 0u : 1u;
            }
            return a / g == b / g ? 0u : 1u;
        });
    }
    else
    {
        t->Install(pt.spec.ranks, makeModel(pt.flat), policy);
    }
    return RunScheduleOn(pt, t, ops);
}

bool
RecordsOps(const ComparisonSetup& setup)
{
    return static_cast<bool>(setup.config.perOp);
}

void
RecordOps(Ptr<CollectiveExecutor> exec, std::vector<ExecutedOp>* ops)
{
    if (ops)
    {
        exec->TraceConnectWithoutContext(
            "OpCompleted",
            MakeBoundCallback(+[](std::vector<ExecutedOp>* to, const ExecutedOp& op) { to->push_back(op); }, ops));
    }
}

void
ApplyEndpoint(Ptr<CollectiveExecutor> exec, const ComparisonPoint& pt)
{
    if (!pt.endpoint)
    {
        return;
    }
    exec->SetEndpoint(*pt.endpoint);
}

Time
RunScheduleOn(const ComparisonPoint& pt, Ptr<AnalyticTransport> t, std::vector<ExecutedOp>* ops)
{
    auto exec = CreateObject<CollectiveExecutor>();
    exec->SetAttribute("CheckSchedule", BooleanValue(false)); // checked once per point (BuildPoint)
    ApplyEndpoint(exec, pt);
    RecordOps(exec, ops);
    Time took = exec->Run(pt.schedule, t);
    Simulator::Destroy();
    return took;
}

} // namespace ns3
