// SPDX-License-Identifier: GPL-2.0-only
//
// The smallest Transport: every message of n bytes between ranks on level l
// arrives alpha_l + n / beta_l after it was sent, whatever else is in flight
// (the algebra with no contention), written independently of the analytic
// module so that the executor can be checked against the closed forms alone.
#ifndef HOCKNEY_IDEAL_TEST_TRANSPORT_H
#define HOCKNEY_IDEAL_TEST_TRANSPORT_H

#include "collective-transport.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cmath>
#include <functional>
#include <vector>

namespace hockney
{

class IdealTestTransport : public ns3::CollectiveTransport
{
  public:
    struct Level
    {
        ns3::Time alpha;
        ns3::DataRate beta;
    };

    IdealTestTransport(uint32_t ranks, std::vector<Level> levels, std::function<uint32_t(uint32_t, uint32_t)> levelOf = {})
        : m_ranks(ranks),
          m_levels(std::move(levels)),
          m_levelOf(std::move(levelOf))
    {
    }

    void Send(uint32_t src, uint32_t dst, uint64_t bytes, DeliveryCallback onDelivered) override
    {
        const Level& l = m_levels.at(m_levelOf ? m_levelOf(src, dst) : 0);
        // Picoseconds computed in integers where the rate allows it (the tests
        // use rates with a whole number of ps per byte), so nothing rounds.
        const double ps = static_cast<double>(bytes) * 8e12 / static_cast<double>(l.beta.GetBitRate());
        ns3::Time delay = l.alpha + ns3::PicoSeconds(static_cast<int64_t>(std::llround(ps)));
        ++sent;
        ns3::Simulator::Schedule(delay, [onDelivered]() { onDelivered(); });
    }

    uint32_t GetRanks() const override
    {
        return m_ranks;
    }

    std::string GetTransportName() const override
    {
        return "ideal-test";
    }

    uint64_t sent = 0;

  private:
    uint32_t m_ranks;
    std::vector<Level> m_levels;
    std::function<uint32_t(uint32_t, uint32_t)> m_levelOf;
};

} // namespace hockney

#endif
