// The figures of a study from its finished runs: per layer the reference; per (layer,
// searcher) the Kaplan-Meier median of samples to every target with its bootstrap interval and
// the median cost ratio at every iso budget; per searcher the gap to the optimum at every iso
// budget and the median-layer samples to every target (intervals resample seeds within each
// layer), with invalid and duplicate counts; and every searcher against marl and ppo-box.
// Every bootstrap draws from a seed named by its statistic (statistic_seed), so the figures do
// not depend on the order in which they are computed.
#include "study/study_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "common/text.hpp"
#include "study/study_stats.hpp"

namespace mapwright::flows {

StudyRuns::StudyRuns(const StudySetup& setup, const std::vector<Job>& jobs,
                     const std::vector<StudyOptimum>& optimum)
    : jobs_(jobs) {
  const size_t n = setup.layers.size();
  ref_.assign(n, std::numeric_limits<double>::infinity());
  beat_exact_.assign(n, 0);
  for (size_t li = 0; li < n; ++li)
    if (optimum[li].found) ref_[li] = optimum[li].cost;
  for (const auto& j : jobs)
    if (j.done && j.best < ref_[j.layer]) ++beat_exact_[j.layer];
  for (const auto& j : jobs)
    if (j.done) ref_[j.layer] = std::min(ref_[j.layer], j.best);
  for (const auto& k : setup.suite.searchers) runs_[k].resize(n);
  for (const auto& j : jobs) {
    if (j.reference || !j.done) continue;
    auto& by_layer = runs_[j.searcher];
    by_layer.resize(n);
    by_layer[j.layer].push_back(&j);
  }
}

core::TimeToEvent StudyRuns::samples_to(const Job& j, double pct) const {
  return samples_to_cost(j, ref_[j.layer] * (1 + pct / 100.0));
}

core::TimeToEvent StudyRuns::samples_to_cost(const Job& j, double target) const {
  for (size_t i = 0; i < j.curve.size(); ++i)
    if (j.curve[i] <= target) return {static_cast<double>(i + 1), true};
  return {static_cast<double>(j.budget), false};
}

double StudyRuns::cost_at(const Job& j, int64_t b) const {
  return j.curve.size() >= static_cast<size_t>(b) ? j.curve[b - 1] / ref_[j.layer]
                                                  : std::numeric_limits<double>::infinity();
}

std::vector<std::vector<double>> StudyRuns::ratios_at(const std::string& k, int64_t b) const {
  std::vector<std::vector<double>> v;
  for (const auto& layer_runs : runs_.at(k)) {
    v.emplace_back();
    for (const Job* j : layer_runs) v.back().push_back(cost_at(*j, b));
  }
  return v;
}

size_t five_pct_index(const StudySuite& suite) {
  return static_cast<size_t>(std::find(suite.targets_pct.begin(), suite.targets_pct.end(), 5.0) -
                             suite.targets_pct.begin());
}

core::BootstrapCI gap_ratio_at(const StudySetup& setup, const StudyRuns& runs, const std::string& k,
                               int64_t b) {
  return geomean_of_medians_ci(runs.ratios_at(k, b), setup.boot,
                               "gap|" + k + "|" + std::to_string(b));
}

namespace {

/// One searcher on one layer: samples to every target (KM median over seeds and its
/// bootstrap interval), costs at every iso budget, invalid and duplicate counts.
StudyCell make_cell(const StudySetup& setup, const StudyRuns& runs, size_t li,
                    const std::string& k) {
  const std::vector<const Job*>& rs = runs.of(k, li);
  StudyCell c;
  c.seeds = rs.size();
  for (double t : setup.suite.targets_pct) {
    std::vector<core::TimeToEvent> d;
    int reached = 0;
    for (const Job* j : rs) {
      d.push_back(runs.samples_to(*j, t));
      reached += d.back().observed;
    }
    c.samples_to.push_back(
        km_median_ci(d, setup.boot, "km|" + std::to_string(li) + "|" + k + "|" + fmt_g(t)));
    c.reached.push_back(reached);
  }
  for (auto b : setup.suite.iso_budgets) {
    std::vector<double> v;
    for (const Job* j : rs) v.push_back(runs.cost_at(*j, b));
    c.cost_ratio_at.push_back(core::median(v));
  }
  for (const Job* j : rs) {
    c.samples += j->samples;
    c.invalid += j->invalid;
    c.duplicates += j->duplicates;
  }
  return c;
}

/// Searcher `k` over all layers: the gap to the optimum at every iso budget, samples to every
/// target on the median layer (both with bootstrap intervals that resample seeds within each
/// layer), and its invalid and duplicate counts over all its runs.
StudySearcherSummary summarize(const StudySetup& setup, const StudyRuns& runs, const std::string& k,
                               const std::vector<StudyCell>& cells) {
  const StudySuite& suite = setup.suite;
  StudySearcherSummary f;
  for (auto b : suite.iso_budgets) {
    const core::BootstrapCI g = gap_ratio_at(setup, runs, k, b);
    f.gap_to_optimum.push_back({g.estimate - 1, g.lo - 1, g.hi - 1});
  }
  for (size_t ti = 0; ti < suite.targets_pct.size(); ++ti) {
    std::vector<std::vector<core::TimeToEvent>> per_layer;
    int reached = 0;
    for (size_t li = 0; li < cells.size(); ++li) {
      per_layer.emplace_back();
      for (const Job* j : runs.of(k, li))
        per_layer.back().push_back(runs.samples_to(*j, suite.targets_pct[ti]));
      reached += std::isfinite(cells[li].samples_to[ti].estimate);
    }
    f.median_layer.push_back(median_layer_km_ci(
        per_layer, setup.boot, "layer-km|" + k + "|" + fmt_g(suite.targets_pct[ti])));
    f.layers_reached.push_back(reached);
  }
  for (const StudyCell& c : cells) {
    f.samples += c.samples;
    f.invalid += c.invalid;
    f.duplicates += c.duplicates;
  }
  return f;
}

/// The ratios of every searcher against `base`: samples to within 5 % (median over layers of
/// the per-layer KM-median ratios, flagged when bounds went in) and the geometric mean of the
/// iso-budget cost ratios. None when the suite does not have `base`.
std::optional<StudyRatios> ratios_vs(const StudySuite& suite, const StudyFigures& f,
                                     const std::string& base) {
  if (!f.cells.count(base)) return std::nullopt;
  const size_t t5 = five_pct_index(suite);
  const std::vector<StudyCell>& bc = f.cells.at(base);
  StudyRatios head;
  for (const auto& k : suite.searchers) {
    if (k == base) continue;
    const std::vector<StudyCell>& kc = f.cells.at(k);
    std::vector<LayerRatio> lr;
    for (size_t li = 0; li < kc.size(); ++li)
      lr.push_back(samples_ratio(kc[li].samples_to[t5].estimate, bc[li].samples_to[t5].estimate,
                                 static_cast<double>(suite.budget)));
    StudyBaselineRatio e;
    e.samples_to_5pct = median_ratio(lr);
    for (size_t bi = 0; bi < suite.iso_budgets.size(); ++bi) {
      double lg = 0;
      int n = 0;
      for (size_t li = 0; li < kc.size(); ++li) {
        const double x = kc[li].cost_ratio_at[bi], y = bc[li].cost_ratio_at[bi];
        if (std::isfinite(x) && std::isfinite(y)) {
          lg += std::log(x / y);
          ++n;
        }
      }
      e.geomean_cost_ratio_at.push_back(n ? std::exp(lg / n) : 0.0);
    }
    head[k] = std::move(e);
  }
  return head;
}

/// The suite's final_quality_of figures: per layer the target (the median over that searcher's
/// seeds of its best at its budget), every searcher's KM median samples to reach it, and the
/// ratio of that searcher's median to each other's. None without the key.
std::optional<StudyFinalQuality> final_quality(const StudySetup& setup, const StudyRuns& runs) {
  const StudySuite& suite = setup.suite;
  if (suite.final_quality_of.empty()) return std::nullopt;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  StudyFinalQuality q;
  q.of = suite.final_quality_of;
  const size_t of_budget = static_cast<size_t>(suite.budget_of(q.of));
  std::vector<double> target;  // absolute cost per layer (+inf: none)
  for (size_t li = 0; li < setup.layers.size(); ++li) {
    std::vector<double> finals;
    for (const Job* j : runs.of(q.of, li))
      if (j->curve.size() >= of_budget) finals.push_back(j->curve[of_budget - 1]);
    const double t = finals.empty() ? kInf : core::median(finals);
    target.push_back(t);
    q.target_gap.push_back(std::isfinite(t) ? t / runs.references()[li] - 1 : kInf);
  }
  for (const auto& k : suite.searchers) {
    for (size_t li = 0; li < setup.layers.size(); ++li) {
      std::vector<core::TimeToEvent> d;
      if (std::isfinite(target[li]))  // the median of finals, so a run that ends there reaches it
        for (const Job* j : runs.of(k, li))
          d.push_back(runs.samples_to_cost(*j, target[li] * (1 + 1e-12)));
      q.samples_to[k].push_back(
          d.empty() ? core::BootstrapCI{kInf, kInf, kInf}
                    : km_median_ci(d, setup.boot, "final|" + std::to_string(li) + "|" + k));
    }
  }
  for (const auto& k : suite.searchers) {
    if (k == q.of) continue;
    for (size_t li = 0; li < setup.layers.size(); ++li)
      q.ratio[k].push_back(samples_ratio(q.samples_to[q.of][li].estimate,
                                         q.samples_to[k][li].estimate,
                                         static_cast<double>(suite.budget)));
  }
  return q;
}

}  // namespace

StudyFigures study_figures(const StudySetup& setup, const StudyRuns& runs) {
  StudyFigures f;
  f.reference_cost = runs.references();
  f.beat_exact = runs.beat_exact();
  for (const auto& k : setup.suite.searchers)
    for (size_t li = 0; li < setup.layers.size(); ++li)
      f.cells[k].push_back(make_cell(setup, runs, li, k));
  for (const auto& k : setup.suite.searchers)
    f.searchers[k] = summarize(setup, runs, k, f.cells.at(k));
  f.vs_marl = ratios_vs(setup.suite, f, "marl");
  f.vs_ppo_box = ratios_vs(setup.suite, f, "ppo-box");
  f.final_quality = final_quality(setup, runs);
  return f;
}

}  // namespace mapwright::flows
