// SPDX-License-Identifier: GPL-2.0-only
//
// Resource sense of packet runs (contrib/collective/doc/collective.md,
// "Resources"): the estimate against measured runs, the refusal of a run
// that would not fit in memory and --force-memory, Ctrl-C / SIGTERM (exit
// 130 with every row), and a run that does not finish in simulated time
// (exit 4, not an internal error).
#include "cli-runner.h"

#include <chrono>
#include <csignal>
#include <regex>
#include <thread>

namespace
{

using hockney::CliResult;
using hockney::RunHockney;

struct Estimate
{
    double events = 0;
    double memoryBytes = 0;
    double dataHops = 0;
    double controlHops = 0;
};

/// The numbers of the "packet run estimate: ..." line of \p err.
Estimate
ParseEstimate(const std::string& err)
{
    static const std::regex re(R"(packet run estimate: (\S+) events, (\S+) (MB|GB), .*messages, (\S+) data hops, )"
                               R"((\S+) control hops)");
    std::smatch m;
    Estimate e;
    if (!std::regex_search(err, m, re))
    {
        ADD_FAILURE() << "no estimate line in: " << err;
        return e;
    }
    e.events = std::stod(m[1]);
    e.memoryBytes = std::stod(m[2]) * (m[3] == "GB" ? 1e9 : 1e6);
    e.dataHops = std::stod(m[4]);
    e.controlHops = std::stod(m[5]);
    return e;
}

/// \p a / \p b within [1/f, f].
void
ExpectWithinFactor(double estimate, double measured, double f, const std::string& what)
{
    ASSERT_GT(measured, 0) << what;
    EXPECT_LE(estimate / measured, f) << what << ": estimate " << estimate << ", measured " << measured;
    EXPECT_GE(estimate / measured, 1 / f) << what << ": estimate " << estimate << ", measured " << measured;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOCKNEY_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(HOCKNEY_TEST_UNDER_ASAN)
constexpr bool kUnderAddressSanitizer = true; // the sanitized tree (README, "Testing")
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

TEST(ResourcesCli, EstimateMatchesMeasuredRuns)
{
    // Three small real runs of different shape: NVLink ring (credit flow
    // control, 4 KiB units), a fat tree AllToAll (every pair, ECMP), a RoCE
    // incast (PFC, DCQCN). Data hops are counted, not fitted (packets per
    // message from the NIC's MTU x the route's hops, plus RTS/CTS): within
    // 10 % (the partial last packet of each pipeline chunk and retransmits
    // are the difference; measured 0.1-1.3 % off on these runs). Events and
    // memory come from constants fitted over 25 runs on one machine (events
    // within 0.65-1.23 there, memory 0.60-1.14): within a factor 2, which leaves room for another
    // machine's allocator and libraries but still catches a count off by a
    // factor (a hop or a message type forgotten).
    for (const std::string args :
         {"--topology=dgx-h100 --collective=allreduce --algorithm=ring --bytes=1MB",
          "--topology=fat-tree-k4 --collective=alltoall --algorithm=all-at-once --bytes=1MB",
          "--topology=roce-leafspine --collective=incast --bytes=1MB"})
    {
        CliResult r = RunHockney("compare --backends=packet --format=json " + args);
        ASSERT_EQ(r.status, 0) << args << "\n" << r.err;
        const Estimate e = ParseEstimate(r.err);
        const auto row = nlohmann::json::parse(r.out)["rows"][0];
        ExpectWithinFactor(e.dataHops, row["data_hops"].get<double>(), 1.1, args + " data hops");
        ExpectWithinFactor(e.events, row["events"].get<double>(), 2, args + " events");
        if (!kUnderAddressSanitizer)
        {
            // ASan's shadow memory, redzones and quarantine multiply the
            // resident set; the estimate is of the plain build's.
            ExpectWithinFactor(e.memoryBytes, row["peak_rss_bytes"].get<double>(), 2, args + " peak memory");
        }
    }
}

TEST(ResourcesCli, EstimateSendsNcclEndpointsMessagesEager)
{
    // With an NCCL protocol the packet run's endpoints send every message
    // eager (ConfigurePacket, kNcclEagerLimit): no RTS and CTS, whatever
    // RdmaEndpoint::EagerLimit's default (8 KiB). By hand: dgx-h100 ring
    // AllReduce of 128 KB is 2 x 7 x 8 = 112 messages of 16 000 B, in NVLink
    // transfer units of 4096 B over 2 hops (GPU - NVSwitch - GPU). Simple
    // puts 16 000 B on the wire, 4 packets: 896 data hops; LL128 (120 B of
    // data a 128 B line) 17 067 B, 5 packets: 1120; LL (4 B a 8 B flag
    // word) 32 000 B, 8 packets: 1792. A rendezvous would add 2 packets a
    // message (1344 for Simple). The run counts the same exactly; the
    // estimate line prints two digits, so within 5 % of the count.
    for (const auto& [protocol, hops] :
         std::vector<std::pair<std::string, double>>{{"simple", 896}, {"ll128", 1120}, {"ll", 1792}})
    {
        CliResult r = RunHockney("compare --backends=packet --format=json --topology=dgx-h100 "
                                 "--collective=allreduce --algorithm=ring --bytes=128KB --protocol=" +
                                 protocol);
        ASSERT_EQ(r.status, 0) << protocol << "\n" << r.err;
        const Estimate e = ParseEstimate(r.err);
        EXPECT_NEAR(e.dataHops, hops, 0.05 * hops) << protocol;
        const auto row = nlohmann::json::parse(r.out)["rows"][0];
        EXPECT_EQ(row["data_hops"].get<double>(), hops) << protocol;
    }
}

TEST(ResourcesCli, HugeRunIsRefusedBeforeItStarts)
{
    // 1024 GPUs, AllToAll of 1 GB per pair (bytes = ranks x 1 GB): 1 047 552
    // messages between 523 776 pairs, at 1.89 kB a pair 0.99 GB by the
    // per-pair cost alone (1.1 GB with the 1 344 nodes; a run of this
    // shape peaks at 1.1 GB), over the 512 MB this test says are available
    // (HOCKNEY_MEMORY_AVAILABLE, so that the machine's memory does not matter).
    CliResult r = RunHockney("compare --backends=packet --topology=fat-tree-k16 --collective=alltoall "
                             "--algorithm=pairwise --bytes=1024GB",
                             "HOCKNEY_MEMORY_AVAILABLE=512MB");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--force-memory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is estimated at 1.1 GB"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("more than the 512 MB of memory available"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(ResourcesCli, ForceMemoryStartsTheRun)
{
    // 64 ranks of fat-tree-k8, 1 GB per pair: about 39 MB estimated (208
    // nodes, 2016 pairs: 17.8 + 17.0 + 3.8 MB), over 32 MB: refused; forced, it starts and the
    // wall limit of 0 s stops it at its first check (exit 3).
    const std::string run = "compare --backends=packet --topology=fat-tree-k8 --ranks=64 --collective=alltoall "
                            "--algorithm=pairwise --bytes=64GB --wall-limit=0s --format=json";
    CliResult refused = RunHockney(run, "HOCKNEY_MEMORY_AVAILABLE=32MB");
    EXPECT_EQ(refused.status, 2) << refused.err;
    EXPECT_NE(refused.err.find("--force-memory"), std::string::npos) << refused.err;
    CliResult forced = RunHockney(run + " --force-memory", "HOCKNEY_MEMORY_AVAILABLE=32MB");
    EXPECT_EQ(forced.status, 3) << forced.err;
    EXPECT_NE(forced.err.find("packet run estimate:"), std::string::npos) << forced.err;
    const auto rows = nlohmann::json::parse(forced.out)["rows"];
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["status"], "stopped-at-wall-limit");
    // A size that is not a size in the override is bad input naming it.
    hockney::CliResult bad = RunHockney(run, "HOCKNEY_MEMORY_AVAILABLE=lots");
    EXPECT_EQ(bad.status, 2) << bad.err;
    EXPECT_NE(bad.err.find("HOCKNEY_MEMORY_AVAILABLE"), std::string::npos) << bad.err;
}

/// Starts `hockney ARGS` in the background, waits until its stderr holds
/// \p marker (at most \p timeout), sends \p signal and returns the result.
CliResult
RunAndSignal(const std::string& args, const std::string& marker, int signal, std::chrono::seconds timeout)
{
    const std::string base = hockney::TempPath("signal");
    const pid_t pid = fork();
    if (pid == 0)
    {
        const std::string cmd = std::string("exec ") + HOCKNEY_BIN + " " + args + " >" + base + ".out 2>" + base + ".err";
        execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    const auto start = std::chrono::steady_clock::now();
    while (hockney::ReadFile(base + ".err").find(marker) == std::string::npos &&
           std::chrono::steady_clock::now() - start < timeout)
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid, signal);
    int status = 0;
    waitpid(pid, &status, 0);
    CliResult r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = hockney::ReadFile(base + ".out");
    r.err = hockney::ReadFile(base + ".err");
    std::remove((base + ".out").c_str());
    std::remove((base + ".err").c_str());
    return r;
}

TEST(ResourcesCli, InterruptPrintsEveryRowAndExits130)
{
    // 1 MB finishes in a fraction of a second; the 8 GB packet run takes
    // about 21 s on a quiet 2-core machine (2 GB took 5.2-5.5 s there, so
    // 1 GB finished before the 3 s of wall time after which a run prints its
    // first progress line, and was never interrupted) and prints that line:
    // the signal then stops it at its next check (every 5 us simulated). The
    // 16 GB size is not run by any backend.
    for (int signal : {SIGINT, SIGTERM})
    {
        CliResult r = RunAndSignal("compare --topology=dgx-h100 --collective=allreduce --algorithm=ring "
                                   "--bytes=1MB,8GB,16GB --backends=closed,packet --format=json",
                                   "packet allreduce ring 8000000000 B:", signal, std::chrono::seconds(60));
        EXPECT_EQ(r.status, 130) << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("stopped by an interrupt"), std::string::npos) << r.err;
        const auto rows = nlohmann::json::parse(r.out)["rows"];
        ASSERT_EQ(rows.size(), 6u) << r.out;
        EXPECT_EQ(rows[1]["status"], "complete");
        EXPECT_GT(rows[1]["time_s"].get<double>(), 0);
        EXPECT_GT(rows[2]["time_s"].get<double>(), 0); // closed, 8 GB: ran before the packets
        EXPECT_EQ(rows[3]["status"], "stopped-by-interrupt");
        EXPECT_TRUE(rows[3]["time_s"].is_null());
        EXPECT_GT(rows[3]["events"].get<double>(), 0);
        for (int i : {4, 5})
        {
            EXPECT_EQ(rows[i]["status"], "not-run-after-interrupt") << rows[i].dump();
            EXPECT_TRUE(rows[i]["time_s"].is_null());
        }
    }
}

TEST(ResourcesCli, ValidateAndSweepExit130WhenInterruptedAsCompareDoes)
{
    // validate: the packet runs of large-allreduce take seconds; stopped
    // after its first calibration line, the map of the experiments judged
    // (none) is printed and the status is compare's.
    CliResult v = RunAndSignal("validate --experiments=large-allreduce --format=json",
                               "calibrating on the packet fabric", SIGINT, std::chrono::seconds(60));
    EXPECT_EQ(v.status, 130) << v.err;
    EXPECT_EQ(v.err.find("internal error"), std::string::npos) << v.err;
    EXPECT_NE(v.err.find("experiment large-allreduce not judged"), std::string::npos) << v.err;
    EXPECT_TRUE(nlohmann::json::parse(v.out)["rows"].empty()) << v.out;

    // sweep: its point's compare (a 1 GB packet run) gets the sweep's
    // SIGTERM, stops and exits 130 itself; the sweep writes the points done
    // (none) and exits 130.
    const std::string scenario = hockney::TempPath("sweep-interrupt.json");
    std::ofstream(scenario) << R"({"topology": "dgx-h100", "backends": ["packet"], "sizes": "1GB",
        "sweep": {"seed": [1, 2]}})";
    // Signalled once the sweep said what it runs (its point's stderr is a
    // file of its own): a point's compare may be stopped before or after its
    // guard is in place; either way the sweep ends with 130.
    CliResult s = RunAndSignal("sweep --scenario=" + scenario + " --jobs=1 --format=json", "to run, 1 at a time",
                               SIGINT, std::chrono::seconds(60));
    EXPECT_EQ(s.status, 130) << s.err;
    EXPECT_NE(s.err.find("interrupted"), std::string::npos) << s.err;
    std::remove(scenario.c_str());
}

