// SPDX-License-Identifier: GPL-2.0-only
//
// NVLSTree: NCCL's AllReduce across NVSwitch servers (NCCL_ALGO_NVLS_TREE,
// src/device/all_reduce.h; learnt from, not copied). Inside each server the
// NVSwitch reduces and multicasts (NVLS), between servers a tree over the
// servers' NICs carries what the switch reduced:
//   1. reduce-scatter in the switch: every GPU of the server sends its copy
//      of the piece up, the switch adds the G copies and the piece's head
//      GPU receives the server's sum (NCCL's scatter warps and the head's
//      multimem load-reduce);
//   2. up the tree: each head adds its children servers' sums to its own and
//      sends the result to its parent server's head (NCCL's "reduce, send
//      to network": treeDown -> treeUp), the root's head ends with the total;
//   3. down the tree: the total goes back from head to head (NCCL's "recv
//      from network, broadcast");
//   4. multicast in the switch: each head sends the total up once and the
//      switch copies it to the server's G GPUs, the head's own included
//      (NCCL's multimem store writes every member's buffer).
// NCCL splits each of its channels' data over nHeads heads (one per NIC);
// here a schedule channel is one head's share: channel c's head is the GPU
// on rail c mod R (R rails = GPUs a server), so with as many channels as
// rails (the published cases' 8) every NIC heads one channel, each link
// carries what it does in NCCL (a GPU's NVLink M + M/G each way, a NIC M/G
// each way on a leaf), and a channel's closed form prices one NIC alone.
// Fewer channels than rails use fewer NICs (NCCL would still use them all).
// NCCL's tree of an NVLS channel is the channel's tree of the double binary
// tree (connect.cc), and every head hosts channels of both trees. Here a
// schedule channel's chunks alternate between the two trees (chunk q of
// channel c on tree (c + q) mod 2), each tree's chunks a pipeline of their
// own (NCCL's channels of the two trees have their own warps and
// connections) sharing the ports: a server's NIC is interior in one tree and
// a leaf in the other, as in NCCL. (One tree a channel loaded an interior
// NIC with 3 pieces a chunk each way: 1.5 x NCCL's.)
//
// Pipelining (NCCL's scatter, reduce, broadcast and gather warps work on
// successive chunks at once): the channel is cut into chunks, each a stage
// per step (reduce-scatter, each tree hop up and down, multicast), a stage
// holding one chunk at a time. compare's runs (CollectiveSpec::chunkBytes
// set) cut it in NCCL's chunks: NCCL moves, each loop, one NVLSTree chunk of
// every one of its 16 NVLS channels on every head (enqueue.cc: 128 KiB, at
// most 64 KiB from 4 nodes on, 64 KiB under 4 such loops, 32 KiB under one),
// so a schedule channel's chunk is one tree's share of those (16 x R / C / 2
// chunks; 1 MiB at 64 MiB on 2 x 8 GPUs, 8 channels: NCCL's 4 loops, 4
// chunks a tree), at most kMaxPipelineChunks and at least spec.slices; with
// chunkBytes 0 (the library's default) spec.slices. The few loops are the
// pipeline's fill that the measured 2-node curve shows as a fixed cost.
//
// Closed form (one channel of M bytes, S chunks, D the depth of the server
// trees, G > 1 GPUs a server, C channels): 2 + 2D equal steps of m = M/S,
// the switch's two on level 0 and the 2D hops on level 1, as a flow shop of
// P = ceil(S/2) chunks a tree, each stage priced at its busiest port's load
// once full (CriticalStep::load; the two trees' pipelines side by side):
//     T = 2 T_0(m) + 2D T_1(m) - T_b(m) + P x T_b,loaded,
//     T_b,loaded = max(T_0(L_0 m), L_1 T_1(m)) the slowest stage b, loaded
//     (every chunk through it at its loaded time, the first too),
//     L_0 = 2 (C + ceil(C/G))   a GPU's switch port: its copy of every
//                               channel's chunk, the multicast of those it heads
//     L_1 = 2 ceil(C/G) F_K      the busiest NIC: F_K = NvlsTreeNicLoad(K), its
//                               mean pieces a chunk each way over the two trees
//                               (1 on 2 servers, 2 on 4 and 8)
// (level 0 streams, T(L m); across nodes each piece is a message with its
// latency, L x T(m)). On the contention-free channel (no port shared) the
// loads are 1: 2 T_0(m) + 2D T_1(m) + (P - 1) max(T_0(m), T_1(m)).
// G = 1: the tree alone (2D steps); one server (K = 1): the switch's two.
#include "collective-algorithm-blocks.h"
#include "collective-algorithm-registry.h"
#include "collective-ring-layout.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{

