// RTL models on demand: the cache key (SHA-256 over the parameters, the sources the worker is
// built from and the tool versions), the lock, and the build of a worker executable with one
// model (the source tree configured with MAPWRIGHT_RTL_WORKER_ONLY; cmake runs as a child
// process, no shell), its output kept in build.log and summarized on the progress stream.
#include "mapwright/rtlpool/model_cache.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#ifdef MAPWRIGHT_HAVE_RTL
#include "mapwright/systemc/rtl_evaluator.hpp"
#endif

extern char** environ;

namespace fs = std::filesystem;

namespace mapwright::rtlpool {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

/// The parts of the source tree a worker is built from (relative paths; folders recursively).
const char* const kKeyParts[] = {
    "CMakeLists.txt", "rtl",     "core",    "rtl_api",
    "model",          "systemc", "rtlpool", "apps/mapwright_rtl_worker.cpp"};

/// Runs `argv` (PATH searched, no shell) with stdin from /dev/null and stdout+stderr into
/// `on_line`, one call per line. Returns the exit status, or -1 when it could not start or was
/// killed (`why` says which).
template <typename OnLine>
int run_captured(const std::vector<std::string>& argv, OnLine on_line, std::string& why) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    why = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  posix_spawnattr_setsigdefault(&at, &def);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &fa, &at, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
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

/// The first line a tool prints for `--version` ("" when it cannot run); asked once per process.
std::string tool_version(const std::string& tool) {
  static std::map<std::string, std::string> known;
  static std::mutex mu;
  std::lock_guard<std::mutex> hold(mu);
  if (const auto it = known.find(tool); it != known.end()) return it->second;
  std::string first, why;
  const int rc = run_captured(
      {tool, "--version"},
      [&](const std::string& line) {
        if (first.empty()) first = line;
      },
      why);
  return known[tool] = rc == 0 ? first : "";
}

/// Incremental SHA-256 (OpenSSL's EVP interface).
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr);
  }
  void add(const std::string& s) {
    const uint64_t n = s.size();  // length-prefixed: no two inputs concatenate alike
    EVP_DigestUpdate(ctx_.get(), &n, sizeof n);
    EVP_DigestUpdate(ctx_.get(), s.data(), s.size());
  }
  std::string hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_.get(), md, &len);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < len; ++i) {
      out += digits[md[i] >> 4];
      out += digits[md[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// An exclusive flock on a file, released on destruction.
class FileLock {
 public:
  explicit FileLock(const fs::path& p) : fd_(open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {}
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool valid() const { return fd_ >= 0; }
  bool try_lock() { return flock(fd_, LOCK_EX | LOCK_NB) == 0; }
  bool lock() {
    while (flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) return false;
    return true;
  }

 private:
  int fd_;
};

std::string source_dir_of(const ModelCacheOptions& o) {
  if (!o.source_dir.empty()) return o.source_dir;
  const std::string configs = core::builtin_configs_dir();
  return env_or("MAPWRIGHT_SOURCE_DIR",
                configs.empty() ? std::string() : fs::path(configs).parent_path().string());
}

/// A build log's last lines, indented, for a build failure's message.
std::string tail_lines(const std::deque<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n    " + l;
  return out;
}

}  // namespace

ModelParams model_params(const core::Arch& a) {
  ModelParams p;
  p.rows = a.rows;
  p.cols = a.cols;
  p.input_bytes = a.input_buf_bytes;
  p.weight_bytes = a.weight_buf_bytes;
  p.accum_words = a.accum_buf_bytes / 4;
  p.beat_bytes = static_cast<long long>(a.dram_bytes_per_cycle);
  p.banks = a.buffer_banks;
  return p;
}

std::string describe(const ModelParams& p) {
  auto kib = [](long long b) {
    return b % 1024 == 0 ? std::to_string(b / 1024) + " KiB" : std::to_string(b) + " B";
  };
  return std::to_string(p.rows) + "x" + std::to_string(p.cols) + ", input " + kib(p.input_bytes) +
         ", weights " + kib(p.weight_bytes) + ", accumulator " + std::to_string(p.accum_words) +
         " words, " + std::to_string(p.beat_bytes) + " B/cycle" +
         (p.banks ? ", " + std::to_string(p.banks) + " banks" : "") + (p.traced ? ", traced" : "");
}

std::string check_model_params(const ModelParams& p) {
  auto in = [](long long v, long long lo, long long hi) { return v >= lo && v <= hi; };
  if (!in(p.rows, 2, 64)) return "array rows " + std::to_string(p.rows) + ": the RTL takes 2..64";
  if (!in(p.cols, 2, 64)) return "array cols " + std::to_string(p.cols) + ": the RTL takes 2..64";
  if (!in(p.beat_bytes, 4, 64) || p.beat_bytes % 4 != 0)
    return "dram.bytes_per_cycle " + std::to_string(p.beat_bytes) +
           ": the RTL takes a multiple of 4 in 4..64";
  if (!in(p.input_bytes, 64, 1 << 20))
    return "input buffer " + std::to_string(p.input_bytes) + " B: the RTL takes 64 B..1 MiB";
  if (!in(p.weight_bytes, 64, 1 << 20))
    return "weight buffer " + std::to_string(p.weight_bytes) + " B: the RTL takes 64 B..1 MiB";
  if (!in(p.accum_words, 16, 1 << 20))
    return "accumulator " + std::to_string(p.accum_words) +
           " words: the RTL takes 16..1048576 words (64 B..4 MiB)";
  if (p.banks != 0 && (p.banks < std::max({p.rows, p.cols, p.beat_bytes}) || p.banks > 128))
    return "buffers.banks " + std::to_string(p.banks) +
           ": the RTL takes 0 or max(rows, cols, dram.bytes_per_cycle)..128";
  return "";
}

std::vector<std::pair<std::string, ModelParams>> prebuilt_models() {
  std::vector<std::pair<std::string, ModelParams>> v;
#ifdef MAPWRIGHT_HAVE_RTL
  for (const auto& [name, r] : systemc::RtlEvaluator::compiled_models())
    v.push_back({name, ModelParams{r.rows, r.cols, r.input_buf_bytes, r.weight_buf_bytes,
                                   r.accum_buf_words, r.beat_bytes, r.buf_banks}});
#endif
  return v;
}

std::string model_cache_dir(const ModelCacheOptions& o) {
  if (!o.cache_dir.empty()) return o.cache_dir;
  if (const char* e = std::getenv("MAPWRIGHT_MODEL_CACHE"); e && *e) return e;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "mapwright" / "rtl-models").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : "/tmp") / ".cache" / "mapwright" / "rtl-models").string();
}

