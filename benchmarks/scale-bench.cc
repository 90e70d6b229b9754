// SPDX-License-Identifier: GPL-2.0-only
//
// How the packet level scales: one packet-level collective per case, run
// through RunComparison (backends = packet) exactly as `hockney compare` runs
// it, from one DGX H100 node to 1024 GPUs. Baseline, measured in the same
// run: ns-3's point-to-point chain (bench-chains.h), whose cost per
// packet-hop is what a hop costs with ns-3's cheapest devices.
//
//   build/bin/bench-scale-bench [--smoke] [--wall-limit=TIME] [--benchmark_*]
//   HOCKNEY_BENCH_SMOKE=1        same as --smoke: the 16-GPU cases and 1 MB on dgx-h100
//   HOCKNEY_BENCH_WALL_LIMIT=T   same as --wall-limit (default 600s; units ns us ms s min h, up to 168h)
//
// Cases: ring AllReduce of 1 MB, 64 MB and 1 GB on dgx-h100; pairwise
// AllToAll with 1 MB between every pair (bytes = ranks x 1 MB, nccl-tests'
// per-rank send buffer, collective-algorithms.h) on fat trees and
// rail-optimized H100 clusters of 16, 64, 256 and 1024 GPUs (past 256, in
// scalable units of 32 servers: topology-presets.h); the AllToAlls again in
// network transfer units of 64 KiB (alltoall-pairwise-unit64k/...).
//
// Each case runs in a child process (fork): its peak memory is its own
// (wait4's ru_maxrss), nothing it leaves behind slows the next case, and a case
// that outlives its limit is killed rather than hanging the suite. The packet
// run stops itself at the wall limit (ComparisonFabric::wallLimit); the child
// reports the progress lines of RunComparison, so a stopped or killed case
// still says how far it got.
//
// Counters of a case (absent when RunComparison's row does not carry them):
//   finished            1 if the collective completed, 0 if stopped or killed
//   fraction_done       messages delivered / messages of the schedule (coarse: a
//                       1 GB ring AllReduce on 8 GPUs is 112 messages; sim_s and
//                       data_hops say how far a stopped run got within them)
//   wall_s              wall time of the packet run (the row's, else the whole case's)
//   case_wall_s         wall time of the whole case (topology, models, packet run)
//   sim_s               simulated time reached
//   events, data_hops, control_hops, events_per_data_hop
//   ns_per_hop          wall_s / (data_hops + control_hops), in ns
//   data_hops_per_s     data_hops / wall_s (bench-run.py: / the baseline's hops_per_s)
//   peak_rss_bytes      peak resident memory of the packet run (the row's)
//   case_peak_rss_bytes peak resident memory of the whole case (the child's)
//   transfer_unit_bytes the row's transfer unit
//   network_transfer_unit_bytes the row's network transfer unit (the -unit64k cases)
#include "bench-chains.h"
#include "bench-smoke.h"

#include "collective-comparison.h"
#include "input-error.h"
#include "topology-presets.h"
#include "units.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <poll.h>
#include <regex>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kMB = 1000000; // hockney's MB (units.h): powers of 1000

struct ScaleCase
{
    std::string name;     ///< benchmark name after BM_Scale/
    std::string topology; ///< preset name
    CollectiveKind collective;
    std::string algorithm;
    uint32_t ranks; ///< the first `ranks` endpoints of the topology
    uint64_t bytes;
    bool smoke;     ///< part of --smoke
    /// --network-transfer-unit (ComparisonFabric::networkTransferUnitBytes):
    /// 0 = every MTU packet; the unit cases are separate, named "-unit64k".
    uint32_t networkUnit = 0;
};

