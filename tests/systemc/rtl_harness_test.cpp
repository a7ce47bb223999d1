// The temporally decoupled SystemC harness (RtlHarness::Decoupled) and the automatic choice of
// harness (RtlHarness::Auto): the same RTL, driver and DRAM model as the pin-level testbench,
// every check of its sweeps and failures, SystemC time that advances by exactly each job's
// cycles, other SystemC processes that run during a job, and one SystemC harness per process.
// Each test runs in its own process.
#include "mapwright/systemc/rtl_evaluator.hpp"

#include <gtest/gtest.h>
#include <systemc.h>
#include <tlm.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/model/schedule.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/rtlpool/run_admission.hpp"
#include "rtl_checks.hpp"
#include "test_layers.hpp"

using namespace mapwright::systemc_test::names;  // also mapwright and mapwright::core

// The temporally decoupled SystemC harness: the same RTL (a plain model), driver and DRAM model,
// stepped by one SystemC thread that meets SystemC time once per quantum. Everything the
// pin-level testbench's sweeps check holds, and SystemC time advances by exactly the job's cycles.
TEST(RtlSmall4Decoupled, RandomLayersAndMappingsAreExact) {
  random_sweep("small4", 61, 200, 9, 0, DramPort::Packed, RtlHarness::Decoupled);
}

TEST(RtlSmall4Decoupled, BurstsPortWithDramStallsIsExact) {
  random_sweep("small4", 62, 60, 8, 0.3, DramPort::Bursts, RtlHarness::Decoupled);
}

TEST(RtlDefaultDecoupled, RandomLayersAndMappingsAreExact) {
  random_sweep("default", 63, 20, 14, 0, DramPort::Packed, RtlHarness::Decoupled);
}

// Banked buffers in the decoupled harness: bank-stall counters equal to the surrogate's too.
TEST(RtlSmall4BankedDecoupled, BurstsPortWithDramStallsIsExact) {
  random_sweep("small4-banked", 64, 100, 9, 0.3, DramPort::Bursts, RtlHarness::Decoupled);
}

TEST(RtlDefaultBankedDecoupled, RandomLayersAndMappingsAreExact) {
  random_sweep("default-banked", 54, 30, 14, 0, DramPort::Packed, RtlHarness::Decoupled);
}

TEST(RtlSmall4Decoupled, AFailedAssertionIsATypedFailureNamingItAndTheCycle) {
  expect_assertion_then_clean_run(&RtlRunOptions::zero_compute_extent, RtlHarness::Decoupled);
}

TEST(RtlSmall4Decoupled, StuckDesignIsAWatchdogFailureThenTheNextRunWorks) {
  expect_watchdog_then_clean_run(RtlHarness::Decoupled);
}

TEST(RtlSmall4Decoupled, StuckDesignStopsAtTheWallClockLimit) {
  const Arch arch = arch_named("small4");
  const Layer l = conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1);
  RtlEvaluator ev;
  RtlRunOptions o = decoupled();
  o.drop_dram_responses = true;
  o.watchdog_cycles = 1'000'000'000;  // would run for minutes
  o.limits.max_seconds = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  const RtlRunResult r = run_admitted(ev, l, arch, default_mapping(l, arch), o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.over_limit()) << r.failure;
  EXPECT_EQ(r.failure, "limit: simulation exceeded 0.3 s wall clock (--sim-max-seconds)");
  EXPECT_LT(took, 5.0);
}

namespace {

/// A SystemC process beside the accelerator: wakes every `period` and records the time.
SC_MODULE(Ticker) {
  sc_core::sc_time period;
  std::vector<sc_core::sc_time> seen;
  SC_HAS_PROCESS(Ticker);
  Ticker(sc_core::sc_module_name nm, sc_core::sc_time p) : sc_module(nm), period(p) {
    SC_THREAD(tick);
  }
  void tick() {
    for (;;) {
      sc_core::wait(period);
      seen.push_back(sc_core::sc_time_stamp());
    }
  }
};

}  // namespace

