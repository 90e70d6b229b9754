// SPDX-License-Identifier: GPL-2.0-only
//
// MaxMinFair (the analytic channel's max-min fair rates) against two
// independent answers: rates worked out by hand on small cases, and the
// direct method of progressive filling written out below (a scan of every
// link and every flow per bottleneck level: the code the channel ran before
// MaxMinFair), on random routes and caps. The two must agree bit for bit
// (tolerance 0): the channel's fixed-seed outputs stay identical only if they
// do, and max-min-fair.h says why the arithmetic is the same.
#include "max-min-fair.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

/// Progressive filling written out directly: the reference.
void
ComputeDirect(const std::vector<double>& capacity,
              const std::vector<const std::vector<uint32_t>*>& routes,
              const std::vector<double>& caps,
              std::vector<double>& rates)
{
    const size_t n = caps.size();
    rates.assign(n, 0.0);
    std::vector<char> frozen(n, 0);
    std::vector<double> rem(capacity);
    std::vector<uint32_t> cnt(capacity.size(), 0);
    for (size_t i = 0; i < n; ++i)
    {
        if (routes[i])
        {
            for (uint32_t l : *routes[i])
            {
                ++cnt[l];
            }
        }
    }
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<char> bottleneck(capacity.size(), 0);
    size_t left = n;
    auto freeze = [&](size_t i, double rate) {
        frozen[i] = 1;
        --left;
        rates[i] = rate;
        if (routes[i])
        {
            for (uint32_t l : *routes[i])
            {
                rem[l] = std::max(0.0, rem[l] - rate);
                --cnt[l];
            }
        }
    };
    while (left > 0)
    {
        double share = inf;
        for (size_t l = 0; l < rem.size(); ++l)
        {
            if (cnt[l] > 0)
            {
                share = std::min(share, rem[l] / cnt[l]);
            }
        }
        double cap = inf;
        for (size_t i = 0; i < n; ++i)
        {
            if (!frozen[i])
            {
                cap = std::min(cap, caps[i]);
            }
        }
        if (cap <= share)
        {
            for (size_t i = 0; i < n; ++i)
            {
                if (!frozen[i] && caps[i] <= cap)
                {
                    freeze(i, caps[i]);
                }
            }
            continue;
        }
        const double tol = share * (1 + 1e-12);
        for (size_t l = 0; l < rem.size(); ++l)
        {
            bottleneck[l] = cnt[l] > 0 && rem[l] / cnt[l] <= tol;
        }
        for (size_t i = 0; i < n; ++i)
        {
            if (frozen[i] || !routes[i])
            {
                continue;
            }
            for (uint32_t l : *routes[i])
            {
                if (bottleneck[l])
                {
                    freeze(i, share);
                    break;
                }
            }
        }
    }
}


std::vector<const std::vector<uint32_t>*>
Pointers(const std::vector<std::vector<uint32_t>>& routes, const std::vector<char>& hasRoute)
{
    std::vector<const std::vector<uint32_t>*> p;
    for (size_t i = 0; i < routes.size(); ++i)
    {
        p.push_back(hasRoute[i] ? &routes[i] : nullptr);
    }
    return p;
}

/// Random instance: \p links links with capacities from a small set (equal
/// shares on different links are the common case in a symmetric topology and
/// exercise the 1e-12 tolerance), \p flows flows with routes of 1-6 links
/// (sometimes none, sometimes a link twice), caps from a small set with infinity.
void
CompareWithDirect(uint64_t seed, uint32_t links, uint32_t flows)
{
    std::mt19937_64 rng(seed);
    const double capacities[] = {12.5e9, 25e9, 50e9, 450e9 / 3, 1e9 / 7};
    std::vector<double> capacity(links);
    for (double& c : capacity)
    {
        c = capacities[rng() % 5];
    }
    const double inf = std::numeric_limits<double>::infinity();
    const double capChoices[] = {inf, inf, inf, 10e9, 3e9, 12.5e9 / 3};
    std::vector<std::vector<uint32_t>> routes(flows);
    std::vector<char> hasRoute(flows, 1);
    std::vector<double> caps(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        const uint32_t len = 1 + rng() % 6;
        for (uint32_t k = 0; k < len; ++k)
        {
            routes[i].push_back(static_cast<uint32_t>(rng() % links));
        }
        if (rng() % 50 == 0)
        {
            routes[i].push_back(routes[i].front()); // a link crossed twice
        }
        caps[i] = capChoices[rng() % 6];
        if (rng() % 40 == 0)
        {
            hasRoute[i] = 0;
            caps[i] = 2e9; // a flow without links is limited by its cap only
        }
    }
    const auto p = Pointers(routes, hasRoute);
    std::vector<double> expected;
    ComputeDirect(capacity, p, caps, expected);
    MaxMinFair mmf;
    std::vector<double> got;
    // Twice with the same object: the scratch space kept between calls must not leak.
    for (int round = 0; round < 2; ++round)
    {
        mmf.Compute(capacity, p, caps, got);
        ASSERT_EQ(got.size(), expected.size());
        for (size_t i = 0; i < got.size(); ++i)
        {
            ASSERT_EQ(std::memcmp(&got[i], &expected[i], sizeof(double)), 0)
                << "seed " << seed << " flow " << i << ": " << got[i] << " vs direct " << expected[i];
        }
    }
}

} // namespace

