// Proofs of the compact map space (mapspace/compact_space.hpp): the loop order enters the
// surrogate only through the tensors' reuse, every one of the 5040 orders falls in one of the
// representative classes, and on small layers (conv with padding, stride and remainders,
// depthwise, GEMM, batched 1x1) and small arrays the best latency, energy and EDP over the
// compact space equal the best over the raw space exactly (brute force over every tile size,
// every PE use, every double-buffer choice and every distinct order). On banked buffers the
// compact space alone is not enough, and the exact mapper's raw pass makes up for it.
#include "mapwright/mapspace/compact_space.hpp"

#include <gtest/gtest.h>

#include "exact_solve.hpp"
#include "sanitized.hpp"
#include "test_layers.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <random>

#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/mapper/mapper.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright;
using namespace mapwright::core;

namespace {

/// conv with the batch first (the proof cases vary it).
Layer conv(long long n, long long k, long long c, long long h, long long r, long long stride,
           long long pad, long long g = 1) {
  return test_layers::conv(k, c, h, r, stride, pad, g, n);
}
using test_layers::gemm;
/// The proof architectures.
Arch arch(int rows, int cols, long long in, long long wt, long long acc) {
  return test_layers::small(rows, cols, in, wt, acc);
}

/// Best cycles, energy and EDP (each on its own).
struct Best {
  double cycles = std::numeric_limits<double>::infinity();    ///< Best latency.
  double energy = std::numeric_limits<double>::infinity();    ///< Best energy.
  double edp = std::numeric_limits<double>::infinity();       ///< Best EDP.
  double edp_cost = std::numeric_limits<double>::infinity();  ///< Best mapper EDP objective.
  long long count = 0;                                        ///< Valid mappings scored.
  long long unservable = 0;  ///< Mappings without a burst descriptor (InvalidKind::Descriptor).
  void see(const Metrics& m) {
    unservable += m.invalid == InvalidKind::Descriptor;
    if (!m.valid) return;
    ++count;
    cycles = std::min(cycles, static_cast<double>(m.cycles));
    energy = std::min(energy, m.energy_pj);
    edp = std::min(edp, m.edp);
    edp_cost = std::min(edp_cost, core::Objective{}.cost(m));
  }
};

/// Every permutation of the 7 ordered loops.
const std::vector<std::array<Dim, kNumOrderedDims>>& all_orders() {
  static const auto v = [] {
    std::vector<std::array<Dim, kNumOrderedDims>> o;
    for (long long i = 0; i < 5040; ++i) o.push_back(order_from_index(i));
    return o;
  }();
  return v;
}

/// One order per distinct reuse among all 5040 (the raw orders, deduplicated by the only
/// quantity through which the surrogate sees them; OrderOnlyMattersThroughReuse checks that).
std::vector<std::array<Dim, kNumOrderedDims>> distinct_raw_orders(
    const std::array<long long, kNumDims>& T) {
  std::vector<std::array<Dim, kNumOrderedDims>> out;
  std::vector<OrderReuse> seen;
  for (const auto& o : all_orders()) {
    const OrderReuse r = order_reuse(T, o);
    if (std::find(seen.begin(), seen.end(), r) == seen.end()) {
      seen.push_back(r);
      out.push_back(o);
    }
  }
  return out;
}

Best brute_force_raw(const Layer& l, const Arch& a) {
  model::Surrogate sur;
  Best b;
  std::map<std::array<long long, kNumDims>, std::vector<std::array<Dim, kNumOrderedDims>>> orders;
  Mapping m;
  std::array<long long, kNumDims> bound{};
  for (int d = 0; d < kNumDims; ++d) bound[d] = l.dim(static_cast<Dim>(d));
  for (Dataflow df : a.dataflows)
    for (int pr = 1; pr <= a.rows; ++pr)
      for (int pc = 1; pc <= a.cols; ++pc) {
        m.dataflow = df;
        m.pe_rows = pr;
        m.pe_cols = pc;
        m.tile.fill(1);
        while (true) {
          const auto T = trip_counts(l, m);
          auto it = orders.find(T);
          if (it == orders.end()) it = orders.emplace(T, distinct_raw_orders(T)).first;
          for (const auto& o : it->second) {
            m.order = o;
            for (int db = 0; db < 8; ++db) {
              m.db_input = db & 1;
              m.db_weight = db & 2;
              m.db_accum = db & 4;
              b.see(sur.evaluate(l, a, m));
            }
          }
          int d = 0;
          while (d < kNumDims && m.tile[d] == bound[d]) m.tile[d++] = 1;
          if (d == kNumDims) break;
          ++m.tile[d];
        }
      }
  return b;
}

Best brute_force_compact(const Layer& l, const Arch& a) {
  model::Surrogate sur;
  Best b;
  CompactSpace(l, a).for_each([&](const Mapping& m) { b.see(sur.evaluate(l, a, m)); });
  return b;
}

void expect_same_optimum(const Layer& l, const Arch& a, const Best& raw) {
  const Best compact = brute_force_compact(l, a);
  ASSERT_GT(raw.count, 0) << l.describe();
  EXPECT_EQ(raw.cycles, compact.cycles) << l.describe();
  EXPECT_EQ(raw.energy, compact.energy) << l.describe();
  EXPECT_EQ(raw.edp, compact.edp) << l.describe();
  EXPECT_LT(compact.count, raw.count);
  std::printf("  %s: raw %lld valid mappings, compact %lld\n", l.describe().c_str(), raw.count,
              compact.count);
}

void expect_same_optimum(const Layer& l, const Arch& a) {
  expect_same_optimum(l, a, brute_force_raw(l, a));
}

}  // namespace

