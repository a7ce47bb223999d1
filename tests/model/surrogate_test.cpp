// The surrogate's closed-form access counts equal the tile-program walk exactly, over
// thousands of random small layers and mappings; its cycles track the reference schedule.
#include "mapwright/model/surrogate.hpp"

#include <gtest/gtest.h>

#include "test_layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/model/refined.hpp"
#include "mapwright/model/schedule.hpp"

using namespace mapwright;
using namespace mapwright::core;

namespace {

Arch small_arch(std::mt19937_64& rng) {
  Arch a;
  a.name = "prop";
  a.rows = std::uniform_int_distribution<int>(2, 8)(rng);
  a.cols = std::uniform_int_distribution<int>(2, 8)(rng);
  a.input_buf_bytes = 1 << 20;
  a.weight_buf_bytes = 1 << 20;
  a.accum_buf_bytes = 1 << 20;
  a.dram_bytes_per_cycle = std::uniform_int_distribution<int>(1, 16)(rng);
  a.dram_latency_cycles = std::uniform_int_distribution<int>(0, 50)(rng);
  return a;
}

Layer random_layer(std::mt19937_64& rng) {
  return test_layers::random_layer(rng, {/*hw=*/9, /*conv_k=*/9, /*conv_c=*/7, /*group=*/4,
                                         /*gemm=*/20});
}

/// The sample of the real-layer cycle tests: random valid mappings (seed 1) of every unique
/// ResNet-18 and MobileNet-v2 layer on the default 16x16 architecture, 400 draws, of which those
/// with at most 3000 steps are kept (quick to walk). Calls f(layer, arch, mapping, counts) for
/// each and returns how many. `port`: the architecture's DRAM port.
template <class F>
int for_each_real_layer_mapping(F f, DramPort port = DramPort::Packed) {
  Arch arch = load_arch("default-ideal");
  arch.dram_port = port;
  std::vector<Layer> layers;
  for (const char* net : {"resnet18", "mobilenet_v2"})
    for (const auto& [l, count] : zoo_network(net).unique_layers()) layers.push_back(l);
  std::mt19937_64 rng(1);
  int n = 0;
  for (int i = 0; i < 400; ++i) {
    const Layer& layer = layers[i % layers.size()];
    const MapSpace space(layer, arch);
    ParamVector v;
    if (!space.sample_valid(rng, v)) {
      ADD_FAILURE() << "no valid mapping sampled for " << layer.name;
      continue;
    }
    const Mapping m = space.decode(v);
    const AccessCounts c = model::closed_form_counts(layer, arch, m);
    if (c.steps > 3000) continue;
    f(layer, arch, m, c);
    ++n;
  }
  return n;
}

}  // namespace

TEST(SurrogateCounts, ClosedFormEqualsWalkOnRandomLayersAndMappings) {
  std::mt19937_64 rng(12345);
  int checked = 0, with_spills = 0, with_reloads_of_inputs = 0, with_padding = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const Arch arch = small_arch(rng);
    const Layer layer = random_layer(rng);
    const MapSpace space(layer, arch);
    const Mapping m = space.decode(space.sample_naive(rng));
    const AccessCounts walk = count_by_walk(layer, arch, m);
    const AccessCounts closed = model::closed_form_counts(layer, arch, m);
    const auto wf = walk.fields(), cf = closed.fields();
    for (size_t i = 0; i < wf.size(); ++i)
      ASSERT_EQ(wf[i].second, cf[i].second)
          << wf[i].first << " differs for " << layer.describe() << "\n"
          << mapping_to_yaml(m);
    ASSERT_EQ(walk.macs, layer.macs());
    ++checked;
    with_spills += walk.psum_spills > 0;
    with_reloads_of_inputs += walk.input_loads > walk.steps / 2;
    with_padding += layer.pad > 0;
  }
  EXPECT_EQ(checked, 4000);
  // The random cases must exercise the interesting paths, or the equality proves little.
  EXPECT_GT(with_spills, 400);
  EXPECT_GT(with_reloads_of_inputs, 400);
  EXPECT_GT(with_padding, 400);
}

