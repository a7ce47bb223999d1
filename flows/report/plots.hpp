#pragma once
// The report pages' plots: each writes its data and gnuplot script beside the page, runs
// gnuplot and inlines the SVG into the page's stream. gnuplot runs in the plot folder, so a
// script names its files relative to it; every user string in a script or data file is quoted
// (gp_quote, gp_data_label). A plot returns false when gnuplot was missing or failed (the data
// and script stay for a later run).

#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/flows/run_record.hpp"

namespace mapwright::flows {

/// Each layer's share of the network's latency and energy (plots/breakdown.*). Writes the
/// data always, the plot only when some layer has a chosen mapping.
bool write_breakdown_plot(std::ostream& h, const RunRecord& r, const std::filesystem::path& plots);
/// The sampling searchers' best-so-far curves (plots/curve_<index>.dat, plots/curves.*), read
/// from the curve CSVs the layers name relative to the run folder `dir`; a note instead when no
/// search has finished.
bool write_curves_plot(std::ostream& h, const RunRecord& r, const std::filesystem::path& dir,
                       const std::filesystem::path& plots);
/// Surrogate against RTL cycles of every verified candidate, passed and failed apart
/// (plots/parity*; log axes when the cycles span over 20x).
bool write_parity_plot(std::ostream& h, const RunRecord& r, const std::filesystem::path& plots);
/// The compare page's histogram of network totals (<stem>_plots/totals.* beside `out_html`):
/// one group per metric of `relative` (its name and each run's value relative to the best),
/// one bar per run of `labels`.
void write_totals_plot(std::ostream& h, const std::vector<std::string>& labels,
                       const std::vector<std::pair<std::string, std::vector<double>>>& relative,
                       const std::filesystem::path& out_html);

/// An area-against-objective scatter (sweep.html's fronts, the codesign report): every point,
/// the Pareto front as a line with its points labelled, the chosen point, and the area limit.
struct FrontPlot {
  std::string stem;                     ///< Its files: <plots>/<stem>{_all,_front,...}.dat, .gp.
  std::string title;                    ///< Plot title.
  std::string ylabel;                   ///< y axis label.
  bool logy = false;                    ///< Logarithmic y axis.
  double max_area = 0;                  ///< Dashed "area limit" line there (0 = none).
  std::string all;                      ///< Data rows (front_plot_row) of every point.
  std::string front;                    ///< Rows of the front, by ascending area.
  std::string chosen;                   ///< Row of the chosen point ("" = none).
  std::string chosen_title = "winner";  ///< Key title of the chosen point.
};
/// One data row of a FrontPlot: area, y and a label (quoted for the data file).
std::string front_plot_row(double area_mm2, double y, const std::string& label);
/// Writes the data and script of `f` to `plots` and runs gnuplot: the SVG to inline, or "" when
/// gnuplot failed or `f` has no point.
std::string front_plot_svg(const std::filesystem::path& plots, const FrontPlot& f);

}  // namespace mapwright::flows
