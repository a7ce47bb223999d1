#pragma once
// Small layers and architectures built in code, and random small layers, shared by the mapper
// and model tests.
#include <algorithm>
#include <random>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/layer_shapes.hpp"

namespace mapwright::test_layers {

/// A square conv (depthwise when g > 1) of batch n, validated by make_layer.
inline core::Layer conv(long long k, long long c, long long h, long long r, long long stride,
                        long long pad, long long g = 1, long long n = 1) {
  const core::LayerKind kind = g > 1 ? core::LayerKind::Depthwise : core::LayerKind::Conv;
  return core::make_layer(core::square_layer("t", kind, g, c, k, h, r, stride, pad, n), "test");
}

/// An M x K by K x N matrix product.
inline core::Layer gemm(long long m, long long kr, long long nc) {
  return core::make_layer(core::gemm_layer("gemm", m, kr, nc), "test");
}

/// A rows x cols array with the given buffer bytes (4 DRAM bytes per cycle, 20 cycles latency).
inline core::Arch small(int rows, int cols, long long in, long long wt, long long acc) {
  core::Arch a;
  a.name = "small";
  a.rows = rows;
  a.cols = cols;
  a.input_buf_bytes = in;
  a.weight_buf_bytes = wt;
  a.accum_buf_bytes = acc;
  a.dram_bytes_per_cycle = 4;
  a.dram_latency_cycles = 20;
  return a;
}

/// The draws every random layer starts with, in this order: a kind index 0..3 (returned), the
/// batch (1..2), the kernel (1..3 each way), the stride (1..`stride_hi`), the padding (below
/// the smaller kernel side) and the input size (from max(kernel side, `hw_lo`) to `hw_hi`).
/// Sets the name "random"; the caller sets the kind and the channels.
inline int random_shape(std::mt19937_64& rng, core::Layer& l, int stride_hi, int hw_lo, int hw_hi) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  l.name = "random";
  const int kind = u(0, 3);
  l.n = u(1, 2);
  l.r = u(1, 3);
  l.s = u(1, 3);
  l.stride = u(1, stride_hi);
  l.pad = u(0, std::min(l.r, l.s) - 1);
  l.h = u(std::max<int>(l.r, hw_lo), hw_hi);
  l.w = u(std::max<int>(l.s, hw_lo), hw_hi);
  return kind;
}

/// Largest sizes of random_layer's layers.
struct RandomLimits {
  int hw;      ///< Input height and width.
  int conv_k;  ///< Output channels of a normal convolution.
  int conv_c;  ///< Input channels of a normal convolution.
  int group;   ///< Output and input channels per group of a grouped convolution.
  int gemm;    ///< Each of M, K and N of a matrix product.
};

/// A random conv, depthwise, grouped conv (2 or 3 groups) or GEMM (a quarter each) with
/// strides up to 3 and sizes up to `lim`, validated by make_layer.
inline core::Layer random_layer(std::mt19937_64& rng, const RandomLimits& lim) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  core::Layer l;
  const int kind = random_shape(rng, l, 3, 1, lim.hw);
  if (kind == 0) {
    l.k = u(1, lim.conv_k);
    l.c = u(1, lim.conv_c);
  } else if (kind == 1) {
    l.kind = core::LayerKind::Depthwise;
    l.g = u(1, 6);
  } else if (kind == 2) {
    l.kind = core::LayerKind::Grouped;
    l.g = u(2, 3);
    l.k = u(1, lim.group);
    l.c = u(1, lim.group);
  } else {
    l.kind = core::LayerKind::Gemm;
    l.r = l.s = 1;
    l.stride = 1;
    l.pad = 0;
    l.w = 1;
    l.h = u(1, lim.gemm);
    l.k = u(1, lim.gemm);
    l.c = u(1, lim.gemm);
  }
  return core::make_layer(l, "random");
}

}  // namespace mapwright::test_layers
