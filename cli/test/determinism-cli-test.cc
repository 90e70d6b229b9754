// SPDX-License-Identifier: GPL-2.0-only
//
// Determinism, driven as a user would: with --reproducible the same command
// and seed write the same bytes on every run (compare with every backend,
// packet included; a scenario of flows; an experiment of validate), the flag leaves out exactly the host measurements (wall_s,
// peak_rss_bytes) and nothing else, a size's rows do not depend on the sizes
// run before it, and a seed reaches the packet run: another one changes the
// fabric's random decisions. Sweeps (across runs and --jobs) are in
// sweep-cli-test.cc.
#include "cli-runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace
{

using hockney::CliResult;
using hockney::ExpectBadInput;
using hockney::RunHockney;
using Json = nlohmann::ordered_json;

// Incast on a small RoCE leaf-spine with DCQCN: ECMP hashing (cross-leaf
// senders) and RED marks (the queue towards rank 0), both seeded; about 0.1 s.
const std::string kCompare = "compare --backends=closed,alphabeta,loggp,flow,packet "
                             "--topology=roce-leafspine:leaves=2,hosts-per-leaf=4 --collective=incast "
                             "--bytes=2MB";

/// Runs `hockney ARGS` twice and expects exit 0 and the same bytes on
/// stdout; returns the first run's output.
std::string
SameBytesTwice(const std::string& args)
{
    const CliResult a = RunHockney(args);
    const CliResult b = RunHockney(args);
    EXPECT_EQ(a.status, 0) << args << "\n" << a.err;
    EXPECT_EQ(b.status, 0) << args << "\n" << b.err;
    EXPECT_FALSE(a.out.empty()) << args;
    EXPECT_EQ(a.out, b.out) << args; // byte for byte, provenance included
    return a.out;
}

/// The packet row of a compare output.
Json
PacketRow(const Json& doc)
{
    for (const auto& r : doc.at("rows"))
    {
        if (r.at("backend") == "packet")
        {
            return r;
        }
    }
    ADD_FAILURE() << "no packet row in " << doc.dump();
    return Json::object();
}

} // namespace

TEST(DeterminismCli, CompareWithEveryBackendWritesTheSameBytesTwice)
{
    for (const std::string format : {"json", "csv", "table"})
    {
        SameBytesTwice(kCompare + " --seed=3 --reproducible --format=" + format);
    }
    const Json doc = Json::parse(SameBytesTwice(kCompare + " --seed=3 --reproducible --format=json"));
    ASSERT_EQ(doc.at("rows").size(), 5u);
    const Json packet = PacketRow(doc);
    // The run draws: RED marked packets (and DCQCN answered with CNPs).
    EXPECT_GT(packet.at("ecn_marks").get<uint64_t>(), 0u) << packet.dump();
    EXPECT_EQ(packet.at("bytes_delivered"), packet.at("bytes_sent"));
    EXPECT_EQ(doc.at("meta").at("reproducible"), true);
    EXPECT_EQ(doc.at("meta").at("seed"), 3);
}

TEST(DeterminismCli, ReproducibleLeavesOutTheHostMeasurementsAndNothingElse)
{
    const CliResult full = RunHockney(kCompare + " --format=json");
    const CliResult repro = RunHockney(kCompare + " --format=json --reproducible");
    ASSERT_EQ(full.status, 0) << full.err;
    ASSERT_EQ(repro.status, 0) << repro.err;
    const Json f = Json::parse(full.out);
    const Json r = Json::parse(repro.out);
    ASSERT_EQ(f.at("rows").size(), r.at("rows").size());
    // Without the flag the packet row measures the machine ...
    EXPECT_TRUE(PacketRow(f).contains("wall_s"));
    EXPECT_TRUE(PacketRow(f).contains("peak_rss_bytes"));
    for (size_t i = 0; i < f.at("rows").size(); ++i)
    {
        Json expected = f.at("rows")[i];
        expected.erase("wall_s");
        expected.erase("peak_rss_bytes");
        // ... with it, every row is the same but for those two fields, in the same order.
        EXPECT_EQ(r.at("rows")[i], expected) << i;
        EXPECT_EQ(r.at("rows")[i].dump(), expected.dump()) << i;
    }
    // The provenance says which it is; the rest of it is the same.
    EXPECT_EQ(f.at("meta").at("reproducible"), false);
    EXPECT_EQ(r.at("meta").at("reproducible"), true);
    Json fm = f.at("meta");
    Json rm = r.at("meta");
    for (Json* m : {&fm, &rm})
    {
        m->erase("reproducible");
        m->erase("command_line");
    }
    EXPECT_EQ(fm, rm);
    // CSV says it too, as a comment line; no wall_s column is left.
    const CliResult csv = RunHockney(kCompare + " --format=csv --reproducible");
    EXPECT_NE(csv.out.find("\n# reproducible=true\n"), std::string::npos) << csv.out;
    EXPECT_EQ(csv.out.find("wall_s"), std::string::npos) << csv.out;
}

