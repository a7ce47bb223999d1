#pragma once
// Helpers shared by the run, report, regress and worker flows (private to flows/): metrics
// records, file names, atomic writes, HTML/XML escaping and running gnuplot.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mapwright/core/metrics.hpp"

namespace mapwright::flows {

/// Rebuilds Metrics from Metrics::to_json (cycles, energy, EDP, utilization, counts, breakdown).
core::Metrics metrics_from_json(const nlohmann::json& j);
/// Counts from a {name: value} object (names as AccessCounts::fields()); missing names are 0.
core::AccessCounts counts_from_json(const nlohmann::json& j);
/// Counts as a {name: value} object.
nlohmann::json counts_to_json(const core::AccessCounts& c);

/// `s` with every control character (line breaks, escapes, DEL) replaced by a space: safe to
/// print on a terminal or inside a one-line comment of a file.
std::string one_line(std::string s);
/// A file-name-safe version of `s` (letters, digits, '.', '-', '_').
std::string safe_name(std::string s);
/// Creates `dir` and its parents; a failure (unwritable, a file in the way, a full disk) is a
/// core::SpecError naming the folder and the reason.
void make_dirs(const std::filesystem::path& dir);
/// make_dirs, then proves that a file can be written there (and removes it): a flow calls it
/// before its work so that an unwritable output folder costs nothing computed.
void make_output_dir(const std::filesystem::path& dir);
/// While alive, SIGINT (and with `also_term` SIGTERM) only counts: a flow polls count() and
/// stops cleanly, keeping what is finished. The previous handlers come back on destruction.
/// One at a time (the flows do not nest).
class InterruptSignals {
 public:
  explicit InterruptSignals(bool also_term = false);
  ~InterruptSignals();
  InterruptSignals(const InterruptSignals&) = delete;
  InterruptSignals& operator=(const InterruptSignals&) = delete;
  static int count();  ///< Signals received since construction.
  static void note();  ///< Counts one as if received (test hooks, internal stops).

 private:
  void (*old_int_)(int) = nullptr;
  void (*old_term_)(int) = nullptr;
  bool term_ = false;
};

/// An exclusive lock on an output folder (flock on <dir>/.lock, which holds the owner's pid),
/// created with the folder: a second process on the same folder is refused (a SpecError on
/// `flag` naming the holder's pid) instead of doing all the work twice. The kernel drops the
/// lock when the process ends, however it ends. Once the lock is held, the temporary files
/// (`<name>.tmp<pid>`) an earlier, killed holder left in the folder and its mappings/, curves/
/// and plots/ are removed. `locked_by_live_process` tells a reader
/// whether a folder's writer is still running.
class FolderLock {
 public:
  FolderLock(const std::filesystem::path& dir, const std::string& flag);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  static bool locked_by_live_process(const std::filesystem::path& dir);

 private:
  int fd_ = -1;  ///< The open lock file (the flock lives as long as it is open).
};
/// write(2) of all `n` bytes (retrying short writes and EINTR); false with errno set on failure.
bool write_all(int fd, const char* p, size_t n);
/// Writes `text` to `path` through a temporary file, fsync and a rename (never half a file).
/// Any failure (full disk, unwritable folder) is a core::SpecError naming the path and the
/// system's reason, and leaves no temporary file; the old `path`, if any, is untouched.
void write_atomic(const std::filesystem::path& path, const std::string& text);
/// Reads a whole file; throws core::SpecError naming it when missing.
std::string read_text(const std::filesystem::path& path);

/// Escapes & < > " ' for HTML text and attributes (also valid for XML).
std::string html_escape(const std::string& s);
/// Quotes a string for a gnuplot single-quoted literal (a quote becomes U+2019, control
/// characters become spaces): safe for any user string, nothing in it is expanded or executed.
std::string gp_quote(const std::string& s);
/// Quotes a label for a gnuplot data file column (double quotes; '"' and control characters
/// replaced), so that a hostile name stays one field of one line.
std::string gp_data_label(const std::string& s);
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

/// 1234567 -> "1.235M"; engineering notation with an SI prefix.
std::string si(double x, int digits = 4);
/// A number in the shortest of %g's forms: 60 -> "60", 0.1 -> "0.1".
std::string fmt_g(double x);
/// Local time now, ISO 8601.
std::string now_iso();

}  // namespace mapwright::flows
