#pragma once
/// \file tool_run.hpp
/// What the two synthesis flows of `mapwright synth` share (the generic one, synth.cpp, and
/// the FPGA one, fpga.cpp): the RTL sources and their copy into the run folder, the yosys
/// parameter list, and an external tool (yosys, nextpnr-ice40, icepack) run as a child process
/// with an argument vector, no shell.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/flows/synth.hpp"

namespace mapwright::flows::synth_detail {

/// rtl/ of the source tree: MAPWRIGHT_SOURCE_DIR, else the tree the built-in configs are in.
std::filesystem::path default_rtl_dir();

/// The RTL files (mw_*.sv, sorted) of `dir`, checked to be plain names so that a script, which
/// names them relative to the run folder, holds nothing but letters, digits and '_'. Throws
/// core::SpecError (--rtl) when `dir` has no mw_accel.sv.
std::vector<std::string> rtl_files(const std::filesystem::path& dir);

/// Copies `files` from `src` into `dir`/rtl (created). Throws core::SpecError (--out).
void copy_rtl(const std::filesystem::path& src, const std::filesystem::path& dir,
              const std::vector<std::string>& files);

/// mw_accel's parameters of `p` by name, in its parameter order (Rows, Cols, InBufBytes,
/// WtBufBytes, AccBufWords, BeatBytes, BufBanks).
std::vector<std::pair<std::string, long long>> param_list(const SynthParams& p);
/// " -chparam Rows 2 -chparam Cols 2 ..." for `hierarchy`.
std::string chparams(const SynthParams& p);
/// "Rows 2, Cols 2, ..." for the text reports.
std::string params_text(const SynthParams& p);

/// One finished (or never started) child process.
struct ToolRun {
  int spawn_error = 0;      ///< posix_spawn's error number (0: it started).
  int status = 0;           ///< Its wait status.
  double seconds = 0;       ///< Wall time.
  double peak_rss_mib = 0;  ///< Peak resident memory.
  /// It started and exited with 0.
  bool ok() const;
  /// "exited with N" or "killed by signal N".
  std::string exit_text() const;
};

/// Runs `argv` in `dir` with its standard output and error in `dir`/`out_name`. Throws
/// core::SpecError (--out) when that file cannot be written.
ToolRun run_tool(const std::filesystem::path& dir, const std::vector<std::string>& argv,
                 const std::string& out_name);

/// `tool`'s executable in the first folder of PATH that has one, or an empty path.
std::filesystem::path find_on_path(const std::string& tool);

/// Why `tool` did not start: "<tool> not found on PATH: install the Debian package '<package>'
/// (apt-get install <package>)", or the system's reason.
std::string not_started(const std::string& tool, const std::string& package, int error);

}  // namespace mapwright::flows::synth_detail
