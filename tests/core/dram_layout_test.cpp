// core::dram_segments (the DRAM runs of a DMA operation) against a brute-force enumeration of
// the tile's elements in the DRAM layout.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/core/mapspace.hpp"

#include "../mapper/test_layers.hpp"

using namespace mapwright::core;

namespace {

/// DRAM bytes of the op's tile, element by element.
std::set<uint64_t> brute_force(const Layer& l, const DramLayout& at, const TileOp& op) {
  std::set<uint64_t> bytes;
  const TileBox& b = op.box;
  auto range = [&](Dim d) { return std::make_pair(b.lo_of(d), b.lo_of(d) + b.ext_of(d)); };
  const auto [g0, g1] = range(Dim::G);
  const auto [n0, n1] = range(Dim::N);
  const auto [k0, k1] = range(Dim::K);
  const auto [c0, c1] = range(Dim::C);
  const auto [p0, p1] = range(Dim::P);
  const auto [q0, q1] = range(Dim::Q);
  const auto [r0, r1] = range(Dim::R);
  const auto [s0, s1] = range(Dim::S);
  for (int64_t g = g0; g < g1; ++g) switch (op.kind) {
      case OpKind::LoadInput:
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t p = p0; p < p1; ++p)
            for (int64_t r = r0; r < r1; ++r)
              for (int64_t q = q0; q < q1; ++q)
                for (int64_t s = s0; s < s1; ++s) {
                  const int64_t h = p * l.stride + r - l.pad, w = q * l.stride + s - l.pad;
                  if (h < 0 || h >= l.h || w < 0 || w >= l.w) continue;
                  for (int64_t c = c0; c < c1; ++c)
                    bytes.insert(
                        at.input +
                        static_cast<uint64_t>(((n * l.h + h) * l.w + w) * l.g * l.c + g * l.c + c));
                }
        break;
      case OpKind::LoadWeight:
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t s = s0; s < s1; ++s)
            for (int64_t c = c0; c < c1; ++c)
              for (int64_t k = k0; k < k1; ++k)
                bytes.insert(at.weight + static_cast<uint64_t>(
                                             (((g * l.r + r) * l.s + s) * l.c + c) * l.k + k));
        break;
      default: {
        const bool psum = op.kind != OpKind::StoreOutput;
        const uint64_t eb = psum ? 4 : 1;
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t p = p0; p < p1; ++p)
            for (int64_t q = q0; q < q1; ++q)
              for (int64_t k = k0; k < k1; ++k)
                for (uint64_t e = 0; e < eb; ++e)
                  bytes.insert((psum ? at.psum : at.output) +
                               eb * static_cast<uint64_t>(((n * l.p + p) * l.q + q) * l.g * l.k +
                                                          g * l.k + k) +
                               e);
      }
    }
  return bytes;
}

}  // namespace

// Every DMA operation of random mappings of layers with groups, strides above the filter size
// and padding: the runs cover exactly the tile's bytes, each once, add up to the op's bytes,
// lie in the tensor's region, and no two consecutive runs touch (they are merged).
TEST(DramSegments, CoverExactlyTheTileBytes) {
  const Arch a = load_arch("small4");
  using mapwright::test_layers::conv;
  // conv(k, c, h, r, stride, pad, g, n)
  const Layer layers[] = {conv(6, 5, 9, 3, 1, 1), conv(2, 2, 10, 3, 2, 1, 3, 2),
                          conv(4, 3, 11, 2, 3, 1), conv(1, 1, 8, 3, 2, 1, 4),
                          conv(5, 8, 1, 1, 1, 0, 1, 3)};
  std::mt19937_64 rng(3);
  long long ops = 0;
  for (const Layer& l : layers) {
    const DramLayout at = dram_layout(l);
    EXPECT_EQ(at.bytes,
              static_cast<uint64_t>(l.input_elems() + l.weight_elems() + 5 * l.output_elems()));
    const MapSpace space(l, a);
    for (int i = 0; i < 30; ++i) {
      ParamVector v;
      ASSERT_TRUE(space.sample_valid(rng, v));
      const Mapping m = space.decode(v);
      walk_tile_program(l, a, m, [&](const TileOp& op) {
        if (op.kind == OpKind::Compute) return;
        std::vector<DramSegment> segs;
        dram_segments(l, at, op, segs);
        std::multiset<uint64_t> got;
        uint64_t sum = 0;
        for (size_t j = 0; j < segs.size(); ++j) {
          ASSERT_GT(segs[j].len, 0u);
          if (j > 0) {
            ASSERT_NE(segs[j - 1].addr + segs[j - 1].len, segs[j].addr);
          }
          for (uint64_t x = 0; x < segs[j].len; ++x) got.insert(segs[j].addr + x);
          sum += segs[j].len;
        }
        ASSERT_EQ(sum, static_cast<uint64_t>(op.bytes)) << op_kind_name(op.kind);
        const std::set<uint64_t> want = brute_force(l, at, op);
        ASSERT_EQ(got.size(), want.size()) << op_kind_name(op.kind) << " " << l.describe();
        ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin()))
            << op_kind_name(op.kind) << " " << l.describe();
        ++ops;
      });
    }
  }
  EXPECT_GT(ops, 1000);
}
