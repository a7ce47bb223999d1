#pragma once
/// \file loopnest.hpp
/// Facts of the level-2 loop nest that the tile program, the surrogate, the exact mapper's
/// bounds, the map spaces and the RTL driver all share (docs/timing.md): which loops each
/// tensor depends on, the trip count of every loop, and how often each tensor's tile is
/// reloaded under a loop order. The nest is G (outermost), then the mapping's order of
/// N K C P Q R S.

#include <array>

#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"

namespace mapwright::core {

/// Index of a dimension in per-Dim arrays (Mapping::tile, trip counts).
constexpr int I(Dim d) {
  return static_cast<int>(d);
}

/// ceil(a / b) for a >= 0, b >= 1. Operands that fit in 32 bits (every real layer) take a
/// 32-bit division, several times faster than a 64-bit one on x86-64.
inline long long cdiv(long long a, long long b) {
  if (((a | b) >> 32) == 0)
    return a == 0 ? 0
                  : static_cast<long long>(
                        (static_cast<unsigned>(a) - 1) / static_cast<unsigned>(b) + 1);
  return (a + b - 1) / b;
}

/// True when the input tensor's coordinates depend on loop `d` (every loop but K).
constexpr bool input_rel(Dim d) {
  return d != Dim::K;
}
/// True when the weight tensor's coordinates depend on loop `d` (G K C R S).
constexpr bool weight_rel(Dim d) {
  return d != Dim::N && d != Dim::P && d != Dim::Q;
}
/// True when the output tensor's coordinates depend on loop `d` (G N K P Q).
constexpr bool output_rel(Dim d) {
  return d != Dim::C && d != Dim::R && d != Dim::S;
}

/// Reload multiplier and change period of one tensor under a loop nest (docs/timing.md).
struct TensorReuse {
  long long mult = 1;    ///< Times each distinct tile is loaded.
  long long period = 1;  ///< Steps between changes of the tile.
  bool operator==(const TensorReuse& o) const { return mult == o.mult && period == o.period; }
};

/// Reuse of the three tensors: the only way the level-2 order enters counts and cycles.
struct OrderReuse {
  TensorReuse input;   ///< Input tensor (all loops but K relevant).
  TensorReuse weight;  ///< Weight tensor (G K C R S relevant).
  TensorReuse output;  ///< Output tensor (G N K P Q relevant).
  bool operator==(const OrderReuse& o) const {
    return input == o.input && weight == o.weight && output == o.output;
  }
};

/// The level-2 nest, outermost first: G, then `order`.
std::array<Dim, kNumDims> loop_nest(const std::array<Dim, kNumOrderedDims>& order);

/// Level-2 trip counts ceil(bound / tile) per Dim.
std::array<long long, kNumDims> trip_counts(const Layer& layer, const Mapping& m);

/// Reuse of every tensor for these trips and order (G outermost), as the surrogate computes it.
OrderReuse order_reuse(const std::array<long long, kNumDims>& trips,
                       const std::array<Dim, kNumOrderedDims>& order);

}  // namespace mapwright::core
