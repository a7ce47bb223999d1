// The GAMMA encoding (the paper's setting): 17 parameters in ArchGym's genome order over the
// full ranges; its loop-order index is a bijection; every vector decodes to the mapping a
// restatement of the rules in this file gives (a spatial map wider than the array folded over
// it; num_pe changing nothing, as in ArchGym), or is invalid exactly when the rules say so;
// and every mapping the encoding can name (any dataflow, tiles, order, PE use and fold order,
// double buffering on) is named by some vector.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/mapspace/gamma_space.hpp"

#include "test_layers.hpp"

using namespace mapwright::core;
namespace test_layers = mapwright::test_layers;

namespace {

/// The encoding's rules restated: the (row, column) dims and the dataflow of a parallel pair
/// given as indices into K C X Y, or false.
bool reference_pair(int a, int b, Dataflow* df, Dim* row, Dim* col) {
  const Dim dims[] = {Dim::K, Dim::C, Dim::Q, Dim::P};
  std::set<Dim> s = {dims[a], dims[b]};
  if (s.size() != 2) return false;
  const bool k = s.count(Dim::K), c = s.count(Dim::C);
  const Dim pix = s.count(Dim::P) ? Dim::P : Dim::Q;
  if (k && c)
    *df = Dataflow::WS, *row = Dim::C, *col = Dim::K;
  else if (k && (s.count(Dim::P) || s.count(Dim::Q)))
    *df = Dataflow::OS, *row = pix, *col = Dim::K;
  else if (c && (s.count(Dim::P) || s.count(Dim::Q)))
    *df = Dataflow::IS, *row = Dim::C, *col = pix;
  else
    return false;
  return true;
}

/// Position of the six genome dims S R K C X Y in the vector, per level.
long long genome(const ParamVector& v, int first, Dim d) {
  const Dim order[] = {Dim::S, Dim::R, Dim::K, Dim::C, Dim::Q, Dim::P};
  return v[first + (std::find(std::begin(order), std::end(order), d) - std::begin(order))] + 1;
}

}  // namespace

TEST(GammaSpace, OrderIndexIsABijection) {
  std::set<std::array<Dim, 6>> seen;
  for (long long i = 0; i < 720; ++i) seen.insert(gamma_order_from_index(i));
  EXPECT_EQ(seen.size(), 720u);
  EXPECT_EQ(gamma_order_from_index(0), GammaSpace::kOrderDims);
}

TEST(GammaSpace, SeventeenParametersInGenomeOrder) {
  const Layer l = test_layers::conv(64, 32, 28, 3, 1, 1);
  const Arch a = load_arch("default");
  const GammaSpace space(l, a);
  ASSERT_EQ(space.params().size(), 17u);
  const char* names[] = {"seed_l2", "par_l2", "s_l2",   "r_l2",    "k_l2",  "c_l2",
                         "x_l2",    "y_l2",   "par_l1", "s_l1",    "r_l1",  "k_l1",
                         "c_l1",    "x_l1",   "y_l1",   "seed_l1", "num_pe"};
  const long long card[] = {720, 4, 3, 3, 64, 32, 28, 28, 4, 3, 3, 64, 32, 28, 28, 720, 256};
  double expect = 0;
  for (int i = 0; i < 17; ++i) {
    EXPECT_EQ(space.params()[i].name, names[i]) << i;
    EXPECT_EQ(space.params()[i].cardinality, card[i]) << names[i];
    expect += std::log10(static_cast<double>(card[i]));
  }
  EXPECT_NEAR(space.log10_size(), expect, 1e-9);
}

