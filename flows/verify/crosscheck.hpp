#pragma once
/// \file crosscheck.hpp
/// The one verdict of an RTL run against the surrogate's prediction of the same mapping: every
/// access counter and (banked buffers) bank-stall counter side by side, the surrogate's cycle
/// error, and whether the run passed (ran to the end, bit-exact, every counter equal). `run`,
/// `verify`, `fidelity` and `regress` all judge through it; `run` keeps the verdict as a
/// candidate's Verification and picks each layer's best from them (choose_best).

#include <cstdint>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/metrics.hpp"
#include "mapwright/core/rtl_failure.hpp"
#include "mapwright/flows/objective.hpp"
#include "mapwright/flows/run_record.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"

namespace mapwright::flows {

/// What the crosscheck reads of one RTL run. rtl_measurement() takes it from the worker pool's
/// result; `verify` and `fidelity` fill it from the in-process evaluator's.
struct RtlMeasurement {
  core::RtlFailure kind = core::RtlFailure::None;  ///< None: the run went to the end.
  bool functional_ok = false;                      ///< Outputs equal the C++ reference.
  core::Metrics metrics;                           ///< RTL cycles and access counters.
  long long input_bank_stalls = 0;                 ///< Banked input buffer's stall counter.
  long long weight_bank_stalls = 0;                ///< Banked weight buffer's stall counter.
  long long accum_bank_stalls = 0;                 ///< Banked accumulator's stall counter.
};
/// The measurement in a worker pool's result.
RtlMeasurement rtl_measurement(const rtlpool::RtlJobResult& r);

/// One RTL run set against the surrogate.
struct Crosscheck {
  /// Every access counter (AccessCounts::fields order), RTL and surrogate.
  std::vector<CountDiff> counts;
  /// Banked buffers (arch.buffer_banks > 0): "input_bank_stalls" and "weight_bank_stalls"
  /// against the surrogate's prediction (model::closed_form_bank_stalls), "accum_bank_stalls"
  /// against zero (core::accum_bank_problem refuses every mapping that would stall it); empty
  /// without banks.
  std::vector<CountDiff> bank_stalls;
  int mismatched = 0;          ///< Counters of both lists that differ.
  double cycle_error_pct = 0;  ///< The surrogate's cycle error in percent of the RTL cycles.
  bool counts_equal = false;   ///< The run went to the end and every counter is equal.
  bool passed = false;         ///< It went to the end, bit-exact, with every counter equal.
  /// The counters that differ, access counters first.
  std::vector<CountDiff> differing() const;
};

/// The verdict of `rtl` on `layer` under `m`, against the surrogate's metrics `surrogate`.
Crosscheck crosscheck(const core::Layer& layer, const core::Arch& arch, const core::Mapping& m,
                      const core::Metrics& surrogate, const RtlMeasurement& rtl);

/// The error of a predicted cycle count in percent of the RTL's (0 when the RTL has none).
double cycle_error_pct(long long rtl_cycles, long long predicted);

/// A run's candidate verification from its worker's result `r` (operands seeded with `seed`):
/// the crosscheck's figures and the typed kind of the outcome (see VerificationKind).
Verification verification_of(const rtlpool::RtlJobResult& r, const core::Layer& layer,
                             const core::Arch& arch, const core::Mapping& m,
                             const core::Metrics& surrogate, uint64_t seed);

/// Picks the layer's best candidate: the lowest `objective` cost among those that passed the
/// RTL; the surrogate's best when the run has no RTL (`rtl` false) or none passed.
void choose_best(LayerRecord& layer, const core::Objective& objective, bool rtl);

}  // namespace mapwright::flows
