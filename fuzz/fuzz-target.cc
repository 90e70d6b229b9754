// SPDX-License-Identifier: GPL-2.0-only
#include "fuzz-target.h"

#include "ns3/nstime.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <typeinfo>
#include <unistd.h>

// Every target's setup (libFuzzer calls it once, before the first input).
extern "C" int
LLVMFuzzerInitialize(int*, char***)
{
    ns3::Time::SetResolution(ns3::Time::PS);
    return 0;
}

namespace hockney
{
namespace fuzz
{

void
ReportEscape(const char* target, const char* what)
{
    std::fprintf(stderr,
                 "==hockney-fuzz== %s: an exception other than InputError escaped the parser: %s\n"
                 "(bad input must be an InputError: one line naming the field, exit 2)\n",
                 target,
                 what);
    std::abort();
}

InputFile::InputFile(const std::string& suffix)
{
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/hockney-fuzz-XXXXXX" + suffix;
    const int fd = mkstemps(pattern.data(), static_cast<int>(suffix.size()));
    if (fd < 0)
    {
        std::perror("hockney-fuzz: mkstemps");
        std::abort();
    }
    close(fd);
    m_path = pattern;
}

InputFile::~InputFile()
{
    unlink(m_path.c_str());
}

const std::string&
InputFile::Write(const uint8_t* data, size_t size)
{
    FILE* f = std::fopen(m_path.c_str(), "wb");
    if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
    {
        std::perror("hockney-fuzz: writing the input file");
        std::abort();
    }
    return m_path;
}

} // namespace fuzz
} // namespace hockney