TEST(GammaSpace, DecodeFollowsTheRulesOnRandomVectors) {
  const Layer l = test_layers::conv(6, 5, 7, 3, 1, 1);
  const Arch a = test_layers::small(4, 3, 4096, 4096, 4096);
  const GammaSpace space(l, a);
  std::mt19937_64 rng(20261206);
  int valid = 0, per_kind[3] = {0, 0, 0};
  std::set<std::string> reasons;
  for (int it = 0; it < 40000; ++it) {
    ParamVector v;
    for (const auto& p : space.params())
      v.push_back(std::uniform_int_distribution<long long>(0, p.cardinality - 1)(rng));
    const GammaDecoded d = space.decode(v);
    Dataflow df{};
    Dim row{}, col{};
    bool ok = reference_pair(static_cast<int>(v[GammaSpace::kParL2]),
                             static_cast<int>(v[GammaSpace::kParL1]), &df, &row, &col);
    for (Dim dim : GammaSpace::kLevelDims)
      ok = ok && genome(v, GammaSpace::kL1First, dim) <= genome(v, GammaSpace::kL2First, dim);
    const long long pr = ok ? std::min<long long>(genome(v, GammaSpace::kL1First, row), a.rows) : 0;
    const long long pc = ok ? std::min<long long>(genome(v, GammaSpace::kL1First, col), a.cols) : 0;
    ASSERT_EQ(d.invalid.empty(), ok) << it << ": " << d.invalid;
    if (!ok) {
      reasons.insert(d.invalid.substr(0, 12));
      continue;
    }
    ++valid;
    ++per_kind[static_cast<int>(df)];
    const Mapping& m = d.mapping;
    EXPECT_EQ(m.dataflow, df);
    EXPECT_EQ(m.pe_rows, pr);
    EXPECT_EQ(m.pe_cols, pc);
    for (Dim dim : GammaSpace::kLevelDims)
      EXPECT_EQ(m.tile_of(dim), genome(v, GammaSpace::kL2First, dim));
    EXPECT_EQ(m.tile_of(Dim::N), 1);
    EXPECT_EQ(m.tile_of(Dim::G), 1);
    EXPECT_EQ(m.order[0], Dim::N);
    const auto outer = gamma_order_from_index(v[GammaSpace::kSeedL2]);
    EXPECT_TRUE(std::equal(outer.begin(), outer.end(), m.order.begin() + 1));
    const auto inner = gamma_order_from_index(v[GammaSpace::kSeedL1]);
    const bool rows_first =
        std::find(inner.begin(), inner.end(), row) < std::find(inner.begin(), inner.end(), col);
    EXPECT_EQ(m.fold_order, rows_first ? FoldOrder::RowsOuter : FoldOrder::ColsOuter);
    EXPECT_TRUE(m.db_input && m.db_weight && m.db_accum);
    EXPECT_NO_THROW(check_mapping(m, l, a, "gamma"));
    ParamVector w = v;
    w[GammaSpace::kNumPe] =
        (v[GammaSpace::kNumPe] + 5) % space.params()[GammaSpace::kNumPe].cardinality;
    EXPECT_EQ(space.decode(w).mapping, m);
  }
  // Both outcomes and every dataflow occur, and the invalid vectors name several reasons.
  EXPECT_GT(valid, 100);
  EXPECT_LT(valid, 40000);
  for (int k = 0; k < 3; ++k) EXPECT_GT(per_kind[k], 10) << k;
  EXPECT_GE(reasons.size(), 3u);
}

TEST(GammaSpace, EveryNameableMappingIsNamed) {
  // A tiny layer: every (dataflow, tiles, PE use within the tiles and the array, fold order)
  // with the loop order fixed is reached by some vector; the count is the product rule's.
  const Layer l = test_layers::conv(2, 2, 2, 1, 1, 0);
  const Arch a = test_layers::small(2, 2, 4096, 4096, 4096);
  const GammaSpace space(l, a);
  std::set<std::string> named;
  ParamVector v(17, 0);
  const auto& p = space.params();
  for (long long pl2 = 0; pl2 < 4; ++pl2)
    for (long long pl1 = 0; pl1 < 4; ++pl1)
      for (long long k2 = 0; k2 < p[4].cardinality; ++k2)
        for (long long c2 = 0; c2 < p[5].cardinality; ++c2)
          for (long long x2 = 0; x2 < p[6].cardinality; ++x2)
            for (long long y2 = 0; y2 < p[7].cardinality; ++y2)
              for (long long k1 = 0; k1 <= k2; ++k1)
                for (long long c1 = 0; c1 <= c2; ++c1)
                  for (long long x1 = 0; x1 <= x2; ++x1)
                    for (long long y1 = 0; y1 <= y2; ++y1)
                      for (long long s1 : {0LL, 1LL}) {  // K before C / C before K, etc.
                        v = {0, pl2, 0,  0,  k2, c2, x2,           y2, pl1,
                             0, 0,   k1, c1, x1, y1, s1 ? 719 : 0, 3};
                        const GammaDecoded d = space.decode(v);
                        if (d.invalid.empty()) named.insert(mapping_to_yaml(d.mapping));
                      }
  // Expected: for each of the 2^4 tile choices of K C Q P (1 or 2), the PE uses each dataflow
  // allows within the tiles (OS's rows and IS's columns carry either pixel dim, so up to the
  // larger pixel tile), times 2 fold orders.
  long long expect = 0;
  for (int t = 0; t < 16; ++t) {
    const long long tk = 1 + (t & 1), tc = 1 + ((t >> 1) & 1), tq = 1 + ((t >> 2) & 1),
                    tp = 1 + ((t >> 3) & 1), pix = std::max(tp, tq);
    expect += 2 * (tc * tk + pix * tk + tc * pix);
  }
  EXPECT_EQ(static_cast<long long>(named.size()), expect);
}
