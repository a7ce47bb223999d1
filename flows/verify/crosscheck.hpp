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
#include "mapwright/flows/objective.hpp"
#include "mapwright/flows/run_record.hpp"
#include "mapwright/rtl_api/rtl_api.hpp"

namespace mapwright::flows {

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

/// The verdict of `rtl` (run in process or by the worker pool) on `layer` under `m`, against the
/// surrogate's metrics `surrogate`.
Crosscheck crosscheck(const core::Layer& layer, const core::Arch& arch, const core::Mapping& m,
                      const core::Metrics& surrogate, const rtl::RtlRunResult& rtl);

/// The error of a predicted cycle count in percent of the RTL's (0 when the RTL has none).
double cycle_error_pct(long long rtl_cycles, long long predicted);

/// A run's candidate verification from its RTL result `r` (operands seeded with `seed`): the
/// crosscheck's figures and the typed kind of the outcome (see VerificationKind).
Verification verification_of(const rtl::RtlRunResult& r, const core::Layer& layer,
                             const core::Arch& arch, const core::Mapping& m,
                             const core::Metrics& surrogate, uint64_t seed);

/// Picks the layer's best candidate: the lowest `objective` cost among those that passed the
/// RTL; the surrogate's best when the run has no RTL (`rtl` false) or none passed.
void choose_best(LayerRecord& layer, const core::Objective& objective, bool rtl);

}  // namespace mapwright::flows
