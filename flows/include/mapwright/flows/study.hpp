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
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/support/stats.hpp"
#include "mapwright/search/options.hpp"

namespace YAML {
class Node;
}

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
  /// Key reward.surrogate_prior (rtl only): every run's searcher is first given this many
  /// uniformly drawn points scored by the surrogate (LayerSearchRequest::surrogate_prior), which
  /// are not samples; every searcher gets the same prior privilege.
  int64_t surrogate_prior = 0;
  /// Per searcher, a smaller budget than `budget` (key budget_caps, e.g. {bo: 1024}) for a
  /// searcher whose cost grows fast with the samples: its runs end there, samples-to-target
  /// counts them as censored at the cap, and iso budgets above the cap have no figure for it.
  std::map<std::string, int64_t> budget_caps;
  /// The budget of `searcher`'s runs.
  int64_t budget_of(const std::string& searcher) const {
    const auto it = budget_caps.find(searcher);
    return it == budget_caps.end() ? budget : std::min(budget, it->second);
  }
  /// The sampling searchers' encoding (key encoding: compact, raw or gamma; layer_search.hpp).
  std::string encoding = "compact";
  /// Key final_quality_of: a searcher whose final quality is a second target: per layer, the
  /// median over its seeds of its best at its budget; every searcher's samples to reach it, and
  /// the ratio (its samples / theirs), as the paper's "N x fewer samples" ("" = none).
  std::string final_quality_of;
  int bootstrap_resamples = 2000;      ///< Bootstrap replicates per interval.
  double bootstrap_confidence = 0.95;  ///< Coverage of the bootstrap intervals.
  uint64_t bootstrap_seed = 1;         ///< Base seed of every bootstrap (recorded in study.json).
};
/// Loads a suite; errors name the file, key and value.
StudySuite load_study_suite(const std::string& path);
/// The `bootstrap:` map of suite `root` read from `path`, if any, into the three settings
/// (resamples 100..1e6, confidence 0.5..0.999, seed 0..2^62; unknown keys refused): the same for
/// mapping and co-design studies.
void read_bootstrap_settings(const YAML::Node& root, const std::string& path, int& resamples,
                             double& confidence, uint64_t& seed);

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

/// What a ratio of samples-to-target is when a KM median was not reached.
enum class RatioKind {
  Exact,    ///< Both medians reached.
  Lower,    ///< The searcher's was not reached: the true ratio is above the value.
  Upper,    ///< The baseline's was not reached: the true ratio is below the value.
  Unknown,  ///< Neither reached (a single layer), or bounds both ways (a median over layers).
};

/// A ratio of samples-to-target on one layer, or the bound it is (study_stats.hpp's
/// samples_ratio).
struct LayerRatio {
  double value = 0;                   ///< Ratio or bound (NaN when Unknown).
  RatioKind kind = RatioKind::Exact;  ///< What the value is.
};

/// The median over layers of per-layer ratios; layers where neither median was reached are
/// left out (counted in `unknown`).
struct RatioSummary {
  double median = 0;                  ///< Median of the values (NaN: no layer has one).
  RatioKind kind = RatioKind::Exact;  ///< Exact; Lower/Upper when bounds of one direction
                                      ///< (and exact values) went in; Unknown when both.
  int exact = 0;                      ///< Layers with an exact ratio.
  int lower = 0;                      ///< Layers whose value is a lower bound.
  int upper = 0;                      ///< Layers whose value is an upper bound.
  int unknown = 0;                    ///< Layers left out: neither median reached.
};

/// One searcher on one layer: the figures over its finished, non-reference runs (one per seed).
/// Vectors run parallel to the suite's `targets_pct` and `iso_budgets`.
struct StudyCell {
  size_t seeds = 0;  ///< Finished runs.
  /// Per target: Kaplan-Meier median over the runs of the samples to come within it of the
  /// optimum (+inf: not reached), with its bootstrap interval.
  std::vector<core::BootstrapCI> samples_to;
  std::vector<int> reached;           ///< Per target: runs that reached it.
  std::vector<double> cost_ratio_at;  ///< Per iso budget: median over runs of best / optimum.
  int64_t samples = 0;                ///< Samples over the runs.
  int64_t invalid = 0;                ///< Invalid samples over the runs.
  int64_t duplicates = 0;             ///< Duplicate proposals over the runs.
};

/// One searcher over all layers.
struct StudySearcherSummary {
  /// Per iso budget: the gap to the optimum, i.e. the geometric mean over layers of the median
  /// (over seeds) best / optimum, minus 1 (+inf or NaN: the median run of some layer had no
  /// valid mapping), with its bootstrap interval (seeds resampled within each layer).
  std::vector<core::BootstrapCI> gap_to_optimum;
  /// Per target: the median over layers of the per-layer KM medians, with its interval.
  std::vector<core::BootstrapCI> median_layer;
  std::vector<int> layers_reached;  ///< Per target: layers whose KM median is reached.
  int64_t samples = 0;              ///< Samples over all runs.
  int64_t invalid = 0;              ///< Invalid samples over all runs.
  int64_t duplicates = 0;           ///< Duplicate proposals over all runs.
};

