// SPDX-License-Identifier: GPL-2.0-only
//
// hockney sweep, driven as a user would: its rows against single compare runs
// of each point (seeded as they are), resuming an earlier output, the same
// output for any --jobs (byte for byte with --reproducible),
// attributes on the grid and on the command line, and bad keys and values
// exiting with status 2 naming the sweep key.
#include <gtest/gtest.h>
#include "cli-runner.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace
{

using hockney::CliResult;
using hockney::ExpectBadInput;
using hockney::RunHockney;
using hockney::TempPath;
using Json = nlohmann::ordered_json;

std::string
WriteScenario(const std::string& stem, const std::string& text)
{
    const std::string path = TempPath(stem + ".json");
    std::ofstream(path) << text;
    return path;
}

// Analytic backends only: each point takes milliseconds.
const char* kAnalytic = R"({"topology": "dgx-h100", "collective": "allreduce", "ranks": 8,
    "backends": ["closed", "alphabeta", "loggp", "flow"],
    "sweep": {"algorithm": ["ring", "tree", "rhd"], "sizes": ["1MB", "8MB"]}})";

// The same scenario without its sweep, with one point's values set.
std::string
PointScenario(const std::string& algorithm, const std::string& sizes)
{
    return R"({"topology": "dgx-h100", "collective": "allreduce", "ranks": 8,
        "backends": ["closed", "alphabeta", "loggp", "flow"], "algorithm": ")" +
           algorithm + R"(", "sizes": ")" + sizes + "\"}";
}

Json
RunJson(const std::string& args)
{
    CliResult r = RunHockney(args + " --format=json");
    EXPECT_EQ(r.status, 0) << args << "\nstderr: " << r.err;
    return r.status == 0 ? Json::parse(r.out) : Json::object();
}

// A row without the fields that measure the machine and without \p swept.
Json
Comparable(Json row, const std::vector<std::string>& swept)
{
    for (const auto& k : swept)
    {
        row.erase(k);
    }
    row.erase("wall_s");
    row.erase("peak_rss_bytes");
    return row;
}

// The rows of an output: JSON's "rows", or CSV without '#' comment lines
// (provenance, which may name the time of the run).
std::string
RowsText(const std::string& text, const std::string& format)
{
    if (format == "json")
    {
        return Json::parse(text)["rows"].dump(1);
    }
    std::string rows;
    size_t at = 0;
    while (at < text.size())
    {
        const size_t end = std::min(text.find('\n', at), text.size());
        if (text[at] != '#')
        {
            rows += text.substr(at, end - at) + "\n";
        }
        at = end + 1;
    }
    return rows;
}

} // namespace

TEST(SweepCli, GridRowsAreThoseOfSingleCompareRuns)
{
    const std::string path = WriteScenario("grid", kAnalytic);
    const Json sweep = RunJson("sweep --scenario=" + path + " --jobs=2");
    std::remove(path.c_str());
    ASSERT_EQ(sweep["rows"].size(), 24u); // 3 algorithms x 2 sizes x 4 backends
    size_t n = 0;
    // First axis slowest, rows of a point in compare's order.
    for (const std::string algorithm : {"ring", "tree", "rhd"})
    {
        for (const std::string sizes : {"1MB", "8MB"})
        {
            const std::string one = WriteScenario("one", PointScenario(algorithm, sizes));
            const Json single = RunJson("compare --scenario=" + one);
            std::remove(one.c_str());
            ASSERT_EQ(single["rows"].size(), 4u);
            for (const auto& row : single["rows"])
            {
                const Json& got = sweep["rows"][n++];
                // "algorithm" is also compare's column: the swept one is "sweep.algorithm".
                EXPECT_EQ(got["sweep.algorithm"], algorithm);
                EXPECT_EQ(got["sizes"], sizes);
                EXPECT_EQ(Comparable(got, {"sweep.algorithm", "sizes"}), row) << algorithm << " " << sizes;
            }
        }
    }
}

// Incast on a small RoCE leaf-spine with DCQCN: its packet run draws (RED
// marks, ECMP hash), so the seed shows in its rows.
const char* kSeeded = R"("topology": "roce-leafspine:leaves=2,hosts-per-leaf=4", "collective": "incast",
    "backends": ["closed", "packet"], "sizes": ["2MB"])";

