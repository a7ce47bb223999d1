// End-to-end RTL tests on the pin-level SystemC testbench: random layers and mappings on the
// Verilated accelerator. Every run must be bit-exact against the C++ reference, every counter
// must equal model::closed_form_counts, and the cycles are compared with the reference schedule
// (model::simulate_schedule) and the surrogate. Each test runs in its own process (one SystemC
// simulation, one architecture per process). The failures are in rtl_failures_test.cpp, the
// decoupled and automatic harnesses in rtl_harness_test.cpp.
#include "mapwright/systemc/rtl_evaluator.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "mapwright/core/dram_layout.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/model/schedule.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/rtlpool/run_admission.hpp"
#include "rtl_checks.hpp"
#include "test_layers.hpp"

using namespace mapwright::systemc_test::names;  // also mapwright and mapwright::core

TEST(RtlSmall4, DefaultMappingOfASmallConvIsExact) {
  const Arch arch = arch_named("small4");
  const Layer l = conv(1, 1, 6, 5, 6, 6, 3, 3, 1, 1);
  const Mapping m = default_mapping(l, arch);
  RtlEvaluator ev;
  const RtlRunResult r = run_admitted(ev, l, arch, m);
  ASSERT_EQ(r.failure, "");
  EXPECT_TRUE(r.functional_ok) << r.mismatches << " mismatches";
  expect_counts_equal(r.counts, model::closed_form_counts(l, arch, m), describe(l, m));
  EXPECT_EQ(r.cycles, model::simulate_schedule(l, arch, m).cycles);
  EXPECT_TRUE(r.metrics.valid);
  EXPECT_EQ(r.metrics.cycles, r.cycles);
  EXPECT_GT(r.metrics.energy_pj, 0);
}

TEST(RtlSmall4, RandomLayersAndMappingsAreExact) {
  random_sweep("small4", 11, 400, 9);
}

TEST(RtlSmall4, RandomDramStallsChangeCyclesButNotResultsOrCounts) {
  random_sweep("small4", 12, 100, 8, 0.3);
}

TEST(RtlSmall4, StallsOnOneMappingKeepResultsAndCounts) {
  const Arch arch = arch_named("small4");
  const Layer l = conv(2, 1, 7, 6, 7, 5, 3, 3, 2, 1);
  Mapping m = default_mapping(l, arch);
  m.tile[static_cast<int>(Dim::C)] = 2;  // reduction tiles: spills and reloads
  m.tile[static_cast<int>(Dim::K)] = 3;
  m.order = {Dim::C, Dim::N, Dim::K, Dim::P, Dim::Q, Dim::R, Dim::S};
  m.db_input = m.db_weight = true;
  RtlEvaluator ev;
  const RtlRunResult a = run_admitted(ev, l, arch, m);
  RtlRunOptions o;
  o.stall_prob = 0.4;
  o.seed = 1;
  const RtlRunResult b = run_admitted(ev, l, arch, m, o);
  ASSERT_EQ(a.failure, "");
  ASSERT_EQ(b.failure, "");
  EXPECT_TRUE(a.functional_ok);
  EXPECT_TRUE(b.functional_ok);
  expect_counts_equal(b.counts, a.counts, "stalled vs unstalled");
  EXPECT_GT(a.counts.psum_spills, 0);
  EXPECT_GT(b.cycles, a.cycles);
  EXPECT_GT(b.dram_stall_cycles, 0);
}

// The bursts DRAM port: the RTL DMA generates every address (one burst per DRAM run, from the
// command's descriptor) and the DRAM model is a plain byte memory; bit-exact outputs prove the
// addresses, and the cycles equal the reference schedule timed with core::transfer_cycles.
TEST(RtlSmall4Bursts, RandomLayersAndMappingsAreExact) {
  random_sweep("small4", 41, 300, 9, 0, DramPort::Bursts);
}

TEST(RtlSmall4Bursts, RandomDramStallsChangeCyclesButNotResultsOrCounts) {
  random_sweep("small4", 42, 100, 8, 0.3, DramPort::Bursts);
}

TEST(RtlDefaultBursts, RandomLayersAndMappingsAreExact) {
  random_sweep("default", 43, 30, 14, 0, DramPort::Bursts);
}

// A mapping with an input tile the bursts port cannot describe (stride 3 above a filter tile
// of 1, rows cut by the padding) is a typed invalid result before anything is simulated, with
// the reason core::check_valid gives; the surrogate calls it invalid with the same kind.
TEST(RtlSmall4Bursts, MappingWithoutADescriptorIsInvalidBeforeSimulation) {
  Arch arch = arch_named("small4");
  arch.dram_port = DramPort::Bursts;
  const Layer l = conv(1, 1, 8, 6, 9, 9, 3, 3, 3, 1);
  const MapSpace space(l, arch);
  std::mt19937_64 rng(5);
  Mapping m;
  bool found = false;
  for (int i = 0; i < 2000 && !found; ++i) {
    m = space.decode(space.sample_naive(rng));
    found = check_capacity(l, arch, m).ok() && !descriptor_problem(l, arch, m).empty();
  }
  ASSERT_TRUE(found) << "no mapping without a descriptor drawn";
  EXPECT_NE(burst_descriptor_problem(l, arch, m), "");
  RtlEvaluator ev;
  const RtlRunResult r = run_admitted(ev, l, arch, m);
  EXPECT_EQ(r.kind, RtlFailure::Invalid) << r.failure;
  EXPECT_EQ(r.metrics.invalid, InvalidKind::Descriptor);
  EXPECT_EQ(r.failure.rfind("invalid: dram.port bursts: ", 0), 0u) << r.failure;
  EXPECT_NE(r.failure.find("a load_input has"), std::string::npos) << r.failure;
  EXPECT_EQ(r.cycles, 0);
  const Metrics s = model::Surrogate().evaluate(l, arch, m);
  EXPECT_FALSE(s.valid);
  EXPECT_EQ(s.invalid, InvalidKind::Descriptor);
  EXPECT_EQ(s.reason, r.metrics.reason);
}

