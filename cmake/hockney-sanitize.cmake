# SPDX-License-Identifier: GPL-2.0-only
#
# HOCKNEY_SANITIZE=ON: AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer over everything this project compiles, for the
# sanitized tree of `./hockney test --sanitize` (clang++, as ./hockney configures it).
#
# -O1, as clang's ASan documentation advises for a reasonable speed, with
# line tables only: enough for file:line in every report, and less to compile
# and link than full debug information (timings in README.md, "Testing").
# NDEBUG is left undefined so that the asserts in header libraries
# (nlohmann-json's, GoogleTest's) fire as well.
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1")
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  string(APPEND CMAKE_CXX_FLAGS_RELWITHDEBINFO " -gline-tables-only")
else()
  string(APPEND CMAKE_CXX_FLAGS_RELWITHDEBINFO " -g1")
endif()
# A UB finding stops the program (exit status 1 with its report on stderr)
# instead of printing and going on, so that a test cannot pass over it.
add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                    -fno-sanitize-recover=undefined)
add_link_options(-fsanitize=address,undefined)
# The checks ns-3's own inline header code fails, each justified in the file
# (clang only; with g++ they would be reported).
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # (clang writes the list into each object's dependency file: editing it
  # rebuilds them.)
  add_compile_options(-fsanitize-ignorelist=${CMAKE_SOURCE_DIR}/test-support/sanitizer/ubsan-ignorelist.txt)
endif()

# The sanitizers' run-time defaults (symbolizer, suppressions), compiled into
# every executable of the tree (hockney_sanitize_executables below), so that
# ctest, gtest's test discovery at build time and a hand-run program all use
# the same ones without an environment variable. ASAN_OPTIONS, LSAN_OPTIONS
# and UBSAN_OPTIONS set by hand still override them.
find_program(HOCKNEY_LLVM_SYMBOLIZER NAMES llvm-symbolizer-14 llvm-symbolizer
             DOC "llvm-symbolizer for file:line in sanitizer reports")
if(NOT HOCKNEY_LLVM_SYMBOLIZER)
  message(WARNING "llvm-symbolizer not found (Debian: llvm-14): sanitizer reports will show addresses only")
  set(HOCKNEY_LLVM_SYMBOLIZER "")
endif()
add_library(hockney-sanitizer-defaults OBJECT ${CMAKE_SOURCE_DIR}/test-support/sanitizer-defaults.cc)
target_compile_definitions(hockney-sanitizer-defaults PRIVATE
  HOCKNEY_SANITIZER_DIR="${CMAKE_SOURCE_DIR}/test-support/sanitizer"
  HOCKNEY_LLVM_SYMBOLIZER="${HOCKNEY_LLVM_SYMBOLIZER}")

# Links the defaults into every executable target of DIR and its
# subdirectories (called once at the end of the top-level CMakeLists.txt, so
# that targets added later, the fuzzers among them, get them too). The
# runtime's own definitions are weak; an executable's strong one wins.
function(hockney_sanitize_executables DIR)
  get_property(targets DIRECTORY ${DIR} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE")
      target_link_libraries(${t} PRIVATE hockney-sanitizer-defaults)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${DIR} PROPERTY SUBDIRECTORIES)
  foreach(d ${subdirs})
    hockney_sanitize_executables(${d})
  endforeach()
endfunction()
