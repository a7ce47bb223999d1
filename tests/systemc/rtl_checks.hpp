#pragma once
// Checks shared by the end-to-end RTL tests (rtl_evaluator_test.cpp, rtl_failures_test.cpp,
// rtl_harness_test.cpp): counters against the closed form, sweeps of random layers and
// mappings, and the failure-then-clean-run pairs that every harness must pass.
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/metrics.hpp"
#include "mapwright/rtl_api/rtl_api.hpp"
#include "mapwright/rtlpool/run_admission.hpp"
#include "mapwright/systemc/rtl_evaluator.hpp"
#include "test_layers.hpp"

namespace mapwright::systemc_test {

/// Expects every counter of `rtl` equal to `ref`'s; `what` names the case.
void expect_counts_equal(const core::AccessCounts& rtl, const core::AccessCounts& ref,
                         const std::string& what);
/// The layer and the mapping as text, for failure messages.
std::string describe(const core::Layer& l, const core::Mapping& m);

/// Runs `runs` random (layer, mapping) pairs on `arch_name` (with the DRAM port `port`) and
/// checks everything. Under the bursts port sample_valid draws only mappings whose every
/// transfer has a burst descriptor (core::check_valid); the RTL must then serve each.
/// In the decoupled harness, SystemC time must advance by exactly each job's cycles.
void random_sweep(const std::string& arch_name, uint64_t seed, int runs, int max_hw,
                  double stall_prob = 0, core::DramPort port = core::DramPort::Packed,
                  systemc::RtlHarness harness = systemc::RtlHarness::SystemC);

/// Options that run on the decoupled SystemC harness.
systemc::RtlRunOptions decoupled();

/// A design whose DRAM never answers stops at the watchdog with a typed failure naming the
/// progress, not a hang; the next run in the same process resets the design and works.
void expect_watchdog_then_clean_run(systemc::RtlHarness harness);

/// Runs a layer on small4 with the assertion test hook `hook` of RtlRunOptions on (the layer,
/// watchdog and DRAM port that hook needs, from the table in rtl_checks.cpp), expects the SVA
/// the hook trips to stop it at a real cycle, then runs it again without the hook and expects a
/// clean, bit-exact run in the same process (the design is reset between runs).
void expect_assertion_then_clean_run(bool systemc::RtlRunOptions::*hook,
                                     systemc::RtlHarness harness = systemc::RtlHarness::SystemC);

}  // namespace mapwright::systemc_test

/// The names every end-to-end RTL test uses (`using namespace mapwright::systemc_test::names`):
/// mapwright, mapwright::core and the helpers above.
namespace mapwright::systemc_test::names {
using namespace mapwright;
using namespace mapwright::core;
using rtl::RtlRunResult;
using rtlpool::run_admitted;
using systemc::RtlEvaluator;
using systemc::RtlHarness;
using systemc::RtlRunOptions;
using systemc_test::arch_named;
using systemc_test::conv;
using systemc_test::decoupled;
using systemc_test::describe;
using systemc_test::expect_assertion_then_clean_run;
using systemc_test::expect_counts_equal;
using systemc_test::expect_watchdog_then_clean_run;
using systemc_test::random_sweep;
}  // namespace mapwright::systemc_test::names
