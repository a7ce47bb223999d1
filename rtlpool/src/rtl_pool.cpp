// RTL runs in worker processes: the `mapwright rtl-worker` loop (one JSON request per line in,
// one JSON result per line out, one SystemC simulation per process) and the pool that spawns
// workers with posix_spawn, feeds them through pipes and collects their answers with poll().
// A job whose worker dies is run again on a fresh worker (at most kMaxCrashRetries times)
// before it comes back as an infrastructure failure; a job past its wall-clock limit
// (SimLimits::max_seconds) is stopped by killing its worker and comes back as a typed limit
// result. The worker loop holds one test hook
// (MAPWRIGHT_TEST_CRASH_FIRST_JOB, see crash_for_test) that makes a worker crash on purpose.
#include "mapwright/rtlpool/rtl_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/error.hpp"
#include "mapwright/core/posix_io.hpp"
#ifdef MAPWRIGHT_HAVE_RTL
#include "mapwright/systemc/rtl_evaluator.hpp"
#endif

extern char** environ;

using namespace mapwright::core;

namespace mapwright::rtlpool {

namespace {

/// A number as the user would write it ("0.5", "1800", "1e+12").
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

void check_sim_limits(const SimLimits& l) {
  if (l.max_cycles <= 0 || l.max_cycles > kMaxSimCycles)
    throw SpecError(
        "--sim-max-cycles", "sim-max-cycles", std::to_string(l.max_cycles),
        "must be a positive number of cycles, at most " + std::to_string(kMaxSimCycles));
  if (!(l.max_seconds > 0) || !(l.max_seconds <= kMaxSimSeconds))
    throw SpecError("--sim-max-seconds", "sim-max-seconds", number_text(l.max_seconds),
                    "must be a positive number of seconds, at most " + number_text(kMaxSimSeconds) +
                        " (a week)");
  if (l.max_memory_mb <= 0 || l.max_memory_mb > kMaxSimMemoryMb)
    throw SpecError("--sim-max-memory-mb", "sim-max-memory-mb", std::to_string(l.max_memory_mb),
                    "must be a positive number of MiB, at most " + std::to_string(kMaxSimMemoryMb) +
                        " (1 TiB)");
}

std::string self_executable() {
  if (const char* e = std::getenv("MAPWRIGHT_EXE"); e && *e) return e;
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the mapwright executable (/proc/self/exe)");
  return std::string(buf, static_cast<size_t>(n));
}

std::string worker_executable() {
  const std::string self = self_executable();
  const size_t slash = self.rfind('/');
  const std::string sibling =
      (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) +
      "mapwright-rtl-worker";
  return access(sibling.c_str(), X_OK) == 0 ? sibling : self;
}

namespace {

nlohmann::json result_to_json(size_t id, const RtlJobResult& r) {
  nlohmann::json j{{"id", id},
                   {"kind", rtl_failure_name(r.kind)},
                   {"failure", r.failure},
                   {"functional_ok", r.functional_ok},
                   {"mismatches", r.mismatches},
                   {"sim_seconds", r.sim_seconds},
                   {"sim_cpu_seconds", r.sim_cpu_seconds},
                   {"sim_cycles", r.sim_cycles},
                   {"harness", r.harness},
                   {"input_bank_stalls", r.input_bank_stalls},
                   {"weight_bank_stalls", r.weight_bank_stalls},
                   {"accum_bank_stalls", r.accum_bank_stalls},
                   {"predicted_cycles", r.predicted_cycles},
                   {"estimated_memory_mb", r.estimated_memory_mb}};
  if (r.kind == RtlFailure::None) j["metrics"] = r.metrics.to_json();
  return j;
}

RtlJobResult result_from_json(const nlohmann::json& j) {
  RtlJobResult r;
  if (j.contains("kind") && j["kind"].is_string()) {
    r.kind = rtl_failure_from_name(j["kind"].get<std::string>());
    r.failure = j.value("failure", std::string());
  } else {
    r.kind = RtlFailure::Worker;
    r.failure = "worker: malformed answer";
  }
  r.functional_ok = j.value("functional_ok", false);
  r.mismatches = j.value("mismatches", 0LL);
  r.sim_seconds = j.value("sim_seconds", 0.0);
  r.sim_cpu_seconds = j.value("sim_cpu_seconds", 0.0);
  r.sim_cycles = j.value("sim_cycles", 0LL);
  r.harness = j.value("harness", std::string());
  r.input_bank_stalls = j.value("input_bank_stalls", 0LL);
  r.weight_bank_stalls = j.value("weight_bank_stalls", 0LL);
  r.accum_bank_stalls = j.value("accum_bank_stalls", 0LL);
  r.predicted_cycles = j.value("predicted_cycles", 0LL);
  r.estimated_memory_mb = j.value("estimated_memory_mb", 0.0);
  if (j.contains("metrics")) {
    r.metrics = metrics_from_json(j["metrics"]);
    r.counts = r.metrics.counts;
  }
  return r;
}

/// TEST HOOK, for the crash-retry tests only (documented at worker_loop):
/// MAPWRIGHT_TEST_CRASH_FIRST_JOB=<file>[:N]. While <file> holds fewer than N bytes (N = 1 by
/// default), the worker that takes a job appends one byte and dies by SIGSEGV without
/// answering; the flock makes the count exact when several workers race. Unset, it costs one
/// getenv per job.
void crash_for_test() {
  const char* v = std::getenv("MAPWRIGHT_TEST_CRASH_FIRST_JOB");
  if (!v || !*v) return;
  std::string file = v;
  long limit = 1;
  if (const size_t colon = file.rfind(':'); colon != std::string::npos) {
    limit = std::strtol(file.c_str() + colon + 1, nullptr, 10);
    file.resize(colon);
  }
  const int fd = open(file.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  bool crash = false;
  if (flock(fd, LOCK_EX) == 0) {
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size < limit) crash = write(fd, "x", 1) == 1;
  }
  close(fd);  // also drops the lock
  if (!crash) return;
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a deliberate crash leaves no core file behind
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The worker.

int worker_loop(std::istream& in, int out_fd) {
  // A worker dies with its parent: the kernel sends SIGKILL when the parent exits (even by
  // SIGKILL), so no simulation runs on as an orphan. If the parent is already gone (it died
  // between the spawn and this call), exit at once.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (const char* parent = std::getenv("MAPWRIGHT_WORKER_PARENT"))
    if (std::to_string(getppid()) != parent) return 1;
  // The protocol owns out_fd; anything the simulator prints goes to stderr.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  auto send = [out_fd](const nlohmann::json& j) {
    const std::string line = j.dump() + "\n";
    size_t off = 0;
    while (off < line.size()) {
      const ssize_t n = write(out_fd, line.data() + off, line.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::exit(1);  // the parent went away
      }
      off += static_cast<size_t>(n);
    }
  };
#ifdef MAPWRIGHT_HAVE_RTL
  systemc::RtlEvaluator rtl;
#endif
  std::map<std::string, Arch> archs;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    size_t id = 0;
    RtlJobResult r;
    try {
      const nlohmann::json req = nlohmann::json::parse(line);
      id = req.at("id").get<size_t>();
      const std::string arch_arg = req.at("arch").get<std::string>();
      if (!archs.count(arch_arg)) archs.emplace(arch_arg, load_arch(arch_arg));
      const Arch& arch = archs.at(arch_arg);
#ifdef MAPWRIGHT_HAVE_RTL
      if (req.value("probe", false)) {
        systemc::RtlParams p;
        std::string failure;
        if (!rtl.read_params(arch, p, failure, systemc::RtlHarness::Auto)) {
          std::string known;
          for (const auto& nm : systemc::RtlEvaluator::compiled_archs())
            known += (known.empty() ? "" : ", ") + nm;
          r.kind = RtlFailure::Arch;
          r.failure = failure + " (architectures with a compiled RTL model: " + known + ")";
        } else {
          r.functional_ok = true;
        }
      } else {
        crash_for_test();
        const Layer layer = layer_from_json(req.at("layer"), "rtl-worker");
        const Mapping m = mapping_from_yaml(req.at("mapping").get<std::string>(), "rtl-worker");
        systemc::RtlRunOptions ro;
        ro.seed = req.value("seed", uint64_t{1});
        ro.watchdog_cycles = req.value("watchdog_cycles", 0LL);
        ro.trace_file = req.value("trace_file", std::string());
        ro.limits.max_cycles = req.value("max_cycles", ro.limits.max_cycles);
        ro.limits.max_memory_mb = req.value("max_memory_mb", ro.limits.max_memory_mb);
        ro.limits.max_seconds = 0;  // the pool enforces the wall clock by killing this process
        // The decoupled SystemC harness where the architecture has a plain model and no
        // waveform is asked for (same results, faster); else the pin-level testbench.
        ro.harness = systemc::RtlHarness::Auto;
        r = rtl.run(layer, arch, m, ro);
      }
#else
      r.kind = RtlFailure::Arch;
      r.failure = "arch: this mapwright was built without the RTL (MAPWRIGHT_BUILD_RTL=OFF)";
#endif
    } catch (const std::exception& e) {
      r.kind = RtlFailure::Internal;
      r.failure = std::string("worker: ") + e.what();
    }
    send(result_to_json(id, r));
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// The pool.

namespace {

struct Worker {
  pid_t pid = -1;                              ///< Child process.
  int to_fd = -1;                              ///< Its stdin (we write requests).
  int from_fd = -1;                            ///< Its stdout (we read results).
  std::string arch;                            ///< Architecture it serves.
  bool busy = false;                           ///< A job is in flight.
  size_t job = 0;                              ///< Id of the job in flight.
  std::string buffer;                          ///< Partial line read so far.
  std::chrono::steady_clock::time_point sent;  ///< When the job in flight was sent.
  double max_seconds = 0;                      ///< Its wall-clock limit (0 = none, e.g. a probe).
};

using Clock = std::chrono::steady_clock;

/// When a busy worker's job runs out of time.
Clock::time_point deadline_of(const Worker& w) {
  return w.sent +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(w.max_seconds));
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

}  // namespace

struct RtlWorkerPool::Impl {
  std::string exe;                              ///< mapwright binary.
  bool use_cache = false;                       ///< enable_model_cache was called.
  ModelCacheOptions cache;                      ///< Its options.
  std::map<std::string, ModelLookup> models;    ///< check_arch's model per architecture.
  int max_workers = 1;                          ///< Process limit.
  std::vector<Worker> workers;                  ///< Live workers.
  std::deque<std::pair<size_t, RtlJob>> queue;  ///< Jobs not started.
  size_t next_id = 0;                           ///< Next job id.
  std::map<size_t, RtlJob> in_flight;           ///< Started jobs (for crash reports).
  std::map<size_t, int> crash_retries;          ///< Job id -> times re-run after a crash.
  bool killed = false;                          ///< kill_all ran: crashes are not retried.

  Worker spawn(const std::string& arch) {
    const auto m = models.find(arch);
    const std::string bin = m != models.end() && m->second.ok() ? m->second.exe : exe;
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, from[1], STDOUT_FILENO);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    // Own process group: a terminal Ctrl-C goes to the parent only. Default SIGPIPE/SIGINT.
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGINT);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    // The small worker binary takes no argument; mapwright itself needs the subcommand.
    const bool dedicated =
        bin.size() >= 20 && bin.substr(bin.size() - 20) == "mapwright-rtl-worker";
    std::string a0 = bin, a1 = "rtl-worker";
    char* argv[] = {a0.data(), dedicated ? nullptr : a1.data(), nullptr};
    // The worker's environment names its parent, so a worker whose parent died before it
    // could ask for PR_SET_PDEATHSIG notices and exits (see worker_loop).
    std::vector<std::string> env_store;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "MAPWRIGHT_WORKER_PARENT=", 24) != 0) env_store.emplace_back(*e);
    env_store.push_back("MAPWRIGHT_WORKER_PARENT=" + std::to_string(getpid()));
    std::vector<char*> envp;
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, bin.c_str(), &fa, &at, argv, envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(to[0]);
    close(from[1]);
    if (rc != 0) {
      close(to[1]);
      close(from[0]);
      throw std::runtime_error("cannot start the RTL worker '" + bin + "': " + std::strerror(rc));
    }
    Worker w;
    w.pid = pid;
    w.to_fd = to[1];
    w.from_fd = from[0];
    w.arch = arch;
    return w;
  }

