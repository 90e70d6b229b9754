// SPDX-License-Identifier: GPL-2.0-only
//
// The go-back-N closed form (go-back-n.h) by hand: a 100 Gb/s RoCE link, 1 us
// each way, 4096 B packets (334.24 ns on the wire with BTH and framing),
// 6.88 ns ACK/NAK.
#include "go-back-n.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace ns3;

namespace
{

GoBackNLink
Roce100g(Time nakInterval)
{
    GoBackNLink l;
    l.packetTime = PicoSeconds(334240);
    l.nakLoop = PicoSeconds(2000000 + 6880);
    l.retransmitTimeout = MicroSeconds(100);
    l.nakInterval = nakInterval;
    l.ackInterval = 64;
    return l;
}

TEST(GoBackN, WindowIsTheNakRoundTripInSlots)
{
    // 2 + ceil(2006.88 / 334.24) = 2 + ceil(6.004) = 9.
    EXPECT_EQ(GoBackNWindow(Roce100g(Time(0))), 9.0);
    // Exactly 6 slots of loop: the NAK arrives on a boundary, 2 + 6.
    GoBackNLink l = Roce100g(Time(0));
    l.nakLoop = PicoSeconds(6 * 334240);
    EXPECT_EQ(GoBackNWindow(l), 8.0);
}

TEST(GoBackN, ClassicFormWithoutControlLoss)
{
    // Only data lost (q = 0) and no second loss term worth having (p^2):
    // with NakInterval, W_eff = (1 - p) 9 + p W_I, W_I = 2 + ceil(22006.88 /
    // 334.24) = 2 + 66 = 68; p = 1e-3: W_eff = 8.991 + 0.068 = 9.059,
    // eta = 0.999 / (1 + 8.059e-3) = 0.991013...
    const GoBackNLink l = Roce100g(MicroSeconds(20));
    EXPECT_NEAR(GoBackNEffectiveWindow(1e-3, 0, l), 9.059, 1e-12);
    EXPECT_NEAR(GoBackNEfficiency(1e-3, 0, l), 0.999 / 1.008059, 1e-12);
    EXPECT_EQ(GoBackNEfficiency(0, 0, l), 1.0);
    // Control loss alone costs nothing: no data loss, no NAK to lose.
    EXPECT_EQ(GoBackNEfficiency(0, 0.5, l), 1.0);
}

TEST(GoBackN, NakRefreshByHand)
{
    // p = q = 1e-2, NakInterval 20 us: W_eff = 0.99 x 0.99 x 9 + (0.01 +
    // 0.99 x 0.01) x 68 = 8.8209 + 1.3532 = 10.1741;
    // eta = 0.99 / (1 + 9.1741e-2) = 0.906808...
    const GoBackNLink l = Roce100g(MicroSeconds(20));
    EXPECT_NEAR(GoBackNEffectiveWindow(1e-2, 1e-2, l), 10.1741, 1e-12);
    EXPECT_NEAR(GoBackNEfficiency(1e-2, 1e-2, l), 0.99 / 1.091741, 1e-12);
}

TEST(GoBackN, OneNakPerGapWaitsForTheTimer)
{
    // NakInterval 0, RTO 100 us: R = ceil(100000 / 334.24) = 300 slots,
    // A = 64. p = q = 1e-2: W_eff = 0.99 x 9 + 0.01 x (300 + 63) +
    // 0.99 x 0.01 x (300 + 31.5) = 8.91 + 3.63 + 3.28185 = 15.82185;
    // eta = 0.99 / (1 + 0.1482185) = 0.862205...
    const GoBackNLink l = Roce100g(Time(0));
    EXPECT_NEAR(GoBackNEffectiveWindow(1e-2, 1e-2, l), 15.82185, 1e-12);
    EXPECT_NEAR(GoBackNEfficiency(1e-2, 1e-2, l), 0.99 / 1.1482185, 1e-12);
}

TEST(GoBackN, PacketErrorRateOfABitErrorRate)
{
    // 1 - (1 - 1e-6)^32992 (a 4124 B packet), and the rate of real links
    // (1e-12) without cancellation: n b to 1e-6 relative.
    EXPECT_NEAR(PacketErrorRate(1e-6, 32992), 1 - std::pow(1 - 1e-6, 32992), 1e-12);
    EXPECT_NEAR(PacketErrorRate(1e-12, 32992) / (32992e-12), 1.0, 1e-6);
    EXPECT_EQ(PacketErrorRate(0, 32992), 0.0);
}

TEST(GoBackN, BadInputIsRefused)
{
    const GoBackNLink l = Roce100g(Time(0));
    EXPECT_THROW(GoBackNEfficiency(1.0, 0, l), std::invalid_argument);
    EXPECT_THROW(GoBackNEfficiency(-0.1, 0, l), std::invalid_argument);
    EXPECT_THROW(GoBackNEfficiency(0.1, 1.5, l), std::invalid_argument);
    GoBackNLink z = l;
    z.packetTime = Time(0);
    EXPECT_THROW(GoBackNWindow(z), std::invalid_argument);
}

} // namespace
