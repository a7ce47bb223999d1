// The run report: a heading with the architecture and the search settings, status banners, the
// network totals, one row per layer (its choice, its RTL checks, its search), the plots, the
// surrogate-vs-RTL statistics, every functional check, the chosen mappings and the run's
// settings. Each section is one function writing to the page's stream, reading the typed run
// record and the summary derived from it.
#include "report/render.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/files.hpp"
#include "common/clock_text.hpp"
#include "common/text.hpp"
#include "report/format.hpp"
#include "report/plots.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// What the sections of a run report read: the run and where its plots go.
struct RunView {
  const RunRecord& r;      ///< The run's record.
  const RunSummary& s;     ///< Its totals, verification summary and parity.
  fs::path plots;          ///< <run folder>/plots: gnuplot scripts, their data and the SVGs.
  bool exact_run = false;  ///< Layers were solved by the exact mapper (a proof, no curve).
  double mhz = 0;          ///< Clock of the architecture, MHz.
};

/// `items` in the order of their names (`name_of`), the order in which results.json lists the
/// keys of an object.
template <typename T, typename Name>
std::vector<T> by_name(std::vector<T> items, Name name_of) {
  std::stable_sort(items.begin(), items.end(),
                   [&](const T& a, const T& b) { return name_of(a) < name_of(b); });
  return items;
}

