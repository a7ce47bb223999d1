#pragma once
/// \file rtl_evaluator.hpp
/// The RTL simulator: runs a layer under a mapping on the Verilated accelerator
/// (rtl/mw_accel.sv) inside a SystemC testbench (clock, reset, a DRAM model with the
/// architecture's bandwidth and latency holding the real tensors, the command driver), and
/// returns cycle-accurate latency, the hardware's access counters and a bit-exact check against
/// a plain C++ reference of the layer. No SystemC or Verilator type appears here.
///
/// One SystemC simulation per process: the first run elaborates the model of its architecture
/// and later runs reset it; a run for a different architecture in the same process returns a
/// typed failure. Models are compiled for the architectures in configs/arch (see
/// systemc/CMakeLists.txt); an architecture is served by the model whose RTL parameters
/// (rows, cols, buffer sizes, DRAM bytes per cycle) it matches. A build configured with
/// MAPWRIGHT_RTL_MODEL holds one model of any parameters instead: the RTL model cache
/// (rtlpool/model_cache.hpp) builds such a worker for each architecture without a compiled-in
/// model.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/core/metrics.hpp"
#include "mapwright/rtl_api/rtl_api.hpp"

namespace mapwright::systemc {

/// Upper bound of what one run allocates, in bytes, from the layer shape, the mapping's trip
/// counts and the run's access counts in closed form (nothing is walked or allocated): the
/// command program with its DMA segment lists (vector growth included), the DRAM image, the
/// random operands and the reference output, and the tile walk's bookkeeping per output tile.
struct RunMemoryEstimate {
  double program_bytes = 0;  ///< Command words, last flags, DMA jobs and their segments.
  double dram_bytes = 0;     ///< The DRAM image (what build_program sizes dram.bytes to).
  double tensor_bytes = 0;   ///< Random input and weights, the reference output.
  double walk_bytes = 0;     ///< walk_tile_program's reduction count per output tile.
  double total() const { return program_bytes + dram_bytes + tensor_bytes + walk_bytes; }
};
/// The estimate of one run of `layer` under `mapping` (which must pass check_mapping), whose
/// access counts are `counts` (model::closed_form_counts: its tile steps and DMA commands size
/// the command program).
RunMemoryEstimate estimate_run_memory(const core::Layer& layer, const core::Arch& arch,
                                      const core::Mapping& mapping,
                                      const core::AccessCounts& counts);

/// Which harness runs the Verilated RTL.
enum class RtlHarness {
  /// The pin-level SystemC testbench: the accelerator is an sc_module with sc_signal ports,
  /// clocked by an sc_clock (one SystemC evaluation per clock edge). Every compiled
  /// architecture and the model cache's; the only one that traces.
  SystemC,
  /// The temporally decoupled SystemC harness: one SystemC thread steps a plain C++ model and
  /// meets SystemC time once per quantum (tlm_global_quantum; 1000 cycles if unset) and at the
  /// job's end, which it reaches at exactly its cycles times the clock period. Needs a plain
  /// model (MAPWRIGHT_RTL_PLAIN_ARCHS). One SystemC harness per process, as for SystemC.
  Decoupled,
  /// The plain C++ Verilator harness, no SystemC (needs a plain model); measures what the
  /// SystemC boundary costs (bench/rtl_bench).
  Plain,
  /// The faster SystemC harness that can serve the run: the one this process already
  /// elaborated, else Decoupled when the architecture has a plain model and no waveform is
  /// asked for, else SystemC. What `verify`, `fidelity` and the main job's workers use.
  Auto,
};

/// "pin-level SystemC", "decoupled SystemC", "plain C++" or "auto": the harness's name in reports.
const char* harness_label(RtlHarness h);

/// Options of one RTL run.
struct RtlRunOptions {
  uint64_t seed = 1;                 ///< Seed of the random int8 operands and of the DRAM stalls.
  std::string trace_file;            ///< FST waveform of the run ("" = none).
  long long watchdog_cycles = 0;     ///< Give up after this many cycles (0 = automatic bound).
  double stall_prob = 0.0;           ///< Chance the DRAM withholds a data beat in a cycle.
  int shift = -1;                    ///< Requantizing shift (-1 = default_shift(layer)).
  bool drop_dram_responses = false;  ///< Test hook: the DRAM never answers (a stuck design).
  /// Test hook: the first compute command asks for a tile of K extent 0, a malformed command
  /// the driver never sends, which the RTL's SVAs catch (a typed RtlFailure::Assertion).
  bool zero_compute_extent = false;
  /// Test hook: the first compute command's accumulator base is set past the end of the
  /// buffer (a command the driver never sends), which the address-range SVAs catch.
  bool acc_base_past_end = false;
  /// Test hook: the driver changes a command word that the accelerator has not taken yet (it
  /// must hold it), which the command port's handshake SVA catches.
  bool unheld_command = false;
  /// Test hook (bursts DRAM port): the DRAM flags the first beat of the first read burst of
  /// more than one beat as its last, which the DMA's burst SVA catches.
  bool misflag_burst_last = false;
  /// The harness around the model (same RTL, command driver and DRAM model in each).
  RtlHarness harness = RtlHarness::SystemC;
  /// Cycles, memory and wall clock a run may take. The caller's admission checks the cycles
  /// and the memory before the run (rtlpool::admit_run); the simulator watches the wall clock
  /// (max_seconds, <= 0 = not watched).
  rtl::SimLimits limits;
};

/// RTL parameters a Verilated model was built with, as reported by its registers.
using RtlParams = rtl::RtlParams;

/// The process's simulator: one SystemC simulation, elaborated for the first architecture
/// (and harness) it runs.
class RtlEvaluator {
 public:
  /// The simulator's checks before anything is built or estimated: the mapping belongs to the
  /// layer and architecture (a Mapping failure), fits the buffers (Invalid, with the metrics'
  /// typed reason), and the harness can model the architecture's DRAM latency (Arch). False
  /// with `res` failed when the run cannot go on.
  static bool precheck(const core::Layer& layer, const core::Arch& arch,
                       const core::Mapping& mapping, rtl::RtlRunResult& res);

