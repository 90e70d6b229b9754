# SPDX-License-Identifier: GPL-2.0-only
#
# hockney_module(NAME DEPS ...): one ns-3-style module contrib/NAME with
# model/ and helper/ sources in a SHARED library (a static one would drop the
# NS_OBJECT_ENSURE_REGISTERED objects nobody references) and test/*.cc in one
# GoogleTest binary NAME-test, each test in its own process.
function(hockney_module NAME)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  set(dir ${CMAKE_SOURCE_DIR}/contrib/${NAME})
  file(GLOB srcs CONFIGURE_DEPENDS ${dir}/model/*.cc ${dir}/helper/*.cc)
  add_library(hockney-${NAME} SHARED ${srcs})
  target_include_directories(hockney-${NAME} PUBLIC ${dir}/model ${dir}/helper ${dir})
  target_link_libraries(hockney-${NAME} PUBLIC ${M_DEPS})
  # ns-3's own build sets NS3_LOG_ENABLE; Debian's libraries were built with it
  # and some class layouts depend on it.
  target_compile_definitions(hockney-${NAME} PUBLIC NS3_LOG_ENABLE)
  target_compile_options(hockney-${NAME} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(HOCKNEY_HOT_PATH_LOG)
    # Per-packet NS_LOG statements (fabric-log.h), off by default for speed.
    target_compile_definitions(hockney-${NAME} PRIVATE HOCKNEY_HOT_PATH_LOG)
  endif()

  file(GLOB tests CONFIGURE_DEPENDS ${dir}/test/*.cc)
  if(tests)
    add_executable(${NAME}-test ${tests})
    target_link_libraries(${NAME}-test PRIVATE hockney-${NAME} hockney-test-main GTest::gtest ${M_DEPS})
    target_compile_definitions(${NAME}-test PRIVATE HOCKNEY_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
    gtest_discover_tests(${NAME}-test DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)
  endif()
endfunction()
