#pragma once
/// \file sweep_point.hpp
/// One point of a sweep: its architecture (built in memory from the base; its YAML written to
/// archs/<point>.yaml for the RTL workers and as a record), its area, its RTL model, and its
/// `mapwright run` in this process (run_app.hpp), whose record gives the point's figures.

#include <filesystem>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/flows/sweep.hpp"
#include "run/run_app.hpp"

namespace mapwright::flows {

/// What every point of a sweep shares, read once per process.
struct SweepContext {
  SweepFile file;    ///< The sweep file, checked.
  core::Arch base;   ///< Its base architecture.
  RunInputs inputs;  ///< The network's layers, the objective and the search options.
};
/// The context of sweep file `s`: loads its base architecture, reads its network (a bad one is
/// refused naming the file; its import notes go to `notes` when set) and the default search
/// options.
SweepContext load_sweep_context(SweepFile s, std::ostream* notes);

/// The architecture YAML of point `p`: the base architecture's file with the point's parameters
/// and name (written to archs/<point>.yaml; the RTL workers load it by that path).
std::string point_arch_yaml(const SweepFile& s, const SweepPoint& p);
/// The architecture of point `p` built in memory: `base` with the point's parameters and name,
/// what loading point_arch_yaml gives (load_sweep_file checked the parameters).
core::Arch point_arch(const core::Arch& base, const SweepPoint& p);

/// Runs point `sp` of the sweep in folder `dir`: its architecture, area, RTL model (when `p`
/// says "rtl"), then its run (one run folder per point, points/<point>/), whose figures go into
/// `p` and whose summary goes to `log`. Returns the run's exit code, or 4 for a failure of the
/// point outside the run (its RTL model could not be built), 130 when interrupted.
int run_point(const SweepContext& c, const SweepOptions& o, const std::filesystem::path& dir,
              const SweepPoint& sp, nlohmann::json& p, std::ostream& log);

}  // namespace mapwright::flows
