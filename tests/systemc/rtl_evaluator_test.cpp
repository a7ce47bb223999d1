// End-to-end RTL tests: random layers and mappings on the Verilated accelerator inside the
// SystemC testbench. Every run must be bit-exact against the C++ reference, every counter must
// equal model::closed_form_counts, and the cycles are compared with the reference schedule
// (model::simulate_schedule) and the surrogate. Each test runs in its own process (one SystemC
// simulation, one architecture per process). The RtlSmall4Decoupled and RtlDefaultDecoupled
// tests run the temporally decoupled SystemC harness (RtlHarness::Decoupled).
#include "mapwright/systemc/rtl_evaluator.hpp"

#include <gtest/gtest.h>
#include <systemc.h>
#include <tlm.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "mapwright/core/dram_layout.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/model/bank_conflicts.hpp"
#include "mapwright/model/schedule.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/rtlpool/run_admission.hpp"
#include "test_layers.hpp"

using namespace mapwright;
using namespace mapwright::core;
using rtl::RtlRunResult;
using rtlpool::run_admitted;
using systemc::RtlEvaluator;
using systemc::RtlHarness;
using systemc::RtlRunOptions;
using systemc_test::arch_named;
using systemc_test::conv;

namespace {

/// A random small layer: conv, depthwise, grouped or GEMM/FC, with odd sizes, stride, padding.
Layer random_layer(std::mt19937_64& rng, int kind, int max_hw) {
  auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Layer l;
  l.n = u(1, 2);
  l.r = u(1, 3);
  l.s = u(1, 3);
  l.stride = u(1, 2);
  l.pad = u(0, std::min(l.r, l.s) - 1);
  l.h = u(l.r, max_hw);
  l.w = u(l.s, max_hw);
  if (kind == 0) {  // conv
    l.k = u(1, 9);
    l.c = u(1, 7);
  } else if (kind == 1) {  // depthwise
    l.kind = LayerKind::Depthwise;
    l.g = u(2, 6);
  } else if (kind == 2) {  // grouped
    l.kind = LayerKind::Grouped;
    l.g = u(2, 3);
    l.k = u(1, 5);
    l.c = u(1, 4);
  } else if (kind == 3) {  // GEMM / FC
    l.kind = LayerKind::Gemm;
    l.r = l.s = 1;
    l.stride = 1;
    l.pad = 0;
    l.h = u(1, 12);
    l.w = 1;
    l.k = u(1, 12);
    l.c = u(1, 12);
  } else {  // 1x1 conv
    l.r = l.s = 1;
    l.pad = 0;
    l.k = u(1, 9);
    l.c = u(1, 9);
  }
  return make_layer(l, "random");
}

void expect_counts_equal(const AccessCounts& rtl, const AccessCounts& ref,
                         const std::string& what) {
  const auto a = rtl.fields(), b = ref.fields();
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].second, b[i].second) << a[i].first << " differs; " << what;
}

std::string describe(const Layer& l, const Mapping& m) {
  return l.describe() + "\n" + mapping_to_yaml(m);
}

/// Error statistics of RTL cycles against a reference.
struct ErrStats {
  double sum = 0, max = 0;
  long long n = 0;
  void add(long long rtl, long long ref) {
    const double e = std::abs(static_cast<double>(rtl - ref)) / static_cast<double>(ref);
    sum += e;
    max = std::max(max, e);
    ++n;
  }
  double mean() const { return n ? sum / static_cast<double>(n) : 0; }
};