  static void stop(Worker& w, bool kill_it) {
    if (w.to_fd >= 0) close(w.to_fd);
    if (kill_it && w.pid > 0) kill(w.pid, SIGKILL);
    int status = 0;
    if (w.pid > 0) waitpid(w.pid, &status, 0);
    if (w.from_fd >= 0) close(w.from_fd);
    w.pid = w.to_fd = w.from_fd = -1;
  }

  bool send(Worker& w, size_t id, const RtlJob& job) {
    nlohmann::json req{{"id", id}, {"arch", job.arch}, {"probe", job.probe}};
    if (!job.probe) {
      req["layer"] = layer_to_json(job.layer);
      req["mapping"] = mapping_to_yaml(job.mapping);
      req["seed"] = job.seed;
      req["watchdog_cycles"] = job.watchdog_cycles;
      req["max_cycles"] = job.limits.max_cycles;
      req["max_seconds"] = job.limits.max_seconds;
      req["max_memory_mb"] = job.limits.max_memory_mb;
      if (!job.trace_file.empty()) req["trace_file"] = job.trace_file;
    }
    const std::string line = req.dump() + "\n";
    size_t off = 0;
    while (off < line.size()) {
      const ssize_t n = write(w.to_fd, line.data() + off, line.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      off += static_cast<size_t>(n);
    }
    w.busy = true;
    w.job = id;
    w.sent = Clock::now();
    w.max_seconds = job.probe ? 0 : job.limits.max_seconds;
    in_flight[id] = job;
    return true;
  }

  /// Milliseconds until the first busy worker's deadline (rounded up), or -1 if none has one.
  int ms_to_deadline() const {
    long long best = -1;
    const auto now = Clock::now();
    for (const auto& w : workers) {
      if (!w.busy || w.max_seconds <= 0) continue;
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_of(w) - now);
      const long long ms = std::max<long long>(0, left.count());
      if (best < 0 || ms < best) best = ms;
    }
    return static_cast<int>(std::min<long long>(best, 1 << 30));
  }

