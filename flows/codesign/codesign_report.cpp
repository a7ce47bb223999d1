// The codesign report (report.html in a codesign folder), drawn from codesign.json and
// points.json: the searcher, seed and budget, the proof or gap status, the area-vs-cost scatter of
// every evaluated point with the Pareto front and the chosen design (gnuplot through
// report/plots.cpp, every string quoted), the chosen design's parameters, area by part, networks
// and layers, the one-step sensitivity, the front as a table and the searcher's configuration.
// Every text in the page is escaped.
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/model/clock.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/support/error.hpp"
#include "report/format.hpp"
#include "report/plots.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// A JSON file of the folder, parsed; a missing or broken one is refused naming it.
json read_json(const fs::path& f) {
  if (!fs::exists(f))
    throw core::SpecError(f.parent_path().string(), "codesign-dir", f.string(),
                          "missing: not a `mapwright codesign` folder");
  try {
    return json::parse(read_text(f));
  } catch (const json::exception& e) {
    throw core::SpecError(f.string(), "(json)", "", e.what());
  }
}

/// A point's parameter value as text: a dataflow set as "ws+os", a number as itself.
std::string value_text(const json& v) {
  if (!v.is_array()) return v.dump();
  std::string t;
  for (const auto& d : v) t += (t.empty() ? "" : "+") + d.get<std::string>();
  return t;
}

/// A point's parameters on one line: "16x8, ws+os, 16 B/cycle, banks 0, acc/wgt/in 4/2/3 KiB".
std::string params_text(const json& p) {
  return p["rows"].dump() + "x" + p["cols"].dump() + ", " + value_text(p["dataflows"]) + ", " +
         p["dram_bytes_per_cycle"].dump() + " B/cycle, banks " + p["banks"].dump() +
         ", accum/weight/input " + p["accum_kib"].dump() + "/" + p["weight_kib"].dump() + "/" +
         p["input_kib"].dump() + " KiB";
}

/// The status banner: what the answer is and how sure.
std::string status_banner(const json& c) {
  const json& oc = c["outcome"];
  const std::string st = oc["status"].get<std::string>();
  std::string cls = "ok", text;
  if (st == "proved_optimal") {
    text = "Proved optimal: no point of the space has a lower cost (lower bound " +
           fmt_g(oc["lower_bound"].get<double>(), 6) + ", gap 0 %).";
  } else if (st == "best_of_all_points") {
    text = "Optimal: the best of every point of the space (enumeration).";
  } else if (st == "best_found") {
    cls = "warn";
    text = "Best design found at the time limit: cost " + fmt_g(oc["best_cost"], 6) +
           ", proven lower bound " + fmt_g(oc["lower_bound"], 6) + ", gap " +
           fmt_fixed(100 * oc["gap"].get<double>(), 3) + " %.";
  } else if (st == "best_of_sample") {
    cls = "warn";
    text = "Best of a sample of " + oc["points_evaluated"].dump() + " points (" +
           c["searcher"].get<std::string>() +
           "): no bound on its distance to the optimum; `--searcher exact` proves one.";
  } else if (st == "no_feasible_design") {
    cls = "bad";
    text =
        "No feasible design: no point meets the constraints; the smallest area the space "
        "reaches is " +
        fmt_fixed(oc["smallest_area_mm2"], 3) + " mm^2.";
  } else {
    cls = "bad";
    text = "No design evaluated within the time limit.";
  }
  return "<div class=\"banner " + cls + "\">" + html_escape(text) + "</div>\n";
}

