// Simulation limits (rtl::SimLimits, admitted by rtlpool::admit_run before the simulator builds
// anything): a run over the predicted-cycle or memory bound is a typed "limit: ..." result that
// starts nothing (no allocation, no simulation); the memory estimate bounds what a run really
// allocates (and is not absurdly larger); the wall-clock bound stops a stuck simulation on the
// SystemC testbench. Each test runs in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>
#include <string>

#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/model/schedule.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/rtlpool/run_admission.hpp"
#include "mapwright/systemc/command_program.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"
#include "test_layers.hpp"

using namespace mapwright;
using namespace mapwright::core;
using rtl::RtlRunResult;
using rtlpool::run_admitted;
using systemc::CommandProgram;
using systemc::RtlEvaluator;
using systemc::RtlRunOptions;
using systemc_test::arch_named;
using systemc_test::square_conv;

namespace {

/// Every tile 1, one PE: the most commands a layer can have.
Mapping all_ones() {
  return Mapping{};
}

/// What the run really allocates for its program, DRAM image, operands and reference (vector
/// capacities, as the heap sees them).
double actual_bytes(const Layer& l, const CommandProgram& p) {
  double b = static_cast<double>(p.words.capacity() * sizeof(uint64_t) + p.last.capacity() +
                                 p.dma.capacity() * sizeof(systemc::DmaJob));
  for (const auto& j : p.dma)
    b += static_cast<double>(j.segments.capacity() * sizeof(systemc::DramSegment));
  b += static_cast<double>(p.dram.bytes);
  b += static_cast<double>(l.input_elems() + l.weight_elems() + l.output_elems());
  return b;
}

}  // namespace

TEST(SimLimitsSmall4, OverMaxCyclesIsATypedLimitResultJustAboveRuns) {
  const Arch arch = arch_named("small4");
  const Layer l = square_conv(1, 3, 2, 4, 3, 1, 1);
  const Mapping m = all_ones();
  const long long predicted = model::simulate_schedule(l, arch, m).cycles;
  ASSERT_GT(predicted, 1);
  RtlEvaluator rtl;
  RtlRunOptions o;
  o.limits.max_cycles = predicted - 1;
  const RtlRunResult over = run_admitted(rtl, l, arch, m, o);
  EXPECT_TRUE(over.over_limit());
  EXPECT_FALSE(over.ok());
  EXPECT_EQ(over.predicted_cycles, predicted);
  EXPECT_EQ(over.failure, "limit: predicted " + std::to_string(predicted) +
                              " cycles > max_cycles " + std::to_string(predicted - 1) +
                              " (raise it with --sim-max-cycles)");
  EXPECT_EQ(over.sim_cycles, 0) << "nothing was simulated";
  EXPECT_FALSE(over.metrics.valid);
  EXPECT_EQ(over.metrics.reason, over.failure);

  o.limits.max_cycles = predicted;  // equal is within the limit
  const RtlRunResult ran = run_admitted(rtl, l, arch, m, o);
  EXPECT_TRUE(ran.ok()) << ran.failure;
  EXPECT_FALSE(ran.over_limit());
  EXPECT_EQ(ran.predicted_cycles, predicted);
  EXPECT_GT(ran.estimated_memory_mb, 0);
}

