// `mapwright synth`: checks that an architecture has RTL parameters, copies the RTL into the
// output folder, writes the yosys script there (every value in it an integer formed here, no
// path or user string), runs yosys as a child process (argument vector, no shell) and reads
// its reports into a SynthResult. A missing yosys, a failing yosys run and unreadable reports
// are typed failures; yosys' log stays in the folder.

#include "mapwright/flows/synth.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>
#include <sstream>

#include "common/files.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#include "mapwright/support/configs_dir.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/spawn.hpp"
#include "synth/yosys_reports.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

using core::SpecError;

SynthParams synth_params(const core::Arch& a, const std::string& where) {
  const double beat = a.dram_bytes_per_cycle;
  if (beat != std::floor(beat))
    throw SpecError(where, "dram.bytes_per_cycle", std::to_string(beat),
                    "the RTL moves a whole number of bytes per cycle (a multiple of 4 in 4..64)");
  if (a.accum_buf_bytes % 4 != 0)
    throw SpecError(where, "buffers.accum_kib", std::to_string(a.accum_buf_bytes) + " B",
                    "the RTL's accumulator holds whole int32 words");
  if (a.operand_bits != 8 || a.acc_bits != 32)
    throw SpecError(where, "precision",
                    std::to_string(a.operand_bits) + "/" + std::to_string(a.acc_bits),
                    "the RTL computes int8 x int8 -> int32 only");
  const rtlpool::ModelParams m = rtlpool::model_params(a);
  if (const std::string why = rtlpool::check_model_params(m); !why.empty())
    throw SpecError(where, "arch", a.name, "no RTL parameters for it: " + why);
  return SynthParams{m.rows,        m.cols,       m.input_bytes, m.weight_bytes,
                     m.accum_words, m.beat_bytes, m.banks};
}

