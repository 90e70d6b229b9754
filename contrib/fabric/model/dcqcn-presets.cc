// SPDX-License-Identifier: GPL-2.0-only
//
// The named DCQCN parameter sets ("dcqcn:paper", "dcqcn:production",
// "dcqcn:connectx"), each with its public source, and the registration of
// "dcqcn" with the congestion-control registry. The state machine is in
// dcqcn.cc.
#include "dcqcn.h"
#include "ecn-marker.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

namespace
{
DataRate
Mbps(double v)
{
    return DataRate(static_cast<uint64_t>(std::llround(v * 1e6)));
}
} // namespace

std::vector<std::string>
Dcqcn::PresetNames()
{
    return {"paper", "production", "connectx"};
}

namespace
{
void
CheckPreset(const std::string& name, DataRate lineRate)
{
    auto names = Dcqcn::PresetNames();
    if (std::find(names.begin(), names.end(), name) == names.end())
    {
        throw std::invalid_argument("Dcqcn preset: expected paper, production or connectx, got '" +
                                    name + "'");
    }
    if (lineRate.GetBitRate() == 0)
    {
        throw std::invalid_argument("Dcqcn preset line rate: expected a rate > 0, got 0");
    }
}
} // namespace

void
Dcqcn::ApplyPreset(const std::string& name, DataRate lineRate)
{
    CheckPreset(name, lineRate);
    double bw = static_cast<double>(lineRate.GetBitRate()) * 1e-9; // Gb/s
    if (name == "paper")
    {
        // SIGCOMM 2015 deployment set (doc/fabric.md, Sources: secondary
        // sources and bobzhuyb/ns3-rdma): T 55 us, B 10 MB, F 5, g 1/256,
        // R_AI 40 Mb/s, K 55 us, N 50 us; a cut per CNP.
        SetAttribute("G", DoubleValue(1.0 / 256));
        SetAttribute("InitialAlpha", DoubleValue(1.0));
        SetAttribute("AlphaInterval", TimeValue(MicroSeconds(55)));
        SetAttribute("RateIncreaseInterval", TimeValue(MicroSeconds(55)));
        SetAttribute("ByteCounter", UintegerValue(10000000));
        SetAttribute("FastRecoverySteps", UintegerValue(5));
        SetAttribute("AdditiveIncrease", DataRateValue(DataRate("40Mb/s")));
        SetAttribute("HyperIncrease", DataRateValue(DataRate("400Mb/s")));
        SetAttribute("MinRate", DataRateValue(DataRate("100Mb/s")));
        SetAttribute("RateDecreaseInterval", TimeValue(Time(0)));
        SetAttribute("ClampTargetRate", BooleanValue(true));
        SetAttribute("CnpInterval", TimeValue(MicroSeconds(50)));
        SetAttribute("CnpPerPort", BooleanValue(false));
        SetAttribute("RateDecrease", EnumValue(CUT_ON_CNP));
        SetAttribute("AlphaUpdate", EnumValue(ALPHA_PER_CNP));
        SetAttribute("Notification", EnumValue(CNP_PACKET));
    }
    else if (name == "production")
    {
        // The HPCC authors' DCQCN run, exactly as their script writes it
        // (alibaba-edu/High-Precision-Congestion-Control simulation/run.py,
        // --cc dcqcn, read with rdma-hw.cc CC_MODE 1), bw in Gb/s:
        // ALPHA_RESUME_INTERVAL 1 us, RATE_DECREASE_INTERVAL 4 us, RP_TIMER
        // 300 us, EWMA_GAIN 1/256, FAST_RECOVERY_TIMES 1, RATE_AI 5*bw/25,
        // RATE_HAI 50*bw/25 Mb/s, MIN_RATE 1000 Mb/s, CLAMP_TARGET_RATE 0; no
        // byte counter; RateOnFirstCnp 1.0 (the first CNP does not cut: the
        // check does); alpha once per interval; the CNP is the CE echo on the
        // ACK (no CNP packets, so N does not apply).
        SetAttribute("G", DoubleValue(1.0 / 256));
        SetAttribute("InitialAlpha", DoubleValue(1.0));
        SetAttribute("AlphaInterval", TimeValue(MicroSeconds(1)));
        SetAttribute("RateIncreaseInterval", TimeValue(MicroSeconds(300)));
        SetAttribute("ByteCounter", UintegerValue(0));
        SetAttribute("FastRecoverySteps", UintegerValue(1));
        SetAttribute("AdditiveIncrease", DataRateValue(Mbps(5 * bw / 25)));
        SetAttribute("HyperIncrease", DataRateValue(Mbps(50 * bw / 25)));
        SetAttribute("MinRate", DataRateValue(DataRate("1000Mb/s")));
        SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(4)));
        SetAttribute("ClampTargetRate", BooleanValue(false));
        SetAttribute("CnpInterval", TimeValue(Time(0)));
        SetAttribute("CnpPerPort", BooleanValue(false));
        SetAttribute("RateDecrease", EnumValue(PERIODIC_CHECK));
        SetAttribute("AlphaUpdate", EnumValue(ALPHA_PER_INTERVAL));
        SetAttribute("Notification", EnumValue(ACK_ECHO));
    }
    else // connectx
    {
        // NVIDIA ConnectX firmware defaults (sysfs ecn/roce_rp, roce_np and
        // mlxconfig dumps; doc/fabric.md, Sources): rpg_time_reset 300 us,
        // rpg_byte_reset 32767 x 64 B (the unit is not confirmed),
        // rpg_threshold 1, rpg_ai_rate 5 Mb/s, rpg_hai_rate 50 Mb/s,
        // rpg_min_rate 1 Mb/s, dce_tcp_g 1019/1024 (g = 5/1024) every
        // dce_tcp_rtt 1 us, initial alpha 1023/1024, rate_reduce_monitor_period
        // 4 us, clamp_tgt_rate 0, min_time_between_cnps 4 us per port. The
        // firmware records CNPs and cuts in the rate_reduce_monitor_period
        // check, and moves alpha once per dce_tcp_rtt: the behaviour the
        // public simulators model as "Mellanox's version" (rdma-hw.cc).
        SetAttribute("G", DoubleValue(5.0 / 1024));
        SetAttribute("InitialAlpha", DoubleValue(1023.0 / 1024));
        SetAttribute("AlphaInterval", TimeValue(MicroSeconds(1)));
        SetAttribute("RateIncreaseInterval", TimeValue(MicroSeconds(300)));
        SetAttribute("ByteCounter", UintegerValue(32767ULL * 64));
        SetAttribute("FastRecoverySteps", UintegerValue(1));
        SetAttribute("AdditiveIncrease", DataRateValue(DataRate("5Mb/s")));
        SetAttribute("HyperIncrease", DataRateValue(DataRate("50Mb/s")));
        SetAttribute("MinRate", DataRateValue(DataRate("1Mb/s")));
        SetAttribute("RateDecreaseInterval", TimeValue(MicroSeconds(4)));
        SetAttribute("ClampTargetRate", BooleanValue(false));
        SetAttribute("CnpInterval", TimeValue(MicroSeconds(4)));
        SetAttribute("CnpPerPort", BooleanValue(true));
        SetAttribute("RateDecrease", EnumValue(PERIODIC_CHECK));
        SetAttribute("AlphaUpdate", EnumValue(ALPHA_PER_INTERVAL));
        SetAttribute("Notification", EnumValue(CNP_PACKET));
    }
}

DcqcnMarking
Dcqcn::PresetMarking(const std::string& name, DataRate lineRate)
{
    CheckPreset(name, lineRate);
    // The paper's deployment values for its own set; the HPCC authors'
    // per-rate formula for the sets from public ns-3 RDMA configurations
    // (one table of each, FabricEcnMarker's).
    DcqcnMarking m{};
    FabricEcnMarker::DefaultsForRate(lineRate, m.kminBytes, m.kmaxBytes, m.pmax,
                                     name == "paper" ? FabricEcnMarker::PAPER : FabricEcnMarker::LINEAR);
    return m;
}

namespace
{
// "dcqcn" alone is the paper's set, as the SIGCOMM 2015 deployment defines it.
const RdmaCcRegistration g_dcqcnRegistration({"dcqcn",
                                              &Dcqcn::GetTypeId,
                                              Dcqcn::PresetNames(),
                                              "paper",
                                              [](Ptr<RdmaCongestionControl> cc,
                                                 const std::string& preset,
                                                 DataRate lineRate) {
                                                  DynamicCast<Dcqcn>(cc)->ApplyPreset(preset,
                                                                                      lineRate);
                                              }});
} // namespace

} // namespace ns3
