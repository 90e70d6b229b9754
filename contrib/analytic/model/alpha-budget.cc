// SPDX-License-Identifier: GPL-2.0-only
#include "alpha-budget.h"

#include "analytic-model.h"
#include "input-error.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HockneyAlphaBudget");
NS_OBJECT_ENSURE_REGISTERED(AlphaBudget);

double
AlphaComponentRange::TypicalUs() const
{
    return std::sqrt(minUs * maxUs);
}

const std::vector<AlphaComponentRange>&
AlphaBudget::ComponentRanges()
{
    // Typical ranges in microseconds (rules of thumb, doc/analytic.md Sources;
    // link: about 5 ns per metre, the speed of light in fibre or copper).
    static const std::vector<AlphaComponentRange> table = {
        {"sw", "communication library call + descriptor preparation", 1.0, 5.0},
        {"NoC", "on-chip network routing, compute core to DMA engine", 0.05, 0.5},
        {"DMA", "DMA engine start + address translation (IOMMU)", 0.2, 1.0},
        {"PHY", "SerDes encode/decode + PLL lock", 0.005, 0.02},
        {"link", "propagation on the physical link (PCB 5 cm to fibre 100 m)", 0.005, 5.0},
        {"switch", "switch forwarding per hop (lookup + buffer + arbitration)", 0.1, 1.0},
        {"mem", "first write latency at the destination memory (HBM3 40-60 ns, DDR5 55-85 ns)", 0.03, 0.08},
    };
    return table;
}

const std::vector<AlphaLevel>&
AlphaBudget::Levels()
{
    // The level table (doc/analytic.md) gives each level's path, alpha range
    // and bottleneck, but no per-component values. hockney's choices below
    // stay inside the component ranges and put each total inside the level's
    // range (checked by alpha-budget-test): sw at its minimum (1 us, a
    // CUDA-graph-style library call), NoC 0.1, DMA 0.5 (IOMMU off), PHY 0.01,
    // mem 0.05 (HBM3); what grows with the level is the link (5 cm PCB 0.005 us,
    // copper cable 0.02 us, 100 m fibre 0.5 us at 5 ns/m, 500 m 2.5 us) and the
    // number of switch hops (0, 1 PCIe/NVLink switch at 0.7 us, 3 and 5 IB/Ethernet
    // hops at 0.6 us: leaf-spine-leaf, then two tiers more).
    static const std::vector<AlphaLevel> levels = {
        {"C2C",
         "NoC -> DMA -> PHY -> short link -> PHY -> DMA -> NoC (chip to chip, same board)",
         0.5,
         2.0,
         "DMA start",
         {1.0, 0.1, 0.5, 0.01, 0.005, 0.0, 0, 0.05}},
        {"B2B",
         "C2C + PCIe / NVLink switch + cable (board to board, same rack)",
         2.0,
         5.0,
         "switch latency",
         {1.0, 0.1, 0.5, 0.01, 0.02, 0.7, 1, 0.05}},
        {"R2R",
         "B2B + IB / Ethernet switches + fibre (rack to rack, same pod)",
         3.0,
         10.0,
         "fibre propagation + switches",
         {1.0, 0.1, 0.5, 0.01, 0.5, 0.6, 3, 0.05}},
        {"P2P",
         "R2R + multi-tier switching + long fibre (pod to pod)",
         5.0,
         20.0,
         "multi-tier switching + distance",
         {1.0, 0.1, 0.5, 0.01, 2.5, 0.6, 5, 0.05}},
    };
    return levels;
}

const AlphaLevel&
AlphaBudget::FindLevel(const std::string& name)
{
    for (const auto& l : Levels())
    {
        if (l.name == name)
        {
            return l;
        }
    }
    throw InputError("preset", "expected C2C, B2B, R2R or P2P, got '" + name + "'");
}

