# Shared by the MPI scripts (mpi_run.cmake, mpi_sweep.cmake): run a command capturing its exit
# code and output, run one on three ranks, and kill a worker rank through the test hook.

# run_it(VAR COMMAND...): runs COMMAND; sets VAR_rc to its exit code and VAR_out to its output.
function(run_it out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  set(${out_var}_rc ${rc} PARENT_SCOPE)
  set(${out_var}_out "${o}\n${e}" PARENT_SCOPE)
endfunction()

# run_on_three_ranks(VAR WHAT PATTERN COMMAND...): runs `mpirun -np 3 COMMAND` into VAR (as
# run_it); fails unless it exits 0 and each worker rank's output shows "rank R: PATTERN".
function(run_on_three_ranks out_var what pattern)
  run_it(r mpirun --oversubscribe -np 3 ${ARGN})
  message("${r_out}")
  if(NOT r_rc EQUAL 0)
    message(FATAL_ERROR "mpirun -np 3 mapwright ${what} exited with ${r_rc}")
  endif()
  foreach(rank 1 2)
    if(NOT r_out MATCHES "rank ${rank}: ${pattern}")
      message(FATAL_ERROR "rank ${rank} did no work (no \"rank ${rank}: ${pattern}\")")
    endif()
  endforeach()
  set(${out_var}_rc ${r_rc} PARENT_SCOPE)
  set(${out_var}_out "${r_out}" PARENT_SCOPE)
endfunction()

# run_killed(HOOK COMMAND...): runs COMMAND with MAPWRIGHT_TEST_KILL_AT=HOOK (every rank SIGKILLs
# itself there); fails unless the job exits nonzero with a message naming a worker rank.
function(run_killed hook)
  set(ENV{MAPWRIGHT_TEST_KILL_AT} "${hook}")
  run_it(die ${ARGN})
  unset(ENV{MAPWRIGHT_TEST_KILL_AT})
  message("${die_out}")
  if(die_rc EQUAL 0)
    message(FATAL_ERROR "the job with a killed rank exited 0")
  endif()
  if(NOT die_out MATCHES "rank [12]")
    message(FATAL_ERROR "no message names the rank")
  endif()
endfunction()
