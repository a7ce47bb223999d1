#pragma once
// One step's DMA operations in program order, and how they fall against the compute before
// and after them (docs/timing.md, section 4): shared by the closed form and the refined
// estimate, so both split a step by the same rule.

#include <algorithm>

#include "mapwright/core/tile_program.hpp"

namespace mapwright::model {

/// One DMA operation of a step.
struct DmaOp {
  double d;       ///< Its duration in cycles.
  bool blocking;  ///< It waits for the previous compute (a single-buffered load, any store).
  bool required;  ///< The next compute waits for it.
};

/// Splits `n` operations: those before the first blocking one overlap the previous compute
/// (`prefix`); those from it up to the last required one follow that compute and precede the
/// next (`tail`); the rest run beside the next compute (`left`).
inline void split_dma_ops(const DmaOp* o, int n, double& prefix, double& tail, double& left) {
  int first_block = n, last_req = -1;
  for (int i = 0; i < n; ++i) {
    if (o[i].blocking && first_block == n) first_block = i;
    if (o[i].required) last_req = i;
  }
  prefix = tail = left = 0;
  for (int i = 0; i < n; ++i) {
    if (i < first_block)
      prefix += o[i].d;
    else if (i <= last_req)
      tail += o[i].d;
    else
      left += o[i].d;
  }
}

/// Time from the start of one compute to the start of the next over a transition whose DMA
/// operations split into `prefix`, `tail` and `left` (see split_dma_ops): the tail follows the
/// old compute, and the new compute starts `kDmaToCompute` cycles after the last transfer it
/// waits for ends (the prefix holds only loads the new compute needs).
inline double next_compute_start(double compute, double prefix, double tail) {
  constexpr double r = static_cast<double>(core::kDmaToCompute);
  if (tail > 0) return std::max(compute, prefix) + tail + r;
  if (prefix > 0) return std::max(compute, prefix + r);
  return compute;
}

/// How many cycles before the new compute starts the DMA engine is done with the prefix and
/// the tail: `kDmaToCompute` when that compute waited for a transfer, else 0.
inline double dma_lead(double compute, double prefix, double tail) {
  return next_compute_start(compute, prefix, tail) - (std::max(compute, prefix) + tail);
}

/// How much the `left` operations of a transition delay the step after the next one. They
/// start where the tail ends (after the old compute), `gain` cycles before the new compute
/// starts (the registered completion), and share the DMA engine with the next transition's
/// prefix `next_prefix`, which the compute after the new one (`next_compute` long) waits for.
inline double leftover_delay(double left, double gain, double next_compute, double next_prefix) {
  constexpr double r = static_cast<double>(core::kDmaToCompute);
  const double base = next_prefix > 0 ? next_prefix + r : 0.0;
  return std::max(0.0, std::max(next_compute, left - gain + base) - std::max(next_compute, base));
}

}  // namespace mapwright::model