using namespace collective;

/// NCCL_NVLS_CHUNKSIZE's default (src/transport/nvls.cc): 128 KiB.
constexpr uint64_t kNvlsChunkBytes = 131072;
/// NCCL's NVLS channels on Hopper (NCCL_NVLS_NCHANNELS' default for SM90,
/// src/transport/nvls.cc): 16, each split over every head of a server.
constexpr uint64_t kNvlsChannels = 16;

/// NCCL's NVLSTree chunk of a collective of \p bytes on \p servers servers
/// of \p heads heads (enqueue.cc's chunk sizing for NVLS_TREE): the NVLS
/// chunk, at most 64 KiB from 4 nodes on, halved to 64 KiB while the
/// collective is under 4 loops of every channel's and head's chunk
/// (nvlsChannels x heads x chunk) and to 32 KiB under one.
uint64_t
NcclNvlsTreeChunk(uint64_t bytes, uint32_t servers, uint32_t heads)
{
    uint64_t chunk = servers >= 4 ? std::min<uint64_t>(kNvlsChunkBytes, 65536) : kNvlsChunkBytes;
    const uint64_t ops = kNvlsChannels * heads;
    if (bytes < 4 * ops * chunk && chunk > 65536)
    {
        chunk = 65536;
    }
    if (bytes < ops * chunk && chunk > 32768)
    {
        chunk = 32768;
    }
    return chunk;
}

/// The chunks a channel of \p m bytes is pipelined in.
uint32_t NvlsTreeChunks(const CollectiveSpec& spec, double m);

/// The chunks that follow each other through one tree's pipeline: chunks
/// alternate between the two trees, each tree's a pipeline of its own.
uint32_t
NvlsTreeDepth(const CollectiveSpec& spec, double m)
{
    return (NvlsTreeChunks(spec, m) + 1) / 2;
}

uint32_t
NvlsTreeChunks(const CollectiveSpec& spec, double m)
{
    uint32_t chunks = spec.slices;
    if (spec.chunkBytes > 0)
    {
        // NCCL moves every channel's and head's chunk of a loop at once: a
        // schedule channel stands for nvlsChannels x R / C NCCL channel
        // heads, half of them on each tree, so one of its chunks (one tree's)
        // is that half's chunks together: at 64 MiB on 2 x 8 GPUs, 8 channels,
        // 8 x 128 KiB = 1 MiB, 8 chunks a channel, 4 loops as NCCL's.
        const RankPlacement pl = PlacementOf(spec);
        const double streams =
            std::max(1.0, static_cast<double>(kNvlsChannels) * pl.rails / (2.0 * std::max<uint32_t>(1, spec.channels)));
        const double piece = streams * static_cast<double>(NcclNvlsTreeChunk(spec.bytes, pl.servers, pl.rails));
        const double wanted = std::ceil(m / piece);
        // Every message keeps at least one byte: m >= chunks.
        const double most = std::min<double>(kMaxPipelineChunks, std::floor(m));
        chunks = std::max(chunks, static_cast<uint32_t>(std::max(1.0, std::min(wanted, most))));
    }
    return chunks;
}

/// The server tree channel \p channel takes (tree channel mod 2 of the
/// double binary tree over \p servers): parents over the servers.
std::vector<int>
ServerTree(uint32_t servers, uint32_t channel)
{
    return DoubleBinaryTreeParents(servers)[channel % 2];
}

