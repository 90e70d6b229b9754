// SPDX-License-Identifier: GPL-2.0-only
//
// Seconds <-> Time at the picosecond resolution every hockney program sets:
// rounding to the nearest tick (not truncating the double's ticks), the exact
// double back, and a clear error outside Time's int64 range.
#include "input-error.h"
#include "time-conversion.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(TimeConversion, RoundsToTheNearestPicosecond)
{
    // 2.25e-6 s is 2249999.9999999995 ps as a double; truncation would give 2249999.
    EXPECT_EQ(SecondsToTime(2.25e-6).GetTimeStep(), 2250000);
    EXPECT_EQ(SecondsToTime(1.4e-12).GetTimeStep(), 1);  // 1.4 ps -> 1
    EXPECT_EQ(SecondsToTime(1.5e-12).GetTimeStep(), 2);  // halves away from zero
    EXPECT_EQ(SecondsToTime(-1.5e-12).GetTimeStep(), -2);
    EXPECT_EQ(SecondsToTime(0.0).GetTimeStep(), 0);
}

TEST(TimeConversion, TimeToSecondsIsTheCorrectlyRoundedDouble)
{
    // Time::GetSeconds() gives 1.9999999999999944e-06 for 2 us.
    EXPECT_EQ(TimeToSeconds(MicroSeconds(2)), 2e-6);
    EXPECT_EQ(TimeToSeconds(PicoSeconds(1)), 1e-12);
    EXPECT_EQ(TimeToSeconds(SecondsToTime(0.125)), 0.125);
}

TEST(TimeConversion, OutOfRangeIsAnInputErrorNamingTime)
{
    // Time holds +-9.2e18 ticks: +-9.2e6 s at 1 ps.
    try
    {
        SecondsToTime(1e7);
        FAIL() << "1e7 s must not fit";
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(e.Field(), "time");
    }
    EXPECT_NO_THROW(SecondsToTime(9.1e6));
}
