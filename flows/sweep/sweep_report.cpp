// sweep.html: the fronts (area vs latency, energy, EDP) as gnuplot SVGs inlined into one
// self-contained page, the winner under the sweep's constraints, and the table of points. Every
// name that reaches a gnuplot script or data file is quoted (gp_quote, gp_data_label) and every
// text in the page is escaped (html_escape).
#include "sweep/sweep_report.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/files.hpp"
#include "common/html.hpp"
#include "common/text.hpp"
#include "mapwright/flows/synth.hpp"
#include "report/format.hpp"
#include "report/plots.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mapwright::flows {

namespace {

struct Front {
  const char* key;    ///< pareto_* flag of a point.
  const char* field;  ///< y value of a point.
  const char* stem;   ///< File names of its plot: plots/<stem>*.
  const char* title;  ///< Plot title.
  const char* ylabel;
  bool logy;
};
const Front kFronts[] = {
    {"pareto_latency", "latency_ms", "front_latency", "Area vs latency", "network latency (ms)",
     false},
    {"pareto_energy", "energy_uj", "front_energy", "Area vs energy", "network energy (uJ)", false},
    {"pareto_edp", "edp", "front_edp", "Area vs energy-delay product", "EDP (cycles x pJ)", true},
};

/// One front's plot: every point, the front as a line, the winner; "" when gnuplot failed.
std::string front_plot(const fs::path& plots, const json& sweep, const Front& f) {
  FrontPlot fp;
  fp.stem = f.stem;
  fp.title = f.title;
  fp.ylabel = f.ylabel;
  fp.logy = f.logy;
  fp.max_area = sweep["constraints"].value("max_area_mm2", 0.0);
  std::vector<std::pair<double, std::string>> front_rows;  // drawn as a line: by area
  for (const auto& p : sweep["points"]) {
    if (!p.contains("cycles")) continue;
    const std::string row = front_plot_row(p["area_mm2"].get<double>(), p[f.field].get<double>(),
                                           "p" + std::to_string(p["index"].get<int>()));
    fp.all += row;
    if (p.value(f.key, false)) front_rows.emplace_back(p["area_mm2"].get<double>(), row);
    if (p.value("winner", false)) fp.chosen += row;
  }
  std::stable_sort(front_rows.begin(), front_rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& r : front_rows) fp.front += r.second;
  return front_plot_svg(plots, fp);
}

std::string constraints_text(const json& c) {
  std::string t;
  auto add = [&](const char* key, const char* what, const char* unit) {
    const double v = c.value(key, 0.0);
    if (v > 0) t += (t.empty() ? "" : ", ") + std::string(what) + " <= " + fmt_g(v) + " " + unit;
  };
  add("max_area_mm2", "area", "mm2");
  add("max_latency_ms", "latency", "ms");
  add("max_energy_uj", "energy", "uJ");
  return t.empty() ? "none" : t;
}

std::string winner_text(const json& sweep) {
  if (sweep["winner"].is_null())
    return "no finished point meets the constraints (" + constraints_text(sweep["constraints"]) +
           ")";
  const json& p = sweep["points"][sweep["winner"].get<size_t>()];
  const std::string limits = constraints_text(sweep["constraints"]);
  return p["name"].get<std::string>() + ": area " + fmt_fixed(p["area_mm2"].get<double>(), 3) +
         " mm2, latency " + fmt_g(p["latency_ms"].get<double>(), 4) + " ms, energy " +
         fmt_g(p["energy_uj"].get<double>(), 4) + " uJ, EDP " + fmt_sci(p["edp"].get<double>(), 4) +
         " (best " + sweep["objective"].get<std::string>() +
         (limits == "none" ? std::string(", no constraints") : " under " + limits) + ")";
}

}  // namespace