// Banked input and weight buffers (mw_bank_buf, registered reads, a stall per bank conflict):
// bit-exact, the cycles equal the reference schedule with model::OpBankCycles, and the bank
// and array stall counters equal the surrogate's closed form. small4-banked has 8 banks for 4
// lanes, so conflicts are frequent; default-banked 17 for 16.
TEST(RtlSmall4Banked, RandomLayersAndMappingsAreExact) {
  random_sweep("small4-banked", 51, 300, 9);
}

TEST(RtlSmall4Banked, RandomDramStallsChangeCyclesButNotResultsOrCounts) {
  random_sweep("small4-banked", 52, 100, 8, 0.3);
}

TEST(RtlSmall4Banked, BurstsPortRandomLayersAndMappingsAreExact) {
  random_sweep("small4-banked", 53, 100, 9, 0, DramPort::Bursts);
}

TEST(RtlDefaultBanked, RandomLayersAndMappingsAreExact) {
  random_sweep("default-banked", 54, 30, 14);
}

// default (configs/arch): both realistic options at 16x16 on default-banked's model.
TEST(RtlDefault, RandomLayersAndMappingsAreExact) {
  ASSERT_EQ(arch_named("default").dram_port, DramPort::Bursts);
  ASSERT_EQ(arch_named("default").buffer_banks, 17);
  random_sweep("default", 59, 30, 14, 0, DramPort::Bursts);
}

TEST(RtlSmall8, RandomLayersAndMappingsAreExact) {
  random_sweep("small8", 21, 150, 12);
}

TEST(RtlDefaultIdeal, RandomLayersAndMappingsAreExact) {
  random_sweep("default-ideal", 31, 30, 14);
}

namespace {

/// The compiled model for architecture `name` reports the RTL parameters its spec asked for.
void expect_reported_params(const std::string& name) {
  const Arch arch = arch_named(name);
  systemc::RtlParams p;
  std::string failure;
  RtlEvaluator ev;
  ASSERT_TRUE(ev.read_params(arch, p, failure)) << failure;
  EXPECT_EQ(p.rows, arch.rows);
  EXPECT_EQ(p.cols, arch.cols);
  EXPECT_EQ(p.input_buf_bytes, arch.input_buf_bytes);
  EXPECT_EQ(p.weight_buf_bytes, arch.weight_buf_bytes);
  EXPECT_EQ(p.accum_buf_words, arch.accum_buf_bytes / 4);
  EXPECT_EQ(p.beat_bytes, static_cast<long long>(arch.dram_bytes_per_cycle));
  EXPECT_EQ(p.max_bursts, core::kRtlMaxBursts);  // what require_rtl_dram_port assumes
}

}  // namespace

TEST(RtlDefault, ReportsTheParametersItsSpecAskedFor) {
  expect_reported_params("default");
}

TEST(RtlSmall4, ReportsTheParametersItsSpecAskedFor) {
  expect_reported_params("small4");
  EXPECT_EQ(arch_named("small4").rows, 4);
}

TEST(RtlSmall8, ReportsTheParametersItsSpecAskedFor) {
  expect_reported_params("small8");
  EXPECT_EQ(arch_named("small8").cols, 8);
}

// The compiled-in models are built without tracing (a traced twin comes from the model cache,
// `mapwright verify --trace`, tested in tests/apps): a trace asked of them is a typed Trace
// result after a complete, checked run, and no file appears.
TEST(RtlSmall4, UntracedModelRefusesATraceAsATypedResult) {
  const Arch arch = arch_named("small4");
  const Layer l = conv(1, 1, 3, 2, 4, 4, 3, 3, 1, 1);
  RtlEvaluator ev;
  RtlRunOptions o;
  const std::string path =
      (std::filesystem::temp_directory_path() / "mapwright_rtl_trace_test.fst").string();
  std::filesystem::remove(path);
  o.trace_file = path;
  const RtlRunResult r = run_admitted(ev, l, arch, default_mapping(l, arch), o);
  EXPECT_EQ(r.kind, RtlFailure::Trace);
  EXPECT_NE(r.failure.find("built without tracing"), std::string::npos) << r.failure;
  EXPECT_TRUE(r.functional_ok);
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Simulation speed of the 16x16 model on a mid-size conv (prints simulated cycles per second).
TEST(RtlDefault, MidSizeConvIsExactAndReportsSpeed) {
  const Arch arch = arch_named("default");
  const Layer l = conv(1, 1, 32, 32, 14, 14, 3, 3, 1, 1);
  Mapping m = default_mapping(l, arch);
  m.db_input = m.db_weight = true;
  RtlEvaluator ev;
  for (Dataflow df : {Dataflow::WS, Dataflow::OS}) {
    m.dataflow = df;
    const RtlRunResult r = run_admitted(ev, l, arch, m);
    ASSERT_EQ(r.failure, "");
    EXPECT_TRUE(r.functional_ok);
    expect_counts_equal(r.counts, model::closed_form_counts(l, arch, m), describe(l, m));
    EXPECT_EQ(r.cycles, model::simulate_schedule(l, arch, m).cycles);
    std::printf("[default] %s %s: %lld cycles (array busy %lld), %.3f s, %.0f simulated cycles/s\n",
                dataflow_name(df), l.describe().c_str(), r.cycles, r.array_busy_cycles,
                r.sim_seconds, static_cast<double>(r.cycles) / r.sim_seconds);
  }
}