/// Runs `runs` random (layer, mapping) pairs on `arch_name` (with the DRAM port `port`) and
/// checks everything. Under the bursts port sample_valid draws only mappings whose every
/// transfer has a burst descriptor (core::check_valid); the RTL must then serve each.
/// In the decoupled harness, SystemC time must advance by exactly each job's cycles.
void random_sweep(const std::string& arch_name, uint64_t seed, int runs, int max_hw,
                  double stall_prob = 0, DramPort port = DramPort::Packed,
                  RtlHarness harness = RtlHarness::SystemC) {
  Arch arch = arch_named(arch_name);
  arch.dataflows = {Dataflow::WS, Dataflow::OS, Dataflow::IS};  // every dataflow the RTL runs
  arch.dram_port = port;
  Arch packed = arch;
  packed.dram_port = DramPort::Packed;
  std::mt19937_64 rng(seed);
  RtlEvaluator ev;
  ErrStats vs_sched, vs_surr;
  long long cycles = 0, exact = 0, ws = 0, os = 0, is = 0, spills = 0, db = 0;
  long long slower_than_packed = 0, with_bank_stalls = 0;
  double secs = 0;
  for (int i = 0; i < runs; ++i) {
    const Layer l = random_layer(rng, i % 5, max_hw);
    MapSpace space(l, arch);
    ParamVector v;
    ASSERT_TRUE(space.sample_valid(rng, v));
    const Mapping m = space.decode(v);
    RtlRunOptions o;
    o.seed = seed * 1000 + static_cast<uint64_t>(i);
    o.stall_prob = stall_prob;
    o.harness = harness;
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    const RtlRunResult r = run_admitted(ev, l, arch, m, o);
    if (harness == RtlHarness::Decoupled) {
      EXPECT_EQ(sc_core::sc_time_stamp() - t0,
                sc_core::sc_time(10.0 * static_cast<double>(r.sim_cycles), sc_core::SC_NS))
          << describe(l, m);
    }
    EXPECT_EQ(burst_descriptor_problem(l, arch, m), "") << describe(l, m);
    ASSERT_EQ(r.failure, "") << describe(l, m);
    EXPECT_TRUE(r.functional_ok) << r.mismatches << " mismatches; " << describe(l, m);
    const AccessCounts ref = model::closed_form_counts(l, arch, m);
    expect_counts_equal(r.counts, ref, describe(l, m));
    const long long sched = model::simulate_schedule(l, arch, m).cycles;
    slower_than_packed += sched > model::simulate_schedule(l, packed, m).cycles;
    const long long surr = model::Surrogate().evaluate(l, arch, m).cycles;
    if (stall_prob == 0) {
      EXPECT_EQ(r.cycles, sched) << describe(l, m);
    } else {
      EXPECT_GE(r.cycles, sched) << describe(l, m);
    }
    // Banked buffers: the bank counters equal the surrogate's per-fold count, and every cycle
    // the mesh waited is a first-row read or a bank stall the surrogate predicts.
    const model::BankStalls bank = model::closed_form_bank_stalls(l, m, arch.buffer_banks);
    EXPECT_EQ(r.input_bank_stalls, bank.input) << describe(l, m);
    EXPECT_EQ(r.weight_bank_stalls, bank.weight) << describe(l, m);
    EXPECT_EQ(r.accum_bank_stalls, 0) << describe(l, m);  // accum_bank_problem's promise
    EXPECT_EQ(r.array_stall_cycles, model::closed_form_bank_cycles(l, m, arch.buffer_banks))
        << describe(l, m);
    with_bank_stalls += bank.input + bank.weight > 0;
    vs_sched.add(r.cycles, sched);
    vs_surr.add(r.cycles, surr);
    exact += r.cycles == sched;
    cycles += r.cycles;
    secs += r.sim_seconds;
    (m.dataflow == Dataflow::WS ? ws : m.dataflow == Dataflow::OS ? os : is) += 1;
    spills += ref.psum_spills > 0;
    db += m.db_input || m.db_weight || m.db_accum;
    if (::testing::Test::HasFailure()) return;
  }
  if (arch.buffer_banks > 0) {
    EXPECT_GE(with_bank_stalls * 20, runs) << "too few runs met a bank conflict";
  }
  if (port == DramPort::Bursts) {
    if (stall_prob == 0) {
      EXPECT_GT(slower_than_packed, 0) << "no run saw the bursts port";
    }
  }
  std::printf(
      "[%s, %s port] %d runs (WS %lld, OS %lld, IS %lld, with spills %lld, double-buffered %lld, "
      "slower than on the packed port %lld, with bank stalls %lld): "
      "cycles vs reference schedule: %lld exact, mean err %.4f%%, max %.4f%%; vs surrogate: "
      "mean err %.2f%%, max %.2f%%; %.0f simulated cycles/s\n",
      arch_name.c_str(), dram_port_name(port), runs, ws, os, is, spills, db, slower_than_packed,
      with_bank_stalls, exact, 100 * vs_sched.mean(), 100 * vs_sched.max, 100 * vs_surr.mean(),
      100 * vs_surr.max, secs > 0 ? static_cast<double>(cycles) / secs : 0.0);
}

}  // namespace

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

// default-banked-bursts (configs/arch): both realistic options at 16x16 on default-banked's model.
TEST(RtlDefaultBankedBursts, RandomLayersAndMappingsAreExact) {
  ASSERT_EQ(arch_named("default-banked-bursts").dram_port, DramPort::Bursts);
  ASSERT_EQ(arch_named("default-banked-bursts").buffer_banks, 17);
  random_sweep("default-banked-bursts", 59, 30, 14, 0, DramPort::Bursts);
}

TEST(RtlSmall8, RandomLayersAndMappingsAreExact) {
  random_sweep("small8", 21, 150, 12);
}

TEST(RtlDefault, RandomLayersAndMappingsAreExact) {
  random_sweep("default", 31, 30, 14);
}

