// The comparison of runs: a table of the runs, the network totals per metric with the winner
// marked and the others relative to it (and as a histogram), and one table per metric with a
// row per layer. It returns the same comparison as JSON for `compare --json`.
#include "report/render.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/files.hpp"
#include "common/text.hpp"
#include "report/format.hpp"
#include "report/plots.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// A metric compared between runs.
struct Metric {
  const char* key;                       ///< Its name in the comparison's JSON.
  const char* label;                     ///< Shown in the tables.
  bool higher_better;                    ///< Utilization: the highest wins; the others: the lowest.
  bool percent;                          ///< Shown in percent (utilization), else in 5 digits.
  double (*of_choice)(const Choice& b);  ///< Its value for a layer's chosen mapping.
  double RunSummary::*total;             ///< Its value in a run's network totals.
};
const Metric kMetrics[] = {
    {"cycles", "latency (cycles)", false, false,
     [](const Choice& b) { return static_cast<double>(b.cycles); }, &RunSummary::cycles},
    {"energy_pj", "energy (pJ)", false, false, [](const Choice& b) { return b.energy_pj; },
     &RunSummary::energy_pj},
    {"edp", "EDP (pJ x cycles)", false, false, [](const Choice& b) { return b.edp; },
     &RunSummary::edp},
    {"utilization", "utilization", true, true, [](const Choice& b) { return b.utilization; },
     &RunSummary::utilization}};

/// A metric's value as the tables show it.
std::string metric_text(const Metric& m, double v) {
  return m.percent ? fmt_fixed(100 * v, 1) + " %" : fmt_g(v, 5);
}

/// Each run's label: its folder's name.
std::vector<std::string> run_labels(const std::vector<LoadedRun>& runs) {
  std::vector<std::string> labels;
  for (const auto& run : runs) {
    std::string lab = run.dir.filename().string();
    if (lab.empty()) lab = run.dir.parent_path().filename().string();
    labels.push_back(lab);
  }
  return labels;
}

/// Index of the best finite value (-1 when none is finite); ties go to the first.
int winner(const std::vector<double>& v, bool higher) {
  int w = -1;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) continue;
    if (w < 0 || (higher ? v[i] > v[w] : v[i] < v[w])) w = static_cast<int>(i);
  }
  return w;
}

/// The comparison's "runs": label, folder, target, architecture, RTL, status, numbers' source.
json runs_json(const std::vector<LoadedRun>& runs, const std::vector<std::string>& labels) {
  json out = json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i].record;
    out.push_back({{"label", labels[i]},
                   {"dir", runs[i].dir.string()},
                   {"target", r.target},
                   {"arch", r.arch.name},
                   {"rtl", r.settings.rtl()},
                   {"status", run_status_name(r.status)},
                   {"source", runs[i].summary.source}});
  }
  return out;
}

/// Layer names in first-seen order over all runs.
std::vector<std::string> layer_names(const std::vector<LoadedRun>& runs) {
  std::vector<std::string> names;
  for (const auto& run : runs)
    for (const auto& L : run.record.layers)
      if (std::find(names.begin(), names.end(), L.layer.name) == names.end())
        names.push_back(L.layer.name);
  return names;
}

/// Metric `m` of the chosen mapping of layer `name` in `r` (NaN when it has none).
double layer_value(const RunRecord& r, const std::string& name, const Metric& m) {
  for (const auto& L : r.layers)
    if (L.layer.name == name && L.best) return m.of_choice(*L.best);
  return std::numeric_limits<double>::quiet_NaN();
}

/// Metric `m` of each run's totals.
std::vector<double> total_values(const std::vector<LoadedRun>& runs, const Metric& m) {
  std::vector<double> v;
  for (const auto& run : runs) v.push_back(run.summary.*m.total);
  return v;
}

/// The table of the runs (target, architecture, searcher, budget, source, status), and a
/// banner when some run's numbers are the surrogate's.
void write_runs_table(std::ostream& h, const std::vector<LoadedRun>& runs,
                      const std::vector<std::string>& labels) {
  h << "<table><tr><th class=\"l\">run</th><th class=\"l\">target</th><th "
       "class=\"l\">architecture</th>"
       "<th class=\"l\">searcher</th><th>budget</th><th class=\"l\">numbers from</th><th "
       "class=\"l\">status</th></tr>\n";
  bool any_sur = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i].record;
    const ArchInfo& a = r.arch;
    const std::string& src = runs[i].summary.source;
    any_sur = any_sur || src != "rtl";
    h << "<tr><td class=\"l\"><b>" << html_escape(labels[i]) << "</b></td><td class=\"l\">"
      << html_escape(r.target) << "</td><td class=\"l\">" << html_escape(a.name) << " (" << a.rows
      << "x" << a.cols << ", " << a.input_kib << "/" << a.weight_kib << "/" << a.accum_kib
      << " KiB)</td><td class=\"l\">" << html_escape(r.settings.searcher) << "</td><td>"
      << r.settings.budget << "</td><td class=\"l\">"
      << (src == "rtl"       ? "RTL-verified"
          : r.settings.rtl() ? html_escape(src)
                             : "surrogate only (--no-rtl)")
      << "</td><td class=\"l\">" << run_status_name(r.status) << "</td></tr>\n";
  }
  h << "</table>\n";
  if (any_sur)
    h << "<div class=\"banner info\">Some runs are not RTL-verified (surrogate numbers); the "
         "surrogate's "
         "counts equal the RTL's and its cycles are within a few percent (see each run's "
         "report).</div>\n";
}