TEST(CompactSpace, OrderOnlyMattersThroughReuse) {
  std::mt19937_64 rng(7);
  const Layer l = conv(2, 5, 4, 7, 3, 1, 1);
  Arch a = arch(4, 4, 1 << 20, 1 << 20, 1 << 20);
  model::Surrogate sur;
  const MapSpace space(l, a);
  int compared = 0;
  for (int it = 0; it < 300; ++it) {
    Mapping m = space.decode(space.sample_naive(rng));
    const auto T = trip_counts(l, m);
    const auto reps = order_classes(T);
    std::vector<Metrics> rep_metrics;
    for (const auto& o : reps) {
      m.order = o;
      rep_metrics.push_back(sur.evaluate(l, a, m));
    }
    for (int j = 0; j < 20; ++j) {
      const auto& o = all_orders()[std::uniform_int_distribution<int>(0, 5039)(rng)];
      m.order = o;
      const Metrics x = sur.evaluate(l, a, m);
      const OrderReuse r = order_reuse(T, o);
      size_t k = 0;
      while (k < reps.size() && !(order_reuse(T, reps[k]) == r)) ++k;
      ASSERT_LT(k, reps.size()) << "order not covered by a class";
      EXPECT_EQ(x.cycles, rep_metrics[k].cycles);
      EXPECT_EQ(x.energy_pj, rep_metrics[k].energy_pj);
      EXPECT_TRUE(x.counts == rep_metrics[k].counts);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 6000);
}

TEST(CompactSpace, EveryOrderFallsInAClass) {
  std::mt19937_64 rng(11);
  for (int it = 0; it < 200; ++it) {
    std::array<long long, kNumDims> T{};
    for (auto& t : T) t = std::uniform_int_distribution<int>(0, 2)(rng) ? 1 + rng() % 4 : 1;
    const auto reps = order_classes(T);
    ASSERT_LE(reps.size(), 15u);
    std::vector<OrderReuse> rr;
    for (const auto& o : reps) rr.push_back(order_reuse(T, o));
    for (size_t i = 0; i < rr.size(); ++i)
      for (size_t j = i + 1; j < rr.size(); ++j) EXPECT_FALSE(rr[i] == rr[j]);
    for (const auto& o : all_orders())
      ASSERT_NE(std::find(rr.begin(), rr.end(), order_reuse(T, o)), rr.end());
  }
}

TEST(CompactSpace, SmallestTilePerTripCountIsAlwaysKept) {
  const Layer l = conv(1, 37, 23, 9, 3, 1, 1);
  Mapping m;
  m.pe_rows = 5;
  m.pe_cols = 3;
  for (Dim d : {Dim::K, Dim::C, Dim::P}) {
    const auto c = compact_tile_sizes(l, m, d);
    const long long n = l.dim(d);
    for (long long T = 1; T <= n; ++T) {
      const long long t = (n + T - 1) / T;
      if ((n + t - 1) / t != T) continue;
      EXPECT_NE(std::find(c.begin(), c.end(), t), c.end()) << dim_name(d) << " T=" << T;
    }
    EXPECT_TRUE(std::is_sorted(c.begin(), c.end()));
  }
}

TEST(CompactSpace, SameOptimumAsRawSpaceConvPadRemainders) {
  expect_same_optimum(conv(1, 5, 3, 5, 3, 1, 1), arch(4, 3, 48, 40, 160));
}

TEST(CompactSpace, SameOptimumAsRawSpaceConvStride2) {
  expect_same_optimum(conv(1, 3, 2, 7, 3, 2, 1), arch(3, 4, 40, 24, 64));
}

TEST(CompactSpace, SameOptimumAsRawSpaceDepthwise) {
  expect_same_optimum(conv(1, 1, 1, 6, 3, 1, 1, 6), arch(4, 4, 60, 30, 100));
}

TEST(CompactSpace, SameOptimumAsRawSpaceGemm) {
  expect_same_optimum(gemm(7, 10, 9), arch(4, 4, 48, 48, 144));
}

TEST(CompactSpace, SameOptimumAsRawSpaceBatched1x1) {
  expect_same_optimum(conv(2, 5, 4, 3, 1, 1, 0), arch(3, 3, 40, 16, 96));
}

TEST(CompactSpace, SameOptimumAsRawSpaceRoomyBuffers) {
  expect_same_optimum(gemm(6, 9, 7), arch(4, 4, 1 << 20, 1 << 20, 1 << 20));
}

namespace {

/// Random small layers (conv, depthwise, GEMM) with few enough raw tilings to brute-force,
/// each with a random small architecture, `n` of them; `port` and bytes per beat (0: the
/// architecture's) set on each architecture.
/// A random small layer (conv, depthwise or GEMM) of 20 to 800 raw tilings, convolutions with
/// strides 1 to `stride_hi`.
Layer random_small_layer(std::mt19937_64& rng, int stride_hi = 2) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  while (true) {
    Layer l;
    const int kind = test_layers::random_shape(rng, l, stride_hi, 2, 7);
    l.k = u(1, 7);
    l.c = u(1, 5);
    if (kind == 1) {
      l.kind = LayerKind::Depthwise;
      l.k = l.c = 1;
      l.g = u(2, 5);
    } else if (kind == 2) {
      l.kind = LayerKind::Gemm;
      l.r = l.s = l.stride = 1;
      l.pad = 0;
      l.w = 1;
      l.h = u(2, 12);
      l.k = u(2, 12);
      l.c = u(2, 12);
    }
    l = make_layer(l, "random");
    long long raw_tiles = 1;
    for (int d = 0; d < kNumDims; ++d) raw_tiles *= l.dim(static_cast<Dim>(d));
    if (raw_tiles <= 800 && raw_tiles >= 20) return l;
  }
}

/// Where no mapping lacks a burst descriptor, the compact space holds the raw optimum
/// (expect_same_optimum). Where some do (bursts port, strides above a filter tile), the compact
/// space's dominance argument does not see the constraint, and the exact mapper follows it with
/// the raw space: its proved EDP optimum equals brute force over the raw space. Returns the
/// number of such layers.
int same_optimum_on_random_small_layers(uint64_t seed, int n, DramPort port, int beat_hi,
                                        int stride_hi = 2) {
  std::mt19937_64 rng(seed);
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int proved = 0, constrained = 0;
  while (proved < n) {
    const Layer l = random_small_layer(rng, stride_hi);
    Arch a = arch(u(2, 3), u(2, 3), u(8, 120), u(4, 80), u(16, 300));
    a.dram_port = port;
    if (beat_hi > 0) a.dram_bytes_per_cycle = u(2, beat_hi);
    const Best raw = brute_force_raw(l, a);
    if (raw.unservable == 0) {
      expect_same_optimum(l, a, raw);
    } else {
      ++constrained;
      const mapper::Result r = mapper_test::solve_exact(l, a);
      EXPECT_GT(raw.count, 0) << l.describe();
      EXPECT_TRUE(r.found) << l.describe();
      EXPECT_EQ(r.best_cost, raw.edp_cost) << l.describe();
      EXPECT_TRUE(r.optimal) << l.describe();
      EXPECT_EQ(r.lower_bound, r.best_cost) << l.describe();
      EXPECT_TRUE(r.metrics.valid) << l.describe();
      std::printf("  %s: raw %lld valid mappings, %lld without a burst descriptor\n",
                  l.describe().c_str(), raw.count, raw.unservable);
    }
    ++proved;
  }
  return constrained;
}

}  // namespace

