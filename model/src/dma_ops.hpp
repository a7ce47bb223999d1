#pragma once
// One step's DMA operations in program order, and how they fall against the compute before
// and after them (docs/timing.md, section 4): shared by the closed form and the refined
// estimate, so both split a step by the same rule.

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

}  // namespace mapwright::model
