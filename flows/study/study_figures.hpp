#pragma once
/// \file study_figures.hpp
/// The statistics of a study as typed figures (StudyFigures, study.hpp), computed from its
/// finished runs: each layer's reference, samples-to-target per run, the per (layer, searcher)
/// cells, the per-searcher summaries, and the ratios against the baselines marl and ppo-box.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mapwright/support/stats.hpp"
#include "mapwright/flows/study.hpp"
#include "study/study_state.hpp"

namespace mapwright::flows {

/// A study's runs measured against each layer's reference. The reference is the exact
/// mapper's answer; a finished sampled run that beat it would mean the exact mapper is wrong
/// (or stopped at its time limit with a gap): it is counted, reported, and then taken as the
/// reference so that no ratio falls below 1.
class StudyRuns {
 public:
  StudyRuns(const StudySetup& setup, const std::vector<Job>& jobs,
            const std::vector<StudyOptimum>& optimum);

  const std::vector<Job>& jobs() const { return jobs_; }              ///< Every planned run.
  const std::vector<double>& references() const { return ref_; }      ///< Per layer.
  const std::vector<int>& beat_exact() const { return beat_exact_; }  ///< Per layer.
  /// The finished, non-reference runs of searcher `k` (one of the suite's) on layer `li`.
  const std::vector<const Job*>& of(const std::string& k, size_t li) const {
    return runs_.at(k)[li];
  }
  /// Samples run `j` needed to come within `pct` % of its layer's reference: an event at that
  /// sample or, when it never did, censored at its budget.
  core::TimeToEvent samples_to(const Job& j, double pct) const;
  /// Samples run `j` needed to reach a cost at or below `target` (censored at its budget).
  core::TimeToEvent samples_to_cost(const Job& j, double target) const;
  /// A run's best cost after `b` samples relative to the reference (+inf: it stopped earlier).
  double cost_at(const Job& j, int64_t b) const;
  /// Searcher `k`'s values over layers at budget `b` (best / reference per run).
  std::vector<std::vector<double>> ratios_at(const std::string& k, int64_t b) const;

 private:
  const std::vector<Job>& jobs_;  ///< Every planned run.
  std::vector<double> ref_;       ///< Reference cost per layer.
  std::vector<int> beat_exact_;   ///< Per layer: finished runs below the exact mapper.
  /// runs_[searcher][layer]: finished, non-reference runs, in plan order.
  std::map<std::string, std::vector<std::vector<const Job*>>> runs_;
};

/// Every figure of the study.
StudyFigures study_figures(const StudySetup& setup, const StudyRuns& runs);

/// Searcher `k`'s geometric mean over layers of the median best / reference at budget `b`,
/// with its bootstrap interval (the gap to the optimum plus 1).
core::BootstrapCI gap_ratio_at(const StudySetup& setup, const StudyRuns& runs, const std::string& k,
                               int64_t b);

/// The index of the 5 % target in the suite's targets (the headline figures use it).
size_t five_pct_index(const StudySuite& suite);

}  // namespace mapwright::flows
