// A study's summary: study.json from the typed result (per layer and searcher the cells, per
// searcher the gaps to the optimum and the efficiency figures, the ratios against marl and
// ppo-box, the optima, the settings, and a note on how to read them), and the table that
// `mapwright study` prints. Numbers that are not finite become null in the JSON; in the table a
// sample count not reached within the budget B reads ">B".
#include "study/study_summary.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>
#include <utility>

#include "common/text.hpp"
#include "study/study_figures.hpp"
#include "study/study_output.hpp"
#include "study/study_stats.hpp"

namespace mapwright::flows {

namespace {

using nlohmann::json;

json finite_or_null(double x) {
  return std::isfinite(x) ? json(x) : json();
}
/// [lo, hi] of an interval (null for an infinite or undefined end).
json ci_json(const core::BootstrapCI& ci) {
  return json::array({finite_or_null(ci.lo), finite_or_null(ci.hi)});
}
/// "5pct" for 5: the suffix of the samples-to-target keys.
std::string pct_key(double t) {
  return std::to_string(static_cast<int>(t)) + "pct";
}

/// One searcher's figures on one layer.
json cell_json(const StudySuite& suite, const StudyCell& c) {
  json e;
  e["seeds"] = c.seeds;
  for (size_t ti = 0; ti < suite.targets_pct.size(); ++ti) {
    const std::string p = pct_key(suite.targets_pct[ti]);
    const core::BootstrapCI& km = c.samples_to[ti];
    e["samples_to_" + p] = finite_or_null(km.estimate);
    e["samples_to_" + p + "_ci"] = ci_json(km);
    e["reached_" + p] = c.reached[ti];
    e["median_reached_" + p] = std::isfinite(km.estimate);
  }
  for (size_t bi = 0; bi < suite.iso_budgets.size(); ++bi)
    e["cost_ratio_at_" + std::to_string(suite.iso_budgets[bi])] = c.cost_ratio_at[bi];
  e["invalid_rate"] = finite_or_null(invalid_rate(c.invalid, c.samples));
  e["duplicate_rate"] = finite_or_null(duplicate_rate(c.duplicates, c.samples));
  return e;
}

/// The ratios of every searcher against `base` (null: the suite does not have `base`).
json ratios_json(const StudySuite& suite, const std::optional<StudyRatios>& ratios,
                 const std::string& base) {
  if (!ratios) return json();
  std::string base_key = safe_name(base);  // "ppo_box" for ppo-box
  std::replace(base_key.begin(), base_key.end(), '-', '_');
  json head = json::object();
  for (const auto& [k, r] : *ratios) {
    const RatioSummary& rs = r.samples_to_5pct;
    json e;
    e["median_samples_to_5pct_ratio"] = finite_or_null(rs.median);
    e["ratio_kind"] = ratio_kind_name(rs.kind);
    e["layers_with_ratio"] = rs.exact + rs.lower + rs.upper;
    e["ratios_that_are_lower_bounds"] = rs.lower;
    e["ratios_that_are_upper_bounds"] = rs.upper;
    e["layers_without_ratio"] = rs.unknown;
    for (size_t bi = 0; bi < suite.iso_budgets.size(); ++bi)
      e["geomean_cost_ratio_vs_" + base_key + "_at_" + std::to_string(suite.iso_budgets[bi])] =
          r.geomean_cost_ratio_at[bi];
    head[k] = e;
  }
  return head;
}

/// Gap to the optimum per searcher at each iso budget, with its bootstrap interval (null:
/// infinite, i.e. the median run of some layer had no valid mapping yet).
json gaps_json(const StudySuite& suite, const StudyFigures& f) {
  json gaps = json::object();
  for (const auto& k : suite.searchers) {
    const StudySearcherSummary& s = f.searchers.at(k);
    for (size_t bi = 0; bi < suite.iso_budgets.size(); ++bi) {
      const std::string b = std::to_string(suite.iso_budgets[bi]);
      gaps[k]["gap_to_optimum_at_" + b] = finite_or_null(s.gap_to_optimum[bi].estimate);
      gaps[k]["gap_to_optimum_at_" + b + "_ci"] = ci_json(s.gap_to_optimum[bi]);
    }
  }
  return gaps;
}

/// Per searcher: samples to each target on the median layer with its interval, the layers
/// where the KM median is reached, invalid and duplicate rates.
json efficiency_json(const StudySuite& suite, const StudyFigures& f) {
  json eff = json::object();
  for (const auto& k : suite.searchers) {
    const StudySearcherSummary& s = f.searchers.at(k);
    json e;
    for (size_t ti = 0; ti < suite.targets_pct.size(); ++ti) {
      const std::string p = pct_key(suite.targets_pct[ti]);
      e["samples_to_" + p + "_median_layer"] = finite_or_null(s.median_layer[ti].estimate);
      e["samples_to_" + p + "_median_layer_ci"] = ci_json(s.median_layer[ti]);
      e["layers_reached_" + p] = s.layers_reached[ti];
    }
    e["samples"] = s.samples;
    e["invalid"] = s.invalid;
    e["duplicates"] = s.duplicates;
    e["invalid_rate"] = finite_or_null(invalid_rate(s.invalid, s.samples));
    e["duplicate_rate"] = finite_or_null(duplicate_rate(s.duplicates, s.samples));
    eff[k] = e;
  }
  return eff;
}

/// How to read study.json.
const char* kNote =
    "The reference of every layer is its optimum (exact mapper); cost ratios are best / "
    "optimum (1 = optimal). samples_to_Xpct = Kaplan-Meier median over seeds of the samples "
    "a run needs to come within X% of the optimum, a run that never does being censored at "
    "its budget; null = not reached (fewer than half of the runs reach it within the "
    "budget). *_ci = [low, high] percentile bootstrap interval (see bootstrap); a null high "
    "end = not reached in the upper tail. gap_to_optimum_at_B = geometric mean over layers "
    "of the median best / optimum at B samples, minus 1 (null: the median run of some layer "
    "had no valid mapping). efficiency.*_median_layer = median over layers of the per-layer "
    "KM medians. vs_marl / vs_ppo_box: median_samples_to_5pct_ratio = median over layers of "
    "(searcher's KM median samples to 5%) / (the baseline's); where one of the two is not "
    "reached it counts as the budget and the layer's ratio is a bound (ratio_kind says what "
    "the median is: exact, lower_bound, upper_bound, or unknown when bounds of both "
    "directions went in); layers where neither is reached are left out "
    "(layers_without_ratio). geomean_cost_ratio_vs_<base>_at_B > 1 means the baseline found "
    "the lower cost at B samples. invalid_rate = invalid / samples, duplicate_rate = "
    "duplicates / (samples + duplicates), over all runs.";

/// The suite and reference settings of study.json.
void settings_json(const StudyResult& r, json& summary) {
  const StudySuite& suite = r.suite;
  summary["suite"] = suite.name;
  summary["suite_file"] = r.suite_file;
  summary["arch"] = r.arch;
  summary["objective"] = suite.objective;
  summary["searchers"] = suite.searchers;
  summary["seeds"] = suite.seeds;
  summary["budget"] = suite.budget;
  if (suite.rtl_reward)
    summary["reward"] = {{"source", "rtl"},
                         {"surrogate_warmup", suite.surrogate_warmup},
                         {"surrogate_prior", suite.surrogate_prior}};
  if (!suite.budget_caps.empty()) summary["budget_caps"] = suite.budget_caps;
  summary["encoding"] = suite.encoding;
  if (!suite.final_quality_of.empty()) summary["final_quality_of"] = suite.final_quality_of;
  summary["iso_budgets"] = suite.iso_budgets;
  summary["targets_pct"] = suite.targets_pct;
  summary["layer_order"] = r.layers;
  summary["reference"] = "exact mapper (proven optimum, or the best found with its proven gap)";
  summary["reference_time_limit_s"] = suite.reference_time_limit_s;
  summary["reference_gap_target"] = suite.reference_gap;
  summary["reference_budget"] = suite.budget * suite.reference_multiplier;
  summary["reference_seed"] = suite.reference_seed;
  summary["reference_searchers"] = suite.reference_searchers;
  summary["options_file"] = suite.options_file.empty() ? "(built-in defaults)" : suite.options_file;
  summary["options"] = search::to_json(r.search_options);
  summary["bootstrap"] = {
      {"seed", suite.bootstrap_seed},
      {"resamples", suite.bootstrap_resamples},
      {"confidence", suite.bootstrap_confidence},
      {"method",
       "percentile bootstrap (inverse-ECDF quantiles of the replicates); the runs (seeds) of "
       "each layer are resampled with replacement, layers are kept; every statistic draws "
       "from its own seed derived from this seed and its name"}};
}

/// A gap as a percentage, 3 significant digits below 100 % ("n/a" for NaN, "inf" for +inf).
std::string pct_text(double g) {
  if (std::isnan(g)) return "n/a";
  if (!std::isfinite(g)) return "inf";
  return percent_text(g, "%");
}

/// The table's rows per searcher: samples to every target on the median layer, invalid and
/// duplicate rates, and the gap to the optimum at every iso budget.
void print_searchers(const StudyResult& r, std::ostream& out) {
  const StudySuite& suite = r.suite;
  for (const auto& k : suite.searchers) {
    const StudySearcherSummary& f = r.figures.searchers.at(k);
    out << "  " << std::left << std::setw(8) << k << std::right;
    for (size_t ti = 0; ti < suite.targets_pct.size(); ++ti)
      out << (ti ? "; " : " ") << "samples to " << fmt_g(suite.targets_pct[ti])
          << "% (median layer) " << samples_text(f.median_layer[ti].estimate, suite, k) << " ["
          << samples_text(f.median_layer[ti].lo, suite, k) << ", "
          << samples_text(f.median_layer[ti].hi, suite, k) << "]";
    out << "; invalid " << pct_text(invalid_rate(f.invalid, f.samples)) << ", duplicates "
        << pct_text(duplicate_rate(f.duplicates, f.samples)) << "\n";
    out << "  " << std::setw(8) << ""
        << " gap to the optimum";
    for (size_t bi = 0; bi < suite.iso_budgets.size(); ++bi) {
      const core::BootstrapCI& g = f.gap_to_optimum[bi];
      out << (bi ? "," : "") << " @" << suite.iso_budgets[bi] << " ";
      if (suite.budget_of(k) < suite.iso_budgets[bi])
        out << "- (runs capped at " << suite.budget_of(k) << ")";
      else
        out << pct_text(g.estimate) << " [" << pct_text(g.lo) << ", " << pct_text(g.hi) << "]";
    }
    out << "\n";
  }
}

/// The table's lines per searcher against marl and ppo-box.
void print_ratios(const StudyResult& r, std::ostream& out) {
  for (const auto& [base, ratios] :
       {std::pair<std::string, const std::optional<StudyRatios>&>{"marl", r.figures.vs_marl},
        {"ppo-box", r.figures.vs_ppo_box}}) {
    for (const auto& k : r.suite.searchers) {
      if (!ratios || !ratios->count(k)) continue;
      const RatioSummary& rs = ratios->at(k).samples_to_5pct;
      const std::string kind = ratio_kind_name(rs.kind);
      out << k << " vs " << base << ": median samples-to-5% ratio "
          << (!std::isfinite(rs.median) ? std::string("n/a")
                                        : (kind == "lower_bound"   ? ">= "
                                           : kind == "upper_bound" ? "<= "
                                           : kind == "unknown"     ? "~ "
                                                                   : "") +
                                              fmt_g(rs.median))
          << " (" << kind << "; " << rs.exact + rs.lower + rs.upper << " layers, " << rs.lower
          << " lower and " << rs.upper << " upper bounds, " << rs.unknown
          << " left out: neither reached)\n";
    }
  }
}

/// The text of a ratio with its kind, 3 significant digits (">= 3.1" for a lower bound, "n/a"
/// when unknown).
std::string ratio_text(double v, RatioKind kind) {
  if (!std::isfinite(v)) return "n/a";
  std::ostringstream o;
  o << (kind == RatioKind::Lower     ? ">= "
        : kind == RatioKind::Upper   ? "<= "
        : kind == RatioKind::Unknown ? "~ "
                                     : "")
    << std::setprecision(3) << v;
  return o.str();
}

/// The lines of the suite's final_quality_of figures.
void print_final_quality(const StudyResult& r, std::ostream& out) {
  if (!r.figures.final_quality) return;
  const StudyFinalQuality& q = *r.figures.final_quality;
  out << "samples to " << q.of << "'s final quality (per layer the median over its seeds of its "
      << "best at its budget; KM medians; ratio = " << q.of << "'s samples / the searcher's):\n";
  for (size_t li = 0; li < r.layers.size(); ++li) {
    out << "  " << one_line(r.layers[li]).substr(0, 30) << ": target " << pct_text(q.target_gap[li])
        << " from the optimum;";
    for (const auto& k : r.suite.searchers) {
      const core::BootstrapCI& c = q.samples_to.at(k)[li];
      out << " " << k << " " << samples_text(c.estimate, r.suite, k);
      if (k != q.of) {
        const LayerRatio& lr = q.ratio.at(k)[li];
        out << " (x" << ratio_text(lr.value, lr.kind) << ")";
      }
      out << ";";
    }
    out << "\n";
  }
}

/// study.json's final_quality block.
json final_quality_json(const StudyResult& r) {
  const StudyFinalQuality& q = *r.figures.final_quality;
  json j = {{"of", q.of}, {"layers", json::object()}};
  for (size_t li = 0; li < r.layers.size(); ++li) {
    json e = {{"target_gap", finite_or_null(q.target_gap[li])},
              {"samples_to", json::object()},
              {"ratio", json::object()}};
    for (const auto& k : r.suite.searchers) {
      const core::BootstrapCI& c = q.samples_to.at(k)[li];
      e["samples_to"][k] = {{"median", finite_or_null(c.estimate)}, {"ci", ci_json(c)}};
      if (k == q.of) continue;
      const LayerRatio& lr = q.ratio.at(k)[li];
      e["ratio"][k] = {{"value", finite_or_null(lr.value)}, {"kind", ratio_kind_name(lr.kind)}};
    }
    j["layers"][r.layers[li]] = e;
  }
  j["note"] = "target_gap: the median over " + q.of +
              "'s seeds of its best at its budget, over "
              "the optimum, minus 1; samples_to: KM median over seeds (null/inf: not reached) "
              "with its bootstrap interval; ratio: " +
              q.of +
              "'s samples / the searcher's "
              "(> 1: the searcher needs fewer), a bound when one median is not reached";
  return j;
}

}  // namespace

void print_study(const StudyResult& r, std::ostream& out) {
  const StudySuite& suite = r.suite;
  const std::string conf = fmt_g(std::round(suite.bootstrap_confidence * 1000) / 10) + "%";
  out << "study " << suite.name << ": " << r.layers.size() << " layers x " << suite.searchers.size()
      << " searchers x " << suite.seeds.size() << " seeds, budget " << suite.budget
      << ", measured against each layer's optimum (exact mapper, " << std::fixed
      << std::setprecision(1) << r.exact_seconds << " s for all layers), " << std::setprecision(0)
      << r.wall_seconds << " s of sampling on " << r.threads << " threads\n"
      << std::defaultfloat;
  out << std::left << std::setw(24) << "layer" << std::right;
  for (const auto& k : suite.searchers) out << std::setw(12) << k;
  out << "   (samples to within 5% of the optimum: Kaplan-Meier median over seeds; >B = not "
         "reached)\n";
  const size_t t5 = five_pct_index(suite);
  for (size_t li = 0; li < r.layers.size(); ++li) {
    out << std::left << std::setw(24) << one_line(r.layers[li]).substr(0, 23) << std::right;
    for (const auto& k : suite.searchers)
      out << std::setw(12)
          << samples_text(r.figures.cells.at(k)[li].samples_to[t5].estimate, suite, k);
    out << "\n";
  }
  out << "per searcher (" << conf << " bootstrap intervals, seeds resampled within each layer):\n";
  print_searchers(r, out);
  print_ratios(r, out);
  print_final_quality(r, out);
  out << "sampled runs that beat the exact mapper: " << r.figures.beat_exact_total() << "\n";
  out << "written to " << r.dir.string()
      << " (study.html, runs.csv, summary.csv, searchers.csv, study.json, curves/, plots/"
      << (r.plotted ? "" : " [gnuplot failed or missing: no SVG]") << ")\n";
  if (r.interrupted)
    out << "interrupted: continue with `mapwright study --suite " << r.suite_file << " --out "
        << r.dir.string() << " --resume`\n";
}

json study_summary_json(const StudyResult& r) {
  const StudyFigures& f = r.figures;
  json summary;
  settings_json(r, summary);
  summary["gap_to_optimum"] = gaps_json(r.suite, f);
  summary["exact_seconds"] = r.exact_seconds;
  summary["optimum"] = json::object();
  for (size_t li = 0; li < r.layers.size(); ++li) {
    json rec = r.optimum[li].record;
    rec["sampled_runs_that_beat_it"] = f.beat_exact[li];
    summary["optimum"][r.layers[li]] = rec;
  }
  summary["sampled_runs_that_beat_the_exact_mapper"] = f.beat_exact_total();
  summary["threads"] = r.threads;
  summary["wall_seconds"] = r.wall_seconds;
  summary["interrupted"] = r.interrupted;
  summary["layers"] = json::object();
  for (size_t li = 0; li < r.layers.size(); ++li)
    for (const auto& k : r.suite.searchers)
      summary["layers"][r.layers[li]][k] = cell_json(r.suite, f.cells.at(k)[li]);
  summary["reference_cost"] = json::object();
  for (size_t li = 0; li < r.layers.size(); ++li)
    summary["reference_cost"][r.layers[li]] = f.reference_cost[li];
  summary["efficiency"] = efficiency_json(r.suite, f);
  summary["vs_marl"] = ratios_json(r.suite, f.vs_marl, "marl");
  summary["vs_ppo_box"] = ratios_json(r.suite, f.vs_ppo_box, "ppo-box");
  if (r.figures.final_quality) summary["final_quality"] = final_quality_json(r);
  summary["note"] = kNote;
  summary["runs_from_earlier_sessions"] = r.runs_from_earlier_sessions;
  return summary;
}

}  // namespace mapwright::flows
