// SPDX-License-Identifier: GPL-2.0-only
#include "comparison-packet-fabric.h"

#include "attribute-defaults.h"
#include "calibration.h"
#include "input-error.h"
#include "rdma-endpoint.h"
#include "units.h"

#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

void
ConfigurePacket(Ptr<PacketTransport> t, const ComparisonFabric& f)
{
    t->SetTransferUnits(f.NvlinkUnit(), f.PcieUnit());
    t->SetNetworkTransferUnit(f.networkTransferUnitBytes);
    if (!f.nicPreset.empty())
    {
        t->SetNicPreset(RdmaHelper::Preset(f.nicPreset), "scenario.fabric.nic");
    }
    if (f.ncclEndpoints)
    {
        t->SetEndpointAttribute("SendOverhead", TimeValue(Time(0)));
        t->SetEndpointAttribute("ReceiveOverhead", TimeValue(Time(0)));
        t->SetEndpointAttribute("EagerLimit", UintegerValue(kNcclEagerLimit));
        t->SetEndpointAttribute("RendezvousLimit", UintegerValue(kNcclEagerLimit));
    }
    if (f.ideal)
    {
        t->SetHeadersInTag(true);
        t->SetEndpointAttribute("SendOverhead", TimeValue(Time(0)));
        t->SetEndpointAttribute("ReceiveOverhead", TimeValue(Time(0)));
        t->SetEndpointAttribute("PipelineSetup", TimeValue(Time(0)));
        t->SetNicAttribute("EngineStartup", TimeValue(Time(0)));
        t->SetNicAttribute("AckInterval", UintegerValue(64));
    }
}

Ptr<PacketTransport>
BuildPacketRun(const TopologyDescription& desc, const ComparisonFabric& f, uint32_t seed, Ptr<FabricWatchdog>* watchdog)
{
    // The event queue of this run (the Simulator::Destroy after the run brings
    // back ns-3's SchedulerType for whatever runs next). Events leave every
    // ns-3 scheduler in (time, scheduling order), so this is speed only.
    Simulator::SetScheduler(ObjectFactory(f.scheduler));
    Ptr<PacketTransport> t = CreateObject<PacketTransport>();
    ConfigurePacket(t, f);
    t->SetSeed(seed);
    t->SetPartition(f.partition);
    if (HasLossyLinks(f.faults))
    {
        // On the wires before Build seeds the run: the error models take
        // their streams with the switches' markers, in the one AssignStreams.
        t->SetWireSetup([faults = f.faults](FabricNetwork& network) { ApplyLossyLinks(faults, network); });
    }
    const PacketTransport::CongestionControlFactory cc = MakeCongestionControl(f);
    try
    {
        t->Build(desc, cc);
    }
    catch (const InputError&)
    {
        throw;
    }
    catch (const std::invalid_argument& e)
    {
        throw InputError("--topology", e.what());
    }
    Ptr<FabricWatchdog> w = t->InstallWatchdog();
    if (watchdog)
    {
        *watchdog = w;
    }
    if (!f.faults.empty())
    {
        // The storm pauses the class the endpoints send in unless told.
        UintegerValue priority;
        Ptr<RdmaEndpoint> ep = CreateObject<RdmaEndpoint>();
        ApplyUserAttributes(ep);
        ep->GetAttribute("Priority", priority);
        const std::vector<FabricFault> scheduled =
            ResolveFaults(f.faults, t->GetNetwork()->GetTopology(), static_cast<uint8_t>(priority.Get()));
        if (!scheduled.empty()) // lossy links only: nothing to schedule
        {
            Ptr<FabricFaultInjector> injector = CreateObject<FabricFaultInjector>();
            injector->SetNetwork(t->GetNetwork());
            injector->Schedule(scheduled);
            t->AggregateObject(injector); // lives as long as the run
        }
    }
    return t;
}

PacketWallWatch::PacketWallWatch(Clock::time_point start,
                                 Time limit,
                                 std::function<std::string()> status,
                                 std::function<bool()> complete,
                                 std::function<void(const std::string&)> progress,
                                 std::string prefix)
    : m_start(start),
      m_lastPrint(start),
      m_limit(std::chrono::nanoseconds(limit.GetNanoSeconds())),
      m_status(std::move(status)),
      m_complete(std::move(complete)),
      m_progress(std::move(progress)),
      m_prefix(std::move(prefix))
{
}

void
PacketWallWatch::Start()
{
    Simulator::ScheduleNow(&PacketWallWatch::Check, this);
}

void
PacketWallWatch::Check()
{
    ++m_checks;
    const auto now = Clock::now();
    const bool interrupted = PacketRunInterrupted();
    if (interrupted || now - m_start >= m_limit)
    {
        m_stopped = true;
        m_kind = interrupted ? PacketStop::INTERRUPT : PacketStop::WALL_LIMIT;
        m_stoppedAt = m_status();
        Simulator::Stop();
        return;
    }
    if (m_progress && now - m_lastPrint >= std::chrono::seconds(3))
    {
        m_lastPrint = now;
        m_progress(m_prefix + ": " + m_status() + ", wall " +
                   std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - m_start).count()) + " s");
    }
    if (!m_complete())
    {
        Simulator::Schedule(MicroSeconds(5), &PacketWallWatch::Check, this);
    }
}

