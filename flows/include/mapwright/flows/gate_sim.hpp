#pragma once
/// \file gate_sim.hpp
/// `mapwright synth --gate-sim N`: the synthesized netlist of the accelerator simulated against
/// its RTL. yosys writes the mapped design, flattened, as Verilog (its gate cells as instances of
/// its cell library, the memories as Verilog arrays); the RTL model cache Verilates it with
/// yosys' simcells.v into a worker of its own; random small layers with a random valid mapping
/// each run on the RTL's worker and on the netlist's with the same operands, and the results are
/// compared. The implementation is flows/verify/gate_sim.cpp (a simulation flow: it samples
/// mappings and runs the RTL pool, which synthesis itself never does).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/flows/synth.hpp"
#include "mapwright/rtl_api/rtl_api.hpp"

namespace mapwright::flows {

/// One random mapping simulated on the RTL and on the synthesized netlist.
struct GateSimRun {
  int index = 0;                         ///< 0, 1, ... in the order drawn.
  std::string layer;                     ///< core::Layer::describe().
  std::string mapping;                   ///< The mapping as YAML (core::mapping_to_yaml).
  std::string dataflow;                  ///< Its dataflow ("ws", "os", "is").
  uint64_t seed = 0;                     ///< Seed of the operands.
  rtl::RtlRunResult rtl, gate;           ///< The two simulations' results.
  std::vector<std::string> differences;  ///< What differs ("" none): failure, outputs, cycles,
                                         ///< each counter by name.
  bool equal() const { return differences.empty() && rtl.ok() && gate.ok(); }
};

/// A gate-level simulation: the netlist's model and its runs.
struct GateSimResult {
  std::string failure;           ///< Why it could not run (the model's build, the RTL's model);
                                 ///< "" when it ran.
  std::string model;             ///< The gate-level model's cache name.
  double build_seconds = 0;      ///< Its build (0 when it was in the cache).
  uint64_t seed = 0;             ///< The seed of the layers, mappings and operands.
  int max_hw = 0;                ///< The layers' largest input height and width.
  std::vector<GateSimRun> runs;  ///< In the order drawn.
  int equal = 0;                 ///< Runs with both simulations passing and nothing different.
  long long cycles = 0;          ///< Cycles simulated on each side (the RTL's count).
  double rtl_seconds = 0, gate_seconds = 0;  ///< Simulation wall time on each side.
  bool ok() const { return failure.empty() && equal == static_cast<int>(runs.size()); }
};

/// Simulates the synthesized netlist of `s` (synthesize with write_netlist) against the RTL of
/// `arch` on `runs` random layers (mapspace::random_layer, kinds in turn, up to 9x9 inputs)
/// with a uniformly random valid mapping each, seeded by `seed`: every output byte checked
/// against the C++ reference on both sides, and the cycles, the simulated clock cycles and every
/// hardware counter compared. The netlist's model is built by the RTL model cache (Verilator,
/// with yosys' simcells.v copied beside the netlist); progress lines go to `progress`.
GateSimResult gate_sim(const core::Arch& arch, const std::string& arch_arg, const SynthResult& s,
                       int runs, uint64_t seed, int jobs, std::ostream* progress);
/// The same for a netlist given as its Verilog files (the netlist with top mw_accel and the
/// models of its cells and macros), e.g. the library-mapped one of `synth --liberty`.
GateSimResult gate_sim_files(const core::Arch& arch, const std::string& arch_arg,
                             const std::vector<std::string>& files, int runs, uint64_t seed,
                             int jobs, std::ostream* progress);
/// What differs between the RTL's and the netlist's result of one run, one line each: the
/// failure text, the output bytes that differ from the reference, the cycles, the simulated clock
/// cycles, the stall and busy counters and every access counter (by name). Empty when equal.
std::vector<std::string> gate_sim_differences(const rtl::RtlRunResult& rtl,
                                              const rtl::RtlRunResult& netlist);
/// The JSON record of a gate-level simulation (also <out>/gate_sim.json).
nlohmann::json gate_sim_json(const GateSimResult& g);
/// Its text report.
void print_gate_sim(const GateSimResult& g, std::ostream& out);

}  // namespace mapwright::flows