TEST(CompactSpace, SameOptimumAsRawSpaceOnRandomSmallLayers) {
  EXPECT_EQ(same_optimum_on_random_small_layers(4242, test_cases::cases(30), DramPort::Packed, 0),
            0);
}

// Under the burst port (2 to 8 bytes per beat, so that the beats of small tiles differ) the
// compact space keeps the tiles that change a tensor's beats, and still holds an optimum; on
// layers where some mappings have no burst descriptor the exact mapper's raw pass gets the raw
// space's optimum.
TEST(CompactSpace, SameOptimumAsRawSpaceUnderBurstPort) {
  const int n = test_cases::cases(30);
  const int constrained = same_optimum_on_random_small_layers(4343, n, DramPort::Bursts, 8);
  std::printf("%d of %d layers had mappings without a burst descriptor\n", constrained, n);
}

// With strides up to 3 many layers have mappings without a burst descriptor (input rows or
// columns in blocks cut by the padding): there the exact mapper's raw pass must reach the raw
// space's optimum over the servable mappings.
TEST(CompactSpace, BurstPortMappingsWithoutADescriptorGetTheRawSpaceOptimum) {
  const int constrained =
      same_optimum_on_random_small_layers(4444, 24, DramPort::Bursts, 8, /*stride_hi=*/3);
  std::printf("%d of 24 layers had mappings without a burst descriptor\n", constrained);
  EXPECT_GE(constrained, 4);
}

