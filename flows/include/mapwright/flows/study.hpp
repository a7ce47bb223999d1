#pragma once
/// \file study.hpp
/// `mapwright study --suite configs/studies/<name>.yaml`: searchers x seeds x layers on the
/// surrogate, measured against each layer's optimum as proven by the exact mapper (its best
/// mapping, lower bound and gap are recorded; optional long sampled reference runs check that
/// no sampled mapping beats it). It reports samples-to-target ("within X % of the optimum") as
/// Kaplan-Meier medians over seeds (a run that never reaches the target is censored at its
/// budget), iso-sample gaps to the optimum (geometric mean over layers of the median over
/// seeds), percentile bootstrap intervals that resample seeds within each layer, ratios of
/// samples-to-5 % against marl and ppo-box, invalid and duplicate rates, as CSVs, SVG plots,
/// study.json and a self-contained study.html.

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace mapwright::flows {

/// A parsed and validated suite.
struct StudySuite {
  std::string name;                    ///< Suite name.
  std::string arch = "default";        ///< Architecture.
  std::string objective = "edp";       ///< Objective (see parse_objective).
  std::string options_file;            ///< Search options ("" = configs/search/default.yaml).
  std::vector<std::string> searchers;  ///< Searcher kinds; must include marl for ratios.
  std::vector<uint64_t> seeds;         ///< One run per seed.
  int64_t budget = 4000;               ///< Samples per run.
  std::vector<int64_t> iso_budgets;    ///< Budgets at which costs are compared.
  std::vector<double> targets_pct;     ///< Within-X% targets for samples-to-target.
  double reference_time_limit_s = 60;  ///< Exact mapper's time limit per layer (the optimum).
  double reference_gap = 0;            ///< Exact mapper's target gap (0: prove optimality).
  int64_t reference_multiplier = 0;    ///< Sampled reference runs of multiplier * budget
                                       ///< samples (0: none; the optimum is the reference).
  uint64_t reference_seed = 1000;      ///< Seed of the sampled reference runs.
  std::vector<std::string> reference_searchers;  ///< Searchers of the long reference runs
                                                 ///< (default: all of `searchers`).
  std::vector<std::string> layers;               ///< --layer arguments.
  /// Key reward {source: rtl, surrogate_warmup: N}: the searchers' samples after the first N
  /// are scored by the Verilated RTL (one worker process per running search), as
  /// `mapwright search --reward rtl` does; the optimum stays the exact mapper's on the
  /// surrogate (whose counters equal the RTL's; cycles differ by the surrogate's small error).
  bool rtl_reward = false;
  int64_t surrogate_warmup = 0;
  /// Per searcher, a smaller budget than `budget` (key budget_caps, e.g. {bo: 1024}) for a
  /// searcher whose cost grows fast with the samples: its runs end there, samples-to-target
  /// counts them as censored at the cap, and iso budgets above the cap have no figure for it.
  std::map<std::string, int64_t> budget_caps;
  /// The budget of `searcher`'s runs.
  int64_t budget_of(const std::string& searcher) const {
    const auto it = budget_caps.find(searcher);
    return it == budget_caps.end() ? budget : std::min(budget, it->second);
  }
  int bootstrap_resamples = 2000;      ///< Bootstrap replicates per interval.
  double bootstrap_confidence = 0.95;  ///< Coverage of the bootstrap intervals.
  uint64_t bootstrap_seed = 1;         ///< Base seed of every bootstrap (recorded in study.json).
};
/// Loads a suite; errors name the file, key and value.
StudySuite load_study_suite(const std::string& path);

struct StudyOptions {
  std::string suite;         ///< Suite YAML path.
  std::string out_dir;       ///< Output folder (default runs/study-<name>).
  std::string options_file;  ///< Search options YAML; overrides the suite's `options` key.
  int jobs = 0;              ///< Worker threads (0 = number of cores).
  std::string worker_exe;    ///< RTL worker binary for reward: rtl ("" = worker_executable()).
  bool json = false;         ///< Print the summary JSON.
  /// Continue the study in out_dir: runs recorded in its trials.jsonl are not run again.
  bool resume = false;
};
int cmd_study(const StudyOptions& o, std::ostream& out);

}  // namespace mapwright::flows