TEST(SweepCli, PacketPointsAreThoseOfSingleCompareRuns)
{
    // Each point's process seeds its packet run as a single compare does.
    const std::string path = WriteScenario("packet", std::string("{") + kSeeded + R"(, "sweep": {"seed": [1, 2]}})");
    const Json sweep = RunJson("sweep --scenario=" + path + " --jobs=2");
    std::remove(path.c_str());
    ASSERT_EQ(sweep["rows"].size(), 4u);
    // The seed reached the points: their packet runs marked other packets.
    EXPECT_NE(sweep["rows"][1]["ecn_marks"], sweep["rows"][3]["ecn_marks"]);
    for (int seed : {1, 2})
    {
        const std::string one =
            WriteScenario("packet-one", std::string("{") + kSeeded + R"(, "seed": )" + std::to_string(seed) + "}");
        const Json single = RunJson("compare --scenario=" + one);
        std::remove(one.c_str());
        ASSERT_EQ(single["rows"].size(), 2u);
        for (size_t i = 0; i < 2; ++i)
        {
            const Json& got = sweep["rows"][2 * (seed - 1) + i];
            EXPECT_EQ(got["seed"], seed);
            EXPECT_EQ(Comparable(got, {"seed"}), Comparable(single["rows"][i], {})) << seed;
        }
    }
    EXPECT_EQ(sweep["rows"][1]["backend"], "packet");
    EXPECT_EQ(sweep["rows"][1]["status"], "complete");
}

TEST(SweepCli, JobsDoNotChangeTheOutput)
{
    const std::string path = WriteScenario("jobs", kAnalytic);
    CliResult one = RunHockney("sweep --scenario=" + path + " --format=csv --jobs=1");
    CliResult two = RunHockney("sweep --scenario=" + path + " --format=csv --jobs=2");
    std::remove(path.c_str());
    ASSERT_EQ(one.status, 0) << one.err;
    ASSERT_EQ(two.status, 0) << two.err;
    EXPECT_EQ(RowsText(one.out, "csv"), RowsText(two.out, "csv"));
    const std::string rows = RowsText(one.out, "csv");
    EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 25); // header + 24 rows

    // With packet rows: the same but for the wall time and memory they measure.
    const std::string packet = WriteScenario("jobs-packet", R"({"topology": "dgx-h100", "ranks": 4,
        "backends": ["closed", "packet"], "sweep": {"sizes": ["16KB", "64KB"], "seed": [1, 2]}})");
    const Json p1 = RunJson("sweep --scenario=" + packet + " --jobs=1");
    const Json p2 = RunJson("sweep --scenario=" + packet + " --jobs=2");
    std::remove(packet.c_str());
    ASSERT_EQ(p1["rows"].size(), 8u);
    ASSERT_EQ(p2["rows"].size(), 8u);
    for (size_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(Comparable(p1["rows"][i], {}), Comparable(p2["rows"][i], {})) << i;
    }
}

TEST(SweepCli, ReproducibleOutputIsTheSameBytesForAnyRunAndJobs)
{
    // --reproducible leaves out the host measurements (wall_s,
    // peak_rss_bytes): the whole output, provenance included, is then the
    // same bytes on every run. Between --jobs=1 and --jobs=2 the command line
    // differs, and meta.command_line records it: that argument is the one
    // difference allowed, swapped here before comparing the bytes.
    const std::string path = WriteScenario("repro", std::string("{") + kSeeded + R"(, "sweep": {"seed": [1, 2, 3]}})");
    const std::string args = "sweep --scenario=" + path + " --format=json --reproducible";
    const CliResult a = RunHockney(args + " --jobs=2");
    const CliResult b = RunHockney(args + " --jobs=2");
    const CliResult one = RunHockney(args + " --jobs=1");
    std::remove(path.c_str());
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;
    ASSERT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(a.out, b.out);
    std::string swapped = one.out;
    const size_t at = swapped.find("--jobs=1");
    ASSERT_NE(at, std::string::npos);
    swapped.replace(at, 8, "--jobs=2");
    EXPECT_EQ(swapped, a.out);
    const Json doc = Json::parse(a.out);
    ASSERT_EQ(doc["rows"].size(), 6u);
    EXPECT_EQ(doc["meta"]["reproducible"], true);
    for (const auto& row : doc["rows"])
    {
        EXPECT_FALSE(row.contains("wall_s")) << row.dump();
        EXPECT_FALSE(row.contains("peak_rss_bytes")) << row.dump();
    }
}

