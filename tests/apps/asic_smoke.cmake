# The library flow's smoke: `mapwright synth --liberty osu018 --json` on the 2x2 architecture maps
# the RTL to the OSU 0.18 um cells, buffers it (blifFanout) and times it (OpenSTA), and every
# figure of the JSON must be there and consistent: exit 0 when the architecture's clock is met at
# its node, 3 when it is not, with the sign of the slack saying which.
# Usage: cmake -DMW=<mapwright> -DARCH=<yaml> -DOUT=<folder> -P tests/apps/asic_smoke.cmake
cmake_minimum_required(VERSION 3.22)
execute_process(COMMAND ${MW} synth --arch ${ARCH} --liberty osu018 --json --out ${OUT}
  OUTPUT_VARIABLE json ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 AND NOT rc EQUAL 3)
  message(FATAL_ERROR "mapwright synth --liberty exited ${rc}: ${json} ${err}")
endif()
macro(field var)
  string(JSON ${var} ERROR_VARIABLE jerr GET "${json}" ${ARGN})
  if(jerr)
    message(FATAL_ERROR "JSON field ${ARGN} missing: ${jerr}")
  endif()
endmacro()
field(met timing met)
field(slack timing slack_ns_scaled)
field(ratio timing critical_over_pe)
field(design_period design min_period_ns)
field(pe_period pe min_period_ns)
field(hold design hold_worst_slack_ns)
field(cells cells)
field(flops flops)
field(area area_um2)
field(passes fanout passes)
field(lib liberty name)
field(factor scaling delay_factor)
field(path0 design setup_paths 0 instances 0)
string(JSON npaths LENGTH "${json}" design setup_paths)
string(JSON nmacros LENGTH "${json}" macros)
field(pe_module modules_before_buffering 0 module)
if((rc EQUAL 0 AND NOT met) OR (rc EQUAL 3 AND met))
  message(FATAL_ERROR "exit ${rc} but timing met = ${met} (slack ${slack} ns)")
endif()
if(NOT lib STREQUAL "osu018_stdcells" OR factor LESS 0.15 OR factor GREATER 0.17)
  message(FATAL_ERROR "library ${lib}, delay factor ${factor} (180 nm -> HP45 is 0.158)")
endif()
# A PE alone is a 8x8 multiply and a 32-bit add: several ns at 180 nm; the design's worst path
# is no shorter than it. The buffered netlist has more cells than flops, and at 2x2 thousands of
# flops (the command FIFOs are flip-flops here); the unbanked 2x2 has two macro shapes (the
# input and weight buffers share one, the accumulator has its own).
if(pe_period LESS 2 OR design_period LESS pe_period OR ratio LESS 1 OR flops LESS 1000
   OR cells LESS flops OR area LESS cells OR passes LESS 1 OR npaths LESS 1 OR nmacros LESS 2)
  message(FATAL_ERROR "figures: PE ${pe_period} ns, design ${design_period} ns (x${ratio}), "
                      "${cells} cells, ${flops} flops, ${area} um^2, ${passes} fanout passes, "
                      "${npaths} paths, ${nmacros} macros")
endif()
foreach(f asic.json netlist.v macros.lib sta.log pe_sta.log fanout.log asic.log)
  if(NOT EXISTS ${OUT}/${f})
    message(FATAL_ERROR "${f} missing in ${OUT}")
  endif()
endforeach()
message(STATUS "2x2 on osu018: design ${design_period} ns, PE ${pe_period} ns (x${ratio}), "
               "first instance ${path0}, slack at the clock ${slack} ns, hold ${hold} ns")
