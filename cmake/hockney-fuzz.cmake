# SPDX-License-Identifier: GPL-2.0-only
#
# HOCKNEY_FUZZ=ON: the libFuzzer targets of fuzz/ (fuzz/README.md). clang
# only: libFuzzer is clang's (Debian: clang and libclang-rt-14-dev).
#
# The fuzzers are linked with -fsanitize=fuzzer,address,undefined; the module
# libraries they fuzz get libFuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link, fuzz/CMakeLists.txt) and, like everything this
# tree compiles, AddressSanitizer and UndefinedBehaviorSanitizer. With
# HOCKNEY_SANITIZE=ON as well (the sanitized tree of `./hockney test
# --sanitize`) those two come from cmake/hockney-sanitize.cmake and are not
# added a second time.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "HOCKNEY_FUZZ=ON needs clang++ (libFuzzer is part of clang), got the "
                      "${CMAKE_CXX_COMPILER_ID} compiler ${CMAKE_CXX_COMPILER}: configure a fresh build "
                      "directory with -DCMAKE_CXX_COMPILER=clang++ (Debian packages clang and libclang-rt-14-dev)")
endif()
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=fuzzer,address,undefined")
check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
]] HOCKNEY_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT HOCKNEY_HAVE_LIBFUZZER)
  message(FATAL_ERROR "HOCKNEY_FUZZ=ON: ${CMAKE_CXX_COMPILER} cannot link with -fsanitize=fuzzer,address,undefined; "
                      "install libclang-rt-14-dev (libFuzzer and the sanitizer runtimes)")
endif()

if(NOT HOCKNEY_SANITIZE)
  # As cmake/hockney-sanitize.cmake does: a UB finding stops the program, so
  # that libFuzzer keeps the input; NDEBUG left undefined, so that the asserts
  # of header libraries (nlohmann-json's on a missing key of a const object)
  # fire too. -O2 (not -O1) because a fuzzer's worth is its executions per second.
  set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 -gline-tables-only")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
