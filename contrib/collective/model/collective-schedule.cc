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


using Chunks = std::vector<std::vector<uint32_t>>; // per rank, chunk ids

// Every chunk a rank contributes to or needs exists.
std::string
CheckRankChunks(const Chunks& contributions, const Chunks& needs, uint32_t ranks, uint32_t nChunks)
{
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t c : contributions[r])
        {
            if (c >= nChunks)
            {
                return "rank " + std::to_string(r) + " contributes to unknown chunk " + std::to_string(c);
            }
        }
        for (uint32_t c : needs[r])
        {
            if (c >= nChunks)
            {
                return "rank " + std::to_string(r) + " needs unknown chunk " + std::to_string(c);
            }
        }
    }
    return "";
}

// Op i's ranks, chunks, bytes and dependencies are in range and consistent.
std::string
CheckOp(uint32_t i, const std::vector<ScheduleOp>& ops, const std::vector<uint64_t>& chunkBytes, uint32_t ranks)
{
    const ScheduleOp& op = ops[i];
    if (op.src >= ranks || op.dst >= ranks)
    {
        return OpName(i, op) + " names a rank outside 0.." + std::to_string(ranks - 1);
    }
    // An in-switch op may: its rank's copy goes up its link and the sum
    // comes back down it (a reduce-scatter head contributing its own copy).
    if (op.src == op.dst && op.group == ScheduleOp::kNoSwitchGroup)
    {
        return OpName(i, op) + " sends to its own rank";
    }
    if (op.proxy != ScheduleOp::kNoProxy && (op.proxy >= ranks || op.proxy == op.src || op.proxy == op.dst))
    {
        return OpName(i, op) + " names proxy " + std::to_string(op.proxy) +
               ", expected a third rank below " + std::to_string(ranks);
    }
    uint64_t bytes = 0;
    for (uint32_t c : op.chunks)
    {
        if (c >= chunkBytes.size())
        {
            return OpName(i, op) + " carries unknown chunk " + std::to_string(c);
        }
        bytes += chunkBytes[c];
    }
    if (bytes != op.bytes)
    {
        return OpName(i, op) + " has " + std::to_string(op.bytes) + " bytes but carries chunks of " +
               std::to_string(bytes);
    }
    for (uint32_t d : op.deps)
    {
        if (d == i)
        {
            return OpName(i, op) + " waits on itself";
        }
        if (d >= ops.size())
        {
            return OpName(i, op) + " depends on unknown op " + std::to_string(d);
        }
    }
    return "";
}

// Where the chunks start.
struct ChunkOrigins
{
    std::vector<Contributors> contributors;  // per chunk: the content of a complete copy
    std::vector<std::set<uint32_t>> initial; // per rank: the chunks it starts with
};

ChunkOrigins
FindOrigins(const Chunks& contributions, uint32_t ranks, uint32_t nChunks)
{
    ChunkOrigins o;
    o.contributors.resize(nChunks);
    o.initial.resize(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t c : contributions[r])
        {
            o.contributors[c].push_back(r);
            o.initial[r].insert(c);
        }
    }
    for (auto& v : o.contributors)
    {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    return o;
}

// What an op in topological order sends. known[i]: the receives of op i's
// sender that op i's payload is built from, sorted by topological position.
// payload[i]: per carried chunk, the contributions it carries.
struct Payloads
{
    std::vector<std::vector<uint32_t>> known;
    std::vector<std::vector<ContributorsPtr>> payload;
    /// Per in-switch group: its ops, and (once computed) per carried chunk
    /// the sum the switch delivers.
    std::map<uint32_t, std::vector<uint32_t>> groupOps;
    std::map<uint32_t, std::vector<ContributorsPtr>> groupSum;
};

// The sum in-switch group \p g delivers: the union of its ops' payloads,
// chunk by chunk (every op of g carries the same chunks, CheckGroups), each
// contribution once. Needs every op of g built (the order guarantees it for
// anything that depends on one of them).
std::string
GroupSum(const std::vector<ScheduleOp>& ops, uint32_t g, Payloads& p, const std::vector<ContributorsPtr>*& sum)
{
    auto done = p.groupSum.find(g);
    if (done != p.groupSum.end())
    {
        sum = &done->second;
        return "";
    }
    const std::vector<uint32_t>& members = p.groupOps.at(g);
    std::vector<ContributorsPtr> out(ops[members.front()].chunks.size());
    // A multicast (one source, an op to each receiver) adds its source's
    // copy once; in a group of several sources every op's copy is added, so
    // a source with two ops there is a contribution counted twice.
    std::set<uint32_t> sources;
    for (uint32_t i : members)
    {
        sources.insert(ops[i].src);
    }
    const bool multicast = sources.size() == 1;
    bool first = true;
    for (uint32_t i : members)
    {
        if (multicast && !first)
        {
            continue;
        }
        first = false;
        for (size_t j = 0; j < out.size(); ++j)
        {
            std::string err = Apply(out[j], p.payload[i][j], true);
            if (!err.empty())
            {
                return "in-switch group " + std::to_string(g) + " " + err + " in chunk " +
                       std::to_string(ops[i].chunks[j]);
            }
        }
    }
    sum = &(p.groupSum[g] = std::move(out));
    return "";
}

