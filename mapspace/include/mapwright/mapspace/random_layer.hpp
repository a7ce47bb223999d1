#pragma once
/// \file random_layer.hpp
/// Random small layers for differential checks of one simulator against another (the RTL
/// tests against the C++ reference, `mapwright synth --gate-sim` the synthesized netlist
/// against the RTL): every layer kind, odd sizes, strides and padding, small enough that a
/// run takes thousands of cycles, not millions.

#include <random>

#include "mapwright/core/layer.hpp"

namespace mapwright::core {

/// A random layer of `kind` (0 conv, 1 depthwise, 2 grouped, 3 GEMM/FC, 4 1x1 conv; another
/// value is taken modulo 5) with input height and width up to `max_hw` (>= 3), batch 1..2,
/// kernels up to 3x3, stride 1..2; validated (core::make_layer) and named "random".
Layer random_layer(std::mt19937_64& rng, int kind, int max_hw);

}  // namespace mapwright::core
