// SPDX-License-Identifier: GPL-2.0-only
//
// The registry of collective algorithms, looped over: every registered
// algorithm, for every collective it serves, has a closed-form critical path
// equal to the time of its executed schedule on the contention-free analytic
// channel and a minimum size that is exactly the smallest with no empty
// message; the names the library documents are the ones registered; aliases
// resolve; an unknown name is an InputError listing the known ones, wherever
// it is used. A new algorithm file is covered by the first two without
// editing this test.
#include "analytic-transport.h"
#include "collective-algorithm-registry.h"
#include "collective-algorithms.h"
#include "collective-closed-form.h"
#include "collective-executor.h"
#include "collective-test-spec.h"
#include "input-error.h"
#include "simulator-test.h"

#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

using hockney::AlphaBeta;
using hockney::Spec;

class CollectiveAlgorithmRegistryTest : public hockney::SimulatorTest
{
};

const std::vector<CollectiveKind> KINDS = {CollectiveKind::ALL_REDUCE,
                                           CollectiveKind::ALL_GATHER,
                                           CollectiveKind::REDUCE_SCATTER,
                                           CollectiveKind::BROADCAST,
                                           CollectiveKind::ALL_TO_ALL,
                                           CollectiveKind::INCAST};

// Ranks that are and are not powers of two (rhd folds, the trees are uneven).
const std::vector<uint32_t> RANKS = {2, 3, 4, 5, 6, 8, 12};
// (slices, channels): one pipeline piece, and several of each.
const std::vector<std::pair<uint32_t, uint32_t>> PIPELINES = {{1, 1}, {3, 2}};
// 241 920 = 2^8 x 3^3 x 5 x 7 B: every message of every algorithm here is a
// whole, even number of bytes (it divides by N x slices x channels x 2 for
// every N above and by p2 x 3 x 2 for halving-doubling), so that at 10, 2.5
// and 20 ps per byte each message is a whole number of picoseconds. A
// latency-leaning size and a bandwidth-bound one (x 200).
const std::vector<uint64_t> SIZES = {241920, 241920 * 200};

std::string
Name(const CollectiveSpec& s)
{
    return ToString(s.collective) + " " + s.algorithm + " N=" + std::to_string(s.ranks) + " G=" +
           std::to_string(s.gpusPerNode) + " S=" + std::to_string(s.slices) + " C=" + std::to_string(s.channels) +
           " M=" + std::to_string(s.bytes);
}

/// The executed schedule of \p spec on the analytic channel with contention
/// policy none; with gpusPerNode set, messages between nodes take a second
/// level (4 us, 50 GB/s) and those inside a node a first (1 us, 400 GB/s),
/// otherwise every message 2 us, 100 GB/s.
Time
Executed(const CollectiveSpec& spec)
{
    auto t = CreateObject<AnalyticTransport>();
    if (spec.gpusPerNode == 0)
    {
        t->Install(spec.ranks, AlphaBeta(MicroSeconds(2), DataRate("800Gbps")), AnalyticChannel::NONE);
    }
    else
    {
        t->Install(spec.ranks, AlphaBeta(MicroSeconds(1), DataRate("3200Gbps")), AnalyticChannel::NONE);
        t->AddLevel(AlphaBeta(MicroSeconds(4), DataRate("400Gbps")));
        const uint32_t g = spec.gpusPerNode;
        t->SetLevelFunction([g](uint32_t a, uint32_t b) { return a / g == b / g ? 0u : 1u; });
    }
    auto exec = CreateObject<CollectiveExecutor>();
    Time got = exec->Run(BuildSchedule(spec), t);
    EXPECT_TRUE(exec->IsComplete()) << Name(spec);
    Simulator::Destroy();
    return got;
}

Time
Closed(const CollectiveSpec& spec)
{
    // The channel shares no port: the path's port loads are not charged.
    const bool flat = spec.gpusPerNode == 0;
    return ClosedFormTime(
        spec,
        [flat](uint32_t level, double bytes) {
            if (flat)
            {
                return AlphaBetaTime(MicroSeconds(2), DataRate("800Gbps"), bytes);
            }
            return level == 0 ? AlphaBetaTime(MicroSeconds(1), DataRate("3200Gbps"), bytes)
                              : AlphaBetaTime(MicroSeconds(4), DataRate("400Gbps"), bytes);
        },
        PortLoads::IGNORED);
}

