// Tests of the driver side (plain C++): the command program's DMA segment lists against the
// tile program.
#include "mapwright/systemc/command_program.hpp"

#include <gtest/gtest.h>

#include <random>

#include "mapwright/mapspace/mapspace.hpp"

using namespace mapwright;
using namespace mapwright::systemc;

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
