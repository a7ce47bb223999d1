#pragma once
/// \file bounds.hpp
/// Admissible lower bounds on the surrogate's cycles and energy for a partially fixed
/// mapping (any subset of dataflow, PE use, tiles and loop order fixed), and the capacity
/// pre-check of a partial tiling. mapper/README.md names the closed-form terms each bound
/// rests on.

#include <array>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"

namespace mapwright::mapper {

/// A mapping some of whose fields are fixed; the others are free (their values are ignored).
struct Partial {
  core::Mapping m;                          ///< Values of the fixed fields.
  bool dataflow = false;                    ///< m.dataflow is fixed.
  bool pe = false;                          ///< m.pe_rows and m.pe_cols are fixed.
  std::array<bool, core::kNumDims> tile{};  ///< m.tile[d] is fixed.
  bool order = false;                       ///< m.order is fixed (used only when all tiles are).
};

/// Lower bounds over every completion of a partial mapping.
struct Bounds {
  double cycles = 0;  ///< Lower bound on the surrogate's cycles.
  double energy = 0;  ///< Lower bound on the surrogate's energy, pJ.
};

/// Precomputes per-layer tables once; then bounds() costs well under a microsecond.
class LowerBound {
 public:
  LowerBound(const core::Layer& layer, const core::Arch& arch);
  /// Bounds valid for every valid completion of `p` (capacity is not assumed).
  Bounds bounds(const Partial& p) const;
  /// False when the fixed tiles cannot fit the buffers even with every free tile at 1 and no
  /// double buffering (then no completion is valid).
  bool may_fit(const Partial& p) const;

 private:
  Bounds bounds_df(const Partial& p, core::Dataflow df) const;
  /// Halo sum of the input rows (or columns) for tile t of P (Q) and filter tile ft.
  long long halo(bool rows, long long t, long long ft) const;

  core::Layer layer_;          ///< The layer.
  core::Arch arch_;            ///< The architecture.
  std::vector<long long> hs_;  ///< Row halo sums, index (tp-1)*R + (tr-1).
  std::vector<long long> ws_;  ///< Column halo sums, index (tq-1)*S + (ts-1).
};

}  // namespace mapwright::mapper
