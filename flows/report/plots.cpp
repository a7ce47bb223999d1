// The gnuplot plots of the report pages: the run report's latency and energy breakdown, its
// best-so-far curves (log-thinned from the curve CSVs) and its surrogate-vs-RTL parity scatter,
// the compare page's totals histogram, and the area-objective fronts of sweep.html and the
// codesign report. Each writes its data and script, then inlines the SVG gnuplot drew from them.
#include "report/plots.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "common/files.hpp"
#include "common/process.hpp"
#include "common/text.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

namespace {

/// The terminal of the run report's wide plots.
const char* kTerm =
    "set terminal svg size 1000,430 dynamic font 'DejaVu Sans,11' background '#ffffff'\n";

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

/// Writes plots/curve_<index>.dat (best cost over the final best, log-thinned) for every layer
/// with a finished search; returns their gnuplot plot clauses in layer order.
std::vector<std::string> write_curve_data(const RunRecord& r, const fs::path& dir,
                                          const fs::path& plots) {
  std::vector<std::string> series;
  for (const auto& L : r.layers) {
    if (L.curve_csv.empty() || L.search.is_null() || !L.search.value("found", false)) continue;
    const auto pts = read_curve(dir / L.curve_csv);
    if (pts.empty()) continue;
    const double final_best = pts.back().second;
    const fs::path dat = plots / ("curve_" + std::to_string(L.index) + ".dat");
    std::ostringstream d;
    for (const auto& [s, c] : pts) d << s << " " << fmt_g(c / final_best, 10) << "\n";
    write_atomic(dat, d.str());
    series.push_back(gp_quote(dat.filename().string()) + " using 1:2 with steps lw 2 title " +
                     gp_quote(L.layer.name));
  }
  return series;
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

ParityPoints parity_points(const RunRecord& r) {
  ParityPoints pts;
  std::ostringstream dp, df;
  for (const auto& L : r.layers)
    for (const auto& c : L.candidates) {
      if (!c.verification || !c.verification->rtl) continue;
      const bool passed = c.verification->passed;
      const double rc = static_cast<double>(c.verification->rtl->cycles);
      const double sc = static_cast<double>(c.surrogate.cycles);
      pts.lo = std::min({pts.lo, rc, sc});
      pts.hi = std::max({pts.hi, rc, sc});
      (passed ? dp : df) << rc << " " << sc << "\n";
      (passed ? pts.n_passed : pts.n_failed)++;
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

}  // namespace

bool write_breakdown_plot(std::ostream& h, const RunRecord& r, const fs::path& plots) {
  std::ostringstream d;
  double tc = 0, te = 0;
  for (const auto& L : r.layers)
    if (L.best) {
      tc += static_cast<double>(L.count) * static_cast<double>(L.best->cycles);
      te += static_cast<double>(L.count) * L.best->energy_pj;
    }
  size_t rows = 0;
  for (const auto& L : r.layers)
    if (L.best && tc > 0 && te > 0) {
      const double n = L.count;
      d << gp_data_label(L.layer.name + (L.count > 1 ? " x" + std::to_string(L.count) : "")) << " "
        << 100 * n * static_cast<double>(L.best->cycles) / tc << " "
        << 100 * n * L.best->energy_pj / te << "\n";
      ++rows;
    }
  write_atomic(plots / "breakdown.dat", d.str());
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
  return inline_plot(h, plots, "breakdown", g.str());
}

bool write_curves_plot(std::ostream& h, const RunRecord& r, const fs::path& dir,
                       const fs::path& plots) {
  std::ostringstream g;
  g << kTerm << "set output " << gp_quote("curves.svg") << "\n"
    << "set logscale xy\nset xlabel 'samples'\nset ylabel 'best cost / final best'\nset grid\n"
    << "set key outside right top font ',9' noenhanced\nset datafile separator ' '\n";
  const std::vector<std::string> series = write_curve_data(r, dir, plots);
  if (series.empty()) {
    h << "<p class=\"note\">No finished search yet.</p>\n";
    return true;
  }
  g << "plot ";
  for (size_t i = 0; i < series.size(); ++i) g << (i ? ", \\\n  " : "") << series[i];
  g << "\n";
  return inline_plot(h, plots, "curves", g.str());
}

bool write_parity_plot(std::ostream& h, const RunRecord& r, const fs::path& plots) {
  const ParityPoints pts = parity_points(r);
  write_atomic(plots / "parity_pass.dat", pts.passed);
  write_atomic(plots / "parity_fail.dat", pts.failed);
  if (pts.n_passed + pts.n_failed == 0) return true;
  return inline_plot(h, plots, "parity", parity_script(pts),
                     "class=\"plot\" style=\"max-width:640px\"");
}

void write_totals_plot(std::ostream& h, const std::vector<std::string>& labels,
                       const std::vector<std::pair<std::string, std::vector<double>>>& relative,
                       const fs::path& out_html) {
  const fs::path dir = out_html.parent_path().empty() ? fs::path(".") : out_html.parent_path();
  const fs::path base = dir / (out_html.stem().string() + "_plots");
  make_dirs(base);
  std::ostringstream d;
  d << "metric";
  for (const auto& l : labels) d << " " << gp_data_label(l);
  d << "\n";
  for (const auto& [metric, values] : relative) {
    d << '"' << metric << '"';
    for (double x : values) d << " " << x;
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
    << "set yrange [0:*]\nset title 'Network totals'\nplot for [i=2:" << labels.size() + 1 << "] "
    << gp_quote("totals.dat") << " using i:xtic(1) title columnhead\n";
  inline_plot(h, base, "totals", g.str());
}

std::string front_plot_row(double area_mm2, double y, const std::string& label) {
  return fmt_fixed(area_mm2, 6) + " " + fmt_sci(y, 4) + " " + gp_data_label(label) + "\n";
}

std::string front_plot_svg(const fs::path& plots, const FrontPlot& f) {
  write_atomic(plots / (f.stem + "_all.dat"), f.all);
  write_atomic(plots / (f.stem + "_front.dat"), f.front + " \n");
  write_atomic(plots / (f.stem + "_winner.dat"), f.chosen + " \n");
  if (f.all.empty()) return "";
  std::ostringstream g;
  g << "set terminal svg size 520,380 dynamic font 'DejaVu Sans,11' background '#ffffff'\n"
    << "set output " << gp_quote(f.stem + ".svg") << "\n"
    << "set title " << gp_quote(f.title) << "\nset xlabel 'area (mm^2, analytical model)'\n"
    << "set ylabel " << gp_quote(f.ylabel) << "\nset grid\nset key top right\n"
    << (f.logy ? "set logscale y\n" : "");
  if (f.max_area > 0)
    g << "set arrow from " << f.max_area << ", graph 0 to " << f.max_area
      << ", graph 1 nohead dt 2 lc rgb '#b03030'\n"
      << "set label 'area limit' at " << f.max_area << ", graph 0.95 left offset 0.5,0 tc rgb "
      << "'#b03030'\n";
  g << "plot " << gp_quote(f.stem + "_all.dat")
    << " using 1:2 with points pt 7 ps 0.8 lc rgb '#9aa5b4' title 'points', "
    << gp_quote(f.stem + "_front.dat")
    << " using 1:2 with linespoints pt 7 ps 1.1 lw 2 lc rgb '#3b6fb6' title 'Pareto front', "
    << gp_quote(f.stem + "_front.dat")
    << " using 1:2:3 with labels offset 0.8,0.6 font ',9' notitle, "
    << gp_quote(f.stem + "_winner.dat") << " using 1:2 with points pt 3 ps 2.2 lw 2 lc rgb "
    << "'#d0402b' title " << gp_quote(f.chosen_title) << "\n";
  write_atomic(plots / (f.stem + ".gp"), g.str());
  return gnuplot_svg(plots / (f.stem + ".gp"), plots / (f.stem + ".svg"));
}

}  // namespace mapwright::flows
