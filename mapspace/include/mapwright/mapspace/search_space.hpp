#pragma once
/// \file search_space.hpp
/// The search encoding of one layer on one architecture: a compact, feasibility-respecting
/// parameter space for the ask/tell searchers, derived from the compact space
/// (compact_space.hpp, mapper/README.md). Same public shape as MapSpace (params, decode,
/// encode, log10_size), but:
///
/// - tiles: per loop an index into a *static* ascending list of tile sizes, the union over
///   every dataflow, PE use and coupled tile of what compact_tile_sizes may keep (the smallest
///   tile of every trip count plus the fold-aligned / halo-reducing ones). A loop with one
///   value (bound 1) has no parameter. Ordinal.
/// - order: an index into 15 fixed order-class representatives (search_order_reps): K
///   innermost; or a non-empty subset of {N, P, Q} as the innermost run; or a non-empty subset
///   of {C, R, S}. For every tiling, every reuse class of order_classes is one of them (loops
///   with one trip are transparent to order_reuse). Categorical.
/// - pe_rows / pe_cols: 1..min(array, largest product that can be folded onto it); decode
///   lowers them to the smallest PE count giving the same fold counts (same counts and cycles,
///   less static energy). Ordinal.
/// - db_input / db_weight / db_accum: decode drops a flag whose tensor never changes.
/// - dataflow only when the architecture has more than one; the fold order is rows_outer.
///
/// Feasibility by construction: decode() repairs a mapping that overflows a buffer with a
/// deterministic rule (see decode), so it always fits when any mapping fits; on the bursts DRAM
/// port it also repairs an input tile without a burst descriptor (see decode).

#include <array>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/core/tile_program.hpp"

namespace mapwright::core {

/// The 15 fixed loop orders (outermost first) the search encoding's `order` parameter indexes:
/// index 0 has K innermost; 1..7 have the non-empty subset (bit 0 N, bit 1 P, bit 2 Q) of the
/// output loops as innermost run, after K and C R S; 8..14 the subset (bit 0 C, bit 1 R,
/// bit 2 S) of the reduction loops as innermost run, after K and N P Q.
const std::array<std::array<Dim, kNumOrderedDims>, 15>& search_order_reps();

/// The compact search encoding (see the file comment).
class SearchSpace {
 public:
  /// Builds the static tile lists (a few milliseconds for the largest zoo layers).
  SearchSpace(Layer layer, Arch arch);

  /// Parameters in vector order.
  const std::vector<ParamInfo>& params() const { return params_; }
  /// The layer.
  const Layer& layer() const { return layer_; }
  /// The architecture.
  const Arch& arch() const { return arch_; }
  /// The static, ascending tile list of loop `d` (a single value: no parameter).
  const std::vector<long long>& tile_sizes(Dim d) const { return tiles_[static_cast<int>(d)]; }

  /// Vector -> mapping that fits the buffers whenever any mapping fits. Indices are clamped
  /// into their domains. Steps, each deterministic:
  ///  1. read dataflow, tiles, order, PE use and double-buffer flags; drop a double-buffer
  ///     flag whose tensor never changes (no effect but the footprint; not a repair);
  ///  2. repair, while check_capacity names an overflowing buffer: if that buffer is double
  ///     buffered, clear its flag; otherwise, among the loops its footprint depends on (input:
  ///     G N C P Q R S; weight: G K C R S; accumulator: G N K P Q) whose tile is not the
  ///     smallest, take the one with the largest tile (ties: G N K C P Q R S) and move it one
  ///     step down its list (the next smaller trip-count class). Footprints never grow, so this
  ///     ends with a fit, or with every relevant tile at 1 when nothing fits;
  ///     then, on the bursts DRAM port, while a fitting mapping has an input tile that no
  ///     single burst descriptor describes (descriptor_problem), move the larger of the P and
  ///     Q tiles one step down (ties: P), or when both are 1 the G tile, then the N tile; if
  ///     all four are at their smallest it stays invalid (no_burst_descriptor);
  ///  3. lower pe_rows and pe_cols to the smallest values with the same fold counts.
  /// `repaired`, when given, is set to true iff step 2 changed anything.
  Mapping decode(const ParamVector& v, bool* repaired = nullptr) const;
  /// Mapping -> vector, best effort: each tile becomes the index of the largest listed size
  /// not above it, the order the representative with the same reuse for the mapping's trips,
  /// PE use its index. A compact mapping (e.g. the exact mapper's) round-trips to a mapping
  /// with identical surrogate metrics.
  ParamVector encode(const Mapping& m) const;
  /// Whether the RTL can run `m` (check_valid: capacity, then the bursts port's descriptor
  /// rule), with typed reasons.
  Validity check(const Mapping& m) const { return check_valid(layer_, arch_, m); }
  /// log10 of the number of points.
  double log10_size() const;

 private:
  /// What one parameter sets.
  enum class Kind { Dataflow, Tile, Order, PeRows, PeCols, DbInput, DbWeight, DbAccum };
  /// One parameter's role.
  struct Slot {
    Kind kind = Kind::Tile;  ///< What it sets.
    Dim dim = Dim::N;        ///< The loop, for Kind::Tile.
  };

  Layer layer_;            ///< The layer.
  Arch arch_;              ///< The architecture.
  std::string shape_key_;  ///< layer_.shape_key(), formatted once (decode stamps each mapping).
  std::vector<ParamInfo> params_;                       ///< Parameters in vector order.
  std::vector<Slot> slots_;                             ///< Role of each parameter.
  std::array<std::vector<long long>, kNumDims> tiles_;  ///< Static tile list per Dim.
  std::array<int, kNumDims> tile_param_{};              ///< Parameter index per Dim (-1: none).
  int df_param_ = -1;     ///< Index of the dataflow parameter (-1: one dataflow).
  int order_param_ = -1;  ///< Index of the order parameter.
  int rows_param_ = -1;   ///< Index of pe_rows.
  int cols_param_ = -1;   ///< Index of pe_cols.
  int db_param_ = -1;     ///< Index of db_input (db_weight, db_accum follow).
};

}  // namespace mapwright::core
