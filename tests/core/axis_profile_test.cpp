// The axis profile (core/axis_profile.hpp) against the (output tile, filter tile) pairs it
// classifies: every pair falls in exactly one class whose extents, row step and row blocks are
// the pair's own, the extent sums per remainder class add up, and the thread's cache answers
// what a fresh profile does, also once the cache is full (its scratch ring).
#include "mapwright/core/axis_profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "mapwright/core/tile_program.hpp"

using namespace mapwright::core;

namespace {

/// Checks `p` against a walk over the pairs of output rows P by tp and filter rows R by tr.
void expect_profile_of(const AxisProfile& p, long long P, long long tp, long long R, long long tr,
                       long long stride, long long pad, long long h) {
  std::vector<long long> seen(p.tiles.size(), 0);
  long long sum[2][2] = {}, count[2][2] = {};
  const long long tpp = std::min(tp, P), trr = std::min(tr, R);
  for (long long p0 = 0; p0 < P; p0 += tpp)
    for (long long r0 = 0; r0 < R; r0 += trr) {
      const long long pt = std::min(tpp, P - p0), rt = std::min(trr, R - r0);
      const RowBlocks b = row_blocks(p0, pt, r0, rt, stride, pad, h);
      ASSERT_EQ(b.rows, input_extent(p0, pt, r0, rt, stride, pad, h));
      const long long a = input_row_step(pt, rt, stride);
      int found = -1;
      for (size_t i = 0; i < p.tiles.size(); ++i) {
        const AxisTile& x = p.tiles[i];
        if (x.t == pt && x.ft == rt && x.a == a && x.b == b) {
          ASSERT_EQ(found, -1) << "two classes for one pair";
          found = static_cast<int>(i);
        }
      }
      ASSERT_GE(found, 0) << "pair " << p0 << "," << r0 << " in no class";
      ++seen[static_cast<size_t>(found)];
      const int cp = P % tpp != 0 && p0 + tpp >= P, cr = R % trr != 0 && r0 + trr >= R;
      sum[cp][cr] += b.rows;
      ++count[cp][cr];
    }
  for (size_t i = 0; i < p.tiles.size(); ++i) {
    EXPECT_EQ(seen[i], p.tiles[i].count);
    const AxisTile& x = p.tiles[i];  // its first pair has its blocks
    EXPECT_TRUE(row_blocks(x.p0, x.t, x.r0, x.ft, stride, pad, h) == x.b);
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      EXPECT_EQ(p.sum[i][j], sum[i][j]);
      EXPECT_EQ(p.count[i][j], count[i][j]);
    }
}

bool same(const AxisProfile& a, const AxisProfile& b) {
  if (a.tiles.size() != b.tiles.size()) return false;
  for (size_t i = 0; i < a.tiles.size(); ++i) {
    const AxisTile &x = a.tiles[i], &y = b.tiles[i];
    if (!x.same_class(y) || x.count != y.count || x.p0 != y.p0 || x.r0 != y.r0) return false;
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      if (a.sum[i][j] != b.sum[i][j] || a.count[i][j] != b.count[i][j]) return false;
  return true;
}

}  // namespace

TEST(AxisProfile, ClassifiesEveryPairOfRandomAxes) {
  std::mt19937_64 rng(606);
  auto u = [&](long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(rng);
  };
  for (int i = 0; i < 2000; ++i) {
    const long long R = u(1, 7), stride = u(1, 3), pad = u(0, R - 1);
    const long long h = u(R, 40);
    const long long P = (h + 2 * pad - R) / stride + 1;
    if (P < 1) continue;
    const long long tp = u(1, P + 2), tr = u(1, R + 1);
    const AxisProfile& p = axis_profile(P, tp, R, tr, stride, pad, h);
    expect_profile_of(p, P, tp, R, tr, stride, pad, h);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// 10,000 distinct axes, more than the cache keeps (8,192): past that, answers come from the
// scratch ring, and every answer, the first and the ones after, equals a fresh profile; two
// answers held at once stay valid.
TEST(AxisProfile, CachedAnswersEqualFreshOnesAlsoPastTheCache) {
  int asked = 0;
  for (long long h = 1; h <= 100 && asked < 10000; ++h)
    for (long long tp = 1; tp <= h && asked < 10000; ++tp)
      for (long long tr = 1; tr <= 2; ++tr, ++asked) {
        const AxisProfile& rows = axis_profile(h, tp, 2, tr, 1, 0, h + 1);
        const AxisProfile& cols = axis_profile(h, (tp % h) + 1, 2, tr, 1, 0, h + 1);
        ASSERT_TRUE(same(rows, make_axis_profile(h, tp, 2, tr, 1, 0, h + 1))) << h << " " << tp;
        ASSERT_TRUE(same(cols, make_axis_profile(h, (tp % h) + 1, 2, tr, 1, 0, h + 1)));
      }
  EXPECT_GE(asked, 9000);
}
