#pragma once
// Architectures and layers shared by the SystemC/RTL tests: the named configs of the source
// tree and convolutions built in code.
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"

namespace mapwright::systemc_test {

/// The named architecture configs/arch/<name>.yaml of the source tree.
inline core::Arch arch_named(const std::string& name) {
  return core::load_arch(std::string(MAPWRIGHT_SOURCE_DIR) + "/configs/arch/" + name + ".yaml");
}

/// A convolution of batch n and g groups (grouped when g > 1), validated by make_layer.
inline core::Layer conv(long long n, long long g, long long k, long long c, long long h,
                        long long w, long long r, long long s, long long stride, long long pad) {
  core::Layer l;
  l.n = n;
  l.g = g;
  l.k = k;
  l.c = c;
  l.h = h;
  l.w = w;
  l.r = r;
  l.s = s;
  l.stride = stride;
  l.pad = pad;
  if (g > 1) l.kind = core::LayerKind::Grouped;
  return core::make_layer(l, "test");
}

/// A single-image convolution with a square input (hw x hw) and a square filter (rs x rs).
inline core::Layer square_conv(long long g, long long k, long long c, long long hw, long long rs,
                               long long stride, long long pad) {
  return conv(1, g, k, c, hw, hw, rs, rs, stride, pad);
}

}  // namespace mapwright::systemc_test