std::vector<ScaleCase>
Cases()
{
    std::vector<ScaleCase> c;
    c.push_back({"allreduce-ring/dgx-h100/8gpu/1MB", "dgx-h100", CollectiveKind::ALL_REDUCE, "ring", 8, kMB, true});
    c.push_back({"allreduce-ring/dgx-h100/8gpu/64MB", "dgx-h100", CollectiveKind::ALL_REDUCE, "ring", 8, 64 * kMB,
                 false});
    c.push_back({"allreduce-ring/dgx-h100/8gpu/1GB", "dgx-h100", CollectiveKind::ALL_REDUCE, "ring", 8, 1000 * kMB,
                 false});
    // Pairwise AllToAll with 1 MB a pair, per MTU packet (16 GPUs: in the
    // smoke run) or in network transfer units of 64 KiB (several MTU packets
    // framed as one, doc/fabric.md): a separate case, not a default (its
    // error against the per-MTU run: benchmarks/README.md).
    auto alltoall = [](const std::string& topo, uint32_t gpus, bool inUnits) {
        ScaleCase s{std::string(inUnits ? "alltoall-pairwise-unit64k/" : "alltoall-pairwise/") + topo + "/" +
                        std::to_string(gpus) + "gpu/1MBpair",
                    topo, CollectiveKind::ALL_TO_ALL, "pairwise", gpus, uint64_t{gpus} * kMB,
                    gpus == 16 && !inUnits};
        s.networkUnit = inUnits ? 65536 : 0;
        return s;
    };
    // Fat trees hold k^3/4 hosts: k = 4 is 16 and k = 16 is 1024; 64 and 256
    // ranks take the first hosts of the smallest tree that holds them.
    // Rail-optimized H100 clusters: one leaf per rail holds 32 servers (256
    // GPUs) at 1:1; 1024 GPUs are four scalable units of 32, joined through
    // 16 spines (rail-h100-128n, the DGX SuperPOD's compute fabric).
    using Family = std::vector<std::pair<std::string, uint32_t>>; // topology, GPUs
    const Family trees{{"fat-tree-k4", 16}, {"fat-tree-k8", 64}, {"fat-tree-k12", 256}, {"fat-tree-k16", 1024}};
    const Family rails{{"rail-h100-2n", 16}, {"rail-h100-8n", 64}, {"rail-h100-32n", 256}, {"rail-h100-128n", 1024}};
    for (const Family* family : {&trees, &rails})
    {
        for (bool inUnits : {false, true})
        {
            for (const auto& [topo, gpus] : *family)
            {
                c.push_back(alltoall(topo, gpus, inUnits));
            }
        }
    }
    return c;
}

/// "1234/5678 messages delivered, simulated 90 us" (RunComparison's progress
/// lines and its wall-limit error) -> the numbers, into \p out.
void
ParseProgress(const std::string& text, nlohmann::json& out)
{
    static const std::regex delivered(R"((\d+)/(\d+) messages delivered)");
    static const std::regex simulated(R"(simulated (\d+) us)");
    std::smatch m;
    if (std::regex_search(text, m, delivered) && std::stod(m[2]) > 0)
    {
        out["fraction_done"] = std::stod(m[1]) / std::stod(m[2]);
    }
    if (std::regex_search(text, m, simulated))
    {
        out["sim_s"] = std::stod(m[1]) * 1e-6;
    }
}

void
WriteLine(int fd, const nlohmann::json& j)
{
    const std::string s = j.dump() + "\n";
    size_t off = 0;
    while (off < s.size())
    {
        ssize_t n = write(fd, s.data() + off, s.size() - off);
        if (n <= 0 && errno != EINTR)
        {
            return;
        }
        off += n > 0 ? size_t(n) : 0;
    }
}

