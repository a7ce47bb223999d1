// Tests of the driver side (plain C++): the buffer-row formula of the input tile against
// core::input_extent, and the command program's DMA segment lists against the tile program.
#include "mapwright/systemc/command_program.hpp"

#include <gtest/gtest.h>

#include <random>

#include "mapwright/core/mapspace.hpp"

using namespace mapwright;
using namespace mapwright::systemc;

// For every (output-row tile, filter-row tile) the distinct in-bounds rows equal
// core::input_extent, and the buffer row pl*a + rl - clip of every position is in range exactly
// when the position is in bounds, and then holds that absolute row.
TEST(InputRows, BufferRowFormulaMatchesInputExtent) {
  long long cases = 0;
  for (long long stride = 1; stride <= 4; ++stride)
    for (long long r = 1; r <= 5; ++r)
      for (long long pad = 0; pad < r; ++pad)
        for (long long h = r; h <= 12; ++h) {
          const long long p = (h + 2 * pad - r) / stride + 1;
          for (long long tp = 1; tp <= p; ++tp)
            for (long long tr = 1; tr <= r; ++tr)
              for (long long p0 = 0; p0 < p; p0 += tp)
                for (long long r0 = 0; r0 < r; r0 += tr) {
                  const long long pt = std::min(tp, p - p0), rt = std::min(tr, r - r0);
                  const RowMap m = input_rows(p0, pt, r0, rt, stride, pad, h);
                  ASSERT_EQ(static_cast<long long>(m.rows.size()),
                            core::input_extent(p0, pt, r0, rt, stride, pad, h));
                  for (long long pl = 0; pl < pt; ++pl)
                    for (long long rl = 0; rl < rt; ++rl) {
                      const long long abs = p0 * stride + r0 - pad + pl * stride + rl;
                      const long long row = pl * m.a + rl - m.clip;
                      const bool in = abs >= 0 && abs < h;
                      const bool held = row >= 0 && row < static_cast<long long>(m.rows.size());
                      ASSERT_EQ(in, held) << "stride " << stride << " pad " << pad << " h " << h
                                          << " p0 " << p0 << " pt " << pt << " r0 " << r0 << " rt "
                                          << rt << " pl " << pl << " rl " << rl;
                      if (in) {
                        ASSERT_EQ(m.rows[static_cast<size_t>(row)], abs);
                      }
                    }
                  ++cases;
                }
        }
  EXPECT_GT(cases, 10000);
}

// The program's DMA commands carry exactly the tile program's bytes, and the fences only point
// backwards.
TEST(CommandProgram, DmaBytesAndFencesFollowTheTileProgram) {
  const core::Arch arch =
      core::load_arch(std::string(MAPWRIGHT_SOURCE_DIR) + "/configs/arch/small4.yaml");
  core::Layer raw;
  raw.n = 2;
  raw.k = 5;
  raw.c = 3;
  raw.h = 7;
  raw.w = 6;
  raw.r = 3;
  raw.s = 3;
  raw.stride = 2;
  raw.pad = 1;
  const core::Layer l = core::make_layer(raw, "test");
  core::MapSpace space(l, arch);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 50; ++i) {
    core::ParamVector v;
    ASSERT_TRUE(space.sample_valid(rng, v));
    const core::Mapping m = space.decode(v);
    CommandProgram p;
    std::string err;
    ASSERT_TRUE(build_program(l, arch, m, 8, p, err)) << err;
    long long bytes = 0;
    for (const auto& d : p.dma) bytes += static_cast<long long>(d.bytes);
    const core::AccessCounts c = core::count_by_walk(l, arch, m);
    EXPECT_EQ(bytes, c.dram_bytes());
    EXPECT_EQ(p.compute_commands, c.steps);
    EXPECT_EQ(p.dma_commands,
              c.input_loads + c.weight_loads + c.psum_reloads + c.psum_spills + c.output_stores);
  }
}

TEST(CommandProgram, ReferenceOfA1x1ConvIsAMatrixProduct) {
  core::Layer raw;
  raw.k = 3;
  raw.c = 4;
  raw.h = 2;
  raw.w = 2;
  const core::Layer l = core::make_layer(raw, "test");
  const auto in = random_tensor(1, 16), wt = random_tensor(2, 12);
  const auto out = reference_output(l, in, wt, 0);
  for (int px = 0; px < 4; ++px)
    for (int k = 0; k < 3; ++k) {
      int32_t s = 0;
      for (int c = 0; c < 4; ++c) s += in[px * 4 + c] * wt[c * 3 + k];
      EXPECT_EQ(out[px * 3 + k], std::clamp(s, -128, 127));
    }
}
