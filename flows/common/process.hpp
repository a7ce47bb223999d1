#pragma once
/// \file process.hpp
/// Child processes of the flows (gnuplot): started without a shell, with a timeout.

#include <filesystem>
#include <string>
#include <vector>

namespace mapwright::flows {

/// Starts `argv[0]` (found on PATH) with the argument vector `argv`, never through a shell, in
/// folder `cwd` (empty: the current one), standard streams on /dev/null; waits at most
/// `timeout_s` seconds (then kills it). Returns its exit code, or -1 when it could not start,
/// was killed or timed out.
int run_program(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                double timeout_s);
/// Runs gnuplot on `script` inside the script's folder (so file names in scripts are relative to
/// it); returns the SVG it wrote to `svg` with the XML prologue removed, ready to inline, or ""
/// when gnuplot is missing or failed.
std::string gnuplot_svg(const std::filesystem::path& script, const std::filesystem::path& svg);

}  // namespace mapwright::flows
