// SPDX-License-Identifier: GPL-2.0-only
//
// GoogleTest main shared by every hockney test binary. The time resolution is
// set to picoseconds once, before any test makes a Time: at ns-3's default 1 ns
// step, 1000 B at 3.6 Tb/s would round from 2222 ps to 2000 ps; a second call
// to SetResolution aborts, so no test may call it.
#include "ns3/nstime.h"

#include <gtest/gtest.h>

int
main(int argc, char** argv)
{
    ns3::Time::SetResolution(ns3::Time::PS);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
