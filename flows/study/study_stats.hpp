#pragma once
/// \file study_stats.hpp
/// The statistics of a study on plain data (no study state): Kaplan-Meier medians of the
/// samples a run needs to reach a target, with runs that never reach it censored at their
/// budget; percentile bootstrap intervals that resample runs (seeds) within each layer; the
/// geometric mean over layers of median cost ratios; and ratios of samples-to-target between
/// two searchers that say when they are only bounds. Every "not reached" is +inf here.

#include <cstdint>
#include <string>
#include <vector>

#include "mapwright/support/stats.hpp"
#include "mapwright/flows/study.hpp"

namespace mapwright::flows {

/// How a study draws its bootstrap intervals (suite key `bootstrap`).
struct BootstrapSettings {
  int resamples = 2000;      ///< Replicates per interval.
  double confidence = 0.95;  ///< Coverage of the intervals.
  uint64_t seed = 1;         ///< Base seed; every statistic derives its own (statistic_seed).
};

/// The seed of one statistic, from the study's base seed and a label naming the statistic
/// (e.g. "km|3|marl|5"): independent of the order in which statistics are computed, so a
/// resumed study reports the same intervals.
uint64_t statistic_seed(uint64_t base, const std::string& label);

/// KM median of `runs` (+inf when not reached or no runs).
double km_median(const std::vector<core::TimeToEvent>& runs);

/// KM median of one layer's runs with a bootstrap interval over the runs (hi = +inf: the
/// median is not reached in the upper tail of the replicates).
core::BootstrapCI km_median_ci(const std::vector<core::TimeToEvent>& runs,
                               const BootstrapSettings& b, const std::string& label);

/// Median over layers of each layer's KM median (+inf sorts last: "not reached on the median
/// layer"); the bootstrap resamples the runs within each layer.
core::BootstrapCI median_layer_km_ci(const std::vector<std::vector<core::TimeToEvent>>& layers,
                                     const BootstrapSettings& b, const std::string& label);

/// Geometric mean over layers of the median over runs of `layers[l][run]` (best / optimum,
/// >= 1). +inf when a layer's median is not finite (the median run had no valid mapping yet)
/// or not positive; NaN when there are no layers or a layer has no runs. The bootstrap
/// resamples the runs within each layer.
double geomean_of_medians(const std::vector<std::vector<double>>& layers);
core::BootstrapCI geomean_of_medians_ci(const std::vector<std::vector<double>>& layers,
                                        const BootstrapSettings& b, const std::string& label);

/// "exact", "lower_bound", "upper_bound", "unknown".
const char* ratio_kind_name(RatioKind k);

/// Samples-to-target of a searcher over a baseline's on one layer (KM medians, +inf = not
/// reached within `budget`): a median that is not reached counts as `budget`, making the ratio
/// a bound (LayerRatio, study.hpp).
LayerRatio samples_ratio(double searcher, double baseline, double budget);

/// The median over layers of per-layer ratios (RatioSummary, study.hpp); layers where neither
/// median was reached are left out (counted in `unknown`).
RatioSummary median_ratio(const std::vector<LayerRatio>& layers);

}  // namespace mapwright::flows
