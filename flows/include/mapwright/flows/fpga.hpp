#pragma once
/// \file fpga.hpp
/// `mapwright synth --fpga ice40-up5k|ice40-hx8k`: an FPGA implementation of the accelerator
/// for one architecture. The top is rtl/fpga/mw_fpga.sv, mw_accel behind a seven-pin scan
/// interface (what it adds is stated there); yosys `synth_ice40` maps it to the device's cells,
/// nextpnr-ice40 places and routes it and icepack writes the bitstream, each a child process
/// (argument vector, no shell). The result is the utilization (logic cells, block RAMs, DSPs,
/// I/O) against the device's capacity and the post-route maximum clock frequency; a netlist
/// that does not fit is a result too, with the cells it needed.
///
/// `--fpga-top array` implements the array engine alone instead (rtl/fpga/mw_fpga_array.sv:
/// mw_array with the architecture's rows and columns, the parameters mw_compute gives it, behind
/// the same scan interface): the PE mesh, its skews and fold control without the accelerator's
/// command decoder, DMA, controllers and buffers, so that a configuration whose whole
/// accelerator does not fit a small FPGA still has its datapath placed, routed and timed.

#include <ostream>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/flows/synth.hpp"

namespace mapwright::flows {

/// An FPGA the flow targets.
struct FpgaDevice {
  std::string name;     ///< The --fpga value: "ice40-up5k" or "ice40-hx8k".
  std::string flag;     ///< nextpnr-ice40's device flag: "--up5k", "--hx8k".
  std::string package;  ///< Its package: "sg48", "ct256".
  bool dsp = false;     ///< The device has SB_MAC16 DSPs (synth_ice40 -dsp).
};

/// The device named by an --fpga value. Throws core::SpecError (naming --fpga and the value)
/// for any other value.
FpgaDevice fpga_device(const std::string& name);

/// What the FPGA implementation holds.
enum class FpgaTop {
  Accel,  ///< The whole accelerator (rtl/fpga/mw_fpga.sv around mw_accel).
  Array   ///< The array engine alone (rtl/fpga/mw_fpga_array.sv around mw_array).
};
/// The top named by an --fpga-top value ("" or "accel", "array"). Throws core::SpecError
/// (naming --fpga-top and the value) for any other value.
FpgaTop fpga_top(const std::string& name);
/// The --fpga-top name of a top.
const char* fpga_top_name(FpgaTop t);

/// Used and available count of one resource.
struct FpgaUse {
  long long used = 0;       ///< Cells the design needs.
  long long available = 0;  ///< Cells the device has (0: unknown, nextpnr did not report).
};

/// The result of one FPGA implementation.
struct FpgaResult {
  std::string arch;    ///< Architecture name.
  SynthParams params;  ///< mw_accel's parameters (of which the array top uses Rows, Cols).
  std::string device;  ///< The --fpga value.
  FpgaTop top = FpgaTop::Accel;  ///< What was implemented.
  long long luts = 0;            ///< SB_LUT4 cells after synth_ice40.
  long long carries = 0;         ///< SB_CARRY cells.
  long long flops = 0;           ///< SB_DFF* cells.
  FpgaUse logic_cells;           ///< ICESTORM_LC (a LUT, its carry and a flop each) after packing.
  FpgaUse brams;                 ///< ICESTORM_RAM (SB_RAM40_4K, 4 kbit each).
  FpgaUse dsps;                  ///< ICESTORM_DSP (SB_MAC16; the HX8K has none).
  FpgaUse ios;                   ///< SB_IO.
  bool fits = false;             ///< Every resource within the device: placed, routed, packed.
  double fmax_mhz = 0;           ///< Post-route maximum frequency of clk_i (fits only).
  long long seed = 1;            ///< nextpnr's placement seed.
  double seconds = 0;            ///< Wall time of the three tools together.
  std::string bitstream;         ///< The bitstream written by icepack (fits only).
  std::string out_dir;           ///< Folder with the scripts, logs and reports.
};

/// Why an FPGA implementation has no result.
enum class FpgaFailureKind {
  None,       ///< It has one.
  NoTool,     ///< yosys, nextpnr-ice40 or icepack is not installed (names its Debian package).
  ToolError,  ///< A tool failed for another reason than capacity (its first error line).
  BadReport   ///< A tool finished but its report could not be read.
};

/// An FPGA implementation outcome: a result (fitting or not), or a typed failure.
struct FpgaOutcome {
  FpgaFailureKind failure = FpgaFailureKind::None;  ///< None: `result` is valid.
  std::string message;                              ///< For a failure: what happened.
  std::string log;                                  ///< For a failure: the log file kept.
  FpgaResult result;                                ///< The result (failure None).
};

/// Implements `top` (the accelerator, or its array engine) for `arch` on `device` in `out_dir`
/// (created; the RTL and the wrapper are copied into it, the yosys script written there). Never
/// throws for a tool problem: it is a typed failure.
FpgaOutcome implement_fpga(const core::Arch& arch, const FpgaDevice& device,
                           const std::string& rtl_dir, const std::string& out_dir,
                           FpgaTop top = FpgaTop::Accel);

/// The text report of a result.
void print_fpga(const FpgaResult& r, std::ostream& out);
/// The JSON form of a result (also written to <out>/fpga.json).
std::string fpga_json(const FpgaResult& r);

/// `mapwright synth --fpga`: exit 0 when the design fits (bitstream written), 1 when it does not
/// fit (the utilization it needed printed) or a tool is missing or fails, 2 for bad input.
int cmd_fpga(const SynthOptions& o, std::ostream& out);

}  // namespace mapwright::flows