/// The scatter of every point with a cost within the latency and energy limits, the front and the
/// chosen design; a note when gnuplot is missing.
bool scatter(std::ostream& h, const fs::path& dir, const json& c, const json& points) {
  FrontPlot fp;
  fp.stem = "front_cost";
  fp.title = "Area vs " + c["objective"].get<std::string>() + " of the workload";
  fp.ylabel = "workload cost (" + c["objective"].get<std::string>() + ")";
  fp.max_area = c["constraints"].value("max_area_mm2", 0.0);
  fp.chosen_title = "chosen design";
  double lo = INFINITY, hi = 0;
  for (const auto& p : points) {
    if (!p.value("buildable", false) || !p.contains("cost") || p.value("infeasible", "") != "")
      continue;
    const double y = p["cost"].get<double>();
    fp.all += front_plot_row(p["area_mm2"].get<double>(), y, "");
    lo = std::min(lo, y);
    hi = std::max(hi, y);
  }
  fp.logy = hi > 20 * lo;
  // Unlabelled: a front of tens of points would bury its labels; the front table names them.
  for (const auto& p : c["front"])
    fp.front += front_plot_row(p["area_mm2"].get<double>(), p["cost"].get<double>(), "");
  if (c.contains("chosen"))
    fp.chosen = front_plot_row(c["chosen"]["area_mm2"].get<double>(),
                               c["chosen"]["cost"].get<double>(), "");
  const fs::path plots = dir / "plots";
  make_dirs(plots);
  const std::string svg = front_plot_svg(plots, fp);
  if (svg.empty()) {
    h << "<p class=\"note\">(no plot: gnuplot is missing or no point has a cost)</p>\n";
    return false;
  }
  h << "<div class=\"plot\" style=\"max-width:760px\">" << svg << "</div>\n";
  return true;
}

/// A design's RTL status in a few words: "all 3 layers passed", "1 of 3 layers failed", "no
/// model: why", or "not run" when --rtl did not name it.
std::string rtl_text(const json& design) {
  if (!design.contains("rtl")) return "not run";
  const json& r = design["rtl"];
  const std::string status = r["status"].get<std::string>();
  if (status == "no_model") return "no model: " + r.value("reason", std::string());
  if (status == "pending") return "not finished";
  const size_t n = r["layers"].size();
  const int passed = r["layers_passed"].get<int>();
  if (status == "passed") return "all " + std::to_string(n) + " layers passed";
  return std::to_string(n - passed) + " of " + std::to_string(n) + " layers failed";
}

/// The chosen design's clock and where it comes from (HTML): the clock model's frequency for
/// its array, or the base architecture's stated clock, which no timing has checked.
std::string clock_text(const json& ch, const json& clock) {
  if (!ch.contains("clock_mhz")) return "";
  const std::string mhz = fmt_fixed(ch["clock_mhz"], 1);
  if (clock.value("mode", std::string()) == "modeled")
    return mhz + " (modeled for this array: <code>clock: modeled</code>)";
  std::string modeled;
  if (ch.contains("parameters") && ch["parameters"].contains("rows") &&
      ch["parameters"].contains("cols")) {
    core::Arch a;
    a.rows = ch["parameters"]["rows"].get<int>();
    a.cols = ch["parameters"]["cols"].get<int>();
    const double f = model::estimate_clock(a).fmax_mhz;
    modeled = "; the clock model gives this array " + fmt_fixed(f, 1) +
              " MHz: " + (f >= ch["clock_mhz"].get<double>() ? "met" : "<b>not met</b>");
  }
  return mhz + " (the base's stated clock" + modeled + ")";
}