std::string
PacketWallWatch::Reason(const std::string& wallField) const
{
    if (m_kind == PacketStop::INTERRUPT)
    {
        return "stopped by an interrupt (SIGINT or SIGTERM)";
    }
    return "stopped at the wall-clock limit of " +
           units::FormatSeconds(std::chrono::duration<double>(m_limit).count()) + " (" + wallField + ")";
}

void
SetDropColumns(ResultRow& row, const PacketRunCounters& k, const std::vector<ScenarioFault>& faults)
{
    if (faults.empty())
    {
        // Runs without faults keep their columns (drops counts buffer
        // drops there; no other cause can occur).
        return;
    }
    for (uint8_t cause = 0; cause < kFabricDropCauses; ++cause)
    {
        row.Set(std::string("drops_") + FabricDropCauseName(cause), k.dropsBy[cause]);
    }
    k.pfcStorms.empty() ? row.SetNull("pfc_storms") : row.Set("pfc_storms", k.pfcStorms);
}

Time
EndpointCost(const ComparisonFabric& f)
{
    Ptr<RdmaEndpoint> ep = CreateObject<RdmaEndpoint>();
    if (f.ideal || f.ncclEndpoints)
    {
        // As the packet backend's ideal endpoints: no software cost, except
        // what the user set (--ns3::RdmaEndpoint::SendOverhead, ...), which wins.
        ep->SetAttribute("SendOverhead", TimeValue(Time(0)));
        ep->SetAttribute("ReceiveOverhead", TimeValue(Time(0)));
        ApplyUserAttributes(ep);
    }
    TimeValue send;
    TimeValue recv;
    ep->GetAttribute("SendOverhead", send);
    ep->GetAttribute("ReceiveOverhead", recv);
    return send.Get() + recv.Get();
}

PointToPointParameters
CalibratePair(const TopologyDescription& desc,
              const ComparisonFabric& f,
              uint32_t seed,
              uint32_t src,
              uint32_t dst,
              uint64_t m)
{
    // Least squares with relative residuals (calibration.h, model alphabeta)
    // over m/4 .. 4m: the straight line that best fits the packets where the
    // collective's messages are, which a protocol step elsewhere would
    // otherwise bend.
    std::vector<uint64_t> sizes;
    for (double k : {0.25, 0.5, 1.0, 2.0, 4.0})
    {
        uint64_t n = std::max<uint64_t>(64, static_cast<uint64_t>(k * static_cast<double>(m)));
        if (sizes.empty() || n != sizes.back())
        {
            sizes.push_back(n);
        }
    }
    MeasurementSet set;
    MeasurementSource source;
    source.file = "packet sweep";
    source.firstLine = 1;
    source.test = "packet";
    source.collective = "p2p";
    source.ranks = 2;
    set.sources.push_back(source);
    for (uint64_t bytes : sizes)
    {
        Ptr<PacketTransport> t = CreateObject<PacketTransport>();
        ConfigurePacket(t, f);
        t->SetSeed(seed);
        t->Build(desc, MakeCongestionControl(f));
        Time done(-1);
        t->Send(src, dst, bytes, [&done]() { done = Simulator::Now(); });
        Simulator::Stop(f.timeLimit);
        Simulator::Run();
        Simulator::Destroy();
        if (done.IsNegative())
        {
            // Not a failure of the program: the scenario's fabric did not
            // deliver one message within its time limit (a lossy class
            // waiting for a retransmission, a stall), so it cannot be
            // calibrated on.
            throw InputError("params", "the calibration sweep's message of " + std::to_string(bytes) +
                                           " B from rank " + std::to_string(src) + " to " + std::to_string(dst) +
                                           " did not arrive within fabric.time_limit (" +
                                           units::FormatSeconds(f.timeLimit.GetSeconds()) +
                                           " simulated); expected a fabric that delivers it, a longer "
                                           "fabric.time_limit, or params derived");
        }
        MeasurementSample s;
        s.collective = "p2p";
        s.ranks = 2;
        s.bytes = bytes;
        s.timeS = done.GetSeconds();
        s.file = "packet sweep";
        s.source = 0;
        s.line = static_cast<uint32_t>(set.samples.size() + 1);
        set.samples.push_back(s);
    }
    CalibrationOptions o;
    o.models = {"alphabeta"};
    o.collective = "p2p";
    o.ranks = 2;
    o.resamples = 20;
    std::vector<CalibrationFit> fits = Calibrate(set, o);
    if (fits.empty() || !fits[0].ok || !fits[0].alphaS.Known() || !fits[0].betaBps.Known())
    {
        throw std::runtime_error("calibration of " + std::to_string(src) + "->" + std::to_string(dst) +
                                 " on the packet sweep gave no alpha-beta fit");
    }
    return PointToPointParameters{SecondsToTime(std::max(0.0, fits[0].alphaS.value)),
                                  DataRate(static_cast<uint64_t>(fits[0].betaBps.value * 8.0 + 0.5))};
}

} // namespace ns3
