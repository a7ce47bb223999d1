// Random small layers (random_layer.hpp).
#include "mapwright/mapspace/random_layer.hpp"

#include <algorithm>

namespace mapwright::core {

Layer random_layer(std::mt19937_64& rng, int kind, int max_hw) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  kind = ((kind % 5) + 5) % 5;
  Layer l;
  l.n = u(1, 2);
  l.r = u(1, 3);
  l.s = u(1, 3);
  l.stride = u(1, 2);
  l.pad = u(0, std::min(l.r, l.s) - 1);
  l.h = u(l.r, std::max(3, max_hw));
  l.w = u(l.s, std::max(3, max_hw));
  if (kind == 0) {  // conv
    l.k = u(1, 9);
    l.c = u(1, 7);
  } else if (kind == 1) {  // depthwise
    l.kind = LayerKind::Depthwise;
    l.g = u(2, 6);
  } else if (kind == 2) {  // grouped
    l.kind = LayerKind::Grouped;
    l.g = u(2, 3);
    l.k = u(1, 5);
    l.c = u(1, 4);
  } else if (kind == 3) {  // GEMM / FC
    l.kind = LayerKind::Gemm;
    l.r = l.s = 1;
    l.stride = 1;
    l.pad = 0;
    l.h = u(1, 12);
    l.w = 1;
    l.k = u(1, 12);
    l.c = u(1, 12);
  } else {  // 1x1 conv
    l.r = l.s = 1;
    l.pad = 0;
    l.k = u(1, 9);
    l.c = u(1, 9);
  }
  return make_layer(l, "random");
}

}  // namespace mapwright::core
