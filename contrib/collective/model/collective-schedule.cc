// SPDX-License-Identifier: GPL-2.0-only
#include "collective-schedule.h"

#include <algorithm>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <stdexcept>

namespace ns3
{

namespace
{

using Contributors = std::vector<uint32_t>; // sorted ranks
using ContributorsPtr = std::shared_ptr<const Contributors>;

std::string
OpName(uint32_t i, const ScheduleOp& op)
{
    return "op " + std::to_string(i) + " (" + std::to_string(op.src) + "->" + std::to_string(op.dst) +
           ", step " + std::to_string(op.step) + ")";
}

// Applies an incoming copy of a chunk to the receiver's copy; returns an error
// or "" on success.
std::string
Apply(ContributorsPtr& state, const ContributorsPtr& incoming, bool reduce)
{
    if (!reduce || !state || state->empty())
    {
        state = incoming;
        return "";
    }
    Contributors both;
    std::set_intersection(state->begin(),
                          state->end(),
                          incoming->begin(),
                          incoming->end(),
                          std::back_inserter(both));
    if (!both.empty())
    {
        return "reduces the contribution of rank " + std::to_string(both.front()) + " twice";
    }
    auto merged = std::make_shared<Contributors>();
    std::set_union(state->begin(),
                   state->end(),
                   incoming->begin(),
                   incoming->end(),
                   std::back_inserter(*merged));
    state = merged;
    return "";
}

} // namespace

CollectiveSchedule::CollectiveSchedule(const std::string& name, uint32_t ranks)
    : m_name(name),
      m_ranks(ranks),
      m_contributions(ranks),
      m_needs(ranks)
{
}

uint32_t
CollectiveSchedule::AddChunk(uint64_t bytes)
{
    m_chunkBytes.push_back(bytes);
    return static_cast<uint32_t>(m_chunkBytes.size() - 1);
}

void
CollectiveSchedule::AddContribution(uint32_t rank, uint32_t chunk)
{
    m_contributions.at(rank).push_back(chunk);
}

void
CollectiveSchedule::AddNeed(uint32_t rank, uint32_t chunk)
{
    m_needs.at(rank).push_back(chunk);
}

uint32_t
CollectiveSchedule::AddOp(uint32_t src,
                          uint32_t dst,
                          const std::vector<uint32_t>& chunks,
                          bool reduce,
                          const std::vector<uint32_t>& deps,
                          uint32_t step)
{
    ScheduleOp op;
    op.src = src;
    op.dst = dst;
    op.chunks = chunks;
    op.reduce = reduce;
    op.deps = deps;
    op.step = step;
    for (uint32_t c : chunks)
    {
        op.bytes += m_chunkBytes.at(c);
    }
    m_ops.push_back(std::move(op));
    return static_cast<uint32_t>(m_ops.size() - 1);
}

uint32_t
CollectiveSchedule::GetStepCount() const
{
    uint32_t n = 0;
    for (const auto& op : m_ops)
    {
        n = std::max(n, op.step + 1);
    }
    return n;
}

uint64_t
CollectiveSchedule::GetTotalBytes() const
{
    uint64_t b = 0;
    for (const auto& op : m_ops)
    {
        b += op.bytes;
    }
    return b;
}

uint32_t
CollectiveSchedule::GetMaxFanIn() const
{
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> peers; // (step, dst) -> srcs
    size_t best = 0;
    for (const auto& op : m_ops)
    {
        auto& s = peers[{op.step, op.dst}];
        s.insert(op.src);
        best = std::max(best, s.size());
    }
    return static_cast<uint32_t>(best);
}

uint32_t
CollectiveSchedule::GetMaxFanOut() const
{
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> peers; // (step, src) -> dsts
    size_t best = 0;
    for (const auto& op : m_ops)
    {
        auto& s = peers[{op.step, op.src}];
        s.insert(op.dst);
        best = std::max(best, s.size());
    }
    return static_cast<uint32_t>(best);
}

void
CollectiveSchedule::Append(const CollectiveSchedule& other)
{
    if (other.m_ranks != m_ranks)
    {
        throw std::logic_error("CollectiveSchedule::Append: rank counts differ");
    }
    const uint32_t chunkBase = GetChunkCount();
    const uint32_t opBase = static_cast<uint32_t>(m_ops.size());
    m_chunkBytes.insert(m_chunkBytes.end(), other.m_chunkBytes.begin(), other.m_chunkBytes.end());
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        for (uint32_t c : other.m_contributions[r])
        {
            m_contributions[r].push_back(c + chunkBase);
        }
        for (uint32_t c : other.m_needs[r])
        {
            m_needs[r].push_back(c + chunkBase);
        }
    }
    for (ScheduleOp op : other.m_ops)
    {
        for (auto& c : op.chunks)
        {
            c += chunkBase;
        }
        for (auto& d : op.deps)
        {
            d += opBase;
        }
        m_ops.push_back(std::move(op));
    }
}