  /// Stops every job past its wall-clock limit: its worker is killed (SIGKILL) and reaped, and
  /// the job comes back as a typed limit result (not retried, not an infrastructure failure).
  void expire(std::vector<std::pair<size_t, RtlJobResult>>& done) {
    const auto now = Clock::now();
    for (size_t i = workers.size(); i-- > 0;) {
      Worker& w = workers[i];
      if (!w.busy || w.max_seconds <= 0 || now < deadline_of(w)) continue;
      RtlJobResult r;
      r.kind = RtlFailure::Limit;
      r.failure = rtl::wall_clock_failure(w.max_seconds);
      r.sim_seconds = std::chrono::duration<double>(now - w.sent).count();
      if (auto c = crash_retries.find(w.job); c != crash_retries.end()) {
        r.retries = c->second;
        crash_retries.erase(c);
      }
      done.emplace_back(w.job, std::move(r));
      in_flight.erase(w.job);
      stop(w, true);
      workers.erase(workers.begin() + static_cast<long>(i));
    }
  }

  void dispatch() {
    for (auto it = queue.begin(); it != queue.end();) {
      const std::string& arch = it->second.arch;
      Worker* target = nullptr;
      for (auto& w : workers)
        if (!w.busy && w.arch == arch) {
          target = &w;
          break;
        }
      if (!target && static_cast<int>(workers.size()) >= max_workers) {
        // Replace an idle worker of another architecture.
        for (size_t i = 0; i < workers.size(); ++i)
          if (!workers[i].busy) {
            stop(workers[i], false);
            workers.erase(workers.begin() + static_cast<long>(i));
            break;
          }
      }
      if (!target && static_cast<int>(workers.size()) < max_workers) {
        workers.push_back(spawn(arch));
        target = &workers.back();
      }
      if (!target) {
        ++it;
        continue;
      }
      if (!send(*target, it->first, it->second)) {
        // The worker died before taking the job: retire it and retry the job later.
        target->busy = false;
        in_flight.erase(it->first);
        stop(*target, true);
        workers.erase(workers.begin() + (target - workers.data()));
        continue;
      }
      it = queue.erase(it);
    }
  }
};

