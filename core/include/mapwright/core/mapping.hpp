#pragma once
/// \file mapping.hpp
/// A mapping of one layer onto the array (docs/timing.md, section 1):
/// - level 2 (DRAM <-> buffers): a tile size for each of the 8 loops and an order of the 7
///   loops N K C P Q R S (G is always outermost);
/// - level 1 (buffers -> array): the dataflow, the fold order, and how many PE rows and
///   columns a fold uses (the paper's "parallel dimension and PE count");
/// - double buffering per buffer.
/// YAML round-trips exactly.

#include <array>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"

namespace mapwright::core {

/// Order of the two level-1 fold loops. Array rows carry the reduction (WS) or the output
/// pixels (OS); array columns carry output channels K in both dataflows.
enum class FoldOrder { RowsOuter, ColsOuter };
const char* fold_order_name(FoldOrder f);

struct Mapping {
  Dataflow dataflow = Dataflow::WS;  ///< Level-1 dataflow.
  /// Level-2 tile size per Dim (index = static_cast<int>(Dim)); 1..bound, remainders allowed.
  std::array<long long, kNumDims> tile{1, 1, 1, 1, 1, 1, 1, 1};
  /// Level-2 loop order over N K C P Q R S, outermost first.
  std::array<Dim, kNumOrderedDims> order{Dim::N, Dim::K, Dim::C, Dim::P, Dim::Q, Dim::R, Dim::S};
  FoldOrder fold_order = FoldOrder::RowsOuter;  ///< Level-1 fold order.
  int pe_rows = 1;                              ///< PE rows a fold may use (1..arch rows).
  int pe_cols = 1;                              ///< PE columns a fold may use (1..arch cols).
  bool db_input = false;                        ///< Double-buffer the input buffer.
  bool db_weight = false;                       ///< Double-buffer the weight buffer.
  bool db_accum = false;                        ///< Double-buffer the accumulator.
  std::string layer_shape;  ///< Shape key of the layer it was made for ("" = unchecked).

  long long tile_of(Dim d) const { return tile[static_cast<int>(d)]; }
  bool operator==(const Mapping& o) const;
  bool operator!=(const Mapping& o) const { return !(*this == o); }
};

/// Emits the mapping as YAML (deterministic key order).
std::string mapping_to_yaml(const Mapping& m);
/// Parses a mapping; structural errors (unknown key, wrong type, bad order) throw SpecError
/// naming `where`. Checks against the layer/arch are `check_mapping`'s job.
Mapping mapping_from_yaml(const std::string& text, const std::string& where);
Mapping load_mapping_file(const std::string& path);
/// Refuses a mapping that does not belong to this layer/arch (tile larger than its loop,
/// zero or negative sizes, PE use beyond the array, unsupported dataflow, a mapping made for
/// another layer) with a SpecError naming `where`. Capacity is *not* an error: it is a typed
/// invalid result (see MapSpace::check).
void check_mapping(const Mapping& m, const Layer& layer, const Arch& arch,
                   const std::string& where);

}  // namespace mapwright::core
