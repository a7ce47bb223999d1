#pragma once
// Small layers and architectures built in code, shared by the mapper and compact-space tests.
#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"

namespace mapwright::test_layers {

/// A square conv (depthwise when g > 1) of batch n, validated by make_layer.
inline core::Layer conv(long long k, long long c, long long h, long long r, long long stride,
                        long long pad, long long g = 1, long long n = 1) {
  core::Layer l;
  l.name = "t";
  l.kind = g > 1 ? core::LayerKind::Depthwise : core::LayerKind::Conv;
  l.n = n;
  l.g = g;
  l.k = k;
  l.c = c;
  l.h = l.w = h;
  l.r = l.s = r;
  l.stride = stride;
  l.pad = pad;
  return core::make_layer(l, "test");
}

/// An M x K by K x N matrix product.
inline core::Layer gemm(long long m, long long kr, long long nc) {
  core::Layer l;
  l.name = "gemm";
  l.kind = core::LayerKind::Gemm;
  l.h = m;
  l.w = 1;
  l.c = kr;
  l.k = nc;
  return core::make_layer(l, "test");
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

}  // namespace mapwright::test_layers