RtlWorkerPool::RtlWorkerPool(std::string exe, int max_workers) : impl_(std::make_unique<Impl>()) {
  impl_->exe = std::move(exe);
  impl_->max_workers = std::max(1, max_workers);
  signal(SIGPIPE, SIG_IGN);  // a dead worker is a typed failure, not the end of the parent
}

RtlWorkerPool::~RtlWorkerPool() {
  for (auto& w : impl_->workers) Impl::stop(w, w.busy);
}

void RtlWorkerPool::enable_model_cache(ModelCacheOptions options) {
  impl_->use_cache = true;
  impl_->cache = std::move(options);
}

ModelLookup RtlWorkerPool::model_of(const std::string& arch) const {
  const auto it = impl_->models.find(arch);
  return it == impl_->models.end() ? ModelLookup{} : it->second;
}

std::string RtlWorkerPool::check_arch(const std::string& arch) {
  if (impl_->use_cache && !impl_->models.count(arch)) {
    ModelParams want = model_params(load_arch(arch));
    want.traced = impl_->cache.traced;
    ModelLookup m = find_or_build_model(want, impl_->exe, impl_->cache);
    if (!m.ok()) return m.failure;
    impl_->models[arch] = m;
  }
  RtlJob probe;
  probe.arch = arch;
  probe.probe = true;
  const RtlJobResult r = run_one(std::move(probe));
  return r.kind == RtlFailure::None ? std::string() : r.failure;
}

