#pragma once
/// \file sweep_report.hpp
/// The outputs of `mapwright sweep` read from its sweep.json record: sweep.html (the Pareto
/// fronts as gnuplot SVGs, the winner under the constraints, the table of points with their RTL
/// verdicts) and the summary table on the terminal.

#include <filesystem>
#include <ostream>

#include <nlohmann/json.hpp>

namespace mapwright::flows {

/// Writes <dir>/sweep.html and its plots (<dir>/plots/front_*.{dat,gp,svg}).
void write_sweep_report(const std::filesystem::path& dir, const nlohmann::json& sweep);
/// The terminal summary: the fronts, the winner and where the report is.
void print_sweep_summary(std::ostream& out, const nlohmann::json& sweep,
                         const std::filesystem::path& dir);

}  // namespace mapwright::flows
