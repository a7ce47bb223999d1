#pragma once
// The HTML pages of run folders (private to flows/): the run report (run_page.cpp) and the
// comparison of runs (compare_page.cpp), drawn from the typed run record and its summary. Both
// are single self-contained files: inline CSS, gnuplot SVGs inlined, every user-provided string
// escaped. The gnuplot scripts and data stay beside them for reuse.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "mapwright/flows/run_record.hpp"

namespace mapwright::flows {

/// A run folder as the pages read it.
struct LoadedRun {
  std::filesystem::path dir;  ///< The run folder (its curve CSVs are named relative to it).
  RunRecord record;           ///< Its results.json, typed.
  RunSummary summary;         ///< summarize(record): totals, verifications, parity.
};

/// Renders report.html of `run` (its plots go to <run.dir>/plots); returns false when gnuplot
/// was unavailable (the report then has tables only).
bool render_run_report(const LoadedRun& run, const std::filesystem::path& out_html);
/// The same for a run's results.json record `res` (as run_record_to_json writes it) in `dir`.
bool render_run_report(const nlohmann::json& res, const std::filesystem::path& dir,
                       const std::filesystem::path& out_html);

/// Renders the comparison of `runs` to `out_html`; returns the comparison as JSON (the runs,
/// and per metric of the totals and of each layer: the values per run and the winner).
nlohmann::json render_compare(const std::vector<LoadedRun>& runs,
                              const std::filesystem::path& out_html);

}  // namespace mapwright::flows
