#pragma once
/// \file regress.hpp
/// `mapwright regress --suite configs/regress/<name>.yaml [--junit out.xml] [--update]`: fixed
/// mappings through the RTL (in worker processes, grouped by architecture) and the surrogate,
/// checked against golden values: the RTL must be bit-exact against the C++ reference, RTL and
/// surrogate cycles must match their goldens within the suite's tolerance, and every access
/// count (RTL and surrogate) must equal its golden exactly. Goldens live beside the suite in
/// `<name>.golden.yaml` and are rewritten only by --update.
///
/// Suite file:
///   name: smoke
///   tolerance: {cycles_pct: 0}          # default for every case (0 = exact)
///   cases:                              # explicit cases
///     - name: ws-conv3x3
///       arch: small4
///       layer: 'conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1'
///       mapping: {dataflow: ws, tiles: {...}, ...}   # or a YAML file beside the suite, or
///       seed: 1                                      #    'default' (+ optional dataflow: os)
///       tolerance: {cycles_pct: 1}      # optional, per case
///   sweeps:                             # generated cases: every distinct layer shape of
///     - name: zoo                       # these networks, scaled down, on these archs and
///       networks: [resnet18, vgg16]     # dataflows, with the greedy default mapping
///       archs: [small8, default]
///       dataflows: [ws, os]
///       scale: {max_channels: 32, max_hw: 14, max_rows: 64, max_groups: 4}

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"

namespace mapwright::flows {

/// One regression case after loading (sweeps expanded).
struct RegressCase {
  std::string name;           ///< Unique within the suite.
  std::string arch;           ///< Architecture name or file.
  std::string layer_text;     ///< The layer as written (or generated).
  core::Layer layer;          ///< The layer.
  core::Mapping mapping;      ///< The fixed mapping.
  uint64_t seed = 1;          ///< Seed of the RTL operands.
  double cycles_tol_pct = 0;  ///< Allowed cycle drift in percent (0 = exact).
};

/// A parsed suite; errors name the file, key and value.
struct RegressSuite {
  std::string name;                ///< Suite name.
  std::string path;                ///< Suite file.
  std::string golden_path;         ///< Golden file beside it.
  std::vector<RegressCase> cases;  ///< Cases in file order (sweeps after explicit cases).
  std::vector<std::string> notes;  ///< Facts about generation (e.g. scaled layers).
};
RegressSuite load_regress_suite(const std::string& path);

struct RegressOptions {
  std::string suite;          ///< Suite YAML.
  std::string junit;          ///< JUnit XML output ("" = none).
  bool update = false;        ///< Rewrite the goldens from this run.
  int jobs = 0;               ///< Worker processes (0 = number of cores).
  std::string filter;         ///< Run only cases whose name contains this.
  bool progress = true;       ///< Progress on stderr when it is a terminal.
  std::string worker_exe;     ///< mapwright binary for RTL workers ("" = this one).
  rtlpool::SimLimits limits;  ///< Per-case simulation limits (--sim-max-*).
};
/// Exit codes: 0 every case matches (or goldens updated); 1 drift or failure (with a diff on
/// `out`; a case over a simulation limit fails as kind "limit"); 2 bad suite or bad limit.
int cmd_regress(const RegressOptions& o, std::ostream& out);

}  // namespace mapwright::flows
