// Bank conflicts predicted per fold (model/bank_conflicts) against a replay of every access
// row's lane addresses, computed from the RTL's buffer layouts (rtl/README.md) with padding
// lanes at their virtual addresses, on random small layers and mappings.
#include "mapwright/model/bank_conflicts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/model/surrogate.hpp"
#include "../common/sanitized.hpp"

using namespace mapwright;
using namespace mapwright::core;

namespace {

/// Extra cycles of one row of absolute lane addresses (mathematical modulo).
long long replay_row(const std::vector<long long>& addrs, long long banks) {
  std::map<long long, int> load;
  int worst = 1;
  for (long long a : addrs) worst = std::max(worst, ++load[((a % banks) + banks) % banks]);
  return worst - 1;
}

/// Every compute stream's rows, replayed with the RTL's full addresses (buffer bases zero).
model::BankStalls replay(const Layer& l, const Arch& arch, const Mapping& m, long long banks) {
  model::BankStalls st;
  walk_tile_program(l, arch, m, [&](const TileOp& op) {
    if (op.kind != OpKind::Compute) return;
    const TileBox& b = op.box;
    const long long tn = b.ext_of(Dim::N), tp = b.ext_of(Dim::P), tq = b.ext_of(Dim::Q);
    const long long tc = b.ext_of(Dim::C), tr = b.ext_of(Dim::R), ts = b.ext_of(Dim::S);
    const long long tk = b.ext_of(Dim::K), tg = b.ext_of(Dim::G);
    const RowMap rm = input_rows(b.lo_of(Dim::P), tp, b.lo_of(Dim::R), tr, l.stride, l.pad, l.h);
    const RowMap cm = input_rows(b.lo_of(Dim::Q), tq, b.lo_of(Dim::S), ts, l.stride, l.pad, l.w);
    const long long hx = static_cast<long long>(rm.rows.size());
    const long long wx = static_cast<long long>(cm.rows.size());
    const long long pixels = tn * tp * tq, red = tc * tr * ts;
    // Input [n][hrow][wcol][g][c], virtual rows and columns for padding; weights
    // [g][red][k]; accumulator [m][g][k].
    auto in_addr = [&](long long g, long long x, long long y) {
      const long long n = x / (tp * tq), p = (x / tq) % tp, q = x % tq;
      const long long r = y / (ts * tc), s = (y / tc) % ts, c = y % tc;
      const long long hrow = p * rm.a + r - rm.clip, wcol = q * cm.a + s - cm.clip;
      return ((n * hx + hrow) * wx + wcol) * tg * tc + g * tc + c;
    };
    auto wt_addr = [&](long long g, long long y, long long k) { return (g * red + y) * tk + k; };
    auto acc_addr = [&](long long g, long long x, long long k) { return (x * tg + g) * tk + k; };
    std::vector<long long> row;
    auto add = [&](long long& to, long long n, auto&& addr_of) {
      row.clear();
      for (long long i = 0; i < n; ++i) row.push_back(addr_of(i));
      to += replay_row(row, banks);
    };
    for_each_fold(
        m, b, [&](long long g, long long row0, long long ru, long long col0, long long cu) {
          const bool acc =
              m.dataflow == Dataflow::OS ? op.accumulate : (op.accumulate || row0 != 0);
          const int acc_rows = acc ? 2 : 1;
          switch (m.dataflow) {
            case Dataflow::WS:
              for (long long t = 0; t < ru; ++t)
                add(st.weight, cu, [&](long long j) { return wt_addr(g, row0 + t, col0 + j); });
              for (long long x = 0; x < pixels; ++x) {
                add(st.input, ru, [&](long long i) { return in_addr(g, x, row0 + i); });
                for (int a = 0; a < acc_rows; ++a)
                  add(st.accum, cu, [&](long long j) { return acc_addr(g, x, col0 + j); });
              }
              break;
            case Dataflow::OS:
              for (long long y = 0; y < red; ++y) {
                add(st.input, ru, [&](long long i) { return in_addr(g, row0 + i, y); });
                add(st.weight, cu, [&](long long j) { return wt_addr(g, y, col0 + j); });
              }
              for (long long i = 0; i < ru; ++i)
                for (int a = 0; a < acc_rows; ++a)
                  add(st.accum, cu, [&](long long j) { return acc_addr(g, row0 + i, col0 + j); });
              break;
            case Dataflow::IS:
              for (long long t = 0; t < ru; ++t)
                add(st.input, cu, [&](long long i) { return in_addr(g, col0 + i, row0 + t); });
              for (long long k = 0; k < tk; ++k) {
                add(st.weight, ru, [&](long long i) { return wt_addr(g, row0 + i, k); });
                for (int a = 0; a < acc_rows; ++a)
                  add(st.accum, cu, [&](long long i) { return acc_addr(g, col0 + i, k); });
              }
              break;
          }
        });
  });
  return st;
}

Layer random_layer(std::mt19937_64& rng) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Layer l;
  l.name = "random";
  l.n = u(1, 2);
  l.r = u(1, 3);
  l.s = u(1, 3);
  l.stride = u(1, 3);
  l.pad = u(0, std::min(l.r, l.s) - 1);
  l.h = u(l.r, 10);
  l.w = u(l.s, 10);
  l.k = u(1, 20);
  l.c = u(1, 12);
  if (u(0, 2) == 0) {
    l.kind = LayerKind::Grouped;
    l.g = u(2, 3);
  }
  return make_layer(l, "random");
}

