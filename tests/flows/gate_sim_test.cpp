// The comparison `mapwright synth --gate-sim` makes of the RTL's and the netlist's result of one
// run (flows::gate_sim_differences): equal results have no difference; a difference in the
// outputs, the cycles, the simulated clock cycles, a stall counter or any single access counter
// is named. The whole flow (yosys, the netlist's model, both simulations) runs in the CLI smoke
// cli.synth_smoke_2x2.
#include <gtest/gtest.h>

#include "mapwright/core/metrics.hpp"
#include "mapwright/flows/gate_sim.hpp"

namespace mapwright::flows {
namespace {

rtl::RtlRunResult passing_run() {
  rtl::RtlRunResult r;
  r.functional_ok = true;
  r.cycles = 1234;
  r.sim_cycles = 1300;
  r.array_busy_cycles = 800;
  r.dma_busy_cycles = 900;
  r.counts.macs = 4096;
  r.counts.dram_input_bytes = 2048;
  r.metrics.valid = true;
  return r;
}

bool names(const std::vector<std::string>& d, const std::string& what) {
  for (const std::string& line : d)
    if (line.rfind(what, 0) == 0) return true;
  return false;
}

TEST(GateSim, EqualResultsHaveNoDifference) {
  const rtl::RtlRunResult a = passing_run();
  rtl::RtlRunResult b = a;
  b.sim_seconds = 99;  // wall time and the harness are not part of the comparison
  b.harness = "pin-level SystemC";
  EXPECT_TRUE(gate_sim_differences(a, b).empty());
  GateSimRun run;
  run.rtl = a;
  run.gate = b;
  EXPECT_TRUE(run.equal());
}

TEST(GateSim, EveryFigureThatDiffersIsNamed) {
  const rtl::RtlRunResult a = passing_run();
  rtl::RtlRunResult b = a;
  b.cycles += 1;
  EXPECT_TRUE(names(gate_sim_differences(a, b), "cycles: RTL 1234, netlist 1235"));
  b = a;
  b.sim_cycles -= 1;
  EXPECT_TRUE(names(gate_sim_differences(a, b), "simulated clock cycles"));
  b = a;
  b.dram_stall_cycles = 3;
  EXPECT_TRUE(names(gate_sim_differences(a, b), "dram_stall_cycles"));
  b = a;
  b.functional_ok = false;
  b.mismatches = 17;
  EXPECT_TRUE(
      names(gate_sim_differences(a, b), "outputs: RTL 0 bytes from the reference, netlist 17"));
  b = a;
  b.failure = "watchdog: no progress";
  EXPECT_TRUE(names(gate_sim_differences(a, b), "failure"));
  // Each access counter on its own.
  const auto fields = a.counts.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    b = a;
    // Bump field i: rebuild the counts from the named values with one changed.
    nlohmann::json j;
    for (size_t k = 0; k < fields.size(); ++k) j[fields[k].first] = fields[k].second + (k == i);
    b.counts = core::counts_from_json(j);
    const auto d = gate_sim_differences(a, b);
    ASSERT_EQ(d.size(), 1u) << fields[i].first;
    EXPECT_TRUE(names(d, fields[i].first)) << d[0];
  }
}

TEST(GateSim, ARunIsEqualOnlyWhenBothSimulationsPassed) {
  GateSimRun run;
  run.rtl = passing_run();
  run.rtl.functional_ok = false;  // both equally wrong is not a pass
  run.rtl.mismatches = 3;
  run.gate = run.rtl;
  EXPECT_TRUE(gate_sim_differences(run.rtl, run.gate).empty());
  EXPECT_FALSE(run.equal());
}

}  // namespace
}  // namespace mapwright::flows
