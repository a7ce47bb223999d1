#pragma once
/// \file axis_profile.hpp
/// What every closed form needs of one image axis of a tiling, computed once per thread and
/// axis: the input tiles of output rows P by tp and filter rows R by tr (also columns: Q by tq,
/// S by ts) fall into few classes by their extents, row step and blocks of rows held, and the
/// surrogate's input bytes, the bank terms, the burst beats and the burst-descriptor check all
/// sum over those classes instead of over the (output tile, filter tile) pairs.

#include <vector>

#include "mapwright/core/dram_layout.hpp"

namespace mapwright::core {

/// One class of an axis' (output tile, filter tile) pairs.
struct AxisTile {
  long long t = 0;      ///< Output rows of the tile.
  long long ft = 0;     ///< Filter rows of the tile.
  long long a = 1;      ///< Row step per output row (input_row_step).
  RowBlocks b;          ///< The blocks of input rows held (b.rows = input_extent).
  long long count = 0;  ///< Pairs in the class.
  long long p0 = 0;     ///< The first pair seen in the class: its first output row,
  long long r0 = 0;     ///< and its first filter row.
  bool same_class(const AxisTile& o) const {
    return t == o.t && ft == o.ft && a == o.a && b == o.b;
  }
};

/// The classes of one axis, and the input extent summed per (output tile is P's remainder,
/// filter tile is R's remainder) class, as model::ExtentClasses.
struct AxisProfile {
  std::vector<AxisTile> tiles;  ///< Distinct classes, in the order first seen.
  long long sum[2][2] = {};     ///< Sum of the extents per remainder class.
  long long count[2][2] = {};   ///< Pairs per remainder class.
};

/// The profile of output rows P by tp and filter rows R by tr (stride, pad, h: the layer's) from
/// the calling thread's cache. The reference stays valid until this thread's next eight calls
/// that miss a full cache (the cache keeps its first 8,192 axes and never moves them), so a
/// caller may hold a row and a column profile at once.
const AxisProfile& axis_profile(long long P, long long tp, long long R, long long tr,
                                long long stride, long long pad, long long h);

/// The same computed anew (no cache): the reference of the tests.
AxisProfile make_axis_profile(long long P, long long tp, long long R, long long tr,
                              long long stride, long long pad, long long h);

}  // namespace mapwright::core
