// SPDX-License-Identifier: GPL-2.0-only
//
// AlphaBudget: the seven-component sum alpha = sw + NoC + DMA + PHY + link +
// sum switch_i + mem by hand, and the presets against the typical level and
// component ranges (doc/analytic.md, "Sources: Rules of thumb"). Tolerance
// 1e-15 s (sums of a few microsecond-sized doubles) or 1 ps for Times.
#include "alpha-budget.h"
#include "input-error.h"

#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

TEST(AlphaBudget, SumOfSevenComponents)
{
    // 2 + 0.1 + 0.5 + 0.01 + 0.5 + (0.3 + 0.4) + 0.05 = 3.86 us.
    const double a = AlphaBudget::Sum(2e-6, 0.1e-6, 0.5e-6, 0.01e-6, 0.5e-6, {0.3e-6, 0.4e-6}, 0.05e-6);
    EXPECT_NEAR(a, 3.86e-6, 1e-15);
}

TEST(AlphaBudget, AttributesGiveAlpha)
{
    Ptr<AlphaBudget> b = CreateObject<AlphaBudget>();
    b->SetAttribute("SoftwareLatency", TimeValue(MicroSeconds(2)));
    b->SetAttribute("SwitchLatency", TimeValue(NanoSeconds(300)));
    b->SetAttribute("SwitchHops", UintegerValue(3));
    // Defaults NoC 100 ns, DMA 500 ns, PHY 10 ns, link 5 ns, mem 50 ns:
    // 2000 + 100 + 500 + 10 + 5 + 900 + 50 = 3565 ns.
    EXPECT_EQ(b->GetAlpha().GetPicoSeconds(), 3565000);
}

TEST(AlphaBudget, LevelPresetsFallInTheTypicalRanges)
{
    // Sums by hand (us): C2C 1 + .1 + .5 + .01 + .005 + .05 = 1.665;
    // B2B 1 + .1 + .5 + .01 + .02 + .7 + .05 = 2.38; R2R ... + .5 + 3 x .6 = 3.96;
    // P2P ... + 2.5 + 5 x .6 = 7.16. Typical ranges: 0.5-2, 2-5, 3-10, 5-20 us.
    const struct
    {
        const char* name;
        double alphaUs;
        double lo;
        double hi;
    } cases[] = {{"C2C", 1.665, 0.5, 2}, {"B2B", 2.38, 2, 5}, {"R2R", 3.96, 3, 10}, {"P2P", 7.16, 5, 20}};
    Ptr<AlphaBudget> b = CreateObject<AlphaBudget>();
    for (const auto& c : cases)
    {
        b->ApplyPreset(c.name);
        EXPECT_NEAR(b->AlphaSeconds() * 1e6, c.alphaUs, 1e-6) << c.name;
        EXPECT_GE(b->AlphaSeconds() * 1e6, c.lo) << c.name;
        EXPECT_LE(b->AlphaSeconds() * 1e6, c.hi) << c.name;
        const AlphaLevel& level = AlphaBudget::FindLevel(c.name);
        EXPECT_EQ(level.alphaMinUs, c.lo);
        EXPECT_EQ(level.alphaMaxUs, c.hi);
        EXPECT_NEAR(AlphaBudget::SumSeconds(level.components) * 1e6, c.alphaUs, 1e-9);
    }
}

TEST(AlphaBudget, PresetComponentsStayInTheComponentTable)
{
    const auto& r = AlphaBudget::ComponentRanges();
    ASSERT_EQ(r.size(), 7u);
    for (const auto& level : AlphaBudget::Levels())
    {
        const AlphaComponents& c = level.components;
        const double values[] = {c.swUs, c.nocUs, c.dmaUs, c.phyUs, c.linkUs, c.switchUs, c.memUs};
        for (size_t i = 0; i < 7; ++i)
        {
            if (i == 5 && c.switchHops == 0)
            {
                continue; // no switch on the path
            }
            EXPECT_GE(values[i], r[i].minUs) << level.name << " " << r[i].name;
            EXPECT_LE(values[i], r[i].maxUs) << level.name << " " << r[i].name;
        }
    }
}

TEST(AlphaBudget, ComponentTableColumns)
{
    // Typical = geometric mean of the component's range: sw sqrt(1 x 5) = 2.236 us.
    const auto& r = AlphaBudget::ComponentRanges();
    EXPECT_EQ(r[0].name, "sw");
    EXPECT_NEAR(r[0].TypicalUs(), std::sqrt(5.0), 1e-12);
    Ptr<AlphaBudget> b = CreateObject<AlphaBudget>();
    // min column, one switch: 1 + .05 + .2 + .005 + .005 + .1 + .03 = 1.39 us.
    b->ApplyPreset("min");
    EXPECT_NEAR(b->AlphaSeconds(), 1.39e-6, 1e-15);
    // max column, one switch: 5 + .5 + 1 + .02 + 5 + 1 + .08 = 12.6 us.
    b->ApplyPreset("max");
    EXPECT_NEAR(b->AlphaSeconds(), 12.6e-6, 1e-15);
    EXPECT_THROW(b->ApplyPreset("X2X"), InputError);
}