TEST(SweepCli, ResumeRunsOnlyTheMissingPoints)
{
    for (const std::string format : {"json", "csv"})
    {
        const std::string path = WriteScenario("resume", PointScenario("ring", "1MB"));
        const std::string out = TempPath("resume-out." + format);
        std::remove(out.c_str());
        const std::string first = "sweep --scenario=" + path + " --format=" + format + " --output=" + out;
        CliResult a = RunHockney(first + " --sweep=sizes=1MB,8MB");
        ASSERT_EQ(a.status, 0) << a.err;
        EXPECT_NE(a.err.find("2 points, 0 already in " + out + ", 2 to run"), std::string::npos) << a.err;
        // Mark a row of the first run: a point run again would lose the mark.
        std::string text = hockney::ReadFile(out);
        const std::string unmarked = format == "json" ? "\"backend\": \"closed\"" : ",closed,";
        const std::string marked = format == "json" ? "\"backend\": \"closed-from-before\"" : ",closed-from-before,";
        ASSERT_NE(text.find(unmarked), std::string::npos);
        text.replace(text.find(unmarked), unmarked.size(), marked);
        std::ofstream(out) << text;

        CliResult b = RunHockney(first + " --sweep=sizes=1MB,8MB,64MB");
        ASSERT_EQ(b.status, 0) << b.err;
        EXPECT_NE(b.err.find("3 points, 2 already in " + out + ", 1 to run"), std::string::npos) << b.err;
        const std::string merged = hockney::ReadFile(out);
        EXPECT_NE(merged.find(marked), std::string::npos) << format;
        // The fresh run of all three points, less the mark, is the merged file.
        CliResult fresh = RunHockney("sweep --scenario=" + path + " --format=" + format + " --sweep=sizes=1MB,8MB,64MB");
        ASSERT_EQ(fresh.status, 0) << fresh.err;
        std::string unmarkedMerged = merged;
        unmarkedMerged.replace(unmarkedMerged.find(marked), marked.size(), unmarked);
        EXPECT_EQ(RowsText(unmarkedMerged, format), RowsText(fresh.out, format)) << format;

        CliResult c = RunHockney(first + " --sweep=sizes=1MB,8MB,64MB");
        EXPECT_NE(c.err.find("3 points, 3 already in " + out + ", 0 to run"), std::string::npos) << c.err;
        EXPECT_EQ(hockney::ReadFile(out), merged);
        std::remove(out.c_str());
        std::remove(path.c_str());
    }
}

TEST(SweepCli, AttributesOnTheGridAndOnTheCommandLine)
{
    // Ring allreduce of 1 MB on dgx-h100 is 14 messages; a software overhead
    // of 1 us each adds 14 us to the alpha-beta backend.
    const std::string path = WriteScenario("attrs", R"({"topology": "dgx-h100", "backends": ["alphabeta"],
        "sizes": ["1MB"], "sweep": {"attributes.ns3::AlphaBetaModel::SoftwareOverhead": ["0us", "1us"]}})");
    const Json grid = RunJson("sweep --scenario=" + path);
    ASSERT_EQ(grid["rows"].size(), 2u);
    const double t0 = grid["rows"][0]["time_s"].get<double>();
    const double t1 = grid["rows"][1]["time_s"].get<double>();
    EXPECT_EQ(grid["rows"][1]["attributes.ns3::AlphaBetaModel::SoftwareOverhead"], "1us");
    EXPECT_NEAR(t1 - t0, 14e-6, 1e-12);

    // A --ns3:: flag reaches every point: 2 us on the sizes axis instead.
    const std::string sizes = WriteScenario("attrs-flag", R"({"topology": "dgx-h100", "backends": ["alphabeta"],
        "sweep": {"sizes": ["1MB"]}})");
    const Json flagged = RunJson("sweep --scenario=" + sizes + " --ns3::AlphaBetaModel::SoftwareOverhead=2us");
    ASSERT_EQ(flagged["rows"].size(), 1u);
    EXPECT_NEAR(flagged["rows"][0]["time_s"].get<double>() - t0, 28e-6, 1e-12);
    // The flag fixes what the axis varies: refused.
    ExpectBadInput("sweep --scenario=" + path + " --ns3::AlphaBetaModel::SoftwareOverhead=2us",
                   "--ns3::AlphaBetaModel::SoftwareOverhead");
    std::remove(path.c_str());
    std::remove(sizes.c_str());
}

