#pragma once
/// \file study_output.hpp
/// The files a study writes: runs.csv (per run), summary.csv (per layer and searcher),
/// searchers.csv (per searcher), the median curves (curves/) with their gnuplot scripts and
/// SVGs (plots/) and the gap-to-optimum plot; study_summary.hpp has study.json and the table.

#include <cstdint>
#include <string>
#include <vector>

#include "mapwright/flows/study.hpp"
#include "study/study_figures.hpp"
#include "study/study_state.hpp"

namespace mapwright::flows {

/// runs.csv: one row per planned run with its samples to every target and its cost ratios.
void write_runs_csv(const StudySetup& setup, const StudyRuns& runs);
/// summary.csv: one row per (layer, searcher) with its cell's figures.
void write_summary_csv(const StudySetup& setup, const StudyFigures& figures);
/// searchers.csv: one row per searcher with its summary (gaps, median layer, rates).
void write_searchers_csv(const StudySetup& setup, const StudyFigures& figures);

/// The plots' SVG texts ("" where gnuplot drew none) for study.html.
struct StudyPlots {
  std::vector<std::string> layer_svgs;  ///< Per layer, its median-curve plot.
  std::string gap_svg;                  ///< The gap-to-optimum plot.
  bool plotted = true;                  ///< gnuplot drew every SVG.
};
/// Per layer, the median best-so-far curves (curves/) and their plot (plots/); the
/// gap-to-optimum plot (plots/gap.csv, plots/gap.gp; its SVG goes into study.html only).
StudyPlots write_plots(const StudySetup& setup, const StudyRuns& runs);

// Number formats shared by the study's CSVs, summary and table.
/// A number in the shortest %g form (fmt_g), "" for NaN.
std::string csv_num(double x);
/// A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);
/// A count of samples of searcher `k`: ">B" (B: its budget) when not reached (+inf), "" for
/// NaN.
std::string samples_text(double x, const StudySuite& suite, const std::string& k);
/// A gap (ratio - 1) as a percentage followed by `unit`: 3 significant digits below 100 %,
/// rounded to an integer from there on. `g` must be finite.
std::string percent_text(double g, const std::string& unit);
/// Invalid samples / samples (NaN without samples).
double invalid_rate(int64_t invalid, int64_t samples);
/// Duplicate proposals / all proposals (samples + duplicates).
double duplicate_rate(int64_t duplicates, int64_t samples);

}  // namespace mapwright::flows
