// End-to-end RTL failures on the pin-level SystemC testbench, each a typed result and never a
// crash or a hang: an invalid or foreign mapping, a stuck design (watchdog), a failed SVA
// (with the assertion and the cycle), a second architecture in one process, an architecture
// without a model. After a failure the design is reset and the next run in the process works.
#include "mapwright/systemc/rtl_evaluator.hpp"

#include <gtest/gtest.h>

#include <string>

#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/rtlpool/run_admission.hpp"
#include "rtl_checks.hpp"
#include "test_layers.hpp"

using namespace mapwright::systemc_test::names;  // also mapwright and mapwright::core

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

TEST(RtlSmall4Bad, StuckDesignIsAWatchdogFailureNotAHang) {
  expect_watchdog_then_clean_run(RtlHarness::SystemC);
}

TEST(RtlSmall4Bad, AFailedAssertionIsATypedFailureNamingItAndTheCycle) {
  // The models are built with --assert; a malformed compute command (K extent 0, which the
  // driver never sends) trips an SVA. Verilator's default would abort the process.
  expect_assertion_then_clean_run(&RtlRunOptions::zero_compute_extent);
}

TEST(RtlSmall4Bad, AWrongBurstLastFlagTripsItsAssertion) {
  // Bursts port: the DRAM flags a read burst's first beat as its last; the DMA, which knows
  // every burst's length from its descriptor, catches it.
  expect_assertion_then_clean_run(&RtlRunOptions::misflag_burst_last);
}

TEST(RtlSmall4Bad, AnAddressPastTheBufferTripsItsAssertion) {
  // The compute controller's addresses are checked against the buffer before they are
  // truncated to the port width: an accumulator base past the end (which the driver never
  // sends) would otherwise wrap around silently.
  expect_assertion_then_clean_run(&RtlRunOptions::acc_base_past_end);
}

TEST(RtlSmall4Bad, ABrokenCommandHandshakeTripsItsAssertion) {
  // The host must hold a command word the accelerator has not taken; the hook changes one
  // while the queues are full (the layer has more commands than the queues hold).
  expect_assertion_then_clean_run(&RtlRunOptions::unheld_command);
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
