#pragma once
/// \file run.hpp
/// `mapwright run` (the main job), `mapwright report` and `mapwright compare`.
///
/// run: search every unique layer of a network (or one layer) on the surrogate, verify the
/// top-K distinct candidates of each layer on the RTL in worker processes, pick the best by
/// RTL, and write a run folder: results.json, CSVs, the best mapping of each layer as YAML, a
/// SQLite results store and a self-contained report.html. Finished layers and verifications
/// are written as they complete, so Ctrl-C keeps them and `--resume` continues the run.

#include <ostream>
#include <set>
#include <string>

#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/flows/run_record.hpp"
#include "mapwright/flows/run_settings.hpp"

namespace mapwright::flows {

/// A `mapwright run`: the run's settings (what it is) and how this process runs it.
struct RunOptions {
  RunSettings settings;  ///< What the run is; a resumed run takes the stored run's.
  int jobs = 0;          ///< RTL worker processes (0 = number of cores).
  std::string out_dir;   ///< Run folder ("" = runs/run-<target>-<arch>-<searcher>-s<seed>).
  std::string db;        ///< SQLite file ("" = <out_dir>/results.sqlite).
  bool resume = false;   ///< Continue the run in out_dir (start it if absent).
  bool progress = true;  ///< Progress on stderr when it is a terminal.
  bool json = false;     ///< Print results.json instead of the summary table.
  /// Options the user gave explicitly (names without dashes); with --resume, any of these
  /// that differs from the stored run is refused.
  std::set<std::string> given;
  int stop_after_layers = -1;         ///< Testing: behave as if Ctrl-C came after N searches.
  std::string worker_exe;             ///< mapwright binary for RTL workers ("" = this one).
  long long rtl_watchdog_cycles = 0;  ///< RTL watchdog bound per run (0 = automatic).
  rtlpool::SimLimits sim_limits;      ///< --sim-max-*: per-verification limits.
  /// Under mpirun, spread the layers over the ranks (the `run` subcommand). Flows that run one
  /// cmd_run per work item on a rank of their own (a sweep point) leave it false: their run
  /// stays in that rank.
  bool distribute = false;
  /// --synth: after the searches and verifications, synthesize the run's architecture with yosys
  /// (flows/synth.hpp) and put its figures beside the area model's in results.json, the
  /// summary and report.html. A synthesis failure is recorded, never fatal.
  bool synth = false;
};
/// Exit codes: 0 all good; 2 bad input; 3 a layer has no valid mapping; 4 an RTL verification
/// failed (reported, never dropped); 130 interrupted (what finished is kept).
int cmd_run(const RunOptions& o, std::ostream& out);

}  // namespace mapwright::flows
