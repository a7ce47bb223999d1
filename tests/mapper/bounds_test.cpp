// The branch-and-bound bounds are admissible: on thousands of random small layers, random
// architectures (banked buffers and the burst port among them) and random mappings (fixed seed),
// the cycle and energy bounds of the mapping with a random subset of its fields fixed never exceed
// the surrogate's cycles and energy of that mapping; with everything but the double-buffer flags
// fixed the energy bound is within the static term of the truth. The capacity pre-check never
// rejects a fitting mapping.
#include "mapwright/mapper/bounds.hpp"

#include <gtest/gtest.h>

#include "test_layers.hpp"

#include <random>

#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright;
using namespace mapwright::core;

namespace {

Arch random_arch(std::mt19937_64& rng) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Arch a;
  a.name = "prop";
  a.rows = u(1, 8);
  a.cols = u(1, 8);
  a.input_buf_bytes = u(16, 4096);
  a.weight_buf_bytes = u(16, 4096);
  a.accum_buf_bytes = u(64, 8192);
  a.dram_bytes_per_cycle = u(1, 16);
  a.dram_latency_cycles = u(0, 100);
  if (u(0, 3) == 0) a.dataflows = {static_cast<Dataflow>(u(0, 2))};  // one of WS, OS, IS
  // Banked buffers (2 to 17 banks, prime and not) on a third, the burst port on a quarter.
  if (u(0, 2) == 0) a.buffer_banks = u(2, 17);
  if (u(0, 3) == 0) a.dram_port = DramPort::Bursts;
  return a;
}

Layer random_layer(std::mt19937_64& rng) {
  return test_layers::random_layer(rng, {/*hw=*/12, /*conv_k=*/12, /*conv_c=*/9, /*group=*/5,
                                         /*gemm=*/30});
}

/// Fixes every field of the partial mapping (`all`) or a random subset (dataflow, PE use, each
/// tile, order in turn).
void fix_fields(mapper::Partial& p, bool all, std::mt19937_64& rng) {
  p.dataflow = all || rng() % 2;
  p.pe = all || rng() % 2;
  for (auto& f : p.tile) f = all || rng() % 2;
  p.order = all || rng() % 2;
}

}  // namespace

TEST(Bounds, NeverExceedTheSurrogate) {
  std::mt19937_64 rng(2024);
  model::Surrogate sur;
  int checked = 0, fitting = 0;
  for (int iter = 0; iter < 6000; ++iter) {
    const Arch a = random_arch(rng);
    const Layer l = random_layer(rng);
    const MapSpace space(l, a);
    Mapping m = space.decode(space.sample_naive(rng));
    if (!a.supports(m.dataflow)) m.dataflow = a.dataflows.front();
    const Metrics met = sur.evaluate(l, a, m);
    const mapper::LowerBound lb(l, a);
    mapper::Partial p;
    p.m = m;
    const bool fits = met.valid;
    for (int trial = 0; trial < 4; ++trial) {
      const bool all = trial == 0;
      fix_fields(p, all, rng);
      if (fits) {
        EXPECT_TRUE(lb.may_fit(p)) << l.describe();
      }
      if (!fits) continue;
      const mapper::Bounds b = lb.bounds(p);
      ASSERT_LE(b.cycles, static_cast<double>(met.cycles)) << l.describe() << "\n"
                                                           << mapping_to_yaml(m);
      ASSERT_LE(b.energy, met.energy_pj) << l.describe() << "\n" << mapping_to_yaml(m);
      if (all) {
        // Everything but double buffering fixed: counts are exact, only static energy of the
        // cycles above the bound is missing.
        const double stat = a.energy.pe_static_pj * m.pe_rows * m.pe_cols *
                            (static_cast<double>(met.cycles) - b.cycles);
        EXPECT_NEAR(b.energy, met.energy_pj - stat, 1e-6 * met.energy_pj);
      }
      ++checked;
    }
    fitting += fits;
  }
  EXPECT_GT(fitting, 1000);
  EXPECT_GT(checked, 4000);
}

TEST(Bounds, NeverExceedTheSurrogateOnZooLayers) {
  std::mt19937_64 rng(77);
  model::Surrogate sur;
  int checked = 0;
  // The idealized array and the realistic default (17 banks, the burst port).
  for (const char* arch : {"default-ideal", "default"})
    for (const char* net : {"resnet50", "mobilenet_v2", "bert_base_s128", "vgg16"}) {
      const Arch a = load_arch(arch);
      for (const auto& [l, count] : zoo_network(net).unique_layers()) {
        (void)count;
        const MapSpace space(l, a);
        const mapper::LowerBound lb(l, a);
        ParamVector v;
        for (int i = 0; i < 40; ++i) {
          if (!space.sample_valid(rng, v, 200000)) break;
          mapper::Partial p;
          p.m = space.decode(v);
          const Metrics met = sur.evaluate(l, a, p.m);
          for (int trial = 0; trial < 4; ++trial) {
            const bool all = trial == 0;
            fix_fields(p, all, rng);
            EXPECT_TRUE(lb.may_fit(p));
            const mapper::Bounds b = lb.bounds(p);
            ASSERT_LE(b.cycles, static_cast<double>(met.cycles)) << l.name;
            ASSERT_LE(b.energy, met.energy_pj) << l.name;
            ++checked;
          }
        }
      }
    }
  EXPECT_GT(checked, 10000);
}
