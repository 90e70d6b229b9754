// SPDX-License-Identifier: GPL-2.0-only
//
// What compare writes besides its rows, driven as a user would: the
// provenance of every CSV and JSON output, the per-op table against the
// algebra by hand, the packet run's time series against its own counters,
// the wall-clock limit's exit status with every row kept, and unwritable
// output paths as bad input.
#include "cli-runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace
{

using hockney::CsvWithoutComments;
using hockney::ReadFile;
using hockney::RunHockney;
using hockney::TempPath;

/// A CSV without its comment lines as rows of column -> cell.
std::vector<std::map<std::string, std::string>>
ParseCsv(const std::string& text)
{
    std::istringstream in(CsvWithoutComments(text));
    auto split = [](const std::string& line) {
        std::vector<std::string> cells;
        std::string cell;
        std::istringstream s(line);
        while (std::getline(s, cell, ','))
        {
            cells.push_back(cell);
        }
        if (!line.empty() && line.back() == ',')
        {
            cells.emplace_back();
        }
        return cells;
    };
    std::string line;
    std::getline(in, line);
    const auto header = split(line);
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line))
    {
        const auto cells = split(line);
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
        {
            row[header[i]] = cells[i];
        }
        rows.push_back(row);
    }
    return rows;
}

/// The output of a shell command (sha256sum, an independent digest).
std::string
Shell(const std::string& cmd)
{
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r"))
    {
        char buf[256];
        while (fgets(buf, sizeof buf, p))
        {
            out += buf;
        }
        pclose(p);
    }
    return out;
}

} // namespace