// Another SystemC process runs during the job, at its own times (not after the job), and the
// quantum set by the platform is the one the harness uses; the job still ends at exactly its
// cycles times the clock period.
TEST(RtlSmall4Decoupled, OtherProcessesRunDuringTheJobAndTimeEndsExact) {
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(500, sc_core::SC_NS));  // 50 cycles
  Ticker ticker("ticker", sc_core::sc_time(1, sc_core::SC_US));  // before elaboration
  const Arch arch = arch_named("small4");
  const Layer l = conv(1, 1, 6, 5, 6, 6, 3, 3, 1, 1);
  const Mapping m = default_mapping(l, arch);
  RtlEvaluator ev;
  RtlRunOptions o = decoupled();
  const RtlRunResult r = run_admitted(ev, l, arch, m, o);
  ASSERT_EQ(r.failure, "");
  EXPECT_TRUE(r.functional_ok);
  EXPECT_EQ(r.cycles, model::simulate_schedule(l, arch, m).cycles);
  const sc_core::sc_time end = sc_core::sc_time_stamp();
  EXPECT_EQ(end, sc_core::sc_time(10.0 * static_cast<double>(r.sim_cycles), sc_core::SC_NS));
  // The ticker woke at every microsecond of the job, each at its own time.
  ASSERT_GT(r.sim_cycles, 1000);
  const auto want = static_cast<size_t>(end / sc_core::sc_time(1, sc_core::SC_US));
  ASSERT_EQ(ticker.seen.size(), want);
  for (size_t i = 0; i < want; ++i)
    EXPECT_EQ(ticker.seen[i], sc_core::sc_time(static_cast<double>(i + 1), sc_core::SC_US));
}

TEST(RtlSmall4Decoupled, ThePinLevelTestbenchInTheSameProcessIsATypedFailure) {
  RtlEvaluator ev;
  const Layer l = conv(1, 1, 4, 4, 4, 4, 1, 1, 1, 0);
  const Arch a4 = arch_named("small4");
  RtlRunOptions o = decoupled();
  ASSERT_EQ(run_admitted(ev, l, a4, default_mapping(l, a4), o).failure, "");
  const RtlRunResult r = run_admitted(ev, l, a4, default_mapping(l, a4));
  EXPECT_EQ(r.kind, RtlFailure::Arch);
  EXPECT_EQ(r.failure.rfind("arch: this process already elaborated the decoupled SystemC "
                            "harness for 'small4'",
                            0),
            0u)
      << r.failure;
  // The plain harness (no SystemC) still runs beside it.
  RtlRunOptions plain;
  plain.harness = RtlHarness::Plain;
  EXPECT_EQ(run_admitted(ev, l, a4, default_mapping(l, a4), plain).failure, "");
}

TEST(RtlLarge32Decoupled, ArchitectureWithoutAPlainModelIsATypedFailure) {
  const Arch a = arch_named("large32");
  const Layer l = conv(1, 1, 4, 4, 4, 4, 1, 1, 1, 0);
  RtlEvaluator ev;
  RtlRunOptions o = decoupled();
  const RtlRunResult r = run_admitted(ev, l, a, default_mapping(l, a), o);
  EXPECT_EQ(r.kind, RtlFailure::Arch);
  EXPECT_EQ(r.failure.rfind("arch: no plain C++ Verilated model for 'large32'", 0), 0u)
      << r.failure;
}

// RtlHarness::Auto, what the flows use: the decoupled SystemC harness where the architecture
// has a plain model and no waveform is asked for, else the pin-level testbench; once a process
// has elaborated one, it stays.
namespace {
RtlRunOptions auto_harness() {
  RtlRunOptions o;
  o.harness = RtlHarness::Auto;
  return o;
}
}  // namespace