/// Draws `n` random small layers on random 2..8 x 2..8 arrays and calls f(layer, arch, mapping)
/// with a random valid mapping of each; returns how many were drawn.
template <class F>
int for_each_random_mapping(uint64_t seed, int n, F f) {
  std::mt19937_64 rng(seed);
  int drawn = 0;
  for (int iter = 0; iter < n; ++iter) {
    Arch arch = load_arch("small4");
    arch.rows = std::uniform_int_distribution<int>(2, 8)(rng);
    arch.cols = std::uniform_int_distribution<int>(2, 8)(rng);
    const Layer layer = random_layer(rng);
    const MapSpace space(layer, arch);
    ParamVector v;
    if (!space.sample_valid(rng, v)) continue;
    f(layer, arch, space.decode(v));
    ++drawn;
  }
  return drawn;
}

}  // namespace

TEST(BankConflicts, RowStallIsTheBusiestBankMinusOne) {
  EXPECT_EQ(model::row_bank_stall({}, 17), 0);
  EXPECT_EQ(model::row_bank_stall({5}, 17), 0);
  std::vector<long long> consecutive, stride17, stride3;
  for (long long i = 0; i < 16; ++i) {
    consecutive.push_back(i);
    stride17.push_back(40 + 17 * i);
    stride3.push_back(-7 + 3 * i);
  }
  EXPECT_EQ(model::row_bank_stall(consecutive, 17), 0);
  EXPECT_EQ(model::row_bank_stall(consecutive, 16), 0);
  EXPECT_EQ(model::row_bank_stall(consecutive, 8), 1);
  EXPECT_EQ(model::row_bank_stall(stride17, 17), 15);
  EXPECT_EQ(model::row_bank_stall(stride3, 17), 0);
  EXPECT_EQ(model::row_bank_stall(stride3, 3), 15);
}

TEST(BankConflicts, PerFoldPredictionEqualsRowReplayOnRandomLayersAndMappings) {
  int with_stalls = 0;
  const int checked = for_each_random_mapping(
      2026, 300, [&](const Layer& layer, const Arch& arch, const Mapping& m) {
        for (long long banks : {3LL, 5LL, 8LL, 11LL}) {
          const model::BankStalls want = replay(layer, arch, m, banks);
          const model::BankStalls got = model::fold_bank_stalls(layer, arch, m, banks);
          ASSERT_EQ(got.input, want.input) << layer.describe() << " banks " << banks;
          ASSERT_EQ(got.weight, want.weight) << layer.describe() << " banks " << banks;
          ASSERT_EQ(got.accum, want.accum) << layer.describe() << " banks " << banks;
          with_stalls += want.total() > 0;
        }
      });
  EXPECT_GE(checked, 250);
  EXPECT_GE(with_stalls, 200);  // not vacuous: 293 of the 1,200 cases stall somewhere
}

