# The synthesis smoke: `mapwright synth --json` on the smallest architecture (2x2) runs yosys on
# the RTL and must report a clean check, no latch, the buffers and queues kept as memory macros
# and every figure of the JSON form. With GATE_SIM=N, `--gate-sim N` also simulates the netlist
# against the RTL on N random mappings, and every run must be equal.
# Usage: cmake -DMW=<mapwright> -DARCH=<yaml> -DOUT=<folder> [-DGATE_SIM=N]
#        -P tests/apps/synth_smoke.cmake
cmake_minimum_required(VERSION 3.22)
set(gate_args "")
if(GATE_SIM)
  set(gate_args --gate-sim ${GATE_SIM} --seed 7)
endif()
execute_process(COMMAND ${MW} synth --arch ${ARCH} --json --out ${OUT} ${gate_args}
  OUTPUT_VARIABLE json ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mapwright synth exited ${rc}: ${json} ${err}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/synth_json.cmake)
if(GATE_SIM)
  set(all "${json}")
  string(JSON json GET "${all}" gate_sim)
  field(gs_ok ok)
  field(gs_runs runs)
  field(gs_equal equal)
  field(gs_cycles cycles)
  field(gs_seed seed)
  if(NOT gs_ok OR NOT gs_runs EQUAL GATE_SIM OR NOT gs_equal EQUAL GATE_SIM OR gs_cycles LESS 100
     OR NOT gs_seed EQUAL 7)
    message(FATAL_ERROR "gate-level simulation: ok ${gs_ok}, ${gs_equal}/${gs_runs} runs equal, "
                        "${gs_cycles} cycles, seed ${gs_seed}: ${json}")
  endif()
  if(NOT EXISTS ${OUT}/netlist.v OR NOT EXISTS ${OUT}/simcells.v OR NOT EXISTS ${OUT}/gate_sim.json)
    message(FATAL_ERROR "netlist.v, simcells.v or gate_sim.json missing in ${OUT}")
  endif()
  message(STATUS "gate-level simulation: ${gs_equal}/${gs_runs} runs equal, ${gs_cycles} cycles")
  string(JSON json GET "${all}" synthesis)
endif()
field(clean check_clean)
field(latches design latches)
field(mems design memories)
field(bits design memory_bits)
field(flops design flops)
field(cells design cells)
field(xtors design transistors)
field(um2 design cell_area_um2)
field(depth design depth)
field(rows params Rows)
field(pe_flops modules 0 flops)
if(NOT clean STREQUAL "ON" AND NOT clean STREQUAL "true")
  message(FATAL_ERROR "check not clean: ${clean}")
endif()
if(NOT latches EQUAL 0)
  message(FATAL_ERROR "${latches} latches")
endif()
# Input, weight and accumulator buffers and the two command queues: five macros, and at least
# the buffers' bits (16 KiB + 16 KiB + 2048 x 32 bits).
if(mems LESS 5 OR bits LESS 327680)
  message(FATAL_ERROR "memories not kept as macros: ${mems} macros, ${bits} bits")
endif()
if(NOT rows EQUAL 2 OR flops LESS 1000 OR cells LESS flops OR xtors LESS cells OR depth LESS 10
   OR um2 LESS cells)  # every gate is at least an inverter (0.532 um^2) and most are more
  message(FATAL_ERROR "implausible figures: rows ${rows}, cells ${cells}, flops ${flops}, "
                      "transistors ${xtors}, depth ${depth}, cell area ${um2} um^2")
endif()
message(STATUS "synth smoke: ${cells} cells, ${flops} flops, ${mems} macros (${bits} bits), "
               "${xtors} transistors, depth ${depth}")