TEST(RtlSmall4Auto, PicksTheDecoupledHarnessWhereAPlainModelExists) {
  const Arch a4 = arch_named("small4");
  EXPECT_EQ(RtlEvaluator::resolve(RtlHarness::Auto, a4), RtlHarness::Decoupled);
  EXPECT_EQ(RtlEvaluator::resolve(RtlHarness::Auto, a4, true), RtlHarness::SystemC);
  EXPECT_EQ(RtlEvaluator::resolve(RtlHarness::Auto, arch_named("small4-banked")),
            RtlHarness::Decoupled);
  // large32 has no compiled-in model at all (the model cache builds a pin-level one).
  EXPECT_EQ(RtlEvaluator::resolve(RtlHarness::Auto, arch_named("large32")), RtlHarness::SystemC);
  EXPECT_EQ(RtlEvaluator::resolve(RtlHarness::Plain, a4), RtlHarness::Plain);
  EXPECT_TRUE(RtlEvaluator::has_plain_model(a4));
  EXPECT_TRUE(RtlEvaluator::has_plain_model(arch_named("small4-banked")));
  EXPECT_FALSE(RtlEvaluator::has_plain_model(arch_named("large32")));
  // A renamed copy of a plain architecture has its model: the parameters decide, not the name.
  Arch renamed = a4;
  renamed.name = "my-small4";
  EXPECT_TRUE(RtlEvaluator::has_plain_model(renamed));

  RtlEvaluator ev;
  const Layer l = conv(1, 1, 6, 5, 6, 6, 3, 3, 1, 1);
  const Mapping m = default_mapping(l, a4);
  RtlRunOptions o = auto_harness();
  const RtlRunResult r = run_admitted(ev, l, a4, m, o);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.harness, harness_label(RtlHarness::Decoupled));
  EXPECT_EQ(r.harness, "decoupled SystemC");
  EXPECT_TRUE(r.functional_ok);
  expect_counts_equal(r.counts, model::closed_form_counts(l, a4, m), describe(l, m));
  EXPECT_EQ(r.cycles, model::simulate_schedule(l, a4, m).cycles);
  // The process keeps its harness: Auto now resolves to it whatever is asked.
  EXPECT_EQ(RtlEvaluator::resolve(RtlHarness::Auto, a4, true), RtlHarness::Decoupled);
  mapwright::systemc::RtlParams p;
  std::string failure;
  EXPECT_TRUE(ev.read_params(a4, p, failure, RtlHarness::Auto)) << failure;
  EXPECT_EQ(p.rows, 4);
}

TEST(RtlSmall4Auto, KeepsThePinLevelTestbenchAProcessAlreadyRuns) {
  const Arch a4 = arch_named("small4");
  const Layer l = conv(1, 1, 4, 4, 4, 4, 1, 1, 1, 0);
  RtlEvaluator ev;
  const RtlRunResult first = run_admitted(ev, l, a4, default_mapping(l, a4));
  ASSERT_EQ(first.failure, "");
  EXPECT_EQ(first.harness, harness_label(RtlHarness::SystemC));
  EXPECT_EQ(first.harness, "pin-level SystemC");
  RtlRunOptions o = auto_harness();
  const RtlRunResult r = run_admitted(ev, l, a4, default_mapping(l, a4), o);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.harness, harness_label(RtlHarness::SystemC));
  EXPECT_TRUE(r.functional_ok);
  EXPECT_EQ(r.cycles, first.cycles);
}

TEST(RtlSmall4Auto, AWaveformAskedForGetsThePinLevelTestbench) {
  // The compiled-in models are untraced, so the run is the typed Trace result of the
  // pin-level testbench, not the decoupled harness's refusal to trace.
  const Arch a4 = arch_named("small4");
  const Layer l = conv(1, 1, 3, 2, 4, 4, 3, 3, 1, 1);
  RtlEvaluator ev;
  RtlRunOptions o = auto_harness();
  o.trace_file =
      (std::filesystem::temp_directory_path() / "mapwright_rtl_auto_trace_test.fst").string();
  const RtlRunResult r = run_admitted(ev, l, a4, default_mapping(l, a4), o);
  EXPECT_EQ(r.harness, harness_label(RtlHarness::SystemC));
  EXPECT_EQ(r.kind, RtlFailure::Trace);
  EXPECT_NE(r.failure.find("built without tracing"), std::string::npos) << r.failure;
  EXPECT_TRUE(r.functional_ok);
}