/// Every point the loops below visit for \p a serving \p kind: each rank
/// count, pipeline and size, and for an algorithm that places ranks by node
/// also every 1 < G < N dividing N (and G = 1: one GPU a node).
std::vector<CollectiveSpec>
Points(const CollectiveAlgorithm& a, CollectiveKind kind)
{
    std::vector<CollectiveSpec> out;
    for (uint32_t n : RANKS)
    {
        std::vector<uint32_t> perNode = {0};
        if (a.usesNodes)
        {
            for (uint32_t g = 1; g < n; ++g)
            {
                if (n % g == 0)
                {
                    perNode.push_back(g);
                }
            }
        }
        for (uint32_t g : perNode)
        {
            for (auto [s, c] : PIPELINES)
            {
                for (uint64_t m : SIZES)
                {
                    CollectiveSpec spec = Spec(kind, a.name, n, m, s, c);
                    spec.root = n / 2;
                    spec.gpusPerNode = g;
                    out.push_back(spec);
                }
            }
        }
    }
    return out;
}

/// The names the library documents for each collective (collective.md), the
/// default first, written out independently of the registry.
const std::map<CollectiveKind, std::vector<std::string>> DOCUMENTED = {
    {CollectiveKind::ALL_REDUCE, {"ring", "tree", "rhd", "hierarchical", "node-tree"}},
    {CollectiveKind::ALL_GATHER, {"ring"}},
    {CollectiveKind::REDUCE_SCATTER, {"ring"}},
    {CollectiveKind::BROADCAST, {"ring", "binomial"}},
    {CollectiveKind::ALL_TO_ALL, {"pairwise", "all-at-once", "pxn"}},
    {CollectiveKind::INCAST, {"direct"}},
};

} // namespace

TEST_F(CollectiveAlgorithmRegistryTest, ClosedFormEqualsExecutedScheduleForEveryAlgorithm)
{
    // The closed form converts each step's alpha + m/beta to Time and sums
    // Times; the channel converts each message the same way and the executor
    // adds the delays in integer picoseconds. Every message here is a whole
    // number of picoseconds (SIZES), so both are exact and must be EQUAL: the
    // tolerance is zero. Any difference is a missing or extra step, a wrong
    // message size or a pipelining dependency the closed form does not have
    // (the smallest of those, one byte at 20 ps/B, is 20 ps).
    uint32_t points = 0;
    for (const CollectiveAlgorithm* a : CollectiveAlgorithmRegistry::All())
    {
        for (CollectiveKind kind : a->collectives)
        {
            for (const CollectiveSpec& spec : Points(*a, kind))
            {
                EXPECT_EQ(Executed(spec).GetPicoSeconds(), Closed(spec).GetPicoSeconds()) << Name(spec);
                ++points;
            }
        }
    }
    // At least the documented algorithms: 11 (algorithm, collective) pairs x
    // 7 N x 2 pipelines x 2 sizes, plus hierarchical's 16 node sizes G < N
    // dividing N (1 of 2, 1,2,3 of 6, 1,2,3,4,6 of 12, ...) x 2 x 2.
    EXPECT_GE(points, 11u * 7 * 2 * 2 + 16 * 2 * 2);
}

TEST_F(CollectiveAlgorithmRegistryTest, MinimumBytesIsTheSmallestWithNoEmptyMessage)
{
    // At MinimumBytes every op carries bytes; one byte fewer (built through
    // the entry directly, since Validate rejects it) leaves an op empty in the
    // smallest channel. Root 0, so that the incast's last (smallest) block is
    // a sender's.
    for (const CollectiveAlgorithm* a : CollectiveAlgorithmRegistry::All())
    {
        for (CollectiveKind kind : a->collectives)
        {
            for (const CollectiveSpec& point : Points(*a, kind))
            {
                CollectiveSpec spec = point;
                spec.root = 0;
                spec.bytes = MinimumBytes(spec);
                ASSERT_GT(spec.bytes, 0u) << Name(spec);
                const CollectiveSchedule atMinimum = BuildSchedule(spec);
                for (const ScheduleOp& op : atMinimum.GetOps())
                {
                    ASSERT_GT(op.bytes, 0u) << Name(spec);
                }
                const uint64_t smallest = collective::SplitBytes(spec.bytes - 1, spec.channels).back();
                const CollectiveSchedule below = a->build(spec, smallest);
                bool empty = false;
                for (const ScheduleOp& op : below.GetOps())
                {
                    empty = empty || op.bytes == 0;
                }
                EXPECT_TRUE(empty) << Name(spec) << ": one byte below the minimum, no message is empty";
                spec.bytes -= 1;
                EXPECT_THROW(spec.Validate(), InputError) << Name(spec);
            }
        }
    }
}