// known[i] from op i's dependencies: a receive of its sender, or (through an
// earlier send of the same sender) the receives that send was built from.
void
FindKnownReceives(const std::vector<ScheduleOp>& ops,
                  uint32_t i,
                  const std::vector<uint32_t>& position,
                  Payloads& p)
{
    const ScheduleOp& op = ops[i];
    std::set<uint32_t> k;
    for (uint32_t d : op.deps)
    {
        const ScheduleOp& dep = ops[d];
        if (dep.dst == op.src)
        {
            k.insert(d);
        }
        else if (dep.src == op.src)
        {
            k.insert(p.known[d].begin(), p.known[d].end());
        }
    }
    p.known[i].assign(k.begin(), k.end());
    std::sort(p.known[i].begin(), p.known[i].end(), [&position](uint32_t a, uint32_t b) {
        return position[a] < position[b];
    });
}

// The contributions op i carries in chunk c: its sender's own, then each
// known receive of c applied in order.
std::string
BuildChunkPayload(const std::vector<ScheduleOp>& ops, uint32_t i, uint32_t c, const ChunkOrigins& o, Payloads& p)
{
    const ScheduleOp& op = ops[i];
    ContributorsPtr state;
    if (o.initial[op.src].count(c))
    {
        state = std::make_shared<Contributors>(Contributors{op.src});
    }
    for (uint32_t r : p.known[i])
    {
        const ScheduleOp& rx = ops[r];
        const std::vector<ContributorsPtr>* sum = nullptr;
        if (rx.group != ScheduleOp::kNoSwitchGroup)
        {
            std::string err = GroupSum(ops, rx.group, p, sum);
            if (!err.empty())
            {
                return err;
            }
        }
        for (size_t j = 0; j < rx.chunks.size(); ++j)
        {
            if (rx.chunks[j] == c)
            {
                std::string err =
                    sum ? Apply(state, (*sum)[j], false) : Apply(state, p.payload[r][j], rx.reduce);
                if (!err.empty())
                {
                    return OpName(r, rx) + " " + err + " in chunk " + std::to_string(c);
                }
            }
        }
    }
    if (!state || state->empty())
    {
        return OpName(i, op) + " sends chunk " + std::to_string(c) +
               " before its sender is guaranteed to hold any of it";
    }
    p.payload[i].push_back(state);
    return "";
}

std::string
BuildPayloads(const std::vector<ScheduleOp>& ops,
              const std::vector<uint32_t>& order,
              const ChunkOrigins& o,
              Payloads& p)
{
    const uint32_t n = static_cast<uint32_t>(ops.size());
    std::vector<uint32_t> position(n);
    for (uint32_t k = 0; k < n; ++k)
    {
        position[order[k]] = k;
    }
    p.known.resize(n);
    p.payload.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        if (ops[i].group != ScheduleOp::kNoSwitchGroup)
        {
            p.groupOps[ops[i].group].push_back(i);
        }
    }
    for (uint32_t i : order)
    {
        FindKnownReceives(ops, i, position, p);
        for (uint32_t c : ops[i].chunks)
        {
            std::string err = BuildChunkPayload(ops, i, c, o, p);
            if (!err.empty())
            {
                return err;
            }
        }
    }
    return "";
}

