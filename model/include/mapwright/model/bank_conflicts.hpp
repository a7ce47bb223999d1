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
#include <memory>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/tile_program.hpp"

namespace mapwright::model {

namespace detail {
class BankTerms;
}

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

/// The banked terms of a mapping summed over its compute ops: the input and weight stalls of
/// fold_bank_stalls and the cycles of closed_form_bank_cycles.
struct BankTotals {
  long long input = 0;   ///< Input buffer stalls (BankStalls::input).
  long long weight = 0;  ///< Weight buffer stalls (BankStalls::weight).
  long long cycles = 0;  ///< Cycles the banks add to the compute (closed_form_bank_cycles).
};
/// BankTotals in factored form (model/src/bank_closed_form.cpp): the sums over tile classes
/// factor by loop, and each distinct fold list's stalls (named by its lanes' digit radices,
/// strides mod `banks`, lanes per fold) come in closed form where the list has at most two
/// digits, else from a per-thread cache shared by every evaluation. Equal to
/// shape_sum_bank_totals. closed_form_bank_stalls and closed_form_bank_cycles read it.
BankTotals closed_form_bank_totals(const core::Layer& layer, const core::Mapping& m,
                                   long long banks);
/// The same summed op shape by op shape, each shape's fold lists built anew (no cache): the
/// reference the factored form is tested against, and the benchmark's "before".
BankTotals shape_sum_bank_totals(const core::Layer& layer, const core::Mapping& m, long long banks);
/// Empties the calling thread's fold-list cache (benchmarks of a cold cache; tests).
void clear_bank_fold_cache();

/// Cycles a banked design adds to the compute of mapping `m` (rtl/README.md "Banked buffers"):
/// per fold, one for the registered read of the fold's first row (requested in the cycle after
/// the fold's issue) and the bank stalls the mesh waits for. Each buffer requests its next row
/// when the mesh takes the current one, so a stream's row with k conflicts costs k cycles,
/// except the first input row under WS (first weight row under IS): it is requested with the
/// first preload row and waits k < ru cycles, hidden by the ru-cycle preload. OS streams `a`
/// and `w` together and waits for the slower. With k_a, k_w one input / weight row's stall of
/// the fold, M, L, tk its streamed rows and ru its rows:
///   WS: 1 + ru*k_w + (M - 1)*k_a
///   OS: 1 + L*max(k_a, k_w)
///   IS: 1 + ru*k_in + (tk - 1)*k_wt
long long closed_form_bank_cycles(const core::Layer& layer, const core::Mapping& m,
                                  long long banks);
/// The same for compute ops one by one (the reference schedule): op_cycles(box) is
/// closed_form_bank_cycles' term of the op with tile `box`, summed over its folds. Fold shapes
/// are memoized across the ops of one mapping, so build one per mapping and ask it per op.
class OpBankCycles {
 public:
  OpBankCycles(const core::Layer& layer, const core::Mapping& m, long long banks);
  ~OpBankCycles();
  OpBankCycles(const OpBankCycles&) = delete;
  OpBankCycles& operator=(const OpBankCycles&) = delete;
  long long op_cycles(const core::TileBox& box);

 private:
  const core::Layer& layer_;
  std::unique_ptr<detail::BankTerms> terms_;  // null when banks < 1 (unbanked: no cycles)
};

/// A compute op's tile as the banked layouts see it: its extents, and the shapes of the input
/// rows and columns it holds (core::input_row_shape: the rows or columns held, the held step per
/// output row or column, the positions clipped below row or column 0).
struct TileShape {
  long long n, p, q, c, r, s, k, g;  ///< Extents.
  core::RowShape rows;               ///< Input rows (P with R).
  core::RowShape cols;               ///< Input columns (Q with S).
};
TileShape tile_shape(const core::Layer& layer, const core::TileBox& box);

}  // namespace mapwright::model
