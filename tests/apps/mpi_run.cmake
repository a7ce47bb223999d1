# `mpirun -np 3 mapwright run` against the same run in one process: every layer's chosen mapping,
# figures and RTL verifications must be equal, and both worker ranks must have searched layers.
# Then a rank killed in the middle of a run: mpirun stops the job naming the rank, and --resume
# (in one process) finishes the run with the same figures.
# Usage: cmake -DMW=<mapwright> -DNET=<network file> -DOUT=<folder> -P mpi_run.cmake
file(REMOVE_RECURSE ${OUT})
include(${CMAKE_CURRENT_LIST_DIR}/mpi_common.cmake)
set(ARGS run --network ${NET} --arch small4 --top-k 2 --time-limit 30)

run_on_three_ranks(mpi run "layer" ${MW} ${ARGS} --out ${OUT}/mpi)
if(EXISTS ${OUT}/mpi/.ranks)
  message(FATAL_ERROR "the ranks' scratch folders were left in the run folder")
endif()
run_it(one ${MW} ${ARGS} --out ${OUT}/single)
if(NOT one_rc EQUAL 0)
  message(FATAL_ERROR "the single-process run exited with ${one_rc}:\n${one_out}")
endif()

# layers.csv holds no wall time; verifications.csv's last column (sim_seconds) is one and is
# dropped; the chosen mappings are files.
function(same_run a_dir b_dir)
  foreach(f layers.csv verifications.csv)
    file(READ ${a_dir}/${f} a)
    file(READ ${b_dir}/${f} b)
    if(f STREQUAL "verifications.csv")
      string(REGEX REPLACE ",[^,\n]*\n" "\n" a "${a}")
      string(REGEX REPLACE ",[^,\n]*\n" "\n" b "${b}")
    endif()
    if(NOT "${a}" STREQUAL "${b}")
      message(FATAL_ERROR "${f} differs:\n${a_dir}:\n${a}\n${b_dir}:\n${b}")
    endif()
  endforeach()
  file(GLOB maps RELATIVE ${b_dir}/mappings ${b_dir}/mappings/*.yaml)
  list(LENGTH maps n)
  if(n EQUAL 0)
    message(FATAL_ERROR "no mapping files in ${b_dir}")
  endif()
  foreach(m ${maps})
    file(READ ${a_dir}/mappings/${m} a)
    file(READ ${b_dir}/mappings/${m} b)
    if(NOT "${a}" STREQUAL "${b}")
      message(FATAL_ERROR "mappings/${m} differs between ${a_dir} and ${b_dir}")
    endif()
  endforeach()
  message("equal runs: ${a_dir} and ${b_dir} (${n} layers)")
endfunction()
same_run(${OUT}/mpi ${OUT}/single)

# A rank that dies: every rank's second layer kills it (SIGKILL, test hook).
run_killed("run_layer:2" mpirun --oversubscribe -np 3 ${MW} ${ARGS} --out ${OUT}/killed)
run_it(res ${MW} run --resume --out ${OUT}/killed)
message("${res_out}")
if(NOT res_rc EQUAL 0)
  message(FATAL_ERROR "--resume after the killed rank exited with ${res_rc}")
endif()
same_run(${OUT}/killed ${OUT}/single)