/// The packet row's run statistics (RunComparison's packet rows carry
/// events, hops, wall and simulated time, peak RSS and status) into \p out.
void
ReadPacketRow(const std::vector<ResultRow>& rows, nlohmann::json& out)
{
    for (const ResultRow& row : rows)
    {
        if (!row.Has("backend") || row.GetString("backend") != "packet")
        {
            continue;
        }
        for (const char* key : {"events", "data_hops", "control_hops", "wall_s", "sim_s", "peak_rss_bytes",
                                "transfer_unit_bytes", "network_transfer_unit_bytes", "bytes_delivered"})
        {
            if (row.Has(key) && !std::holds_alternative<std::monostate>(row.Get(key)))
            {
                out[key] = row.GetDouble(key);
            }
        }
        if (!out.contains("sim_s") && row.Has("time_s") &&
            !std::holds_alternative<std::monostate>(row.Get("time_s")))
        {
            out["sim_s"] = row.GetDouble("time_s");
        }
        if (row.Has("status"))
        {
            out["status"] = row.GetString("status");
        }
    }
}

/// The child's half: runs the case and writes JSON lines to \p fd, progress
/// lines first, the result last.
[[noreturn]] void
RunCaseChild(const ScaleCase& sc, Time wallLimit, int fd)
{
    nlohmann::json result;
    const auto start = std::chrono::steady_clock::now();
    try
    {
        ComparisonConfig config;
        config.topologyName = sc.topology;
        config.topology = MakePreset(sc.topology);
        config.collective = sc.collective;
        config.algorithm = sc.algorithm;
        config.ranks = sc.ranks;
        config.sizes = {sc.bytes};
        config.backends = {"packet"};
        config.fabric.wallLimit = wallLimit;
        config.fabric.networkTransferUnitBytes = sc.networkUnit;
        ValidateComparison(config);
        auto rows = RunComparison(config, [fd](const std::string& line) {
            nlohmann::json p;
            ParseProgress(line, p);
            p["progress"] = line;
            WriteLine(fd, p);
        });
        ReadPacketRow(rows, result);
        result["finished"] = 1;
        result["fraction_done"] = 1.0;
    }
    catch (const PacketRunStopped& e)
    {
        // Stopped at the wall limit: the rows say what the run did, the
        // message how many of the schedule's messages were delivered.
        ReadPacketRow(e.Rows(), result);
        result["finished"] = 0;
        result["stopped"] = e.what();
        nlohmann::json progress;
        ParseProgress(e.what(), progress);
        if (progress.contains("fraction_done"))
        {
            result["fraction_done"] = progress["fraction_done"];
        }
    }
    catch (const std::exception& e)
    {
        result["error"] = e.what();
    }
    result["case_wall_s"] = bench::SecondsSince(start);
    WriteLine(fd, result);
    close(fd);
    // No destructors, no atexit: the parent owns the process's shared state.
    _exit(0);
}

/// The parent's half: the last JSON line the child wrote (its result, or its
/// last progress line if it was killed), its peak memory, and whether it was
/// killed at \p hardLimit.
struct ChildOutcome
{
    nlohmann::json last;
    bool gotResult = false;
    bool killed = false;
    int status = 0; ///< wait4's status
    double peakRssBytes = 0;
};

ChildOutcome
WatchChild(pid_t pid, int fd, double hardLimitSeconds)
{
    ChildOutcome out;
    std::string buffer;
    const auto start = std::chrono::steady_clock::now();
    bool open = true;
    while (open)
    {
        const double left = hardLimitSeconds - bench::SecondsSince(start);
        if (left <= 0)
        {
            kill(pid, SIGKILL);
            out.killed = true;
            break;
        }
        pollfd p{fd, POLLIN, 0};
        const int ready = poll(&p, 1, int(std::min(left, 1.0) * 1000) + 1);
        if (ready <= 0)
        {
            continue;
        }
        char chunk[4096];
        const ssize_t n = read(fd, chunk, sizeof chunk);
        if (n <= 0)
        {
            open = n < 0 && errno == EINTR;
            continue;
        }
        buffer.append(chunk, size_t(n));
        for (size_t nl; (nl = buffer.find('\n')) != std::string::npos; buffer.erase(0, nl + 1))
        {
            auto j = nlohmann::json::parse(buffer.substr(0, nl), nullptr, false);
            if (j.is_discarded())
            {
                continue;
            }
            if (j.contains("progress"))
            {
                std::cerr << "progress: " << j["progress"].get<std::string>() << "\n";
            }
            else
            {
                out.gotResult = true;
            }
            out.last = j;
        }
    }
    close(fd);
    rusage usage{};
    while (wait4(pid, &out.status, 0, &usage) < 0 && errno == EINTR)
    {
    }
    out.peakRssBytes = double(usage.ru_maxrss) * 1024.0; // Linux: kilobytes
    return out;
}

