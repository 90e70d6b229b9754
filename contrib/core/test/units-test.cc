// SPDX-License-Identifier: GPL-2.0-only
//
// The one unit parser and the one row writer: values by hand from the unit
// definitions (KB = 1000 B, KiB = 1024 B, GB/s bytes, Gbps bits), and the
// one-line errors that name the field.
#include "input-error.h"
#include "result-row.h"
#include "sha256.h"
#include "units.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>

using namespace ns3;

namespace
{

// The message of the InputError thrown by fn, or "" if none was thrown.
template <typename F>
std::string
ErrorOf(F fn)
{
    try
    {
        fn();
    }
    catch (const InputError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(Units, SizesArePowersOfThousandOrOfTwo)
{
    EXPECT_EQ(units::ParseBytes("4096", "--bytes"), 4096u);
    EXPECT_EQ(units::ParseBytes("4KB", "--bytes"), 4000u);
    EXPECT_EQ(units::ParseBytes("4KiB", "--bytes"), 4096u);
    EXPECT_EQ(units::ParseBytes("1.5MiB", "--bytes"), 1572864u);
    EXPECT_EQ(units::ParseBytes("2.25MB", "--bytes"), 2250000u);
    EXPECT_EQ(units::ParseBytes("1GiB", "--bytes"), 1073741824u);
    EXPECT_EQ(units::ParseBytes(" 8 B ", "--bytes"), 8u);
}

TEST(Units, RatesInBytesOrBits)
{
    EXPECT_DOUBLE_EQ(units::ParseBytesPerSecond("450GB/s", "--beta"), 450e9);
    EXPECT_DOUBLE_EQ(units::ParseBytesPerSecond("450GBps", "--beta"), 450e9);
    EXPECT_DOUBLE_EQ(units::ParseBytesPerSecond("400Gbps", "--beta"), 50e9);
    EXPECT_DOUBLE_EQ(units::ParseBytesPerSecond("100Gb/s", "--beta"), 12.5e9);
    EXPECT_EQ(units::ParseDataRate("450GB/s", "--beta").GetBitRate(), 3600000000000ull);
}

TEST(Units, Times)
{
    EXPECT_DOUBLE_EQ(units::ParseSeconds("5us", "--alpha"), 5e-6);
    EXPECT_DOUBLE_EQ(units::ParseSeconds("800ns", "--alpha"), 800e-9);
    EXPECT_DOUBLE_EQ(units::ParseSeconds("3ms", "--alpha"), 3e-3);
    EXPECT_DOUBLE_EQ(units::ParseSeconds("0", "--alpha"), 0);
    EXPECT_EQ(units::ParseTime("1us", "--alpha").GetPicoSeconds(), 1000000);
}

TEST(Units, BadValuesNameTheField)
{
    // Each error is one line that starts with the field.
    for (const auto& tc : std::vector<std::pair<std::string, std::string>>{
             {"-1KB", "--bytes"}, {"nan", "--bytes"}, {"1XB", "--bytes"}, {"", "--bytes"}, {"KB", "--bytes"}})
    {
        const std::string& text = tc.first;
        const std::string& field = tc.second;
        const std::string e = ErrorOf([&]() { units::ParseBytes(text, field); });
        EXPECT_EQ(e.rfind(field + ": ", 0), 0u) << "'" << text << "': " << e;
        EXPECT_EQ(e.find('\n'), std::string::npos);
    }
    EXPECT_EQ(ErrorOf([]() { units::ParseBytesPerSecond("450GB", "--beta"); }).rfind("--beta: ", 0), 0u);
    EXPECT_EQ(ErrorOf([]() { units::ParseSeconds("5", "--alpha"); }).rfind("--alpha: ", 0), 0u); // unit needed
    EXPECT_EQ(ErrorOf([]() { units::ParseSeconds("inf s", "--alpha"); }).rfind("--alpha: ", 0), 0u);
    EXPECT_EQ(ErrorOf([]() { units::ParseNumber("0.9x", "--eta"); }).rfind("--eta: ", 0), 0u);
    EXPECT_EQ(ErrorOf([]() { units::ParseCount("-3", "--ranks"); }).rfind("--ranks: ", 0), 0u);
    EXPECT_EQ(ErrorOf([]() { units::SplitList("1KB,,2KB", "--bytes"); }).rfind("--bytes: ", 0), 0u);
}

TEST(Units, UpperBoundsKeepNs3TimeAndDataRateInRange)
{
    // 1000 s is the largest time parameter; 1e7 s would overflow ns-3's
    // picosecond Time (9.2e6 s) and abort inside an attribute checker.
    EXPECT_DOUBLE_EQ(units::ParseSeconds("1000s", "--alpha"), 1000);
    EXPECT_NE(ErrorOf([]() { units::ParseSeconds("1e7s", "--alpha"); }).find("up to 1000s"), std::string::npos);
    // 1 PB/s is the largest rate (8e15 bit/s, exact in a 64-bit DataRate).
    EXPECT_DOUBLE_EQ(units::ParseBytesPerSecond("1000TB/s", "--beta"), 1e15);
    EXPECT_NE(ErrorOf([]() { units::ParseBytesPerSecond("1e30GB/s", "--beta"); }).find("up to 1PB/s"),
              std::string::npos);
}

TEST(Units, WallClockLimitsTakeMinutesAndHoursUpToAWeek)
{
    // A 1024-GPU packet run takes tens of minutes: its wall-clock limit is
    // not capped at the 1000 s of a communication parameter.
    EXPECT_EQ(units::ParseWallClockLimit("600s", "--wall-limit").GetSeconds(), 600);
    EXPECT_EQ(units::ParseWallClockLimit("30min", "--wall-limit").GetSeconds(), 1800);
    EXPECT_EQ(units::ParseWallClockLimit("2h", "--wall-limit").GetSeconds(), 7200);
    EXPECT_EQ(units::ParseWallClockLimit("168h", "--wall-limit").GetSeconds(), 604800);
    EXPECT_EQ(units::ParseWallClockLimit("0", "--wall-limit").GetPicoSeconds(), 0);
    EXPECT_EQ(units::ParseWallClockLimit("250ms", "--wall-limit").GetPicoSeconds(), 250000000000LL);
    EXPECT_NE(ErrorOf([]() { units::ParseWallClockLimit("169h", "--wall-limit"); }).find("up to 168h"),
              std::string::npos);
    EXPECT_EQ(ErrorOf([]() { units::ParseWallClockLimit("2days", "--wall-limit"); }).rfind("--wall-limit: ", 0), 0u);
    EXPECT_EQ(ErrorOf([]() { units::ParseWallClockLimit("-1s", "--wall-limit"); }).rfind("--wall-limit: ", 0), 0u);
    // The other durations keep their 1000 s bound.
    EXPECT_NE(ErrorOf([]() { units::ParseSeconds("30min", "--alpha"); }).find("--alpha: "), std::string::npos);
}

// Found by fuzz/units-fuzzer.cc (fuzz/corpus/units/regress-size-above-2-63, "1.8e19"): sizes from
// 2^63 to the 1.8e19 bound went through std::llround, whose long long ends at
// 2^63 - 1, and came back as 2^63. Exact expectations: 1.8e19 and 1e19 are
// integers a double holds exactly (multiples of 2^11 below 2^64), so the
// parser's rounding is the identity on them.
TEST(Units, SizesAbove2To63AreExact)
{
    EXPECT_EQ(units::ParseBytes("1.8e19", "--bytes"), 18000000000000000000ull);
    EXPECT_EQ(units::ParseBytes("1e19B", "--bytes"), 10000000000000000000ull);
    // 2^63 + 2^11 (9223372036854777856), the next double after 2^63.
    EXPECT_EQ(units::ParseBytes("9223372036854777856", "--bytes"), 9223372036854777856ull);
    EXPECT_NE(ErrorOf([]() { units::ParseBytes("1.9e19", "--bytes"); }).find("below 16 EiB"), std::string::npos);
}

TEST(Units, FormattersForTables)
{
    // Whole KiB (and not whole KB), MiB, GiB keep their binary unit.
    EXPECT_EQ(units::FormatBytes(4096), "4 KiB");
    EXPECT_EQ(units::FormatBytes(1048576), "1 MiB");
    EXPECT_EQ(units::FormatBytes(1073741824), "1 GiB");
    EXPECT_EQ(units::FormatBytes(1000), "1 KB");
    EXPECT_EQ(units::FormatBytes(2250000), "2.25 MB");
    EXPECT_EQ(units::FormatBytes(512), "512 B");
    EXPECT_EQ(units::FormatSeconds(5e-6), "5 us");
    EXPECT_EQ(units::FormatSeconds(2.5e-9), "2.5 ns");
    EXPECT_EQ(units::FormatSeconds(0.0123), "12.3 ms");
    EXPECT_EQ(units::FormatSeconds(0), "0 s");
    EXPECT_EQ(units::FormatBytesPerSecond(450e9), "450 GB/s");
    EXPECT_EQ(units::FormatBytesPerSecond(12.5e6), "12.5 MB/s");
}

TEST(ResultRows, OneRowTypeThreeFormats)
{
    std::vector<ResultRow> rows(2);
    rows[0].Set("bytes", uint64_t{1000}).Set("time_s", 2.5e-6).Set("backend", "closed").SetNull("error");
    rows[1].Set("bytes", uint64_t{2000}).Set("time_s", 3.5e-6).Set("backend", "a,b").Set("error", 0.25);
    std::ostringstream csv;
    WriteRows(csv, "model", rows, OutputFormat::CSV);
    // The provenance comment lines, then the header in first-seen order,
    // null as empty, a comma quoted (RFC 4180).
    const std::string text = csv.str();
    const std::string comments = "# hockney_version=" + HockneyVersion() + "\n# ns3_version=" + Ns3Version() +
                                 "\n# command_line=\n";
    ASSERT_EQ(text.rfind(comments, 0), 0u) << text;
    EXPECT_EQ(text.substr(comments.size()),
              "bytes,time_s,backend,error\n1000,2.5e-06,closed,\n2000,3.5e-06,\"a,b\",0.25\n");
    std::ostringstream js;
    WriteRows(js, "model", rows, OutputFormat::JSON);
    auto doc = nlohmann::json::parse(js.str());
    EXPECT_EQ(doc["command"], "model");
    EXPECT_TRUE(doc["rows"][0]["error"].is_null());
    EXPECT_DOUBLE_EQ(doc["rows"][1]["error"].get<double>(), 0.25);
    EXPECT_EQ(doc["rows"][1]["bytes"].get<int>(), 2000);
    EXPECT_EQ(doc["meta"]["hockney_version"], HockneyVersion());
    EXPECT_TRUE(doc["meta"]["seed"].is_null()); // no program set one

    std::ostringstream table;
    WriteRows(table, "model", rows, OutputFormat::TABLE);
    EXPECT_NE(table.str().find("-"), std::string::npos); // null shows as "-"
    EXPECT_EQ(ParseOutputFormat("csv"), OutputFormat::CSV);
    EXPECT_EQ(ErrorOf([]() { ParseOutputFormat("xml"); }).rfind("--format: ", 0), 0u);
}

TEST(ResultRows, ProvenanceOfAProgram)
{
    // What a program sets is written by every writer; an argument with a
    // newline stays on its comment line.
    OutputProvenance() = Provenance{"hockney compare " + ShellQuote("a b") + " " + ShellQuote("x\ny"), 42,
                                    "s.json", "ab12"};
    EXPECT_EQ(OutputProvenance().commandLine, "hockney compare 'a b' 'x\ny'");
    std::ostringstream csv;
    WriteRows(csv, "compare", {ResultRow().Set("bytes", 1)}, OutputFormat::CSV);
    EXPECT_NE(csv.str().find("# command_line=hockney compare 'a b' 'x\\ny'\n# seed=42\n# scenario=s.json\n"
                             "# scenario_sha256=ab12\nbytes\n1\n"),
              std::string::npos)
        << csv.str();
    std::ostringstream js;
    WriteRows(js, "compare", {}, OutputFormat::JSON);
    auto meta = nlohmann::json::parse(js.str())["meta"];
    EXPECT_EQ(meta["seed"], 42);
    EXPECT_EQ(meta["scenario"], "s.json");
    EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
    OutputProvenance() = Provenance();
}

TEST(ResultRows, ReproducibleLeavesOutTheHostMeasurements)
{
    // A row as a packet run writes it: a model field on each side of the
    // two host measurements.
    std::vector<ResultRow> rows(1);
    rows[0].Set("time_s", 2.5e-6).Set("wall_s", 0.125).Set("events", uint64_t{7}).Set("peak_rss_bytes",
                                                                                        uint64_t{1} << 24);
    EXPECT_TRUE(IsHostMeasurement("wall_s"));
    EXPECT_TRUE(IsHostMeasurement("peak_rss_bytes"));
    EXPECT_FALSE(IsHostMeasurement("time_s"));
    EXPECT_FALSE(IsHostMeasurement("sim_s"));
    OutputProvenance().reproducible = true;
    std::ostringstream csv;
    WriteRows(csv, "compare", rows, OutputFormat::CSV);
    EXPECT_NE(csv.str().find("# reproducible=true\ntime_s,events\n2.5e-06,7\n"), std::string::npos) << csv.str();
    std::ostringstream js;
    WriteRows(js, "compare", rows, OutputFormat::JSON);
    const auto doc = nlohmann::ordered_json::parse(js.str());
    EXPECT_EQ(doc["rows"][0].dump(), R"({"time_s":2.5e-06,"events":7})");
    EXPECT_EQ(doc["meta"]["reproducible"], true);
    std::ostringstream table;
    WriteRows(table, "compare", rows, OutputFormat::TABLE);
    EXPECT_EQ(table.str().find("wall_s"), std::string::npos) << table.str();
    const std::string file = "/tmp/hockney-units-test-" + std::to_string(::getpid()) + ".csv";
    WriteCsvFile(file, rows);
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(file.c_str());
    EXPECT_EQ(text.find("wall_s"), std::string::npos) << text;
    // Without it every field is written, and meta says false.
    OutputProvenance() = Provenance();
    std::ostringstream all;
    WriteRows(all, "compare", rows, OutputFormat::JSON);
    const auto full = nlohmann::ordered_json::parse(all.str());
    EXPECT_EQ(full["rows"][0].size(), 4u);
    EXPECT_EQ(full["meta"]["reproducible"], false);
}

TEST(Sha256, KnownDigests)
{
    // FIPS 180-4 examples (NIST CSRC "Examples with intermediate values"):
    // one block, two blocks (56-byte message), and the empty string.
    EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // 64 bytes: the padding takes a whole second block.
    EXPECT_EQ(Sha256Hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}
