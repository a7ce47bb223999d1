#pragma once
/// \file codesign.hpp
/// `mapwright codesign`: a search over the hardware. A space file (docs/codesign.md) gives, per
/// architecture parameter, the values to consider (a set, a range with a step or the powers of
/// two in a range), the keys that stay fixed (from a base architecture), constraints, a workload
/// (one network or a weighted list) and the objective. Every hardware point's cost is its
/// workload's cost with each unique layer at its proven-optimal mapping (the exact mapper); the
/// searchers are `exact` (branch-and-bound over the hardware with admissible lower bounds:
/// answers the best design, a proven lower bound and the gap), `grid` (every point), `random`
/// (N distinct points drawn with a seed) and the search library's sampling searchers (sa, ga,
/// bo, ppo, ppo-box, marl) over the hardware parameters through ask/tell, N points each.

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/objective.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/model/clock.hpp"

namespace mapwright::flows {

/// The architecture parameters a space varies, in branching order.
enum class HwParam : int {
  Dataflows = 0,
  Rows,
  Cols,
  DramBw,
  Banks,
  AccumKib,
  WeightKib,
  InputKib
};
inline constexpr int kNumHwParams = 8;
/// The space file's key of `p` (e.g. "rows", "input_kib", "dram_bytes_per_cycle").
const char* hw_param_key(HwParam p);

/// One network of the workload: its unique layers and its weight in the workload's cost.
struct WorkloadNetwork {
  std::string name;                                 ///< As given (zoo name or file).
  double weight = 1;                                ///< Weight of its cost (> 0).
  std::vector<std::pair<core::Layer, int>> layers;  ///< Unique layers with their counts.
};

/// A space file, checked. Every parameter has at least one value; values ascend. The dataflow
/// parameter's values are sets as bit masks (bit 0 ws, bit 1 os, bit 2 is).
struct CodesignSpace {
  std::string path;                                         ///< Where it was read from.
  std::string name;                                         ///< name: (file stem).
  std::string base_name = "default";                        ///< base: arch name or file.
  core::Arch base;                                          ///< The fixed keys' values.
  std::array<std::vector<long long>, kNumHwParams> values;  ///< Per parameter, ascending.
  std::array<bool, kNumHwParams> given{};                   ///< The file set the parameter.
  double max_area_mm2 = 0;                                  ///< constraints (0 = none).
  double max_energy_uj = 0;                                 ///< Per inference of a network.
  double max_latency_ms = 0;                                ///< Per inference of a network.
  std::vector<WorkloadNetwork> workload;                    ///< workload:, in order.
  core::Objective objective;                                ///< objective: (edp).
  double mapper_time_limit_s = 60;                          ///< mapper.time_limit_s per layer.
  model::AreaConstants area;                                ///< area: overrides.
  /// clock: modeled: each point's latency at the clock model's frequency for its array (the
  /// cost's cycles counted at the base clock, scaled by base clock / point clock); stated (the
  /// default): every point at the base's clock_mhz.
  bool modeled_clock = false;
  model::ClockConstants clock;  ///< clock_model: overrides.
  uint64_t seed = 1;            ///< seed: of `random`.
  /// Points in the space (the product of the value counts, buildable or not).
  double size() const;
};

/// Network `network` (zoo name, YAML or ONNX file; relative: beside `where`) as a workload
/// network of weight `weight`; a network that does not load, or has no layers, is a
/// core::SpecError naming `where` and `key`.
WorkloadNetwork load_workload_network(const std::string& where, const std::string& key,
                                      const std::string& network, double weight);
/// Reads and checks a space file; every refusal is a core::SpecError naming the file, the key
/// and the value (unknown keys, empty or reversed ranges, steps that do not divide, values the
/// RTL does not support, a network that does not load, a bad objective).
CodesignSpace load_codesign_space(const std::string& path);
/// The same from YAML text; `where` names it in errors and relative network files are found
/// beside it. The entry the fuzz target and the bad-input tests use.
CodesignSpace parse_codesign_space(const std::string& text, const std::string& where);

/// The command line of `mapwright codesign`.
struct CodesignOptions {
  std::string space;               ///< --space FILE.
  std::string searcher = "exact";  ///< exact | grid | random | sa | ga | bo | ppo | ppo-box | marl.
  double time_limit_s = 0;         ///< --time-limit (0 = none): anytime.
  uint64_t seed = 0;               ///< --seed (0 = the space file's seed).
  bool seed_given = false;         ///< --seed was given.
  long long budget = 100;          ///< --budget (alias --samples): points of a sampling searcher.
  std::string options_file;        ///< --options: search options ("" = configs/search/default).
  std::string out_dir;             ///< --out ("" = runs/codesign-<name>).
  bool json = false;               ///< --json: print codesign.json.
  /// --resume: continue the co-design in --out. The search runs again from its start (same
  /// searcher and seed) with every layer solve the stopped run had finished answered from its
  /// journal (solves.jsonl), so it ends where an uninterrupted run ends; --time-limit counts
  /// this run's time. Without it, a folder that holds a journal is refused.
  bool resume = false;
  /// --rtl: after the search, run each unique layer's chosen mapping on the RTL of "chosen" (the
  /// chosen design), "front" (every Pareto-front design) or "none"; models come from the
  /// build or the model cache (built on first use, for these designs only).
  std::string rtl = "chosen";
  /// --synth: after the search (and the RTL), synthesize the chosen design with yosys into
  /// <out>/synth (flows/synth.hpp) and record its cell area by part next to the model's.
  bool synth = false;
  int jobs = 0;            ///< --jobs: RTL worker processes (0 = the number of cores).
  std::string worker_exe;  ///< RTL worker binary ("" = the default; tests).
};
/// Exit codes: 0 a design was chosen (proved optimal, or with the gap a time limit left) and
/// every design --rtl names passed on the RTL; 2 bad input; 3 no design chosen: no point meets
/// the constraints (the smallest area the space reaches is said), or the time limit came before
/// the first design (its bound is said); 4 a design failed on the RTL or has no RTL model
/// (codesign.json says which and why).
int cmd_codesign(const CodesignOptions& o, std::ostream& out);

/// Writes the codesign report to `out_html` ("" = <dir>/report.html; its plots go to <dir>/plots)
/// from the codesign.json and points.json `mapwright codesign` wrote to `dir`; returns false when
/// gnuplot was unavailable (the page then has tables only). A folder without them is a
/// core::SpecError. `mapwright report DIR` calls it for a codesign folder.
bool write_codesign_report(const std::string& dir, const std::string& out_html = "");

}  // namespace mapwright::flows