CollectiveSchedule
NvlsTreeAllReduce(const CollectiveSpec& spec, uint64_t bytes)
{
    const RankPlacement pl = PlacementOf(spec);
    const uint32_t g = pl.rails;
    const uint32_t k = pl.servers;
    const uint32_t rail = spec.channel % g;
    const uint32_t chunks = NvlsTreeChunks(spec, static_cast<double>(bytes));
    CollectiveSchedule sched("nvls-tree allreduce", spec.ranks);
    const std::vector<uint64_t> sizes = SplitBytes(bytes, chunks);
    std::vector<uint32_t> chunk(chunks);
    for (uint32_t q = 0; q < chunks; ++q)
    {
        chunk[q] = sched.AddChunk(sizes[q]);
    }
    EveryRankContributesAndNeedsAll(sched, spec.ranks);

    // The two trees of the double binary tree over the servers (equal
    // depths: tree 1 is tree 0 relabelled); chunk q takes tree (channel + q)
    // mod 2.
    struct Tree
    {
        std::vector<int> parent;
        std::vector<std::vector<uint32_t>> children;
        std::vector<uint32_t> depth;
        std::vector<uint32_t> byDepth; // deepest first: children before parents
        uint32_t root = 0;
    };
    std::vector<Tree> trees(2);
    for (uint32_t t = 0; t < 2; ++t)
    {
        Tree& tr = trees[t];
        tr.parent = ServerTree(k, t);
        tr.children.assign(k, {});
        tr.depth.assign(k, 0);
        for (uint32_t s = 0; s < k; ++s)
        {
            if (tr.parent[s] < 0)
            {
                tr.root = s;
            }
            else
            {
                tr.children[tr.parent[s]].push_back(s);
            }
            for (int u = tr.parent[s]; u >= 0; u = tr.parent[u])
            {
                ++tr.depth[s];
            }
        }
        tr.byDepth = AllRanks(k);
        std::stable_sort(tr.byDepth.begin(), tr.byDepth.end(), [&tr](uint32_t a, uint32_t b) {
            return tr.depth[a] > tr.depth[b];
        });
    }
    const uint32_t d = TreeDepth(trees[0].parent);
    std::vector<uint32_t> head(k);
    for (uint32_t s = 0; s < k; ++s)
    {
        head[s] = pl.RankOn(s, rail);
    }

    // The chunks on each tree form a pipeline of their own (NCCL: the
    // channels of tree 0 and those of tree 1 have their own warps and
    // connections), sharing the ports: per tree,
    uint32_t group = 0;
    std::vector<std::vector<uint32_t>> rsOf(2, std::vector<uint32_t>(k, kNoOp));   // reduce-scatter into each head (one op of its group)
    std::vector<std::vector<uint32_t>> mcOf(2, std::vector<uint32_t>(k, kNoOp));   // multicast of each server
    std::vector<std::vector<uint32_t>> upOf(2, std::vector<uint32_t>(k, kNoOp));   // head s -> parent's head
    std::vector<std::vector<uint32_t>> downOf(2, std::vector<uint32_t>(k, kNoOp)); // parent's head -> head s
    for (uint32_t q = 0; q < chunks; ++q)
    {
        const std::vector<uint32_t> c{chunk[q]};
        const uint32_t t = (spec.channel + q) % 2;
        const Tree& tr = trees[t];
        std::vector<uint32_t>& rs = rsOf[t];
        std::vector<uint32_t>& mc = mcOf[t];
        std::vector<uint32_t>& up = upOf[t];
        std::vector<uint32_t>& down = downOf[t];
        const std::vector<int>& parent = tr.parent;
        const std::vector<std::vector<uint32_t>>& children = tr.children;
        const std::vector<uint32_t>& depth = tr.depth;
        const std::vector<uint32_t>& byDepth = tr.byDepth;
        const uint32_t root = tr.root;
        // 1. Reduce-scatter: every GPU of the server (the head too) into the head.
        if (g > 1)
        {
            for (uint32_t s = 0; s < k; ++s)
            {
                std::vector<uint32_t> deps;
                if (rs[s] != kNoOp)
                {
                    deps.push_back(rs[s]); // the previous chunk's sum is out: one slot
                }
                uint32_t last = kNoOp;
                for (uint32_t r = 0; r < g; ++r)
                {
                    last = sched.AddSwitchOp(pl.RankOn(s, r), head[s], c, group, deps, 0);
                }
                ++group;
                rs[s] = last;
            }
        }
        // 2. Up the server tree, children first.
        std::vector<uint32_t> prevUp = up;
        for (uint32_t s : byDepth)
        {
            if (s == root)
            {
                continue;
            }
            std::vector<uint32_t> deps;
            if (rs[s] != kNoOp)
            {
                deps.push_back(rs[s]);
            }
            for (uint32_t ch : children[s])
            {
                deps.push_back(up[ch]);
            }
            if (prevUp[s] != kNoOp)
            {
                deps.push_back(prevUp[s]);
            }
            up[s] = sched.AddOp(head[s], head[parent[s]], c, true, deps, 1 + d - depth[s]);
        }
        // What the root's head waits for to hold the total.
        std::vector<uint32_t> total;
        if (rs[root] != kNoOp)
        {
            total.push_back(rs[root]);
        }
        for (uint32_t ch : children[root])
        {
            total.push_back(up[ch]);
        }
        // 3. Down the server tree, parents first.
        std::vector<uint32_t> prevDown = down;
        for (auto it = byDepth.rbegin(); it != byDepth.rend(); ++it)
        {
            const uint32_t s = *it;
            if (s == root)
            {
                continue;
            }
            const auto u = static_cast<uint32_t>(parent[s]);
            std::vector<uint32_t> deps = u == root ? total : std::vector<uint32_t>{down[u]};
            if (prevDown[s] != kNoOp)
            {
                deps.push_back(prevDown[s]);
            }
            down[s] = sched.AddOp(head[u], head[s], c, false, deps, d + depth[s]);
        }
        // 4. Multicast: the head's total to every GPU of the server, itself
        // included (a multimem store reaches every member).
        if (g > 1)
        {
            for (uint32_t s = 0; s < k; ++s)
            {
                std::vector<uint32_t> deps = s == root ? total : std::vector<uint32_t>{down[s]};
                if (mc[s] != kNoOp)
                {
                    deps.push_back(mc[s]);
                }
                for (uint32_t r = 0; r < g; ++r)
                {
                    mc[s] = sched.AddSwitchOp(head[s], pl.RankOn(s, r), c, group, deps, 2 * d + 1);
                }
                ++group;
            }
        }
    }
    return sched;
}

} // namespace