TEST(MaxMinFairTest, TwoLinksByHand)
{
    // Link 0 (10) carries flows 0 and 1, link 1 (4) flows 1 and 2. Link 1 is
    // the bottleneck at 4 / 2 = 2 for flows 1 and 2; flow 0 then has 10 - 2 = 8.
    const std::vector<double> capacity = {10, 4};
    const std::vector<std::vector<uint32_t>> routes = {{0}, {0, 1}, {1}};
    const std::vector<double> inf(3, std::numeric_limits<double>::infinity());
    MaxMinFair mmf;
    std::vector<double> rates;
    mmf.Compute(capacity, Pointers(routes, {1, 1, 1}), inf, rates);
    EXPECT_EQ(rates, (std::vector<double>{8, 2, 2}));
    // Flow 0 capped at 5: link 1 still freezes flows 1 and 2 at 2 first (2 <
    // 5), then flow 0 stops at its cap (5 < 8) and link 0 keeps 3 unused.
    mmf.Compute(capacity, Pointers(routes, {1, 1, 1}), {5, inf[0], inf[0]}, rates);
    EXPECT_EQ(rates, (std::vector<double>{5, 2, 2}));
    // Flow 1 capped at 1: 1 < 10 / 2 and < 4 / 2, so it freezes first; then
    // link 1 has 3 for flow 2 and link 0 has 9 for flow 0.
    mmf.Compute(capacity, Pointers(routes, {1, 1, 1}), {inf[0], 1, inf[0]}, rates);
    EXPECT_EQ(rates, (std::vector<double>{9, 1, 3}));
}

TEST(MaxMinFairTest, NoFlowsAndNoLinks)
{
    MaxMinFair mmf;
    std::vector<double> rates = {1};
    mmf.Compute({10}, {}, {}, rates);
    EXPECT_TRUE(rates.empty());
    // A flow with no route is limited by its cap alone.
    mmf.Compute({}, {nullptr}, {7}, rates);
    EXPECT_EQ(rates, (std::vector<double>{7}));
}

TEST(MaxMinFairTest, SameRatesAsTheDirectMethodBitForBit)
{
    for (uint64_t seed = 1; seed <= 200; ++seed)
    {
        CompareWithDirect(seed, 1 + seed % 40, 1 + (seed * 7) % 300);
    }
}

TEST(MaxMinFairTest, SameRatesOnASymmetricTwoLevelTree)
{
    // Every host to every other host over host uplink, one of two spines
    // (chosen by a hash as ECMP does) and host downlink: many links share
    // exactly, and a few spines carry more than others.
    const uint32_t hosts = 24;
    const uint32_t spines = 2;
    std::vector<double> capacity(2 * hosts + 2 * spines, 50e9);
    std::vector<std::vector<uint32_t>> routes;
    for (uint32_t s = 0; s < hosts; ++s)
    {
        for (uint32_t d = 0; d < hosts; ++d)
        {
            if (s != d)
            {
                const uint32_t spine = (s * 31 + d * 17) % spines;
                routes.push_back({s, 2 * hosts + spine, 2 * hosts + spines + spine, hosts + d});
            }
        }
    }
    const std::vector<char> all(routes.size(), 1);
    const std::vector<double> caps(routes.size(), std::numeric_limits<double>::infinity());
    std::vector<double> expected;
    ComputeDirect(capacity, Pointers(routes, all), caps, expected);
    MaxMinFair mmf;
    std::vector<double> got;
    mmf.Compute(capacity, Pointers(routes, all), caps, got);
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(double)), 0);
}
