#pragma once
/// \file sweep.hpp
/// `mapwright sweep`: the grid searcher of the co-design machinery (codesign.hpp) over the
/// points a sweep file (configs/sweeps/) lists or grids around a base architecture. Every point
/// is scored as `codesign` scores one: each unique layer of the network at its proven-optimal
/// mapping (the exact mapper, memoized; every solve kept in the folder's journal), its area from
/// the analytical area model (model/area.hpp); the chosen mappings of the points `verify` names
/// then run on the point's RTL model (compiled in, or built in the model cache on first use).
/// The sweep folder gets sweep.json (every point's figures and RTL verdict), the `sweep_points`
/// table in results.sqlite, and sweep.html with the Pareto fronts (area vs latency, area vs
/// energy, area vs EDP) and the winner under the file's constraints. A point whose RTL model
/// cannot be built is a typed failure of that point (it keeps its figures) while the sweep goes
/// on; a stopped sweep (Ctrl-C, a kill) continues with `--resume` from its journals.

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "mapwright/flows/objective.hpp"
#include "mapwright/model/area.hpp"

namespace mapwright::flows {

/// One architecture of a sweep.
struct SweepPoint {
  std::string name;  ///< "p007-16x16-i128-w128-a64-bw16-ws.os": index and parameters.
  int rows = 0, cols = 0;
  long long input_kib = 0, weight_kib = 0, accum_kib = 0;
  int dram_bytes_per_cycle = 0;
  std::vector<std::string> dataflows;  ///< "ws", "os", "is".
};

/// A sweep file, checked.
struct SweepFile {
  std::string path;                   ///< Where it was read from.
  std::string name;                   ///< name: (file stem by default).
  std::string description;            ///< description:.
  std::string network = "resnet18";   ///< network: zoo name, YAML or ONNX file.
  std::string base_arch = "default";  ///< base_arch: every point starts from it.
  std::string objective = "edp";      ///< objective: of the exact mapper and the winner.
  uint64_t seed = 1;                  ///< seed: of the runs and the verification sample.
  std::vector<SweepPoint> points;     ///< grid: product, then points:, in order, all distinct.
  /// verify: "all" (every point's chosen mappings on its RTL), "none", or "sample" (the
  /// chosen mappings of `verify_sample` points drawn with `seed`).
  std::string verify = "all";
  int verify_sample = 0;
  int top_k = 1;              ///< top_k: candidates per layer verified (the best by RTL is kept).
  ExactOptions exact;         ///< mapper: {time_limit_s, gap}.
  double max_area_mm2 = 0;    ///< constraints.max_area_mm2 (0 = none).
  double max_latency_ms = 0;  ///< constraints.max_latency_ms (0 = none).
  double max_energy_uj = 0;   ///< constraints.max_energy_uj (0 = none).
  model::AreaConstants area;  ///< area: overrides of the area model's constants.
};
/// The `constraints:` map of `root` (a sweep or codesign space file named `where`), if any: any
/// subset of max_area_mm2, max_latency_ms and max_energy_uj, each >= 0 (0 = none), into the
/// three limits; unknown keys and bad values are core::SpecErrors.
void read_design_constraints(const YAML::Node& root, const std::string& where, double& max_area_mm2,
                             double& max_latency_ms, double& max_energy_uj);
/// Reads and checks a sweep file: unknown keys, wrong types, values out of range, a grid of
/// more than 10000 points, two points with the same parameters, and parameters the base
/// architecture's checks refuse are core::SpecErrors naming the file, the key and the value.
SweepFile load_sweep_file(const std::string& path);

struct SweepOptions {
  std::string file;        ///< The sweep file.
  std::string out_dir;     ///< Sweep folder ("" = runs/sweep-<name>).
  bool resume = false;     ///< Continue the sweep in out_dir.
  int jobs = 0;            ///< RTL worker processes (0 = cores).
  bool json = false;       ///< Print sweep.json instead of the table.
  std::string worker_exe;  ///< RTL worker binary ("" = the default).
  bool synth = false;      ///< Synthesize the winner with yosys (flows/synth.hpp) into
                           ///< <out>/synth; its record is sweep.json's winner_synthesis.
};
/// Exit codes: 0 every point done (and verified where asked); 2 bad input; 4 a point failed
/// (its RTL model could not be built, a verification failed, or a layer has no mapping):
/// reported, the rest done.
int cmd_sweep(const SweepOptions& o, std::ostream& out);

}  // namespace mapwright::flows