TEST(RtlDefault, ReportsTheParametersItsSpecAskedFor) {
  const Arch arch = arch_named("default");
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

TEST(RtlSmall4, ReportsTheParametersItsSpecAskedFor) {
  const Arch arch = arch_named("small4");
  systemc::RtlParams p;
  std::string failure;
  RtlEvaluator ev;
  ASSERT_TRUE(ev.read_params(arch, p, failure)) << failure;
  EXPECT_EQ(p.rows, 4);
  EXPECT_EQ(p.cols, 4);
  EXPECT_EQ(p.input_buf_bytes, arch.input_buf_bytes);
  EXPECT_EQ(p.weight_buf_bytes, arch.weight_buf_bytes);
  EXPECT_EQ(p.accum_buf_words, arch.accum_buf_bytes / 4);
  EXPECT_EQ(p.beat_bytes, static_cast<long long>(arch.dram_bytes_per_cycle));
  EXPECT_EQ(p.max_bursts, core::kRtlMaxBursts);  // what require_rtl_dram_port assumes
}

TEST(RtlSmall8, ReportsTheParametersItsSpecAskedFor) {
  const Arch arch = arch_named("small8");
  systemc::RtlParams p;
  std::string failure;
  RtlEvaluator ev;
  ASSERT_TRUE(ev.read_params(arch, p, failure)) << failure;
  EXPECT_EQ(p.rows, 8);
  EXPECT_EQ(p.cols, 8);
  EXPECT_EQ(p.accum_buf_words, arch.accum_buf_bytes / 4);
  EXPECT_EQ(p.beat_bytes, static_cast<long long>(arch.dram_bytes_per_cycle));
  EXPECT_EQ(p.max_bursts, core::kRtlMaxBursts);  // what require_rtl_dram_port assumes
}

TEST(RtlSmall4Bad, OverflowingMappingIsATypedInvalidResult) {
  const Arch arch = arch_named("small4");
  const Layer l = conv(1, 1, 64, 64, 16, 16, 3, 3, 1, 1);
  Mapping m = default_mapping(l, arch);
  for (Dim d : {Dim::K, Dim::C, Dim::P, Dim::Q}) m.tile[static_cast<int>(d)] = l.dim(d);
  RtlEvaluator ev;
  const RtlRunResult r = run_admitted(ev, l, arch, m);
  EXPECT_EQ(r.failure.rfind("invalid: ", 0), 0u) << r.failure;
  EXPECT_FALSE(r.metrics.valid);
  EXPECT_NE(r.metrics.invalid, InvalidKind::None);
}

TEST(RtlSmall4Bad, MappingForAnotherArrayIsATypedFailure) {
  const Arch arch = arch_named("small4");
  const Layer l = conv(1, 1, 4, 4, 4, 4, 1, 1, 1, 0);
  Mapping m = default_mapping(l, arch);
  m.pe_rows = 8;  // more PE rows than the array has
  RtlEvaluator ev;
  const RtlRunResult r = run_admitted(ev, l, arch, m);
  EXPECT_EQ(r.failure.rfind("mapping: ", 0), 0u) << r.failure;
  EXPECT_FALSE(r.metrics.valid);
}

/// Options that run on the decoupled SystemC harness.
RtlRunOptions decoupled() {
  RtlRunOptions o;
  o.harness = RtlHarness::Decoupled;
  return o;
}

/// A design whose DRAM never answers stops at the watchdog with a typed failure naming the
/// progress, not a hang; the next run in the same process resets the design and works.
void expect_watchdog_then_clean_run(RtlHarness harness) {
  const Arch arch = arch_named("small4");
  const Layer l = conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1);
  const Mapping m = default_mapping(l, arch);
  RtlEvaluator ev;
  RtlRunOptions o;
  o.harness = harness;
  o.drop_dram_responses = true;
  o.watchdog_cycles = 5000;
  const RtlRunResult r = run_admitted(ev, l, arch, m, o);
  EXPECT_EQ(r.failure.rfind("watchdog: no completion after 5000 cycles", 0), 0u) << r.failure;
  EXPECT_NE(r.failure.find("DMA commands done 0/"), std::string::npos) << r.failure;
  RtlRunOptions clean;
  clean.harness = harness;
  const RtlRunResult ok = run_admitted(ev, l, arch, m, clean);
  EXPECT_EQ(ok.failure, "");
  EXPECT_TRUE(ok.functional_ok);
}

TEST(RtlSmall4Bad, StuckDesignIsAWatchdogFailureNotAHang) {
  expect_watchdog_then_clean_run(RtlHarness::SystemC);
}