void write_sweep_report(const fs::path& dir, const json& sweep) {
  const fs::path plots = dir / "plots";
  make_dirs(plots);
  size_t done = 0, failed = 0, pending = 0;
  for (const auto& p : sweep["points"]) {
    const std::string st = p["status"].get<std::string>();
    (st == "done" ? done : st == "failed" ? failed : pending)++;
  }
  std::ostringstream h;
  const std::string title = "mapwright sweep: " + sweep["name"].get<std::string>();
  h << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
    << html_escape(title) << "</title>\n<style>" << page_base_css()
    << ".fronts{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:12px}"
       "td.bad{color:#b03030}tr.win td{background:#fff4d6}.mark{color:#3b6fb6;font-weight:600}"
       "</style></head><body><main>\n"
    << "<h1>" << html_escape(title) << "</h1>\n<p>"
    << html_escape(sweep.value("description", std::string())) << "</p>\n"
    << "<p>Network <b>" << html_escape(sweep["network_name"].get<std::string>()) << "</b> ("
    << html_escape(sweep["network"].get<std::string>()) << "), base architecture <b>"
    << html_escape(sweep["base_arch"].get<std::string>()) << "</b>, objective <b>"
    << html_escape(sweep["objective"].get<std::string>()) << "</b>, seed "
    << sweep["seed"].get<uint64_t>() << ". Every layer mapped by the exact mapper; RTL "
    << "verification: " << html_escape(sweep["verify"].get<std::string>())
    << (sweep["verify"] == "sample"
            ? " (" + std::to_string(sweep["verify_sample"].get<int>()) + " points)"
            : std::string())
    << ". " << done << " of " << sweep["points"].size() << " points done, " << failed << " failed, "
    << pending << " pending (" << html_escape(sweep["status"].get<std::string>()) << ").</p>\n";
  h << "<div class=\"banner " << (sweep["winner"].is_null() ? "bad" : "good")
    << "\"><b>Winner:</b> " << html_escape(winner_text(sweep)) << "</div>\n";
  h << "<h2>Pareto fronts</h2>\n<div class=\"fronts\">\n";
  for (const Front& f : kFronts) {
    const std::string svg = front_plot(plots, sweep, f);
    if (!svg.empty())
      h << "<div class=\"plot\">" << svg << "</div>\n";
    else
      h << "<p>(" << html_escape(f.title) << ": no plot; gnuplot is missing or no point has "
        << "figures yet)</p>\n";
  }
  h << "</div>\n";
  if (!sweep["winner"].is_null()) {
    const json& w = sweep["points"][sweep["winner"].get<size_t>()];
    if (w.contains("area") && w.contains("area_mm2")) {
      h << "<h2>The winner's area</h2>\n";
      area_parts_html(h, w["area"], w["area_mm2"].get<double>(),
                      sweep.contains("winner_synthesis") ? sweep["winner_synthesis"] : json());
    }
  }
  h << "<p>Area is the analytical model's (model/area.hpp; constants in sweep.json "
       "<code>area_constants</code>), not a synthesis result. Latency and energy are the "
       "network totals of each point's proven-optimal mappings on the surrogate (the figures "
       "the mapper optimized; its access counts are the RTL's). Where a point was verified, "
       "<i>surrogate vs RTL cycles</i> gives the surrogate's error against the RTL's network "
       "cycles.</p>\n";
  h << "<h2>Points</h2>\n<table><thead><tr><th>#</th><th>point</th><th>array</th>"
       "<th>input / weight / accum KiB</th><th>DRAM B/cycle</th><th>dataflows</th>"
       "<th>area mm<sup>2</sup></th><th>latency ms</th><th>energy uJ</th><th>EDP</th>"
       "<th>surrogate vs RTL cycles</th><th>RTL checks</th><th>RTL "
       "model</th><th>fronts</th><th>status</th>"
       "</tr></thead><tbody>\n";
  for (const auto& p : sweep["points"]) {
    const bool has = p.contains("cycles");
    h << "<tr" << (p.value("winner", false) ? " class=\"win\"" : "") << "><td>"
      << p["index"].get<int>() << "</td><td>";
    h << html_escape(p["name"].get<std::string>());
    h << "</td><td>" << p["rows"].get<int>() << "x" << p["cols"].get<int>() << "</td><td>"
      << p["input_kib"].get<long long>() << " / " << p["weight_kib"].get<long long>() << " / "
      << p["accum_kib"].get<long long>() << "</td><td>" << p["dram_bytes_per_cycle"].get<int>()
      << "</td><td>" << html_escape(p["dataflows"].get<std::string>()) << "</td><td>"
      << (p.contains("area_mm2") ? fmt_fixed(p["area_mm2"].get<double>(), 3) : "") << "</td><td>"
      << (has ? fmt_g(p["latency_ms"].get<double>(), 4) : "") << "</td><td>"
      << (has ? fmt_g(p["energy_uj"].get<double>(), 4) : "") << "</td><td>"
      << (has ? fmt_sci(p["edp"].get<double>(), 4) : "") << "</td><td>"
      << (p.contains("rtl_cycle_error_pct")
              ? fmt_fixed(p["rtl_cycle_error_pct"].get<double>(), 2) + " %"
              : std::string())
      << "</td><td>";
    if (has && p.value("verifications", 0) > 0)
      h << p["verifications"].get<int>() - p["verification_failures"].get<int>() << "/"
        << p["verifications"].get<int>();
    h << "</td><td>" << html_escape(p.value("rtl_model", std::string()))
      << "</td><td class=\"mark\">" << (p.value("pareto_latency", false) ? "L " : "")
      << (p.value("pareto_energy", false) ? "E " : "") << (p.value("pareto_edp", false) ? "D" : "")
      << "</td><td" << (p["status"] == "failed" ? " class=\"bad\"" : "") << ">"
      << html_escape(p["status"].get<std::string>())
      << (p["failure"].get<std::string>().empty()
              ? std::string()
              : ": " + html_escape(p["failure"].get<std::string>()))
      << "</td></tr>\n";
  }
  h << "</tbody></table>\n<p>Fronts: L = area vs latency, E = area vs energy, D = area vs EDP. "
       "Results: sweep.json (with each verified point's per-layer RTL verdicts, "
       "<code>rtl_check</code>), and the sweep_points table of "
       "results.sqlite.</p>\n</main></body></html>\n";
  write_atomic(dir / "sweep.html", h.str());
}