std::string model_key(const ModelParams& p, const std::string& source_dir, std::string& failure) {
  const fs::path root(source_dir);
  std::error_code ec;
  if (source_dir.empty() || !fs::is_regular_file(root / "rtl" / "mw_accel.sv", ec)) {
    failure = "the RTL sources are not at '" + source_dir +
              "' (set MAPWRIGHT_SOURCE_DIR to the mapwright source tree)";
    return "";
  }
  const std::string verilator = tool_version("verilator");
  if (verilator.empty()) {
    failure = "'verilator --version' did not run: Verilator is needed to build an RTL model";
    return "";
  }
  Sha256 h;
  h.add("mapwright rtl model 1");
  for (long long v : {p.rows, p.cols, p.input_bytes, p.weight_bytes, p.accum_words, p.beat_bytes})
    h.add(std::to_string(v));
  if (p.banks) h.add("banks " + std::to_string(p.banks));
  if (p.traced) h.add("traced");
  h.add(verilator);
  h.add(tool_version("c++"));
  std::vector<fs::path> files;
  for (const char* part : kKeyParts) {
    const fs::path at = root / part;
    if (fs::is_regular_file(at, ec)) {
      files.push_back(at);
      continue;
    }
    for (fs::recursive_directory_iterator it(at, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    h.add(fs::relative(f, root, ec).string());
    h.add(read_all(f));
  }
  return h.hex();
}

ModelLookup find_or_build_model(const ModelParams& p, const std::string& prebuilt_exe,
                                const ModelCacheOptions& o) {
  ModelLookup r;
  for (const auto& [name, q] : prebuilt_models())  // untraced, like p unless p.traced
    if (q == p) {
      r.exe = prebuilt_exe;
      r.name = name;
      r.prebuilt = true;
      return r;
    }
  if (std::string why = check_model_params(p); !why.empty()) {
    r.failure = "no RTL model can be built for " + describe(p) + ": " + why;
    return r;
  }
  const std::string src = source_dir_of(o);
  r.key = model_key(p, src, r.failure);
  if (r.key.empty()) {
    r.failure = "cannot build an RTL model for " + describe(p) + ": " + r.failure;
    return r;
  }
  r.name = "cache:" + r.key.substr(0, 12);
  const fs::path cache(model_cache_dir(o));
  const fs::path dir = cache / r.key;
  r.dir = dir.string();
  const fs::path exe = dir / "mapwright-rtl-worker";
  std::error_code ec;
  if (access(exe.c_str(), X_OK) == 0) {
    r.exe = exe.string();
    return r;
  }
  if (!o.build) {
    r.failure = "no RTL model for " + describe(p) + " in the cache (" + cache.string() +
                "); `mapwright archs --build` builds one";
    return r;
  }
  fs::create_directories(cache, ec);
  FileLock lock(cache / (r.key + ".lock"));
  if (!lock.valid()) {
    r.failure =
        "cannot create the model cache lock in '" + cache.string() + "': " + std::strerror(errno);
    return r;
  }
  if (!lock.try_lock()) {
    if (o.progress)
      *o.progress << "rtl model " << describe(p) << ": another process is building it; waiting\n"
                  << std::flush;
    lock.lock();
  }
  if (access(exe.c_str(), X_OK) == 0) {  // built by the other process meanwhile
    r.exe = exe.string();
    return r;
  }

  // Build in <key>/build, keep the executable, model.json and build.log, drop the objects.
  const auto t0 = Clock::now();
  fs::create_directories(dir, ec);
  const fs::path build = dir / "build";
  fs::remove_all(build, ec);
  std::ofstream log(dir / "build.log");
  std::deque<std::string> last;  // the log's last lines, for a failure's message
  auto next_report = Clock::now();
  const std::string what = describe(p);
  if (o.progress)
    *o.progress << "rtl model " << what << ": building (once; cached in " << dir.string() << ")\n"
                << std::flush;
  auto on_line = [&](const std::string& line) {
    log << line << "\n";
    last.push_back(line);
    if (last.size() > 12) last.pop_front();
    // Ninja's "[k/N] ..." lines: one progress line every 10 s at most.
    if (o.progress && line.size() > 1 && line[0] == '[' && Clock::now() >= next_report) {
      *o.progress << "rtl model " << what << ": step " << line.substr(1, line.find(']') - 1)
                  << " after " << static_cast<long long>(since(t0)) << " s\n"
                  << std::flush;
      next_report = Clock::now() + std::chrono::seconds(10);
    }
  };
  const std::string model =
      std::to_string(p.rows) + ";" + std::to_string(p.cols) + ";" + std::to_string(p.input_bytes) +
      ";" + std::to_string(p.weight_bytes) + ";" + std::to_string(p.accum_words) + ";" +
      std::to_string(p.beat_bytes) + (p.banks ? ";" + std::to_string(p.banks) : std::string());
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  std::string why;
  int rc = run_captured(
      {"cmake", "-S", src, "-B", build.string(), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
       "-DMAPWRIGHT_RTL_WORKER_ONLY=ON", "-DMAPWRIGHT_RTL_MODEL=" + model,
       std::string("-DMAPWRIGHT_RTL_TRACE=") + (p.traced ? "ON" : "OFF")},
      on_line, why);
  if (rc == 0)
    rc = run_captured({"cmake", "--build", build.string(), "--target", "mapwright-rtl-worker", "-j",
                       std::to_string(jobs)},
                      on_line, why);
  log.close();
  const fs::path built = build / "mapwright-rtl-worker";
  if (rc != 0 || !fs::is_regular_file(built, ec)) {
    r.failure = "building the RTL model for " + what + " failed (" +
                (why.empty() ? "exit status " + std::to_string(rc) : why) +
                "); log: " + (dir / "build.log").string() + ", last lines:" + tail_lines(last);
    return r;
  }
  // Publish atomically: the executable appears under its final name only when complete.
  const fs::path tmp = dir / "mapwright-rtl-worker.tmp";
  fs::copy_file(built, tmp, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(tmp, exe, ec);
  if (ec) {
    r.failure = "cannot place the RTL model in '" + dir.string() + "': " + ec.message();
    return r;
  }
  fs::remove_all(build, ec);
  r.build_seconds = since(t0);
  nlohmann::json meta{{"rows", p.rows},
                      {"cols", p.cols},
                      {"input_bytes", p.input_bytes},
                      {"weight_bytes", p.weight_bytes},
                      {"accum_words", p.accum_words},
                      {"beat_bytes", p.beat_bytes},
                      {"banks", p.banks},
                      {"traced", p.traced},
                      {"key", r.key},
                      {"build_seconds", r.build_seconds}};
  std::ofstream(dir / "model.json") << meta.dump(2) << "\n";
  if (o.progress)
    *o.progress << "rtl model " << what << ": built in " << static_cast<long long>(r.build_seconds)
                << " s\n"
                << std::flush;
  r.exe = exe.string();
  r.built = true;
  return r;
}

}  // namespace mapwright::rtlpool