/// Runs `l` on small4 with the test hook `hook` on (and a watchdog of `watchdog` cycles),
/// expects the SVA `assertion` (as "name failed (file.sv:") to stop it at a real cycle, then runs
/// it again without the hook and expects a clean, bit-exact run in the same process (the design
/// is reset between runs).
void expect_assertion_then_clean_run(const Layer& l, bool RtlRunOptions::*hook, long long watchdog,
                                     const std::string& assertion, DramPort port = DramPort::Packed,
                                     RtlHarness harness = RtlHarness::SystemC) {
  Arch arch = arch_named("small4");
  arch.dram_port = port;
  const Mapping m = default_mapping(l, arch);
  RtlEvaluator ev;
  RtlRunOptions o;
  o.harness = harness;
  o.*hook = true;
  o.watchdog_cycles = watchdog;
  const RtlRunResult r = run_admitted(ev, l, arch, m, o);
  EXPECT_EQ(r.kind, mapwright::core::RtlFailure::Assertion) << r.failure;
  EXPECT_EQ(r.failure.rfind("assertion ", 0), 0u) << r.failure;
  EXPECT_NE(r.failure.find("assertion " + assertion), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find(" at cycle "), std::string::npos) << r.failure;
  EXPECT_EQ(r.failure.find(" at cycle 0"), std::string::npos) << r.failure;  // the real cycle
  RtlRunOptions clean;
  clean.harness = harness;
  const RtlRunResult ok = run_admitted(ev, l, arch, m, clean);
  EXPECT_EQ(ok.failure, "");
  EXPECT_TRUE(ok.functional_ok);
}

TEST(RtlSmall4Bad, AFailedAssertionIsATypedFailureNamingItAndTheCycle) {
  // The models are built with --assert; a malformed compute command (K extent 0, which the
  // driver never sends) trips an SVA. Verilator's default would abort the process.
  expect_assertion_then_clean_run(conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1),
                                  &RtlRunOptions::zero_compute_extent, 20000,
                                  "cmd_cu_nonzero_a failed (mw_array.sv:");
}

TEST(RtlSmall4Bad, AWrongBurstLastFlagTripsItsAssertion) {
  // Bursts port: the DRAM flags a read burst's first beat as its last; the DMA, which knows
  // every burst's length from its descriptor, catches it.
  expect_assertion_then_clean_run(conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1),
                                  &RtlRunOptions::misflag_burst_last, 20000,
                                  "dram_rd_burst_last_a failed (mw_dma.sv:", DramPort::Bursts);
}

TEST(RtlSmall4Bad, AnAddressPastTheBufferTripsItsAssertion) {
  // The compute controller's addresses are checked against the buffer before they are
  // truncated to the port width: an accumulator base past the end (which the driver never
  // sends) would otherwise wrap around silently.
  expect_assertion_then_clean_run(conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1),
                                  &RtlRunOptions::acc_base_past_end, 20000,
                                  "acc_wr_range_a failed (mw_compute.sv:");
}

TEST(RtlSmall4Bad, ABrokenCommandHandshakeTripsItsAssertion) {
  // The host must hold a command word the accelerator has not taken; the hook changes one
  // while the queues are full (the layer has more commands than the queues hold).
  expect_assertion_then_clean_run(conv(1, 1, 64, 32, 12, 12, 3, 3, 1, 1),
                                  &RtlRunOptions::unheld_command, 200000,
                                  "cmd_hold_a failed (mw_accel.sv:");
}

TEST(RtlSmall4Bad, SecondArchitectureInOneProcessIsATypedFailure) {
  RtlEvaluator ev;
  const Layer l = conv(1, 1, 4, 4, 4, 4, 1, 1, 1, 0);
  const Arch a4 = arch_named("small4"), a8 = arch_named("small8");
  ASSERT_EQ(run_admitted(ev, l, a4, default_mapping(l, a4)).failure, "");
  const RtlRunResult r = run_admitted(ev, l, a8, default_mapping(l, a8));
  EXPECT_EQ(r.failure.rfind("arch: this process already elaborated", 0), 0u) << r.failure;
}

TEST(RtlSmall4Bad, ArchitectureWithoutAModelIsATypedFailure) {
  Arch a = arch_named("small4");
  a.name = "odd";
  a.rows = 5;
  const Layer l = conv(1, 1, 4, 4, 4, 4, 1, 1, 1, 0);
  RtlEvaluator ev;
  const RtlRunResult r = run_admitted(ev, l, a, default_mapping(l, a));
  EXPECT_EQ(r.failure.rfind("arch: no Verilated model for 'odd'", 0), 0u) << r.failure;
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
  expect_assertion_then_clean_run(
      conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1), &RtlRunOptions::zero_compute_extent, 20000,
      "cmd_cu_nonzero_a failed (mw_array.sv:", DramPort::Packed, RtlHarness::Decoupled);
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
