// study.html: the results of a study on one self-contained page (inline CSS and SVG, no
// scripts, nothing fetched). Rendered from study.json only, plus the SVGs gnuplot drew: the
// suite, which searcher needs the fewest samples (Kaplan-Meier medians on the median layer with
// bootstrap intervals, ratios against marl and ppo-box), the gap to the optimum at the iso
// budgets (table and plot), samples-to-target per layer, invalid and duplicate rates, the
// per-layer median curves, and how to read the statistics. Every name is HTML-escaped.
#include "study/study_html.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "common/html.hpp"
#include "common/text.hpp"
#include "study/study_output.hpp"

using nlohmann::json;

namespace mapwright::flows {

namespace {

/// The page's own rules, after page_base_css().
const char* kCss = R"css(
h3{font-size:15px;margin:18px 0 6px}
.meta{color:#5a6473;font-size:13px;line-height:1.5}
table{border-collapse:collapse;background:#fff;font-size:13px;border:1px solid #dde1e7;margin:6px 0}
th,td{padding:4px 8px;border-bottom:1px solid #eceef2;text-align:right;white-space:nowrap}
th{background:#eef1f5;font-weight:600;vertical-align:bottom}
.ci{color:#5a6473;font-size:11px}
.grid{display:grid;grid-template-columns:repeat(2,1fr);gap:12px}
.note{font-size:13px;color:#3a4250;line-height:1.5;max-width:900px}
)css";

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A number of the summary; `null_is` for null (+inf where null means "not reached").
double num(const json& j, double null_is = kNaN) {
  return j.is_number() ? j.get<double>() : null_is;
}

/// Text of a JSON value, escaped.
std::string esc(const json& j) {
  return html_escape(j.is_string() ? j.get<std::string>() : j.dump());
}

/// A sample count: ">B" when not reached, "–" when undefined.
std::string samples(double x, long long budget) {
  if (std::isnan(x)) return "&ndash;";
  if (!std::isfinite(x)) return "&gt;" + std::to_string(budget);
  return std::to_string(std::llround(x));
}

/// A gap (ratio - 1) as a percentage, 3 significant digits below 100 %; "&ndash;" when
/// undefined.
std::string pct(double g) {
  if (!std::isfinite(g)) return "&ndash;";
  return percent_text(g, "&nbsp;%");
}

/// A rate as a percentage with 2 decimals.
std::string rate(double r) {
  if (!std::isfinite(r)) return "&ndash;";
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << 100 * r << "&nbsp;%";
  return s.str();
}

std::string ratio_text(const json& e) {
  if (!e.is_object() || e["median_samples_to_5pct_ratio"].is_null()) return "&ndash;";
  const std::string kind = e.value("ratio_kind", "exact");
  std::ostringstream s;
  s << (kind == "lower_bound"   ? "&ge;&nbsp;"
        : kind == "upper_bound" ? "&le;&nbsp;"
        : kind == "unknown"     ? "~&nbsp;"
                                : "")
    << std::setprecision(3) << e["median_samples_to_5pct_ratio"].get<double>();
  return s.str();
}

/// A ratio to 3 significant digits.
std::string sig3(double x) {
  std::ostringstream o;
  o << std::setprecision(3) << x;
  return o.str();
}

/// "5pct" for 5.
std::string pct_key(double t) {
  return std::to_string(static_cast<int>(t)) + "pct";
}

/// Index of the smallest finite value (ties: the first), or -1.
int best_of(const std::vector<double>& v) {
  int b = -1;
  for (size_t i = 0; i < v.size(); ++i)
    if (std::isfinite(v[i]) && (b < 0 || v[i] < v[static_cast<size_t>(b)])) b = static_cast<int>(i);
  return b;
}

/// What the sections read.
struct View {
  const json& s;                       ///< study.json.
  std::vector<std::string> searchers;  ///< Suite order.
  std::vector<std::string> layers;     ///< Suite order.
  std::vector<double> targets;         ///< targets_pct.
  std::vector<long long> budgets;      ///< iso_budgets.
  long long budget = 0;                ///< Samples per run.
  std::string conf;                    ///< "95 %".
  /// Samples per run of searcher `k` (the suite's budget_caps, else `budget`).
  long long budget_of(const std::string& k) const {
    return s.contains("budget_caps") && s["budget_caps"].contains(k)
               ? s["budget_caps"][k].get<long long>()
               : budget;
  }
};

void head(std::ostream& h, const View& v) {
  const json& s = v.s;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
    << html_escape("study " + s.value("suite", std::string())) << "</title>\n<style>"
    << page_base_css() << kCss << "</style></head><body><main>\n";
  h << "<h1>Study " << esc(s["suite"]) << "</h1>\n<div class=\"meta\">suite file "
    << esc(s["suite_file"]) << "; architecture " << esc(s["arch"]) << ", objective "
    << esc(s["objective"]) << "; " << v.layers.size() << " layers &times; " << v.searchers.size()
    << " searchers &times; " << s["seeds"].size() << " seeds, " << v.budget
    << " samples per run<br>searchers:";
  for (const auto& k : v.searchers) h << " " << html_escape(k);
  h << "<br>seeds:";
  for (const auto& x : s["seeds"]) h << " " << esc(x);
  h << "<br>iso budgets:";
  for (auto b : v.budgets) h << " " << b;
  h << "; targets: within";
  for (size_t i = 0; i < v.targets.size(); ++i)
    h << (i ? ", " : " ") << fmt_g(v.targets[i]) << "&nbsp;%";
  h << " of the optimum<br>search options: " << esc(s["options_file"])
    << "; reference: " << esc(s["reference"])
    << "<br>bootstrap: " << esc(s["bootstrap"]["resamples"]) << " resamples, " << v.conf
    << " percentile intervals, seed " << esc(s["bootstrap"]["seed"]) << "</div>\n";
  if (s.value("interrupted", false))
    h << "<div class=\"banner warn\">The study was interrupted: these figures cover the runs "
         "finished so far (continue it with --resume).</div>\n";
  if (s.value("sampled_runs_that_beat_the_exact_mapper", 0) > 0)
    h << "<div class=\"banner warn\">" << esc(s["sampled_runs_that_beat_the_exact_mapper"])
      << " sampled runs found a lower cost than the exact mapper: that layer's reference is the "
         "best sampled cost, not a proven optimum.</div>\n";
}

/// Which searcher needs the fewest samples: the median layer's KM medians, the layers where
/// they are reached, invalid and duplicate rates.
void efficiency_table(std::ostream& h, const View& v) {
  const json& eff = v.s["efficiency"];
  h << "<h2>Samples to reach the optimum (median layer)</h2>\n<table><tr><th class=\"l\">"
       "searcher</th>";
  for (double t : v.targets)
    h << "<th>samples to " << fmt_g(t) << "&nbsp;%<br><span class=\"ci\">" << v.conf
      << " interval</span></th><th>layers where<br>reached</th>";
  h << "<th>invalid<br>rate</th><th>duplicate<br>rate</th></tr>\n";
  std::vector<int> best;
  for (double t : v.targets) {
    std::vector<double> col;
    for (const auto& k : v.searchers)
      col.push_back(num(eff[k]["samples_to_" + pct_key(t) + "_median_layer"], kInf));
    best.push_back(best_of(col));
  }
  for (size_t i = 0; i < v.searchers.size(); ++i) {
    const json& e = eff[v.searchers[i]];
    h << "<tr><td class=\"l\">" << html_escape(v.searchers[i]) << "</td>";
    for (size_t ti = 0; ti < v.targets.size(); ++ti) {
      const std::string p = "samples_to_" + pct_key(v.targets[ti]) + "_median_layer";
      const json& ci = e[p + "_ci"];
      h << "<td" << (best[ti] == static_cast<int>(i) ? " class=\"win\"" : "") << ">"
        << samples(num(e[p], kInf), v.budget_of(v.searchers[i])) << " <span class=\"ci\">["
        << samples(num(ci[0], kInf), v.budget_of(v.searchers[i])) << ", "
        << samples(num(ci[1], kInf), v.budget_of(v.searchers[i])) << "]</span></td><td>"
        << esc(e["layers_reached_" + pct_key(v.targets[ti])]) << "/" << v.layers.size() << "</td>";
    }
    h << "<td>" << rate(num(e["invalid_rate"])) << "</td><td>" << rate(num(e["duplicate_rate"]))
      << "</td></tr>\n";
  }
  h << "</table>\n<p class=\"note\">Samples to within X&nbsp;% of the optimum: on each layer the "
       "Kaplan-Meier median over seeds (a run that never gets there is censored at the budget), "
       "then the median over layers. &gt;"
    << v.budget
    << " = not reached: on the median layer fewer than half of the runs get there. Invalid rate "
       "= invalid samples / samples; duplicate rate = repeated proposals / all proposals (repeats "
       "are not charged to the budget).</p>\n";
}

/// Samples-to-5 % of every searcher relative to marl and to ppo-box.
void ratio_table(std::ostream& h, const View& v) {
  std::vector<std::pair<std::string, std::string>> bases;
  for (const auto& [base, key] :
       {std::pair<std::string, std::string>{"marl", "vs_marl"}, {"ppo-box", "vs_ppo_box"}})
    if (std::find(v.searchers.begin(), v.searchers.end(), base) != v.searchers.end())
      bases.emplace_back(base, key);
  h << "<h2>Samples to 5&nbsp;% relative to marl and ppo-box</h2>\n";
  if (bases.empty()) {
    h << "<p class=\"note\">The suite has neither marl nor ppo-box.</p>\n";
    return;
  }
  h << "<table><tr><th class=\"l\">searcher</th>";
  for (const auto& b : bases)
    h << "<th>/ " << html_escape(b.first) << "</th><th class=\"l\">layers (exact, bounds, left "
      << "out)</th>";
  h << "</tr>\n";
  for (const auto& k : v.searchers) {
    h << "<tr><td class=\"l\">" << html_escape(k) << "</td>";
    for (const auto& b : bases) {
      const json& e = v.s[b.second].contains(k) ? v.s[b.second][k] : json();
      if (k == b.first || !e.is_object()) {
        h << "<td>1</td><td class=\"l\"></td>";
        continue;
      }
      const int lower = e.value("ratios_that_are_lower_bounds", 0);
      const int upper = e.value("ratios_that_are_upper_bounds", 0);
      h << "<td>" << ratio_text(e) << "</td><td class=\"l\">"
        << e.value("layers_with_ratio", 0) - lower - upper << " exact";
      if (lower) h << ", " << lower << " lower bound" << (lower > 1 ? "s" : "") << " (&ge;)";
      if (upper) h << ", " << upper << " upper bound" << (upper > 1 ? "s" : "") << " (&le;)";
      if (e.value("layers_without_ratio", 0))
        h << ", " << e.value("layers_without_ratio", 0) << " left out";
      h << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n<p class=\"note\">Median over layers of (searcher's KM median samples to "
       "within 5&nbsp;%) / (the baseline's); below 1 the searcher needs fewer samples. Where one "
       "of the two is not reached within the budget it counts as the budget and that layer's "
       "ratio is a bound: &ge; the searcher did not reach it (the true ratio is larger), &le; the "
       "baseline did not. The median is marked &ge; or &le; when bounds of one direction went "
       "in, ~ when both did; layers where neither reached it are left out.</p>\n";
}

/// The suite's final_quality_of figures: per layer the target and every searcher's samples to
/// reach it, with the ratio (the target searcher's samples over theirs). Nothing without them.
void final_quality_table(std::ostream& h, const View& v) {
  if (!v.s.contains("final_quality")) return;
  const json& fq = v.s["final_quality"];
  const std::string of = fq.value("of", "");
  h << "<h2>Samples to " << html_escape(of) << "'s final quality</h2>\n<table><tr><th "
    << "class=\"l\">layer</th><th>target (gap)</th>";
  for (const auto& k : v.searchers) h << "<th>" << html_escape(k) << "</th>";
  h << "</tr>\n";
  for (const auto& l : v.layers) {
    if (!fq["layers"].contains(l)) continue;
    const json& e = fq["layers"][l];
    h << "<tr><td class=\"l\">" << html_escape(l) << "</td><td>" << pct(num(e["target_gap"], kInf))
      << "</td>";
    for (const auto& k : v.searchers) {
      const json& c = e["samples_to"][k];
      h << "<td>" << samples(num(c["median"], kInf), v.budget_of(k)) << " <small>["
        << samples(num(c["ci"][0], kInf), v.budget_of(k)) << ", "
        << samples(num(c["ci"][1], kInf), v.budget_of(k)) << "]</small>";
      if (e["ratio"].contains(k)) {
        const json& r = e["ratio"][k];
        const std::string kind = r.value("kind", "exact");
        h << "<br>&times;"
          << (kind == "lower_bound"   ? "&ge;&nbsp;"
              : kind == "upper_bound" ? "&le;&nbsp;"
              : kind == "unknown"     ? "~&nbsp;"
                                      : "")
          << (r["value"].is_number() ? sig3(r["value"].get<double>()) : "&ndash;");
      }
      h << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n<p class=\"note\">The target of a layer is the median over " << html_escape(of)
    << "'s seeds of its best at its budget (its gap to the optimum in the "
    << "second column). Each cell: the Kaplan-Meier median over seeds of the samples to reach "
    << "it, with its " << v.conf << " bootstrap interval, and &times; " << html_escape(of)
    << "'s median over it (above 1 the searcher needs fewer samples; "
    << "&ge;/&le; when one of the two is not reached, counted at the budget).</p>\n";
}

/// The gap to the optimum at every iso budget, with intervals, and its plot.
void gap_section(std::ostream& h, const View& v, const std::string& svg) {
  const json& gaps = v.s["gap_to_optimum"];
  h << "<h2>Gap to the optimum at equal sample budgets</h2>\n<table><tr><th class=\"l\">"
       "searcher</th>";
  for (auto b : v.budgets) h << "<th>" << b << " samples</th>";
  h << "</tr>\n";
  std::vector<int> best;
  for (auto b : v.budgets) {
    std::vector<double> col;
    for (const auto& k : v.searchers)
      col.push_back(num(gaps[k]["gap_to_optimum_at_" + std::to_string(b)], kInf));
    best.push_back(best_of(col));
  }
  for (size_t i = 0; i < v.searchers.size(); ++i) {
    const json& g = gaps[v.searchers[i]];
    h << "<tr><td class=\"l\">" << html_escape(v.searchers[i]) << "</td>";
    for (size_t bi = 0; bi < v.budgets.size(); ++bi) {
      const std::string key = "gap_to_optimum_at_" + std::to_string(v.budgets[bi]);
      h << "<td" << (best[bi] == static_cast<int>(i) ? " class=\"win\"" : "") << ">"
        << pct(num(g[key])) << "<br><span class=\"ci\">[" << pct(num(g[key + "_ci"][0])) << ", "
        << pct(num(g[key + "_ci"][1])) << "]</span></td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n<p class=\"note\">Geometric mean over layers of the median (over seeds) best "
       "cost / optimum, minus 1, with its "
    << v.conf
    << " bootstrap interval (seeds resampled within each layer). &ndash; = the median run of "
       "some layer had no valid mapping yet (or the interval is open), or the searcher's runs "
       "stop before that budget (the suite's budget_caps).</p>\n";
  if (!svg.empty())
    h << "<div class=\"plot\">" << svg << "</div>\n";
  else
    h << "<p class=\"note\">gnuplot was not available: no plot (plots/gap.gp draws it).</p>\n";
}

/// Per layer and searcher: KM median samples to each target with its interval.
void layer_tables(std::ostream& h, const View& v) {
  const json& layers = v.s["layers"];
  for (double t : v.targets) {
    const std::string p = "samples_to_" + pct_key(t);
    h << "<h3>Samples to within " << fmt_g(t) << "&nbsp;% per layer</h3>\n<table><tr><th "
      << "class=\"l\">layer</th>";
    for (const auto& k : v.searchers) h << "<th>" << html_escape(k) << "</th>";
    h << "</tr>\n";
    for (const auto& l : v.layers) {
      const json& row = layers[l];
      std::vector<double> vals;
      for (const auto& k : v.searchers) vals.push_back(num(row[k][p], kInf));
      const int best = best_of(vals);
      h << "<tr><td class=\"l\">" << html_escape(l) << "</td>";
      for (size_t i = 0; i < v.searchers.size(); ++i) {
        const json& e = row[v.searchers[i]];
        h << "<td" << (best == static_cast<int>(i) ? " class=\"win\"" : "") << ">"
          << samples(vals[i], v.budget_of(v.searchers[i])) << "<br><span class=\"ci\">["
          << samples(num(e[p + "_ci"][0], kInf), v.budget_of(v.searchers[i])) << ", "
          << samples(num(e[p + "_ci"][1], kInf), v.budget_of(v.searchers[i])) << "]<br>"
          << esc(e["reached_" + pct_key(t)]) << "/" << esc(e["seeds"]) << " runs</span></td>";
      }
      h << "</tr>\n";
    }
    h << "</table>\n";
  }
  h << "<p class=\"note\">Each cell: Kaplan-Meier median over seeds, its " << v.conf
    << " bootstrap interval, and the runs that reached the target.</p>\n";
}

void optimum_table(std::ostream& h, const View& v) {
  h << "<h2>The optimum of every layer</h2>\n<table><tr><th class=\"l\">layer</th><th>optimum "
       "cost</th><th>proven optimal</th><th>gap of the proof</th><th>sampled runs below "
       "it</th></tr>\n";
  for (const auto& l : v.layers) {
    const json& o = v.s["optimum"][l];
    std::ostringstream cost;
    cost << std::setprecision(4) << num(v.s["reference_cost"][l]);
    h << "<tr><td class=\"l\">" << html_escape(l) << "</td><td>" << cost.str() << "</td><td>"
      << (o.contains("optimal") ? esc(o["optimal"]) : "&ndash;") << "</td><td>"
      << (o.contains("gap") && o["gap"].is_number() ? pct(o["gap"].get<double>()) : "&ndash;")
      << "</td><td>" << esc(o.value("sampled_runs_that_beat_it", json(0))) << "</td></tr>\n";
  }
  h << "</table>\n";
}

void curves(std::ostream& h, const View& v, const std::vector<std::string>& svgs) {
  h << "<h2>Median best-so-far curves per layer</h2>\n<div class=\"grid\">\n";
  for (size_t li = 0; li < v.layers.size(); ++li) {
    if (li < svgs.size() && !svgs[li].empty())
      h << "<div class=\"plot\">" << svgs[li] << "</div>\n";
    else
      h << "<div class=\"plot note\">" << html_escape(v.layers[li])
        << ": gnuplot was not available, no plot.</div>\n";
  }
  h << "</div>\n";
}

void reading(std::ostream& h, const View& v) {
  h << "<h2>How to read these statistics</h2>\n<div class=\"note\"><p><b>Samples to "
       "target.</b> For each run, the number of samples after which its best cost is within "
       "X&nbsp;% of the layer's optimum. A run that never gets there within its budget is "
       "<i>censored</i>: we know only that it needs more than the budget. The Kaplan-Meier "
       "estimate uses that knowledge without inventing a number for it; its median is the "
       "smallest sample count at which at least half of the runs have reached the target. When "
       "fewer than half do, the median is <i>not reached</i> (&gt;"
    << v.budget
    << ").</p><p><b>Intervals.</b> Percentile bootstrap: the seeds of each layer are resampled "
       "with replacement "
    << esc(v.s["bootstrap"]["resamples"]) << " times and the statistic recomputed; the interval "
    << "holds the middle " << v.conf
    << " of those values. It shows how much the figure depends on which seeds were run (the "
       "layers are fixed). An open upper end (&gt;"
    << v.budget
    << ") means the target is not reached in the upper tail of the resamples. With few seeds "
       "the intervals are coarse. Two searchers whose intervals do not overlap differ clearly; "
       "overlapping intervals do not prove that they are equal. Every interval draws from its "
       "own seed, derived from the recorded bootstrap seed, so the page is reproducible.</p>"
       "<p><b>Gap at equal budgets.</b> After B samples, each run's best cost / optimum; the "
       "median over seeds per layer; the geometric mean over layers, minus 1. 0&nbsp;% = every "
       "median run found the optimum.</p><p><b>Ratios.</b> A ratio of samples-to-5&nbsp;% "
       "below 1 means fewer samples than the baseline. A ratio marked &ge; or &le; is a bound, "
       "because a median was not reached within the budget.</p></div>\n";
}

}  // namespace

std::string render_study_html(const StudyPage& page) {
  const json& s = page.summary;
  View v{s, {}, {}, {}, {}, s.value("budget", 0LL), ""};
  for (const auto& k : s["searchers"]) v.searchers.push_back(k.get<std::string>());
  for (const auto& l : s["layer_order"]) v.layers.push_back(l.get<std::string>());
  for (const auto& t : s["targets_pct"]) v.targets.push_back(t.get<double>());
  for (const auto& b : s["iso_budgets"]) v.budgets.push_back(b.get<long long>());
  v.conf = fmt_g(std::round(num(s["bootstrap"]["confidence"]) * 1000) / 10) + "&nbsp;%";
  std::ostringstream h;
  head(h, v);
  efficiency_table(h, v);
  ratio_table(h, v);
  final_quality_table(h, v);
  gap_section(h, v, page.gap_svg);
  h << "<h2>Samples to target per layer</h2>\n";
  layer_tables(h, v);
  optimum_table(h, v);
  curves(h, v, page.layer_svgs);
  reading(h, v);
  h << "</main></body></html>\n";
  return h.str();
}

}  // namespace mapwright::flows
