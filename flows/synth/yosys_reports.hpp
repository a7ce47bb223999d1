#pragma once
/// \file yosys_reports.hpp
/// Reading what a yosys run of `mapwright synth` leaves behind: `stat -json` (cells by type per
/// module), the `dump` of the memory cells, `ltp` (longest topological path) and the log's
/// first error line; and turning them into the typed SynthResult figures.

#include <map>
#include <string>

#include "mapwright/flows/synth.hpp"

namespace mapwright::flows::synth_detail {

/// The raw figures of one yosys module (one parameterization of a source module).
struct ModuleReport {
  std::map<std::string, long long> cells_by_type;  ///< Cell type (gate or submodule) -> count.
  long long transistors = 0;  ///< `stat -tech cmos` estimate of its own priced cells.
  long long memory_bits = 0;  ///< Bits of its `$mem_v2` cells (SIZE x WIDTH).
  long long depth = 0;        ///< `ltp -noff` length in this module (submodules as one cell).
};

/// Module name -> cells by type, from `stat -json` output. Throws std::runtime_error when the
/// text is not yosys' stat JSON.
std::map<std::string, ModuleReport> parse_stat_json(const std::string& text);
/// Adds each module's transistor estimate from `stat -json -tech cmos` output ("N+" counts as
/// N: the cells without a price are submodule instances and memory macros).
void add_transistors(const std::string& text, std::map<std::string, ModuleReport>& modules);
/// Adds the memory macros and bits from the RTLIL `dump` of the `$mem_v2` cells.
void add_memories(const std::string& dump, std::map<std::string, ModuleReport>& modules);
/// Module -> longest path length from `ltp` output ("Longest topological path in M
/// (length=N)" lines).
std::map<std::string, long long> parse_ltp(const std::string& text);
/// The first line of a yosys log holding "ERROR:" (e.g. "mw_array.sv:359: ERROR: syntax
/// error, unexpected '@'"), or "" without one.
std::string first_error_line(const std::string& log);
/// The source module of a yosys module name: "$paramod$<hash>\mw_pe" -> "mw_pe".
std::string source_module(const std::string& yosys_name);
/// Flip-flop, latch and memory counts of a cells-by-type map.
void classify_cells(const std::map<std::string, long long>& by_type, SynthFigures& f);

/// The figures of the design with top module `top`: each module's own figures times its
/// instance count, per source module and in total (`flat_depth`: the flattened design's ltp).
/// Throws std::runtime_error when `top` is missing.
void assemble(const std::map<std::string, ModuleReport>& modules, const std::string& top,
              long long flat_depth, SynthResult& r);

}  // namespace mapwright::flows::synth_detail
