// SPDX-License-Identifier: GPL-2.0-only
//
// The sanitizers' run-time defaults for the sanitized tree (HOCKNEY_SANITIZE,
// cmake/hockney-sanitize.cmake), linked into every executable there: the
// runtimes call these hooks before main, so ctest, gtest's test discovery at
// build time and a program run by hand all get the same options without any
// environment variable. Options a user sets in ASAN_OPTIONS, LSAN_OPTIONS or
// UBSAN_OPTIONS are parsed after these and win.

#define HOCKNEY_SANITIZER_HOOK extern "C" __attribute__((visibility("default"), used))

/// file:line in reports: Debian installs the symbolizer as llvm-symbolizer-14
/// (llvm-14), which the runtime would not find by that name on PATH.
HOCKNEY_SANITIZER_HOOK const char*
__asan_default_options()
{
    return "external_symbolizer_path=" HOCKNEY_LLVM_SYMBOLIZER;
}

/// LeakSanitizer's suppressions: for ns-3's own code only, each justified in
/// the file (today none is needed).
HOCKNEY_SANITIZER_HOOK const char*
__lsan_default_options()
{
    return "suppressions=" HOCKNEY_SANITIZER_DIR "/lsan.supp";
}

/// A UB report with the stack that led to it, not only the faulting line.
HOCKNEY_SANITIZER_HOOK const char*
__ubsan_default_options()
{
    return "print_stacktrace=1";
}