TEST(SimLimits, MemoryEstimateBoundsTheActualAllocation) {
  // No simulation: build_program is what allocates with the mapping's size.
  std::mt19937_64 rng(7);
  int checked = 0;
  double lo = 1e9, hi = 0;  // range of estimate / actual
  for (const std::string arch_name : {"small4", "small8"}) {
    const Arch arch = arch_named(arch_name);
    for (const Layer& l : {square_conv(1, 8, 4, 8, 3, 1, 1), square_conv(1, 5, 3, 9, 3, 2, 1),
                           square_conv(2, 3, 4, 7, 3, 1, 1), square_conv(1, 16, 16, 6, 1, 1, 0),
                           square_conv(4, 1, 1, 10, 3, 2, 1)}) {
      std::vector<Mapping> maps = {all_ones(), default_mapping(l, arch)};
      const MapSpace space(l, arch);
      for (int i = 0; i < 12; ++i) {
        ParamVector v;
        if (space.sample_valid(rng, v)) maps.push_back(space.decode(v));
      }
      for (const Mapping& m : maps) {
        CommandProgram p;
        std::string err;
        ASSERT_TRUE(systemc::build_program(l, arch, m, 8, p, err)) << err;
        const double actual = actual_bytes(l, p);
        const double est =
            systemc::estimate_run_memory(l, arch, m, model::closed_form_counts(l, arch, m)).total();
        EXPECT_GE(est, actual) << l.describe() << "\n" << mapping_to_yaml(m);
        EXPECT_LE(est, 4 * actual + 65536) << l.describe() << "\n" << mapping_to_yaml(m);
        EXPECT_EQ(systemc::estimate_run_memory(l, arch, m, model::closed_form_counts(l, arch, m))
                      .dram_bytes,
                  static_cast<double>(p.dram.bytes));
        lo = std::min(lo, est / actual);
        hi = std::max(hi, est / actual);
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 100);
  std::cout << checked << " mappings: estimate / actual in [" << lo << ", " << hi << "]\n";
}

TEST(SimLimitsSmall4, OverMaxMemoryReturnsAtOnceWithoutAllocating) {
  // Every tile 1 on a big conv: ~7e9 tile steps, far beyond memory (today: std::bad_alloc).
  const Arch arch = arch_named("small4");
  const Layer l = square_conv(1, 512, 512, 56, 3, 1, 1);
  RtlEvaluator rtl;
  const auto t0 = std::chrono::steady_clock::now();
  const RtlRunResult r = run_admitted(rtl, l, arch, all_ones());
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 2.0) << "the limit is checked before anything is built";
  EXPECT_TRUE(r.over_limit());
  EXPECT_EQ(r.failure.rfind("limit: estimated ", 0), 0u) << r.failure;
  EXPECT_NE(r.failure.find(" MB of memory > max_memory_mb 4096 (raise it with "
                           "--sim-max-memory-mb)"),
            std::string::npos)
      << r.failure;
  EXPECT_GT(r.estimated_memory_mb, 4096);
  EXPECT_EQ(r.predicted_cycles, 0) << "the schedule walk is not started either";
}

TEST(SimLimitsSmall4, OverMaxMemoryOnASmallLayerNamesTheEstimate_bad) {
  const Arch arch = arch_named("small4");
  const Layer l = square_conv(1, 8, 4, 8, 3, 1, 1);
  RtlEvaluator rtl;
  RtlRunOptions o;
  o.limits.max_memory_mb = 1;
  const double est_mb = systemc::estimate_run_memory(l, arch, all_ones(),
                                                     model::closed_form_counts(l, arch, all_ones()))
                            .total() /
                        1048576.0;
  ASSERT_GT(est_mb, 1) << "pick a bigger layer";
  const RtlRunResult r = run_admitted(rtl, l, arch, all_ones(), o);
  EXPECT_TRUE(r.over_limit());
  EXPECT_DOUBLE_EQ(r.estimated_memory_mb, est_mb);
  EXPECT_EQ(r.failure.rfind("limit: estimated ", 0), 0u) << r.failure;
}

TEST(SimLimitsSmall4Bad, StuckDesignStopsAtTheWallClockLimit) {
  const Arch arch = arch_named("small4");
  RtlEvaluator rtl;
  RtlRunOptions o;
  o.drop_dram_responses = true;
  o.watchdog_cycles = 1'000'000'000;  // would run for minutes
  o.limits.max_seconds = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  const RtlRunResult r = run_admitted(rtl, square_conv(1, 8, 4, 8, 3, 1, 1), arch, all_ones(), o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.over_limit());
  EXPECT_EQ(r.failure, "limit: simulation exceeded 0.3 s wall clock (--sim-max-seconds)");
  EXPECT_LT(took, 5.0);
  // The host is reusable: the next run resets it and completes.
  const RtlRunResult next = run_admitted(rtl, square_conv(1, 8, 4, 8, 3, 1, 1), arch, all_ones());
  EXPECT_TRUE(next.ok()) << next.failure;
}
