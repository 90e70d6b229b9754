// SPDX-License-Identifier: GPL-2.0-only
//
// The preset table: the H100 NVLink example (5 us, 450 GB/s), well-formed rows, lookup errors.
#include "input-error.h"
#include "interconnect-presets.h"

#include <gtest/gtest.h>

#include <set>

using namespace ns3;

TEST(InterconnectPresets, H100NvlinkIsTheCrossoverExample)
{
    Ptr<AlphaBetaModel> m = CreateAlphaBetaModel("h100-nvlink");
    // 5 us x 450 GB/s = 2.25 MB (n* = alpha x beta); 1e-12 relative.
    EXPECT_NEAR(m->CrossoverBytes(), 2.25e6, 2.25e6 * 1e-12);
    // IB NDR: 400 Gb/s = 50 GB/s per port.
    EXPECT_NEAR(CreateAlphaBetaModel("ib-ndr")->MaxBandwidth(), 50e9, 1e-3);
    // NVLink 5 doubles NVLink 4 per direction.
    EXPECT_NEAR(FindInterconnectPreset("nvlink5").betaBytesPerSecond,
                2 * FindInterconnectPreset("h100-nvlink").betaBytesPerSecond,
                1e-3);
}

TEST(InterconnectPresets, RowsAreWellFormed)
{
    std::set<std::string> names;
    for (const auto& p : InterconnectPresets())
    {
        EXPECT_TRUE(names.insert(p.name).second) << "duplicate " << p.name;
        EXPECT_GT(p.alphaUs, 0) << p.name;
        EXPECT_GT(p.betaBytesPerSecond, 0) << p.name;
        EXPECT_GT(p.n0Bytes, 0u) << p.name;
        EXPECT_FALSE(p.source.empty()) << p.name;
    }
    EXPECT_GE(names.size(), 8u);
}

TEST(InterconnectPresets, UnknownNameNamesTheField)
{
    try
    {
        FindInterconnectPreset("token-ring", "--preset");
        FAIL() << "unknown preset accepted";
    }
    catch (const InputError& e)
    {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("--preset:", 0), 0u) << what;
        EXPECT_NE(what.find("h100-nvlink"), std::string::npos) << what;
    }
}