namespace {

using synth_detail::ModuleReport;

/// rtl/ of the source tree: MAPWRIGHT_SOURCE_DIR, else the tree the built-in configs are in.
fs::path default_rtl_dir() {
  if (const char* env = std::getenv("MAPWRIGHT_SOURCE_DIR"); env && *env)
    return fs::path(env) / "rtl";
  const std::string configs = core::builtin_configs_dir();
  return configs.empty() ? fs::path() : fs::path(configs).parent_path() / "rtl";
}

/// The RTL files (mw_*.sv, sorted), checked to be plain names so that the script, which names
/// them relative to the output folder, holds nothing but letters, digits and '_'.
std::vector<std::string> rtl_files(const fs::path& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_regular_file(dir / "mw_accel.sv", ec))
    throw SpecError("--rtl", "rtl", dir.string(), "no mw_accel.sv there (the RTL sources)");
  static const std::regex name_re("mw_[a-z0-9_]+\\.sv");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (e.is_regular_file() && std::regex_match(n, name_re)) files.push_back(n);
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The yosys script: read with SYNTHESIS defined (the SVAs are left out), elaborate with the
/// parameters, synthesize with memories kept as `$mem_v2` macros (synth's coarse part ends in
/// `memory -nomap`; memory_map is never run), map the rest to yosys' gates, check, and report.
std::string script(const std::vector<std::string>& files, const SynthParams& p) {
  std::ostringstream s;
  s << "# written by mapwright synth; run in this folder: yosys -s synth.ys\n";
  s << "read_verilog -sv -DSYNTHESIS";
  for (const auto& f : files) s << " rtl/" << f;
  s << "\nhierarchy -check -top mw_accel";
  const std::pair<const char*, long long> params[] = {{"Rows", p.rows},
                                                      {"Cols", p.cols},
                                                      {"InBufBytes", p.input_bytes},
                                                      {"WtBufBytes", p.weight_bytes},
                                                      {"AccBufWords", p.accum_words},
                                                      {"BeatBytes", p.beat_bytes},
                                                      {"BufBanks", p.banks}};
  for (const auto& [name, v] : params) s << " -chparam " << name << " " << v;
  s << "\nsynth -top mw_accel -run begin:fine\n"
       "opt -fast -full\n"
       "techmap\n"
       "opt -fast\n"
       "abc -fast\n"
       "opt -fast\n"
       "hierarchy -check\n"
       "check -assert\n"
       "setattr -mod -unset top\n"  // stat -json then prints no hierarchy text into its JSON
       "tee -q -o stat.json stat -json\n"
       "tee -q -o memories.il dump t:$mem_v2\n"
       // Each module's own logic depth: the paths through its submodule instances are cut
       // (only the wires, gates and memories are selected).
       "tee -q -o ltp_modules.txt ltp -noff w:* t:$_* t:$mem_v2\n"
       "design -save mapped\n"
       // The transistor estimate prices only plain D flip-flops: every flop becomes one, its
       // reset and enable logic gates (async2sync turns asynchronous resets synchronous).
       "async2sync\n"
       "dfflegalize -cell $_DFF_P_ 01\n"
       "tee -q -o stat_cmos.json stat -json -tech cmos\n"
       "design -load mapped\n"
       "flatten\n"
       "tee -q -o ltp.txt ltp -noff\n";
  return s.str();
}

/// The yosys version from its log's banner line, "Yosys 0.23 (git sha1 ...)".
std::string yosys_version(const std::string& log) {
  static const std::regex re(R"(Yosys \d+\.\d+[^\n]*)");
  std::smatch m;
  return std::regex_search(log, m, re) ? m.str() : std::string("yosys");
}

/// Runs yosys on synth.ys in `dir` (output to yosys.out, log to yosys.log); fills the time
/// and peak memory. Returns the failure kind and message.
SynthFailureKind run_yosys(const fs::path& dir, SynthResult& r, std::string& message) {
  const fs::path out_file = dir / "yosys.out";
  const int fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw SpecError("--out", "out", dir.string(), "cannot write yosys.out there");
  core::SpawnSpec spec;
  spec.argv = {"yosys", "-q", "-l", "yosys.log", "-s", "synth.ys"};
  spec.cwd = dir.string();
  spec.stdout_fd = fd;
  spec.stderr_fd = fd;
  int error = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = core::spawn_process(spec, error);
  ::close(fd);
  if (pid < 0) {
    message = error == ENOENT ? "yosys not found on PATH: install the Debian package 'yosys' "
                                "(apt-get install yosys)"
                              : "cannot start yosys: " + std::string(std::strerror(error));
    return SynthFailureKind::NoYosys;
  }
  int status = 0;
  struct rusage ru {};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.peak_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;  // kilobytes on Linux
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return SynthFailureKind::None;
  std::error_code ec;
  std::string log = fs::exists(dir / "yosys.log", ec) ? read_text(dir / "yosys.log") : "";
  message = synth_detail::first_error_line(log);
  if (message.empty()) message = synth_detail::first_error_line(read_text(out_file));
  if (message.empty())
    message = WIFSIGNALED(status) ? "yosys killed by signal " + std::to_string(WTERMSIG(status))
                                  : "yosys exited with " + std::to_string(WEXITSTATUS(status));
  return SynthFailureKind::Yosys;
}

/// The reports of a finished run in `dir` as the result's figures.
void read_reports(const fs::path& dir, SynthResult& r) {
  std::map<std::string, ModuleReport> modules =
      synth_detail::parse_stat_json(read_text(dir / "stat.json"));
  synth_detail::add_transistors(read_text(dir / "stat_cmos.json"), modules);
  synth_detail::add_memories(read_text(dir / "memories.il"), modules);
  for (const auto& [m, len] : synth_detail::parse_ltp(read_text(dir / "ltp_modules.txt")))
    if (auto it = modules.find(m); it != modules.end()) it->second.depth = len;
  const auto flat = synth_detail::parse_ltp(read_text(dir / "ltp.txt"));
  if (!flat.count("mw_accel")) throw std::runtime_error("ltp.txt: no path of mw_accel");
  synth_detail::assemble(modules, "mw_accel", flat.at("mw_accel"), r);
  r.yosys_version = yosys_version(read_text(dir / "yosys.log"));
  r.check_clean = true;  // the script's `check -assert` stops yosys on any problem
}

}  // namespace

SynthOutcome synthesize(const core::Arch& arch, const std::string& rtl_dir,
                        const std::string& out_dir) {
  SynthOutcome o;
  o.result.arch = arch.name;
  o.result.params = synth_params(arch, "--arch");
  const fs::path src = rtl_dir.empty() ? default_rtl_dir() : fs::path(rtl_dir);
  const std::vector<std::string> files = rtl_files(src);
  const fs::path dir = out_dir.empty() ? fs::path("synth-" + arch.name) : fs::path(out_dir);
  make_output_dir(dir);
  FolderLock lock(dir, "--out");
  make_dirs(dir / "rtl");
  for (const auto& f : files) {
    std::error_code ec;
    fs::copy_file(src / f, dir / "rtl" / f, fs::copy_options::overwrite_existing, ec);
    if (ec) throw SpecError("--out", "out", dir.string(), "cannot copy " + f + ": " + ec.message());
  }
  write_atomic(dir / "synth.ys", script(files, o.result.params));
  o.result.out_dir = dir.string();
  o.failure = run_yosys(dir, o.result, o.message);
  o.log = (dir / "yosys.log").string();
  if (o.failure != SynthFailureKind::None) return o;
  try {
    read_reports(dir, o.result);
  } catch (const std::exception& e) {  // a report yosys wrote differently than expected
    o.failure = SynthFailureKind::BadReport;
    o.message = e.what();
  }
  return o;
}

}  // namespace mapwright::flows
