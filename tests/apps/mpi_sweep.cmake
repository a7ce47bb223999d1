# `mpirun -np 3 mapwright sweep` against the same sweep in one process: every point's figures,
# fronts and the winner must be equal, and both worker ranks must have run points. Then a rank
# killed in the middle of a sweep: mpirun stops the job naming the rank, the sweep folder says
# which point it ran, and --resume (in one process) finishes with the same figures.
# Usage: cmake -DMW=<mapwright> -DFILE=<sweep file> -DOUT=<folder> -P mpi_sweep.cmake
file(REMOVE_RECURSE ${OUT})
include(${CMAKE_CURRENT_LIST_DIR}/mpi_common.cmake)

run_on_three_ranks(mpi sweep "p00" ${MW} sweep --file ${FILE} --out ${OUT}/mpi)
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
              verification_failures pareto_latency pareto_energy pareto_edp winner)
      string(JSON va GET "${a}" points ${i} ${k})
      string(JSON vb GET "${b}" points ${i} ${k})
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

# A rank that dies: every rank's second point kills it (SIGKILL, test hook), so the first
# rank handed a second point dies there.
run_killed("sweep_point:2"
           mpirun --oversubscribe -np 3 ${MW} sweep --file ${FILE} --out ${OUT}/killed)
file(READ ${OUT}/killed/sweep.json k)
string(JSON running GET "${k}" in_flight)
if(NOT running MATCHES "p00")
  message(FATAL_ERROR "sweep.json does not say which point the killed rank ran: ${running}")
endif()
run_it(res ${MW} sweep --file ${FILE} --out ${OUT}/killed --resume)
message("${res_out}")
if(NOT res_rc EQUAL 0)
  message(FATAL_ERROR "--resume after the killed rank exited with ${res_rc}")
endif()
if(NOT res_out MATCHES "note: the sweep stopped while rank [12] ran p00")
  message(FATAL_ERROR "--resume does not name the point that was running")
endif()
same_figures(${OUT}/killed ${OUT}/single)
