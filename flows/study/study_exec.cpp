// Execution of a study's searcher runs. In one process the runs not finished yet go to a thread
// pool, longest first, with a progress line on a terminal; under mpirun rank 0 hands them out
// one at a time to whichever rank asks and records each as it comes back, while the other
// ranks serve. Every run's seed comes from its (seed, layer, searcher), so the study is the
// same however it is executed. A run is recorded in the trial log as soon as it finishes.
#include "study/study_exec.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>

#include "common/signals.hpp"
#include "mapwright/core/concurrency.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/dist.hpp"

using namespace mapwright::core;

namespace mapwright::flows {

uint64_t study_run_seed(uint64_t seed, size_t layer, const std::string& searcher) {
  return seed * 1000003ULL + layer * 101ULL + fnv1a_64(searcher) % 97;
}

StudyExecutor::StudyExecutor(const StudySetup& setup, std::vector<Job>& jobs, TrialLog* log)
    : setup_(setup), jobs_(jobs), log_(log) {}

RtlRewardOptions StudyExecutor::reward() const {
  RtlRewardOptions r;
  r.surrogate_warmup = setup_.suite.surrogate_warmup;
  r.jobs = 1;
  r.arch = setup_.suite.arch;
  return r;
}

void StudyExecutor::run_job(Job& j, const std::function<bool()>& stopping) {
  const auto s = std::chrono::steady_clock::now();
  // Each run gets a seed derived from (seed, layer, searcher) so runs are independent.
  const uint64_t seed = study_run_seed(j.seed, j.layer, j.searcher);
  const LayerSearchRequest rq{setup_.layers[j.layer],
                              setup_.arch,
                              j.searcher,
                              setup_.search,
                              seed,
                              j.budget,
                              setup_.objective,
                              {},
                              encoding_from_name(setup_.suite.encoding),
                              setup_.suite.surrogate_prior};
  const auto pool = setup_.suite.rtl_reward
                        ? rtl_reward_pool(setup_.suite.arch, setup_.options.worker_exe, 1)
                        : nullptr;
  LayerSearch ls = search_layer(rq, *reward_evaluator(rq, reward(), pool.get()),
                                {[&](const search::SearchProgress&) { return !stopping(); }, {}});
  j.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count();
  j.curve = std::move(ls.result.best_so_far);
  // A run that used up what its searcher can propose keeps its best for the rest of the
  // budget (it cannot find anything new). The exact mapper has one answer, held from its
  // first "sample" on.
  if ((ls.result.exhausted || j.searcher == "exact") && !j.curve.empty())
    j.curve.resize(static_cast<size_t>(j.budget), j.curve.back());
  j.samples = ls.result.samples;
  j.duplicates = ls.result.duplicates;
  j.invalid = ls.result.invalid;
  j.rtl_samples = ls.reward.value("rtl_samples", int64_t{0});
  j.best = ls.result.found ? ls.result.best_cost : std::numeric_limits<double>::infinity();
  j.done = !ls.result.stopped_early;
  if (j.done && log_) log_->append(j);  // an MPI rank other than 0 has no log: rank 0 records
}

int StudyExecutor::serve() {
  const InterruptSignals signals(true);
  const std::function<bool()> stopping = [] { return InterruptSignals::count() > 0; };
  return dist::serve([&](const nlohmann::json& m) -> nlohmann::json {
    Job j;
    static_cast<Trial&>(j) = trial_from_json(m["trial"], "rank 0");
    std::string failure;
    try {
      run_job(j, stopping);
    } catch (const std::exception& e) {
      failure = "rank " + std::to_string(dist::rank()) + ": " + e.what();
    }
    return {
        {"index", m["index"]}, {"trial", trial_to_json(j)}, {"done", j.done}, {"failure", failure}};
  });
}

// One searcher run at a time to whichever rank asks, each recorded in the trial log as it comes
// back; Ctrl-C stops handing out. The runs' seeds come from the jobs, so the study equals a
// one-process study.
void StudyExecutor::run_jobs_mpi(const std::vector<size_t>& order, std::string& write_error) {
  const InterruptSignals signals(true);
  size_t next = 0;
  int active = dist::size() - 1;
  while (active > 0) {
    int from = 0;
    dist::Tag tag{};
    const nlohmann::json m = dist::receive(from, tag);
    if (tag == dist::Tag::Result) {
      Job& j = jobs_[m["index"].get<size_t>()];
      static_cast<Trial&>(j) = trial_from_json(m["trial"], "rank " + std::to_string(from));
      j.done = m["done"].get<bool>() && m["failure"].get<std::string>().empty();
      if (!m["failure"].get<std::string>().empty() && write_error.empty())
        write_error = m["failure"].get<std::string>();
      try {
        if (j.done) log_->append(j);
      } catch (const std::exception& e) {
        if (write_error.empty()) write_error = e.what();
      }
    }
    if (next < order.size() && write_error.empty() && InterruptSignals::count() == 0) {
      const size_t idx = order[next++];
      dist::send(from, dist::Tag::Work, {{"index", idx}, {"trial", trial_to_json(jobs_[idx])}});
    } else {
      dist::send(from, dist::Tag::Stop, nlohmann::json::object());
      --active;
    }
  }
  stopped_ = InterruptSignals::count() > 0;
}

void StudyExecutor::run_jobs_pool(const std::vector<size_t>& order, int threads, size_t from_log) {
  const bool tty = isatty(STDERR_FILENO);
  std::atomic<size_t> finished{from_log};
  std::mutex io;
  std::string write_error;  // the first failure to record a run (a full disk): stops the study
  std::atomic<bool> write_failed{false};  // stops the runs still waiting
  std::optional<InterruptSignals> signals(std::in_place);
  const std::function<bool()> stopping = [&] {
    return write_failed || InterruptSignals::count() > 0;
  };
  {
    boost::asio::thread_pool pool(static_cast<size_t>(threads));
    for (size_t idx : order) {
      boost::asio::post(pool, [&, idx] {
        if (stopping()) return;
        try {
          run_job(jobs_[idx], stopping);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(io);
          if (write_error.empty()) write_error = e.what();
          write_failed = true;
          return;
        }
        const size_t f = ++finished;
        if (tty) {
          std::lock_guard<std::mutex> lock(io);
          std::cerr << "\rstudy " << setup_.suite.name << ": " << f << "/" << jobs_.size()
                    << " runs   " << std::flush;
        }
      });
    }
    pool.join();
  }
  stopped_ = stopping();
  signals.reset();
  if (!write_error.empty())
    throw SpecError(setup_.dir.string(), "(trials)", "",
                    "cannot record a finished run (" + write_error +
                        "); the runs recorded so far are kept: free space and continue with "
                        "`mapwright study --resume`");
  if (tty) std::cerr << "\r" << std::string(60, ' ') << "\r";
}

ExecOutcome StudyExecutor::run(size_t from_log) {
  std::vector<size_t> order;
  for (size_t i = 0; i < jobs_.size(); ++i)
    if (!jobs_[i].done) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return jobs_[a].budget > jobs_[b].budget; });
  ExecOutcome out;
  const auto t0 = std::chrono::steady_clock::now();
  if (dist::size() > 1) {
    out.threads = dist::size() - 1;
    std::string write_error;  // the first run that failed or could not be recorded
    run_jobs_mpi(order, write_error);
    if (!write_error.empty())
      throw SpecError(setup_.dir.string(), "(trials)", "",
                      "a run failed or could not be recorded (" + write_error +
                          "); the runs recorded so far are kept: continue with `mapwright "
                          "study --resume`");
  } else {
    const int jobs = setup_.options.jobs;
    out.threads = jobs > 0 ? jobs : default_jobs();
    run_jobs_pool(order, out.threads, from_log);
  }
  out.stopped = stopped_;
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace mapwright::flows
