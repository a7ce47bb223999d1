// The statistics of a study on plain data: Kaplan-Meier medians of samples-to-target with
// bootstrap intervals (runs resampled within each layer), geometric means of median cost
// ratios with intervals, and samples-to-target ratios that say when they are bounds.
#include "study/study_stats.hpp"

#include <cmath>
#include <limits>

#include "study/study_store.hpp"

namespace mapwright::flows {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The runs of one layer picked by a bootstrap draw.
std::vector<core::TimeToEvent> pick(const std::vector<core::TimeToEvent>& runs,
                                    const std::vector<size_t>& idx) {
  std::vector<core::TimeToEvent> out;
  out.reserve(idx.size());
  for (size_t i : idx) out.push_back(runs[i]);
  return out;
}

std::vector<size_t> sizes_of(const std::vector<std::vector<core::TimeToEvent>>& layers) {
  std::vector<size_t> s;
  for (const auto& l : layers) s.push_back(l.size());
  return s;
}

/// Geometric mean over layers of the median of the drawn runs of each layer.
double geomean_drawn(const std::vector<std::vector<double>>& layers,
                     const std::vector<std::vector<size_t>>& idx) {
  if (layers.empty()) return kNaN;
  double lg = 0;
  std::vector<double> v;
  for (size_t l = 0; l < layers.size(); ++l) {
    if (idx[l].empty()) return kNaN;
    v.clear();
    for (size_t i : idx[l]) v.push_back(layers[l][i]);
    const double m = core::median(v);
    if (!(std::isfinite(m) && m > 0)) return kInf;
    lg += std::log(m);
  }
  return std::exp(lg / static_cast<double>(layers.size()));
}

}  // namespace

uint64_t statistic_seed(uint64_t base, const std::string& label) {
  // FNV-1a of the label (stable across platforms, unlike std::hash), mixed with the base seed
  // by splitmix64's finalizer.
  uint64_t x = std::stoull(fingerprint(label), nullptr, 16) ^ base;
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double km_median(const std::vector<core::TimeToEvent>& runs) {
  return core::kaplan_meier(runs).median.value_or(kInf);
}

core::BootstrapCI km_median_ci(const std::vector<core::TimeToEvent>& runs,
                               const BootstrapSettings& b, const std::string& label) {
  if (runs.empty()) return {kInf, kInf, kInf};
  return core::bootstrap_ci_strata(
      {runs.size()},
      [&](const std::vector<std::vector<size_t>>& idx) { return km_median(pick(runs, idx[0])); },
      b.resamples, b.confidence, statistic_seed(b.seed, label));
}

core::BootstrapCI median_layer_km_ci(const std::vector<std::vector<core::TimeToEvent>>& layers,
                                     const BootstrapSettings& b, const std::string& label) {
  if (layers.empty()) return {};
  std::vector<double> m(layers.size());
  return core::bootstrap_ci_strata(
      sizes_of(layers),
      [&](const std::vector<std::vector<size_t>>& idx) {
        for (size_t l = 0; l < layers.size(); ++l) m[l] = km_median(pick(layers[l], idx[l]));
        return core::median(m);
      },
      b.resamples, b.confidence, statistic_seed(b.seed, label));
}

double geomean_of_medians(const std::vector<std::vector<double>>& layers) {
  std::vector<std::vector<size_t>> idx;
  for (const auto& l : layers) {
    idx.emplace_back(l.size());
    std::iota(idx.back().begin(), idx.back().end(), size_t{0});
  }
  return geomean_drawn(layers, idx);
}

core::BootstrapCI geomean_of_medians_ci(const std::vector<std::vector<double>>& layers,
                                        const BootstrapSettings& b, const std::string& label) {
  if (layers.empty()) return {};
  std::vector<size_t> sizes;
  for (const auto& l : layers) sizes.push_back(l.size());
  return core::bootstrap_ci_strata(
      sizes,
      [&](const std::vector<std::vector<size_t>>& idx) { return geomean_drawn(layers, idx); },
      b.resamples, b.confidence, statistic_seed(b.seed, label));
}

const char* ratio_kind_name(RatioKind k) {
  switch (k) {
    case RatioKind::Exact:
      return "exact";
    case RatioKind::Lower:
      return "lower_bound";
    case RatioKind::Upper:
      return "upper_bound";
    case RatioKind::Unknown:
      break;
  }
  return "unknown";
}

LayerRatio samples_ratio(double searcher, double baseline, double budget) {
  const bool s = std::isfinite(searcher), r = std::isfinite(baseline);
  if (s && r) return {searcher / baseline, RatioKind::Exact};
  // Not reached: the median is beyond the budget, so the ratio is beyond budget / baseline
  // (or below searcher / budget).
  if (!s && r) return {budget / baseline, RatioKind::Lower};
  if (s && !r) return {searcher / budget, RatioKind::Upper};
  return {kNaN, RatioKind::Unknown};
}

RatioSummary median_ratio(const std::vector<LayerRatio>& layers) {
  RatioSummary out;
  std::vector<double> v;
  for (const auto& r : layers) {
    switch (r.kind) {
      case RatioKind::Exact:
        ++out.exact;
        break;
      case RatioKind::Lower:
        ++out.lower;
        break;
      case RatioKind::Upper:
        ++out.upper;
        break;
      case RatioKind::Unknown:
        ++out.unknown;
        continue;
    }
    v.push_back(r.value);
  }
  out.median = core::median(v);
  // Raising values (lower bounds) can only raise the median: with exact values and lower bounds
  // the median is a lower bound; likewise for upper bounds; with both it bounds nothing.
  out.kind = out.lower && out.upper ? RatioKind::Unknown
             : out.lower            ? RatioKind::Lower
             : out.upper            ? RatioKind::Upper
             : v.empty()            ? RatioKind::Unknown
                                    : RatioKind::Exact;
  return out;
}

}  // namespace mapwright::flows