TEST(OutputsCli, JsonAndCsvCarryTheProvenance)
{
    const std::string args = "compare --alpha=5us --beta=450GB/s --ranks=4 --bytes=1MB --backends=closed,alphabeta "
                             "--seed=7";
    auto r = RunHockney(args + " --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["command"], "compare");
    ASSERT_EQ(j["rows"].size(), 2u);
    const auto& meta = j["meta"];
    EXPECT_EQ(meta["seed"], 7);
    EXPECT_EQ(meta["command_line"], "hockney " + args + " --format=json");
    EXPECT_FALSE(meta["hockney_version"].get<std::string>().empty());
    EXPECT_EQ(meta["ns3_version"].get<std::string>().rfind("3.37", 0), 0u) << meta.dump();
    EXPECT_TRUE(meta["scenario"].is_null());

    // CSV: the same, as comment lines before the header; the rows parse as before.
    auto c = RunHockney(args + " --format=csv");
    ASSERT_EQ(c.status, 0) << c.err;
    EXPECT_EQ(c.out.rfind("# hockney_version=", 0), 0u) << c.out;
    EXPECT_NE(c.out.find("\n# seed=7\n"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("\n# command_line=hockney " + args + " --format=csv\n"), std::string::npos) << c.out;
    const auto rows = ParseCsv(c.out);
    ASSERT_EQ(rows.size(), 2u);
    for (size_t i = 0; i < rows.size(); ++i)
    {
        EXPECT_EQ(rows[i].at("backend"), j["rows"][i]["backend"]);
        EXPECT_NEAR(std::stod(rows[i].at("time_s")), j["rows"][i]["time_s"].get<double>(), 1e-15);
    }
}

TEST(OutputsCli, AScenarioIsNamedWithItsSha256)
{
    const std::string path = TempPath("scenario.json");
    std::ofstream(path) << R"({"ranks": 4, "model": {"alpha": "5us", "beta": "450GB/s"}, "sizes": "1MB",
                              "backends": ["closed"], "seed": 3})";
    auto r = RunHockney("compare --scenario=" + path + " --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto meta = nlohmann::json::parse(r.out)["meta"];
    EXPECT_EQ(meta["scenario"], path);
    EXPECT_EQ(meta["seed"], 3); // the scenario's
    EXPECT_EQ(meta["scenario_sha256"].get<std::string>(), Shell("sha256sum " + path).substr(0, 64));
    std::remove(path.c_str());
}

TEST(OutputsCli, PerOpTimesAreTheAlgebraByHand)
{
    // Ring AllReduce, 4 ranks, 4 MB: 2 (p - 1) = 6 steps, each rank sends one
    // 1 MB chunk per step. On the contention-free analytic channel with alpha
    // 5 us and beta 450 GB/s each op takes T = 5 us + 1e6 / 450e9 s and step k
    // runs from k T to (k + 1) T; LogGP with o = g = 0, L = alpha, G = 1/beta
    // is the same. The channel rounds each op's time (a few ps of 7.2 us):
    // 1e-6 relative, as the rows' own test.
    const std::string file = TempPath("per-op.csv");
    auto r = RunHockney("compare --alpha=5us --beta=450GB/s --ranks=4 --bytes=4MB --backends=closed,alphabeta,loggp "
                        "--per-op=" + file + " --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string text = ReadFile(file);
    EXPECT_EQ(text.rfind("# hockney_version=", 0), 0u);
    const auto rows = ParseCsv(text);
    ASSERT_EQ(rows.size(), 48u); // 24 ops x alphabeta, loggp (closed executes no schedule)
    const double T = 5e-6 + 1e6 / 450e9;
    std::map<std::string, int> perBackend;
    for (const auto& row : rows)
    {
        ++perBackend[row.at("backend")];
        const int k = std::stoi(row.at("step"));
        EXPECT_EQ(row.at("op_bytes"), "1000000");
        EXPECT_EQ(row.at("bytes"), "4000000");
        EXPECT_EQ(std::stoi(row.at("peer")), (std::stoi(row.at("rank")) + 1) % 4); // the ring's neighbour
        EXPECT_NEAR(std::stod(row.at("start_s")), k * T, 1e-6 * k * T) << row.at("op");
        EXPECT_NEAR(std::stod(row.at("end_s")), (k + 1) * T, 1e-6 * (k + 1) * T) << row.at("op");
    }
    EXPECT_EQ(perBackend["alphabeta"], 24);
    EXPECT_EQ(perBackend["loggp"], 24);
    std::remove(file.c_str());
}

TEST(OutputsCli, PerOpOfFlowAndPacketEndWithTheirRows)
{
    // Every backend that executes the schedule writes its ops; the last op's
    // end is the collective's time in its row.
    const std::string file = TempPath("per-op-packet.csv");
    auto r = RunHockney("compare --topology=dgx-h100 --ranks=2 --bytes=64KB --backends=flow,packet --per-op=" + file +
                        " --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    std::map<std::string, double> lastEnd;
    std::map<std::string, int> count;
    for (const auto& row : ParseCsv(ReadFile(file)))
    {
        lastEnd[row.at("backend")] = std::max(lastEnd[row.at("backend")], std::stod(row.at("end_s")));
        ++count[row.at("backend")];
    }
    for (const auto& row : j["rows"])
    {
        const std::string b = row["backend"];
        EXPECT_EQ(count[b], 2 * 2) << b; // ring AllReduce on 2 ranks: 2 steps, 2 ops each
        EXPECT_NEAR(lastEnd[b], row["time_s"].get<double>(), 1e-9 * row["time_s"].get<double>()) << b;
    }
    std::remove(file.c_str());
}

TEST(OutputsCli, TracesOfAnIncastMatchItsCounters)
{
    // The time series of the packet run: sampled every 2 us, and one event
    // line per ECN mark and per CNP, as many as the row counts.
    const std::string dir = TempPath("traces");
    std::filesystem::remove_all(dir);
    auto r = RunHockney("compare --topology=roce-leafspine --collective=incast --bytes=1MB --backends=packet "
                        "--traces=" + dir + " --trace-interval=2us --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto row = nlohmann::json::parse(r.out)["rows"][0];
    const std::string prefix = dir + "/packet-1000000-";
    const auto pfc = ParseCsv(ReadFile(prefix + "pfc.csv"));
    ASSERT_GT(pfc.size(), 2u);
    EXPECT_NEAR(std::stod(pfc[1].at("time_s")) - std::stod(pfc[0].at("time_s")), 2e-6, 1e-12);
    EXPECT_EQ(std::stoull(pfc.back().at("pfc_pauses_sent")), row["pfc_pauses"].get<uint64_t>());
    const auto queues = ParseCsv(ReadFile(prefix + "queues.csv"));
    EXPECT_EQ(queues.size(), pfc.size());
    EXPECT_GT(queues[0].size(), 2u); // time_s and a column per port
    EXPECT_FALSE(ParseCsv(ReadFile(prefix + "rates.csv")).empty());
    std::map<std::string, uint64_t> events;
    for (const auto& e : ParseCsv(ReadFile(prefix + "events.csv")))
    {
        ++events[e.at("event")];
    }
    EXPECT_GT(row["ecn_marks"].get<uint64_t>(), 0u) << "the incast is expected to mark";
    EXPECT_EQ(events["ecn-mark"], row["ecn_marks"].get<uint64_t>());
    EXPECT_EQ(events["cnp"], row["cnps"].get<uint64_t>());
    std::filesystem::remove_all(dir);
}

TEST(OutputsCli, WallLimitKeepsEveryRowAndExitsThree)
{
    // A limit of 0 s stops the first packet run at once: every row is still
    // printed, the later size without a packet run, and the exit status is 3.
    auto r = RunHockney("compare --topology=dgx-h100 --ranks=2 --bytes=64KB,128KB --backends=closed,alphabeta,packet "
                        "--wall-limit=0s --format=json");
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("wall-clock limit"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    const auto rows = nlohmann::json::parse(r.out)["rows"];
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(rows[2]["status"], "stopped-at-wall-limit");
    EXPECT_EQ(rows[5]["status"], "not-run-after-wall-limit");
    EXPECT_TRUE(rows[5]["time_s"].is_null());
    for (int i : {0, 1, 3, 4})
    {
        EXPECT_GT(rows[i]["time_s"].get<double>(), 0) << rows[i].dump();
    }
}

TEST(OutputsCli, UnwritableOutputsAreBadInput)
{
    // /proc takes no new files or directories, even for root.
    const std::string base = "compare --alpha=5us --beta=450GB/s --ranks=2 --backends=closed ";
    hockney::ExpectBadInput(base + "--output=/proc/hockney-out", "--output");
    hockney::ExpectBadInput(base + "--per-op=/proc/hockney-per-op.csv", "--per-op");
    hockney::ExpectBadInput(base + "--pcap=/proc/hockney-pcap", "--pcap");
    hockney::ExpectBadInput(base + "--traces=/proc/hockney-traces", "--traces");
    hockney::ExpectBadInput(base + "--trace-interval=0us", "--trace-interval");
    hockney::ExpectBadInput(base + "--traces=" + TempPath("no-packet"), "--traces"); // no packet backend
    const std::string calibrate = "calibrate --input=" HOCKNEY_SOURCE_DIR "/validation/data/"
                                  "perftest_ib_write_bw_HDR200_cx6.csv ";
    hockney::ExpectBadInput(calibrate + "--output=/proc/hockney-params.json", "--output");
    hockney::ExpectBadInput(calibrate + "--residuals=/proc/hockney-residuals.csv", "--residuals");
    auto r = RunHockney(base + "--per-op=/proc/hockney-per-op.csv");
    EXPECT_NE(r.err.find("/proc/hockney-per-op.csv"), std::string::npos) << r.err;
}

TEST(OutputsCli, PcapDissectsAsRoCEv2)
{
    // An incast with DCQCN on RoCE: the busiest port's file (the receiver's
    // link) holds the writes in, the ACKs and CNPs out. tshark, an
    // independent dissector, must read it as InfiniBand over RoCEv2 with
    // valid data QPNs (not QP0 or QP1), ACKs as RC Acknowledge (0x11) with an
    // AETH, CNPs as opcode 0x81.
    if (std::system("tshark --version >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "tshark is not installed (./hockney setup installs it)";
    }
    const std::string dir = TempPath("pcap");
    std::filesystem::remove_all(dir);
    auto r = RunHockney("compare --topology=roce-leafspine --collective=incast --bytes=1MB --backends=packet "
                        "--pcap=" + dir + " --format=json");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto row = nlohmann::json::parse(r.out)["rows"][0];
    ASSERT_GT(row["cnps"].get<uint64_t>(), 0u) << "the incast is expected to send CNPs";
    std::string busiest;
    uintmax_t largest = 0;
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
    {
        ++files;
        EXPECT_EQ(e.path().filename().string().rfind("packet-1000000-", 0), 0u) << e.path();
        if (e.file_size() > largest)
        {
            largest = e.file_size();
            busiest = e.path().string();
        }
    }
    ASSERT_GT(files, 1);
    const std::string fields = Shell("tshark -r " + busiest +
                                     " -T fields -E separator=, -e frame.protocols -e infiniband.bth.opcode "
                                     "-e infiniband.bth.destqp -e infiniband.aeth.syndrome 2>/dev/null");
    std::map<unsigned, int> opcodes;
    int lines = 0;
    std::istringstream in(fields);
    for (std::string line; std::getline(in, line);)
    {
        std::vector<std::string> f;
        std::string cell;
        std::istringstream s(line);
        while (std::getline(s, cell, ','))
        {
            f.push_back(cell);
        }
        if (f.size() < 3 || f[1].empty())
        {
            continue; // a PFC frame: no BTH
        }
        ++lines;
        EXPECT_NE(f[0].find("udp:infiniband"), std::string::npos) << line;
        const unsigned op = std::stoul(f[1], nullptr, 0);
        const unsigned qp = std::stoul(f[2], nullptr, 0);
        ++opcodes[op];
        EXPECT_GE(qp, 2u) << "QP0 and QP1 are special: " << line;
        if (op == 0x11)
        {
            EXPECT_TRUE(f.size() > 3 && !f[3].empty()) << "an ACK without an AETH: " << line;
        }
    }
    EXPECT_GT(lines, 100);
    EXPECT_GT(opcodes[0x11], 0) << "RC Acknowledge";
    EXPECT_GT(opcodes[0x81], 0) << "CNP";
    int writes = 0;
    for (unsigned op = 0x06; op <= 0x0B; ++op)
    {
        writes += opcodes[op];
    }
    EXPECT_GT(writes, 0) << "RC RDMA Write";
    std::filesystem::remove_all(dir);
}
