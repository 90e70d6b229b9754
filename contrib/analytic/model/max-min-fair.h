// SPDX-License-Identifier: GPL-2.0-only
//
// Max-min fair rates of flows over shared links by progressive filling, as
// the analytic channel's shared policy uses them (analytic-channel-flows.cc).
//
// Progressive filling raises every unfrozen flow's rate together; a flow
// freezes when it reaches its own cap or when a link it crosses is full (its
// remaining capacity divided among its unfrozen flows is the smallest of all
// links', within a relative 1e-12). Written out directly that is one scan of
// every link and every flow per bottleneck level: O(levels x (links + route
// entries)) per computation, and a fat-tree AllToAll of 128 hosts recomputed
// it at every completion instant of its 16 256 flows (68 % of a packet-only
// compare's instructions went there, to label the regime).
//
// MaxMinFair gives the same rates bit for bit in O((route entries) x log(links)
// + flows x log(flows)): the links wait in a heap keyed by their fair share
// (remaining / unfrozen count, updated when a flow on them freezes), the flows
// in order of their caps, and a link lists its flows. The arithmetic is the
// direct method's, step for step: every flow frozen in one step gets the same
// rate (the step's share, or the smallest cap, which all the step's flows
// share), so a link's remaining capacity goes through the same subtractions
// in the same step order whatever order the step's flows are frozen in; a
// link's share is computed from the same remaining and count; the minimum of
// a set of doubles and the test "share <= tolerance" do not depend on the
// order they are evaluated in. max-min-fair-test.cc checks the identity
// against the direct method on random routes and caps.
#ifndef HOCKNEY_MAX_MIN_FAIR_H
#define HOCKNEY_MAX_MIN_FAIR_H

#include <cstdint>
#include <vector>

namespace ns3
{

class MaxMinFair
{
  public:
    /// Rates of the flows i = 0 .. caps.size() - 1 into \p rates (resized).
    /// Flow i crosses the links *routes[i] (indices into \p capacity; null or
    /// empty: no link) and is capped at caps[i] (may be infinite). Capacities
    /// and caps in any unit of rate, the same for both; capacities > 0.
    /// Scratch space is kept between calls.
    void Compute(const std::vector<double>& capacity,
                 const std::vector<const std::vector<uint32_t>*>& routes,
                 const std::vector<double>& caps,
                 std::vector<double>& rates);

  private:
    struct Entry
    {
        double share;     ///< remaining / count when pushed
        uint32_t link;
        uint32_t version; ///< the link's version when pushed; stale if it changed
    };

    std::vector<double> m_rem;
    std::vector<uint32_t> m_cnt;
    std::vector<uint32_t> m_version;
    std::vector<char> m_touched;
    std::vector<uint32_t> m_touchedList;
    std::vector<uint32_t> m_start; ///< the flows of link l: m_linkFlows[m_start[l] .. m_start[l + 1])
    std::vector<uint32_t> m_linkFlows;
    std::vector<char> m_frozen;
    std::vector<uint32_t> m_byCap;
    std::vector<Entry> m_heap;
    std::vector<uint32_t> m_bottleneck;
};

} // namespace ns3

#endif
