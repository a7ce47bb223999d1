// Helpers shared by the flows: metrics records, file names, atomic writes, escaping, gnuplot.
#include "flows_util.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "mapwright/core/error.hpp"
#include "mapwright/core/test_hooks.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

/// AccessCounts members in AccessCounts::fields() order.
constexpr long long AccessCounts::*kCountMembers[] = {&AccessCounts::macs,
                                                      &AccessCounts::steps,
                                                      &AccessCounts::folds,
                                                      &AccessCounts::input_buf_reads,
                                                      &AccessCounts::input_buf_writes,
                                                      &AccessCounts::weight_buf_reads,
                                                      &AccessCounts::weight_buf_writes,
                                                      &AccessCounts::accum_reads,
                                                      &AccessCounts::accum_writes,
                                                      &AccessCounts::dram_input_bytes,
                                                      &AccessCounts::dram_weight_bytes,
                                                      &AccessCounts::dram_output_bytes,
                                                      &AccessCounts::dram_psum_write_bytes,
                                                      &AccessCounts::dram_psum_read_bytes,
                                                      &AccessCounts::input_loads,
                                                      &AccessCounts::weight_loads,
                                                      &AccessCounts::psum_reloads,
                                                      &AccessCounts::psum_spills,
                                                      &AccessCounts::output_stores};
static_assert(sizeof(kCountMembers) / sizeof(kCountMembers[0]) == 19,
              "AccessCounts changed: update kCountMembers");

}  // namespace

AccessCounts counts_from_json(const nlohmann::json& j) {
  AccessCounts c;
  const auto names = c.fields();
  for (size_t i = 0; i < names.size(); ++i)
    if (j.contains(names[i].first)) c.*kCountMembers[i] = j[names[i].first].get<long long>();
  return c;
}

nlohmann::json counts_to_json(const AccessCounts& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : c.fields()) j[k] = v;
  return j;
}

Metrics metrics_from_json(const nlohmann::json& j) {
  Metrics m;
  m.valid = j.value("valid", false);
  m.reason = j.value("reason", std::string());
  if (!m.valid) return m;
  m.cycles = j.value("cycles", 0LL);
  m.compute_cycles = j.value("compute_cycles", 0LL);
  m.dma_cycles = j.value("dma_cycles", 0LL);
  m.energy_pj = j.value("energy_pj", 0.0);
  m.edp = j.value("edp", 0.0);
  m.utilization = j.value("utilization", 0.0);
  if (j.contains("counts")) m.counts = counts_from_json(j["counts"]);
  if (j.contains("energy_breakdown_pj")) {
    const auto& e = j["energy_breakdown_pj"];
    m.energy.mac = e.value("mac", 0.0);
    m.energy.input_buf = e.value("input_buf", 0.0);
    m.energy.weight_buf = e.value("weight_buf", 0.0);
    m.energy.accum_buf = e.value("accum_buf", 0.0);
    m.energy.dram = e.value("dram", 0.0);
    m.energy.pe_static = e.value("pe_static", 0.0);
  }
  return m;
}

std::string one_line(std::string s) {
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return s;
}

std::string safe_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return s;
}

/// write(2) until done; false with errno set on failure.
bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw SpecError(dir.string(), "(folder)", "", "cannot create: " + ec.message());
}

void make_output_dir(const fs::path& dir) {
  make_dirs(dir);
  const fs::path probe = dir / (".write-probe" + std::to_string(getpid()));
  write_atomic(probe, "");
  std::error_code ec;
  fs::remove(probe, ec);
}

namespace {
volatile std::sig_atomic_t g_signals = 0;
void on_signal(int) {
  g_signals = g_signals + 1;
}
}  // namespace

InterruptSignals::InterruptSignals(bool also_term) : term_(also_term) {
  g_signals = 0;
  old_int_ = std::signal(SIGINT, on_signal);
  if (term_) old_term_ = std::signal(SIGTERM, on_signal);
}

InterruptSignals::~InterruptSignals() {
  std::signal(SIGINT, old_int_);
  if (term_) std::signal(SIGTERM, old_term_);
}

int InterruptSignals::count() {
  return g_signals;
}
void InterruptSignals::note() {
  g_signals = g_signals + 1;
}

namespace {
/// Removes the temporary files (`<name>.tmp<pid>`) a killed process left in `dir` and its
/// mappings/, curves/ and plots/ folders (the caller holds the folder's lock).
void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> folders = {dir};
  for (const char* sub : {"mappings", "curves", "plots"}) folders.push_back(dir / sub);
  for (const auto& d : folders) {
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const size_t t = name.rfind(".tmp");
      if (t == std::string::npos || t + 4 == name.size() ||
          name.find_first_not_of("0123456789", t + 4) != std::string::npos)
        continue;
      std::error_code rm;
      fs::remove(it->path(), rm);
    }
    ec.clear();
  }
}
}  // namespace