TEST(BankConflicts, ClosedFormEqualsPerFoldWalkOnRandomLayersAndMappings) {
  int with_stalls = 0;
  const int checked =
      for_each_random_mapping(7, 1500, [&](const Layer& layer, const Arch& arch, const Mapping& m) {
        for (long long banks : {3LL, 7LL, 17LL}) {
          const model::BankStalls walk = model::fold_bank_stalls(layer, arch, m, banks);
          const model::BankStalls closed = model::closed_form_bank_stalls(layer, m, banks);
          ASSERT_EQ(closed.input, walk.input) << layer.describe() << " banks " << banks;
          ASSERT_EQ(closed.weight, walk.weight) << layer.describe() << " banks " << banks;
          with_stalls += walk.input > 0 && walk.weight > 0;
        }
      });
  EXPECT_GE(checked, 1400);
  EXPECT_GE(with_stalls, 100);
}

// The exact mapper computes a tiling's bank cycles once for all its orders and double-buffer
// choices (mapper/README.md): the walk's stalls and the closed form's cycles do not change with
// the loop order or the double buffering, and closed_form_cycles with the bank cycles given
// equals the one that computes them.
TEST(BankConflicts, BankCyclesDependOnNeitherOrderNorDoubleBuffering) {
  std::mt19937_64 rng(99);
  int with_cycles = 0;
  const int checked =
      for_each_random_mapping(11, 300, [&](const Layer& layer, const Arch& arch, const Mapping& m) {
        for (long long banks : {3LL, 7LL}) {
          Arch a = arch;
          a.buffer_banks = banks;
          const long long cyc = model::closed_form_bank_cycles(layer, m, banks);
          const model::BankStalls walk = model::fold_bank_stalls(layer, a, m, banks);
          with_cycles += walk.input + walk.weight > 0;
          for (int t = 0; t < 3; ++t) {
            Mapping o = m;
            o.order = order_from_index(static_cast<long long>(rng() % 5040));
            o.db_input = (rng() & 1) != 0;
            o.db_weight = (rng() & 1) != 0;
            o.db_accum = (rng() & 1) != 0;
            ASSERT_EQ(model::closed_form_bank_cycles(layer, o, banks), cyc) << layer.describe();
            const model::BankStalls w = model::fold_bank_stalls(layer, a, o, banks);
            ASSERT_EQ(w.input, walk.input) << layer.describe();
            ASSERT_EQ(w.weight, walk.weight) << layer.describe();
            const AccessCounts c = model::closed_form_counts(layer, a, o);
            const model::CycleEstimate plain = model::closed_form_cycles(layer, a, o, c);
            const model::CycleEstimate given = model::closed_form_cycles(layer, a, o, c, cyc);
            ASSERT_EQ(given.cycles, plain.cycles) << layer.describe();
            ASSERT_EQ(given.bank_cycles, plain.bank_cycles) << layer.describe();
          }
        }
      });
  EXPECT_GE(checked, 250);
  EXPECT_GE(with_cycles, 20);
}

// The reference schedule's per-op bank cycles (one OpBankCycles for all the mapping's ops, its
// fold memo shared across ops) sum to the closed form's, and each op's equals a fresh counter's.
TEST(BankConflicts, PerOpBankCyclesSumToTheClosedForm) {
  int with_cycles = 0;
  const int checked =
      for_each_random_mapping(23, 200, [&](const Layer& layer, const Arch& arch, const Mapping& m) {
        for (long long banks : {0LL, 5LL, 8LL}) {
          model::OpBankCycles shared(layer, m, banks);
          long long sum = 0;
          walk_tile_program(layer, arch, m, [&](const TileOp& op) {
            if (op.kind != OpKind::Compute) return;
            const long long c = shared.op_cycles(op.box);
            model::OpBankCycles fresh(layer, m, banks);
            ASSERT_EQ(fresh.op_cycles(op.box), c) << layer.describe();
            sum += c;
          });
          const long long closed = banks > 0 ? model::closed_form_bank_cycles(layer, m, banks) : 0;
          ASSERT_EQ(sum, closed) << layer.describe() << " banks " << banks;
          with_cycles += banks > 0 && sum > 0;
        }
      });
  EXPECT_GE(checked, 150);
  EXPECT_GE(with_cycles, 100);
}

