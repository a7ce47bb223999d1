# `mapwright run --synth`: after a surrogate-only run of one layer on the 2x2 tiny2 architecture,
# the architecture is synthesized with yosys; results.json keeps the synthesis (cell area by the
# model's parts) and the area model's parts, the summary gives the synthesized logic beside the
# model's, and report.html has the area table with the synthesized column.
# Usage: cmake -DMW=<mapwright> -DARCH=<yaml> -DOUT=<folder> -P tests/apps/run_synth.cmake
cmake_minimum_required(VERSION 3.22)
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${MW} run --layer conv:K=4,C=4,H=6,W=6,R=3,S=3,pad=1 --arch ${ARCH}
  --no-rtl --synth --out ${OUT}
  OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mapwright run --synth exited ${rc}: ${err}")
endif()
if(NOT text MATCHES "area model [0-9.]+ mm\\^2; synthesis \\(yosys, cells at NanGate45 X1 areas\\): logic [0-9.]+ mm\\^2 against the model's [0-9.]+")
  message(FATAL_ERROR "the summary does not give the synthesized logic area:\n${text}")
endif()
file(READ ${OUT}/results.json json)
include(${CMAKE_CURRENT_LIST_DIR}/synth_json.cmake)
field(status synthesis status)
field(area synthesis cell_area_mm2)
field(pe synthesis parts_mm2 pe_array)
field(cells synthesis cells)
field(total area total_mm2)
if(NOT status STREQUAL "done")
  message(FATAL_ERROR "synthesis status ${status}")
endif()
if(NOT area GREATER 0 OR NOT pe GREATER 0 OR NOT cells GREATER 1000 OR NOT total GREATER 0)
  message(FATAL_ERROR "implausible: synthesized ${area} mm^2 (PE array ${pe}, ${cells} cells), "
    "model ${total} mm^2")
endif()
file(READ ${OUT}/report.html html)
if(NOT html MATCHES "Architecture area" OR NOT html MATCHES "synthesized mm<sup>2</sup>")
  message(FATAL_ERROR "report.html has no area table with the synthesized column")
endif()
message(STATUS "run --synth: logic ${area} mm^2 synthesized (PE array ${pe}), model ${total} mm^2")