// The closed form's compute total equals the reference schedule's. Under the burst port its DMA
// total (latencies plus the burst beats of every transfer, summed per tensor over tile classes
// and positions) equals the schedule's sum over its transfers of core::transfer_cycles too, on
// random small layers (padding, strides above the filter, groups, batches, remainders), and
// exceeds the packed port's on many of them.
TEST(SurrogateCounts, ComputeCyclesEqualScheduleSum) {
  std::mt19937_64 rng(777);
  int longer = 0;
  for (int iter = 0; iter < 1000; ++iter) {
    Arch arch = small_arch(rng);
    const Layer layer = random_layer(rng);
    const MapSpace space(layer, arch);
    const Mapping m = space.decode(space.sample_naive(rng));
    const AccessCounts c = model::closed_form_counts(layer, arch, m);
    const auto est = model::closed_form_cycles(layer, arch, m, c);
    const auto sched = model::simulate_schedule(layer, arch, m);
    ASSERT_EQ(est.compute_cycles, sched.compute_cycles) << mapping_to_yaml(m);
    // The end-to-end time can never be below the busier engine.
    ASSERT_GE(sched.cycles, std::max(sched.compute_cycles, sched.dma_cycles));
    arch.dram_port = DramPort::Bursts;
    const auto est_b = model::closed_form_cycles(layer, arch, m, c);
    const auto sched_b = model::simulate_schedule(layer, arch, m);
    ASSERT_EQ(est_b.dma_cycles, sched_b.dma_cycles) << layer.describe() << "\n"
                                                    << mapping_to_yaml(m);
    ASSERT_EQ(est_b.compute_cycles, sched_b.compute_cycles);
    longer += sched_b.dma_cycles > sched.dma_cycles;
  }
  EXPECT_GT(longer, 300);
}

TEST(SurrogateCycles, TracksReferenceScheduleOnRealLayers) {
  // Error statistics of the closed-form cycle estimate against the walked reference schedule
  // (which the RTL reproduces cycle for cycle) over the real-layer sample.
  double sum_err = 0, max_err = 0;
  model::Surrogate s;
  const int n = for_each_real_layer_mapping(
      [&](const Layer& layer, const Arch& arch, const Mapping& m, const AccessCounts&) {
        const Metrics r = s.evaluate(layer, arch, m);
        const auto sched = model::simulate_schedule(layer, arch, m);
        const double err = std::abs(static_cast<double>(r.cycles - sched.cycles)) / sched.cycles;
        sum_err += err;
        max_err = std::max(max_err, err);
      });
  ASSERT_GT(n, 250);
  const double mape = 100 * sum_err / n;
  std::printf("closed-form vs reference schedule: MAPE %.2f%%, max %.1f%% over %d mappings\n", mape,
              100 * max_err, n);
  EXPECT_LT(mape, 2.0) << "closed-form cycles drifted from the reference schedule";
}

TEST(Surrogate, InvalidMappingIsTypedResult) {
  const Layer layer = test_layers::conv(64, 64, 56, 3, 1, 1);
  Arch arch;
  arch.accum_buf_bytes = 1024;
  Mapping m = default_mapping(layer, arch);
  m.tile[static_cast<int>(Dim::K)] = 64;
  m.tile[static_cast<int>(Dim::P)] = 56;
  m.tile[static_cast<int>(Dim::Q)] = 56;
  model::Surrogate s;
  const Metrics r = s.evaluate(layer, arch, m);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.invalid, InvalidKind::AccumOverflow);
  EXPECT_NE(r.reason.find("accumulator buffer overflows by"), std::string::npos) << r.reason;
}

// The refined estimate over the same sample as SurrogateCycles above.
TEST(RefinedCycles, TracksReferenceScheduleOnRealLayers) {
  double sum_err = 0, max_err = 0, sum_closed = 0;
  const int n = for_each_real_layer_mapping([&](const Layer& layer, const Arch& arch,
                                                const Mapping& m, const AccessCounts& c) {
    const auto closed = model::closed_form_cycles(layer, arch, m, c);
    const auto refined = model::refined_cycles(layer, arch, m);
    const auto sched = model::simulate_schedule(layer, arch, m);
    // Same exact totals as the closed form.
    EXPECT_EQ(refined.compute_cycles, closed.compute_cycles);
    EXPECT_EQ(refined.dma_cycles, closed.dma_cycles);
    const double err = std::abs(static_cast<double>(refined.cycles - sched.cycles)) / sched.cycles;
    sum_closed += std::abs(static_cast<double>(closed.cycles - sched.cycles)) / sched.cycles;
    sum_err += err;
    max_err = std::max(max_err, err);
  });
  ASSERT_GT(n, 250);
  std::printf(
      "refined vs reference schedule: MAPE %.2f%%, max %.1f%% over %d mappings "
      "(closed form MAPE %.2f%%)\n",
      100 * sum_err / n, 100 * max_err, n, 100 * sum_closed / n);
  EXPECT_LT(100 * sum_err / n, 0.5);
  EXPECT_LT(100 * max_err, 10.0);
  EXPECT_LT(sum_err, sum_closed) << "the refined estimate is no better than the closed form";
}