/// A number of a searcher's JSON record; `fallback` when it is absent or not a number.
double number_in(const json& j, const char* key, double fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

/// The search effort of a run in words: the exact mapper's target gap and time limit, or the
/// sampling budget.
std::string effort_html(const RunRecord& r, bool exact_run) {
  const ExactOptions& ex = r.settings.exact;
  if (exact_run)
    return (ex.gap == 0 ? std::string("proves each optimum")
                        : "proven gap &le; " + fmt_g(100 * ex.gap, 3) + " %") +
           " within at most " + fmt_g(ex.time_limit_s, 3) + " s per layer";
  return std::to_string(r.settings.budget) + " surrogate samples per layer";
}

/// The title and the line under it: array, buffers, DRAM port, clock, searcher, effort, objective,
/// seed.
void write_heading(std::ostream& h, const RunView& run, const std::string& title) {
  const RunRecord& r = run.r;
  const ArchInfo& a = r.arch;
  h << "<h1>" << html_escape(title) << "</h1>\n<div class=\"meta\">" << a.rows << "x" << a.cols
    << " array, " << a.input_kib << "/" << a.weight_kib << "/" << a.accum_kib
    << " KiB input/weight/accumulator, DRAM " << fmt_g(a.dram_bytes_per_cycle, 4)
    << " B/cycle after " << a.dram_latency_cycles << " cycles (" << html_escape(a.dram_port)
    << " port), clock " << html_escape(clock_statement(a.rows, a.cols, run.mhz))
    << " &middot; searcher <b>" << html_escape(r.settings.searcher) << "</b>, "
    << effort_html(r, run.exact_run) << ", objective " << html_escape(r.settings.objective)
    << ", seed " << r.settings.seed
    << (r.settings.rtl()
            ? ", top-" + std::to_string(r.settings.top_k) + " per layer verified on RTL"
            : "")
    << " &middot; run " << html_escape(r.run_id) << ", updated " << html_escape(r.updated)
    << "</div>\n";
}

/// Status banners: surrogate only, failed or passed verifications, an unfinished run.
void write_banners(std::ostream& h, const RunView& run) {
  const RunRecord& r = run.r;
  const RunSummary& s = run.s;
  if (!r.settings.rtl()) {
    h << "<div class=\"banner info\">Surrogate only (--no-rtl): no mapping of this run was run on "
         "the RTL; every number below is the analytical surrogate's.";
    if (r.arch.name == "large32") h << " (large32 has no compiled RTL model.)";
    h << "</div>\n";
  } else if (s.failed > 0) {
    h << "<div class=\"banner bad\">" << s.failed << " of " << s.done
      << " RTL verifications FAILED (functional mismatch, count mismatch or RTL failure): see "
         "<a href=\"#checks\">functional checks</a>.</div>\n";
  } else if (s.done > 0) {
    h << "<div class=\"banner ok\">All " << s.done
      << " RTL verifications passed: outputs bit-exact against the C++ reference and every "
         "hardware counter equal to the surrogate's count.</div>\n";
  }
  if (r.status != RunStatus::Complete) {
    h << "<div class=\"banner warn\">Run " << run_status_name(r.status) << ": " << s.layers_done
      << " of " << s.layers_total << " layers finished";
    if (r.settings.rtl()) h << ", " << s.pending << " RTL verifications not run";
    h << ". Continue with <code>mapwright run --resume --out " << html_escape(r.run_dir)
      << "</code>.</div>\n";
  }
}

/// An imported network (ONNX; a record with import details): the file, the skipped ops by type
/// and every node not mapped.
void write_import_note(std::ostream& h, const RunRecord& r) {
  if (r.settings.input_shapes.empty() && !r.settings.strict && r.import_skipped.empty() &&
      r.import_warnings.empty())
    return;
  h << "<div class=\"note\">Network read from " << html_escape(r.settings.network);
  if (!r.settings.input_shapes.empty()) {
    h << " with input shapes";
    for (const auto& s : r.settings.input_shapes) h << " " << html_escape(s);
  }
  h << (r.settings.strict ? " (strict)" : "");
  if (!r.import_skipped.empty()) {
    h << "; ops that are not compute layers, skipped:";
    bool first = true;
    const auto skipped = by_name(r.import_skipped, [](const auto& s) { return s.first; });
    for (const auto& [op, count] : skipped) {
      h << (first ? " " : ", ") << html_escape(op) << " " << count;
      first = false;
    }
  }
  h << ".</div>\n";
  for (const auto& w : r.import_warnings)
    h << "<div class=\"note\"><b>Not mapped:</b> " << html_escape(w) << "</div>\n";
}

/// The summary cards of the network totals: latency, energy, EDP, utilization.
void write_total_cards(std::ostream& h, const RunView& run) {
  const RunSummary& t = run.s;
  const std::string src_note = t.source == "rtl"     ? "RTL-verified"
                               : t.source == "mixed" ? "RTL where verified, else surrogate"
                                                     : "surrogate";
  h << "<div class=\"cards\">"
    << "<div class=\"card\"><div class=\"k\">Network latency</div><div class=\"v\">"
    << time_of(t.cycles, run.mhz) << "</div><div class=\"s\">"
    << with_commas(static_cast<long long>(t.cycles)) << " cycles &middot; " << src_note
    << "</div></div>"
    << "<div class=\"card\"><div class=\"k\">Energy</div><div class=\"v\">"
    << si(t.energy_pj * 1e-12) << "J</div><div class=\"s\">" << si(t.macs) << " MACs</div></div>"
    << "<div class=\"card\"><div class=\"k\">EDP</div><div class=\"v\">" << fmt_g(t.edp, 4)
    << "</div><div class=\"s\">pJ &times; cycles</div></div>"
    << "<div class=\"card\"><div class=\"k\">Utilization</div><div class=\"v\">"
    << fmt_fixed(100 * t.utilization, 1)
    << " %</div><div class=\"s\">MACs / (cycles &times; PEs)</div></div>"
    << "</div>\n<div class=\"note\">Totals count each unique layer as many times as it occurs in "
       "the network ("
    << t.layers_done << " of " << t.layers_total << " unique layers done).</div>\n";
  write_import_note(h, run.r);
}

/// A layer's RTL verifications: how many ran and how many of them passed.
struct CheckCount {
  int verified = 0;  ///< Candidates with a verification record.
  int passed = 0;    ///< Of them, the ones that passed.
};

CheckCount count_checks(const LayerRecord& L) {
  CheckCount n;
  for (const auto& c : L.candidates)
    if (c.verification) {
      ++n.verified;
      n.passed += c.verification->passed;
    }
  return n;
}

/// The chosen mapping's eight cells (cycles .. dataflow), or one cell saying why there is none.
void write_best_cells(std::ostream& h, const LayerRecord& L) {
  if (!L.best) {
    h << "<td colspan=\"8\" class=\"l\">"
      << (L.status == LayerStatus::Pending    ? "not searched yet"
          : L.status == LayerStatus::Searched ? "RTL verification pending"
                                              : "no valid mapping found")
      << "</td>";
    return;
  }
  const Choice& b = *L.best;
  const bool by_rtl = b.chosen_by == ChosenBy::Rtl;
  const double sc =
      static_cast<double>(L.candidates.at(static_cast<size_t>(b.rank)).surrogate.cycles);
  const double rc = static_cast<double>(b.cycles);
  h << "<td>" << with_commas(b.cycles) << "</td><td>" << si(b.energy_pj * 1e-12) << "J</td><td>"
    << fmt_g(b.edp, 3) << "</td><td>" << fmt_fixed(100 * b.utilization, 1) << "</td><td>"
    << with_commas(static_cast<long long>(sc)) << "</td><td>"
    << (by_rtl && rc > 0 ? fmt_fixed(100 * (sc - rc) / rc, 2) : "&ndash;") << "</td><td>"
    << chosen_by_name(b.chosen_by) << (by_rtl ? " #" + std::to_string(b.rank) : "")
    << "</td><td class=\"l\">" << html_escape(dataflow_and_pes(b.mapping)) << "</td>";
}

/// The "RTL checks" cell: passed/verified, and the candidates not run yet.
void write_check_cell(std::ostream& h, const LayerRecord& L, const CheckCount& n) {
  const bool bad = n.verified > n.passed;
  const size_t verified = static_cast<size_t>(n.verified);
  h << "<td class=\""
    << (bad          ? "fail"
        : n.verified ? "pass"
                     : "")
    << "\">" << n.passed << "/" << n.verified
    << (L.candidates.size() > verified
            ? " (" + std::to_string(L.candidates.size() - verified) + " pending)"
            : "")
    << "</td>";
}

/// The search cells: the exact mapper's gap, nodes, evaluations and time, or a sampling
/// search's valid share, duplicates and time (empty cells before the layer was searched). The
/// search record is the searcher's own JSON.
void write_search_cells(std::ostream& h, const LayerRecord& L, bool exact_run) {
  const json& s = L.search;
  if (!s.is_null() && exact_run && s.contains("exact")) {
    const json& x = s["exact"];
    const json gap = x.value("gap", json());
    h << "<td>" << (gap.is_null() ? std::string("&ndash;") : fmt_fixed(100 * gap.get<double>(), 3))
      << (x.value("optimal", false) ? " (optimal)" : "") << "</td><td>"
      << with_commas(x.value("nodes", 0LL)) << "</td><td>"
      << with_commas(x.value("evaluations", 0LL)) << "</td><td>"
      << fmt_fixed(number_in(s, "seconds", 0), 3) << "</td>";
  } else if (!s.is_null()) {
    h << "<td>"
      << fmt_fixed(100.0 * number_in(s, "valid", 0) / std::max(1.0, number_in(s, "samples", 1)), 1)
      << "</td><td>" << with_commas(s.value("duplicates", 0LL)) << "</td><td>"
      << fmt_fixed(number_in(s, "seconds", 0), 1) << "</td>";
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
  if (run.r.settings.rtl()) h << "<th>RTL checks</th>";
  if (run.exact_run)
    h << "<th>proven gap %</th><th>nodes</th><th>mappings scored</th><th>search s</th></tr>\n";
  else
    h << "<th>valid %</th><th>dup.</th><th>search s</th></tr>\n";
  for (const auto& L : run.r.layers) {
    const CheckCount n = count_checks(L);
    h << "<tr" << (n.verified > n.passed ? " class=\"fail\"" : "") << "><td class=\"l\">" << L.index
      << "</td><td class=\"l\">" << html_escape(L.layer.name) << "</td><td class=\"shape\">"
      << html_escape(L.layer.describe()) << "</td><td>" << L.count << "</td>";
    write_best_cells(h, L);
    if (run.r.settings.rtl()) write_check_cell(h, L, n);
    write_search_cells(h, L, run.exact_run);
    h << "</tr>\n";
  }
  h << "</table>\n";
}

/// The exact mapper's section: what was proven, with the run's target gap and time limit.
void write_exact_note(std::ostream& h, const RunRecord& r) {
  h << "<h2>Search: exact</h2>\n<div class=\"note\">Each layer was solved by branch-and-bound "
       "over "
       "the whole map space (compact encoding that loses no optimum), with admissible lower "
       "bounds "
       "on cycles and energy: the chosen surrogate mapping is optimal up to the proven gap shown "
       "in "
       "the table (target gap "
    << fmt_fixed(100 * r.settings.exact.gap, 3) << " %, time limit "
    << fmt_fixed(r.settings.exact.time_limit_s, 0)
    << " s per layer). A layer whose gap is above the target was stopped by the time limit; its "
       "mapping is the best found and the gap is what is proven.</div>\n";
}

/// The parity statistics line: verified candidates, cycle MAPE, max |error|, Spearman rho.
void write_parity_stats(std::ostream& h, const RunSummary& s) {
  h << "<div class=\"stats\"><span>verified candidates <b>" << s.parity_n << "</b></span>";
  if (s.parity_n > 0)
    h << "<span>cycle MAPE <b>" << fmt_fixed(s.mape_pct, 2) << " %</b></span><span>max |error| <b>"
      << fmt_fixed(s.max_error_pct, 2) << " %</b></span><span>Spearman &rho; <b>"
      << (s.spearman ? fmt_fixed(*s.spearman, 3) : std::string("n/a")) << "</b></span>";
  if (s.parity_n > 0 && s.refined_n > 0)
    h << "<span>refined estimate: MAPE <b>" << fmt_fixed(s.refined_mape_pct, 2)
      << " %</b>, max |error| <b>" << fmt_fixed(s.refined_max_error_pct, 2) << " %</b></span>";
  h << "</div>\n";
}

/// Surrogate vs RTL: the statistics and the scatter of every verified candidate; false when
/// gnuplot failed.
bool write_parity_section(std::ostream& h, const RunView& run) {
  h << "<h2>Surrogate vs RTL</h2>\n";
  if (!run.r.settings.rtl()) {
    h << "<p class=\"note\">Not available: this run is surrogate only (--no-rtl).</p>\n";
    return true;
  }
  write_parity_stats(h, run.s);
  return write_parity_plot(h, run.r, run.plots);
}

/// Why a verification failed: the RTL's failure, the output mismatch, or the differing counters.
std::string failure_reason(const Verification& v) {
  if (!v.failure.empty()) return v.failure;
  if (!v.functional_ok)
    return "functional MISMATCH: " + std::to_string(v.mismatches) + " output bytes differ";
  if (v.counts_equal) return "";
  std::string why = "counter mismatch:";
  for (const auto& d : by_name(v.count_diffs, [](const CountDiff& c) { return c.name; }))
    why += " " + d.name + " rtl " + std::to_string(d.rtl) + " vs surrogate " +
           std::to_string(d.surrogate) + ";";
  return why;
}

/// The refined estimate's cycle error against the RTL, in percent ("&ndash;" without both).
std::string refined_error(const Candidate& c) {
  const long long ref = c.refined_cycles;
  const long long rtl = c.verification->rtl ? c.verification->rtl->cycles : 0;
  if (ref <= 0 || rtl <= 0) return "&ndash;";
  return fmt_fixed(100.0 * static_cast<double>(ref - rtl) / static_cast<double>(rtl), 2);
}

/// One row of the functional checks: candidate `c` of layer `L` (not run, passed or failed).
void write_check_row(std::ostream& h, const LayerRecord& L, const Candidate& c) {
  const std::string name = html_escape(L.layer.name);
  if (!c.verification) {
    h << "<tr><td class=\"l\">" << name << "</td><td>#" << c.rank << "</td><td></td><td>"
      << with_commas(c.surrogate.cycles)
      << "</td><td colspan=\"6\"></td><td class=\"l\">not run (interrupted)</td></tr>\n";
    return;
  }
  const Verification& v = *c.verification;
  h << "<tr" << (v.passed ? "" : " class=\"fail\"") << "><td class=\"l\">" << name << "</td><td>#"
    << c.rank << "</td><td>" << v.seed << "</td><td>" << with_commas(c.surrogate.cycles)
    << "</td><td>" << (v.rtl ? with_commas(v.rtl->cycles) : "&ndash;") << "</td><td>"
    << (v.rtl ? fmt_fixed(v.cycle_error_pct, 2) : "&ndash;") << "</td><td>" << refined_error(c)
    << "</td>"
    << "<td class=\"" << (v.functional_ok ? "pass\">bit-exact" : "fail\">MISMATCH") << "</td>"
    << "<td class=\"" << (v.counts_equal ? "pass\">equal" : "fail\">DIFFER") << "</td><td>"
    << fmt_fixed(v.sim_seconds, 2) << "</td><td class=\"wrap\">"
    << (v.passed ? "<span class=\"pass\">passed</span>"
                 : "<span class=\"fail\">FAILED</span> " + html_escape(failure_reason(v)))
    << "</td></tr>\n";
}

/// Every functional check: one row per candidate of every layer.
void write_checks_table(std::ostream& h, const RunRecord& r) {
  // The harnesses that simulated the candidates (older records do not name one).
  std::set<std::string> harnesses;
  for (const auto& L : r.layers)
    for (const auto& c : L.candidates)
      if (c.verification && !c.verification->harness.empty())
        harnesses.insert(c.verification->harness);
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
  for (const auto& L : r.layers)
    for (const auto& c : L.candidates) write_check_row(h, L, c);
  h << "</table>\n";
}

/// The chosen mapping of every layer that has one, folded.
void write_chosen_mappings(std::ostream& h, const RunRecord& r) {
  h << "<h2>Chosen mappings</h2>\n<div class=\"note\">Also in mappings/ of the run folder, one "
       "YAML file per layer.</div>\n";
  for (const auto& L : r.layers) {
    if (!L.best) continue;
    h << "<details><summary>" << html_escape(L.layer.name) << " &mdash; "
      << html_escape(L.layer.describe()) << " (chosen by " << chosen_by_name(L.best->chosen_by)
      << ")</summary><pre>" << html_escape(core::mapping_to_yaml(L.best->mapping))
      << "</pre></details>\n";
  }
}

/// --synth: the architecture's area, the model's parts beside the synthesized logic.
void write_architecture_area(std::ostream& h, const RunRecord& r) {
  if (!r.area.is_object() || !r.area.contains("total_mm2")) return;
  h << "<h2>Architecture area</h2>\n";
  area_parts_html(h, r.area, r.area["total_mm2"].get<double>(), r.synthesis);
}

/// One row of the settings table; `v` is HTML already.
void write_setting(std::ostream& h, const std::string& k, const std::string& v) {
  h << "<tr><td class=\"l\">" << html_escape(k) << "</td><td class=\"wrap\">" << v << "</td></tr>";
}

/// The run's settings: target, architecture, options, RTL, seeds, store, status.
void write_settings(std::ostream& h, const RunRecord& r) {
  h << "<h2>Run settings</h2>\n<table>";
  write_setting(h, "target", html_escape(r.target));
  write_setting(h, "architecture",
                html_escape(r.arch.name) + " (" + html_escape(r.settings.arch) + ")");
  write_setting(h, "searcher options", html_escape(r.options_file));
  write_setting(h, "RTL", html_escape(r.rtl_note));
  write_setting(h, "seeds",
                "layer i searches with seed &times; 1000003 + i; RTL candidate r of layer i uses "
                "seed &times; 7919 + 101 i + r");
  write_setting(h, "results store", html_escape(r.db));
  write_setting(h, "status", run_status_name(r.status));
  h << "</table>\n";
}

/// The closing notes (missing plots, the mapwright version) and the end of the page.
void write_footer(std::ostream& h, const RunRecord& r, bool plotted) {
  if (!plotted)
    h << "<p class=\"note\">gnuplot was not available or failed: plots are missing.</p>\n";
  h << "<p class=\"note\">Written by mapwright " << html_escape(r.mapwright)
    << ".</p>\n</main></body></html>\n";
}

}  // namespace

bool render_run_report(const LoadedRun& loaded, const fs::path& out_html) {
  const RunRecord& r = loaded.record;
  const fs::path plots = loaded.dir / "plots";
  make_dirs(plots);
  // Layers solved by the exact mapper carry a proof record instead of a sampling curve.
  const RunView run{r, loaded.summary, plots, r.settings.searcher == "exact", r.arch.clock_mhz};
  std::ostringstream h;
  const std::string title = "mapwright run: " + r.target + " on " + r.arch.name;
  h << page_head(title);
  write_heading(h, run, title);
  write_banners(h, run);
  write_total_cards(h, run);
  write_layer_table(h, run);
  bool plotted = write_breakdown_plot(h, r, plots);
  // Best-so-far curves (sampling searchers) or the exact mapper's proof.
  if (run.exact_run)
    write_exact_note(h, r);
  else if (!write_curves_plot(h, r, loaded.dir, plots))
    plotted = false;
  if (!write_parity_section(h, run)) plotted = false;
  if (r.settings.rtl()) write_checks_table(h, r);
  write_chosen_mappings(h, r);
  write_architecture_area(h, r);
  write_settings(h, r);
  write_footer(h, r, plotted);
  write_atomic(out_html, h.str());
  return plotted;
}

bool render_run_report(const json& res, const fs::path& dir, const fs::path& out_html) {
  LoadedRun run{dir, run_record_from_json(res, (dir / "results.json").string()), {}};
  run.summary = summarize(run.record);
  return render_run_report(run, out_html);
}

}  // namespace mapwright::flows
