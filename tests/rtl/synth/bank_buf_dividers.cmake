# The banked buffer's bank decode is synthesizable at the default architecture's size: yosys
# reads mw_bank_buf with the default's accumulator parameters (bank_acc_top.sv: 2 sets of 17
# banks, 16 read, 16 direct read, 16 write and 4 direct write lanes), and after `proc` and
# `wreduce` it must hold one modulo per lane (52), each as wide as an address (14 bits). A 32-bit
# modulo is a 32-bit divider in gates; the 104 of them the decode once had (two per lane, on
# 32-bit differences) took yosys past 24 GiB on the default (docs/synthesis.md).
# Usage: cmake -DYOSYS=<yosys> -DRTL=<rtl folder> -DTOP=<bank_acc_top.sv> -DOUT=<folder> -P bank_buf_dividers.cmake
cmake_minimum_required(VERSION 3.22)
file(MAKE_DIRECTORY ${OUT})
file(WRITE ${OUT}/dividers.ys
  "read_verilog -sv -DSYNTHESIS ${RTL}/mw_bank_buf.sv ${RTL}/mw_sram.sv ${TOP}\n"
  "hierarchy -check -top bank_acc_top\n"
  "proc\n"
  "opt_clean\n"
  "wreduce\n"
  "tee -q -o ${OUT}/dividers.txt stat -width t:$mod t:$div\n")
execute_process(COMMAND ${YOSYS} -q -s ${OUT}/dividers.ys WORKING_DIRECTORY ${OUT}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "yosys exited ${rc}: ${err}")
endif()
file(READ ${OUT}/dividers.txt stat)
string(REGEX MATCHALL "\\$(mod|div)_[0-9]+ +[0-9]+" kinds "${stat}")
set(total 0)
foreach(k ${kinds})
  string(REGEX MATCH "\\$(mod|div)_([0-9]+) +([0-9]+)" _ "${k}")
  if(CMAKE_MATCH_2 GREATER 14)
    message(FATAL_ERROR "a ${CMAKE_MATCH_2}-bit ${CMAKE_MATCH_1} in the bank decode "
                        "(${CMAKE_MATCH_3} of them): wider than the 14-bit address\n${stat}")
  endif()
  math(EXPR total "${total} + ${CMAKE_MATCH_3}")
endforeach()
if(NOT total EQUAL 52)
  message(FATAL_ERROR "${total} dividers in the bank decode, expected one per lane (52)\n${stat}")
endif()
message(STATUS "bank decode: ${total} modulos, none wider than the address: ${kinds}")
