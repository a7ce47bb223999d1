#pragma once
/// \file surrogate.hpp
/// The analytical surrogate: exact access counts in closed form (equal to the tile-program
/// walk) and a closed-form cycle estimate of the double-buffered schedule. See docs/timing.md.

#include "mapwright/core/metrics.hpp"

namespace mapwright::model {

/// Exact access counts without walking the tiles.
core::AccessCounts closed_form_counts(const core::Layer& layer, const core::Arch& arch,
                                      const core::Mapping& m);

/// Cycle terms of the closed form.
struct CycleEstimate {
  long long cycles = 0;          ///< End-to-end estimate.
  long long compute_cycles = 0;  ///< Exact sum of fold times.
  long long bank_cycles = 0;     ///< Banked buffers: the part of compute_cycles they add.
  long long dma_cycles = 0;      ///< Exact sum of DMA transfer times.
};
CycleEstimate closed_form_cycles(const core::Layer& layer, const core::Arch& arch,
                                 const core::Mapping& m, const core::AccessCounts& counts);
/// The same with the banked buffers' cycles given (model::closed_form_bank_cycles of the same
/// layer and mapping; ignored without banks): they depend on the tiles, the PE use and the
/// dataflow only, not on the order or the double buffering, so a caller scoring many orders
/// and double-buffer choices of one tiling computes them once.
CycleEstimate closed_form_cycles(const core::Layer& layer, const core::Arch& arch,
                                 const core::Mapping& m, const core::AccessCounts& counts,
                                 long long bank_cycles);

/// DRAM beats under core::DramPort::Bursts summed over the tile program, per transfer kind:
/// every input load, every weight load, every store; `psum` is the sum over the distinct output
/// tiles of one spill (a reload moves the same), so spills and reloads each add
/// (visits - 1) * psum. Exact: the walk's tiles, each with core::burst_beats.
struct BurstTotals {
  long long in = 0, wt = 0, store = 0, psum = 0;
};
BurstTotals burst_totals(const core::Layer& layer, const core::Arch& arch, const core::Mapping& m);

/// The surrogate. Cheap: no allocation on the valid path.
class Surrogate {
 public:
  /// Evaluates; an invalid mapping (capacity) comes back with valid == false and a reason.
  core::Metrics evaluate(const core::Layer& layer, const core::Arch& arch,
                         const core::Mapping& mapping);
  /// "surrogate" (what `mapwright eval --json` records as its evaluator).
  std::string name() const { return "surrogate"; }
};

}  // namespace mapwright::model
