#pragma once
/// \file refined.hpp
/// The refined cycle estimate: the double-buffered schedule summed over classes of transitions
/// between consecutive steps, each with the exact compute time of the tiles on both sides and
/// the transfers of the new step (docs/timing.md, section 4). It tracks the reference schedule
/// (and so the RTL) far closer than the surrogate's closed form, whose averages over all steps
/// of a class it replaces, at several times its cost.
///
/// It is a prediction, not the search objective: it depends on the remainder tiles and on the
/// loop order beyond the tensors' reuse, which the surrogate's cycles deliberately do not, so
/// the compact space's dominance arguments and the exact mapper's proof stay those of the
/// surrogate (mapper/README.md). `verify`, `fidelity` and the reports show it next to the
/// surrogate's cycles.

#include "mapwright/core/metrics.hpp"
#include "mapwright/model/surrogate.hpp"

namespace mapwright::model {

/// The refined estimate for a mapping that passed check_mapping (capacity not required):
/// `cycles` is the refined end-to-end estimate, never below the busier engine;
/// `compute_cycles` and `dma_cycles` are the closed form's exact totals.
CycleEstimate refined_cycles(const core::Layer& layer, const core::Arch& arch,
                             const core::Mapping& m);

}  // namespace mapwright::model
