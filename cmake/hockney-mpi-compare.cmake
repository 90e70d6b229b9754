# SPDX-License-Identifier: GPL-2.0-only
#
# cmake -DPROGRAM=... -DMPIEXEC=... -DRANKS=N -DARGS="..." [-DSEQ_ARGS="..."] -DWORK=DIR [-DSTDOUT=1 [-DIGNORE=KEY]] [-DFAILS=1]
#       -P hockney-mpi-compare.cmake
#
# Runs PROGRAM ARGS SEQ_ARGS --output=WORK/seq as one process, then under
# `mpirun -np RANKS` with --output=WORK/par, and fails unless the lines every
# rank wrote (PREFIX.rankR), sorted, are the lines of the one process: a
# partitioned run that is the sequential run (ctest mpi.*).
# With STDOUT: no --output; what the program prints (rank 0's JSON rows of
# `hockney compare --format=json`) must be what one process prints, line for
# line, but the lines of key IGNORE ("events" under null messages: ns-3
# counts its null-message events with the run's).
# With FAILS: both runs must fail (exit status not 0) and the error line one
# process writes on stderr must be among those of the ranks (every rank
# finds the same: a check reduced over the ranks).
separate_arguments(_args UNIX_COMMAND "${ARGS}")
separate_arguments(_seq_args UNIX_COMMAND "${SEQ_ARGS}")
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
if(STDOUT)
  set(_seq_out OUTPUT_FILE ${WORK}/seq.out)
  set(_par_out OUTPUT_FILE ${WORK}/par.out)
else()
  set(_seq_file --output=${WORK}/seq)
  set(_par_args --output=${WORK}/par)
endif()
if(FAILS)
  set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
  set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
  execute_process(COMMAND ${PROGRAM} ${_args} ${_seq_args} OUTPUT_QUIET ERROR_VARIABLE seq_err RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "one process: exit 0, expected a failure")
  endif()
  string(REGEX MATCH "[^\n]*ERROR[^\n]*" line "${seq_err}")
  if(line STREQUAL "")
    message(FATAL_ERROR "one process: no error line on stderr:\n${seq_err}")
  endif()
  execute_process(COMMAND ${MPIEXEC} --allow-run-as-root --oversubscribe -np ${RANKS} ${PROGRAM} ${_args}
                  OUTPUT_QUIET ERROR_VARIABLE par_err RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${RANKS} ranks: exit 0, expected: ${line}")
  endif()
  string(FIND "${par_err}" "${line}" at)
  if(at LESS 0)
    message(FATAL_ERROR "${RANKS} ranks: expected the error of one process\n${line}\ngot\n${par_err}")
  endif()
  message(STATUS "${RANKS} ranks: ${line}")
  return()
endif()
execute_process(COMMAND ${PROGRAM} ${_args} ${_seq_args} ${_seq_file} ${_seq_out} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "one process: exit ${rc}")
endif()
# Root in CI; 2 cores for 4 ranks.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
execute_process(COMMAND ${MPIEXEC} --allow-run-as-root --oversubscribe -np ${RANKS} ${PROGRAM} ${_args}
                        ${_par_args} ${_par_out} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${RANKS} ranks: exit ${rc}")
endif()
function(sorted_lines prefix count out)
  set(lines "")
  math(EXPR last "${count} - 1")
  foreach(r RANGE ${last})
    if(NOT EXISTS ${prefix}.rank${r})
      message(FATAL_ERROR "${prefix}.rank${r}: not written")
    endif()
    file(STRINGS ${prefix}.rank${r} l)
    list(APPEND lines ${l})
  endforeach()
  list(SORT lines)
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()
if(STDOUT)
  file(STRINGS ${WORK}/seq.out seq)
  file(STRINGS ${WORK}/par.out par)
  if(IGNORE)
    list(FILTER seq EXCLUDE REGEX "\"${IGNORE}\":")
    list(FILTER par EXCLUDE REGEX "\"${IGNORE}\":")
  endif()
else()
  sorted_lines(${WORK}/seq 1 seq)
  sorted_lines(${WORK}/par ${RANKS} par)
endif()
list(LENGTH seq n)
if(n EQUAL 0)
  message(FATAL_ERROR "one process wrote nothing")
endif()
if(NOT seq STREQUAL par)
  string(REPLACE ";" "\n" s "${seq}")
  string(REPLACE ";" "\n" p "${par}")
  message(FATAL_ERROR "${RANKS} ranks differ from one process\n--- one process\n${s}\n--- ${RANKS} ranks\n${p}")
endif()
message(STATUS "${RANKS} ranks: the ${n} lines of one process")