FolderLock::FolderLock(const fs::path& dir, const std::string& flag) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw SpecError(flag, flag.substr(flag.find_first_not_of('-')), dir.string(),
                    "cannot create the folder: " + ec.message());
  const fs::path file = dir / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw SpecError(flag, flag.substr(flag.find_first_not_of('-')), dir.string(),
                    std::string("cannot create its lock file: ") + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {0};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    ::close(fd_);
    fd_ = -1;
    const std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("?");
    throw SpecError(flag, flag.substr(flag.find_first_not_of('-')), dir.string(),
                    "is in use by another mapwright process (pid " + holder +
                        "); wait for it to finish or choose another " + flag);
  }
  const std::string pid = std::to_string(getpid());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the pid; only the message of a refused second process is poorer.
  }
  remove_stale_temporaries(dir);
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

bool FolderLock::locked_by_live_process(const fs::path& dir) {
  const int fd = ::open((dir / ".lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // also drops the shared lock if we got it
  return held;
}

void write_atomic(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) make_dirs(path.parent_path());
  const fs::path tmp = path.string() + ".tmp" + std::to_string(getpid());
  // POSIX calls rather than a stream: every failure has its errno (a full disk says so), the
  // temporary file never outlives a failure, and the data is on disk before the rename makes
  // it visible (a crash leaves the old file or the new one, never a torn one).
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  auto fail = [&](bool opened) {
    const int e = errno;
    if (opened) ::close(fd);
    ::unlink(tmp.c_str());
    throw SpecError(path.string(), "(file)", "", std::string("cannot write: ") + std::strerror(e));
  };
  if (fd < 0) fail(false);
  // Test hook (core/test_hooks.hpp): die with half of the file written.
  const bool die_here = core::kill_point_reached("write");
  const size_t first = die_here ? text.size() / 2 : text.size();
  if (!write_all(fd, text.data(), first)) fail(true);
  if (die_here) core::kill_self();
  if (!write_all(fd, text.data() + first, text.size() - first)) fail(true);
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) fail(true);
  if (::close(fd) != 0) fail(false);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail(false);
}

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw SpecError(path.string(), "(file)", "", "cannot read (missing?)");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string gp_quote(const std::string& s) {
  // In a gnuplot single-quoted string nothing is expanded (no backquote command substitution,
  // no macros, no backslash escapes). gnuplot 5.4's '' escape misparses runs of quotes at the
  // end of a string, so a quote is drawn as U+2019 instead; a line break would end the
  // command, so every control character becomes a space.
  std::string o = "'";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'')
      o += "\xe2\x80\x99";
    else if (u < 0x20 || u == 0x7f)
      o += ' ';
    else
      o += c;
  }
  return o + "'";
}

std::string gp_data_label(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"')
      o += '\'';
    else if (u < 0x20 || u == 0x7f)
      o += ' ';
    else
      o += c;
  }
  return o + "\"";
}

int run_program(const std::vector<std::string>& argv, const fs::path& cwd, double timeout_s) {
  if (argv.empty()) return -1;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGINT);
  sigaddset(&def, SIGPIPE);
  posix_spawnattr_setsigdefault(&at, &def);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  // posix_spawnp searches PATH for the program itself: no shell ever sees an argument.
  const int rc = posix_spawnp(&pid, args[0], &fa, &at, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc != 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string gnuplot_svg(const fs::path& script, const fs::path& svg) {
  std::error_code ec;
  fs::remove(svg, ec);
  // gnuplot runs in the script's folder, so scripts name their files relative to it and no
  // user-chosen path is ever written into a script.
  const fs::path dir = script.has_parent_path() ? script.parent_path() : fs::path(".");
  if (run_program({"gnuplot", script.filename().string()}, dir, 120.0) != 0 || !fs::exists(svg))
    return "";
  std::string text = read_text(svg);
  const size_t start = text.find("<svg");
  if (start == std::string::npos) return "";
  return text.substr(start);
}

std::string si(double x, int digits) {
  static const char* big[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char* small[] = {"", "m", "u", "n", "p", "f"};
  char buf[64];
  if (x == 0 || !std::isfinite(x)) {
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
  }
  int u = 0;
  if (std::abs(x) >= 1) {
    while (std::abs(x) >= 1000 && u < 6) {
      x /= 1000;
      ++u;
    }
    std::snprintf(buf, sizeof buf, "%.*g%s", digits, x, big[u]);
  } else {
    while (std::abs(x) < 1 && u < 5) {
      x *= 1000;
      ++u;
    }
    std::snprintf(buf, sizeof buf, "%.*g%s", digits, x, small[u]);
  }
  return buf;
}

std::string fmt_g(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

}  // namespace mapwright::flows
