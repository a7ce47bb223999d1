#pragma once
/// \file rtl_api.hpp
/// The plain data that the RTL simulator (systemc::RtlEvaluator) and the RTL worker pool
/// (rtlpool::RtlWorkerPool, its worker) share: the limits of one simulation, the admission of a
/// run against them, and the result of a run. A result made in process and one that came back
/// from a worker process are the same type.

#include <cstdio>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/metrics.hpp"
#include "mapwright/core/rtl_failure.hpp"

namespace mapwright::rtl {

/// The parameters of a Verilated accelerator model: what an architecture needs of one
/// (params_of) and what a compiled model reports from its registers.
struct RtlParams {
  long long rows = 0, cols = 0;    ///< Array size.
  long long input_buf_bytes = 0;   ///< Input buffer.
  long long weight_buf_bytes = 0;  ///< Weight buffer.
  long long accum_buf_words = 0;   ///< Accumulator (int32 words).
  long long beat_bytes = 0;        ///< DRAM bytes per cycle.
  long long max_bursts = 0;        ///< Bursts port: bursts in flight at most (0: not reported).
  long long buf_banks = 0;         ///< Banks of the input and weight buffers (0: multi-ported).
  /// The same model (max_bursts aside: every model has core::kRtlMaxBursts).
  bool same_model(const RtlParams& o) const {
    return rows == o.rows && cols == o.cols && input_buf_bytes == o.input_buf_bytes &&
           weight_buf_bytes == o.weight_buf_bytes && accum_buf_words == o.accum_buf_words &&
           beat_bytes == o.beat_bytes && buf_banks == o.buf_banks;
  }
};

/// The RTL parameters architecture `a` needs of a model (max_bursts left 0).
inline RtlParams params_of(const core::Arch& a) {
  RtlParams p;
  p.rows = a.rows;
  p.cols = a.cols;
  p.input_buf_bytes = a.input_buf_bytes;
  p.weight_buf_bytes = a.weight_buf_bytes;
  p.accum_buf_words = a.accum_buf_bytes / 4;
  p.beat_bytes = static_cast<long long>(a.dram_bytes_per_cycle);
  p.buf_banks = a.buffer_banks;
  return p;
}

/// Per-simulation limits (cheapest check first): a run over one is not started, or is stopped,
/// and comes back as a typed limit result (RtlRunResult::over_limit, failure "limit: ..."). A
/// value <= 0 switches that limit off; the CLI accepts only positive values
/// (rtlpool::check_sim_limits).
struct SimLimits {
  /// Largest predicted cycle count (model::simulate_schedule) a run may have.
  long long max_cycles = 200'000'000;
  /// Wall-clock seconds one simulation may take (checked between slices of simulated time on
  /// the SystemC testbench; the RTL worker pool enforces it by killing the worker instead,
  /// counted from when it sent the job).
  double max_seconds = 1800;
  /// Largest estimated allocation of a run (systemc::estimate_run_memory), in MiB.
  long long max_memory_mb = 4096;
};

/// The failure of a run stopped by SimLimits::max_seconds, in the simulator and in the pool
/// alike: "limit: simulation exceeded 0.5 s wall clock (--sim-max-seconds)".
inline std::string wall_clock_failure(double max_seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", max_seconds);
  return std::string("limit: simulation exceeded ") + buf + " s wall clock (--sim-max-seconds)";
}

/// The admission of one run against its SimLimits, decided before the simulator builds
/// anything by whoever starts the simulation (rtlpool::admit_run): the estimates it made and,
/// for a run over a limit, why it is not run. The simulator takes it as input.
struct RunAdmission {
  /// Estimated allocation in MiB (0 = not estimated: the simulator's own checks refuse the run
  /// first).
  double estimated_memory_mb = 0;
  /// Predicted cycles (0 = not computed: not estimated, or over the memory limit). The
  /// simulator's automatic watchdog bound grows with it.
  long long predicted_cycles = 0;
  /// "" when admitted, else the "limit: ..." failure of the bound the run is over.
  std::string refusal;
  bool admitted() const { return refusal.empty(); }
};

/// Result of one RTL run.
struct RtlRunResult {
  core::Metrics metrics;       ///< Cycles, counts and energy from the RTL (valid = ran to the end).
  bool functional_ok = false;  ///< Outputs equal the C++ reference bit for bit.
  long long mismatches = 0;    ///< Output bytes that differ.
  /// Why the run failed (None on success). From the simulator (Mapping, Invalid, Watchdog,
  /// RtlError, Arch, Limit, ...) or from the pool: Worker when the worker process died on every
  /// try or answered garbage (infrastructure: no verdict, the job may succeed when run again),
  /// Limit when the pool stopped it at SimLimits::max_seconds (no verdict either).
  core::RtlFailure kind = core::RtlFailure::None;
  /// "" on success, else the message of `kind` ("invalid: ...", "watchdog: ...", "limit: ..."
  /// with the estimate and the bound, ...).
  std::string failure;
  long long predicted_cycles = 0;  ///< model::simulate_schedule cycles (0 if not computed).
  double estimated_memory_mb = 0;  ///< Estimated allocation in MiB (0 if not computed).
  /// How many times the pool ran the job again on a fresh worker after its worker crashed (0
  /// for a run in process).
  int retries = 0;
  core::AccessCounts counts;         ///< The hardware counters.
  long long cycles = 0;              ///< First DMA start to last completion, inclusive.
  long long array_busy_cycles = 0;   ///< Cycles the fold engine was busy.
  long long array_stall_cycles = 0;  ///< Busy cycles the fold engine did not advance.
  /// Banked buffers: cycles a requested row of the input / weight buffer waited for a bank (0
  /// when multi-ported).
  long long input_bank_stalls = 0;
  long long weight_bank_stalls = 0;
  /// Banked accumulator: cycles a compute row of it waited for a bank (zero for every valid
  /// mapping: core::accum_bank_problem refuses the rest).
  long long accum_bank_stalls = 0;
  long long dma_busy_cycles = 0;    ///< Cycles the DMA engine had a command in flight.
  long long dram_stall_cycles = 0;  ///< DMA data-phase cycles without a beat.
  double sim_seconds = 0;           ///< Wall time of the simulation.
  double sim_cpu_seconds = 0;       ///< CPU time of the simulation (its thread).
  long long sim_cycles = 0;  ///< Clock cycles the harness simulated for the job (start to end).
  /// The harness that served the run, as systemc::harness_label names it ("pin-level SystemC",
  /// "decoupled SystemC", "plain C++"; Auto resolved, the requested one when none was
  /// reached). "" when no simulator answered: a probe, or a result the pool made itself.
  std::string harness;

  bool ok() const { return kind == core::RtlFailure::None && functional_ok; }
  /// Over a SimLimits bound (not started, or stopped): no verdict, not an infrastructure failure.
  bool over_limit() const { return kind == core::RtlFailure::Limit; }
  /// The infrastructure failed (the worker died or answered garbage): no verdict.
  bool infrastructure() const { return kind == core::RtlFailure::Worker; }
};

}  // namespace mapwright::rtl
