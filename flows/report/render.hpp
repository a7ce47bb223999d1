#pragma once
// HTML reports of the flows (private to flows/, rendered by render.cpp): the run report and the
// comparison page. Both are single self-contained files: inline CSS, gnuplot SVGs inlined, every
// user-provided string escaped. The gnuplot scripts and data stay beside them for reuse.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mapwright::flows {

/// Renders report.html for a run from its results.json record (`res`) and the curve CSVs in
/// `dir`; returns false when gnuplot was unavailable (the report then has tables only).
bool render_run_report(const nlohmann::json& res, const std::filesystem::path& dir,
                       const std::filesystem::path& out_html);

/// Renders the comparison of runs (their results.json records and folders, one folder per
/// record) to `out_html`; returns the comparison as JSON (per metric: values per run and the
/// winner).
nlohmann::json render_compare(const std::vector<nlohmann::json>& runs,
                              const std::vector<std::filesystem::path>& dirs,
                              const std::filesystem::path& out_html);

}  // namespace mapwright::flows
