// SPDX-License-Identifier: GPL-2.0-only
//
// Runs build/bin/hockney as a user would (HOCKNEY_BIN, defined for the cli-test
// binary) and captures its exit status, stdout and stderr, for the CLI tests.
#ifndef HOCKNEY_CLI_RUNNER_H
#define HOCKNEY_CLI_RUNNER_H

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace hockney
{

struct CliResult
{
    int status = -1; ///< exit status; -1 if the program did not exit normally
    std::string out;
    std::string err;
};

inline std::string
ReadFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A path in /tmp unique to this test process (each test runs in its own).
inline std::string
TempPath(const std::string& stem)
{
    return "/tmp/hockney-cli-test-" + std::to_string(getpid()) + "-" + stem;
}

/// The lines of a hockney CSV output without its leading provenance comment
/// lines ("# key=value"): the header first, as a CSV reader that skips
/// comments (pandas comment='#') sees it.
inline std::string
CsvWithoutComments(const std::string& csv)
{
    std::istringstream in(csv);
    std::string out;
    for (std::string line; std::getline(in, line);)
    {
        if (line.rfind("#", 0) != 0)
        {
            out += line + "\n";
        }
    }
    return out;
}

/// Runs `hockney ARGS`; stdout and stderr go through files so neither can
/// block. \p env: NAME=VALUE assignments for its environment.
inline CliResult
RunHockney(const std::string& args, const std::string& env = "")
{
    const std::string base = TempPath("run");
    const std::string cmd =
        env + " " + std::string(HOCKNEY_BIN) + " " + args + " >" + base + ".out 2>" + base + ".err";
    const int rc = std::system(cmd.c_str());
    CliResult r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = ReadFile(base + ".out");
    r.err = ReadFile(base + ".err");
    std::remove((base + ".out").c_str());
    std::remove((base + ".err").c_str());
    // In the sanitized tree (HOCKNEY_SANITIZE) the program's own ASan, LSan or
    // UBSan report lands in its stderr: a failure of the test whatever the
    // exit status it checks, so that a test expecting a failure cannot pass
    // over one.
    for (const char* mark : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", ": runtime error: "})
    {
        EXPECT_EQ(r.err.find(mark), std::string::npos) << "sanitizer report from hockney " << args
                                                       << "\nstderr: " << r.err;
    }
    return r;
}

/// The rows of `hockney ARGS --format=json` (empty, and a test failure, if
/// it did not exit 0).
inline nlohmann::json
RunRows(const std::string& args)
{
    CliResult r = RunHockney(args + " --format=json");
    EXPECT_EQ(r.status, 0) << args << "\nstderr: " << r.err;
    return r.status == 0 ? nlohmann::json::parse(r.out)["rows"] : nlohmann::json::array();
}

/// The CLI contract for bad input: exit status 2 and exactly one line on
/// stderr that names \p flag (the flag or scenario field at fault).
inline void
ExpectBadInput(const std::string& args, const std::string& flag)
{
    CliResult r = RunHockney(args);
    EXPECT_EQ(r.status, 2) << args << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\nstderr: " << r.err;
}

} // namespace hockney

#endif
