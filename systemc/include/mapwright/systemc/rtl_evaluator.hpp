#pragma once
/// \file rtl_evaluator.hpp
/// The RTL as an Evaluator: runs a layer under a mapping on the Verilated accelerator
/// (rtl/mw_accel.sv) inside a SystemC testbench (clock, reset, a DRAM model with the
/// architecture's bandwidth and latency holding the real tensors, the command driver), and
/// returns cycle-accurate latency, the hardware's access counters and a bit-exact check against
/// a plain C++ reference of the layer. No SystemC or Verilator type appears here.
///
/// One SystemC simulation per process: the first run elaborates the model of its architecture
/// and later runs reset it; a run for a different architecture in the same process returns a
/// typed failure. Models are compiled for the architectures in configs/arch (see
/// systemc/CMakeLists.txt); an architecture is served by the model whose RTL parameters
/// (rows, cols, buffer sizes, DRAM bytes per cycle) it matches.

#include <cstdint>
#include <string>
#include <vector>

#include "mapwright/core/metrics.hpp"

namespace mapwright::systemc {

/// Options of one RTL run.
struct RtlRunOptions {
  uint64_t seed = 1;               ///< Seed of the random int8 operands and of the DRAM stalls.
  std::string trace_file;          ///< FST waveform of the run ("" = none).
  long long watchdog_cycles = 0;   ///< Give up after this many cycles (0 = automatic bound).
  double stall_prob = 0.0;         ///< Chance the DRAM withholds a data beat in a cycle.
  int shift = -1;                  ///< Requantizing shift (-1 = default_shift(layer)).
  bool drop_dram_responses = false;  ///< Test hook: the DRAM never answers (a stuck design).
  /// Run on the plain C++ Verilator harness (same RTL, driver and DRAM model, no SystemC)
  /// instead of the SystemC testbench; needs a plain model of the architecture
  /// (MAPWRIGHT_RTL_PLAIN_ARCHS). Used to measure the cost of the SystemC boundary.
  bool plain_harness = false;
};

/// Result of one RTL run.
struct RtlRunResult {
  core::Metrics metrics;        ///< Cycles, counts and energy from the RTL (valid = ran to the end).
  bool functional_ok = false;   ///< Outputs equal the C++ reference bit for bit.
  long long mismatches = 0;     ///< Output bytes that differ.
  /// "" on success, else a typed failure: "invalid: ...", "mapping: ...", "arch: ...",
  /// "command format: ...", "watchdog: ...", "rtl error: ...", "dram: ...".
  std::string failure;
  core::AccessCounts counts;    ///< The hardware counters.
  long long cycles = 0;         ///< First DMA start to last completion, inclusive.
  long long array_busy_cycles = 0;   ///< Cycles the fold engine was busy.
  long long array_stall_cycles = 0;  ///< Busy cycles the fold engine did not advance.
  long long dma_busy_cycles = 0;     ///< Cycles the DMA engine had a command in flight.
  long long dram_stall_cycles = 0;   ///< DMA data-phase cycles without a beat.
  double sim_seconds = 0;       ///< Wall time of the simulation.
  double sim_cpu_seconds = 0;   ///< CPU time of the simulation (its thread).
  long long sim_cycles = 0;     ///< Clock cycles the harness simulated for the job (start to end).
  bool ok() const { return failure.empty() && functional_ok; }
};

/// RTL parameters a Verilated model was built with, as reported by its registers.
struct RtlParams {
  long long rows = 0, cols = 0;           ///< Array size.
  long long input_buf_bytes = 0;          ///< Input buffer.
  long long weight_buf_bytes = 0;         ///< Weight buffer.
  long long accum_buf_words = 0;          ///< Accumulator (int32 words).
  long long beat_bytes = 0;               ///< DRAM bytes per cycle.
};

class RtlEvaluator final : public core::Evaluator {
 public:
  /// Runs with default options (seed 1); a failure comes back as valid == false with the
  /// failure as reason.
  core::Metrics evaluate(const core::Layer& layer, const core::Arch& arch,
                         const core::Mapping& mapping) override;
  std::string name() const override { return "rtl"; }

  /// One full run with options.
  RtlRunResult run(const core::Layer& layer, const core::Arch& arch,
                   const core::Mapping& mapping, const RtlRunOptions& options = {});

  /// Elaborates (if needed) the model for `arch` and reads its parameter registers. Returns
  /// false with `failure` set when no model matches or another arch was elaborated.
  bool read_params(const core::Arch& arch, RtlParams& params, std::string& failure);

  /// Names of the architectures with a compiled model.
  static std::vector<std::string> compiled_archs();
};

}  // namespace mapwright::systemc