double
collective::NvlsTreeNicLoad(uint32_t servers)
{
    // Per chunk a server's NIC receives one piece from each child (up) and
    // one from its parent (down), and sends as many (up to the parent, down
    // to each child): children + (parent ? 1 : 0) pieces each way in a
    // tree. Chunks alternate between the two trees, so the NIC's mean load
    // per chunk is the mean over the two trees; the busiest server's is the
    // load. (2 servers: a chain in both trees, 1; 4 and 8: interior in one
    // tree (3), leaf in the other (1), 2.)
    const std::vector<std::vector<int>> trees = DoubleBinaryTreeParents(servers);
    double busiest = 0;
    for (uint32_t s = 0; s < servers; ++s)
    {
        double pieces = 0;
        for (const std::vector<int>& parent : trees)
        {
            pieces += parent[s] >= 0 ? 1 : 0;
            pieces += static_cast<double>(std::count(parent.begin(), parent.end(), static_cast<int>(s)));
        }
        busiest = std::max(busiest, pieces / 2);
    }
    return busiest;
}

namespace
{

std::vector<CriticalStep>
NvlsTreePath(const CollectiveSpec& spec, double m)
{
    const RankPlacement pl = PlacementOf(spec);
    // Both trees have the same depth (tree 1 is tree 0 relabelled).
    const uint32_t d = TreeDepth(ServerTree(pl.servers, 0));
    const double piece = m / NvlsTreeChunks(spec, m);
    const uint32_t inSwitch = pl.rails > 1 ? 1 : 0;
    // The ports' loads once the pipeline is full (CriticalStep::load). A
    // GPU's port into the switch carries its contribution to every
    // channel's reduce-scatter and, as the head of ceil(C / R) channels,
    // their multicast's copy up: C + ceil(C / R) pieces a chunk. A NIC
    // heads ceil(C / R) channels, each at the tree's fan-in
    // (NvlsTreeNicLoad).
    // The two trees' pipelines run side by side: per stage time each puts
    // a chunk through the ports, 2 x those loads (one chunk alone: one tree).
    const double pipelines = NvlsTreeChunks(spec, m) > 1 ? 2.0 : 1.0;
    const double headed = std::ceil(static_cast<double>(spec.channels) / pl.rails);
    const double switchLoad = pipelines * (static_cast<double>(spec.channels) + headed);
    const double nicLoad = pipelines * headed * (pl.servers > 1 ? NvlsTreeNicLoad(pl.servers) : 1.0);
    std::vector<CriticalStep> path = EqualSteps(inSwitch, 0, piece);
    std::vector<CriticalStep> hops = EqualSteps(2 * d, 1, piece);
    for (CriticalStep& h : hops)
    {
        h.load = nicLoad;
    }
    path.insert(path.end(), hops.begin(), hops.end());
    path.insert(path.end(), inSwitch, CriticalStep{0, piece});
    for (CriticalStep& st : path)
    {
        if (st.level == 0)
        {
            st.load = switchLoad;
        }
    }
    return path;
}

CollectiveAlgorithm
NvlsTree()
{
    CollectiveAlgorithm a;
    a.name = "nvls-tree";
    a.aliases = {"nvlstree"};
    a.collectives = {CollectiveKind::ALL_REDUCE};
    a.order = 5;
    a.usesNodes = true;
    a.minimumBytes = [](const CollectiveSpec& spec) { return PipelinePieces(spec); };
    a.build = NvlsTreeAllReduce;
    a.criticalPath = NvlsTreePath;
    a.pipelineDepth = NvlsTreeDepth;
    a.validate = CheckWholeServers;
    return a;
}

const CollectiveAlgorithmRegistration kNvlsTreeRegistration(NvlsTree());

} // namespace

} // namespace ns3