TEST(SweepCli, BadKeysAndValuesExitTwoNamingTheKey)
{
    const std::string path = WriteScenario("bad", PointScenario("ring", "1MB"));
    const std::string s = "sweep --scenario=" + path + " ";
    ExpectBadInput(s + "--sweep=topology.tiers[0].switch_buffer_bytes=1,2",
                   "sweep[\"topology.tiers[0].switch_buffer_bytes\"]"); // topology is a preset name
    ExpectBadInput(s + "--sweep=colour=red,blue", "sweep[\"colour\"]");
    ExpectBadInput(s + "--sweep=fabric.mtu_bytes=1,4096", "sweep[\"fabric.mtu_bytes\"]");
    ExpectBadInput(s + "--sweep=attributes.ns3::Dcqcn::G=0.5,fast", "sweep[\"attributes.ns3::Dcqcn::G\"]");
    ExpectBadInput(s + "--sweep=sizes[0]=1KB", "sweep[\"sizes[0]\"]"); // "1MB" is not a list
    ExpectBadInput(s + "--sweep=sizes..x=1", "sweep[\"sizes..x\"]");
    ExpectBadInput(s + "--sweep=sizes=1MB,1MB", "sweep[\"sizes\"]");
    ExpectBadInput(s + "--sweep=model=1 --sweep=model.alpha=2us", "sweep[\"model.alpha\"]");
    ExpectBadInput(s, "--sweep");
    ExpectBadInput(s + "--sweep=sizes=1MB --plot=/tmp/x.png", "--plot"); // no packet backend
    ExpectBadInput(s + "--sweep=sizes=1MB --plot-x=ranks --plot=/tmp/x.png", "--plot-x");
    ExpectBadInput(s + "--sweep=sizes=1MB --jobs=0", "--jobs");
    // Found by the point's own process (ranks against the topology): the key
    // is named on the last line.
    CliResult r = RunHockney(s + "--sweep=ranks=4,100");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("hockney sweep: sweep[\"ranks\"]: value 100 refused: scenario.ranks"), std::string::npos)
        << r.err;
    std::remove(path.c_str());

    const std::string file = WriteScenario("bad-file", R"({"sweep": {"sizes": "1MB"}})");
    ExpectBadInput("sweep --scenario=" + file, "sweep[\"sizes\"]");
    std::remove(file.c_str());
}

TEST(SweepCli, ExampleSweepRunsAndPlots)
{
    const std::string dir = TempPath("example");
    const std::string csv = dir + "-rows.csv";
    CliResult r = RunHockney("sweep --scenario=" HOCKNEY_SOURCE_DIR "/examples/sweep-incast-buffer.json --jobs=2 "
                             "--format=csv --output=" + csv + " --plot=" + dir + "/sweep.png");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out; // the rows went to --output
    const std::string rows = RowsText(hockney::ReadFile(csv), "csv");
    // 3 buffers x 2 congestion controls x 2 overheads x 2 sizes, 4 backends each.
    EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 1 + 24 * 4);
    // Incast: every sender sends its one message at once, so 1 us of
    // software overhead per message adds 1 us to the alpha-beta row (the
    // first rows of each overhead: buffer 1 MB, congestion control none).
    const std::string t0 = "0us,1MB,incast,direct,9,1000000,alphabeta,";
    const std::string t1 = "1us,1MB,incast,direct,9,1000000,alphabeta,";
    ASSERT_NE(rows.find(t0), std::string::npos);
    ASSERT_NE(rows.find(t1), std::string::npos);
    const double a = std::stod(rows.substr(rows.find(t0) + t0.size()));
    const double b = std::stod(rows.substr(rows.find(t1) + t1.size()));
    EXPECT_NEAR(b - a, 1e-6, 1e-12);
    std::ifstream png(dir + "/sweep.png", std::ios::binary);
    char magic[4] = {};
    png.read(magic, 4);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG");
    std::filesystem::remove_all(dir);
    std::remove(csv.c_str());
}