TEST(ResourcesCli, SweepKeepsUnfinishedPointsAndExitsFour)
{
    const std::string scenario = hockney::TempPath("sweep-unfinished.json");
    std::ofstream(scenario) << R"({"topology": "roce-leafspine", "collective": "incast", "sizes": "32MB",
        "backends": ["packet"], "fabric": {"flow_control": "none", "time_limit": "200us"},
        "sweep": {"seed": [1, 2]}})";
    CliResult r = RunHockney("sweep --scenario=" + scenario + " --format=json");
    EXPECT_EQ(r.status, 4) << r.err;
    const auto rows = nlohmann::json::parse(r.out)["rows"];
    ASSERT_EQ(rows.size(), 2u) << r.out;
    for (const auto& row : rows)
    {
        EXPECT_EQ(row["status"], "stopped-at-time-limit") << row.dump();
    }
    std::remove(scenario.c_str());
}

TEST(ResourcesCli, UnfinishedInSimulatedTimeIsExitFourNotInternalError)
{
    // A lossy fabric (no PFC) drops the incast's packets; go-back-N waits for
    // its 67 ms timeout, beyond the 200 us time limit: the run stops there.
    const std::string scenario = hockney::TempPath("lossy.json");
    std::ofstream(scenario) << R"({"topology": "roce-leafspine", "collective": "incast", "sizes": "32MB",
        "backends": "closed,packet", "fabric": {"flow_control": "none", "time_limit": "200us"}})";
    CliResult r = RunHockney("compare --scenario=" + scenario + " --format=json");
    EXPECT_EQ(r.status, 4) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("did not finish within the simulated time limit of 200 us (scenario.fabric.time_limit)"),
              std::string::npos)
        << r.err;
    const auto rows = nlohmann::json::parse(r.out)["rows"];
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_GT(rows[0]["time_s"].get<double>(), 0);
    EXPECT_EQ(rows[1]["status"], "stopped-at-time-limit");
    EXPECT_TRUE(rows[1]["time_s"].is_null());
    EXPECT_GT(rows[1]["drops"].get<double>(), 0);
    std::remove(scenario.c_str());

    // Flows: the same, as the packet backend's summary row.
    const std::string flows = hockney::TempPath("flows.json");
    std::ofstream(flows) << R"({"topology": "roce-leafspine", "backends": "alphabeta,packet",
        "fabric": {"time_limit": "5us"},
        "flows": [{"src": "host0", "dst": "host1", "bytes": "1MB"}]})";
    CliResult f = RunHockney("compare --scenario=" + flows + " --format=json");
    EXPECT_EQ(f.status, 4) << f.err;
    EXPECT_EQ(f.err.find("internal error"), std::string::npos) << f.err;
    const auto frows = nlohmann::json::parse(f.out)["rows"];
    ASSERT_FALSE(frows.empty()) << f.out;
    EXPECT_EQ(frows.back()["status"], "stopped-at-time-limit") << frows.back().dump();
    std::remove(flows.c_str());

    // Calibrated parameters need the sweep's messages delivered: on the lossy
    // fabric within 2 us they are not, which is the scenario's doing (exit 2
    // naming what to change), not the program's.
    const std::string calibrated = hockney::TempPath("calibrated.json");
    std::ofstream(calibrated) << R"({"topology": "roce-leafspine", "collective": "incast", "sizes": "32MB",
        "backends": "closed", "params": "calibrated", "fabric": {"flow_control": "none", "time_limit": "2us"}})";
    CliResult c = RunHockney("compare --scenario=" + calibrated);
    EXPECT_EQ(c.status, 2) << c.err;
    EXPECT_NE(c.err.find("did not arrive within fabric.time_limit (2 us simulated)"), std::string::npos) << c.err;
    std::remove(calibrated.c_str());
}

} // namespace
