#pragma once
/// \file study_exec.hpp
/// Runs a study's searcher runs: in a thread pool (longest first), or under mpirun handed out
/// by rank 0 to the other ranks one at a time. Every finished run is recorded in the trial log
/// as it finishes; Ctrl-C stops handing out runs, and the runs in flight end early (they are
/// not recorded, a resumed study repeats them).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mapwright/flows/layer_search.hpp"
#include "study/study_state.hpp"

namespace mapwright::flows {

/// How a session's runs went.
struct ExecOutcome {
  int threads = 1;          ///< Pool threads, or computing MPI ranks.
  bool stopped = false;     ///< Interrupted (Ctrl-C).
  double wall_seconds = 0;  ///< Wall time of the runs.
};

/// The seed of one searcher run, derived from (suite seed, layer index, searcher kind) so that
/// the runs of a study are independent and the same in every session, on every rank and with
/// every standard library: seed * 1000003 + layer * 101 + fnv1a_64(searcher) mod 97 (modulo
/// 2^64).
uint64_t study_run_seed(uint64_t seed, size_t layer, const std::string& searcher);

/// Runs searcher runs of one study.
class StudyExecutor {
 public:
  /// `jobs` are the planned runs (those `done` are skipped); `log` records each finished run
  /// (null on an MPI rank other than 0).
  StudyExecutor(const StudySetup& setup, std::vector<Job>& jobs, TrialLog* log);

  /// Runs the planned runs not finished yet; `from_log` of them finished in earlier sessions
  /// (for the progress line). A run that cannot be recorded (a full disk) or fails on a rank
  /// stops the study with a SpecError; the runs recorded so far are kept.
  ExecOutcome run(size_t from_log);
  /// A rank other than 0 under mpirun: runs the searcher runs rank 0 hands out and sends each
  /// back; writes nothing. Returns the exit code.
  int serve();

 private:
  /// The searchers' RTL reward (suite key reward: rtl): the RTL after the warm-up, one worker
  /// process per running search.
  RtlRewardOptions reward() const;
  /// One searcher run (in a pool thread); records it in the trial log when it finished.
  void run_job(Job& j, const std::function<bool()>& stopping);
  /// `run` under mpirun (rank 0): the runs `order` names, one at a time to whichever rank
  /// asks; `write_error` gets the first run that failed or could not be recorded.
  void run_jobs_mpi(const std::vector<size_t>& order, std::string& write_error);
  /// `run` in one process: the runs `order` names on a thread pool of `threads` threads.
  void run_jobs_pool(const std::vector<size_t>& order, int threads, size_t from_log);

  const StudySetup& setup_;  ///< The study.
  std::vector<Job>& jobs_;   ///< The planned runs.
  TrialLog* log_;            ///< The trial log (null: do not record).
  bool stopped_ = false;     ///< Interrupted (Ctrl-C).
};

}  // namespace mapwright::flows