// The same sample under the burst port: both estimates against the schedule that times every
// transfer by its burst beats.
TEST(RefinedCycles, TracksReferenceScheduleUnderBurstPort) {
  double sum_err = 0, max_err = 0, sum_closed = 0, max_closed = 0;
  long long longer = 0;
  const int n = for_each_real_layer_mapping(
      [&](const Layer& layer, const Arch& arch, const Mapping& m, const AccessCounts& c) {
        const auto closed = model::closed_form_cycles(layer, arch, m, c);
        const auto refined = model::refined_cycles(layer, arch, m);
        const auto sched = model::simulate_schedule(layer, arch, m);
        EXPECT_EQ(closed.dma_cycles, sched.dma_cycles);
        const double err =
            std::abs(static_cast<double>(refined.cycles - sched.cycles)) / sched.cycles;
        const double cerr =
            std::abs(static_cast<double>(closed.cycles - sched.cycles)) / sched.cycles;
        sum_err += err;
        max_err = std::max(max_err, err);
        sum_closed += cerr;
        max_closed = std::max(max_closed, cerr);
        Arch packed = arch;
        packed.dram_port = DramPort::Packed;
        longer += sched.cycles > model::simulate_schedule(layer, packed, m).cycles;
      },
      DramPort::Bursts);
  ASSERT_GT(n, 250);
  std::printf(
      "burst port, vs reference schedule over %d mappings: refined MAPE %.2f%%, max %.1f%%; "
      "closed form MAPE %.2f%%, max %.1f%%; %lld slower than packed\n",
      n, 100 * sum_err / n, 100 * max_err, 100 * sum_closed / n, 100 * max_closed, longer);
  EXPECT_GT(longer, n / 4);
  EXPECT_LT(100 * sum_err / n, 0.5);
  EXPECT_LT(100 * max_err, 10.0);
  EXPECT_LT(sum_err, sum_closed);
}

// On random small layers and architectures (latency 0..50, 1..16 bytes per cycle): never below
// the busier engine, exact for a single step, and close to the schedule on average.
TEST(RefinedCycles, BoundedAndExactForOneStep) {
  std::mt19937_64 rng(99);
  double sum_err = 0;
  int n = 0, single = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    const Arch arch = small_arch(rng);
    const Layer layer = random_layer(rng);
    const MapSpace space(layer, arch);
    const Mapping m = space.decode(space.sample_naive(rng));
    const auto refined = model::refined_cycles(layer, arch, m);
    const auto sched = model::simulate_schedule(layer, arch, m);
    ASSERT_GE(refined.cycles, std::max(refined.compute_cycles, refined.dma_cycles))
        << mapping_to_yaml(m);
    if (model::closed_form_counts(layer, arch, m).steps == 1) {
      // Load, load, compute, store in sequence; only the per-transfer rounding of
      // ceil(bytes / bandwidth) can differ.
      EXPECT_NEAR(static_cast<double>(refined.cycles), static_cast<double>(sched.cycles), 3.0)
          << mapping_to_yaml(m);
      ++single;
    }
    sum_err += std::abs(static_cast<double>(refined.cycles - sched.cycles)) / sched.cycles;
    ++n;
  }
  std::printf(
      "refined vs reference schedule on %d random small layers: MAPE %.2f%% (%d with one "
      "step)\n",
      n, 100 * sum_err / n, single);
  EXPECT_GT(single, 10);
  EXPECT_LT(100 * sum_err / n, 1.0);
}
