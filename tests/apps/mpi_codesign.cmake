# `mpirun -np 3 mapwright codesign` against the same co-design in one process: codesign.json
# (but its seconds) and points.csv must be equal, and each worker rank must have solved layers.
# Then rank 0's refusal of the folder (it holds a journal; no --resume) must end every rank with
# exit code 2, and --resume under mpirun must give the same answer again.
# Usage: cmake -DMW=<mapwright> -DSPACE=<space file> -DOUT=<folder> -P mpi_codesign.cmake
include(${CMAKE_CURRENT_LIST_DIR}/mpi_common.cmake)
file(REMOVE_RECURSE ${OUT})
run_on_three_ranks(m "codesign" "[0-9]+ layer solves"
                   ${MW} codesign --space ${SPACE} --rtl none --out ${OUT}/mpi)
run_it(one ${MW} codesign --space ${SPACE} --rtl none --out ${OUT}/single)
if(NOT one_rc EQUAL 0)
  message(FATAL_ERROR "the one-process codesign exited with ${one_rc}:\n${one_out}")
endif()

# codesign.json without the lines that hold wall-clock seconds and those matching `drop`.
function(stable_summary dir drop var)
  file(STRINGS ${dir}/codesign.json lines)
  list(FILTER lines EXCLUDE REGEX "\"seconds\":")
  list(FILTER lines EXCLUDE REGEX "${drop}")
  set(${var} "${lines}" PARENT_SCOPE)
endfunction()
# The folder `which` against the one-process folder; `drop`: lines left out of both.
function(expect_same_as_single which drop)
  stable_summary(${OUT}/${which} "${drop}" got)
  stable_summary(${OUT}/single "${drop}" want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "codesign.json differs (${which}):\n${got}\n--- one process:\n${want}")
  endif()
  file(READ ${OUT}/${which}/points.csv got_points)
  file(READ ${OUT}/single/points.csv want_points)
  if(NOT got_points STREQUAL want_points)
    message(FATAL_ERROR "points.csv differs (${which})")
  endif()
endfunction()
expect_same_as_single(mpi "^$")

run_it(again mpirun --oversubscribe -np 3 ${MW} codesign --space ${SPACE} --rtl none
       --out ${OUT}/mpi)
if(NOT again_rc EQUAL 2 OR NOT again_out MATCHES "add --resume")
  message(FATAL_ERROR "a folder with a journal under mpirun: exit ${again_rc}\n${again_out}")
endif()
run_on_three_ranks(r "codesign --resume" "0 layer solves"
                   ${MW} codesign --space ${SPACE} --rtl none --out ${OUT}/mpi --resume)
# Resumed, every solve comes from the journal: the solve counters differ, nothing else.
expect_same_as_single(mpi "\"(mapper_solves|memo_hits|solves_resumed)\":")
message("equal: codesign.json and points.csv of 3 ranks, of one process, and of 3 ranks resumed")
