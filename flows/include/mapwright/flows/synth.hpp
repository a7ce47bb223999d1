#pragma once
/// \file synth.hpp
/// `mapwright synth`: generic logic synthesis of the accelerator's RTL (rtl/mw_accel.sv) with
/// yosys, run as a child process, for the RTL parameters of one architecture. Memories stay
/// memory macros (yosys `$mem_v2` cells, never blown into flip-flops); the rest is mapped to
/// yosys' internal gate library. The result gives, per module of the hierarchy, the cells by
/// type, flip-flops, latches, memory macros and bits, a CMOS transistor count and the longest
/// combinational path in cells, and the same for the whole design.

#include <map>
#include <ostream>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/model/area.hpp"

namespace mapwright::flows {

/// The parameters of rtl/mw_accel.sv a synthesis elaborates: the ones the simulation models
/// are compiled with (systemc/CMakeLists.txt), every other parameter at its default.
struct SynthParams {
  long long rows = 0;          ///< Rows.
  long long cols = 0;          ///< Cols.
  long long input_bytes = 0;   ///< InBufBytes.
  long long weight_bytes = 0;  ///< WtBufBytes.
  long long accum_words = 0;   ///< AccBufWords (int32 words).
  long long beat_bytes = 0;    ///< BeatBytes (DRAM bytes per cycle).
  long long banks = 0;         ///< BufBanks (0: multi-ported buffers).
};

/// The RTL parameters of `arch`. Throws core::SpecError (naming `where`, the key and the value)
/// for an architecture the RTL cannot be elaborated for: a DRAM width that is not a whole
/// number of bytes, an accumulator that is not whole int32 words, or a value outside the range
/// mw_accel accepts (rtlpool::check_model_params).
SynthParams synth_params(const core::Arch& arch, const std::string& where);

/// Figures of one module of the synthesized hierarchy, or of the whole design.
struct SynthFigures {
  long long cells = 0;        ///< Cells (gates, flops, memories; a submodule instance is not
                              ///< counted here but in its own module's figures).
  long long flops = 0;        ///< Flip-flops (every yosys `$_*DFF*` cell).
  long long latches = 0;      ///< Latches (`$_DLATCH*`, `$_SR_*` cells): 0 in a clean design.
  long long memories = 0;     ///< Memory macros (`$mem_v2` cells).
  long long memory_bits = 0;  ///< Their bits (words x width).
  long long transistors = 0;  ///< yosys' CMOS transistor estimate (`stat -tech cmos`), flops
                              ///< counted as a plain D flip-flop plus their reset and enable
                              ///< logic (see docs/synthesis.md); memory macros not included.
  double cell_area_um2 = 0;   ///< Its gates and flops priced at NanGate45 X1 cell areas
                              ///< (model::generic_cell_um2); memory macros not included.
  long long depth = 0;        ///< Longest combinational path in cells (`ltp -noff`): of the
                              ///< flattened design, or of a module's own logic (the paths
                              ///< through its submodule instances cut).
  std::map<std::string, long long> cells_by_type;  ///< Cell type -> count (gate types).
};

/// One source module of the hierarchy (all its parameterizations and instances together).
struct SynthModule {
  std::string name;         ///< Source module name (e.g. "mw_pe").
  long long instances = 0;  ///< Instances in the design.
  long long variants = 0;   ///< Distinct parameterizations yosys elaborated.
  SynthFigures total;       ///< Its own logic summed over its instances (submodules excluded);
                            ///< depth: the largest of its variants.
};

/// The result of one synthesis.
struct SynthResult {
  std::string arch;                  ///< Architecture name.
  SynthParams params;                ///< The RTL parameters elaborated.
  std::string yosys_version;         ///< `yosys -V`.
  bool check_clean = false;          ///< yosys `check -assert` passed (no combinational loop,
                                     ///< no multiple drivers, no undriven input).
  SynthFigures design;               ///< The whole design (every instance counted).
  std::vector<SynthModule> modules;  ///< Per source module, in the order of the hierarchy.
  double seconds = 0;                ///< Wall time of the yosys run.
  double peak_rss_mib = 0;           ///< yosys' peak resident memory.
  std::string out_dir;               ///< Folder with synth.ys, yosys.log and the reports.
  std::string netlist;               ///< The flattened gate-level netlist (netlist.v) when one
                                     ///< was asked for, else "".
};

/// Why a synthesis has no result.
enum class SynthFailureKind {
  None,      ///< It has one.
  NoYosys,   ///< yosys is not installed (Debian package `yosys`).
  Yosys,     ///< yosys failed (its first error line; its log is kept).
  BadReport  ///< yosys finished but its reports could not be read.
};

/// A synthesis outcome: a result, or a typed failure.
struct SynthOutcome {
  SynthFailureKind failure = SynthFailureKind::None;  ///< None: `result` is valid.
  std::string message;  ///< For a failure: what happened (yosys' first error line).
  std::string log;      ///< For a failure: the log file kept.
  SynthResult result;   ///< The result (failure None).
};

/// Area in um^2 of one cell of yosys' internal gate library (`$_AND_`, `$_MUX_`, `$_DFFE_PN0P_`,
/// ...: what `mapwright synth` maps the logic to) at its NanGate FreePDK45 Open Cell Library
/// (typical corner) X1 equivalent: INV 0.532, NAND2 and NOR2 0.798, AND2 and OR2 1.064, XOR2 and
/// XNOR2 1.596, MUX2 1.862, ANDNOT and ORNOT 1.330 (an INV and a NOR2 or NAND2); a flip-flop is
/// DFF_X1 4.522, DFFR_X1 / DFFS_X1 5.320 with an asynchronous reset or set, DFFRS_X1 6.384 with
/// both, plus a MUX2 for an enable and an AND2 for a synchronous reset. A latch is DLH_X1 2.394.
/// Returns a negative value for any other type (memories, submodules): they have no gate area.
/// The library has complex cells (full adders, AOI/OAI) that a synthesis to it would use, so
/// yosys' 2-input gates priced one by one overstate the area of arithmetic (docs/synthesis.md).
double generic_cell_um2(const std::string& yosys_type);

/// A synthesis as a run's record keeps it: {"status": "done", the design's cells, flops,
/// transistors, depth and cell area, "parts_mm2": the cell area of the area model's parts
/// (pe_array: mw_pe and mw_mesh; dma: mw_dma; bank_logic: mw_bank_buf, mw_row_fetch; every
/// other module in array_control), seconds, out_dir} or {"status": "failed", "failure", "log"}.
/// On a banked design the model counts the banked paths of the compute controller and the DMA
/// as bank logic, the synthesis in the modules they are in.
nlohmann::json synth_record(const SynthOutcome& s);
/// The area model's breakdown as the records keep it, beside a synthesis: mm^2 per part
/// (pe_array_mm2, input/weight/accum_buf_mm2, array_control_mm2, dma_mm2, bank_logic_mm2,
/// control_mm2) and `total_mm2` with `with_total`.
nlohmann::json area_parts_json(const model::AreaBreakdown& a, bool with_total);
/// A summary line of such a record beside the model's logic area (its PE array and control):
/// "synthesis (yosys, cells at NanGate45 X1 areas): logic 0.123 mm^2 against the model's
/// 0.120, 57540 cells, depth 95; <folder>", or "synthesis failed: <why>".
std::string synth_summary(const nlohmann::json& record, double model_logic_mm2);

/// Options of `mapwright synth`.
struct SynthOptions {
  std::string arch = "default";  ///< Named architecture or YAML file.
  std::string out_dir;           ///< Output folder ("" = synth-<arch name> in the current one).
  std::string rtl_dir;           ///< RTL sources ("" = rtl/ of MAPWRIGHT_SOURCE_DIR, else of
                                 ///< the source tree this mapwright was built from).
  bool json = false;             ///< Print JSON instead of text.
  std::string fpga;              ///< "" = generic synthesis; else an FPGA implementation on
                                 ///< this device (flows/fpga.hpp: ice40-up5k, ice40-hx8k).
  std::string fpga_top;          ///< With fpga: "accel" (the default, "" = accel) or "array"
                                 ///< (the array engine alone, flows/fpga.hpp).
  int gate_sim = 0;              ///< > 0: simulate the netlist against the RTL on this many
                                 ///< random mappings (flows/gate_sim.hpp).
  uint64_t seed = 1;             ///< Seed of the gate-level simulation's layers and operands.
  std::string netlist;           ///< With gate_sim: simulate this netlist of mw_accel (for the
                                 ///< architecture's RTL parameters, with yosys' cell library)
                                 ///< instead of synthesizing one.
  int jobs = 0;                  ///< Worker processes per simulator (0 = the cores).
  std::string liberty;           ///< "" = generic synthesis; else map to this standard-cell
                                 ///< library ("osu018" or a liberty file) and time it
                                 ///< (flows/asic.hpp).
  std::string node = "HP45";     ///< With liberty: the node the figures are scaled to.
};

/// Synthesizes the accelerator for `arch` with yosys in `out_dir` (created; the RTL is copied
/// into it and the yosys script written there, so no path reaches the script). Never throws
/// for a yosys problem: it is a typed failure.
/// With `write_netlist`, the mapped design is also written, flattened, as a gate-level Verilog
/// netlist (SynthResult::netlist) that Verilator simulates with yosys' cell library.
SynthOutcome synthesize(const core::Arch& arch, const std::string& rtl_dir,
                        const std::string& out_dir, bool write_netlist = false);

/// The text report of a result.
void print_synth(const SynthResult& r, std::ostream& out);
/// The JSON form of a result (also written to <out>/synth.json).
std::string synth_json(const SynthResult& r);

/// `mapwright synth`: exit 0 with a result, 1 for a failure (missing yosys, yosys error), 2 for
/// bad input (core::SpecError).
int cmd_synth(const SynthOptions& o, std::ostream& out);

}  // namespace mapwright::flows