TEST(SweepCli, WallLimitKeepsTheRowsExitsThreeAndRunsAgainOnResume)
{
    // A wall-clock limit of 0 s stops every packet run at once: compare exits
    // 3 with every row, and so does the sweep; resumed with time to run, the
    // stopped points run again and the others do not.
    const char* scenario = R"({"topology": "dgx-h100", "ranks": 4, "backends": ["closed", "packet"],
        "fabric": {"wall_limit": "%s"}, "sweep": {"sizes": ["16KB", "64KB"]}})";
    char text[512];
    std::snprintf(text, sizeof text, scenario, "0s");
    const std::string path = WriteScenario("wall", text);
    const std::string out = TempPath("wall-out.json");
    std::remove(out.c_str());
    CliResult stopped = RunHockney("sweep --scenario=" + path + " --format=json --output=" + out);
    EXPECT_EQ(stopped.status, 3) << stopped.err;
    Json rows = Json::parse(hockney::ReadFile(out))["rows"];
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[1]["status"], "stopped-at-wall-limit");
    EXPECT_EQ(rows[3]["status"], "stopped-at-wall-limit");

    std::snprintf(text, sizeof text, scenario, "600s");
    std::ofstream(path) << text;
    // The scenario changed: --resume-any keeps the earlier scenario's rows.
    CliResult resumed = RunHockney("sweep --scenario=" + path + " --format=json --output=" + out + " --resume-any");
    EXPECT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("2 points, 0 already in"), std::string::npos) << resumed.err;
    rows = Json::parse(hockney::ReadFile(out))["rows"];
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[1]["status"], "complete");
    EXPECT_EQ(rows[3]["status"], "complete");
    std::remove(out.c_str());
    std::remove(path.c_str());
}

TEST(SweepCli, RelativeFlowsCsvIsRelativeToTheScenarioFile)
{
    // The scenario and its flow lists in one directory, the sweep run from
    // another: the base's flows_csv and an axis's are read from the
    // scenario's directory, as compare reads them.
    const std::string dir = TempPath("flows-dir");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/a.csv") << "src,dst,bytes,start\nh1,h0,300KB,0us\n";
    std::ofstream(dir + "/b.csv") << "src,dst,bytes,start\nh1,h0,600KB,0us\n";
    const Json two = Json::parse(hockney::ReadFile(HOCKNEY_SOURCE_DIR "/examples/two-flows.json"));
    const std::string top = two["topology"].dump();
    const auto write = [&](const std::string& name, const std::string& rest) {
        std::ofstream(dir + "/" + name) << R"({"topology": )" + top + R"(, "backends": ["alphabeta", "flow"], )" + rest + "}";
        return dir + "/" + name;
    };
    const std::string base = write("base.json", R"("flows_csv": "a.csv", "sweep": {"seed": [1, 2]})");
    const std::string axis = write("axis.json", R"("sweep": {"flows_csv": ["a.csv", "b.csv"]})");
    const std::string singleA = write("single-a.json", R"("flows_csv": "a.csv")");
    const std::string singleB = write("single-b.json", R"("flows_csv": "b.csv")");
    const Json a = RunJson("compare --scenario=" + singleA);
    const Json b = RunJson("compare --scenario=" + singleB);
    ASSERT_EQ(a["rows"].size(), b["rows"].size());
    ASSERT_GT(a["rows"].size(), 0u);

    const std::string cwd = std::filesystem::current_path().string();
    std::filesystem::current_path("/");
    const Json fromBase = RunJson("sweep --scenario=" + base + " --jobs=2");
    const Json fromAxis = RunJson("sweep --scenario=" + axis + " --jobs=2");
    std::filesystem::current_path(cwd);
    std::filesystem::remove_all(dir);

    const size_t n = a["rows"].size();
    ASSERT_EQ(fromBase["rows"].size(), 2 * n);
    ASSERT_EQ(fromAxis["rows"].size(), 2 * n);
    for (size_t i = 0; i < n; ++i)
    {
        EXPECT_EQ(Comparable(fromBase["rows"][i], {"seed"}), Comparable(a["rows"][i], {})) << i;
        EXPECT_EQ(Comparable(fromAxis["rows"][i], {"flows_csv"}), Comparable(a["rows"][i], {})) << i;
        EXPECT_EQ(Comparable(fromAxis["rows"][n + i], {"flows_csv"}), Comparable(b["rows"][i], {})) << i;
        // The column holds the value as written.
        EXPECT_EQ(fromAxis["rows"][n + i]["flows_csv"], "b.csv");
    }
    // Each point read its own list: the bytes of b.csv, twice a.csv's.
    EXPECT_EQ(fromAxis["rows"][0]["bytes"], 300000);
    EXPECT_EQ(fromAxis["rows"][n]["bytes"], 600000);
    EXPECT_EQ(fromBase["rows"][n]["bytes"], 300000);
}