std::vector<uint32_t>
CollectiveSchedule::TopologicalOrder() const
{
    const uint32_t n = static_cast<uint32_t>(m_ops.size());
    std::vector<uint32_t> indegree(n, 0);
    std::vector<std::vector<uint32_t>> next(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : m_ops[i].deps)
        {
            if (d >= n)
            {
                return {};
            }
            next[d].push_back(i);
            ++indegree[i];
        }
    }
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (indegree[i] == 0)
        {
            ready.push(i);
        }
    }
    std::vector<uint32_t> order;
    order.reserve(n);
    while (!ready.empty())
    {
        uint32_t i = ready.top();
        ready.pop();
        order.push_back(i);
        for (uint32_t j : next[i])
        {
            if (--indegree[j] == 0)
            {
                ready.push(j);
            }
        }
    }
    if (order.size() != n)
    {
        return {};
    }
    return order;
}

ScheduleCheck
CollectiveSchedule::Check() const
{
    auto fail = [this](const std::string& what) {
        return ScheduleCheck{false, m_name + ": " + what};
    };
    const uint32_t n = static_cast<uint32_t>(m_ops.size());
    const uint32_t nChunks = GetChunkCount();
    if (m_ranks == 0)
    {
        return fail("no ranks");
    }
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        for (uint32_t c : m_contributions[r])
        {
            if (c >= nChunks)
            {
                return fail("rank " + std::to_string(r) + " contributes to unknown chunk " +
                            std::to_string(c));
            }
        }
        for (uint32_t c : m_needs[r])
        {
            if (c >= nChunks)
            {
                return fail("rank " + std::to_string(r) + " needs unknown chunk " + std::to_string(c));
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const ScheduleOp& op = m_ops[i];
        if (op.src >= m_ranks || op.dst >= m_ranks)
        {
            return fail(OpName(i, op) + " names a rank outside 0.." + std::to_string(m_ranks - 1));
        }
        if (op.src == op.dst)
        {
            return fail(OpName(i, op) + " sends to its own rank");
        }
        uint64_t bytes = 0;
        for (uint32_t c : op.chunks)
        {
            if (c >= nChunks)
            {
                return fail(OpName(i, op) + " carries unknown chunk " + std::to_string(c));
            }
            bytes += m_chunkBytes[c];
        }
        if (bytes != op.bytes)
        {
            return fail(OpName(i, op) + " has " + std::to_string(op.bytes) +
                        " bytes but carries chunks of " + std::to_string(bytes));
        }
        for (uint32_t d : op.deps)
        {
            if (d == i)
            {
                return fail(OpName(i, op) + " waits on itself");
            }
            if (d >= n)
            {
                return fail(OpName(i, op) + " depends on unknown op " + std::to_string(d));
            }
        }
    }
    std::vector<uint32_t> order = TopologicalOrder();
    if (order.size() != n)
    {
        return fail("the dependencies have a cycle");
    }
    std::vector<uint32_t> position(n);
    for (uint32_t k = 0; k < n; ++k)
    {
        position[order[k]] = k;
    }

    // Per chunk, the ranks that contribute to it: the content of a complete copy.
    std::vector<Contributors> contributors(nChunks);
    std::vector<std::set<uint32_t>> initial(m_ranks);
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        for (uint32_t c : m_contributions[r])
        {
            contributors[c].push_back(r);
            initial[r].insert(c);
        }
    }
    for (auto& v : contributors)
    {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }

    // known[i]: the receives of op i's sender that op i's payload is built from,
    // sorted by topological position. payload[i]: per carried chunk, the
    // contributions it carries.
    std::vector<std::vector<uint32_t>> known(n);
    std::vector<std::vector<ContributorsPtr>> payload(n);
    for (uint32_t i : order)
    {
        const ScheduleOp& op = m_ops[i];
        std::set<uint32_t> k;
        for (uint32_t d : op.deps)
        {
            const ScheduleOp& dep = m_ops[d];
            if (dep.dst == op.src)
            {
                k.insert(d);
            }
            else if (dep.src == op.src)
            {
                k.insert(known[d].begin(), known[d].end());
            }
        }
        known[i].assign(k.begin(), k.end());
        std::sort(known[i].begin(), known[i].end(), [&position](uint32_t a, uint32_t b) {
            return position[a] < position[b];
        });
        for (uint32_t c : op.chunks)
        {
            ContributorsPtr state;
            if (initial[op.src].count(c))
            {
                state = std::make_shared<Contributors>(Contributors{op.src});
            }
            for (uint32_t r : known[i])
            {
                const ScheduleOp& rx = m_ops[r];
                for (size_t j = 0; j < rx.chunks.size(); ++j)
                {
                    if (rx.chunks[j] == c)
                    {
                        std::string err = Apply(state, payload[r][j], rx.reduce);
                        if (!err.empty())
                        {
                            return fail(OpName(r, rx) + " " + err + " in chunk " + std::to_string(c));
                        }
                    }
                }
            }
            if (!state || state->empty())
            {
                return fail(OpName(i, op) + " sends chunk " + std::to_string(c) +
                            " before its sender is guaranteed to hold any of it");
            }
            payload[i].push_back(state);
        }
    }

    // The end: every message delivered, in dependency order.
    std::vector<std::map<uint32_t, ContributorsPtr>> held(m_ranks);
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        for (uint32_t c : initial[r])
        {
            held[r][c] = std::make_shared<Contributors>(Contributors{r});
        }
    }
    for (uint32_t i : order)
    {
        const ScheduleOp& op = m_ops[i];
        for (size_t j = 0; j < op.chunks.size(); ++j)
        {
            ContributorsPtr& state = held[op.dst][op.chunks[j]];
            std::string err = Apply(state, payload[i][j], op.reduce);
            if (!err.empty())
            {
                return fail(OpName(i, op) + " " + err + " in chunk " + std::to_string(op.chunks[j]));
            }
        }
    }
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        for (uint32_t c : m_needs[r])
        {
            auto it = held[r].find(c);
            if (it == held[r].end() || !it->second || *it->second != contributors[c])
            {
                size_t have = (it == held[r].end() || !it->second) ? 0 : it->second->size();
                return fail("rank " + std::to_string(r) + " ends with chunk " + std::to_string(c) +
                            " holding " + std::to_string(have) + " of its " +
                            std::to_string(contributors[c].size()) + " contributions");
            }
        }
    }
    return ScheduleCheck{};
}

void
CollectiveSchedule::Validate() const
{
    ScheduleCheck check = Check();
    if (!check.ok)
    {
        throw std::logic_error(check.error);
    }
}

} // namespace ns3