/// The chosen design: parameters, area, per-network figures and per-layer figures.
void chosen_section(std::ostream& h, const json& ch, const json& clock) {
  h << "<h2>Chosen design</h2>\n<table style=\"width:auto\"><tbody>\n";
  for (const auto& [k, v] : ch["parameters"].items())
    h << "<tr><th class=\"l\">" << html_escape(k) << "</th><td>" << html_escape(value_text(v))
      << "</td></tr>\n";
  h << "<tr><th class=\"l\">area mm<sup>2</sup></th><td>" << fmt_fixed(ch["area_mm2"], 4)
    << "</td></tr>\n<tr><th class=\"l\">workload cost</th><td>" << fmt_g(ch["cost"], 6)
    << "</td></tr>\n<tr><th class=\"l\">clock MHz</th><td>" << clock_text(ch, clock)
    << "</td></tr>\n<tr><th class=\"l\">RTL</th><td>" << html_escape(rtl_text(ch))
    << "</td></tr>\n</tbody></table>\n";
  if (clock.value("mode", std::string()) == "modeled")
    h << "<p class=\"note\">Every point's latency is at the clock model's frequency for its array "
         "(model/clock.hpp: "
      << html_escape(clock["model"]["source"].get<std::string>())
      << "); its cost counts cycles at the base's " << fmt_g(clock["base_clock_mhz"], 4)
      << " MHz.</p>\n";
  if (ch.contains("area_breakdown"))
    area_parts_html(h, ch["area_breakdown"], ch["area_breakdown"]["total_mm2"].get<double>(),
                    ch.contains("synthesis") ? ch["synthesis"] : json());
  h << "<h3>Networks</h3>\n<table style=\"width:auto\"><thead><tr><th "
       "class=\"l\">network</th><th>cycles</th>"
       "<th>latency ms</th><th>energy uJ</th></tr></thead><tbody>\n";
  for (const auto& n : ch["networks"])
    h << "<tr><td class=\"l\">" << html_escape(n["network"].get<std::string>()) << "</td><td>"
      << fmt_g(n["cycles"], 8) << "</td><td>" << fmt_g(n["latency_ms"], 5) << "</td><td>"
      << fmt_g(n["energy_uj"], 5) << "</td></tr>\n";
  h << "</tbody></table>\n";
  if (!ch.contains("layers")) return;
  h << "<h3>Layers (each at its proven-optimal mapping on this design)</h3>\n<table><thead><tr>"
       "<th class=\"l\">network</th><th class=\"l\">layer</th><th>count</th><th>dataflow</th>"
       "<th>PEs used</th><th>cycles</th><th>energy pJ</th><th>cost</th><th>proved</th>"
       "</tr></thead><tbody>\n";
  for (const auto& l : ch["layers"])
    h << "<tr><td class=\"l\">" << html_escape(l["network"].get<std::string>())
      << "</td><td class=\"l\">" << html_escape(l["layer"].get<std::string>()) << "</td><td>"
      << l["count"].get<int>() << "</td><td>" << html_escape(l["dataflow"].get<std::string>())
      << "</td><td>" << l["pe_rows"].get<int>() << "x" << l["pe_cols"].get<int>() << "</td><td>"
      << fmt_g(l["cycles"], 8) << "</td><td>" << fmt_g(l["energy_pj"], 6) << "</td><td>"
      << fmt_g(l["cost"], 6) << "</td><td>" << (l["optimal"].get<bool>() ? "yes" : "no")
      << "</td></tr>\n";
  h << "</tbody></table>\n<p class=\"note\">Per layer, one inference of the layer: a network's "
       "figures are its layers' times their counts.</p>\n";
}

/// One step from the chosen design in each parameter: the neighbour's area and cost change.
void sensitivity_section(std::ostream& h, const json& rows) {
  h << "<h2>Sensitivity (one step from the chosen design)</h2>\n<table style=\"width:auto\">"
       "<thead><tr><th class=\"l\">parameter</th><th class=\"l\">value</th>"
       "<th>area mm<sup>2</sup></th><th>cost change</th><th class=\"l\">note</th></tr>"
       "</thead><tbody>\n";
  for (const auto& r : rows) {
    const std::string key = r["parameter"].get<std::string>();
    std::string note;
    if (!r.value("buildable", false))
      note = "unbuildable: " + r.value("unbuildable", std::string());
    else if (r.value("infeasible", std::string()) != "")
      note = r["infeasible"].get<std::string>();
    else if (r.value("over_area", false))
      note = "over the area limit";
    h << "<tr><td class=\"l\">" << html_escape(key) << "</td><td class=\"l\">"
      << html_escape(value_text(r["parameters"][key])) << "</td><td>" << fmt_fixed(r["area_mm2"], 4)
      << "</td><td>"
      << (r["relative_cost"].is_null()
              ? std::string()
              : fmt_fixed(100 * r["relative_cost"].get<double>(), 2) + " %")
      << "</td><td class=\"l\">" << html_escape(note) << "</td></tr>\n";
  }
  h << "</tbody></table>\n<p class=\"note\">Each row changes one parameter by one value of the "
       "space (down, then up), every layer again at its proven-optimal mapping; evaluated after "
       "the search, so these points are not in points.json.</p>\n";
}