/// One header cell per run, labelled.
void write_run_columns(std::ostream& h, const std::vector<std::string>& labels) {
  for (const auto& l : labels) h << "<th>" << html_escape(l) << "</th>";
}

/// The network totals per metric, winner marked and the others relative to it; returns the
/// comparison's "totals" (per metric: values and winner).
json write_totals_table(std::ostream& h, const std::vector<LoadedRun>& runs,
                        const std::vector<std::string>& labels) {
  h << "<h2>Network totals</h2>\n<table><tr><th class=\"l\">metric</th>";
  write_run_columns(h, labels);
  h << "<th class=\"l\">winner</th></tr>\n";
  json totals = json::object();
  for (const auto& m : kMetrics) {
    const std::vector<double> v = total_values(runs, m);
    const int w = winner(v, m.higher_better);
    h << "<tr><td class=\"l\">" << m.label << (m.higher_better ? " &uarr;" : " &darr;") << "</td>";
    for (size_t i = 0; i < v.size(); ++i) {
      std::string rel;
      if (w >= 0 && static_cast<int>(i) != w && std::isfinite(v[i]) && v[w] != 0)
        rel = " <span class=\"note\">(" + fmt_fixed(v[i] / v[w], 2) + "&times;)</span>";
      h << "<td" << (static_cast<int>(i) == w ? " class=\"win\"" : "") << ">"
        << metric_text(m, v[i]) << (static_cast<int>(i) == w ? " &#9733;" : rel) << "</td>";
    }
    h << "<td class=\"l\">" << (w >= 0 ? html_escape(labels[w]) : "") << "</td></tr>\n";
    totals[m.key] = {{"values", v}, {"winner", w >= 0 ? json(labels[w]) : json()}};
  }
  h << "</table>\n";
  return totals;
}

/// The lower-is-better totals relative to the best run, as a histogram beside the page.
void write_relative_totals(std::ostream& h, const std::vector<LoadedRun>& runs,
                           const std::vector<std::string>& labels, const fs::path& out_html) {
  std::vector<std::pair<std::string, std::vector<double>>> relative;
  for (const auto& m : kMetrics) {
    if (m.higher_better) continue;
    const std::vector<double> v = total_values(runs, m);
    const int w = winner(v, false);
    std::vector<double> rel;
    for (double x : v) rel.push_back(w >= 0 && v[w] > 0 ? x / v[w] : 0);
    relative.emplace_back(m.key, rel);
  }
  write_totals_plot(h, labels, relative, out_html);
}

/// One table per metric with a row per layer, winner marked; returns the comparison's
/// "layers" (per layer and metric: values and winner).
json write_layer_tables(std::ostream& h, const std::vector<LoadedRun>& runs,
                        const std::vector<std::string>& labels,
                        const std::vector<std::string>& names) {
  json layers = json::object();
  for (const auto& m : kMetrics) {
    h << "<h2>Per layer: " << m.label << "</h2>\n<table><tr><th class=\"l\">layer</th>";
    write_run_columns(h, labels);
    h << "</tr>\n";
    for (const auto& name : names) {
      std::vector<double> v;
      for (const auto& run : runs) v.push_back(layer_value(run.record, name, m));
      const int w = winner(v, m.higher_better);
      h << "<tr><td class=\"l\">" << html_escape(name) << "</td>";
      for (size_t i = 0; i < v.size(); ++i)
        h << "<td" << (static_cast<int>(i) == w ? " class=\"win\"" : "") << ">"
          << (std::isfinite(v[i]) ? metric_text(m, v[i]) : "&ndash;")
          << (static_cast<int>(i) == w && runs.size() > 1 ? " &#9733;" : "") << "</td>";
      h << "</tr>\n";
      layers[name][m.key] = {{"values", v}, {"winner", w >= 0 ? json(labels[w]) : json()}};
    }
    h << "</table>\n";
  }
  return layers;
}

}  // namespace

json render_compare(const std::vector<LoadedRun>& runs, const fs::path& out_html) {
  const std::vector<std::string> labels = run_labels(runs);
  json cmp;
  cmp["runs"] = runs_json(runs, labels);
  std::ostringstream h;
  h << page_head("mapwright compare") << "<h1>Comparison of " << runs.size() << " runs</h1>\n";
  write_runs_table(h, runs, labels);
  cmp["totals"] = write_totals_table(h, runs, labels);
  write_relative_totals(h, runs, labels, out_html);
  cmp["layers"] = write_layer_tables(h, runs, labels, layer_names(runs));
  h << "<p class=\"note\">&#9733; marks the winner: lowest latency, energy and EDP; highest "
       "utilization. "
       "Per-layer values count one occurrence of the layer; totals count every "
       "occurrence.</p>\n</main></body></html>\n";
  write_atomic(out_html, h.str());
  return cmp;
}

}  // namespace mapwright::flows
