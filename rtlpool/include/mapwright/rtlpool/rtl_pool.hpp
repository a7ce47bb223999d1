#pragma once
/// \file rtl_pool.hpp
/// RTL runs in worker processes: the pool (the client side). SystemC allows one simulation per
/// process and one Verilated architecture per simulation, so every RTL run of a flow goes to a
/// child process (`mapwright-rtl-worker`, or the hidden `mapwright rtl-worker`; see
/// worker_loop.hpp) that keeps its simulation across jobs of the same architecture. The pool
/// spawns at most `max_workers` children (posix_spawn, one pipe each way, one JSON object per
/// line: protocol.hpp), dispatches queued jobs to idle workers of the job's architecture
/// (replacing an idle worker of another architecture when the pool is full), and runs the job
/// of a crashed worker again on a fresh worker (at most `RtlWorkerPool::kMaxCrashRetries` times)
/// before it reports a typed infrastructure failure: a crash is not a verdict on the mapping. A
/// job still running `SimLimits::max_seconds` after it was sent is stopped by killing its
/// worker; it comes back as a typed limit result (`over_limit`), neither retried nor an
/// infrastructure failure. Workers run in their own process group, so a Ctrl-C on the terminal
/// reaches only the parent, which can let the runs in flight finish.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/rtlpool/model_cache.hpp"
#include "mapwright/rtlpool/rtl_job.hpp"
#include "mapwright/rtlpool/sim_limits.hpp"

namespace mapwright::rtlpool {

/// The path of the running executable (for spawning workers): env MAPWRIGHT_EXE if set, else
/// /proc/self/exe.
std::string self_executable();
/// The binary to spawn as a worker: `mapwright-rtl-worker` beside this executable when present
/// (it starts fast: no LibTorch), else this executable (with the rtl-worker subcommand).
std::string worker_executable();

class RtlWorkerPool {
 public:
  /// A job whose worker process dies is run again on a fresh worker at most this many times.
  static constexpr int kMaxCrashRetries = 2;

  /// `exe` is mapwright-rtl-worker, or a mapwright binary (run with the rtl-worker
  /// subcommand); `max_workers` >= 1.
  RtlWorkerPool(std::string exe, int max_workers);
  ~RtlWorkerPool();  ///< Closes the workers' input and waits for them.
  RtlWorkerPool(const RtlWorkerPool&) = delete;
  RtlWorkerPool& operator=(const RtlWorkerPool&) = delete;

  /// The cheap pre-check before any RTL work: whether `arch` (a name or YAML file, as RtlJob::arch)
  /// has a compiled RTL model this pool's workers can run. Runs one probe job (a worker starts,
  /// elaborates the model and reads its parameters; nothing is simulated) and waits for it.
  /// Returns "" when it has, else the reason (naming the architectures that have one). Call it
  /// before submitting jobs.
  ///
  /// With the model cache enabled (enable_model_cache), an architecture whose RTL parameters no
  /// compiled-in model has gets its model from the cache, built first when absent (minutes, with
  /// progress lines); its workers then run that executable. A model that cannot be built is
  /// the returned reason (the parameters the RTL refuses, or the build's failure and log).
  std::string check_arch(const std::string& arch);
  /// Serves architectures without a compiled-in model from the RTL model cache (check_arch).
  void enable_model_cache(ModelCacheOptions options);
  /// The model check_arch found for `arch` (empty `exe` when check_arch did not look it up).
  ModelLookup model_of(const std::string& arch) const;
  /// Queues a job; returns its id (0, 1, 2, ... in submission order).
  size_t submit(RtlJob job);
  /// Runs one job and waits for its result. Only for a pool with no other job queued or
  /// running (their results would have nowhere to go); throws std::logic_error otherwise.
  RtlJobResult run_one(RtlJob job);
  /// Starts queued jobs on idle workers, then waits up to `timeout_ms` (0 = do not wait,
  /// -1 = until at least one result arrives or nothing is in flight) and returns the results
  /// that arrived, as (id, result).
  std::vector<std::pair<size_t, RtlJobResult>> poll(int timeout_ms);
  /// Jobs queued but not started.
  size_t queued() const;
  /// Jobs running in a worker.
  size_t running() const;
  /// Drops the jobs not started yet (after Ctrl-C); returns how many.
  size_t drop_queued();
  /// Kills every worker (a second Ctrl-C); their jobs come back as infrastructure failures
  /// ("worker: the RTL process killed by signal 9 ...") and are not retried.
  void kill_all();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;  ///< Workers, queue, buffers.
};

}  // namespace mapwright::rtlpool
