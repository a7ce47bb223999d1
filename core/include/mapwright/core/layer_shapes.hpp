#pragma once
/// \file layer_shapes.hpp
/// The raw fields of the two layer shapes that are built in code (the zoo, the ONNX importer,
/// tests): a square kernel on a square input, and a matrix product in layer.hpp's GEMM form.
/// Nothing is validated here: pass the result through make_layer.

#include <cstdint>
#include <string>
#include <utility>

#include "mapwright/core/layer.hpp"

namespace mapwright::core {

/// A `kind` layer named `name`: `g` groups of `c` input and `k` output channels each, a
/// `kernel` x `kernel` filter on an `hw` x `hw` input, batch `n`.
inline Layer square_layer(std::string name, LayerKind kind, int64_t g, int64_t c, int64_t k,
                          int64_t hw, int64_t kernel, int64_t stride, int64_t pad, int64_t n = 1) {
  Layer raw;
  raw.name = std::move(name);
  raw.kind = kind;
  raw.n = n;
  raw.g = g;
  raw.c = c;
  raw.k = k;
  raw.h = raw.w = hw;
  raw.r = raw.s = kernel;
  raw.stride = stride;
  raw.pad = pad;
  return raw;
}

/// The matrix product `m` x `kr` . `kr` x `nc` named `name` (P = H = m, Q = W = 1, C = kr,
/// K = nc), `groups` of them side by side with their own operands (LayerKind::Grouped when
/// more than one), batch `n`.
inline Layer gemm_layer(std::string name, int64_t m, int64_t kr, int64_t nc, int64_t groups = 1,
                        int64_t n = 1) {
  Layer raw;
  raw.name = std::move(name);
  raw.kind = groups > 1 ? LayerKind::Grouped : LayerKind::Gemm;
  raw.n = n;
  raw.g = groups;
  raw.h = m;
  raw.w = 1;
  raw.c = kr;
  raw.k = nc;
  return raw;
}

}  // namespace mapwright::core
