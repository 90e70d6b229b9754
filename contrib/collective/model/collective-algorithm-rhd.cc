// SPDX-License-Identifier: GPL-2.0-only
//
// Recursive halving-doubling allreduce (Rabenseifner; Thakur, Rabenseifner
// and Gropp, "Optimization of Collective Communication Operations in MPICH",
// IJHPCA 2005): a reduce-scatter by recursive halving and an all-gather by
// recursive doubling on the largest power of two p2 <= N ranks; the N - p2
// others fold their whole buffer into a partner first and get the result back
// last.
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"

namespace ns3
{

namespace
{

using namespace collective;

// The schedule under construction, with what each phase leaves for the next.
class RhdBuilder
{
  public:
    RhdBuilder(CollectiveSchedule& sched, uint32_t n, uint64_t bytes, uint32_t slices)
        : m_sched(sched),
          m_slices(slices),
          m_p2(LargestPowerOfTwoAtMost(n)),
          m_extras(n - m_p2),
          m_levels(CeilLog2(m_p2)),
          m_firstStep(m_extras > 0 ? 1 : 0),
          m_chunk(slices, std::vector<uint32_t>(m_p2)),
          m_received(n, std::vector<std::vector<uint32_t>>(slices)),
          m_prevOp(m_p2, std::vector<uint32_t>(m_levels * 2, kNoOp)),
          m_lastSend(slices, std::vector<uint32_t>(m_p2, kNoOp))
    {
        std::vector<uint64_t> sizes = SplitBytes(bytes, m_p2 * slices);
        for (uint32_t s = 0; s < slices; ++s)
        {
            for (uint32_t j = 0; j < m_p2; ++j)
            {
                m_chunk[s][j] = m_sched.AddChunk(sizes[s * m_p2 + j]);
            }
        }
        EveryRankContributesAndNeedsAll(m_sched, n);
    }

    // Ranks p2..n-1 first fold their whole buffer into a partner below p2.
    void FoldIn()
    {
        std::vector<uint32_t> prevPre(m_extras, kNoOp);
        for (uint32_t s = 0; s < m_slices && m_extras > 0; ++s)
        {
            for (uint32_t i = 0; i < m_extras; ++i)
            {
                std::vector<uint32_t> deps;
                if (s > 0)
                {
                    deps.push_back(prevPre[i]);
                }
                prevPre[i] = m_sched.AddOp(m_p2 + i, i, m_chunk[s], true, deps, 0);
                m_received[i][s].push_back(prevPre[i]);
            }
        }
    }

    // Reduce-scatter by recursive halving: at distance d a rank keeps the half
    // of its range whose bit d matches its own and sends the other half.
    void ReduceScatter(uint32_t s)
    {
        for (uint32_t k = 1; k <= m_levels; ++k)
        {
            const uint32_t d = m_p2 >> k;
            // Range before this step: agrees with r on bits >= 2d; send the half with bit d != r's.
            Exchange(s, d, k - 1, true, [d](uint32_t j, uint32_t r) {
                return RangeMatches(j, r, 2 * d) && ((j & d) != (r & d));
            });
        }
    }

    // All-gather by recursive doubling: at distance d a rank sends the range
    // it holds complete (agreeing with it on bits >= d).
    void AllGather(uint32_t s)
    {
        for (uint32_t k = m_levels; k >= 1; --k)
        {
            const uint32_t d = m_p2 >> k;
            const uint32_t idx = m_levels + (m_levels - k);
            const std::vector<uint32_t> ops =
                Exchange(s, d, idx, false, [d](uint32_t j, uint32_t r) { return RangeMatches(j, r, d); });
            if (k == 1)
            {
                m_lastSend[s] = ops;
            }
        }
    }

    // The folded ranks get the result back.
    void FoldOut()
    {
        std::vector<uint32_t> prevPost(m_extras, kNoOp);
        for (uint32_t s = 0; s < m_slices && m_extras > 0; ++s)
        {
            for (uint32_t i = 0; i < m_extras; ++i)
            {
                std::vector<uint32_t> deps = m_received[i][s];
                // After i's own last doubling send: otherwise both leave i's port
                // at once and share its uplink.
                if (m_lastSend[s][i] != kNoOp)
                {
                    deps.push_back(m_lastSend[s][i]);
                }
                if (s > 0)
                {
                    deps.push_back(prevPost[i]);
                }
                prevPost[i] = m_sched.AddOp(i, m_p2 + i, m_chunk[s], false, deps, m_firstStep + 2 * m_levels);
            }
        }
    }

