// SPDX-License-Identifier: GPL-2.0-only
//
// Base fixture for tests that run the ns-3 Simulator: every test starts from a
// clean simulator and clean attribute defaults, whatever the previous test did.
#ifndef HOCKNEY_SIMULATOR_TEST_H
#define HOCKNEY_SIMULATOR_TEST_H

#include "ns3/config.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

namespace hockney
{

class SimulatorTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        ns3::Simulator::Destroy();
        ns3::Config::Reset();
    }
};

} // namespace hockney

#endif
