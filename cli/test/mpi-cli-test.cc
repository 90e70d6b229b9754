// SPDX-License-Identifier: GPL-2.0-only
//
// hockney under mpirun (built with ns-3's mpi module, HOCKNEY_MPIEXEC):
// a sweep spread over 2 ranks writes the very output of one process, byte
// for byte with --reproducible (analytic points) and row for row with packet
// points; a command that does not spread over ranks refuses them with exit
// status 2 naming mpirun. Runs as root (CI) and with 2 ranks on a machine of
// fewer cores: --allow-run-as-root, --oversubscribe.
#include <gtest/gtest.h>
#include "cli-runner.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#ifdef HOCKNEY_MPIEXEC

namespace
{

using hockney::CliResult;
using hockney::RunHockney;
using hockney::TempPath;
using Json = nlohmann::ordered_json;

// The launcher before the program: RunHockney runs "ENV PROGRAM ARGS".
std::string
Mpirun(int ranks)
{
    return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + std::string(HOCKNEY_MPIEXEC) +
           " --allow-run-as-root --oversubscribe -np " + std::to_string(ranks);
}

std::string
WriteScenario(const std::string& stem, const std::string& text)
{
    const std::string path = TempPath(stem + ".json");
    std::ofstream(path) << text;
    return path;
}

TEST(MpiCli, SweepOverTwoRanksWritesTheOutputOfOneProcess)
{
    // 6 points: rank 0 runs points 0, 2, 4 and rank 1 points 1, 3, 5, so
    // both ranks' rows are in the output, in grid order.
    const std::string path = WriteScenario("mpi-sweep", R"({"topology": "dgx-h100", "collective": "allreduce",
        "ranks": 8, "backends": ["closed", "alphabeta", "loggp", "flow"],
        "sweep": {"algorithm": ["ring", "tree", "rhd"], "sizes": ["1MB", "8MB"]}})");
    const std::string args = "sweep --scenario=" + path + " --format=json --reproducible --jobs=1";
    const CliResult one = RunHockney(args);
    const CliResult two = RunHockney(args, Mpirun(2));
    std::remove(path.c_str());
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_NE(two.err.find("over 2 MPI ranks"), std::string::npos) << two.err;
    EXPECT_EQ(Json::parse(one.out)["rows"].size(), 24u); // 6 points x 4 backends
    EXPECT_EQ(one.out, two.out);
}

TEST(MpiCli, SweepOfPacketPointsOverTwoRanksAndJobs)
{
    // Packet points, 2 ranks x 2 local processes, into --output: the rows of
    // the sequential sweep (fixed seeds: the packet runs are deterministic).
    const std::string path = WriteScenario("mpi-packet", R"({"topology": "dgx-h100", "ranks": 4,
        "backends": ["closed", "packet"], "sweep": {"sizes": ["16KB", "64KB"], "seed": [1, 2]}})");
    const std::string out = TempPath("mpi-packet-out.json");
    const std::string args = "sweep --scenario=" + path + " --format=json --reproducible";
    const CliResult one = RunHockney(args + " --jobs=1");
    const CliResult two = RunHockney(args + " --jobs=2 --output=" + out, Mpirun(2));
    const std::string written = hockney::ReadFile(out);
    std::remove(path.c_str());
    std::remove(out.c_str());
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_EQ(two.out, ""); // with --output only the file
    const Json a = Json::parse(one.out)["rows"];
    const Json b = Json::parse(written)["rows"];
    EXPECT_EQ(a.size(), 8u);
    EXPECT_EQ(a, b);
}

// The line compare's ranks print: rank 0's only (every rank finds it).
size_t
CompareLines(const std::string& err)
{
    size_t n = 0;
    for (size_t at = err.find("hockney compare:"); at != std::string::npos; at = err.find("hockney compare:", at + 1))
    {
        ++n;
    }
    return n;
}

