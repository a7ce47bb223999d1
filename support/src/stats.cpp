// The statistics behind `mapwright study`'s comparisons: the inverse-ECDF quantile, the
// percentile bootstrap (plain and stratified, deterministic for a seed on every platform) and
// the Kaplan-Meier estimator of a survival curve and its median for right-censored times.
#include "mapwright/support/stats.hpp"

#include <random>
#include <stdexcept>
#include <string>

namespace mapwright::core {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A draw uniform in [0, n) (n >= 1) by rejection: std::uniform_int_distribution is not the same
/// on every standard library, this is.
size_t draw_below(std::mt19937_64& rng, size_t n) {
  const uint64_t range = static_cast<uint64_t>(n);
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  const uint64_t limit = max - max % range;  // [0, limit) holds whole copies of [0, range)
  uint64_t x = rng();
  while (x >= limit) x = rng();
  return static_cast<size_t>(x % range);
}

void check_bootstrap_args(int resamples, double confidence) {
  if (resamples < 1)
    throw std::invalid_argument("bootstrap: resamples must be >= 1, got " +
                                std::to_string(resamples));
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("bootstrap: confidence must be in (0, 1), got " +
                                std::to_string(confidence));
}

}  // namespace

double quantile_inverse_ecdf(std::vector<double> v, double q) {
  if (v.empty() || std::isnan(q)) return kNaN;
  for (double x : v)
    if (std::isnan(x)) return kNaN;
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  // The k-th smallest value with k = ceil(q n) (at least 1); the 1e-9 keeps q n = 50.000000001
  // (0.025 is not exact in binary) from becoming 51.
  const double k = std::ceil(std::clamp(q, 0.0, 1.0) * n - 1e-9);
  const size_t idx = static_cast<size_t>(std::clamp(k, 1.0, n)) - 1;
  return v[idx];
}

BootstrapCI bootstrap_ci_strata(
    const std::vector<size_t>& strata,
    const std::function<double(const std::vector<std::vector<size_t>>&)>& statistic, int resamples,
    double confidence, uint64_t seed) {
  check_bootstrap_args(resamples, confidence);
  BootstrapCI ci;
  std::vector<std::vector<size_t>> idx(strata.size());
  for (size_t s = 0; s < strata.size(); ++s) {
    idx[s].resize(strata[s]);
    std::iota(idx[s].begin(), idx[s].end(), size_t{0});
  }
  ci.estimate = statistic(idx);
  std::mt19937_64 rng(seed);
  std::vector<double> reps;
  reps.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (size_t s = 0; s < strata.size(); ++s)
      for (size_t i = 0; i < strata[s]; ++i) idx[s][i] = draw_below(rng, strata[s]);
    reps.push_back(statistic(idx));
  }
  const double alpha = 1 - confidence;
  ci.lo = quantile_inverse_ecdf(reps, alpha / 2);
  ci.hi = quantile_inverse_ecdf(std::move(reps), 1 - alpha / 2);
  return ci;
}

BootstrapCI bootstrap_ci(const std::vector<double>& sample,
                         const std::function<double(const std::vector<double>&)>& statistic,
                         int resamples, double confidence, uint64_t seed) {
  check_bootstrap_args(resamples, confidence);
  if (sample.empty()) return {};
  std::vector<double> drawn(sample.size());
  return bootstrap_ci_strata(
      {sample.size()},
      [&](const std::vector<std::vector<size_t>>& idx) {
        for (size_t i = 0; i < drawn.size(); ++i) drawn[i] = sample[idx[0][i]];
        return statistic(drawn);
      },
      resamples, confidence, seed);
}

double KaplanMeier::survival_at(double t) const {
  double s = 1;
  for (const auto& st : steps) {
    if (st.time > t) break;
    s = st.survival;
  }
  return s;
}

KaplanMeier kaplan_meier(const std::vector<TimeToEvent>& data) {
  for (const auto& d : data)
    if (std::isnan(d.time)) throw std::invalid_argument("kaplan_meier: a time is NaN");
  std::vector<TimeToEvent> v = data;
  std::sort(v.begin(), v.end(),
            [](const TimeToEvent& a, const TimeToEvent& b) { return a.time < b.time; });
  KaplanMeier km;
  double s = 1;
  int at_risk = static_cast<int>(v.size());
  for (size_t i = 0; i < v.size();) {
    KaplanMeierStep st;
    st.time = v[i].time;
    st.at_risk = at_risk;
    for (; i < v.size() && v[i].time == st.time; ++i) (v[i].observed ? st.events : st.censored)++;
    if (st.events > 0) s *= 1 - static_cast<double>(st.events) / static_cast<double>(at_risk);
    st.survival = s;
    at_risk -= st.events + st.censored;
    if (!km.median && st.events > 0 && s <= 0.5 + 1e-12) km.median = st.time;
    km.steps.push_back(st);
  }
  return km;
}

}  // namespace mapwright::core