TEST_F(CollectiveAlgorithmRegistryTest, EveryDocumentedAlgorithmIsRegisteredInOrder)
{
    // A family file missing from the library (or registered under another
    // name or order) shows here. A new algorithm may come anywhere after the
    // default without editing this test.
    for (const auto& [kind, names] : DOCUMENTED)
    {
        const std::vector<std::string> registered = AlgorithmsOf(kind);
        ASSERT_FALSE(registered.empty()) << ToString(kind);
        EXPECT_EQ(registered.front(), names.front()) << ToString(kind) << ": the default";
        std::vector<std::string> documentedOnly;
        for (const std::string& r : registered)
        {
            if (std::find(names.begin(), names.end(), r) != names.end())
            {
                documentedOnly.push_back(r);
            }
        }
        EXPECT_EQ(documentedOnly, names) << ToString(kind);
    }
}

TEST_F(CollectiveAlgorithmRegistryTest, AliasesResolveToTheirAlgorithm)
{
    struct Alias
    {
        CollectiveKind kind;
        std::string given;
        std::string canonical;
    };
    const std::vector<Alias> aliases = {
        {CollectiveKind::ALL_REDUCE, "Ring", "ring"},
        {CollectiveKind::ALL_REDUCE, "double-binary-tree", "tree"},
        {CollectiveKind::ALL_REDUCE, "dbtree", "tree"},
        {CollectiveKind::ALL_REDUCE, "Double_Binary_Tree", "tree"},
        {CollectiveKind::ALL_REDUCE, "halving-doubling", "rhd"},
        {CollectiveKind::ALL_REDUCE, "recursive-halving-doubling", "rhd"},
        {CollectiveKind::ALL_REDUCE, "Rabenseifner", "rhd"},
        {CollectiveKind::BROADCAST, "pipelined", "ring"},
        {CollectiveKind::BROADCAST, "chain", "ring"},
        {CollectiveKind::BROADCAST, "tree", "binomial"},
        {CollectiveKind::ALL_TO_ALL, "ring", "pairwise"},
        {CollectiveKind::ALL_TO_ALL, "pairwise-exchange", "pairwise"},
        {CollectiveKind::ALL_TO_ALL, "direct", "all-at-once"},
        {CollectiveKind::ALL_TO_ALL, "all_at_once", "all-at-once"},
        {CollectiveKind::ALL_TO_ALL, "allatonce", "all-at-once"},
        {CollectiveKind::INCAST, "DIRECT", "direct"},
    };
    for (const Alias& x : aliases)
    {
        const std::string what = ToString(x.kind) + " " + x.given;
        EXPECT_EQ(CanonicalAlgorithm(x.kind, x.given, "--algorithm"), x.canonical) << what;
        // The closed form accepts the alias and prices the algorithm it names.
        CollectiveSpec alias = Spec(x.kind, x.given, 8, 241920);
        CollectiveSpec canonical = Spec(x.kind, x.canonical, 8, 241920);
        EXPECT_EQ(ClosedFormTime(alias, MicroSeconds(2), DataRate("800Gbps")),
                  ClosedFormTime(canonical, MicroSeconds(2), DataRate("800Gbps")))
            << what;
        // A spec to build must carry the canonical name (outputs print it).
        if (x.given != x.canonical)
        {
            EXPECT_THROW(alias.Validate(), InputError) << what;
        }
    }
    // Aliases belong to a collective: "tree" is broadcast's binomial, not an allgather.
    EXPECT_THROW(CanonicalAlgorithm(CollectiveKind::ALL_GATHER, "tree", "--algorithm"), InputError);
    EXPECT_THROW(CanonicalAlgorithm(CollectiveKind::INCAST, "all-at-once", "--algorithm"), InputError);
}