TEST(SweepCli, FlagFixingACongestionControlAxisIsRefused)
{
    // fabric.congestion_control.G of dcqcn is attribute ns3::Dcqcn::G, which
    // a --ns3::Dcqcn::G flag would set after the object's key in every point.
    const std::string path = WriteScenario("cc-axis", R"({"topology": "dgx-h100", "ranks": 4,
        "backends": ["closed"], "sizes": ["64KB"], "fabric": {"congestion_control": {"name": "dcqcn"}},
        "sweep": {"fabric.congestion_control.G": [0.0625, 0.5]}})");
    CliResult r = RunHockney("sweep --scenario=" + path + " --ns3::Dcqcn::G=0.25");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--ns3::Dcqcn::G: fixes the attribute that sweep[\"fabric.congestion_control.G\"] varies"),
              std::string::npos)
        << r.err;
    // An attribute of no axis is allowed.
    CliResult ok = RunHockney("sweep --scenario=" + path + " --ns3::Dcqcn::AlphaInterval=40us");
    EXPECT_EQ(ok.status, 0) << ok.err;
    std::remove(path.c_str());
}

TEST(SweepCli, ResumeOfAnotherScenarioIsRefused)
{
    for (const std::string format : {"json", "csv"})
    {
        const std::string path = WriteScenario("other", PointScenario("ring", "1MB"));
        const std::string out = TempPath("other-out." + format);
        std::remove(out.c_str());
        const std::string cmd = "sweep --scenario=" + path + " --format=" + format + " --output=" + out +
                                " --sweep=sizes=1MB,8MB";
        CliResult a = RunHockney(cmd);
        ASSERT_EQ(a.status, 0) << a.err;
        const std::string first = hockney::ReadFile(out);
        // The same axis values, another collective: its rows are not this one's.
        std::ofstream(path) << R"({"topology": "dgx-h100", "collective": "allgather", "ranks": 8,
            "backends": ["closed", "alphabeta", "loggp", "flow"], "algorithm": "ring"})";
        CliResult b = RunHockney(cmd);
        EXPECT_EQ(b.status, 2) << b.err;
        EXPECT_NE(b.err.find("--output: '" + out + "' holds a sweep of another scenario"), std::string::npos) << b.err;
        EXPECT_NE(b.err.find("the scenario changed"), std::string::npos) << b.err;
        EXPECT_EQ(hockney::ReadFile(out), first); // untouched
        // --resume-any keeps them.
        CliResult c = RunHockney(cmd + " --resume-any");
        EXPECT_EQ(c.status, 0) << c.err;
        EXPECT_NE(c.err.find("2 points, 2 already in " + out + ", 0 to run"), std::string::npos) << c.err;
        // The first scenario again resumes as before.
        std::ofstream(path) << PointScenario("ring", "1MB");
        CliResult d = RunHockney(cmd);
        EXPECT_EQ(d.status, 0) << d.err;
        EXPECT_NE(d.err.find("2 points, 2 already in " + out + ", 0 to run"), std::string::npos) << d.err;
        std::remove(out.c_str());
        std::remove(path.c_str());
    }
}

TEST(SweepCli, UnwritableOutputIsBadInputBeforeAnyPoint)
{
    // A directory as --output: refused before any point runs, as the
    // output's fault rather than each point's.
    const std::string path = WriteScenario("unwritable", PointScenario("ring", "1MB"));
    const std::string dir = TempPath("output-dir");
    std::filesystem::create_directories(dir);
    for (const std::string format : {"csv", "json"})
    {
        CliResult r = RunHockney("sweep --scenario=" + path + " --sweep=sizes=1MB,8MB --format=" + format +
                                 " --output=" + dir);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_EQ(r.err.rfind("hockney sweep: --output: expected a writable file, cannot write '" + dir + "'", 0), 0u)
            << r.err;
        EXPECT_EQ(r.err.find("point"), std::string::npos) << r.err; // no point ran
    }
    std::filesystem::remove_all(dir);
    std::remove(path.c_str());
}
