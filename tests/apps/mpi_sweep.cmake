# `mpirun -np 3 mapwright sweep` against the same sweep in one process: every point's figures,
# RTL checks, fronts and the winner must be equal, both worker ranks must have solved layers
# (the ranks share the layer solves of the co-design machinery, codesign/solve_farm.hpp) and
# the designs must have been checked on the RTL by the worker ranks. Then rank 0's refusal of the
# folder (it holds a sweep; no --resume) must end every rank with exit code 2, and --resume
# under mpirun must give the same figures again with every RTL verdict from the journal.
# Usage: cmake -DMW=<mapwright> -DFILE=<sweep file> -DOUT=<folder> -P mpi_sweep.cmake
file(REMOVE_RECURSE ${OUT})
include(${CMAKE_CURRENT_LIST_DIR}/mpi_common.cmake)

run_on_three_ranks(mpi sweep "[0-9]+ layer solves" ${MW} sweep --file ${FILE} --out ${OUT}/mpi)
if(NOT mpi_out MATCHES "rank [12]: [0-9]+ layer solves, [1-9][0-9]* designs on the RTL")
  message(FATAL_ERROR "no worker rank checked a design on the RTL")
endif()
run_it(one ${MW} sweep --file ${FILE} --out ${OUT}/single)
if(NOT one_rc EQUAL 0)
  message(FATAL_ERROR "the single-process sweep exited with ${one_rc}:\n${one_out}")
endif()

function(same_figures a_dir b_dir)
  file(READ ${a_dir}/sweep.json a)
  file(READ ${b_dir}/sweep.json b)
  string(JSON n LENGTH "${a}" points)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    foreach(k name status cycles energy_pj edp area_mm2 source verifications
              verification_failures rtl_cycles pareto_latency pareto_energy pareto_edp winner)
      string(JSON va ERROR_VARIABLE ea GET "${a}" points ${i} ${k})
      string(JSON vb ERROR_VARIABLE eb GET "${b}" points ${i} ${k})
      if(NOT "${va}" STREQUAL "${vb}")
        message(FATAL_ERROR "point ${i} ${k}: ${va} in ${a_dir}, ${vb} in ${b_dir}")
      endif()
    endforeach()
  endforeach()
  string(JSON wa GET "${a}" winner)
  string(JSON wb GET "${b}" winner)
  if(NOT "${wa}" STREQUAL "${wb}")
    message(FATAL_ERROR "winner ${wa} in ${a_dir}, ${wb} in ${b_dir}")
  endif()
  message("equal figures: ${a_dir} and ${b_dir} (${n} points)")
endfunction()
same_figures(${OUT}/mpi ${OUT}/single)

run_it(again mpirun --oversubscribe -np 3 ${MW} sweep --file ${FILE} --out ${OUT}/mpi)
if(NOT again_rc EQUAL 2 OR NOT again_out MATCHES "add --resume")
  message(FATAL_ERROR "a folder with a sweep under mpirun: exit ${again_rc}\n${again_out}")
endif()
run_on_three_ranks(r "sweep --resume" "0 layer solves, 0 designs on the RTL"
                   ${MW} sweep --file ${FILE} --out ${OUT}/mpi --resume)
same_figures(${OUT}/mpi ${OUT}/single)
