#pragma once
/// \file study.hpp
/// `mapwright study --suite configs/studies/<name>.yaml`: searchers x seeds x layers on the
/// surrogate, measured against each layer's optimum as proven by the exact mapper (its best
/// mapping, lower bound and gap are recorded; optional long sampled reference runs check that
/// no sampled mapping beats it), with samples-to-target ("within X % of the optimum") and
/// iso-sample gaps to the optimum, medians over seeds, CSVs, SVG plots and a JSON summary with
/// the headline ratios.

#include <cstdint>
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
};
/// Loads a suite; errors name the file, key and value.
StudySuite load_study_suite(const std::string& path);

struct StudyOptions {
  std::string suite;         ///< Suite YAML path.
  std::string out_dir;       ///< Output folder (default runs/study-<name>).
  std::string options_file;  ///< Search options YAML; overrides the suite's `options` key.
  int jobs = 0;              ///< Worker threads (0 = number of cores).
  bool json = false;         ///< Print the summary JSON.
  /// Continue the study in out_dir: runs recorded in its trials.jsonl are not run again.
  bool resume = false;
};
int cmd_study(const StudyOptions& o, std::ostream& out);

}  // namespace mapwright::flows