TEST(MpiCli, CompareRefusesAnOpWaitingAcrossRanks)
{
    // Pairwise AllToAll on the leaf-spine: 16 hosts, auto puts each leaf
    // with its hosts, GPUs 0-7 on rank 0 and 8-15 on rank 1. GPU 7's second
    // send waits for its first, to GPU 8 (an op delivered on rank 1): it
    // cannot start exactly on rank 0 a lookahead before it learns of it,
    // unless the news is a message (--dependencies=message: mpi.compare.dependencies.*).
    const CliResult r = RunHockney("compare --backends=packet --topology=roce-leafspine --collective=alltoall "
                                   "--algorithm=pairwise --bytes=64KB",
                                   Mpirun(2));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(CompareLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("hockney compare: mpirun: 64000 B: pairwise-exchange alltoall: op "), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("(GPU 7 -> 9, step 1) waits for op 7 delivered at GPU 8 on MPI rank 1, but starts at GPU 7 "
                         "on MPI rank 0; a dependency across MPI ranks must travel as a message: pass "
                         "--dependencies=message (the executor's DependencyNotice) (2 ranks, 16 links cut, "
                         "lookahead 100 ns"),
              std::string::npos)
        << r.err;
}

TEST(MpiCli, CompareRefusesWhatItCannotSplit)
{
    const std::string a2a = "compare --topology=roce-leafspine --collective=alltoall --bytes=64KB ";
    const std::vector<std::pair<std::string, std::string>> cases = {
        // What every port records, each rank its own ports (the delivery
        // end, several sizes, --output and --per-op split:
        // mpi.compare.delivery.*, mpi.compare.drain.sizes.*).
        {a2a + "--algorithm=all-at-once --backends=packet --pcap=" + TempPath("mpi-pcap"),
         "--pcap: expected no --pcap under mpirun"},
        {a2a + "--algorithm=all-at-once --backends=packet --traces=" + TempPath("mpi-traces"),
         "--traces: expected no --traces under mpirun"},
        {a2a + "--backends=closed,packet", "expected --backends=packet under mpirun"},
        // PXN: the proxy is on the sender's server (rank 0), the receiver on
        // rank 1, which learns of the NVLink leg only by the proxy's ready
        // flag, a message (--dependencies=message: mpi.compare.pxn.*).
        {"compare --backends=packet --topology=rail-h100-2n --collective=alltoall --algorithm=pxn --bytes=1MB",
         "goes through its PXN proxy GPU 1 on MPI rank 0 to GPU 9 on MPI rank 1, which must learn that the NVLink "
         "leg has landed (the proxy's ready flag); a dependency across MPI ranks must travel as a message: pass "
         "--dependencies=message"},
        // LL: the delivery waits for the sender's copy, on the other rank
        // (its ready flag with --dependencies=message: mpi.compare.ll.*).
        {"compare --backends=packet --topology=rail-h100-2n --collective=alltoall --algorithm=all-at-once "
         "--protocol=ll --bytes=64KB",
         "under protocol ll, whose delivery waits for the sender's copy (LlCopyRate, Ll128CopyRate: the sender's "
         "ready flag); a dependency across MPI ranks must travel as a message: pass --dependencies=message"},
        {a2a + "--backends=packet --partition=bogus", "--partition: expected auto, pod or rank-map:FILE"},
    };
    for (const auto& [args, want] : cases)
    {
        const CliResult r = RunHockney(args, Mpirun(2));
        EXPECT_EQ(r.status, 2) << args << ": " << r.err;
        EXPECT_EQ(CompareLines(r.err), 1u) << args << ": " << r.err;
        EXPECT_NE(r.err.find(want), std::string::npos) << args << ": " << r.err;
    }
}

TEST(MpiCli, CompareRefusesNcclSlotsAcrossRanksUnlessTheirCreditsAreMessages)
{
    // The ring's crossing GPU 7 (rank 0) -> 8 (rank 1) in NCCL's slots: by
    // shared memory, refused; as credit messages, mpi.compare.dependencies.slots-*.
    const CliResult r = RunHockney("compare --backends=packet --topology=roce-leafspine --collective=allreduce "
                                   "--algorithm=ring --protocol=simple --bytes=64KB --end=drain "
                                   "--ns3::CollectiveExecutor::NetSlots=16 --ns3::CollectiveExecutor::NetStepsInFlight=0",
                                   Mpirun(2));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(CompareLines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("(GPU 7 -> 8, step 0) crosses from GPU 7 on MPI rank 0 to GPU 8 on MPI rank 1 in NCCL's "
                         "slots (NetSlots 16), whose credits return from the receiver; a dependency across MPI "
                         "ranks must travel as a message: pass --dependencies=message"),
              std::string::npos)
        << r.err;
}

TEST(MpiCli, CommandsThatDoNotSpreadRefuseRanks)
{
    const CliResult r = RunHockney("model --alpha=5us --beta=450GB/s --bytes=1KB", Mpirun(2));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("hockney model: mpirun: expected 1 rank"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

} // namespace

#endif
