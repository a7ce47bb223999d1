// The evaluators of a layer search's samples. The surrogate scores every fresh sample with the
// analytical model. The RTL reward scores the samples of its warm-up the same way; after it,
// cheapest check first, every sample the surrogate accepts is simulated in the caller's RTL
// worker pool (a batch's runs in parallel) and its cost is the objective of the RTL metrics.
// Also the pool for the RTL reward, started after a probe that the architecture has a model.
#include "mapwright/flows/layer_search.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/text.hpp"
#include "mapwright/core/concurrency.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright::core;
using namespace mapwright::rtlpool;

namespace mapwright::flows {

namespace {

/// The search outcome of a sample scored by the surrogate.
search::Outcome surrogate_outcome(const Metrics& met, const Objective& objective) {
  search::Outcome oc;
  oc.valid = met.valid;
  oc.cost = met.valid ? objective.cost(met) : 0;
  oc.reason = met.valid ? "" : std::string(invalid_kind_name(met.invalid)) + ": " + met.reason;
  if (!met.valid) oc.failure_class = invalid_kind_name(met.invalid);
  return oc;
}

/// The search outcome of an RTL run: the objective of its metrics, or a typed failure "rtl: ...".
search::Outcome rtl_outcome(const RtlJobResult& r, const Objective& objective) {
  search::Outcome oc;
  if (r.kind != RtlFailure::None) {
    oc.reason = "rtl: " + r.failure;
    oc.failure_class = std::string("rtl:") + rtl_failure_name(r.kind);
  } else if (!r.functional_ok) {
    oc.failure_class = "rtl:mismatch";
    oc.reason = "rtl: functional mismatch: " + std::to_string(r.mismatches) +
                " output bytes differ from the C++ reference";
  } else {
    oc.cost = objective.cost(r.metrics);
    oc.valid = std::isfinite(oc.cost) && oc.cost > 0;
    if (!oc.valid) {
      oc.reason = "rtl: objective " + fmt_g(oc.cost) + " is not a positive number";
      oc.failure_class = "rtl:objective";
      oc.cost = 0;
    }
  }
  return oc;
}

/// Every sample on the analytical surrogate.
class SurrogateEvaluator final : public BatchEvaluator {
 public:
  SurrogateEvaluator(const Layer& layer, const Arch& arch, const Objective& objective)
      : layer_(layer), arch_(arch), objective_(objective) {}

  std::vector<Scored> evaluate(const std::vector<FreshSample>& batch) override {
    std::vector<Scored> out(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      out[i].surrogate = surrogate_.evaluate(layer_, arch_, *batch[i].mapping);
      out[i].outcome = surrogate_outcome(out[i].surrogate, objective_);
    }
    return out;
  }

  nlohmann::json reward_record(bool) override { return {{"source", "surrogate"}}; }

 private:
  const Layer& layer_;          ///< The layer searched.
  const Arch& arch_;            ///< Its architecture.
  const Objective& objective_;  ///< Cost of a sample's metrics.
  model::Surrogate surrogate_;  ///< The analytical model.
};

/// The surrogate during the warm-up, then the RTL for every sample the surrogate accepts.
class RtlRewardEvaluator final : public BatchEvaluator {
 public:
  RtlRewardEvaluator(const LayerSearchRequest& rq, const RtlRewardOptions& reward,
                     RtlWorkerPool& pool)
      : layer_(rq.layer),
        objective_(rq.objective),
        seed_(rq.seed),
        reward_(reward),
        arch_arg_(reward.arch.empty() ? rq.arch.name : reward.arch),
        pool_(pool),
        surrogate_(rq.layer, rq.arch, rq.objective) {}

  std::vector<Scored> evaluate(const std::vector<FreshSample>& batch) override {
    std::vector<Scored> out = surrogate_.evaluate(batch);
    std::map<size_t, size_t> item_of_job;  // RTL jobs still running: their item
    for (size_t i = 0; i < batch.size(); ++i)
      if (out[i].surrogate.valid && batch[i].sample >= reward_.surrogate_warmup)
        item_of_job[pool_.submit(job_of(batch[i]))] = i;
    std::vector<nlohmann::json> run_of(batch.size());  // RTL-scored items: the run's record
    const auto t0 = std::chrono::steady_clock::now();
    await(batch, item_of_job, out, run_of);
    rtl_wall_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (nlohmann::json& run : run_of)
      if (!run.is_null()) rtl_log_.push_back(std::move(run));
    return out;
  }

  /// The RTL reward's record; hands over the log of the RTL runs.
  nlohmann::json reward_record(bool best_from_rtl) override {
    return {{"source", "rtl"},
            {"arch", arch_arg_},
            {"surrogate_warmup", reward_.surrogate_warmup},
            {"jobs", reward_.jobs},
            {"rtl_samples", rtl_samples_},
            {"rtl_failures", rtl_failed_},
            {"rtl_sim_seconds", rtl_sim_seconds_},
            {"rtl_wall_seconds", rtl_wall_seconds_},
            {"watchdog_cycles", reward_.watchdog_cycles},
            {"operand_seed", kRtlOperandSeedRule},
            {"best_from_rtl", best_from_rtl},
            {"runs", std::move(rtl_log_)}};
  }

