#pragma once
/// \file mapspace.hpp
/// The mapping space of one layer on one architecture: named parameters with finite domains,
/// encode/decode between parameter vectors and mappings, validity with typed reasons, the
/// space size, uniform sampling of valid mappings and the invalid rate of naive sampling.
///
/// Parameters (16, the paper's classes: tiling per loop, loop order, parallel dims / PE use):
///   dataflow; tile_G tile_N tile_K tile_C tile_P tile_Q tile_R tile_S (value = index + 1,
///   any size up to the bound, remainders allowed); order (one of 7! permutations, Lehmer
///   code); fold_order; pe_rows; pe_cols (value = index + 1); db_input; db_weight; db_accum.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/tile_program.hpp"

namespace mapwright::core {

/// One parameter of the space.
struct ParamInfo {
  std::string name;           ///< e.g. "tile_K".
  long long cardinality = 1;  ///< Domain size; values are indices 0..cardinality-1.
  bool ordinal = false;       ///< Neighbouring indices are similar (tile sizes, PE counts).
};

/// A point of the space: one index per parameter.
using ParamVector = std::vector<long long>;

class MapSpace {
 public:
  MapSpace(Layer layer, Arch arch);

  const std::vector<ParamInfo>& params() const { return params_; }
  const Layer& layer() const { return layer_; }
  const Arch& arch() const { return arch_; }

  /// Vector -> mapping. Indices are clamped into their domains.
  Mapping decode(const ParamVector& v) const;
  /// Mapping -> vector (the mapping must fit the layer/arch; see check_mapping).
  ParamVector encode(const Mapping& m) const;
  /// Validity with typed reasons: capacity, and a burst descriptor for every transfer under
  /// the bursts DRAM port (core::check_valid), so sample_valid draws mappings the RTL can run.
  Validity check(const Mapping& m) const { return check_valid(layer_, arch_, m); }
  /// log10 of the number of points.
  double log10_size() const;
  /// A uniformly random point (valid or not).
  ParamVector sample_naive(std::mt19937_64& rng) const;
  /// A uniformly random *valid* point by rejection sampling (exactly uniform over the valid
  /// set). Returns false after `max_tries` without success. `tries` gets the attempts used.
  bool sample_valid(std::mt19937_64& rng, ParamVector& out, long long max_tries = 2000000,
                    long long* tries = nullptr) const;
  /// Fraction of `n` naive samples that are invalid.
  double naive_invalid_rate(std::mt19937_64& rng, long long n) const;

 private:
  Layer layer_;            ///< The layer.
  Arch arch_;              ///< The architecture.
  std::string shape_key_;  ///< layer_.shape_key(), formatted once (decode stamps each mapping).
  std::vector<ParamInfo> params_;  ///< Parameters in vector order.
};

/// The permutation of `pool` whose Lehmer code is `index` (taken modulo pool.size()!; index 0 is
/// `pool` itself).
std::vector<Dim> permutation_from_index(long long index, std::vector<Dim> pool);
/// Permutation of the 7 ordered loops <-> index in 0..5039 (Lehmer code, N K C P Q R S = 0).
std::array<Dim, kNumOrderedDims> order_from_index(long long index);
long long order_to_index(const std::array<Dim, kNumOrderedDims>& order);

/// A simple always-valid-shaped mapping: full PE use, every tile 1 except K/C/P/Q as large as
/// fits the buffers greedily. Used as a starting point and in examples.
Mapping default_mapping(const Layer& layer, const Arch& arch);

}  // namespace mapwright::core
