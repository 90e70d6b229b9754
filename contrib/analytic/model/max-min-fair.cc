// SPDX-License-Identifier: GPL-2.0-only
#include "max-min-fair.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ns3
{

namespace
{
/// Links whose share is within this relative distance of the smallest are
/// bottlenecks of the same step (rounding of remaining / count).
constexpr double kShareTolerance = 1e-12;
} // namespace

void
MaxMinFair::Compute(const std::vector<double>& capacity,
                    const std::vector<const std::vector<uint32_t>*>& routes,
                    const std::vector<double>& caps,
                    std::vector<double>& rates)
{
    const size_t n = caps.size();
    const size_t links = capacity.size();
    rates.assign(n, 0.0);
    m_rem.assign(capacity.begin(), capacity.end());
    m_cnt.assign(links, 0);
    for (size_t i = 0; i < n; ++i)
    {
        if (routes[i])
        {
            for (uint32_t l : *routes[i])
            {
                ++m_cnt[l];
            }
        }
    }
    // Each link's flows, in one array (a flow crossing a link twice is listed twice).
    m_start.assign(links + 1, 0);
    for (size_t l = 0; l < links; ++l)
    {
        m_start[l + 1] = m_start[l] + m_cnt[l];
    }
    m_linkFlows.resize(m_start[links]);
    {
        std::vector<uint32_t>& fill = m_touchedList; // reused as the fill cursors
        fill.assign(m_start.begin(), m_start.end() - 1);
        for (size_t i = 0; i < n; ++i)
        {
            if (routes[i])
            {
                for (uint32_t l : *routes[i])
                {
                    m_linkFlows[fill[l]++] = static_cast<uint32_t>(i);
                }
            }
        }
        fill.clear();
    }
    // Min-heap of the links' shares; an entry is stale once its link changed.
    auto later = [](const Entry& a, const Entry& b) { return a.share > b.share; };
    m_version.assign(links, 0);
    m_heap.clear();
    for (size_t l = 0; l < links; ++l)
    {
        if (m_cnt[l] > 0)
        {
            m_heap.push_back({m_rem[l] / m_cnt[l], static_cast<uint32_t>(l), 0});
        }
    }
    std::make_heap(m_heap.begin(), m_heap.end(), later);
    auto popStale = [&] {
        while (!m_heap.empty() && m_heap.front().version != m_version[m_heap.front().link])
        {
            std::pop_heap(m_heap.begin(), m_heap.end(), later);
            m_heap.pop_back();
        }
    };
    m_byCap.resize(n);
    std::iota(m_byCap.begin(), m_byCap.end(), 0u);
    auto byCap = [&caps](uint32_t a, uint32_t b) { return caps[a] < caps[b]; };
    // Usually every flow has the same cap (one message size): no sort then.
    if (!std::is_sorted(m_byCap.begin(), m_byCap.end(), byCap))
    {
        std::sort(m_byCap.begin(), m_byCap.end(), byCap);
    }
    size_t nextCap = 0;

    m_frozen.assign(n, 0);
    m_touched.assign(links, 0);
    m_touchedList.clear();
    size_t left = n;
    auto freeze = [&](uint32_t i, double rate) {
        m_frozen[i] = 1;
        --left;
        rates[i] = rate;
        if (routes[i])
        {
            for (uint32_t l : *routes[i])
            {
                m_rem[l] = std::max(0.0, m_rem[l] - rate);
                --m_cnt[l];
                if (!m_touched[l])
                {
                    m_touched[l] = 1;
                    m_touchedList.push_back(l);
                }
            }
        }
    };
    const double inf = std::numeric_limits<double>::infinity();
    while (left > 0)
    {
        popStale();
        const double share = m_heap.empty() ? inf : m_heap.front().share;
        while (m_frozen[m_byCap[nextCap]])
        {
            ++nextCap; // left > 0: an unfrozen flow remains
        }
        const double cap = caps[m_byCap[nextCap]];
        if (cap <= share)
        {
            // Every unfrozen flow with the smallest cap freezes at it.
            for (size_t k = nextCap; k < n && caps[m_byCap[k]] <= cap; ++k)
            {
                if (!m_frozen[m_byCap[k]])
                {
                    freeze(m_byCap[k], cap);
                }
            }
        }
        else
        {
            // The bottleneck links are chosen before any of their flows
            // freezes; each loses all its unfrozen flows, so leaves the heap.
            const double tol = share * (1 + kShareTolerance);
            m_bottleneck.clear();
            while (!m_heap.empty() && m_heap.front().share <= tol)
            {
                m_bottleneck.push_back(m_heap.front().link);
                std::pop_heap(m_heap.begin(), m_heap.end(), later);
                m_heap.pop_back();
                popStale();
            }
            for (uint32_t l : m_bottleneck)
            {
                for (uint32_t k = m_start[l]; k < m_start[l + 1]; ++k)
                {
                    if (!m_frozen[m_linkFlows[k]])
                    {
                        freeze(m_linkFlows[k], share);
                    }
                }
            }
        }
        for (uint32_t l : m_touchedList)
        {
            m_touched[l] = 0;
            ++m_version[l];
            if (m_cnt[l] > 0)
            {
                m_heap.push_back({m_rem[l] / m_cnt[l], l, m_version[l]});
                std::push_heap(m_heap.begin(), m_heap.end(), later);
            }
        }
        m_touchedList.clear();
    }
}

} // namespace ns3