RtlJobResult RtlWorkerPool::run_one(RtlJob job) {
  if (queued() > 0 || running() > 0)
    throw std::logic_error("RtlWorkerPool::run_one: other jobs are queued or running");
  const size_t id = submit(std::move(job));
  for (;;)
    for (auto& [got, r] : poll(-1))
      if (got == id) return r;
}

size_t RtlWorkerPool::submit(RtlJob job) {
  const size_t id = impl_->next_id++;
  impl_->queue.emplace_back(id, std::move(job));
  return id;
}

size_t RtlWorkerPool::queued() const {
  return impl_->queue.size();
}
size_t RtlWorkerPool::running() const {
  return impl_->in_flight.size();
}

size_t RtlWorkerPool::drop_queued() {
  const size_t n = impl_->queue.size();
  for (const auto& q : impl_->queue) impl_->crash_retries.erase(q.first);
  impl_->queue.clear();
  return n;
}

void RtlWorkerPool::kill_all() {
  impl_->killed = true;
  for (auto& w : impl_->workers)
    if (w.pid > 0) kill(w.pid, SIGKILL);
}

std::vector<std::pair<size_t, RtlJobResult>> RtlWorkerPool::poll(int timeout_ms) {
  Impl& im = *impl_;
  std::vector<std::pair<size_t, RtlJobResult>> done;
  im.dispatch();
  const auto t0 = std::chrono::steady_clock::now();
  while (true) {
    std::vector<pollfd> fds;
    std::vector<size_t> who;
    for (size_t i = 0; i < im.workers.size(); ++i)
      if (im.workers[i].busy) {
        fds.push_back({im.workers[i].from_fd, POLLIN, 0});
        who.push_back(i);
      }
    if (fds.empty()) break;
    int wait = timeout_ms;
    if (timeout_ms > 0) {
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - t0)
                             .count();
      wait = std::max<int>(0, timeout_ms - static_cast<int>(spent));
    }
    if (const int to_deadline = im.ms_to_deadline(); to_deadline >= 0)
      wait = wait < 0 ? to_deadline : std::min(wait, to_deadline);
    const int n = ::poll(fds.data(), fds.size(), wait);
    if (n < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    if (n < 0) break;  // a signal (Ctrl-C): let the caller look
    std::vector<size_t> dead;
    for (size_t f = 0; f < fds.size(); ++f) {
      if (!(fds[f].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = im.workers[who[f]];
      char buf[65536];
      const ssize_t got = read(w.from_fd, buf, sizeof buf);
      if (got > 0) {
        w.buffer.append(buf, static_cast<size_t>(got));
        size_t nl;
        while ((nl = w.buffer.find('\n')) != std::string::npos) {
          const std::string line = w.buffer.substr(0, nl);
          w.buffer.erase(0, nl + 1);
          RtlJobResult r;
          try {
            r = result_from_json(nlohmann::json::parse(line));
          } catch (const std::exception& e) {
            r.kind = RtlFailure::Worker;
            r.failure = std::string("worker: unreadable answer: ") + e.what();
          }
          if (auto c = im.crash_retries.find(w.job); c != im.crash_retries.end()) {
            r.retries = c->second;
            im.crash_retries.erase(c);
          }
          done.emplace_back(w.job, std::move(r));
          im.in_flight.erase(w.job);
          w.busy = false;
        }
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        dead.push_back(who[f]);
      }
    }
    std::sort(dead.rbegin(), dead.rend());
    for (size_t i : dead) {
      Worker& w = im.workers[i];
      close(w.to_fd);
      w.to_fd = -1;
      int status = 0;
      waitpid(w.pid, &status, 0);
      w.pid = -1;
      close(w.from_fd);
      w.from_fd = -1;
      if (w.busy) {
        const size_t id = w.job;
        const std::string what = "the RTL process " + describe_status(status) + " during the run";
        int& tries = im.crash_retries[id];
        if (!im.killed && tries < kMaxCrashRetries) {
          // A crash is not a verdict on the mapping: run the job again, first, on a fresh worker.
          ++tries;
          std::cerr << "mapwright: " << what << " of job " << id << "; running it again on a "
                    << "fresh worker (retry " << tries << " of " << kMaxCrashRetries << ")\n";
          im.queue.emplace_front(id, std::move(im.in_flight.at(id)));
        } else {
          RtlJobResult r;
          r.failure = "worker: " + what;
          if (tries > 0) r.failure += " (and on each of " + std::to_string(tries) + " retries)";
          r.kind = RtlFailure::Worker;
          r.retries = tries;
          done.emplace_back(id, std::move(r));
          im.crash_retries.erase(id);
        }
        im.in_flight.erase(id);
      }
      im.workers.erase(im.workers.begin() + static_cast<long>(i));
    }
    im.expire(done);
    im.dispatch();
    if (!done.empty() || timeout_ms == 0) break;
    if (timeout_ms > 0 &&
        std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(timeout_ms))
      break;
  }
  return done;
}

}  // namespace mapwright::rtlpool
