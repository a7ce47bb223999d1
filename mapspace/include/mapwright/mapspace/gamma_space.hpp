#pragma once
/// \file gamma_space.hpp
/// The GAMMA / ArchGym mapping encoding (the paper's setting, docs/study.md "The paper's
/// setting"): 17 raw parameters per layer, in the order of ArchGym's GAMMA genome
///
///   seed_l2 par_l2 s_l2 r_l2 k_l2 c_l2 x_l2 y_l2 par_l1 s_l1 r_l1 k_l1 c_l1 x_l1 y_l1 seed_l1
///   num_pe
///
/// over the full ranges (tiles 1..bound, loop orders 0..719 of the six dims K C Y X R S,
/// parallel dims one of K C X Y, num_pe 1..rows*cols), with no repair: a vector that names no
/// mapping of the array is an invalid sample with its reason, as MAESTRO's failures are in
/// ArchGym. How a vector becomes a core::Mapping of this array:
/// - level 2 (DRAM <-> buffers): the l2 tiles are the buffer tiles of K C P(=Y) Q(=X) R S; the
///   batch and group tiles are 1; the loop order is N, then the permutation seed_l2.
/// - level 1 (the array): par_l2 and par_l1 are the two dims the array unrolls, one per axis.
///   The pair picks the dataflow: {C, K} weight-stationary (rows C, columns K), {X or Y, K}
///   output-stationary (rows the pixel dim, columns K), {C, X or Y} input-stationary (rows C,
///   columns the pixel dim); any other pair (a dim twice, X with Y) is invalid. The PEs a fold
///   uses along an axis are the l1 tile of its dim, at most the axis (a wider spatial map is
///   folded over the array, as MAESTRO folds one over its PEs); the fold order puts first the
///   axis whose dim comes first in the permutation seed_l1.
/// - every l1 tile must fit in its l2 tile (MAESTRO rejects an inner tile larger than the
///   outer); else the vector is invalid.
/// - double buffering is on for all three buffers (MAESTRO models double-buffered buffers).
/// Simplifications: the l1 tiles of the four dims the array does not unroll enter only the
/// validity (our PEs hold one operand per dim), as ArchGym's own decoder ignores four of them;
/// num_pe (1..rows x cols) changes nothing, as in ArchGym, whose decoder only draws an unused
/// random number from it (the hardware's PE count is the architecture's).

#include <array>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/mapspace/mapspace.hpp"

namespace mapwright::core {

/// A decoded GAMMA vector: a mapping, or why the vector names none.
struct GammaDecoded {
  Mapping mapping;      ///< The mapping (meaningful when `invalid` is empty).
  std::string invalid;  ///< Why the vector names no mapping of the array ("" = it does).
};

/// The GAMMA encoding of one layer on one architecture (see the file comment).
class GammaSpace {
 public:
  /// Vector positions (ArchGym's genome order).
  enum Index {
    kSeedL2 = 0,
    kParL2 = 1,
    kL2First = 2,  ///< s_l2 r_l2 k_l2 c_l2 x_l2 y_l2
    kParL1 = 8,
    kL1First = 9,  ///< s_l1 r_l1 k_l1 c_l1 x_l1 y_l1
    kSeedL1 = 15,
    kNumPe = 16,
    kNumParams = 17
  };
  /// The six dims of a level, in the genome's order (S R K C X Y as layer dims S R K C Q P).
  static const std::array<Dim, 6> kLevelDims;
  /// The loop-order dims of the permutations seed_l2 / seed_l1 (K C Y X R S).
  static const std::array<Dim, 6> kOrderDims;
  /// The parallel-dim values 0..3 (K C X Y).
  static const std::array<Dim, 4> kParDims;

  GammaSpace(Layer layer, Arch arch);

  const std::vector<ParamInfo>& params() const { return params_; }
  const Layer& layer() const { return layer_; }
  const Arch& arch() const { return arch_; }
  /// Vector -> mapping, or the reason it names none. Indices are clamped into their domains.
  GammaDecoded decode(const ParamVector& v) const;
  /// log10 of the number of points.
  double log10_size() const;

 private:
  Layer layer_;                    ///< The layer.
  Arch arch_;                      ///< The architecture.
  std::string shape_key_;          ///< layer_.shape_key().
  std::vector<ParamInfo> params_;  ///< The 17 parameters.
};

/// Permutation index 0..719 <-> order of the six dims of GammaSpace::kOrderDims (Lehmer code).
std::array<Dim, 6> gamma_order_from_index(long long index);

}  // namespace mapwright::core
