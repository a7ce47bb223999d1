// The level-2 loop nest: its order (G outermost), the trip count of every loop and each
// tensor's reuse under an order (the reload multiplier counts the irrelevant loops outside the
// innermost relevant one; the period is the product of the trips inside it).
#include "mapwright/core/loopnest.hpp"

namespace mapwright::core {

std::array<Dim, kNumDims> loop_nest(const std::array<Dim, kNumOrderedDims>& order) {
  std::array<Dim, kNumDims> nest;
  nest[0] = Dim::G;
  for (int i = 0; i < kNumOrderedDims; ++i) nest[i + 1] = order[i];
  return nest;
}

std::array<long long, kNumDims> trip_counts(const Layer& l, const Mapping& m) {
  std::array<long long, kNumDims> t{};
  for (int d = 0; d < kNumDims; ++d) t[d] = cdiv(l.dim(static_cast<Dim>(d)), m.tile[d]);
  return t;
}

OrderReuse order_reuse(const std::array<long long, kNumDims>& T,
                       const std::array<Dim, kNumOrderedDims>& order) {
  const std::array<Dim, kNumDims> nest = loop_nest(order);
  auto reuse = [&](bool (*rel)(Dim)) {
    int j = -1;
    for (int i = kNumDims - 1; i >= 0; --i)
      if (rel(nest[i]) && T[I(nest[i])] > 1) {
        j = i;
        break;
      }
    TensorReuse r;
    if (j < 0) {
      for (int i = 0; i < kNumDims; ++i) r.period *= T[I(nest[i])];
      return r;
    }
    for (int i = 0; i < j; ++i)
      if (!rel(nest[i])) r.mult *= T[I(nest[i])];
    for (int i = j + 1; i < kNumDims; ++i) r.period *= T[I(nest[i])];
    return r;
  };
  return OrderReuse{reuse(input_rel), reuse(weight_rel), reuse(output_rel)};
}

}  // namespace mapwright::core
