# The FPGA smoke: `mapwright synth --fpga DEVICE --json` on a 2x2 architecture runs yosys
# synth_ice40, nextpnr-ice40 and (when the design fits) icepack. Whatever the outcome, the JSON
# must be consistent with the exit code: exit 0 = fits, a post-route Fmax and the bitstream
# written; exit 1 = does not fit, with a resource used beyond the device's count. With
# -DTOP=array (--fpga-top array, the array engine alone) the design must fit: exit 0.
# Usage: cmake -DMW=<mapwright> -DARCH=<yaml> -DDEVICE=<device> -DOUT=<folder> [-DTOP=array]
#        -P tests/apps/fpga_smoke.cmake
cmake_minimum_required(VERSION 3.22)
if(NOT DEFINED TOP)
  set(TOP accel)
endif()
execute_process(COMMAND ${MW} synth --arch ${ARCH} --fpga ${DEVICE} --fpga-top ${TOP} --json
  --out ${OUT} OUTPUT_VARIABLE json ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 AND NOT rc EQUAL 1)
  message(FATAL_ERROR "mapwright synth --fpga exited ${rc}: ${err}")
endif()
if(TOP STREQUAL "array" AND NOT rc EQUAL 0)
  message(FATAL_ERROR "the array engine must fit ${DEVICE}: exit ${rc}: ${err}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/synth_json.cmake)
field(top top)
if(NOT top STREQUAL TOP)
  message(FATAL_ERROR "top '${top}' in the JSON, expected '${TOP}'")
endif()
field(fits fits)
field(luts synth_ice40 luts)
field(flops synth_ice40 flops)
field(lc utilization logic_cells used)
field(lc_max utilization logic_cells available)
field(ram utilization brams used)
field(ram_max utilization brams available)
field(fmax fmax_mhz)
field(bits bitstream)
field(rows params Rows)
if(NOT rows EQUAL 2 OR luts LESS 1000 OR flops LESS 500 OR lc LESS luts OR lc_max LESS 5000)
  message(FATAL_ERROR "implausible figures: rows ${rows}, LUTs ${luts}, flops ${flops}, "
                      "logic cells ${lc} of ${lc_max}")
endif()
if(rc EQUAL 0)
  if(NOT fits OR fmax LESS_EQUAL 0 OR NOT EXISTS "${bits}")
    message(FATAL_ERROR "exit 0 without a fit: fits ${fits}, Fmax ${fmax}, bitstream '${bits}'")
  endif()
elseif(fits OR (lc LESS_EQUAL lc_max AND ram LESS_EQUAL ram_max))
  message(FATAL_ERROR "exit 1 (${err}) but fits ${fits}: logic cells ${lc} of ${lc_max}, "
                      "block RAMs ${ram} of ${ram_max}")
endif()
message(STATUS "fpga smoke (${DEVICE}, ${TOP}): fits ${fits}, ${luts} LUT4, ${flops} flops, "
               "logic cells ${lc} / ${lc_max}, block RAMs ${ram} / ${ram_max}, Fmax ${fmax} MHz")