/// One searcher against a baseline searcher (marl, ppo-box).
struct StudyBaselineRatio {
  /// Median over layers of (searcher's KM median samples to 5 %) / (the baseline's).
  RatioSummary samples_to_5pct;
  /// Per iso budget: geometric mean over layers of (searcher's median best) / (the
  /// baseline's), over the layers where both are finite (0: no such layer).
  std::vector<double> geomean_cost_ratio_at;
};
/// Every other searcher of the suite against one baseline, by searcher kind.
using StudyRatios = std::map<std::string, StudyBaselineRatio>;

/// Samples to reach one searcher's final quality (suite key final_quality_of).
struct StudyFinalQuality {
  std::string of;                  ///< The searcher whose final quality is the target.
  std::vector<double> target_gap;  ///< Per layer: its median best at its budget / optimum - 1.
  /// [searcher][layer]: KM median samples to reach the target, with its bootstrap interval.
  std::map<std::string, std::vector<core::BootstrapCI>> samples_to;
  /// [searcher][layer]: `of`'s KM median over the searcher's (> 1: the searcher needs fewer
  /// samples), a bound when one of the two medians is not reached (samples_ratio's kinds, with
  /// the roles swapped: the ratio is of / searcher).
  std::map<std::string, std::vector<LayerRatio>> ratio;
};

/// Everything a study computes from its runs.
struct StudyFigures {
  /// Per layer: the reference cost, the exact mapper's optimum or, should a finished sampled
  /// run beat it, that run's best (+inf: no valid mapping known).
  std::vector<double> reference_cost;
  std::vector<int> beat_exact;  ///< Per layer: finished sampled runs below the exact mapper.
  std::map<std::string, std::vector<StudyCell>> cells;    ///< [searcher][layer index].
  std::map<std::string, StudySearcherSummary> searchers;  ///< Per searcher, over all layers.
  std::optional<StudyRatios> vs_marl;     ///< Against marl (none: the suite has no marl).
  std::optional<StudyRatios> vs_ppo_box;  ///< Against ppo-box (none: no ppo-box).
  /// The suite's final_quality_of figures (none: the suite has no such key).
  std::optional<StudyFinalQuality> final_quality;
  /// Finished sampled runs that beat the exact mapper, over all layers.
  int beat_exact_total() const {
    int n = 0;
    for (int b : beat_exact) n += b;
    return n;
  }
};

/// The reference of a layer: its optimum, proven by the exact mapper (or, if the time limit
/// stops it, the best mapping found with the lower bound it has proven).
struct StudyOptimum {
  bool found = false;     ///< A valid mapping exists.
  double cost = 0;        ///< Best cost found by the exact mapper.
  nlohmann::json record;  ///< The exact mapper's record: bound, gap, optimal, effort, cost.
};

/// A finished (or interrupted) study: what ran, its figures and where they were written.
struct StudyResult {
  StudySuite suite;                      ///< The suite (its options file after --options).
  std::string suite_file;                ///< The suite YAML path.
  std::string arch;                      ///< Architecture name.
  search::SearchOptions search_options;  ///< The searchers' options.
  /// Layer names in suite order, each unique (an inline layer is named after its spec, a
  /// repeated name gets "#<index>").
  std::vector<std::string> layers;
  std::vector<StudyOptimum> optimum;      ///< Per layer.
  double exact_seconds = 0;               ///< Wall time of the exact mapper over all layers.
  double wall_seconds = 0;                ///< Wall time of the sampled runs of this session.
  int threads = 1;                        ///< Threads (or computing MPI ranks) that ran them.
  bool interrupted = false;               ///< Stopped by Ctrl-C: resume to finish.
  size_t runs_from_earlier_sessions = 0;  ///< Runs read from the trial log.
  StudyFigures figures;                   ///< The statistics.
  /// The study folder: study.json, study.html, runs.csv, summary.csv, searchers.csv, curves/,
  /// plots/, and the state a resumed study reads (study-state.json, trials.jsonl).
  std::filesystem::path dir;
  bool plotted = true;  ///< gnuplot drew every SVG.
};

/// A study as an application object: constructed from the options and the parsed suite
/// (which fail early on a bad architecture, objective, options file or layer), `run()` does the
/// whole study and returns its figures; it also writes every file of the study folder.
class StudyApp {
 public:
  /// `suite` is load_study_suite(options.suite) (its file is also read for the fingerprint).
  StudyApp(const StudyOptions& options, StudySuite suite);
  ~StudyApp();
  StudyApp(const StudyApp&) = delete;
  StudyApp& operator=(const StudyApp&) = delete;

  /// Runs the study in its folder (locked, resumable); throws SpecError on bad input or a
  /// folder it cannot use. An interrupted study returns what it has (`interrupted`).
  StudyResult run();
  /// A rank other than 0 under mpirun: runs the searcher runs rank 0 hands out and sends each
  /// back; writes nothing (rank 0 owns the study folder). Returns the exit code.
  int serve();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;  ///< Setup (suite, architecture, layers, folder).
};

/// The table a user reads after `mapwright study`, and how to resume when it was interrupted.
void print_study(const StudyResult& result, std::ostream& out);

/// `mapwright study`: parses the suite, runs the study, prints the table (or with `json` the
/// summary). Exit codes: 0 done, 130 interrupted (finished runs are kept; --resume goes on).
int cmd_study(const StudyOptions& o, std::ostream& out);

}  // namespace mapwright::flows
