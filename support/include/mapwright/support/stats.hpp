#pragma once
/// \file stats.hpp
/// The small statistics the flows and searchers share: median and Spearman rank correlation
/// (inline here), and in stats.cpp the percentile bootstrap and the Kaplan-Meier estimator
/// for right-censored times to an event (both used by `mapwright study`).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

namespace mapwright::core {

/// The median (mean of the two middle values for an even count); NaN for no values.
inline double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Spearman rank correlation (average ranks for ties); NaN for fewer than 2 points, unequal
/// lengths or a constant series.
inline double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  if (n < 2 || b.size() != n) return std::numeric_limits<double>::quiet_NaN();
  auto ranks = [n](const std::vector<double>& v) {
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return v[x] < v[y]; });
    std::vector<double> r(n);
    for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j + 1 < n && v[idx[j + 1]] == v[idx[i]]) ++j;
      for (size_t k = i; k <= j; ++k) r[idx[k]] = 0.5 * static_cast<double>(i + j) + 1;
      i = j + 1;
    }
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / static_cast<double>(n);
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : std::numeric_limits<double>::quiet_NaN();
}

/// A statistic of a sample with its percentile bootstrap confidence interval.
struct BootstrapCI {
  double estimate = std::numeric_limits<double>::quiet_NaN();  ///< Statistic of the sample.
  double lo = std::numeric_limits<double>::quiet_NaN();        ///< Lower end of the interval.
  double hi = std::numeric_limits<double>::quiet_NaN();        ///< Upper end (may be +inf).
};

/// The `q`-quantile (0 <= q <= 1) of `v` by the inverse of the empirical distribution function
/// (Hyndman-Fan type 1): the smallest value x of `v` with at least q * n of the values <= x
/// (the minimum for q = 0). It is always one of the values, never an interpolation, so an
/// infinite value stays infinite and a count stays a count. NaN for an empty `v` or any NaN in
/// it.
double quantile_inverse_ecdf(std::vector<double> v, double q);

/// Percentile bootstrap: `resamples` times, draws `sample.size()` values from `sample` with
/// replacement and evaluates `statistic` on them; the interval is the (1 - confidence) / 2 and
/// (1 + confidence) / 2 quantiles (quantile_inverse_ecdf) of those replicates, the estimate is
/// `statistic(sample)`. Draws come from std::mt19937_64 seeded with `seed` through an
/// unbiased bounded draw of this file (not a std distribution), so the result is the same for
/// the same seed on every platform. A statistic may return +inf (e.g. "not reached"); a NaN
/// replicate makes lo and hi NaN. An empty sample gives NaN throughout. Throws
/// std::invalid_argument for resamples < 1 or a confidence outside (0, 1).
BootstrapCI bootstrap_ci(const std::vector<double>& sample,
                         const std::function<double(const std::vector<double>&)>& statistic,
                         int resamples, double confidence, uint64_t seed);

/// Stratified percentile bootstrap over indices: stratum s has `strata[s]` members; each
/// replicate resamples every stratum on its own (with replacement, same size) and passes
/// `statistic` the drawn indices per stratum (idx[s][i] in [0, strata[s])). The estimate is the
/// statistic of the identity draw (idx[s] = 0, 1, ..., strata[s] - 1). Same interval, seeding
/// and errors as bootstrap_ci, which is this with one stratum. Use it when the data are not
/// plain numbers (pairs, runs) or when groups must keep their sizes (seeds within each layer).
BootstrapCI bootstrap_ci_strata(
    const std::vector<size_t>& strata,
    const std::function<double(const std::vector<std::vector<size_t>>&)>& statistic, int resamples,
    double confidence, uint64_t seed);

/// One observation of a time to an event: the event happened at `time` (observed = true) or
/// had not happened by `time`, when observation stopped (observed = false: right-censored).
struct TimeToEvent {
  double time = 0;       ///< Time of the event or of the censoring.
  bool observed = true;  ///< The event was seen (false: censored at `time`).
};

/// One distinct time of a Kaplan-Meier estimate.
struct KaplanMeierStep {
  double time = 0;      ///< The time.
  int at_risk = 0;      ///< Observations with time >= this time.
  int events = 0;       ///< Events at this time.
  int censored = 0;     ///< Censorings at this time.
  double survival = 1;  ///< S(time): estimated probability that the event comes after it.
};

/// The Kaplan-Meier estimate of a survival function S(t) = P(event time > t).
struct KaplanMeier {
  /// Every distinct time (events or censorings), ascending. S is a step function: 1 before the
  /// first step, steps[i].survival from steps[i].time up to the next step.
  std::vector<KaplanMeierStep> steps;
  /// The median time to the event: the smallest time t with S(t) <= 0.5. Empty ("not
  /// reached") when S never drops to 0.5, i.e. when too many observations are censored
  /// before half of them have seen the event.
  std::optional<double> median;
  /// S(t) (1 before the first step).
  double survival_at(double t) const;
};

/// Kaplan-Meier estimator: S(t) is the product over event times t_i <= t of
/// (1 - events_i / at_risk_i). At a tie, events come before censorings (an observation censored
/// at t was still at risk at t). S is compared with 0.5 with a tolerance of 1e-12, so that the
/// rounding of the product (e.g. 9/10 * 8/9 * ... * 5/6) cannot move the median past a
/// survival of exactly one half: with no censoring the median is then the lower empirical
/// median, sorted[(n - 1) / 2]. No observations give no steps and no median. Throws
/// std::invalid_argument for a NaN time.
KaplanMeier kaplan_meier(const std::vector<TimeToEvent>& data);

}  // namespace mapwright::core