  /// One full run, admitted against its limits by `admission` (rtlpool::admit_run, which the
  /// RTL worker and `mapwright verify` call): a run that fails precheck comes back with that
  /// failure, a run the admission refused with its typed limit result; nothing is built for
  /// either. The result's estimates and the automatic watchdog bound come from the admission.
  rtl::RtlRunResult run(const core::Layer& layer, const core::Arch& arch,
                        const core::Mapping& mapping, const rtl::RunAdmission& admission,
                        const RtlRunOptions& options = {});

  /// Elaborates (if needed) the model for `arch` in `harness` and reads its parameter
  /// registers. Returns false with `failure` set when no model matches or another arch or
  /// SystemC harness was elaborated. Auto resolves as for a run without a waveform.
  bool read_params(const core::Arch& arch, RtlParams& params, std::string& failure,
                   RtlHarness harness = RtlHarness::SystemC);

  /// Names of the architectures with a compiled model.
  static std::vector<std::string> compiled_archs();
  /// Names of the architectures that also have a plain C++ model (RtlHarness::Decoupled, Plain).
  static std::vector<std::string> plain_archs();
  /// True when a plain C++ model matches `arch`'s RTL parameters (whatever its name).
  static bool has_plain_model(const core::Arch& arch);
  /// What RtlHarness::Auto becomes for a run of `arch` in this process (`traced`: a waveform
  /// is asked for); any other harness is returned as it is.
  static RtlHarness resolve(RtlHarness harness, const core::Arch& arch, bool traced = false);
  /// The compiled models: architecture name and RTL parameters.
  static std::vector<std::pair<std::string, RtlParams>> compiled_models();
};

}  // namespace mapwright::systemc