 private:
  /// The RTL run of sample `c`.
  RtlJob job_of(const FreshSample& c) const {
    RtlJob j;
    j.arch = arch_arg_;
    j.layer = layer_;
    j.mapping = *c.mapping;
    j.seed = rtl_operand_seed(seed_, c.sample);
    j.watchdog_cycles = reward_.watchdog_cycles;
    j.limits = reward_.limits;
    return j;
  }

  /// Waits for the batch's RTL runs (a job without a result once the pool is idle is a
  /// failure) and takes each result.
  void await(const std::vector<FreshSample>& batch, std::map<size_t, size_t>& item_of_job,
             std::vector<Scored>& out, std::vector<nlohmann::json>& run_of) {
    while (!item_of_job.empty()) {
      auto got = pool_.poll(-1);
      if (got.empty() && pool_.running() == 0 && pool_.queued() == 0) {
        for (const auto& [id, i] : item_of_job) {
          RtlJobResult lost;
          lost.failure = "worker: no result for job " + std::to_string(id);
          got.emplace_back(id, lost);
        }
      }
      for (auto& [id, r] : got) {
        const auto it = item_of_job.find(id);
        if (it == item_of_job.end()) continue;
        const size_t i = it->second;
        item_of_job.erase(it);
        run_of[i] = take(batch[i], r, out[i]);
      }
    }
  }

  /// Sample `c`'s RTL result: its outcome and metrics into `s`, and the run's record.
  nlohmann::json take(const FreshSample& c, const RtlJobResult& r, Scored& s) {
    s.outcome = rtl_outcome(r, objective_);
    ++rtl_samples_;
    rtl_failed_ += !s.outcome.valid;
    rtl_sim_seconds_ += r.sim_seconds;
    nlohmann::json e{{"sample", c.sample},
                     {"seed", rtl_operand_seed(seed_, c.sample)},
                     {"surrogate_cost", s.surrogate.valid ? objective_.cost(s.surrogate) : 0.0},
                     {"sim_seconds", r.sim_seconds}};
    if (s.outcome.valid) {
      e["cost"] = s.outcome.cost;
      e["cycles"] = r.metrics.cycles;
      e["energy_pj"] = r.metrics.energy_pj;
      s.rtl = r.metrics;
    } else {
      e["failure"] = s.outcome.reason;
    }
    return e;
  }

  const Layer& layer_;             ///< The layer searched.
  const Objective& objective_;     ///< Cost of a sample's metrics.
  const uint64_t seed_;            ///< The search's seed (the operand seeds derive from it).
  const RtlRewardOptions reward_;  ///< Warm-up, watchdog, limits.
  const std::string arch_arg_;     ///< Arch name or file for the workers.
  RtlWorkerPool& pool_;            ///< The caller's workers.
  SurrogateEvaluator surrogate_;   ///< The warm-up and the cheap check before the RTL.
  nlohmann::json rtl_log_ = nlohmann::json::array();   ///< One record per RTL run.
  int64_t rtl_samples_ = 0, rtl_failed_ = 0;           ///< RTL-scored samples, failures.
  double rtl_sim_seconds_ = 0, rtl_wall_seconds_ = 0;  ///< Simulated, and waited for.
};

}  // namespace

std::unique_ptr<RtlWorkerPool> rtl_reward_pool(const std::string& arch,
                                               const std::string& worker_exe, int jobs) {
  auto pool = std::make_unique<RtlWorkerPool>(worker_exe.empty() ? worker_executable() : worker_exe,
                                              jobs > 0 ? jobs : default_jobs());
  ModelCacheOptions cache;
  cache.progress = &std::cerr;
  pool->enable_model_cache(cache);
  if (const std::string why = pool->check_arch(arch); !why.empty())
    throw SpecError("--arch", "arch", arch, why + "; search it with --reward surrogate");
  return pool;
}

std::unique_ptr<BatchEvaluator> reward_evaluator(const LayerSearchRequest& request,
                                                 const RtlRewardOptions& reward,
                                                 RtlWorkerPool* pool) {
  if (!pool)
    return std::make_unique<SurrogateEvaluator>(request.layer, request.arch, request.objective);
  require_rtl_dram_port(request.arch, "--arch");
  if (request.searcher == "exact")
    throw SpecError("--reward", "reward", "rtl",
                    "the exact mapper optimizes the surrogate; use --reward surrogate");
  if (reward.surrogate_warmup < 0)
    throw SpecError("--surrogate-warmup", "surrogate-warmup",
                    std::to_string(reward.surrogate_warmup), "must be >= 0");
  return std::make_unique<RtlRewardEvaluator>(request, reward, *pool);
}

}  // namespace mapwright::flows