TEST_F(CollectiveAlgorithmRegistryTest, UnknownNameIsAnInputErrorListingTheKnownNames)
{
    for (const auto& documented : DOCUMENTED)
    {
        const auto& kind = documented.first; // a lambda cannot capture a structured binding (C++17)
        const auto& names = documented.second;
        // Before the registry the closed form priced an unknown allreduce as
        // hierarchical, an unknown alltoall as all-at-once and an unknown
        // broadcast as the ring; now every entry point refuses it the same way.
        CollectiveSpec spec = Spec(kind, "bogus", 8, 241920);
        const std::vector<std::function<void()>> uses = {
            [&] { CanonicalAlgorithm(kind, "bogus", "--algorithm"); },
            [&] { CriticalPath(spec); },
            [&] { ClosedFormTime(spec, MicroSeconds(2), DataRate("800Gbps")); },
            [&] { MinimumBytes(spec); },
            [&] { spec.Validate(); },
            [&] { BuildSchedule(spec); },
        };
        for (const auto& use : uses)
        {
            try
            {
                use();
                ADD_FAILURE() << ToString(kind) << ": 'bogus' was accepted";
            }
            catch (const InputError& e)
            {
                const std::string what = e.what();
                EXPECT_EQ(what.rfind("--algorithm: ", 0), 0u) << what;
                EXPECT_NE(what.find("'bogus'"), std::string::npos) << what;
                EXPECT_NE(what.find(ToString(kind)), std::string::npos) << what;
                for (const std::string& name : names)
                {
                    EXPECT_NE(what.find(name), std::string::npos) << what << " lacks " << name;
                }
                EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            }
        }
    }
    // The field is the caller's.
    try
    {
        CanonicalAlgorithm(CollectiveKind::ALL_TO_ALL, "tree", "scenario.algorithm");
        ADD_FAILURE() << "alltoall tree was accepted";
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  "scenario.algorithm: expected an algorithm of alltoall (pairwise, all-at-once, pxn), got 'tree'");
    }
}

TEST_F(CollectiveAlgorithmRegistryTest, ATakenNameOrAliasIsRefused)
{
    auto entry = [](const std::string& name, std::vector<std::string> aliases, CollectiveKind kind) {
        CollectiveAlgorithm a;
        a.name = name;
        a.aliases = std::move(aliases);
        a.collectives = {kind};
        a.minimumBytes = [](const CollectiveSpec&) { return uint64_t(1); };
        a.build = [](const CollectiveSpec& spec, uint64_t) { return CollectiveSchedule("test", spec.ranks); };
        a.criticalPath = [](const CollectiveSpec&, double) { return std::vector<CriticalStep>{}; };
        return a;
    };
    const size_t before = CollectiveAlgorithmRegistry::All().size();
    EXPECT_THROW(CollectiveAlgorithmRegistry::Register(entry("ring", {}, CollectiveKind::ALL_GATHER)),
                 std::logic_error);
    EXPECT_THROW(CollectiveAlgorithmRegistry::Register(entry("rabenseifner", {}, CollectiveKind::ALL_REDUCE)),
                 std::logic_error);
    EXPECT_THROW(CollectiveAlgorithmRegistry::Register(entry("new", {"Tree"}, CollectiveKind::BROADCAST)),
                 std::logic_error);
    EXPECT_THROW(CollectiveAlgorithmRegistry::Register(entry("Not-Normalized", {}, CollectiveKind::INCAST)),
                 std::logic_error);
    CollectiveAlgorithm incomplete = entry("new", {}, CollectiveKind::INCAST);
    incomplete.criticalPath = nullptr;
    EXPECT_THROW(CollectiveAlgorithmRegistry::Register(incomplete), std::logic_error);
    // Nothing refused was added.
    EXPECT_EQ(CollectiveAlgorithmRegistry::All().size(), before);
}
