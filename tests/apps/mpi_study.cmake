# `mpirun -np 3 mapwright study` against the same study in one process: every searcher run
# (runs.csv without its seconds column) must be equal.
# Usage: cmake -DMW=<mapwright> -DSUITE=<suite> -DOUT=<folder> -P mpi_study.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND mpirun --oversubscribe -np 3 ${MW} study --suite ${SUITE} --out ${OUT}/mpi
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
message("${o}\n${e}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpirun -np 3 mapwright study exited with ${rc}")
endif()
execute_process(COMMAND ${MW} study --suite ${SUITE} --out ${OUT}/single --jobs 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the one-process study exited with ${rc}:\n${o}\n${e}")
endif()
# Both runs.csv files, each row without its wall-clock column, sorted.
foreach(which mpi single)
  file(STRINGS ${OUT}/${which}/runs.csv lines)
  set(rows "")
  foreach(line IN LISTS lines)
    # The 7th column is the wall clock (CMake's regex has no {6}: six fields spelled out).
    string(REGEX REPLACE "^([^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,)[^,]*," "\\1" row "${line}")
    list(APPEND rows "${row}")
  endforeach()
  list(SORT rows)
  set(${which}_rows "${rows}")
endforeach()
list(LENGTH mpi_rows n)
if(n LESS 3)
  message(FATAL_ERROR "runs.csv of the MPI study has ${n} lines")
endif()
if(NOT "${mpi_rows}" STREQUAL "${single_rows}")
  message(FATAL_ERROR "the runs differ:\nmpi:    ${mpi_rows}\nsingle: ${single_rows}")
endif()
message("equal runs: ${n} lines of runs.csv")
