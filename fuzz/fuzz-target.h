// SPDX-License-Identifier: GPL-2.0-only
//
// What every libFuzzer target of hockney shares: the outcome rule and the
// process setup of the CLI (LLVMFuzzerInitialize in fuzz-target.cc sets the
// picosecond time resolution, as main() of build/bin/hockney does before any
// command; ns-3 fixes it once per process).
//
// The rule: a parser given any bytes either accepts them or throws the one
// bad-input error, InputError (the CLI prints its one line and exits 2). Any
// other exception (the CLI would print "internal error" and exit 1), a crash,
// a sanitizer report or a hang is a finding: RunParser aborts on the first
// kind, so that libFuzzer saves the input; the others libFuzzer and the
// sanitizers catch themselves.
#ifndef HOCKNEY_FUZZ_TARGET_H
#define HOCKNEY_FUZZ_TARGET_H

#include "input-error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace hockney
{
namespace fuzz
{


/// Runs \p parse; returns true when it accepted the input and false on an
/// InputError. Any other exception is reported on stderr with \p target and
/// the process aborts (a finding libFuzzer saves as crash-*).
template <typename F>
bool
RunParser(const char* target, F&& parse);

/// The input as text, the way the CLI reads a file (bytes, NULs included).
inline std::string
Text(const uint8_t* data, size_t size)
{
    return std::string(reinterpret_cast<const char*>(data), size);
}

/// A file that holds the current input, for entry points that take a path
/// (the CLI's readers): one per process under $TMPDIR, rewritten per input,
/// removed at exit.
class InputFile
{
  public:
    /// \p suffix: the file name's ending (".json").
    explicit InputFile(const std::string& suffix);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    /// Replaces the file's contents with \p data; returns its path.
    const std::string& Write(const uint8_t* data, size_t size);

  private:
    std::string m_path;
};

[[noreturn]] void ReportEscape(const char* target, const char* what);

template <typename F>
bool
RunParser(const char* target, F&& parse)
{
    try
    {
        parse();
        return true;
    }
    catch (const ns3::InputError&)
    {
        return false;
    }
    catch (const std::exception& e)
    {
        ReportEscape(target, e.what());
    }
    catch (...)
    {
        ReportEscape(target, "an exception not derived from std::exception");
    }
}

} // namespace fuzz
} // namespace hockney

#endif
