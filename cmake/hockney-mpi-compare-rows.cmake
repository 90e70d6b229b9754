# SPDX-License-Identifier: GPL-2.0-only
#
# cmake -DPROGRAM=hockney -DMPIEXEC=... -DRANKS=N -DARGS="compare ..." -DWORK=DIR [-DIGNORE=events] -P hockney-mpi-compare-rows.cmake
#
# Runs `PROGRAM ARGS` (a compare with --format=json --reproducible) as one
# process, then under `mpirun -np RANKS`, and fails unless rank 0 printed
# the very JSON of one process: every row's time to the picosecond and every
# counter (ctest mpi.compare.*). IGNORE names a column left out of the
# comparison (null messages: ns-3 counts its null-message events with the
# run's, so "events" differs).
separate_arguments(_args UNIX_COMMAND "${ARGS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${PROGRAM} ${_args} OUTPUT_FILE ${WORK}/seq.json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "one process: exit ${rc}")
endif()
# Root in CI; 2 cores for 4 ranks.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
execute_process(COMMAND ${MPIEXEC} --allow-run-as-root --oversubscribe -np ${RANKS} ${PROGRAM} ${_args}
                OUTPUT_FILE ${WORK}/par.json RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${RANKS} ranks: exit ${rc}")
endif()
file(STRINGS ${WORK}/seq.json seq)
file(STRINGS ${WORK}/par.json par)
if(IGNORE)
  list(FILTER seq EXCLUDE REGEX "\"${IGNORE}\":")
  list(FILTER par EXCLUDE REGEX "\"${IGNORE}\":")
endif()
list(LENGTH seq n)
if(n LESS 10)
  message(FATAL_ERROR "one process printed no rows:\n${seq}")
endif()
if(NOT seq STREQUAL par)
  string(REPLACE ";" "\n" s "${seq}")
  string(REPLACE ";" "\n" p "${par}")
  message(FATAL_ERROR "${RANKS} ranks differ from one process\n--- one process\n${s}\n--- ${RANKS} ranks\n${p}")
endif()
message(STATUS "${RANKS} ranks: the ${n} JSON lines of one process")
