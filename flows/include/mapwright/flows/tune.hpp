#pragma once
/// \file tune.hpp
/// `mapwright tune --plan configs/tuning/<name>.yaml`: equal-effort tuning of every searcher's
/// hyper-parameters on a study suite of tuning layers (layers that are in no test suite).
///
/// Every searcher gets the same number of configurations (`trials`) and, per configuration, the
/// same runs (the suite's layers x seeds x budget): trial 0 is the base options file, trials
/// 1..T-1 draw each listed knob from its range (uniform, or log-uniform) with the plan's seed.
/// One options file per trial holds that trial's configuration of every searcher, so one study
/// per trial measures them all (the suite's optimum is proven once per study). A searcher's
/// score in a trial is the mean over the suite's iso budgets (up to its budget cap) of
/// log(1 + gap to the optimum), the gap being the study's geometric mean over layers of the
/// median over seeds; the lowest score wins (ties go to the earlier trial, so the base keeps
/// its place unless beaten). The output folder holds options/trial-<t>.yaml, study-<t>/ (a full
/// study each), tune.json (every trial's knobs, gaps and score, the winners) and tuned.yaml: the
/// base options with each searcher's section taken from its winning trial.

#include <ostream>
#include <string>

namespace mapwright::flows {

struct TuneOptions {
  std::string plan;     ///< Plan YAML path.
  std::string out_dir;  ///< Output folder (default runs/tune-<name>).
  int jobs = 0;         ///< Worker threads of each study (0 = number of cores).
  bool resume = false;  ///< Continue in out_dir: finished runs of every study are kept.
};
/// Exit codes: 0 done; 2 bad input; 130 interrupted (finished runs are kept; --resume goes on).
int cmd_tune(const TuneOptions& o, std::ostream& out);

}  // namespace mapwright::flows
