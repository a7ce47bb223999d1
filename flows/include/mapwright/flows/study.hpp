#pragma once
/// \file study.hpp
/// `mapwright study --suite configs/studies/<name>.yaml`: searchers x seeds x layers on the
/// surrogate, measured against a per-layer reference best (the best any searcher finds with a
/// budget `reference_multiplier` times larger, or anything better seen in the study), with
/// samples-to-target and iso-sample costs, medians over seeds, CSVs, SVG plots and a JSON
/// summary with the headline ratios.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace mapwright::flows {

/// A parsed and validated suite.
struct StudySuite {
  std::string name;                       ///< Suite name.
  std::string arch = "default";           ///< Architecture.
  std::string objective = "edp";          ///< Objective (see parse_objective).
  std::string options_file;               ///< Search options ("" = configs/search/default.yaml).
  std::vector<std::string> searchers;     ///< Searcher kinds; must include marl for ratios.
  std::vector<uint64_t> seeds;            ///< One run per seed.
  int64_t budget = 4000;                  ///< Samples per run.
  std::vector<int64_t> iso_budgets;       ///< Budgets at which costs are compared.
  std::vector<double> targets_pct;        ///< Within-X% targets for samples-to-target.
  int64_t reference_multiplier = 20;      ///< Reference run budget = multiplier * budget.
  uint64_t reference_seed = 1000;         ///< Seed of the reference runs.
  std::vector<std::string> reference_searchers;  ///< Searchers of the long reference runs
                                                 ///< (default: all of `searchers`).
  std::vector<std::string> layers;        ///< --layer arguments.
};
/// Loads a suite; errors name the file, key and value.
StudySuite load_study_suite(const std::string& path);

struct StudyOptions {
  std::string suite;  ///< Suite YAML path.
  std::string out_dir;  ///< Output folder (default runs/study-<name>).
  std::string options_file;  ///< Search options YAML; overrides the suite's `options` key.
  int jobs = 0;       ///< Worker threads (0 = number of cores).
  bool json = false;  ///< Print the summary JSON.
};
int cmd_study(const StudyOptions& o, std::ostream& out);

}  // namespace mapwright::flows
