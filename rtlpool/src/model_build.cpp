// Builds an RTL model for the cache (model_cache.hpp): the source tree is configured in a
// folder of the cache with MAPWRIGHT_RTL_WORKER_ONLY and the model's parameters, and only
// mapwright-rtl-worker is built; cmake runs as a child process (posix_spawn, no shell), its
// output kept in build.log and summarized on the progress stream. The executable is published
// under its final name only when complete, with model.json beside it.
#include "model_build.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>

#include <nlohmann/json.hpp>

#include "mapwright/support/spawn.hpp"

namespace fs = std::filesystem;

namespace mapwright::rtlpool {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// A build log's last lines, indented, for a build failure's message.
std::string tail_lines(const std::deque<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n    " + l;
  return out;
}

/// A model build's output: every line kept in build.log, the last ones held for a failure's
/// message, and Ninja's "[k/N] ..." lines reported on the progress stream (one line every 10 s
/// at most).
class BuildLog {
 public:
  BuildLog(const fs::path& file, std::ostream* progress, std::string what)
      : log_(file), progress_(progress), what_(std::move(what)) {}
  /// One line of cmake's or ninja's output.
  void add(const std::string& line) {
    log_ << line << "\n";
    last_.push_back(line);
    if (last_.size() > 12) last_.pop_front();
    if (progress_ && line.size() > 1 && line[0] == '[' && Clock::now() >= next_report_) {
      *progress_ << "rtl model " << what_ << ": step " << line.substr(1, line.find(']') - 1)
                 << " after " << static_cast<long long>(since(t0_)) << " s\n"
                 << std::flush;
      next_report_ = Clock::now() + std::chrono::seconds(10);
    }
  }
  void close() { log_.close(); }
  /// The last lines, indented, for a failure's message.
  std::string tail() const { return tail_lines(last_); }
  /// Seconds since the build started.
  double seconds() const { return since(t0_); }

 private:
  Clock::time_point t0_ = Clock::now();           ///< When the build started.
  std::ofstream log_;                             ///< build.log.
  std::deque<std::string> last_;                  ///< The log's last lines.
  std::ostream* progress_;                        ///< Progress stream (null = quiet).
  std::string what_;                              ///< describe() of the model.
  Clock::time_point next_report_ = Clock::now();  ///< No progress line before this.
};

/// Our environment for a model's build in `build` from the source tree `src`: with ccache's
/// base directory (unless the user set one) at the two folders' deepest common ancestor, so that
/// ccache sees the paths of every model's build (<cache>/<key>/build, all at one depth) alike and
/// each build after the first compiles only what differs (the model, the model list, tracing):
/// the support, core, model and pool objects come from the cache.
std::vector<std::string> build_environment(const std::string& src, const fs::path& build) {
  std::vector<std::string> env;
  bool user_base = false;
  for (char** e = environ; *e; ++e) {
    env.emplace_back(*e);
    user_base = user_base || env.back().rfind("CCACHE_BASEDIR=", 0) == 0;
  }
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(src, ec), b = fs::weakly_canonical(build, ec);
  fs::path common;
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end() && *i == *j; ++i, ++j)
    common /= *i;
  // Not the root: ccache would then rewrite every path, the system's headers too.
  if (!user_base && common.has_relative_path()) env.push_back("CCACHE_BASEDIR=" + common.string());
  return env;
}

