// core::accum_bank_problem (which mappings the RTL's banked accumulator cannot serve) against a
// brute-force look at every fold's result lanes.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/mapspace/mapspace.hpp"

#include "test_layers.hpp"

using namespace mapwright::core;
using mapwright::test_layers::conv;
using mapwright::test_layers::gemm;

namespace {

/// Whether some fold of the tile program has two result lanes in one of `banks` banks: lane j
/// of a fold sits at word j * stride from the fold's first (IS: stride = the tile's G * K
/// extent; WS, OS: 1), and word a in bank a mod banks.
bool some_fold_conflicts(const Layer& l, const Arch& a, const Mapping& m, long long banks) {
  bool conflict = false;
  walk_tile_program(l, a, m, [&](const TileOp& op) {
    if (op.kind != OpKind::Compute || conflict) return;
    const long long stride =
        m.dataflow == Dataflow::IS ? op.box.ext_of(Dim::G) * op.box.ext_of(Dim::K) : 1;
    for_each_fold(m, op.box, [&](long long, long long, long long, long long, long long cu) {
      std::set<long long> seen;
      for (long long j = 0; j < cu; ++j)
        if (!seen.insert(j * stride % banks).second) conflict = true;
    });
  });
  return conflict;
}

}  // namespace

// Random mappings of layers with groups, batches and K not a multiple of its tile, on 4x4 and
// 8x8 arrays with 4 to 17 banks: accum_bank_problem names a problem exactly when some fold's
// lanes share a bank, never for WS or OS, always "" without banks; check_valid reports it as
// InvalidKind::AccumBanks after capacity. Both verdicts occur.
TEST(AccumBanks, MatchesBruteForceOverEveryFold) {
  const std::vector<Layer> layers = {conv(6, 5, 9, 3, 1, 1),        conv(12, 1, 7, 3, 1, 1, 12),
                                     conv(10, 3, 6, 1, 1, 0, 2, 3), conv(17, 2, 5, 1, 1, 0),
                                     conv(8, 8, 4, 1, 1, 0, 4, 2),  gemm(9, 6, 34)};
  std::mt19937_64 rng(21);
  long long refused = 0, served = 0, checked = 0;
  for (int side : {4, 8}) {
    Arch a = mapwright::test_layers::small(side, side, 1 << 14, 1 << 14, 1 << 14);
    a.dataflows = {Dataflow::WS, Dataflow::OS, Dataflow::IS};
    for (const Layer& l : layers) {
      const MapSpace space(l, a);  // no banks: sampling is not filtered by the rule
      for (int i = 0; i < 60; ++i) {
        ParamVector v;
        ASSERT_TRUE(space.sample_valid(rng, v));
        const Mapping m = space.decode(v);
        EXPECT_EQ(accum_bank_problem(l, a, m), "");
        for (long long banks : {4, 5, 8, 12, 17}) {
          if (banks < side) continue;
          Arch b = a;
          b.buffer_banks = static_cast<int>(banks);
          const std::string why = accum_bank_problem(l, b, m);
          const bool brute = some_fold_conflicts(l, b, m, banks);
          ASSERT_EQ(!why.empty(), brute) << "banks " << banks << ": " << why;
          if (m.dataflow != Dataflow::IS) {
            EXPECT_EQ(why, "");
          }
          const Validity val = check_valid(l, b, m);
          if (check_capacity(l, b, m).ok()) {
            EXPECT_EQ(val.kind, brute ? InvalidKind::AccumBanks : InvalidKind::None);
            if (brute) {
              EXPECT_NE(val.reason().find("banked accumulator: IS result lanes"), std::string::npos)
                  << val.reason();
              EXPECT_EQ(std::string(invalid_kind_name(val.kind)), "accum_bank_conflict");
            }
          }
          (brute ? refused : served) += 1;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(served, refused);
  std::printf("%lld mapping and bank-count pairs: %lld refused, %lld served\n", checked, refused,
              served);
}