void
BM_Scale(benchmark::State& state, ScaleCase sc, Time wallLimit)
{
    for (auto _ : state)
    {
        int fds[2];
        if (pipe(fds) != 0)
        {
            state.SkipWithError("pipe() failed");
            break;
        }
        std::cout.flush();
        std::cerr.flush();
        const pid_t pid = fork();
        if (pid < 0)
        {
            state.SkipWithError("fork() failed");
            break;
        }
        if (pid == 0)
        {
            close(fds[0]);
            RunCaseChild(sc, wallLimit, fds[1]);
        }
        close(fds[1]);
        // The packet run stops itself at the wall limit; building the topology
        // and the flow model come on top, so the child gets as long again and a
        // minute before it is killed.
        const double hardLimit = 2 * wallLimit.GetSeconds() + 60;
        ChildOutcome c = WatchChild(pid, fds[0], hardLimit);
        nlohmann::json& r = c.last;
        if (c.gotResult && r.contains("error"))
        {
            state.SkipWithError(r["error"].get<std::string>().c_str());
            break;
        }
        if (!c.gotResult && !c.killed)
        {
            const std::string how = WIFSIGNALED(c.status) ? "signal " + std::to_string(WTERMSIG(c.status))
                                                          : "status " + std::to_string(WEXITSTATUS(c.status));
            state.SkipWithError(("the case's process ended with " + how + " before its result").c_str());
            break;
        }
        if (c.killed)
        {
            r["finished"] = 0;
            r["case_wall_s"] = hardLimit;
            state.counters["killed"] = 1;
        }
        const double caseWall = r.value("case_wall_s", 0.0);
        const double wall = r.value("wall_s", caseWall);
        state.SetIterationTime(wall);
        for (const char* key : {"finished", "fraction_done", "sim_s", "events", "data_hops",
                                "control_hops", "transfer_unit_bytes", "network_transfer_unit_bytes",
                                "bytes_delivered"})
        {
            if (r.contains(key) && r[key].is_number())
            {
                state.counters[key] = r[key].get<double>();
            }
        }
        state.counters["wall_s"] = wall;
        state.counters["case_wall_s"] = caseWall;
        // Two peaks: the row's covers the packet run only (RunComparison
        // resets the high-water mark when the run starts); the child's covers
        // the whole case, topology, schedule checks and flow model included,
        // which is what a machine must hold.
        if (r.contains("peak_rss_bytes"))
        {
            state.counters["peak_rss_bytes"] = r["peak_rss_bytes"].get<double>();
        }
        state.counters["case_peak_rss_bytes"] = c.peakRssBytes;
        state.counters["ranks"] = sc.ranks;
        state.counters["bytes"] = double(sc.bytes);
        if (r.contains("events") && r.contains("data_hops") && r["data_hops"].get<double>() > 0)
        {
            state.counters["events_per_data_hop"] = r["events"].get<double>() / r["data_hops"].get<double>();
        }
        // The end-to-end goal of issue 9 ("per data packet-hop >= 2x ns-3
        // point-to-point in the same run"): payload hops per second of the
        // packet run; bench-run.py divides it by the baseline's hops_per_s.
        if (r.contains("data_hops") && r.contains("wall_s") && wall > 0)
        {
            state.counters["data_hops_per_s"] = r["data_hops"].get<double>() / wall;
        }
        if (r.contains("data_hops") && r.contains("control_hops") && r.contains("wall_s"))
        {
            const double hops = r["data_hops"].get<double>() + r["control_hops"].get<double>();
            if (hops > 0)
            {
                state.counters["ns_per_hop"] = wall * 1e9 / hops;
            }
        }
        if (r.contains("stopped"))
        {
            state.SetLabel(r["stopped"].get<std::string>());
        }
        else if (c.killed)
        {
            state.SetLabel("killed after " + std::to_string(int(hardLimit)) + " s");
        }
    }
}

