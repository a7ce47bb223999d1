// The raw map space: the loop-order index is a bijection, the parameters and the size of the
// space are as documented, sampling draws valid mappings that round-trip through encode and
// decode, and an invalid mapping names the buffer that overflows and by how many bytes.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/mapspace/mapspace.hpp"

#include "test_layers.hpp"

using namespace mapwright::core;
namespace test_layers = mapwright::test_layers;

TEST(MapSpace, OrderIndexIsABijection) {
  std::set<std::array<Dim, kNumOrderedDims>> seen;
  for (long long i = 0; i < 5040; ++i) {
    const auto o = order_from_index(i);
    ASSERT_EQ(order_to_index(o), i);
    seen.insert(o);
  }
  EXPECT_EQ(seen.size(), 5040u);
}

TEST(MapSpace, ParametersSizeAndSampling) {
  const Layer l = test_layers::conv(64, 32, 28, 3, 1, 1);
  const Arch a = load_arch("default-ideal");
  const MapSpace space(l, a);
  ASSERT_EQ(space.params().size(), 16u);
  EXPECT_EQ(space.params()[0].name, "dataflow");
  double expect = std::log10(3.0) + std::log10(1.0) + std::log10(1.0) + std::log10(64.0) +
                  std::log10(32.0) + 2 * std::log10(28.0) + 2 * std::log10(3.0) +
                  std::log10(5040.0) + std::log10(2.0) + 2 * std::log10(16.0) + 3 * std::log10(2.0);
  EXPECT_NEAR(space.log10_size(), expect, 1e-9);
  std::mt19937_64 rng(9);
  const double rate = space.naive_invalid_rate(rng, 20000);
  EXPECT_GT(rate, 0.0);
  EXPECT_LT(rate, 1.0);
  for (int i = 0; i < 200; ++i) {
    ParamVector v;
    ASSERT_TRUE(space.sample_valid(rng, v));
    EXPECT_TRUE(space.check(space.decode(v)).ok());
    EXPECT_EQ(space.encode(space.decode(v)), v);
  }
}

TEST(MapSpace, InvalidReasonNamesBufferAndBytes) {
  const Layer l = test_layers::conv(64, 32, 28, 3, 1, 1);
  const Arch a = load_arch("small4");
  Mapping m = default_mapping(l, a);
  m.tile[static_cast<int>(Dim::C)] = 32;
  m.tile[static_cast<int>(Dim::K)] = 64;
  m.tile[static_cast<int>(Dim::R)] = 3;
  m.tile[static_cast<int>(Dim::S)] = 3;
  m.db_weight = true;
  const Validity v = check_capacity(l, a, m);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.kind, InvalidKind::WeightOverflow);
  EXPECT_EQ(v.need_bytes, 2LL * 64 * 32 * 9);
  EXPECT_EQ(v.have_bytes, 16 * 1024);
  EXPECT_EQ(v.reason(), "weight buffer overflows by " + std::to_string(2 * 64 * 32 * 9 - 16384) +
                            " bytes (needs 36864, has 16384)");
}