// Banked input and weight buffers: a fold's bank stalls depend on the tile sizes and PE uses
// the compact space merges, so on a banked architecture the exact mapper follows the compact
// space with the raw one (mapper/README.md). Its EDP optimum equals brute force over the raw
// space, proved, on random small layers and arrays with 2 to 5 banks; on some of them the
// compact space alone misses it, which is what the raw pass is for.
TEST(CompactSpace, BankedArchitecturesGetTheRawSpaceOptimum) {
  std::mt19937_64 rng(4545);
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int missed_by_compact = 0, n = 0;
  for (int i = 0; i < 24; ++i) {
    const Layer l = random_small_layer(rng);
    Arch a = arch(u(2, 3), u(2, 3), u(8, 120), u(4, 80), u(16, 300));
    a.dram_bytes_per_cycle = 2;
    a.buffer_banks = u(std::max(a.rows, a.cols), 5);
    if (!test_cases::runs(i)) continue;
    ++n;
    const Best raw = brute_force_raw(l, a), compact = brute_force_compact(l, a);
    if (raw.count == 0) continue;
    const mapper::Result r = mapper_test::solve_exact(l, a);
    ASSERT_TRUE(r.found) << l.describe();
    EXPECT_EQ(r.best_cost, raw.edp_cost) << l.describe() << ", " << a.buffer_banks << " banks";
    EXPECT_TRUE(r.optimal) << l.describe();
    EXPECT_EQ(r.lower_bound, r.best_cost) << l.describe();
    if (compact.edp_cost > raw.edp_cost) ++missed_by_compact;
  }
  // Which cases the compact space misses is a property of the whole set (test_cases).
  if (!test_cases::kSanitized) {
    EXPECT_GT(missed_by_compact, 0);
  }
  std::printf("compact space alone missed the raw optimum on %d of %d banked cases\n",
              missed_by_compact, n);
}