/// Configures the source tree `src` in `build` for the one model `p` (MAPWRIGHT_RTL_WORKER_ONLY)
/// and builds its worker. Returns the exit status, -1 when a step could not run (`why`).
int configure_and_build(const ModelParams& p, const std::string& src, const fs::path& build,
                        const ModelCacheOptions& o, BuildLog& log, std::string& why) {
  const std::string model =
      std::to_string(p.rows) + ";" + std::to_string(p.cols) + ";" + std::to_string(p.input_bytes) +
      ";" + std::to_string(p.weight_bytes) + ";" + std::to_string(p.accum_words) + ";" +
      std::to_string(p.beat_bytes) + (p.banks ? ";" + std::to_string(p.banks) : std::string());
  std::string netlist;  // a CMake list (an argument, no shell: the ';' stays as it is)
  for (const std::string& f : p.netlist) netlist += (netlist.empty() ? "" : ";") + f;
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  auto on_line = [&log](const std::string& line) { log.add(line); };
  const std::vector<std::string> env = build_environment(src, build);
  int rc = run_captured(
      {"cmake", "-S", src, "-B", build.string(), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
       "-DMAPWRIGHT_RTL_WORKER_ONLY=ON", "-DMAPWRIGHT_RTL_MODEL=" + model,
       std::string("-DMAPWRIGHT_RTL_TRACE=") + (p.traced ? "ON" : "OFF"),
       "-DMAPWRIGHT_RTL_NETLIST=" + netlist},
      on_line, why, &env);
  if (rc == 0)
    rc = run_captured({"cmake", "--build", build.string(), "--target", "mapwright-rtl-worker", "-j",
                       std::to_string(jobs)},
                      on_line, why, &env);
  return rc;
}

}  // namespace

int run_captured(const std::vector<std::string>& argv,
                 const std::function<void(const std::string&)>& on_line, std::string& why,
                 const std::vector<std::string>* env) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    why = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  core::SpawnSpec spec;
  spec.argv = argv;
  spec.stdout_fd = spec.stderr_fd = fds[1];  // both into the pipe; standard input /dev/null
  spec.env = env;
  int rc = 0;
  const pid_t pid = core::spawn_process(spec, rc);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    why = "cannot start '" + argv[0] + "': " + std::strerror(rc);
    return -1;
  }
  std::string pending;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buf, static_cast<size_t>(n));
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      on_line(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  if (!pending.empty()) on_line(pending);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  why = "'" + argv[0] + "' killed by signal " + std::to_string(WTERMSIG(status));
  return -1;
}

void build_model(const ModelParams& p, const std::string& src, const fs::path& dir,
                 const fs::path& exe, const ModelCacheOptions& o, ModelLookup& r) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path build = dir / "build";
  fs::remove_all(build, ec);
  const std::string what = describe(p);
  BuildLog log(dir / "build.log", o.progress, what);
  if (o.progress)
    *o.progress << "rtl model " << what << ": building (once; cached in " << dir.string() << ")\n"
                << std::flush;
  std::string why;
  const int rc = configure_and_build(p, src, build, o, log, why);
  log.close();
  const fs::path built = build / "mapwright-rtl-worker";
  if (rc != 0 || !fs::is_regular_file(built, ec)) {
    r.failure = "building the RTL model for " + what + " failed (" +
                (why.empty() ? "exit status " + std::to_string(rc) : why) +
                "); log: " + (dir / "build.log").string() + ", last lines:" + log.tail();
    return;
  }
  // Publish atomically: the executable appears under its final name only when complete.
  const fs::path tmp = dir / "mapwright-rtl-worker.tmp";
  fs::copy_file(built, tmp, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(tmp, exe, ec);
  if (ec) {
    r.failure = "cannot place the RTL model in '" + dir.string() + "': " + ec.message();
    return;
  }
  fs::remove_all(build, ec);
  r.build_seconds = log.seconds();
  nlohmann::json meta{{"rows", p.rows},
                      {"cols", p.cols},
                      {"input_bytes", p.input_bytes},
                      {"weight_bytes", p.weight_bytes},
                      {"accum_words", p.accum_words},
                      {"beat_bytes", p.beat_bytes},
                      {"banks", p.banks},
                      {"traced", p.traced},
                      {"netlist", p.netlist},
                      {"key", r.key},
                      {"build_seconds", r.build_seconds}};
  std::ofstream(dir / "model.json") << meta.dump(2) << "\n";
  if (o.progress)
    *o.progress << "rtl model " << what << ": built in " << static_cast<long long>(r.build_seconds)
                << " s\n"
                << std::flush;
  r.exe = exe.string();
  r.built = true;
}

}  // namespace mapwright::rtlpool
