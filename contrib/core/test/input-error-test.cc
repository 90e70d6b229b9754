// SPDX-License-Identifier: GPL-2.0-only
//
// The InputError contract: one line "FIELD: EXPECTED", the two parts readable
// apart, and a re-named error that keeps the expectation word for word.
#include "input-error.h"
#include "units.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace ns3;

TEST(InputError, MessageIsFieldColonExpected)
{
    const InputError e("--bytes", "expected a size like 4096, got 'x'");
    EXPECT_STREQ(e.what(), "--bytes: expected a size like 4096, got 'x'");
    EXPECT_EQ(e.Field(), "--bytes");
    EXPECT_EQ(e.Expected(), "expected a size like 4096, got 'x'");
}

TEST(InputError, RenamedKeepsTheExpectation)
{
    const InputError flag("--ranks", "expected at least 2 ranks, got 1");
    const InputError named("scenario.ranks", flag);
    EXPECT_EQ(named.Field(), "scenario.ranks");
    EXPECT_EQ(named.Expected(), "expected at least 2 ranks, got 1");
    EXPECT_STREQ(named.what(), "scenario.ranks: expected at least 2 ranks, got 1");
    // The original is untouched.
    EXPECT_STREQ(flag.what(), "--ranks: expected at least 2 ranks, got 1");
}

TEST(InputError, AnExpectationWithAColonStaysWhole)
{
    // A field path cannot be recovered by splitting the message at ": " when
    // the expectation holds one too; the accessors do not split.
    const InputError inner("links[2].tier", "expected a tier name: one of a, b");
    const InputError outer("topology." + inner.Field(), inner);
    EXPECT_EQ(outer.Field(), "topology.links[2].tier");
    EXPECT_EQ(outer.Expected(), "expected a tier name: one of a, b");
    EXPECT_STREQ(outer.what(), "topology.links[2].tier: expected a tier name: one of a, b");
}

TEST(InputError, CaughtAsInvalidArgument)
{
    // Code that only knows std::invalid_argument (the CLI's main, ns-3 style
    // callers) still sees the one-line message.
    try
    {
        units::ParseBytes("4XB", "--bytes");
        ADD_FAILURE() << "expected an error";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_STREQ(e.what(), "--bytes: expected a size like 4096, 4KB or 1MiB, got unit 'XB' in '4XB'");
        const auto* input = dynamic_cast<const InputError*>(&e);
        ASSERT_NE(input, nullptr);
        EXPECT_EQ(input->Field(), "--bytes");
        EXPECT_EQ(input->Expected(), "expected a size like 4096, 4KB or 1MiB, got unit 'XB' in '4XB'");
    }
}
