// HTML rendering of the reports: the run report (summary, per-layer table, best-so-far curves,
// surrogate-vs-RTL parity with its error statistics, every functional check, the chosen
// mappings) and the comparison of runs with the winner of each metric marked. Each section of a
// page is one function writing to the page's stream; plots are gnuplot SVGs inlined into the
// HTML, their scripts and data kept beside the page.
#include "report/render.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>

#include "common/html.hpp"
#include "common/text.hpp"
#include "common/files.hpp"
#include "common/process.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// The page's own rules, after page_base_css().
const char* kCss = R"css(
.meta{color:#5a6473;font-size:13px}
.ok{background:#e3f4e8;color:#17612e;border:1px solid #a8d8b5}.bad{background:#fde8e8;color:#a01616;border:1px solid #f0a5a5}
.info{background:#e8eef9;color:#234a8a;border:1px solid #b4c6ea}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin:12px 0}
.card{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px 14px}
.card .k{font-size:12px;color:#5a6473;text-transform:uppercase;letter-spacing:.04em}.card .v{font-size:24px;font-weight:650;margin-top:4px}
.card .s{font-size:12px;color:#5a6473;margin-top:2px}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px;border:1px solid #dde1e7}
th,td{padding:4px 5px;border-bottom:1px solid #eceef2;text-align:right;white-space:nowrap}th{white-space:normal;vertical-align:bottom}
th{background:#eef1f5;font-weight:600;position:sticky;top:0}
td.l,th.l{text-align:left}td.shape{white-space:normal;font-size:11px;color:#3a4250;min-width:150px;max-width:190px;text-align:left}td.wrap{white-space:normal;text-align:left;max-width:420px}
tr.fail td{background:#fdeaea;color:#a01616}td.fail,span.fail{color:#c01818;font-weight:650}td.pass,span.pass{color:#17612e;font-weight:600}
.stats{display:flex;gap:24px;font-size:14px;margin:6px 0 10px}.stats b{font-size:16px}
pre{background:#fff;border:1px solid #dde1e7;padding:8px;font-size:12px;overflow:auto}
details{margin:4px 0}summary{cursor:pointer;font-size:13px}
.note{font-size:12px;color:#5a6473}
)css";

std::string e(const json& j) {
  return html_escape(j.is_string() ? j.get<std::string>() : j.dump());
}
double num(const json& j, double fallback = std::numeric_limits<double>::quiet_NaN()) {
  return j.is_number() ? j.get<double>() : fallback;
}

/// Time from cycles at the arch clock, human readable.
std::string time_of(double cycles, double mhz) {
  return si(cycles / (mhz * 1e6), 4) + "s";
}

std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         html_escape(title) + "</title>\n<style>" + page_base_css() + kCss +
         "</style></head><body><main>\n";
}

/// Keeps about `n` log-spaced rows of a best-so-far curve (plus its last row).
std::vector<std::pair<long long, double>> read_curve(const fs::path& csv, size_t n = 150) {
  std::vector<std::pair<long long, double>> all;
  std::ifstream f(csv);
  std::string line;
  std::getline(f, line);
  while (std::getline(f, line)) {
    const size_t c = line.find(',');
    if (c == std::string::npos || c + 1 >= line.size()) continue;
    all.emplace_back(std::stoll(line.substr(0, c)), std::stod(line.substr(c + 1)));
  }
  if (all.size() <= n) return all;
  std::vector<std::pair<long long, double>> out;
  const double lmax = std::log(static_cast<double>(all.back().first));
  double next = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const double l = std::log(static_cast<double>(all[i].first));
    if (l >= next || i + 1 == all.size() || (i > 0 && all[i].second != all[i - 1].second)) {
      out.push_back(all[i]);
      next = l + lmax / static_cast<double>(n);
    }
  }
  return out;
}

const char* kTerm =
    "set terminal svg size 1000,430 dynamic font 'DejaVu Sans,11' background '#ffffff'\n";

// ---------------------------------------------------------------------------------------------
// The run report, one function per section.

/// What the sections of a run report read: the run's record and where its plots go.
struct RunView {
  const json& res;         ///< The run's results.json record.
  const json& layers;      ///< Its "layers".
  fs::path dir;            ///< The run folder (curve CSVs are named relative to it).
  fs::path plots;          ///< dir/plots: gnuplot scripts, their data and the SVGs.
  bool rtl = false;        ///< Candidates were verified on the RTL.
  bool exact_run = false;  ///< Layers were solved by the exact mapper (a proof, no curve).
  double mhz = 0;          ///< Clock of the architecture, MHz.
};

/// Writes `script` to plots/<stem>.gp, runs gnuplot on it and inlines plots/<stem>.svg in a
/// <div> with `div_attrs`; false (nothing inlined) when gnuplot was missing or failed.
bool inline_plot(std::ostream& h, const fs::path& plots, const std::string& stem,
                 const std::string& script, const std::string& div_attrs = "class=\"plot\"") {
  write_atomic(plots / (stem + ".gp"), script);
  const std::string svg = gnuplot_svg(plots / (stem + ".gp"), plots / (stem + ".svg"));
  if (svg.empty()) return false;
  h << "<div " << div_attrs << ">" << svg << "</div>\n";
  return true;
}

std::string run_title(const json& res) {
  return "mapwright run: " + res["target"].get<std::string>() + " on " +
         res["arch"].get<std::string>();
}

/// The search effort of a run in words: the exact mapper's target gap and time limit, or the
/// sampling budget.
std::string effort_html(const json& res, bool exact_run) {
  if (exact_run && res.contains("exact"))
    return (num(res["exact"]["gap"], 0) == 0
                ? std::string("proves each optimum")
                : "proven gap &le; " + fmt_g(100 * num(res["exact"]["gap"], 0), 3) + " %") +
           " within at most " + fmt_g(num(res["exact"]["time_limit_s"], 0), 3) + " s per layer";
  return res["budget_per_layer"].dump() + " surrogate samples per layer";
}

/// The title and the line under it: array, buffers, DRAM port, clock, searcher, effort, objective,
/// seed.
void write_heading(std::ostream& h, const RunView& run, const std::string& title) {
  const json& res = run.res;
  h << "<h1>" << html_escape(title) << "</h1>\n<div class=\"meta\">" << res["arch_info"]["rows"]
    << "x" << res["arch_info"]["cols"] << " array, " << res["arch_info"]["input_kib"] << "/"
    << res["arch_info"]["weight_kib"] << "/" << res["arch_info"]["accum_kib"]
    << " KiB input/weight/accumulator, DRAM "
    << fmt_g(res["arch_info"]["dram_bytes_per_cycle"].get<double>(), 4) << " B/cycle after "
    << res["arch_info"]["dram_latency_cycles"] << " cycles ("
    << e(res["arch_info"].value("dram_port", "packed")) << " port), " << fmt_g(run.mhz, 4) << " MHz"
    << " &middot; searcher <b>" << e(res["searcher"]) << "</b>, " << effort_html(res, run.exact_run)
    << ", objective " << e(res["objective"]) << ", seed " << res["seed"]
    << (run.rtl ? ", top-" + res["top_k"].dump() + " per layer verified on RTL" : "")
    << " &middot; run " << e(res["run_id"]) << ", updated " << e(res.value("updated", ""))
    << "</div>\n";
}

/// Status banners: surrogate only, failed or passed verifications, an unfinished run.
void write_banners(std::ostream& h, const RunView& run) {
  const json& res = run.res;
  const auto& t = res["totals"];
  const auto& vs = res["verification_summary"];
  const size_t failed = vs["failed"].get<size_t>(), done_v = vs["done"].get<size_t>();
  if (!run.rtl) {
    h << "<div class=\"banner info\">Surrogate only (--no-rtl): no mapping of this run was run on "
         "the RTL; every number below is the analytical surrogate's.";
    if (res["arch"] == "large32") h << " (large32 has no compiled RTL model.)";
    h << "</div>\n";
  } else if (failed > 0) {
    h << "<div class=\"banner bad\">" << failed << " of " << done_v
      << " RTL verifications FAILED (functional mismatch, count mismatch or RTL failure): see "
         "<a href=\"#checks\">functional checks</a>.</div>\n";
  } else if (done_v > 0) {
    h << "<div class=\"banner ok\">All " << done_v
      << " RTL verifications passed: outputs bit-exact against the C++ reference and every "
         "hardware counter equal to the surrogate's count.</div>\n";
  }
  if (res["status"] != "complete") {
    h << "<div class=\"banner warn\">Run " << e(res["status"]) << ": " << t["layers_done"] << " of "
      << t["layers_total"] << " layers finished";
    if (run.rtl) h << ", " << vs["pending"] << " RTL verifications not run";
    h << ". Continue with <code>mapwright run --resume --out " << e(res["run_dir"])
      << "</code>.</div>\n";
  }
}

/// An imported network (ONNX): the file, the skipped ops by type and every node not mapped.
void write_import_note(std::ostream& h, const json& res) {
  if (!res.contains("import")) return;
  const json& im = res["import"];
  h << "<div class=\"note\">Network read from " << html_escape(res.value("network_arg", ""));
  if (!im["input_shapes"].empty()) {
    h << " with input shapes";
    for (const auto& s : im["input_shapes"]) h << " " << html_escape(s.get<std::string>());
  }
  h << (im.value("strict", false) ? " (strict)" : "");
  if (!im["skipped"].empty()) {
    h << "; ops that are not compute layers, skipped:";
    bool first = true;
    for (const auto& [op, count] : im["skipped"].items()) {
      h << (first ? " " : ", ") << html_escape(op) << " " << count.get<int>();
      first = false;
    }
  }
  h << ".</div>\n";
  for (const auto& w : im["warnings"])
    h << "<div class=\"note\"><b>Not mapped:</b> " << html_escape(w.get<std::string>())
      << "</div>\n";
}

/// The summary cards of the network totals: latency, energy, EDP, utilization.
void write_total_cards(std::ostream& h, const RunView& run) {
  const auto& t = run.res["totals"];
  const std::string src = t["source"].get<std::string>();
  const std::string src_note = src == "rtl"     ? "RTL-verified"
                               : src == "mixed" ? "RTL where verified, else surrogate"
                                                : "surrogate";
  h << "<div class=\"cards\">"
    << "<div class=\"card\"><div class=\"k\">Network latency</div><div class=\"v\">"
    << time_of(num(t["cycles"], 0), run.mhz) << "</div><div class=\"s\">"
    << with_commas(static_cast<long long>(num(t["cycles"], 0))) << " cycles &middot; " << src_note
    << "</div></div>"
    << "<div class=\"card\"><div class=\"k\">Energy</div><div class=\"v\">"
    << si(num(t["energy_pj"], 0) * 1e-12) << "J</div><div class=\"s\">" << si(num(t["macs"], 0))
    << " MACs</div></div>"
    << "<div class=\"card\"><div class=\"k\">EDP</div><div class=\"v\">"
    << fmt_g(num(t["edp"], 0), 4) << "</div><div class=\"s\">pJ &times; cycles</div></div>"
    << "<div class=\"card\"><div class=\"k\">Utilization</div><div class=\"v\">"
    << fmt_fixed(100 * num(t["utilization"], 0), 1)
    << " %</div><div class=\"s\">MACs / (cycles &times; PEs)</div></div>"
    << "</div>\n<div class=\"note\">Totals count each unique layer as many times as it occurs in "
       "the network ("
    << t["layers_done"] << " of " << t["layers_total"] << " unique layers done).</div>\n";
  write_import_note(h, run.res);
}

/// A layer's RTL verifications: how many ran and how many of them passed.
struct CheckCount {
  int verified = 0;  ///< Candidates with a verification record.
  int passed = 0;    ///< Of them, the ones that passed.
};

CheckCount count_checks(const json& L) {
  CheckCount n;
  for (const auto& c : L["candidates"])
    if (!c["verification"].is_null()) {
      ++n.verified;
      n.passed += c["verification"]["passed"].get<bool>();
    }
  return n;
}

/// The chosen mapping's seven cells (cycles .. chosen by), or one cell saying why there is none.
/// "ws, 16x9 PEs": the dataflow and PE use of a mapping's YAML text (as results.json holds it).
std::string dataflow_and_pes(const std::string& yaml) {
  auto value_after = [&](const std::string& key) {
    const size_t at = yaml.find(key);
    if (at == std::string::npos) return std::string();
    size_t i = at + key.size(), j = i;
    while (j < yaml.size() && std::isalnum(static_cast<unsigned char>(yaml[j]))) ++j;
    return yaml.substr(i, j - i);
  };
  const std::string df = value_after("dataflow: "), r = value_after("rows: "),
                    c = value_after("cols: ");
  if (df.empty()) return "";
  return df + (r.empty() || c.empty() ? "" : ", " + r + "x" + c + " PEs");
}

void write_best_cells(std::ostream& h, const json& L) {
  const auto& b = L["best"];
  if (b.is_null()) {
    h << "<td colspan=\"8\" class=\"l\">"
      << (L["status"] == "pending"    ? "not searched yet"
          : L["status"] == "searched" ? "RTL verification pending"
                                      : "no valid mapping found")
      << "</td>";
    return;
  }
  const auto& chosen = L["candidates"][b["rank"].get<size_t>()];
  const double sc = num(chosen["surrogate"]["cycles"], 0), rc = num(b["cycles"], 0);
  h << "<td>" << with_commas(static_cast<long long>(rc)) << "</td><td>"
    << si(num(b["energy_pj"], 0) * 1e-12) << "J</td><td>" << fmt_g(num(b["edp"], 0), 3)
    << "</td><td>" << fmt_fixed(100 * num(b["utilization"], 0), 1) << "</td><td>"
    << with_commas(static_cast<long long>(sc)) << "</td><td>"
    << (b["chosen_by"] == "rtl" && rc > 0 ? fmt_fixed(100 * (sc - rc) / rc, 2) : "&ndash;")
    << "</td><td>" << e(b["chosen_by"]) << (b["chosen_by"] == "rtl" ? " #" + b["rank"].dump() : "")
    << "</td><td class=\"l\">" << html_escape(dataflow_and_pes(b.value("mapping", std::string())))
    << "</td>";
}

/// The "RTL checks" cell: passed/verified, and the candidates not run yet.
void write_check_cell(std::ostream& h, const json& L, const CheckCount& n) {
  const bool bad = n.verified > n.passed;
  h << "<td class=\""
    << (bad          ? "fail"
        : n.verified ? "pass"
                     : "")
    << "\">" << n.passed << "/" << n.verified
    << (L["candidates"].size() > static_cast<size_t>(n.verified)
            ? " (" + std::to_string(L["candidates"].size() - n.verified) + " pending)"
            : "")
    << "</td>";
}

/// The search cells: the exact mapper's gap, nodes, evaluations and time, or a sampling
/// search's valid share, duplicates and time (empty cells before the layer was searched).
void write_search_cells(std::ostream& h, const json& L, bool exact_run) {
  if (L.contains("search") && exact_run && L["search"].contains("exact")) {
    const auto& x = L["search"]["exact"];
    h << "<td>"
      << (x["gap"].is_null() ? std::string("&ndash;") : fmt_fixed(100 * x["gap"].get<double>(), 3))
      << (x.value("optimal", false) ? " (optimal)" : "") << "</td><td>"
      << with_commas(x.value("nodes", 0LL)) << "</td><td>"
      << with_commas(x.value("evaluations", 0LL)) << "</td><td>"
      << fmt_fixed(num(L["search"]["seconds"], 0), 3) << "</td>";
  } else if (L.contains("search")) {
    const auto& s = L["search"];
    h << "<td>" << fmt_fixed(100.0 * num(s["valid"], 0) / std::max(1.0, num(s["samples"], 1)), 1)
      << "</td><td>" << with_commas(s.value("duplicates", 0LL)) << "</td><td>"
      << fmt_fixed(num(s["seconds"], 0), 1) << "</td>";
  } else {
    h << (exact_run ? "<td></td><td></td><td></td><td></td>" : "<td></td><td></td><td></td>");
  }
}

/// The per-layer table: one row per unique layer.
void write_layer_table(std::ostream& h, const RunView& run) {
  h << "<h2>Layers</h2>\n<table><tr><th class=\"l\">#</th><th class=\"l\">layer</th><th "
       "class=\"l\">shape</th>"
       "<th>count</th><th>cycles</th><th>energy</th><th>EDP</th><th>util %</th>"
       "<th>surrogate cycles</th><th>err %</th><th>chosen by</th><th class=\"l\">dataflow, "
       "PE use</th>";
  if (run.rtl) h << "<th>RTL checks</th>";
  if (run.exact_run)
    h << "<th>proven gap %</th><th>nodes</th><th>mappings scored</th><th>search s</th></tr>\n";
  else
    h << "<th>valid %</th><th>dup.</th><th>search s</th></tr>\n";
  for (const auto& L : run.layers) {
    const CheckCount n = count_checks(L);
    h << "<tr" << (n.verified > n.passed ? " class=\"fail\"" : "") << "><td class=\"l\">"
      << L["index"] << "</td><td class=\"l\">" << e(L["name"]) << "</td><td class=\"shape\">"
      << e(L["shape"]) << "</td><td>" << L["count"] << "</td>";
    write_best_cells(h, L);
    if (run.rtl) write_check_cell(h, L, n);
    write_search_cells(h, L, run.exact_run);
    h << "</tr>\n";
  }
  h << "</table>\n";
}

/// Each layer's share of the network's latency and energy (plots/breakdown.*); false when
/// gnuplot failed. Writes the data always, the plot only when some layer has a mapping.
bool write_breakdown_plot(std::ostream& h, const RunView& run) {
  std::ostringstream d;
  double tc = 0, te = 0;
  for (const auto& L : run.layers)
    if (!L["best"].is_null()) {
      tc += L["count"].get<double>() * num(L["best"]["cycles"], 0);
      te += L["count"].get<double>() * num(L["best"]["energy_pj"], 0);
    }
  size_t rows = 0;
  for (const auto& L : run.layers)
    if (!L["best"].is_null() && tc > 0 && te > 0) {
      const std::string name = L["name"].get<std::string>();
      d << gp_data_label(name + (L["count"].get<int>() > 1 ? " x" + L["count"].dump() : "")) << " "
        << 100 * L["count"].get<double>() * num(L["best"]["cycles"], 0) / tc << " "
        << 100 * L["count"].get<double>() * num(L["best"]["energy_pj"], 0) / te << "\n";
      ++rows;
    }
  write_atomic(run.plots / "breakdown.dat", d.str());
  if (rows == 0) return true;
  std::ostringstream g;
  g << kTerm << "set output " << gp_quote("breakdown.svg") << "\n"
    << "set style data histogram\nset style histogram clustered gap 1\nset style fill solid "
       "0.85 border -1\n"
    << "set boxwidth 0.9\nset xtics rotate by -35 noenhanced font ',9'\nset ylabel '% of "
       "network total'\n"
    << "set grid ytics\nset key top right\nset yrange [0:*]\nset title 'Where the time and "
       "energy go (each layer times its count)'\n"
    << "set bmargin 6\nplot " << gp_quote("breakdown.dat")
    << " using 2:xtic(1) title 'latency' lc rgb '#3b6fb6', '' using 3 title 'energy' lc rgb "
       "'#e08a2c'\n";
  return inline_plot(h, run.plots, "breakdown", g.str());
}

/// The exact mapper's section: what was proven, with the run's target gap and time limit.
void write_exact_note(std::ostream& h, const json& res) {
  const auto& xo = res.contains("exact") ? res["exact"] : json();
  h << "<h2>Search: exact</h2>\n<div class=\"note\">Each layer was solved by branch-and-bound "
       "over "
       "the whole map space (compact encoding that loses no optimum), with admissible lower "
       "bounds "
       "on cycles and energy: the chosen surrogate mapping is optimal up to the proven gap shown "
       "in "
       "the table (target gap "
    << (xo.is_null() ? std::string("?") : fmt_fixed(100 * num(xo["gap"], 0), 3))
    << " %, time limit "
    << (xo.is_null() ? std::string("?") : fmt_fixed(num(xo["time_limit_s"], 0), 0))
    << " s per layer). A layer whose gap is above the target was stopped by the time limit; its "
       "mapping is the best found and the gap is what is proven.</div>\n";
}

/// Writes plots/curve_<index>.dat (best cost over the final best, log-thinned) for every layer
/// with a finished search; returns their gnuplot plot clauses in layer order.
std::vector<std::string> write_curve_data(const RunView& run) {
  std::vector<std::string> series;
  for (const auto& L : run.layers) {
    if (!L.contains("curve_csv") || !L.contains("search") || !L["search"].value("found", false))
      continue;
    const auto pts = read_curve(run.dir / L["curve_csv"].get<std::string>());
    if (pts.empty()) continue;
    const double final_best = pts.back().second;
    const fs::path dat = run.plots / ("curve_" + std::to_string(L["index"].get<int>()) + ".dat");
    std::ostringstream d;
    for (const auto& [s, c] : pts) d << s << " " << fmt_g(c / final_best, 10) << "\n";
    write_atomic(dat, d.str());
    series.push_back(gp_quote(dat.filename().string()) + " using 1:2 with steps lw 2 title " +
                     gp_quote(L["name"].get<std::string>()));
  }
  return series;
}

/// The sampling searchers' best-so-far curves (plots/curves.*); false when gnuplot failed.
bool write_curves_plot(std::ostream& h, const RunView& run) {
  std::ostringstream g;
  g << kTerm << "set output " << gp_quote("curves.svg") << "\n"
    << "set logscale xy\nset xlabel 'samples'\nset ylabel 'best cost / final best'\nset grid\n"
    << "set key outside right top font ',9' noenhanced\nset datafile separator ' '\n";
  const std::vector<std::string> series = write_curve_data(run);
  if (series.empty()) {
    h << "<p class=\"note\">No finished search yet.</p>\n";
    return true;
  }
  g << "plot ";
  for (size_t i = 0; i < series.size(); ++i) g << (i ? ", \\\n  " : "") << series[i];
  g << "\n";
  return inline_plot(h, run.plots, "curves", g.str());
}

/// The parity statistics line: verified candidates, cycle MAPE, max |error|, Spearman rho.
void write_parity_stats(std::ostream& h, const json& p) {
  h << "<div class=\"stats\"><span>verified candidates <b>" << p["n"] << "</b></span>";
  if (p["n"].get<size_t>() > 0)
    h << "<span>cycle MAPE <b>" << fmt_fixed(num(p["mape_pct"]), 2)
      << " %</b></span><span>max |error| <b>" << fmt_fixed(num(p["max_error_pct"]), 2)
      << " %</b></span><span>Spearman &rho; <b>"
      << (p["spearman"].is_null() ? "n/a" : fmt_fixed(p["spearman"].get<double>(), 3))
      << "</b></span>";
  if (p.contains("refined"))
    h << "<span>refined estimate: MAPE <b>" << fmt_fixed(num(p["refined"]["mape_pct"]), 2)
      << " %</b>, max |error| <b>" << fmt_fixed(num(p["refined"]["max_error_pct"]), 2)
      << " %</b></span>";
  h << "</div>\n";
}

/// The (RTL cycles, surrogate cycles) points of every verified candidate, by verdict.
struct ParityPoints {
  std::string passed;   ///< gnuplot data of the candidates that passed.
  std::string failed;   ///< gnuplot data of the candidates that failed.
  size_t n_passed = 0;  ///< Rows of `passed`.
  size_t n_failed = 0;  ///< Rows of `failed`.
  double lo = std::numeric_limits<double>::infinity();  ///< Smallest cycles on either axis.
  double hi = 0;                                        ///< Largest cycles on either axis.
};

ParityPoints parity_points(const json& layers) {
  ParityPoints pts;
  std::ostringstream dp, df;
  for (const auto& L : layers)
    for (const auto& c : L["candidates"]) {
      const auto& v = c["verification"];
      if (v.is_null() || !v.contains("cycles")) continue;
      const double r = num(v["cycles"]), s = num(c["surrogate"]["cycles"]);
      pts.lo = std::min({pts.lo, r, s});
      pts.hi = std::max({pts.hi, r, s});
      (v["passed"].get<bool>() ? dp : df) << r << " " << s << "\n";
      (v["passed"].get<bool>() ? pts.n_passed : pts.n_failed)++;
    }
  pts.passed = dp.str();
  pts.failed = df.str();
  return pts;
}

/// The gnuplot script of the parity scatter (log axes when the cycles span over 20x).
std::string parity_script(const ParityPoints& pts) {
  std::ostringstream g;
  const bool logs = pts.hi > 20 * pts.lo;
  const double a = logs ? pts.lo / 1.5 : pts.lo * 0.9, b = logs ? pts.hi * 1.5 : pts.hi * 1.1 + 1;
  g << "set terminal svg size 640,520 dynamic font 'DejaVu Sans,11' background '#ffffff'\n"
    << "set output " << gp_quote("parity.svg") << "\n"
    << (logs ? "set logscale xy\n" : "") << "set xrange [" << a << ":" << b << "]\nset yrange ["
    << a << ":" << b << "]\n"
    << "set xlabel 'RTL cycles'\nset ylabel 'surrogate cycles'\nset grid\nset key top "
       "left\nset size square\n"
    << "set title 'Cycles of every verified candidate'\nplot x with lines lc rgb '#888888' dt "
       "2 title 'y = x'";
  if (pts.n_passed)
    g << ", " << gp_quote("parity_pass.dat")
      << " using 1:2 with points pt 7 ps 0.9 lc rgb '#3b6fb6' title 'passed'";
  if (pts.n_failed)
    g << ", " << gp_quote("parity_fail.dat")
      << " using 1:2 with points pt 2 ps 1.4 lw 2 lc rgb '#d01c1c' title 'FAILED'";
  g << "\n";
  return g.str();
}

/// Surrogate vs RTL: the statistics and the scatter of every verified candidate
/// (plots/parity*); false when gnuplot failed.
bool write_parity_section(std::ostream& h, const RunView& run) {
  h << "<h2>Surrogate vs RTL</h2>\n";
  if (!run.rtl) {
    h << "<p class=\"note\">Not available: this run is surrogate only (--no-rtl).</p>\n";
    return true;
  }
  write_parity_stats(h, run.res["parity"]);
  const ParityPoints pts = parity_points(run.layers);
  write_atomic(run.plots / "parity_pass.dat", pts.passed);
  write_atomic(run.plots / "parity_fail.dat", pts.failed);
  if (pts.n_passed + pts.n_failed == 0) return true;
  return inline_plot(h, run.plots, "parity", parity_script(pts),
                     "class=\"plot\" style=\"max-width:640px\"");
}

/// Why a verification failed: the RTL's failure, the output mismatch, or the differing counters.
std::string failure_reason(const json& v) {
  std::string why;
  if (!v["failure"].get<std::string>().empty())
    why = v["failure"].get<std::string>();
  else if (!v["functional_ok"].get<bool>())
    why = "functional MISMATCH: " + v["mismatches"].dump() + " output bytes differ";
  else if (!v["counts_equal"].get<bool>()) {
    why = "counter mismatch:";
    for (const auto& [k, d] : v["count_diffs"].items())
      why += " " + k + " rtl " + d["rtl"].dump() + " vs surrogate " + d["surrogate"].dump() + ";";
  }
  return why;
}

/// The refined estimate's cycle error against the RTL, in percent ("&ndash;" without both).
std::string refined_error(const json& c, const json& v) {
  const long long ref = c.value("refined_cycles", 0LL);
  const long long rtl = v.value("cycles", 0LL);
  if (ref <= 0 || rtl <= 0) return "&ndash;";
  return fmt_fixed(100.0 * static_cast<double>(ref - rtl) / static_cast<double>(rtl), 2);
}

/// One row of the functional checks: candidate `c` of layer `L` (not run, passed or failed).
void write_check_row(std::ostream& h, const json& L, const json& c) {
  const auto& v = c["verification"];
  if (v.is_null()) {
    h << "<tr><td class=\"l\">" << e(L["name"]) << "</td><td>#" << c["rank"] << "</td><td></td><td>"
      << with_commas(static_cast<long long>(num(c["surrogate"]["cycles"], 0)))
      << "</td><td colspan=\"6\"></td><td class=\"l\">not run (interrupted)</td></tr>\n";
    return;
  }
  const bool passed = v["passed"].get<bool>();
  const std::string why = failure_reason(v);
  h << "<tr" << (passed ? "" : " class=\"fail\"") << "><td class=\"l\">" << e(L["name"])
    << "</td><td>#" << c["rank"] << "</td><td>" << v["seed"] << "</td><td>"
    << with_commas(static_cast<long long>(num(c["surrogate"]["cycles"], 0))) << "</td><td>"
    << (v.contains("cycles") ? with_commas(v["cycles"].get<long long>()) : "&ndash;") << "</td><td>"
    << (v.contains("cycle_error_pct") ? fmt_fixed(v["cycle_error_pct"].get<double>(), 2)
                                      : "&ndash;")
    << "</td><td>" << refined_error(c, v) << "</td>"
    << "<td class=\"" << (v["functional_ok"].get<bool>() ? "pass\">bit-exact" : "fail\">MISMATCH")
    << "</td>"
    << "<td class=\"" << (v["counts_equal"].get<bool>() ? "pass\">equal" : "fail\">DIFFER")
    << "</td><td>" << fmt_fixed(num(v["sim_seconds"], 0), 2) << "</td><td class=\"wrap\">"
    << (passed ? "<span class=\"pass\">passed</span>"
               : "<span class=\"fail\">FAILED</span> " + html_escape(why))
    << "</td></tr>\n";
}

/// Every functional check: one row per candidate of every layer.
void write_checks_table(std::ostream& h, const RunView& run) {
  // The harnesses that simulated the candidates (older records do not name one).
  std::set<std::string> harnesses;
  for (const auto& L : run.layers)
    for (const auto& c : L["candidates"])
      if (c["verification"].is_object() && c["verification"].contains("harness"))
        harnesses.insert(c["verification"]["harness"].get<std::string>());
  std::string in;
  for (const auto& n : harnesses) in += (in.empty() ? "" : " and the ") + n;
  h << "<h2 id=\"checks\">Functional checks (every RTL verification)</h2>\n"
       "<div class=\"note\">Each candidate runs on the Verilated RTL with random int8 tensors "
       "(seed shown)"
    << (in.empty() ? std::string() : " in the " + html_escape(in) + " harness")
    << "; outputs are compared bit for bit with a C++ reference, and every hardware counter with "
       "the surrogate's count.</div>\n<table><tr><th "
       "class=\"l\">layer</th><th>cand.</th><th>seed</th>"
       "<th>surrogate cycles</th><th>RTL cycles</th><th>err "
       "%</th><th>refined err %</th><th>outputs</th><th>counters</th>"
       "<th>sim s</th><th class=\"l\">result</th></tr>\n";
  for (const auto& L : run.layers)
    for (const auto& c : L["candidates"]) write_check_row(h, L, c);
  h << "</table>\n";
}

/// The chosen mapping of every layer that has one, folded.
void write_chosen_mappings(std::ostream& h, const json& layers) {
  h << "<h2>Chosen mappings</h2>\n<div class=\"note\">Also in mappings/ of the run folder, one "
       "YAML file per layer.</div>\n";
  for (const auto& L : layers) {
    if (L["best"].is_null()) continue;
    h << "<details><summary>" << e(L["name"]) << " &mdash; " << e(L["shape"]) << " (chosen by "
      << e(L["best"]["chosen_by"]) << ")</summary><pre>" << e(L["best"]["mapping"])
      << "</pre></details>\n";
  }
}

/// One row of the settings table; `v` is HTML already.
void write_setting(std::ostream& h, const std::string& k, const std::string& v) {
  h << "<tr><td class=\"l\">" << html_escape(k) << "</td><td class=\"wrap\">" << v << "</td></tr>";
}

/// The run's settings: target, architecture, options, RTL, seeds, store, status.
void write_settings(std::ostream& h, const json& res) {
  h << "<h2>Run settings</h2>\n<table>";
  write_setting(h, "target", e(res["target"]));
  write_setting(h, "architecture", e(res["arch"]) + " (" + e(res["arch_arg"]) + ")");
  write_setting(h, "searcher options", e(res["options_file"]));
  write_setting(h, "RTL", e(res["rtl_note"]));
  write_setting(h, "seeds",
                "layer i searches with seed &times; 1000003 + i; RTL candidate r of layer i uses "
                "seed &times; 7919 + 101 i + r");
  write_setting(h, "results store", e(res["db"]));
  write_setting(h, "status", e(res["status"]));
  h << "</table>\n";
}

/// The closing notes (missing plots, the mapwright version) and the end of the page.
void write_footer(std::ostream& h, const json& res, bool plotted) {
  if (!plotted)
    h << "<p class=\"note\">gnuplot was not available or failed: plots are missing.</p>\n";
  h << "<p class=\"note\">Written by mapwright " << e(res.value("mapwright", ""))
    << ".</p>\n</main></body></html>\n";
}

// ---------------------------------------------------------------------------------------------
// The comparison of runs.

/// A metric compared between runs.
struct Metric {
  const char* key;     ///< Key in a layer's "best" and in "totals".
  const char* label;   ///< Shown in the tables.
  bool higher_better;  ///< Utilization: the highest wins; the others: the lowest.
};
const Metric kMetrics[] = {{"cycles", "latency (cycles)", false},
                           {"energy_pj", "energy (pJ)", false},
                           {"edp", "EDP (pJ x cycles)", false},
                           {"utilization", "utilization", true}};

/// Each run's label: its folder's name.
std::vector<std::string> run_labels(const std::vector<fs::path>& dirs) {
  std::vector<std::string> labels;
  for (const auto& d : dirs) {
    std::string lab = d.filename().string();
    if (lab.empty()) lab = d.parent_path().filename().string();
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
json runs_json(const std::vector<json>& runs, const std::vector<fs::path>& dirs,
               const std::vector<std::string>& labels) {
  json out = json::array();
  for (size_t i = 0; i < runs.size(); ++i)
    out.push_back({{"label", labels[i]},
                   {"dir", dirs[i].string()},
                   {"target", runs[i]["target"]},
                   {"arch", runs[i]["arch"]},
                   {"rtl", runs[i]["rtl"]},
                   {"status", runs[i]["status"]},
                   {"source", runs[i]["totals"]["source"]}});
  return out;
}

/// Layer names in first-seen order over all runs.
std::vector<std::string> layer_names(const std::vector<json>& runs) {
  std::vector<std::string> names;
  for (const auto& r : runs)
    for (const auto& L : r["layers"])
      if (std::find(names.begin(), names.end(), L["name"].get<std::string>()) == names.end())
        names.push_back(L["name"]);
  return names;
}

/// Metric `key` of the chosen mapping of layer `name` in run `r` (NaN when it has none).
double layer_value(const json& r, const std::string& name, const char* key) {
  for (const auto& L : r["layers"])
    if (L["name"] == name && !L["best"].is_null()) return num(L["best"][key]);
  return std::numeric_limits<double>::quiet_NaN();
}

/// Metric `key` of each run's totals.
std::vector<double> total_values(const std::vector<json>& runs, const char* key) {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back(num(r["totals"][key]));
  return v;
}

/// The table of the runs (target, architecture, searcher, budget, source, status), and a
/// banner when some run's numbers are the surrogate's.
void write_runs_table(std::ostream& h, const std::vector<json>& runs,
                      const std::vector<std::string>& labels) {
  h << "<table><tr><th class=\"l\">run</th><th class=\"l\">target</th><th "
       "class=\"l\">architecture</th>"
       "<th class=\"l\">searcher</th><th>budget</th><th class=\"l\">numbers from</th><th "
       "class=\"l\">status</th></tr>\n";
  bool any_sur = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const std::string src = r["totals"]["source"];
    any_sur = any_sur || src != "rtl";
    h << "<tr><td class=\"l\"><b>" << html_escape(labels[i]) << "</b></td><td class=\"l\">"
      << e(r["target"]) << "</td><td class=\"l\">" << e(r["arch"]) << " (" << r["arch_info"]["rows"]
      << "x" << r["arch_info"]["cols"] << ", " << r["arch_info"]["input_kib"] << "/"
      << r["arch_info"]["weight_kib"] << "/" << r["arch_info"]["accum_kib"]
      << " KiB)</td><td class=\"l\">" << e(r["searcher"]) << "</td><td>" << r["budget_per_layer"]
      << "</td><td class=\"l\">"
      << (src == "rtl"           ? "RTL-verified"
          : r["rtl"].get<bool>() ? html_escape(src)
                                 : "surrogate only (--no-rtl)")
      << "</td><td class=\"l\">" << e(r["status"]) << "</td></tr>\n";
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
json write_totals_table(std::ostream& h, const std::vector<json>& runs,
                        const std::vector<std::string>& labels) {
  h << "<h2>Network totals</h2>\n<table><tr><th class=\"l\">metric</th>";
  write_run_columns(h, labels);
  h << "<th class=\"l\">winner</th></tr>\n";
  json totals = json::object();
  for (const auto& m : kMetrics) {
    const std::vector<double> v = total_values(runs, m.key);
    const int w = winner(v, m.higher_better);
    h << "<tr><td class=\"l\">" << m.label << (m.higher_better ? " &uarr;" : " &darr;") << "</td>";
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string shown =
          std::string(m.key) == "utilization" ? fmt_fixed(100 * v[i], 1) + " %" : fmt_g(v[i], 5);
      std::string rel;
      if (w >= 0 && static_cast<int>(i) != w && std::isfinite(v[i]) && v[w] != 0)
        rel = " <span class=\"note\">(" + fmt_fixed(v[i] / v[w], 2) + "&times;)</span>";
      h << "<td" << (static_cast<int>(i) == w ? " class=\"win\"" : "") << ">" << shown
        << (static_cast<int>(i) == w ? " &#9733;" : rel) << "</td>";
    }
    h << "<td class=\"l\">" << (w >= 0 ? html_escape(labels[w]) : "") << "</td></tr>\n";
    totals[m.key] = {{"values", v}, {"winner", w >= 0 ? json(labels[w]) : json()}};
  }
  h << "</table>\n";
  return totals;
}

/// The lower-is-better totals relative to the best run, as a histogram beside the page
/// (<stem>_plots/totals.*); inlined when gnuplot succeeds.
void write_totals_plot(std::ostream& h, const std::vector<json>& runs,
                       const std::vector<std::string>& labels, const fs::path& out_html) {
  const fs::path dir = out_html.parent_path().empty() ? fs::path(".") : out_html.parent_path();
  const fs::path base = dir / (out_html.stem().string() + "_plots");
  make_dirs(base);
  std::ostringstream d;
  d << "metric";
  for (const auto& l : labels) d << " " << gp_data_label(l);
  d << "\n";
  for (const auto& m : kMetrics) {
    if (m.higher_better) continue;
    const std::vector<double> v = total_values(runs, m.key);
    const int w = winner(v, false);
    d << '"' << m.key << '"';
    for (double x : v) d << " " << (w >= 0 && v[w] > 0 ? x / v[w] : 0);
    d << "\n";
  }
  write_atomic(base / "totals.dat", d.str());
  std::ostringstream g;
  g << "set terminal svg size 900,380 dynamic font 'DejaVu Sans,11' background '#ffffff'\n"
    << "set output " << gp_quote("totals.svg") << "\n"
    << "set style data histogram\nset style histogram clustered gap 1\nset style fill solid 0.85 "
       "border -1\n"
    << "set key outside right noenhanced\nset grid ytics\nset ylabel 'relative to the best run "
       "(1 = best, lower is better)'\n"
    << "set yrange [0:*]\nset title 'Network totals'\nplot for [i=2:" << runs.size() + 1 << "] "
    << gp_quote("totals.dat") << " using i:xtic(1) title columnhead\n";
  write_atomic(base / "totals.gp", g.str());
  const std::string svg = gnuplot_svg(base / "totals.gp", base / "totals.svg");
  if (!svg.empty()) h << "<div class=\"plot\">" << svg << "</div>\n";
}

/// One table per metric with a row per layer, winner marked; returns the comparison's
/// "layers" (per layer and metric: values and winner).
json write_layer_tables(std::ostream& h, const std::vector<json>& runs,
                        const std::vector<std::string>& labels,
                        const std::vector<std::string>& names) {
  json layers = json::object();
  for (const auto& m : kMetrics) {
    h << "<h2>Per layer: " << m.label << "</h2>\n<table><tr><th class=\"l\">layer</th>";
    write_run_columns(h, labels);
    h << "</tr>\n";
    for (const auto& name : names) {
      std::vector<double> v;
      for (const auto& r : runs) v.push_back(layer_value(r, name, m.key));
      const int w = winner(v, m.higher_better);
      h << "<tr><td class=\"l\">" << html_escape(name) << "</td>";
      for (size_t i = 0; i < v.size(); ++i) {
        std::string shown = !std::isfinite(v[i])                  ? "&ndash;"
                            : std::string(m.key) == "utilization" ? fmt_fixed(100 * v[i], 1) + " %"
                                                                  : fmt_g(v[i], 5);
        h << "<td" << (static_cast<int>(i) == w ? " class=\"win\"" : "") << ">" << shown
          << (static_cast<int>(i) == w && runs.size() > 1 ? " &#9733;" : "") << "</td>";
      }
      h << "</tr>\n";
      layers[name][m.key] = {{"values", v}, {"winner", w >= 0 ? json(labels[w]) : json()}};
    }
    h << "</table>\n";
  }
  return layers;
}

}  // namespace

bool render_run_report(const json& res, const fs::path& dir, const fs::path& out_html) {
  const fs::path plots = dir / "plots";
  make_dirs(plots);
  // Layers solved by the exact mapper carry a proof record instead of a sampling curve.
  const RunView run{res,
                    res["layers"],
                    dir,
                    plots,
                    res["rtl"].get<bool>(),
                    res.value("searcher", std::string()) == "exact",
                    res["arch_info"]["clock_mhz"].get<double>()};
  std::ostringstream h;
  const std::string title = run_title(res);
  h << page_head(title);
  write_heading(h, run, title);
  write_banners(h, run);
  write_total_cards(h, run);
  write_layer_table(h, run);
  bool plotted = write_breakdown_plot(h, run);
  // Best-so-far curves (sampling searchers) or the exact mapper's proof.
  if (run.exact_run)
    write_exact_note(h, res);
  else if (!write_curves_plot(h, run))
    plotted = false;
  if (!write_parity_section(h, run)) plotted = false;
  if (run.rtl) write_checks_table(h, run);
  write_chosen_mappings(h, run.layers);
  write_settings(h, res);
  write_footer(h, res, plotted);
  write_atomic(out_html, h.str());
  return plotted;
}

json render_compare(const std::vector<json>& runs, const std::vector<fs::path>& dirs,
                    const fs::path& out_html) {
  const std::vector<std::string> labels = run_labels(dirs);
  json cmp;
  cmp["runs"] = runs_json(runs, dirs, labels);
  const std::vector<std::string> names = layer_names(runs);

  std::ostringstream h;
  h << page_head("mapwright compare") << "<h1>Comparison of " << runs.size() << " runs</h1>\n";
  write_runs_table(h, runs, labels);
  cmp["totals"] = write_totals_table(h, runs, labels);
  write_totals_plot(h, runs, labels, out_html);
  cmp["layers"] = write_layer_tables(h, runs, labels, names);
  h << "<p class=\"note\">&#9733; marks the winner: lowest latency, energy and EDP; highest "
       "utilization. "
       "Per-layer values count one occurrence of the layer; totals count every "
       "occurrence.</p>\n</main></body></html>\n";
  write_atomic(out_html, h.str());
  return cmp;
}

}  // namespace mapwright::flows