  private:
    // j agrees with r on every bit >= fromBit
    static bool RangeMatches(uint32_t j, uint32_t r, uint32_t fromBit)
    {
        return (j & ~(fromBit - 1)) == (r & ~(fromBit - 1));
    }

    // One step of slice s: every rank r < p2 sends the chunks j with
    // sends(j, r) to r ^ d; idx numbers the step among the 2 * levels of a
    // slice. Returns each rank's op.
    template <typename Sends>
    std::vector<uint32_t> Exchange(uint32_t s, uint32_t d, uint32_t idx, bool reduce, Sends sends)
    {
        std::vector<uint32_t> ops(m_p2);
        for (uint32_t r = 0; r < m_p2; ++r)
        {
            const uint32_t q = r ^ d;
            std::vector<uint32_t> carried;
            for (uint32_t j = 0; j < m_p2; ++j)
            {
                if (sends(j, r))
                {
                    carried.push_back(m_chunk[s][j]);
                }
            }
            // An exchange is a Sendrecv: it starts when both partners hold
            // everything of the earlier steps. Without q's receives, rank 2
            // (no fold partner) would send into rank 0 while rank 4's fold
            // still streams into it: two flows on one link, which the
            // closed form does not have.
            std::vector<uint32_t> deps = m_received[r][s];
            deps.insert(deps.end(), m_received[q][s].begin(), m_received[q][s].end());
            if (s > 0)
            {
                deps.push_back(m_prevOp[r][idx]);
            }
            ops[r] = m_sched.AddOp(r, q, carried, reduce, deps, m_firstStep + idx);
            m_prevOp[r][idx] = ops[r];
        }
        // The receives count for the next step only.
        for (uint32_t r = 0; r < m_p2; ++r)
        {
            m_received[r ^ d][s].push_back(ops[r]);
        }
        return ops;
    }

    CollectiveSchedule& m_sched;
    const uint32_t m_slices;
    const uint32_t m_p2;
    const uint32_t m_extras;
    const uint32_t m_levels;
    const uint32_t m_firstStep;
    std::vector<std::vector<uint32_t>> m_chunk; // [slice][j]
    // m_received[r][s]: every receive of rank r in slice s so far; a send waits
    // for all of them because it carries their sum.
    std::vector<std::vector<std::vector<uint32_t>>> m_received;
    std::vector<std::vector<uint32_t>> m_prevOp; // [r][idx]: the op of the previous slice
    // m_lastSend[s][r]: r's last doubling send of slice s (the result's return waits for it).
    std::vector<std::vector<uint32_t>> m_lastSend;
};

CollectiveSchedule
RhdAllReduce(uint32_t n, uint64_t bytes, uint32_t slices)
{
    CollectiveSchedule sched("recursive halving-doubling allreduce", n);
    RhdBuilder b(sched, n, bytes, slices);
    b.FoldIn();
    for (uint32_t s = 0; s < slices; ++s)
    {
        b.ReduceScatter(s);
        b.AllGather(s);
    }
    b.FoldOut();
    return sched;
}

std::vector<CriticalStep>
RhdPath(const CollectiveSpec& spec, double m)
{
    const uint32_t n = spec.ranks;
    const double s = spec.slices;
    const uint32_t p2 = LargestPowerOfTwoAtMost(n);
    const uint32_t levels = CeilLog2(p2);
    // The fold in (if any), halving steps of 1/2, 1/4, ... of a slice, the
    // doubling steps back up, the fold out.
    std::vector<CriticalStep> path;
    if (p2 != n)
    {
        path.push_back(CriticalStep{0, m / s});
    }
    for (uint32_t k = 1; k <= levels; ++k)
    {
        path.push_back(CriticalStep{0, m / (s * (1u << k))});
    }
    for (uint32_t k = levels; k >= 1; --k)
    {
        path.push_back(CriticalStep{0, m / (s * (1u << k))});
    }
    if (p2 != n)
    {
        path.push_back(CriticalStep{0, m / s});
    }
    return path;
}

CollectiveAlgorithm
Rhd()
{
    CollectiveAlgorithm a;
    a.name = "rhd";
    a.aliases = {"halving-doubling", "recursive-halving-doubling", "rabenseifner"};
    a.collectives = {CollectiveKind::ALL_REDUCE};
    a.order = 2;
    a.minimumBytes = [](const CollectiveSpec& spec) { return LargestPowerOfTwoAtMost(spec.ranks) * PipelinePieces(spec); };
    a.build = [](const CollectiveSpec& spec, uint64_t bytes) { return RhdAllReduce(spec.ranks, bytes, spec.slices); };
    a.criticalPath = RhdPath;
    return a;
}

const CollectiveAlgorithmRegistration kRhdRegistration(Rhd());

} // namespace

} // namespace ns3
