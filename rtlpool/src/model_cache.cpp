// RTL models on demand: what a model is (its parameters and the RTL's limits on them), the
// models compiled into this build, the cache key (SHA-256 over the parameters, the sources the
// worker is built from and the tool versions), and the lookup under the cache's lock that
// builds a missing model (model_build.cpp).
#include "mapwright/rtlpool/model_cache.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "mapwright/rtl_api/rtl_api.hpp"
#include "model_build.hpp"
#ifdef MAPWRIGHT_HAVE_RTL
#include "mw_model_list.h"  // the models compiled into this build's worker (systemc/)
#endif

namespace fs = std::filesystem;

namespace mapwright::rtlpool {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

/// The parts of the source tree a worker is built from (relative paths; folders recursively).
const char* const kKeyParts[] = {"CMakeLists.txt", "rtl",     "support",
                                 "core",           "rtl_api", "model",
                                 "systemc",        "rtlpool", "apps/mapwright_rtl_worker.cpp"};

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

}  // namespace

ModelParams model_params(const core::Arch& a) {
  const rtl::RtlParams r = rtl::params_of(a);
  return ModelParams{
      r.rows,       r.cols,     r.input_buf_bytes, r.weight_buf_bytes, r.accum_buf_words,
      r.beat_bytes, r.buf_banks};
}

std::string describe(const ModelParams& p) {
  auto kib = [](long long b) {
    return b % 1024 == 0 ? std::to_string(b / 1024) + " KiB" : std::to_string(b) + " B";
  };
  return std::to_string(p.rows) + "x" + std::to_string(p.cols) + ", input " + kib(p.input_bytes) +
         ", weights " + kib(p.weight_bytes) + ", accumulator " + std::to_string(p.accum_words) +
         " words, " + std::to_string(p.beat_bytes) + " B/cycle" +
         (p.banks ? ", " + std::to_string(p.banks) + " banks" : "") + (p.traced ? ", traced" : "") +
         (p.netlist.empty() ? "" : ", gate-level netlist");
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
#define MW_MODEL(NAME, TYPE, ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS) \
  v.push_back({NAME, ModelParams{ROWS, COLS, INB, WTB, ACCW, BEAT, BANKS}});
  MW_FOR_EACH_MODEL(MW_MODEL)
#undef MW_MODEL
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
  for (const std::string& f : p.netlist) {  // a gate-level model: its files, by content
    if (!fs::is_regular_file(f, ec)) {
      failure = "the netlist file '" + f + "' is not there";
      return "";
    }
    h.add("netlist file");
    h.add(read_all(f));
  }
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
  build_model(p, src, dir, exe, o, r);
  return r;
}

}  // namespace mapwright::rtlpool
