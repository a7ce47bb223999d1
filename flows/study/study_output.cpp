// The files of a study folder from its runs and figures: runs.csv, summary.csv and
// searchers.csv; per layer the median best-so-far curves (curves/<i>_<name>.csv) with a gnuplot
// script (plots/<i>.gp) drawn into an SVG; the gap-to-optimum plot (plots/gap.csv and gap.gp).
// Numbers in the CSVs use the shortest %g form, "" for undefined, ">B" for a sample count not
// reached within the budget B. Layer names are quoted where CSV or gnuplot needs it.
#include "study/study_output.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <sstream>
#include <system_error>

#include "common/files.hpp"
#include "common/process.hpp"
#include "common/text.hpp"
#include "study/study_stats.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

std::string csv_num(double x) {
  return std::isnan(x) ? std::string() : fmt_g(x);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string samples_text(double x, const StudySuite& suite, const std::string& k) {
  if (std::isnan(x)) return "";
  if (!std::isfinite(x)) return ">" + std::to_string(suite.budget_of(k));
  return std::to_string(static_cast<long long>(std::llround(x)));
}

std::string percent_text(double g, const std::string& unit) {
  std::ostringstream s;
  if (std::fabs(100 * g) >= 100)
    s << std::llround(100 * g) << unit;
  else
    s << std::setprecision(3) << 100 * g << unit;
  return s.str();
}

double invalid_rate(int64_t invalid, int64_t samples) {
  return samples > 0 ? static_cast<double>(invalid) / static_cast<double>(samples)
                     : std::numeric_limits<double>::quiet_NaN();
}

double duplicate_rate(int64_t duplicates, int64_t samples) {
  return samples + duplicates > 0
             ? static_cast<double>(duplicates) / static_cast<double>(samples + duplicates)
             : std::numeric_limits<double>::quiet_NaN();
}

void write_runs_csv(const StudySetup& setup, const StudyRuns& runs) {
  const StudySuite& suite = setup.suite;
  std::ostringstream f;
  f << "layer,searcher,seed,reference,budget,finished,seconds,invalid,duplicates,best_cost,"
       "best_over_ref";
  for (double t : suite.targets_pct) f << ",samples_to_" << t << "pct";
  for (auto b : suite.iso_budgets) f << ",cost_ratio_at_" << b;
  f << "\n";
  for (const auto& j : runs.jobs()) {
    f << csv_field(setup.layers[j.layer].name) << "," << j.searcher << "," << j.seed << ","
      << j.reference << "," << j.budget << "," << j.done << "," << j.seconds << "," << j.invalid
      << "," << j.duplicates << "," << j.best << "," << j.best / runs.references()[j.layer];
    for (double t : suite.targets_pct) {
      const core::TimeToEvent s = runs.samples_to(j, t);
      f << "," << (s.observed ? std::to_string(static_cast<long long>(s.time)) : std::string());
    }
    for (auto b : suite.iso_budgets) f << "," << runs.cost_at(j, b);
    f << "\n";
  }
  write_atomic(setup.dir / "runs.csv", f.str());
}

void write_summary_csv(const StudySetup& setup, const StudyFigures& figures) {
  const StudySuite& suite = setup.suite;
  std::ostringstream sf;
  sf << "layer,searcher,seeds";
  for (double t : suite.targets_pct)
    sf << ",median_samples_to_" << t << "pct,reached_" << t << "pct";
  for (auto b : suite.iso_budgets) sf << ",median_cost_ratio_at_" << b;
  for (double t : suite.targets_pct)
    sf << ",samples_to_" << t << "pct_ci_lo,samples_to_" << t << "pct_ci_hi";
  sf << ",invalid_rate,duplicate_rate\n";
  for (size_t li = 0; li < setup.layers.size(); ++li) {
    for (const auto& k : suite.searchers) {
      const StudyCell& c = figures.cells.at(k)[li];
      sf << csv_field(setup.layers[li].name) << "," << k << "," << c.seeds;
      std::ostringstream ci_cols;
      for (size_t ti = 0; ti < suite.targets_pct.size(); ++ti) {
        const core::BootstrapCI& km = c.samples_to[ti];
        sf << "," << samples_text(km.estimate, suite, k) << "," << c.reached[ti];
        ci_cols << "," << samples_text(km.lo, suite, k) << "," << samples_text(km.hi, suite, k);
      }
      for (double m : c.cost_ratio_at) sf << "," << m;
      sf << ci_cols.str() << "," << csv_num(invalid_rate(c.invalid, c.samples)) << ","
         << csv_num(duplicate_rate(c.duplicates, c.samples)) << "\n";
    }
  }
  write_atomic(setup.dir / "summary.csv", sf.str());
}

void write_searchers_csv(const StudySetup& setup, const StudyFigures& figures) {
  const StudySuite& suite = setup.suite;
  std::ostringstream f;
  f << "searcher";
  for (auto b : suite.iso_budgets)
    f << ",gap_at_" << b << ",gap_at_" << b << "_ci_lo,gap_at_" << b << "_ci_hi";
  for (double t : suite.targets_pct)
    f << ",samples_to_" << t << "pct_median_layer,samples_to_" << t << "pct_ci_lo,samples_to_" << t
      << "pct_ci_hi,layers_reached_" << t << "pct";
  f << ",invalid_rate,duplicate_rate\n";
  for (const auto& k : suite.searchers) {
    const StudySearcherSummary& fg = figures.searchers.at(k);
    f << k;
    for (const core::BootstrapCI& g : fg.gap_to_optimum)
      f << "," << csv_num(g.estimate) << "," << csv_num(g.lo) << "," << csv_num(g.hi);
    for (size_t ti = 0; ti < suite.targets_pct.size(); ++ti)
      f << "," << samples_text(fg.median_layer[ti].estimate, suite, k) << ","
        << samples_text(fg.median_layer[ti].lo, suite, k) << ","
        << samples_text(fg.median_layer[ti].hi, suite, k) << "," << fg.layers_reached[ti];
    f << "," << csv_num(invalid_rate(fg.invalid, fg.samples)) << ","
      << csv_num(duplicate_rate(fg.duplicates, fg.samples)) << "\n";
  }
  write_atomic(setup.dir / "searchers.csv", f.str());
}

namespace {

/// Layer `li`'s median best-so-far curve per searcher (log-spaced rows), as CSV.
std::string median_curves(const StudySetup& setup, const StudyRuns& runs, size_t li) {
  const StudySuite& suite = setup.suite;
  const double ref = runs.references()[li];
  std::ostringstream cf;
  cf << "sample";
  for (const auto& k : suite.searchers) cf << "," << k;
  cf << "\n";
  for (int64_t i = 0; i < suite.budget; ++i) {
    // Log-spaced rows keep the file small.
    if (i > 50 && (i + 1) % std::max<int64_t>(1, (i + 1) / 50) != 0 && i + 1 != suite.budget)
      continue;
    cf << (i + 1);
    for (const auto& k : suite.searchers) {
      const std::vector<const Job*>& by = runs.of(k, li);
      std::vector<double> v;
      for (const Job* j : by)
        if (static_cast<int64_t>(j->curve.size()) > i && std::isfinite(j->curve[i]))
          v.push_back(j->curve[i] / ref);
      cf << "," << (v.size() == by.size() && !v.empty() ? std::to_string(core::median(v)) : "");
    }
    cf << "\n";
  }
  return cf.str();
}

/// Layer `li`'s file stem: "<index>_<safe name>".
std::string layer_stem(const StudySetup& setup, size_t li) {
  return std::to_string(li) + "_" + safe_name(setup.layers[li].name);
}

/// Layer `li`'s gnuplot script. gnuplot runs inside plots/, so the script names its files
/// relative to it; the layer name (user text) only appears as a quoted gnuplot string.
std::string layer_plot(const StudySetup& setup, size_t li) {
  const StudySuite& suite = setup.suite;
  const std::string stem = layer_stem(setup, li);
  std::ostringstream gp;
  gp << "set terminal svg size 720,420 dynamic font 'sans,12'\n"
     << "set output " << gp_quote(stem + ".svg") << "\n"
     << "set datafile separator ','\nset logscale x\nset logscale y\nset key top right\n"
     << "set xlabel 'samples'\nset ylabel "
     << gp_quote("best cost / optimum (median of " + std::to_string(suite.seeds.size()) + " seeds)")
     << "\nset title "
     << gp_quote(setup.layers[li].name + " (" + suite.objective + ", " + setup.arch.name + ")")
     << " noenhanced\nset grid\n";
  gp << "plot ";
  for (size_t k = 0; k < suite.searchers.size(); ++k)
    gp << (k ? ", " : "") << gp_quote("../curves/" + stem + ".csv") << " using 1:" << (k + 2)
       << " with lines lw 2 title " << gp_quote(suite.searchers[k]) << " noenhanced";
  gp << "\n";
  return gp.str();
}

/// plots/gap.csv: per budget of `grid`, every searcher's geometric mean over layers of the
/// median best / optimum with its bootstrap band; `ymax` grows to the largest finite value.
std::string gap_data(const StudySetup& setup, const StudyRuns& runs,
                     const std::vector<int64_t>& grid, double& ymax) {
  std::ostringstream d;
  d << "# budget, then per searcher (" << setup.suite.searchers.size()
    << "): geometric mean over layers of the median best / optimum, bootstrap low, high\n";
  for (int64_t b : grid) {
    d << b;
    for (const auto& k : setup.suite.searchers) {
      const core::BootstrapCI ci = gap_ratio_at(setup, runs, k, b);
      for (double x : {ci.estimate, ci.lo, ci.hi}) {
        d << "," << (std::isfinite(x) ? csv_num(x) : std::string("NaN"));
        if (std::isfinite(x)) ymax = std::max(ymax, x);
      }
    }
    d << "\n";
  }
  return d.str();
}

/// The y tics of the gap plot: the axis is best / optimum on a log scale, labelled as the gap
/// (ratio - 1): 1-2-5 steps up to the largest value, none closer to the one below than 6 % of
/// the axis.
std::string gap_ytics(double ymax) {
  std::ostringstream gp;
  gp << "set ytics (";
  const double top = std::log(std::max(ymax, 1.1)), min_step = 0.06 * top;
  std::vector<double> tics = {0};
  for (double decade = 0.01; std::log(1 + decade) <= top; decade *= 10)
    for (double m : {1, 2, 5}) tics.push_back(m * decade);
  double last = -1;
  for (double g : tics) {
    const double at = std::log(1 + g);
    if (at > top || (last >= 0 && at - last < min_step)) continue;
    // A tic label is a format: "%%" draws "%".
    gp << (last < 0 ? "" : ", ") << gp_quote(fmt_g(g * 100) + " %%") << " " << 1 + g;
    last = at;
  }
  gp << ")\n";
  return gp.str();
}

/// The gap-to-optimum plot: geometric mean over layers of the median best / optimum at
/// log-spaced budgets (and every iso budget) per searcher with its bootstrap band, as
/// plots/gap.csv and plots/gap.gp. Its SVG goes into study.html only (the per-layer SVGs are
/// the plots/ files): the script redraws it. Returns the SVG ("" when gnuplot drew none).
std::string gap_plot(const StudySetup& setup, const StudyRuns& runs) {
  const StudySuite& suite = setup.suite;
  std::vector<int64_t> grid(suite.iso_budgets.begin(), suite.iso_budgets.end());
  for (double x = 1; x < static_cast<double>(suite.budget); x *= std::pow(10.0, 1.0 / 8))
    grid.push_back(static_cast<int64_t>(std::llround(x)));
  grid.push_back(suite.budget);
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  double ymax = 1;
  write_atomic(setup.dir / "plots" / "gap.csv", gap_data(setup, runs, grid, ymax));
  std::ostringstream gp;
  gp << "set terminal svg size 900,480 dynamic font 'sans,12'\n"
     << "set output " << gp_quote("gap.svg") << "\n"
     << "set datafile separator ','\nset datafile missing 'NaN'\n"
     << "set logscale x\nset logscale y\nset key top right\nset grid\n"
     << "set xlabel 'samples (budget)'\n"
     << "set ylabel "
     << gp_quote("gap to the optimum (geometric mean over layers of the median over " +
                 std::to_string(suite.seeds.size()) + " seeds)")
     << "\nset title "
     << gp_quote("gap to the optimum vs budget, " +
                 fmt_g(std::round(setup.boot.confidence * 1000) / 10) + " % bootstrap band (" +
                 suite.objective + ", " + setup.arch.name + ")")
     << " noenhanced\n";
  gp << gap_ytics(ymax);
  gp << "set yrange [1:" << csv_num(std::max(ymax, 1.1) * 1.05)
     << "]\nset xrange [1:" << suite.budget << "]\n";
  gp << "plot ";
  for (size_t k = 0; k < suite.searchers.size(); ++k) {
    const size_t c = 2 + 3 * k;
    gp << (k ? ", " : "") << "'gap.csv' using 1:" << c + 1 << ":" << c + 2
       << " with filledcurves fs transparent solid 0.15 noborder lc " << k + 1 << " notitle, "
       << "'gap.csv' using 1:" << c << " with linespoints lw 2 pt 7 ps 0.5 lc " << k + 1
       << " title " << gp_quote(suite.searchers[k]) << " noenhanced";
  }
  gp << "\n";
  write_atomic(setup.dir / "plots" / "gap.gp", gp.str());
  std::string svg = gnuplot_svg(setup.dir / "plots" / "gap.gp", setup.dir / "plots" / "gap.svg");
  std::error_code ec;
  fs::remove(setup.dir / "plots" / "gap.svg", ec);
  return svg;
}

}  // namespace

StudyPlots write_plots(const StudySetup& setup, const StudyRuns& runs) {
  StudyPlots p;
  const fs::path plots = setup.dir / "plots";
  for (size_t li = 0; li < setup.layers.size(); ++li) {
    write_atomic(setup.dir / "curves" / (layer_stem(setup, li) + ".csv"),
                 median_curves(setup, runs, li));
    write_atomic(plots / (std::to_string(li) + ".gp"), layer_plot(setup, li));
  }
  for (size_t li = 0; li < setup.layers.size(); ++li) {
    p.layer_svgs.push_back(gnuplot_svg(plots / (std::to_string(li) + ".gp"),
                                       plots / (layer_stem(setup, li) + ".svg")));
    p.plotted = !p.layer_svgs.back().empty() && p.plotted;
  }
  p.gap_svg = gap_plot(setup, runs);
  p.plotted = !p.gap_svg.empty() && p.plotted;
  return p;
}

}  // namespace mapwright::flows
