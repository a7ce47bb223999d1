#pragma once
/// \file asic_macros.hpp
/// The memory macros of the library flow (asic.cpp): their shapes from yosys' RTLIL dump, the
/// liberty model written for them from the SRAM timing model, and the mapped BLIF rewritten so
/// that blifFanout and the timer see them as cells with scalar pins.

#include <string>
#include <utility>
#include <vector>

#include "mapwright/flows/asic.hpp"

namespace mapwright::flows::asic_detail {

/// One memory module yosys elaborated, as its RTLIL dump shows it.
struct MacroShape {
  std::string yosys_name;  ///< "$paramod$<hash>\mw_sram".
  AsicMacro macro;         ///< Its cell name, kind and shape.
  std::vector<std::pair<std::string, long long>> inputs, outputs;  ///< Port -> width.
};

/// The macros of `dump` (the RTLIL of the mw_sram and mw_buf modules after `proc`): an
/// mw_sram is an "sram" named mw_sram_<words>x<bits>, an mw_buf a "buffer" named
/// mw_buf_<words>x<bits>_<R>r<W>w. Throws std::runtime_error for a module without a memory.
std::vector<MacroShape> parse_macros(const std::string& dump);
/// The scalar pin names of a port: "p" for one bit, "p_0".."p_{w-1}" for more.
std::vector<std::string> scalar_pins(const std::string& port, long long width);
/// A number as the scripts and the liberty file write it (6 significant digits).
std::string num(double v);
/// The liberty model of the macros: one cell per shape with scalar pins; an sram's read data a
/// rising-edge arc from clk_i, a buffer's a combinational arc from its lane's address bits, both
/// of `t`'s clock-to-output delay; setup and hold of `t` at the clocked inputs.
std::string macros_liberty(const std::vector<MacroShape>& shapes, const SramTiming& t);
/// `blif` (yosys' write_blif) with the macros' cell names and scalar pins and every cell a
/// `.gate` (blifFanout reads the gates it may resize and the macros' pins from the liberty).
std::string rewrite_blif(const std::string& blif, const std::vector<MacroShape>& shapes);

/// Simulation models of the macros for the library-mapped netlist: per shape a module of the
/// macro's cell name and scalar pins holding the RTL's mw_sram or mw_buf with its parameters.
std::string macros_sim_verilog(const std::vector<MacroShape>& shapes);

}  // namespace mapwright::flows::asic_detail
