#pragma once
// Bank conflicts of banked compute buffers, predicted per fold.
//
// A banked buffer (rtl/mw_bank_buf.sv) keeps word a in bank (a mod banks) and serves one lane
// per bank and cycle, so an access row costs as many cycles as its busiest bank has lanes. The
// compute controller's lanes of one row are a common base plus per-lane offsets that are fixed
// for the whole fold (rtl/README.md "Banked buffers"): the streamed position moves the base
// only. If every lane of a row occupies its bank, padding lanes included (a padding lane takes
// its bank's port at its virtual address and discards the word), every row of a fold therefore
// has the same conflicts, and a fold's stall cycles are its streamed rows times one row's. This
// is what makes the count exact without replaying the rows.
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"

namespace mapwright::model {

/// Extra cycles of one access row whose lanes sit at `offsets` from a common base: the largest
/// number of lanes in one bank (offset mod banks, floored) minus one; 0 for fewer than two
/// lanes. Independent of the base.
long long row_bank_stall(const std::vector<long long>& offsets, long long banks);

/// Stall cycles of one mapping's compute streams, per buffer, on buffers of `banks` banks with
/// padding lanes occupying their banks. Streams, per fold (core::for_each_fold, RTL layouts):
/// the input rows (WS `a`: one per output pixel, lanes = reduction rows; OS `a`: one per
/// reduction index, lanes = output pixels; IS `w` preload: one per reduction row, lanes =
/// pixels), the weight rows (WS preload, OS `w`, IS `a`) and the accumulator rows (result rows
/// written, and read when the fold accumulates). Each stream's stalls are counted as if
/// exposed on their own: streams that run in the same cycles may hide each other's.
struct BankStalls {
  long long input = 0;
  long long weight = 0;
  long long accum = 0;
  long long total() const { return input + weight + accum; }
};
BankStalls fold_bank_stalls(const core::Layer& layer, const core::Arch& arch,
                            const core::Mapping& m, long long banks);

/// The input and weight parts of fold_bank_stalls without walking the tile program: a sum
/// over tile-size classes (model/tile_classes.hpp) and over the distinct (output tile, filter
/// tile) pairs of each image axis, with one row's stall computed once per distinct fold shape.
/// `accum` is left 0 (whether a fold reads the accumulator depends on the step order).
BankStalls closed_form_bank_stalls(const core::Layer& layer, const core::Mapping& m,
                                   long long banks);

}  // namespace mapwright::model