/// The search: settings, counters, the front as a table, the searcher's configuration.
void search_section(std::ostream& h, const json& c) {
  const json& oc = c["outcome"];
  h << "<h2>Pareto front (area against workload cost)</h2>\n<table><thead><tr>"
       "<th>area mm<sup>2</sup></th><th>cost</th><th class=\"l\">design</th>"
       "<th class=\"l\">RTL</th></tr></thead><tbody>\n";
  for (const auto& p : c["front"])
    h << "<tr><td>" << fmt_fixed(p["area_mm2"], 4) << "</td><td>" << fmt_g(p["cost"], 6)
      << "</td><td class=\"l\">" << html_escape(params_text(p["parameters"]))
      << "</td><td class=\"l\">" << html_escape(rtl_text(p)) << "</td></tr>\n";
  h << "</tbody></table>\n<p class=\"note\">RTL: each unique layer's chosen mapping run on "
       "this design's RTL (bit-exact outputs and every access counter equal to the surrogate's); "
       "<code>codesign --rtl front</code> verifies every design of the front, <code>--rtl "
       "chosen</code> the chosen one.</p>\n<h2>Search</h2>\n<p>"
    << oc["points_evaluated"].dump() << " points evaluated in " << fmt_fixed(oc["seconds"], 2)
    << " s, " << oc["mapper_solves"].dump() << " mapper solves, " << oc["memo_hits"].dump()
    << " memo hits" << (oc["timed_out"].get<bool>() ? "; stopped by the time limit" : "")
    << ".</p>\n";
  if (oc.contains("branch_and_bound")) {
    const json& b = oc["branch_and_bound"];
    h << "<p>Branch-and-bound: " << b["boxes"].dump() << " boxes bounded; cut by the cost bound "
      << b["pruned_bound"].dump() << ", by the area bound " << b["pruned_area"].dump()
      << ", by a latency or energy bound " << b["pruned_constraint"].dump() << "; "
      << b["collapsed"].dump() << " resolved by one evaluation.</p>\n";
  }
  if (c.contains("searcher_config"))
    h << "<details><summary>Searcher configuration (options, seeds)</summary><pre>"
      << html_escape(c["searcher_config"].dump(1)) << "</pre></details>\n";
}

}  // namespace

bool write_codesign_report(const std::string& folder, const std::string& out_html) {
  const fs::path dir = folder;
  const json c = read_json(dir / "codesign.json");
  const json points = read_json(dir / "points.json");
  std::ostringstream h;
  const std::string name = c["space"]["name"].get<std::string>();
  h << page_head("mapwright codesign: " + name) << "<h1>Co-design: " << html_escape(name)
    << "</h1>\n<p class=\"meta\">Space " << html_escape(c["space"]["file"].get<std::string>())
    << " (" << fmt_g(c["space"]["points"].get<double>(), 6) << " hardware points, base "
    << html_escape(c["space"]["base"].get<std::string>()) << "); searcher <b>"
    << html_escape(c["searcher"].get<std::string>()) << "</b>, seed " << c["seed"].dump()
    << (c.contains("budget") ? ", budget " + c["budget"].dump() + " points" : std::string())
    << "; objective " << html_escape(c["objective"].get<std::string>()) << "; workload";
  for (const auto& w : c["workload"])
    h << " " << html_escape(w["network"].get<std::string>()) << " (weight " << fmt_g(w["weight"], 4)
      << ")";
  h << ".</p>\n" << status_banner(c);
  h << "<h2>Every evaluated point</h2>\n";
  const bool plotted = scatter(h, dir, c, points);
  h << "<p class=\"note\">Grey: every evaluated point that is buildable and within the latency "
       "and energy limits (any area); blue: the area-cost Pareto front; red: the chosen design. "
       "Area is the analytical model's (model/area.hpp), not a synthesis result; costs are the "
       "surrogate's at each layer's proven-optimal mapping (docs/codesign.md).</p>\n";
  if (c.contains("chosen")) chosen_section(h, c["chosen"], c.value("clock", json()));
  if (c.contains("sensitivity")) sensitivity_section(h, c["sensitivity"]);
  search_section(h, c);
  h << "</main></body></html>\n";
  write_atomic(out_html.empty() ? dir / "report.html" : fs::path(out_html), h.str());
  return plotted;
}

}  // namespace mapwright::flows