TypeId
AlphaBudget::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AlphaBudget")
            .SetParent<Object>()
            .SetGroupName("Analytic")
            .AddConstructor<AlphaBudget>()
            .AddAttribute("SoftwareLatency",
                          "alpha_sw: communication library call + descriptor preparation (typically 1-5 us).",
                          TimeValue(NanoSeconds(1000)),
                          MakeTimeAccessor(&AlphaBudget::m_sw),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NocLatency",
                          "alpha_NoC: on-chip network, compute core to DMA engine (typically 0.05-0.5 us).",
                          TimeValue(NanoSeconds(100)),
                          MakeTimeAccessor(&AlphaBudget::m_noc),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DmaLatency",
                          "alpha_DMA: DMA engine start + IOMMU translation (typically 0.2-1 us).",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&AlphaBudget::m_dma),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PhyLatency",
                          "alpha_PHY: SerDes + PLL (typically 0.005-0.02 us).",
                          TimeValue(NanoSeconds(10)),
                          MakeTimeAccessor(&AlphaBudget::m_phy),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("LinkLatency",
                          "alpha_link: propagation, about 5 ns per metre (typically 0.005-5 us, 5 cm PCB to 100 m fibre).",
                          TimeValue(NanoSeconds(5)),
                          MakeTimeAccessor(&AlphaBudget::m_link),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SwitchLatency",
                          "alpha_switch per hop: lookup + buffer + arbitration (typically 0.1-1 us).",
                          TimeValue(NanoSeconds(600)),
                          MakeTimeAccessor(&AlphaBudget::m_switch),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SwitchHops",
                          "Number of switches crossed (the sum over i of alpha_switch_i).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&AlphaBudget::m_switchHops),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MemoryLatency",
                          "alpha_mem: first write at the destination memory (typically 0.03-0.08 us).",
                          TimeValue(NanoSeconds(50)),
                          MakeTimeAccessor(&AlphaBudget::m_mem),
                          MakeTimeChecker(Time(0)));
    return tid;
}

AlphaBudget::AlphaBudget()
    : m_switchHops(0)
{
}

double
AlphaBudget::Sum(double sw,
                 double noc,
                 double dma,
                 double phy,
                 double link,
                 const std::vector<double>& switchSeconds,
                 double mem)
{
    double switches = 0;
    for (double s : switchSeconds)
    {
        switches += s;
    }
    return sw + noc + dma + phy + link + switches + mem;
}

double
AlphaBudget::SumSeconds(const AlphaComponents& c)
{
    const double us = 1e-6;
    return Sum(c.swUs * us,
               c.nocUs * us,
               c.dmaUs * us,
               c.phyUs * us,
               c.linkUs * us,
               std::vector<double>(c.switchHops, c.switchUs * us),
               c.memUs * us);
}

double
AlphaBudget::AlphaSeconds() const
{
    return Sum(TimeToSeconds(m_sw),
               TimeToSeconds(m_noc),
               TimeToSeconds(m_dma),
               TimeToSeconds(m_phy),
               TimeToSeconds(m_link),
               std::vector<double>(m_switchHops, TimeToSeconds(m_switch)),
               TimeToSeconds(m_mem));
}

Time
AlphaBudget::GetAlpha() const
{
    return SecondsToTime(AlphaSeconds());
}

AlphaComponents
AlphaBudget::GetComponents() const
{
    AlphaComponents c;
    c.nocUs = TimeToSeconds(m_noc) * 1e6;
    c.dmaUs = TimeToSeconds(m_dma) * 1e6;
    c.phyUs = TimeToSeconds(m_phy) * 1e6;
    c.linkUs = TimeToSeconds(m_link) * 1e6;
    c.switchUs = TimeToSeconds(m_switch) * 1e6;
    c.switchHops = m_switchHops;
    c.memUs = TimeToSeconds(m_mem) * 1e6;
    c.swUs = TimeToSeconds(m_sw) * 1e6;
    return c;
}

void
AlphaBudget::SetComponents(const AlphaComponents& c)
{
    const double us = 1e-6;
    m_sw = SecondsToTime(c.swUs * us);
    m_noc = SecondsToTime(c.nocUs * us);
    m_dma = SecondsToTime(c.dmaUs * us);
    m_phy = SecondsToTime(c.phyUs * us);
    m_link = SecondsToTime(c.linkUs * us);
    m_switch = SecondsToTime(c.switchUs * us);
    m_switchHops = c.switchHops;
    m_mem = SecondsToTime(c.memUs * us);
}

void
AlphaBudget::ApplyPreset(const std::string& name)
{
    if (name == "min" || name == "typical" || name == "max")
    {
        const auto& r = ComponentRanges();
        auto pick = [&](size_t i) {
            return name == "min" ? r[i].minUs : (name == "max" ? r[i].maxUs : r[i].TypicalUs());
        };
        AlphaComponents c{pick(0), pick(1), pick(2), pick(3), pick(4), pick(5), 1, pick(6)};
        SetComponents(c);
        return;
    }
    if (name != "C2C" && name != "B2B" && name != "R2R" && name != "P2P")
    {
        throw InputError("preset", "expected C2C, B2B, R2R, P2P, min, typical or max, got '" + name + "'");
    }
    SetComponents(FindLevel(name).components);
}

} // namespace ns3
