// The RTL worker pool's client: spawns worker processes with posix_spawn (mapwright-rtl-worker,
// or mapwright with the rtl-worker subcommand), feeds them jobs through pipes (protocol.hpp) and
// collects their answers with poll(). A job whose worker dies is run again on a fresh worker
// (at most kMaxCrashRetries times) before it comes back as an infrastructure failure; a job
// past its wall-clock limit (SimLimits::max_seconds) is stopped by killing its worker and
// comes back as a typed limit result. Nothing here simulates: the workers do (worker_loop.hpp).
#include "mapwright/rtlpool/rtl_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <stdexcept>

#include "mapwright/core/arch.hpp"
#include "mapwright/rtlpool/protocol.hpp"
#include "mapwright/support/spawn.hpp"

extern char** environ;

using namespace mapwright::core;

namespace mapwright::rtlpool {

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
    // The small worker binary takes no argument; mapwright itself needs the subcommand.
    const bool dedicated =
        bin.size() >= 20 && bin.substr(bin.size() - 20) == "mapwright-rtl-worker";
    // The worker's environment names its parent, so a worker whose parent died before it
    // could ask for PR_SET_PDEATHSIG notices and exits (see worker_loop).
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "MAPWRIGHT_WORKER_PARENT=", 24) != 0) env.emplace_back(*e);
    env.push_back("MAPWRIGHT_WORKER_PARENT=" + std::to_string(getpid()));
    core::SpawnSpec spec;
    spec.argv =
        dedicated ? std::vector<std::string>{bin} : std::vector<std::string>{bin, "rtl-worker"};
    spec.search_path = false;
    spec.stdin_fd = to[0];
    spec.stdout_fd = from[1];
    spec.stderr_fd = core::kInheritFd;
    // Own process group: a terminal Ctrl-C goes to the parent only.
    spec.own_process_group = true;
    spec.env = &env;
    int rc = 0;
    const pid_t pid = core::spawn_process(spec, rc);
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
    if (!write_line(w.to_fd, job_to_json(id, job))) return false;
    w.busy = true;
    w.job = id;
    w.sent = Clock::now();
    w.max_seconds = job.probe ? 0 : job.limits.max_seconds;
    in_flight[id] = job;
    return true;
  }

  /// Job `id` is over with result `r`: it takes the job's crash retries and goes to `done`.
  void finish(size_t id, RtlJobResult r, std::vector<std::pair<size_t, RtlJobResult>>& done) {
    if (auto c = crash_retries.find(id); c != crash_retries.end()) {
      r.retries = c->second;
      crash_retries.erase(c);
    }
    done.emplace_back(id, std::move(r));
    in_flight.erase(id);
  }

  /// How long poll() may wait now: what is left of `timeout_ms` since `t0` (0 = do not wait,
  /// -1 = no limit), and no longer than the first job's wall-clock deadline.
  int wait_ms(int timeout_ms, Clock::time_point t0) const {
    int wait = timeout_ms;
    if (timeout_ms > 0) {
      const auto spent =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
      wait = std::max<int>(0, timeout_ms - static_cast<int>(spent));
    }
    if (const int to_deadline = ms_to_deadline(); to_deadline >= 0)
      wait = wait < 0 ? to_deadline : std::min(wait, to_deadline);
    return wait;
  }

  /// Reads what the busy workers `who` (their pipes polled in `fds`) wrote: every complete
  /// answer line finishes its job (an unreadable one as an infrastructure failure). Returns the
  /// workers whose pipe closed or failed.
  std::vector<size_t> read_results(const std::vector<pollfd>& fds, const std::vector<size_t>& who,
                                   std::vector<std::pair<size_t, RtlJobResult>>& done) {
    std::vector<size_t> dead;
    for (size_t f = 0; f < fds.size(); ++f) {
      if (!(fds[f].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = workers[who[f]];
      char buf[65536];
      const ssize_t got = read(w.from_fd, buf, sizeof buf);
      if (got <= 0) {
        if (got == 0 || (errno != EINTR && errno != EAGAIN)) dead.push_back(who[f]);
        continue;
      }
      w.buffer.append(buf, static_cast<size_t>(got));
      for (size_t nl; (nl = w.buffer.find('\n')) != std::string::npos;) {
        const std::string line = w.buffer.substr(0, nl);
        w.buffer.erase(0, nl + 1);
        RtlJobResult r;
        try {
          r = result_from_json(nlohmann::json::parse(line));
        } catch (const std::exception& e) {
          r.kind = RtlFailure::Worker;
          r.failure = std::string("worker: unreadable answer: ") + e.what();
        }
        finish(w.job, std::move(r), done);
        w.busy = false;
      }
    }
    return dead;
  }

  /// Reaps the workers `dead` (indices in `workers`) and removes them. The job of one that died
  /// busy runs again first, on a fresh worker, unless it has used its retries (or kill_all
  /// ran): then it comes back as an infrastructure failure.
  void reap_dead(std::vector<size_t> dead, std::vector<std::pair<size_t, RtlJobResult>>& done) {
    std::sort(dead.rbegin(), dead.rend());
    for (size_t i : dead) {
      Worker& w = workers[i];
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
        int& tries = crash_retries[id];
        if (!killed && tries < kMaxCrashRetries) {
          // A crash is not a verdict on the mapping: run the job again, first, on a fresh worker.
          ++tries;
          std::cerr << "mapwright: " << what << " of job " << id << "; running it again on a "
                    << "fresh worker (retry " << tries << " of " << kMaxCrashRetries << ")\n";
          queue.emplace_front(id, std::move(in_flight.at(id)));
          in_flight.erase(id);
        } else {
          RtlJobResult r;
          r.failure = "worker: " + what;
          if (tries > 0) r.failure += " (and on each of " + std::to_string(tries) + " retries)";
          r.kind = RtlFailure::Worker;
          finish(id, std::move(r), done);
        }
      }
      workers.erase(workers.begin() + static_cast<long>(i));
    }
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
      finish(w.job, std::move(r), done);
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
  const auto t0 = Clock::now();
  while (true) {
    std::vector<pollfd> fds;
    std::vector<size_t> who;
    for (size_t i = 0; i < im.workers.size(); ++i)
      if (im.workers[i].busy) {
        fds.push_back({im.workers[i].from_fd, POLLIN, 0});
        who.push_back(i);
      }
    if (fds.empty()) break;
    const int n = ::poll(fds.data(), fds.size(), im.wait_ms(timeout_ms, t0));
    if (n < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    if (n < 0) break;  // a signal (Ctrl-C): let the caller look
    im.reap_dead(im.read_results(fds, who, done), done);
    im.expire(done);
    im.dispatch();
    if (!done.empty() || timeout_ms == 0) break;
    if (timeout_ms > 0 && Clock::now() - t0 >= std::chrono::milliseconds(timeout_ms)) break;
  }
  return done;
}

}  // namespace mapwright::rtlpool
