#pragma once
/// \file tile_classes.hpp
/// The per-loop sums the surrogate's closed form is made of, and the compute side's buffer
/// accesses built from them, shared with the exact mapper's lower bounds (mapper/src/bounds.cpp),
/// which evaluate the same terms on relaxed tilings.
/// Tiling a loop of `bound` iterations by `t` gives at most two tile sizes (full tiles and one
/// remainder), so a sum over tiles is a sum over at most two size classes per loop.

#include <algorithm>

#include "mapwright/core/axis_profile.hpp"
#include "mapwright/core/loopnest.hpp"
#include "mapwright/core/tile_program.hpp"

namespace mapwright::model {

/// Tile-size classes of one loop: `count[i]` tiles of size `size[i]`.
struct TileClasses {
  long long size[2];   ///< Tile sizes.
  long long count[2];  ///< How many tiles of each size.
  int n;               ///< 1 or 2.
  long long trips;     ///< Number of tiles.
};

/// The classes of a loop of `bound` iterations tiled by `t` (t >= 1; t >= bound is one tile).
inline TileClasses tile_classes(long long bound, long long t) {
  TileClasses c;
  if (t >= bound) {
    c.size[0] = bound;
    c.count[0] = 1;
    c.n = 1;
    c.trips = 1;
    return c;
  }
  c.size[0] = t;
  c.count[0] = bound / t;
  c.n = 1;
  if (bound % t) {
    c.size[1] = bound % t;
    c.count[1] = 1;
    c.n = 2;
  }
  c.trips = core::cdiv(bound, t);
  return c;
}

/// Sum over the tiles of three loops of ceil(a*b*c / p).
inline long long sum_ceil3(const TileClasses& a, const TileClasses& b, const TileClasses& c,
                           long long p) {
  long long s = 0;
  for (int i = 0; i < a.n; ++i)
    for (int j = 0; j < b.n; ++j)
      for (int k = 0; k < c.n; ++k)
        s +=
            a.count[i] * b.count[j] * c.count[k] * core::cdiv(a.size[i] * b.size[j] * c.size[k], p);
  return s;
}

/// Sum over the tiles of one loop of ceil(size / p).
inline long long sum_ceil1(const TileClasses& a, long long p) {
  long long s = 0;
  for (int i = 0; i < a.n; ++i) s += a.count[i] * core::cdiv(a.size[i], p);
  return s;
}

/// The input and weight buffer reads and the accumulator writes of the compute side of one layer
/// (the fold engine's, docs/timing.md).
template <class Num>
struct ComputeAccesses {
  Num input_reads;   ///< Input buffer reads.
  Num weight_reads;  ///< Weight buffer reads.
  Num accum_writes;  ///< Accumulator writes by the fold engine.
};

/// ComputeAccesses of dataflow `df` in closed form, for `groups` groups of a K x CRS by CRS x NPQ
/// product over tnpq x tcrs x tk level-2 trips (of N P Q, of C R S, of K), given the fold sums
/// `sum_k` (K over the array's columns), `sum_red` (C R S over its rows: WS and IS) and `sum_m`
/// (N P Q: over its rows in OS, over its columns in IS; the other dataflow's sum is not read).
/// Num is long long for the surrogate's exact counts and double for the exact mapper's bounds
/// (`groups` is converted first, so every product is formed in Num, left to right).
template <class Num>
ComputeAccesses<Num> compute_accesses(core::Dataflow df, Num groups, long long K, long long NPQ,
                                      long long CRS, long long tnpq, long long tcrs, long long tk,
                                      long long sum_k, long long sum_red, long long sum_m) {
  const Num G = groups;
  switch (df) {
    case core::Dataflow::WS:  // rows: the reduction; columns: K; the pixels stream
      return {G * NPQ * CRS * sum_k, G * CRS * K * tnpq, G * NPQ * K * sum_red};
    case core::Dataflow::OS:  // rows: the pixels; columns: K; the reduction streams
      return {G * NPQ * CRS * sum_k, G * sum_m * CRS * K, G * NPQ * K * tcrs};
    default:  // IS: rows: the reduction; columns: the pixels; K streams
      return {G * NPQ * CRS * tk, G * K * CRS * sum_m, G * NPQ * K * sum_red};
  }
}

/// The distinct in-bounds input extent (core::input_extent) over output tiles (rows: P by tp)
/// and filter tiles (R by tr), summed per class: [output tile is P's remainder][filter tile is
/// R's remainder] (a loop without a remainder has only class 0).
struct ExtentClasses {
  long long sum[2][2] = {};    ///< Sum of the extents.
  long long count[2][2] = {};  ///< Number of (output tile, filter tile) pairs.
  long long total() const { return sum[0][0] + sum[0][1] + sum[1][0] + sum[1][1]; }
  double average(int p_rem, int r_rem) const {
    const long long n = count[p_rem][r_rem];
    return n ? static_cast<double>(sum[p_rem][r_rem]) / static_cast<double>(n) : 0.0;
  }
};

/// The extent classes of a profiled axis (core::axis_profile).
inline ExtentClasses extent_classes(const core::AxisProfile& p) {
  ExtentClasses e;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      e.sum[i][j] = p.sum[i][j];
      e.count[i][j] = p.count[i][j];
    }
  return e;
}

/// The extent classes of output rows P by tp and filter rows R by tr, from the calling thread's
/// axis profiles.
inline ExtentClasses extent_classes(long long P, long long tp, long long R, long long tr,
                                    long long stride, long long pad, long long H) {
  return extent_classes(core::axis_profile(P, tp, R, tr, stride, pad, H));
}

/// Sum over output tiles (rows: P by tp) and filter tiles (R by tr) of the distinct in-bounds
/// input extent (core::input_extent).
inline long long extent_sum(long long P, long long tp, long long R, long long tr, long long stride,
                            long long pad, long long H) {
  return extent_classes(P, tp, R, tr, stride, pad, H).total();
}

}  // namespace mapwright::model