TEST(DeterminismCli, FlowsScenarioWritesTheSameBytesTwice)
{
    const Json doc = Json::parse(
        SameBytesTwice("compare --scenario=" HOCKNEY_SOURCE_DIR "/examples/two-flows.json --format=json --reproducible"));
    // 2 flows + "all" for each of alphabeta, flow, packet; none measures the machine.
    ASSERT_EQ(doc.at("rows").size(), 9u);
    for (const auto& row : doc.at("rows"))
    {
        EXPECT_FALSE(row.contains("wall_s")) << row.dump();
    }
}

TEST(DeterminismCli, ValidateExperimentWritesTheSameBytesTwice)
{
    // The map on stdout. (Its --output files are the same bytes too, report.md
    // without its wall time, but drawing their figures takes some 6 s of CPU
    // a run: checked by hand, not here.)
    const Json doc = Json::parse(SameBytesTwice("validate --experiments=incast --quiet --format=json --reproducible"));
    ASSERT_EQ(doc.at("rows").size(), 1u);
    EXPECT_EQ(doc.at("rows")[0].at("experiment"), "incast");
    EXPECT_FALSE(doc.at("rows")[0].contains("wall_s"));
}

TEST(DeterminismCli, AnotherSeedChangesThePacketRunAndOnlyIt)
{
    // Seeds 1 and 2 on the same incast: the analytic rows cannot depend on a
    // seed and stay the same; the packet run's RED draws (and ECMP hash) are
    // others, so its marks differ.
    const Json one = Json::parse(SameBytesTwice(kCompare + " --seed=1 --reproducible --format=json"));
    const Json two = Json::parse(SameBytesTwice(kCompare + " --seed=2 --reproducible --format=json"));
    ASSERT_EQ(one.at("rows").size(), 5u);
    ASSERT_EQ(two.at("rows").size(), 5u);
    for (size_t i = 0; i < 4; ++i)
    {
        // "error" compares with the packet time, which the seed moves.
        Json a = one.at("rows")[i];
        Json b = two.at("rows")[i];
        a.erase("error");
        b.erase("error");
        EXPECT_EQ(a, b) << i;
    }
    const Json p1 = PacketRow(one);
    const Json p2 = PacketRow(two);
    EXPECT_NE(p1.at("ecn_marks"), p2.at("ecn_marks")) << p1.dump() << "\n" << p2.dump();
    EXPECT_EQ(p1.at("bytes_delivered"), p2.at("bytes_delivered"));
}

TEST(DeterminismCli, ASizesRowsDoNotDependOnTheSizesRunBeforeIt)
{
    // One process runs the sizes one after the other: the 2 MB rows after a
    // 256 KB run are those of a process that ran 2 MB alone (node ids, the
    // global seed and the random streams do not carry over).
    const std::string base = "compare --backends=closed,flow,packet "
                             "--topology=roce-leafspine:leaves=2,hosts-per-leaf=4 --collective=incast "
                             "--reproducible --format=json";
    const CliResult two = RunHockney(base + " --bytes=256KB,2MB");
    const CliResult one = RunHockney(base + " --bytes=2MB");
    ASSERT_EQ(two.status, 0) << two.err;
    ASSERT_EQ(one.status, 0) << one.err;
    const Json after = Json::parse(two.out).at("rows");
    const Json alone = Json::parse(one.out).at("rows");
    ASSERT_EQ(after.size(), 6u);
    ASSERT_EQ(alone.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(after[3 + i].dump(), alone[i].dump()) << i;
    }
    EXPECT_GT(PacketRow(Json::parse(one.out)).at("ecn_marks").get<uint64_t>(), 0u); // it drew
}

TEST(DeterminismCli, BadReproducibleFlagIsBadInput)
{
    ExpectBadInput("compare --reproducible=yes", "--reproducible");
    ExpectBadInput("compare --reproducible --reproducible=false", "--reproducible");
}
