// The run-folder and child-process parts both synthesis flows share: finding and copying the
// RTL sources, the parameter list of `hierarchy`, and running yosys, nextpnr-ice40 or icepack
// through support/spawn (argument vector, no shell) with its output in a file and its wall time
// and peak memory measured.

#include "synth/tool_run.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>

#include "mapwright/support/configs_dir.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/spawn.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows::synth_detail {

using core::SpecError;

fs::path default_rtl_dir() {
  if (const char* env = std::getenv("MAPWRIGHT_SOURCE_DIR"); env && *env)
    return fs::path(env) / "rtl";
  const std::string configs = core::builtin_configs_dir();
  return configs.empty() ? fs::path() : fs::path(configs).parent_path() / "rtl";
}

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

void copy_rtl(const fs::path& src, const fs::path& dir, const std::vector<std::string>& files) {
  std::error_code ec;
  fs::create_directories(dir / "rtl", ec);
  for (const auto& f : files) {
    fs::copy_file(src / f, dir / "rtl" / fs::path(f).filename(),
                  fs::copy_options::overwrite_existing, ec);
    if (ec) throw SpecError("--out", "out", dir.string(), "cannot copy " + f + ": " + ec.message());
  }
}

std::vector<std::pair<std::string, long long>> param_list(const SynthParams& p) {
  return {{"Rows", p.rows},
          {"Cols", p.cols},
          {"InBufBytes", p.input_bytes},
          {"WtBufBytes", p.weight_bytes},
          {"AccBufWords", p.accum_words},
          {"BeatBytes", p.beat_bytes},
          {"BufBanks", p.banks}};
}

std::string chparams(const SynthParams& p) {
  std::ostringstream s;
  for (const auto& [name, v] : param_list(p)) s << " -chparam " << name << " " << v;
  return s.str();
}

std::string params_text(const SynthParams& p) {
  std::ostringstream s;
  for (const auto& [name, v] : param_list(p)) s << (s.tellp() > 0 ? ", " : "") << name << " " << v;
  return s.str();
}

bool ToolRun::ok() const {
  return spawn_error == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string ToolRun::exit_text() const {
  return WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                             : "exited with " + std::to_string(WEXITSTATUS(status));
}

ToolRun run_tool(const fs::path& dir, const std::vector<std::string>& argv,
                 const std::string& out_name) {
  const fs::path out_file = dir / out_name;
  const int fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw SpecError("--out", "out", dir.string(), "cannot write " + out_name + " there");
  core::SpawnSpec spec;
  spec.argv = argv;
  spec.cwd = dir.string();
  spec.stdout_fd = fd;
  spec.stderr_fd = fd;
  ToolRun r;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = core::spawn_process(spec, r.spawn_error);
  ::close(fd);
  if (pid < 0) return r;
  struct rusage ru {};
  while (wait4(pid, &r.status, 0, &ru) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.peak_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;  // kilobytes on Linux
  return r;
}

std::string not_started(const std::string& tool, const std::string& package, int error) {
  return error == ENOENT ? tool + " not found on PATH: install the Debian package '" + package +
                               "' (apt-get install " + package + ")"
                         : "cannot start " + tool + ": " + std::string(std::strerror(error));
}

fs::path find_on_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((fs::path(d) / tool).c_str(), X_OK) == 0) return fs::path(d) / tool;
  return {};
}

}  // namespace mapwright::flows::synth_detail
