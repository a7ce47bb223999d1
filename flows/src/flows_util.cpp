// Helpers shared by the flows: metrics records, file names, atomic writes, escaping, gnuplot.
#include "flows_util.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include "mapwright/core/error.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

/// AccessCounts members in AccessCounts::fields() order.
constexpr long long AccessCounts::*kCountMembers[] = {
    &AccessCounts::macs, &AccessCounts::steps, &AccessCounts::folds,
    &AccessCounts::input_buf_reads, &AccessCounts::input_buf_writes,
    &AccessCounts::weight_buf_reads, &AccessCounts::weight_buf_writes,
    &AccessCounts::accum_reads, &AccessCounts::accum_writes, &AccessCounts::dram_input_bytes,
    &AccessCounts::dram_weight_bytes, &AccessCounts::dram_output_bytes,
    &AccessCounts::dram_psum_write_bytes, &AccessCounts::dram_psum_read_bytes,
    &AccessCounts::input_loads, &AccessCounts::weight_loads, &AccessCounts::psum_reloads,
    &AccessCounts::psum_spills, &AccessCounts::output_stores};
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

void write_atomic(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  const fs::path tmp = path.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f) throw SpecError(path.string(), "(file)", "", "cannot write");
  }
  fs::rename(tmp, path);
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
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
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
    if (c == '\'') o += "\xe2\x80\x99";
    else if (u < 0x20 || u == 0x7f) o += ' ';
    else o += c;
  }
  return o + "'";
}

std::string gp_data_label(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') o += '\'';
    else if (u < 0x20 || u == 0x7f) o += ' ';
    else o += c;
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
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
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
    while (std::abs(x) >= 1000 && u < 6) { x /= 1000; ++u; }
    std::snprintf(buf, sizeof buf, "%.*g%s", digits, x, big[u]);
  } else {
    while (std::abs(x) < 1 && u < 5) { x *= 1000; ++u; }
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