/// The baseline: ns-3 point-to-point cost per packet-hop, 4 forwarding nodes.
void
BM_ScaleBaselinePointToPoint(benchmark::State& state)
{
    bench::TimeChainRuns(state, 4, state.range(0), bench::RunPointToPointChain);
}

/**
 * The same baseline at a topology's size: range(0) chains of 4 forwarding
 * nodes side by side (10 devices each), 50 packets a chain, all forwarding
 * at once, so each hop's device is one of as many as the fabric case's ports
 * and misses the caches as often as their number makes it. The cost per hop
 * of ns-3's own device as the working set grows: what "flat in N" can mean
 * on this machine (benchmarks/README.md, "Port fields in hop order; cost
 * per hop against size").
 */
void
BM_ScaleBaselinePointToPointWide(benchmark::State& state)
{
    constexpr uint32_t kMiddles = 4; // forwarding nodes a chain: 5 links, 10 devices
    const auto chains = uint32_t(state.range(0));
    bench::TimeChainRuns(state, kMiddles, 50 * chains,
                         [chains](uint32_t middles, uint32_t packets) {
                             return bench::RunPointToPointChains(chains, middles, packets);
                         });
    state.counters["devices"] = 2.0 * (kMiddles + 1) * chains;
}

/// --wall-limit=TIME or HOCKNEY_BENCH_WALL_LIMIT; the flag is removed from argv.
Time
TakeWallLimit(int& argc, char** argv)
{
    std::string text = "600s";
    std::string field = "--wall-limit";
    if (const char* env = std::getenv("HOCKNEY_BENCH_WALL_LIMIT"); env && *env)
    {
        text = env;
        field = "HOCKNEY_BENCH_WALL_LIMIT";
    }
    int out = 1;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (a.rfind("--wall-limit=", 0) == 0)
        {
            text = a.substr(13);
            field = "--wall-limit";
        }
        else
        {
            argv[out++] = argv[i];
        }
    }
    argc = out;
    const Time t = units::ParseWallClockLimit(text, field);
    if (!t.IsStrictlyPositive())
    {
        throw InputError(field, "expected a wall-clock time > 0, got '" + text + "'");
    }
    return t;
}

} // namespace

int
main(int argc, char** argv)
{
    bench::EnsurePicoseconds();
    const bool smoke = bench::TakeSmokeFlag(argc, argv);
    Time wallLimit;
    try
    {
        wallLimit = TakeWallLimit(argc, argv);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << e.what() << "\n";
        return 2;
    }
    benchmark::RegisterBenchmark("BM_ScaleBaselinePointToPoint", BM_ScaleBaselinePointToPoint)
        ->Arg(smoke ? 2000 : 20000)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    // Ports of fat-tree-k4 / k8 / k12 / k16 (96, 768, 2592, 6144) over 10.
    for (const int chains : {10, 77, 259, 614})
    {
        if (smoke && chains > 10)
        {
            continue;
        }
        benchmark::RegisterBenchmark("BM_ScaleBaselinePointToPointWide", BM_ScaleBaselinePointToPointWide)
            ->Arg(chains)
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
    }
    for (const ScaleCase& sc : Cases())
    {
        if (smoke && !sc.smoke)
        {
            continue;
        }
        benchmark::RegisterBenchmark(("BM_Scale/" + sc.name).c_str(), BM_Scale, sc, wallLimit)
            ->Iterations(1)
            ->UseManualTime()
            ->Unit(benchmark::kSecond);
    }
    return bench::RunRegistered(argc, argv);
}