// The end: every message delivered, in dependency order; every rank then
// holds every chunk it needs with all its contributions.
std::string
CheckDelivery(const std::vector<ScheduleOp>& ops,
              const std::vector<uint32_t>& order,
              const ChunkOrigins& o,
              Payloads& p,
              const Chunks& needs,
              uint32_t ranks)
{
    std::vector<std::map<uint32_t, ContributorsPtr>> held(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t c : o.initial[r])
        {
            held[r][c] = std::make_shared<Contributors>(Contributors{r});
        }
    }
    for (uint32_t i : order)
    {
        const ScheduleOp& op = ops[i];
        const std::vector<ContributorsPtr>* sum = nullptr;
        if (op.group != ScheduleOp::kNoSwitchGroup)
        {
            std::string err = GroupSum(ops, op.group, p, sum);
            if (!err.empty())
            {
                return err;
            }
        }
        for (size_t j = 0; j < op.chunks.size(); ++j)
        {
            ContributorsPtr& state = held[op.dst][op.chunks[j]];
            std::string err = sum ? Apply(state, (*sum)[j], false) : Apply(state, p.payload[i][j], op.reduce);
            if (!err.empty())
            {
                return OpName(i, op) + " " + err + " in chunk " + std::to_string(op.chunks[j]);
            }
        }
    }
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t c : needs[r])
        {
            auto it = held[r].find(c);
            if (it == held[r].end() || !it->second || *it->second != o.contributors[c])
            {
                size_t have = (it == held[r].end() || !it->second) ? 0 : it->second->size();
                return "rank " + std::to_string(r) + " ends with chunk " + std::to_string(c) + " holding " +
                       std::to_string(have) + " of its " + std::to_string(o.contributors[c].size()) +
                       " contributions";
            }
        }
    }
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
                          uint32_t step,
                          uint32_t proxy)
{
    ScheduleOp op;
    op.src = src;
    op.dst = dst;
    op.proxy = proxy;
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

std::vector<std::pair<uint32_t, uint32_t>>
ScheduleOp::Legs() const
{
    if (proxy == kNoProxy)
    {
        return {{src, dst}};
    }
    return {{src, proxy}, {proxy, dst}};
}

uint32_t
CollectiveSchedule::AddSwitchOp(uint32_t src,
                                uint32_t dst,
                                const std::vector<uint32_t>& chunks,
                                uint32_t group,
                                const std::vector<uint32_t>& deps,
                                uint32_t step)
{
    const uint32_t i = AddOp(src, dst, chunks, true, deps, step);
    m_ops[i].group = group;
    return i;
}

uint32_t
CollectiveSchedule::GetSwitchGroupCount() const
{
    uint32_t n = 0;
    for (const auto& op : m_ops)
    {
        if (op.group != ScheduleOp::kNoSwitchGroup)
        {
            n = std::max(n, op.group + 1);
        }
    }
    return n;
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
    const uint32_t groupBase = GetSwitchGroupCount();
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
        if (op.group != ScheduleOp::kNoSwitchGroup)
        {
            op.group += groupBase;
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
    // The ops of each in-switch group: a dependency on one is on all (the
    // sum exists only once every op of the group has sent its copy).
    std::map<uint32_t, std::vector<uint32_t>> groups;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (m_ops[i].group != ScheduleOp::kNoSwitchGroup)
        {
            groups[m_ops[i].group].push_back(i);
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        std::set<uint32_t> before;
        for (uint32_t d : m_ops[i].deps)
        {
            if (d >= n)
            {
                return {};
            }
            before.insert(d);
            if (m_ops[d].group != ScheduleOp::kNoSwitchGroup)
            {
                const auto& peers = groups[m_ops[d].group];
                before.insert(peers.begin(), peers.end());
            }
        }
        for (uint32_t d : before)
        {
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
    std::string error = CheckIndices();
    if (error.empty())
    {
        error = CheckDataFlow();
    }
    return error.empty() ? ScheduleCheck{} : ScheduleCheck{false, m_name + ": " + error};
}

std::string
CollectiveSchedule::CheckIndices() const
{
    if (m_ranks == 0)
    {
        return "no ranks";
    }
    std::string error = CheckRankChunks(m_contributions, m_needs, m_ranks, GetChunkCount());
    for (uint32_t i = 0; error.empty() && i < m_ops.size(); ++i)
    {
        error = CheckOp(i, m_ops, m_chunkBytes, m_ranks);
    }
    // Every op of an in-switch group carries the same chunks (the switch
    // adds them position by position).
    std::map<uint32_t, uint32_t> first;
    for (uint32_t i = 0; error.empty() && i < m_ops.size(); ++i)
    {
        const ScheduleOp& op = m_ops[i];
        if (op.group == ScheduleOp::kNoSwitchGroup)
        {
            continue;
        }
        auto [it, added] = first.emplace(op.group, i);
        if (!added && m_ops[it->second].chunks != op.chunks)
        {
            error = OpName(i, op) + " carries other chunks than op " + std::to_string(it->second) +
                    " of the same in-switch group " + std::to_string(op.group);
        }
    }
    return error;
}

std::string
CollectiveSchedule::CheckDataFlow() const
{
    std::vector<uint32_t> order = TopologicalOrder();
    if (order.size() != m_ops.size())
    {
        return "the dependencies have a cycle";
    }
    ChunkOrigins origins = FindOrigins(m_contributions, m_ranks, GetChunkCount());
    Payloads payloads;
    std::string error = BuildPayloads(m_ops, order, origins, payloads);
    if (!error.empty())
    {
        return error;
    }
    return CheckDelivery(m_ops, order, origins, payloads, m_needs, m_ranks);
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
