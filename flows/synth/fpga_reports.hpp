#pragma once
/// \file fpga_reports.hpp
/// Reading what the FPGA flow's tools leave behind: nextpnr-ice40's log (the device
/// utilisation table, the post-route maximum frequency, whether placement ran out of cells, its
/// first error line) and the cells of yosys' `stat -json` after synth_ice40.

#include <map>
#include <string>

#include "mapwright/flows/fpga.hpp"

namespace mapwright::flows::synth_detail {

/// Resource -> used / available from the last "Device utilisation:" table of a nextpnr log
/// ("Info: \t ICESTORM_LC:  1234/ 5280    23%"); empty without one.
std::map<std::string, FpgaUse> parse_nextpnr_utilisation(const std::string& log);
/// The last "Max frequency for clock '...': X MHz" of a nextpnr log (the post-route one), or
/// 0 without one.
double parse_nextpnr_fmax(const std::string& log);
/// The log says the design does not fit: a resource used beyond its count, or placement found
/// "no BELs remaining".
bool nextpnr_out_of_cells(const std::string& log);
/// The first line of a log starting with "ERROR:" (nextpnr's, icepack's), or "".
std::string first_tool_error(const std::string& log);
/// Fills the synth_ice40 cell counts (SB_LUT4, SB_CARRY, SB_DFF*) of `r` from `stat -json`
/// output of the flattened design. Throws std::runtime_error when the text is not stat JSON.
void add_ice40_cells(const std::string& stat_json, FpgaResult& r);

}  // namespace mapwright::flows::synth_detail
