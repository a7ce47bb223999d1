# Fails when a library folder includes a header of a library it may not depend on: every
# #include "mapwright/<lib>/..." of a library folder must name a library in that folder's row of
# the matrix below, and a few folder-level rules hold inside flows/ and for the ONNX library.
# Prints every disallowed include as "<file>: <include line>: <rule>", then fails. Tests,
# benches and fuzz targets may include any library; only the ONNX rule covers them.
# Usage: cmake -DSOURCE_DIR=<repo> -P tests/layering.cmake
#
# The layers (each row: the libraries a folder's sources may include, besides its own):
#   support                                  no domain at all
#   core      <- support                     the specs and their semantics
#   frontend, mapspace, model <- core        side by side: none includes another
#   mapper    <- mapspace, model             the exact mapper
#   search    <- core, support               an abstract problem: no model, space or RTL
#   rtl_api   <- core                        plain RTL data shared by the simulator and the pool
#   systemc   <- rtl_api, core               the ground truth never includes the model
#   rtlpool   <- systemc, model              the worker (rtlpool/worker/) runs the RTL; the
#                                            pool's client (src/, include/) sees neither
#   flows     <- everything above            the commands
#   apps      <- flows, rtlpool              the thin mains
#   python    <- everything but systemc      the Python module (RTL runs go through rtlpool)
# Inside flows: the report never includes the run command's headers, the run record
# (flows/run/run_record.cpp, or flows/record/) never includes the model, and synthesis
# (flows/synth/: yosys on the RTL) sees only support, core and the RTL parameters (rtlpool).
cmake_minimum_required(VERSION 3.22)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -P tests/layering.cmake")
endif()

set(layers support core frontend mapspace model mapper search rtl_api systemc rtlpool flows apps python)
set(may_include_support support)
set(may_include_core support core)
set(may_include_frontend support core frontend)
set(may_include_mapspace support core mapspace)
set(may_include_model support core model)
set(may_include_mapper support core mapspace model mapper)
set(may_include_search support core search)
set(may_include_rtl_api support core rtl_api)
set(may_include_systemc support core rtl_api systemc)
set(may_include_rtlpool support core rtl_api model systemc rtlpool)
set(may_include_flows support core frontend mapspace model mapper search rtl_api systemc rtlpool
  flows)
set(may_include_apps support core rtl_api rtlpool flows)
set(may_include_python support core frontend mapspace model mapper search rtl_api rtlpool flows)

# The #include lines of every C/C++ file under the given folders, as "<relative path>\t<line>"
# entries, files in sorted order.
function(include_lines out)
  set(result "")
  foreach(dir ${ARGN})
    file(GLOB_RECURSE files ${SOURCE_DIR}/${dir}/*.cpp ${SOURCE_DIR}/${dir}/*.hpp
      ${SOURCE_DIR}/${dir}/*.h)
    list(SORT files)
    foreach(f ${files})
      file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
      file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
      foreach(l ${lines})
        string(STRIP "${l}" l)
        list(APPEND result "${rel}\t${l}")
      endforeach()
    endforeach()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

set(found "")
# The fixture of this check (tests/layering/) breaks every rule on purpose: not part of the tree.
include_lines(entries ${layers} tests bench fuzz)
foreach(e ${entries})
  string(REPLACE "\t" ";" parts "${e}")
  list(GET parts 0 file)
  list(GET parts 1 line)
  string(REGEX MATCH "^[^/]+" top "${file}")
  # The matrix, for the library folders (their tests, benches and fuzz targets may use any).
  if(top IN_LIST layers AND line MATCHES "[<\"]mapwright/([a-z_]+)/")
    if(NOT CMAKE_MATCH_1 IN_LIST may_include_${top})
      list(JOIN may_include_${top} ", " allowed)
      list(APPEND found "${file}: ${line}: ${top} may include only ${allowed}")
    endif()
  endif()
  # The pool's client builds without the RTL: only its worker includes the simulator and model.
  if(file MATCHES "^rtlpool/(src|include)/" AND line MATCHES "[<\"]mapwright/(systemc|model)/")
    list(APPEND found "${file}: ${line}: the RTL pool's client may not include ${CMAKE_MATCH_1}")
  endif()
  # Inside flows: the record and the report sit below the commands that fill them.
  if(file MATCHES "^flows/report/" AND line MATCHES "[<\"](mapwright/flows/run\\.hpp|run/)")
    list(APPEND found "${file}: ${line}: flows/report may not include the run command's headers")
  endif()
  if(file MATCHES "^flows/(record/|run/run_record\\.)" AND line MATCHES "[<\"]mapwright/model/")
    list(APPEND found "${file}: ${line}: the run record may not include the model")
  endif()
  if(file MATCHES "^flows/synth/" AND line MATCHES "[<\"]mapwright/([a-z_]+)/"
     AND NOT CMAKE_MATCH_1 MATCHES "^(support|core|rtlpool|flows)$")
    list(APPEND found "${file}: ${line}: flows/synth may include only support, core, rtlpool")
  endif()
  # ONNX and protobuf: only the frontend (and its tests) include them, anywhere in the tree.
  if(line MATCHES "[<\"](onnx|google/protobuf)/" AND NOT file MATCHES "^(tests/)?frontend/"
     AND NOT file MATCHES "^tests/layering/")
    list(APPEND found "${file}: ${line}: only frontend may include the ONNX library")
  endif()
endforeach()

if(found)
  list(LENGTH found n)
  list(JOIN found "\n  " msg)  # indented lines are printed as they are, not reflowed
  message(FATAL_ERROR "${n} include(s) against the layering:\n  ${msg}")
endif()
message(STATUS "layering: ok")