TEST(BankConflicts, ClosedFormEqualsPerFoldWalkOnZooLayers) {
  // Full layers with their padding and strides on the 16x16 default and 17 banks.
  const Arch arch = load_arch("default");
  std::mt19937_64 rng(11);
  int checked = 0;
  for (const char* net : {"resnet18", "mobilenet_v2"})
    for (const auto& [layer, count] : zoo_network(net).unique_layers()) {
      const MapSpace space(layer, arch);
      ParamVector v;
      if (!space.sample_valid(rng, v)) continue;
      const Mapping m = space.decode(v);
      const model::BankStalls walk = model::fold_bank_stalls(layer, arch, m, 17);
      const model::BankStalls closed = model::closed_form_bank_stalls(layer, m, 17);
      ASSERT_EQ(closed.input, walk.input) << layer.name;
      ASSERT_EQ(closed.weight, walk.weight) << layer.name;
      ++checked;
    }
  EXPECT_GE(checked, 40);
}

// The factored closed form (a per-thread cache of fold lists shared by every evaluation) against
// the per-shape sum it replaced (each op shape's fold lists built anew), on 100,000 random valid
// mappings: every unique layer of four zoo networks on 4x4, 8x4, 8x8 and 16x16 arrays with the
// default's buffers, bank counts prime and not (2 to 32), the packed and the burst port, plus
// small random layers with groups, padding and strides. One thread's cache serves them all, so
// entries made for one layer, array and bank count answer the others; a tenth of the cases run
// on an emptied cache.
TEST(BankConflicts, FactoredClosedFormEqualsTheShapeSum) {
  const int want = test_cases::cases(100000);
  const long long bank_counts[] = {2, 3, 4, 5, 7, 8, 11, 13, 16, 17, 31, 32};
  const int arrays[][2] = {{4, 4}, {8, 4}, {8, 8}, {16, 16}};
  std::vector<std::pair<Layer, long long>> layers;
  for (const char* net : {"resnet18", "resnet50", "mobilenet_v2", "vgg16"})
    for (const auto& [layer, count] : zoo_network(net).unique_layers())
      layers.push_back({layer, count});
  std::mt19937_64 rng(2027);
  int checked = 0, with_cycles = 0, cold = 0;
  auto check = [&](const Layer& layer, const Mapping& m, long long banks) {
    if (rng() % 10 == 0) {
      model::clear_bank_fold_cache();
      ++cold;
    }
    const model::BankTotals fast = model::closed_form_bank_totals(layer, m, banks);
    const model::BankTotals ref = model::shape_sum_bank_totals(layer, m, banks);
    ASSERT_EQ(fast.input, ref.input) << layer.describe() << " banks " << banks;
    ASSERT_EQ(fast.weight, ref.weight) << layer.describe() << " banks " << banks;
    ASSERT_EQ(fast.cycles, ref.cycles) << layer.describe() << " banks " << banks;
    with_cycles += ref.input + ref.weight > 0;
    ++checked;
  };
  // Zoo layers: four fifths of the cases.
  for (int i = 0; checked < want * 4 / 5 && i < 50 * want; ++i) {
    Arch arch = load_arch(i % 2 ? "default" : "default-bursts");
    const auto& rc = arrays[rng() % 4];
    arch.rows = rc[0];
    arch.cols = rc[1];
    arch.buffer_banks = bank_counts[rng() % 12];
    const Layer& layer = layers[rng() % layers.size()].first;
    const MapSpace space(layer, arch);
    for (int j = 0; j < 20; ++j) {
      ParamVector v;
      if (!space.sample_valid(rng, v)) break;
      check(layer, space.decode(v), arch.buffer_banks);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Small random layers (groups, padding, strides up to 3) on 2..8 x 2..8 arrays.
  const int small = for_each_random_mapping(31, want / 5 / 4,
                                            [&](const Layer& layer, const Arch&, const Mapping& m) {
                                              for (long long banks : {1LL, 3LL, 6LL, 17LL})
                                                check(layer, m, banks);
                                            });
  EXPECT_GE(small, want / 5 / 4 * 9 / 10);
  EXPECT_GE(checked, want * 95 / 100);
  EXPECT_GE(cold, want / 20);
  if (!test_cases::kSanitized) {
    EXPECT_GE(with_cycles, want / 4);  // not vacuous
  }
}
