// The checks shared by the end-to-end RTL tests (rtl_checks.hpp): each runs the RTL through
// the worker's admission (rtlpool::run_admitted) and compares it with the closed-form counts,
// the reference schedule, the surrogate and the C++ reference.
#include "rtl_checks.hpp"

#include <gtest/gtest.h>
#include <systemc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

#include "mapwright/core/dram_layout.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/mapspace/random_layer.hpp"
#include "mapwright/model/bank_conflicts.hpp"
#include "mapwright/model/schedule.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/rtlpool/run_admission.hpp"
#include "test_layers.hpp"

namespace mapwright::systemc_test {

using namespace core;
using rtl::RtlRunResult;
using rtlpool::run_admitted;
using systemc::RtlEvaluator;
using systemc::RtlHarness;
using systemc::RtlRunOptions;

namespace {

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

}  // namespace

void expect_counts_equal(const AccessCounts& rtl, const AccessCounts& ref,
                         const std::string& what) {
  const auto a = rtl.fields(), b = ref.fields();
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].second, b[i].second) << a[i].first << " differs; " << what;
}

std::string describe(const Layer& l, const Mapping& m) {
  return l.describe() + "\n" + mapping_to_yaml(m);
}

void random_sweep(const std::string& arch_name, uint64_t seed, int runs, int max_hw,
                  double stall_prob, DramPort port, RtlHarness harness) {
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

RtlRunOptions decoupled() {
  RtlRunOptions o;
  o.harness = RtlHarness::Decoupled;
  return o;
}

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

namespace {

/// A fault an assertion test hook of RtlRunOptions injects on small4, and the SVA that catches
/// it.
struct HookedFault {
  bool RtlRunOptions::*hook;  ///< The hook.
  Layer layer;                ///< A layer the fault shows on.
  long long watchdog;         ///< Watchdog cycles of the faulty run.
  std::string assertion;      ///< The SVA, as "name failed (file.sv:".
  DramPort port;              ///< The DRAM port the fault needs.
};

/// The fault of `hook`.
const HookedFault& hooked_fault(bool RtlRunOptions::*hook) {
  static const HookedFault faults[] = {
      // A compute command with K extent 0.
      {&RtlRunOptions::zero_compute_extent, conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1), 20000,
       "cmd_cu_nonzero_a failed (mw_array.sv:", DramPort::Packed},
      // A read burst's first beat flagged as its last.
      {&RtlRunOptions::misflag_burst_last, conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1), 20000,
       "dram_rd_burst_last_a failed (mw_dma.sv:", DramPort::Bursts},
      // An accumulator base past the end of the buffer.
      {&RtlRunOptions::acc_base_past_end, conv(1, 1, 4, 4, 5, 5, 3, 3, 1, 1), 20000,
       "acc_wr_range_a failed (mw_compute.sv:", DramPort::Packed},
      // A command word changed before it was taken: a layer with more commands than the
      // queues hold.
      {&RtlRunOptions::unheld_command, conv(1, 1, 64, 32, 12, 12, 3, 3, 1, 1), 200000,
       "cmd_hold_a failed (mw_accel.sv:", DramPort::Packed}};
  for (const HookedFault& f : faults)
    if (f.hook == hook) return f;
  throw std::logic_error("rtl_checks: no fault for this RtlRunOptions hook");
}

}  // namespace

void expect_assertion_then_clean_run(bool RtlRunOptions::*hook, RtlHarness harness) {
  const HookedFault& fault = hooked_fault(hook);
  const Layer& l = fault.layer;
  Arch arch = arch_named("small4");
  arch.dram_port = fault.port;
  const Mapping m = default_mapping(l, arch);
  RtlEvaluator ev;
  RtlRunOptions o;
  o.harness = harness;
  o.*hook = true;
  o.watchdog_cycles = fault.watchdog;
  const RtlRunResult r = run_admitted(ev, l, arch, m, o);
  EXPECT_EQ(r.kind, mapwright::core::RtlFailure::Assertion) << r.failure;
  EXPECT_EQ(r.failure.rfind("assertion ", 0), 0u) << r.failure;
  EXPECT_NE(r.failure.find("assertion " + fault.assertion), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find(" at cycle "), std::string::npos) << r.failure;
  EXPECT_EQ(r.failure.find(" at cycle 0"), std::string::npos) << r.failure;  // the real cycle
  RtlRunOptions clean;
  clean.harness = harness;
  const RtlRunResult ok = run_admitted(ev, l, arch, m, clean);
  EXPECT_EQ(ok.failure, "");
  EXPECT_TRUE(ok.functional_ok);
}

}  // namespace mapwright::systemc_test
