#pragma once
/// \file compact_space.hpp
/// The compact map space: a subset of the raw space (MapSpace) that still contains an optimal
/// mapping for every objective that grows with cycles and energy (latency, energy, EDP), found
/// by dominance and equivalence arguments on the closed-form counts (mapper/README.md):
///
/// - tiles: per loop, for every trip count T = ceil(bound / t), the smallest tile giving T,
///   plus larger tiles with the same T only when they change a fold count (sum over the
///   loop's tiles of ceil(size * x / pe)) or lower the halo sum of the input extent. R and S
///   (and N under OS and IS) keep every size. Under the burst DRAM port, larger tiles are also
///   kept when they change a tensor's beats (sum of ceil(size * x / beat); N, P and Q then keep
///   every size). Which quantity couples a loop depends on the dataflow and on the loops
///   chosen before it in `tile_branch_order`, so candidates are conditional;
/// - PE use: only the smallest pe_rows (pe_cols) giving the same fold counts for the chosen
///   tiles (fewer enabled PEs, same counts and cycles, less static energy);
/// - loop orders: one representative per class of orders with equal reuse (reload multiplier
///   and period of each tensor); the classes depend only on the innermost run of loops of the
///   same relevance type, so there are at most 15 per tiling;
/// - fold order (no effect on counts or cycles) is fixed to rows_outer; a double-buffer flag
///   is dropped when its tensor is loaded (or stored) only once.
/// A compact mapping is still a core::Mapping.

#include <array>
#include <functional>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/loopnest.hpp"
#include "mapwright/core/mapping.hpp"

namespace mapwright::core {

/// One representative order per class of orders with equal OrderReuse (core::order_reuse) for
/// these trips, in a fixed (deterministic) order. At most 15.
std::vector<std::array<Dim, kNumOrderedDims>> order_classes(
    const std::array<long long, kNumDims>& trips);

/// The order in which the compact space (and the exact mapper) fixes the tiles: K, R, S, then
/// C G N P Q (WS) or N P Q C G (OS); R S C N P Q K G (IS). Candidates of a loop depend only on
/// loops before it.
std::array<Dim, kNumDims> tile_branch_order(Dataflow df);

/// The bytes per beat of the architecture's burst DRAM port, 0 for the packed port: what the
/// compact tile lists below need to know about the DRAM port.
long long burst_beat_of(const Arch& arch);

/// Compact tile sizes of loop `d`, given the dataflow, the PE use and the tiles of the loops
/// before `d` in tile_branch_order (later tiles are ignored). Ascending. `burst_beat`
/// (burst_beat_of, 0 = packed port): under the burst port a tile's DRAM beats depend on its
/// size beyond the trip count, so larger tiles that change the beats are kept too (N, P and Q
/// keep every size: the input's row and column blocks couple them).
std::vector<long long> compact_tile_sizes(const Layer& layer, const Mapping& partial, Dim d,
                                          long long burst_beat = 0);

/// A key that identifies the result of compact_tile_sizes for (partial, d, burst_beat): equal
/// keys give equal candidate lists (for caching).
std::vector<long long> compact_tile_key(const Layer& layer, const Mapping& partial, Dim d,
                                        long long burst_beat = 0);

/// True when pe_rows is the smallest PE-row count giving the same fold counts for the tiles
/// of the row-coupled loops (WS: C R S; OS: N P Q), which must be set.
bool pe_rows_minimal(const Layer& layer, const Mapping& m);
/// True when pe_cols is the smallest PE-column count giving the same fold counts for tile K.
bool pe_cols_minimal(const Layer& layer, const Mapping& m);

/// Double-buffer choices that can matter for this tiling and order: a flag is only tried when
/// its tensor changes after the first step. Each entry is {db_input, db_weight, db_accum}.
std::vector<std::array<bool, 3>> double_buffer_choices(const Layer& layer, const Mapping& m);

/// The compact space of one layer on one architecture, enumerable (for proofs and tests).
class CompactSpace {
 public:
  CompactSpace(Layer layer, Arch arch);
  /// Calls `visit` for every compact mapping that fits the buffers, in a fixed order; returns
  /// how many there were.
  long long for_each(const std::function<void(const Mapping&)>& visit) const;

 private:
  Layer layer_;  ///< The layer.
  Arch arch_;    ///< The architecture.
};

}  // namespace mapwright::core