void print_sweep_summary(std::ostream& out, const json& sweep, const fs::path& dir) {
  size_t done = 0, failed = 0;
  for (const auto& p : sweep["points"]) {
    if (p["status"] == "done") ++done;
    if (p["status"] == "failed") ++failed;
  }
  out << "\nsweep " << sweep["name"].get<std::string>() << ": " << done << " of "
      << sweep["points"].size() << " points done" << (failed ? ", " : "")
      << (failed ? std::to_string(failed) + " FAILED" : std::string()) << "\n";
  for (const Front& f : kFronts) {
    out << "  front " << std::left << std::setw(30) << f.title << std::right << ":";
    for (const auto& p : sweep["points"])
      if (p.value(f.key, false)) out << " p" << p["index"].get<int>();
    out << "\n";
  }
  out << "  winner: " << winner_text(sweep) << "\n";
  if (sweep.contains("winner_synthesis")) {
    double model_logic = 0;
    if (!sweep["winner"].is_null()) {
      const json& area = sweep["points"][sweep["winner"].get<size_t>()]["area"];
      model_logic = area["pe_array_mm2"].get<double>() + area["control_mm2"].get<double>();
    }
    out << "  winner's " << synth_summary(sweep["winner_synthesis"], model_logic) << "\n";
  }
  out << "report: " << (dir / "sweep.html").string() << "\n";
}

}  // namespace mapwright::flows