// The raw pass after the compact one searches a narrower space than every mapping
// (mapper/src/mapper.cpp, raw_pass_space): the compact double-buffer choices always; under WS
// and OS the compact K sizes and PE-column uses when the banks are at least the array's
// columns, and under WS the compact N and P sizes; the whole compact space where no fold list
// can conflict (WS with a 1x1 filter on an array no wider than the banks, OS with one output
// pixel); under IS with a prime bank count above the array, every size of a K trip count only
// where a compact size is a multiple of the bank count. Each optimum equals brute force over the
// raw space for latency, energy and EDP, proved, on random small layers (convolutions, 1x1 and
// strided, depthwise, GEMMs, fully connected layers of one output pixel with K up to 40), arrays
// of 2 to 4 rows and columns with 2 to 7 banks (below, at and above the columns; prime and
// not), each on all three dataflows and on IS alone.
TEST(CompactSpace, BankedRawPassIsExactForEveryObjective) {
  std::mt19937_64 rng(5151);
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int kCases = 120;
  int n = 0, is_only = 0, fc = 0, wide = 0, missed = 0;
  for (int i = 0; i < kCases; ++i) {
    Layer l;
    if (i % 4 == 3) {  // fully connected: one output pixel
      l.name = "fc";
      l.kind = LayerKind::Gemm;
      l.n = l.h = l.w = l.r = l.s = l.stride = 1;
      l.k = u(8, 40);
      l.c = u(2, 20);
      l = make_layer(l, "random");
      ++fc;
    } else if (i % 4 == 1) {  // a GEMM with a longer reduction
      l.name = "gemm";
      l.kind = LayerKind::Gemm;
      l.n = l.w = l.r = l.s = l.stride = 1;
      l.h = u(2, 6);
      l.k = u(2, 10);
      l.c = u(4, 12);
      l = make_layer(l, "random");
    } else {
      l = random_small_layer(rng);
    }
    Arch a = arch(u(2, 4), u(2, 4), u(8, 120), u(4, 80), u(16, 300));
    // Mostly compute-bound (a wide, quick DRAM port), so that bank stalls decide optima.
    a.dram_bytes_per_cycle = i % 2 ? 2 : 64;
    a.dram_latency_cycles = i % 2 ? a.dram_latency_cycles : 1;
    a.buffer_banks = u(2, 7);
    if (i % 3 == 2) {
      a.dataflows = {Dataflow::IS};
      ++is_only;
    }
    wide += a.buffer_banks < a.cols;
    if (!test_cases::runs(i)) continue;
    const Best raw = brute_force_raw(l, a);
    if (raw.count == 0) continue;
    ++n;
    const Best compact = brute_force_compact(l, a);
    missed += compact.cycles > raw.cycles || compact.energy > raw.energy ||
              compact.edp_cost > raw.edp_cost;
    const struct {
      const char* objective;
      double want;
    } cases[] = {{"latency", raw.cycles}, {"energy", raw.energy}, {"edp", raw.edp_cost}};
    for (const auto& c : cases) {
      const mapper::Result r = mapper_test::solve_exact(l, a, c.objective);
      ASSERT_TRUE(r.found) << l.describe();
      EXPECT_EQ(r.best_cost, c.want)
          << l.describe() << ", " << a.rows << "x" << a.cols << ", " << a.buffer_banks << " banks, "
          << c.objective << (a.dataflows.size() == 1 ? ", IS only" : "");
      EXPECT_TRUE(r.optimal) << l.describe();
    }
  }
  EXPECT_GE(n, test_cases::cases(kCases) * 3 / 4);
  EXPECT_GE(fc, kCases / 4);
  EXPECT_GE(is_only, kCases / 3);
  EXPECT_GE(wide, 8);  // banks below the columns: the raw K and PE-column sizes
  std::printf("compact space alone missed a raw optimum on %d of %d cases\n", missed, n);
}
