# SPDX-License-Identifier: GPL-2.0-only
#
# benchmarks/mpi/mpi-sync-bench.cc: the cost of one synchronisation window of
# ns-3's distributed simulators, run under mpirun (benchmarks/README.md, "Past
# one machine"). Only with ns-3's mpi module (HOCKNEY_MPI); ctest runs a smoke
# of 2 ranks and a few windows per algorithm and checks that it exits 0 and
# writes its JSON (no timing asserted), like mpi.fabric-distributed.*.
if(NOT HOCKNEY_MPI)
  return()
endif()
add_executable(bench-mpi-sync ${CMAKE_SOURCE_DIR}/benchmarks/mpi/mpi-sync-bench.cc)
target_link_libraries(bench-mpi-sync PRIVATE hockney-ns3-mpi ns3::libcore ns3::libnetwork
                                             nlohmann_json::nlohmann_json MPI::MPI_CXX)
target_include_directories(bench-mpi-sync PRIVATE ${CMAKE_SOURCE_DIR}/contrib/core/model)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/mpi-test)
foreach(sync gtw nullmsg)
  set(_json ${CMAKE_BINARY_DIR}/mpi-test/mpi-sync-bench-${sync}.json)
  add_test(NAME mpi.sync-bench.2-ranks.${sync}.run
           COMMAND ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                   ${HOCKNEY_MPIEXEC} --allow-run-as-root --oversubscribe -np 2
                   $<TARGET_FILE:bench-mpi-sync> --sync=${sync} --windows=50 --packets-per-window=1 --json=${_json})
  set_tests_properties(mpi.sync-bench.2-ranks.${sync}.run PROPERTIES TIMEOUT 120 PROCESSORS 2
                       FIXTURES_SETUP mpi.sync-bench.${sync})
  if(Python3_Interpreter_FOUND)
    add_test(NAME mpi.sync-bench.2-ranks.${sync}.json
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/benchmarks/mpi-speedup-model.py --check-json ${_json}
                     --expect-ranks=2 --expect-sync=${sync})
    set_tests_properties(mpi.sync-bench.2-ranks.${sync}.json PROPERTIES TIMEOUT 30
                         FIXTURES_REQUIRED mpi.sync-bench.${sync})
  endif()
endforeach()
