// The search flow: builds the abstract search problem from a layer's map space, lets a
// searcher spend its budget on the surrogate, and records everything (seed, options, clusters,
// best mapping, metrics, best-so-far curve) in a run folder.
#include "mapwright/flows/search_flow.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "mapwright/core/concurrency.hpp"
#include "mapwright/core/error.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/mapspace.hpp"
#include "mapwright/core/search_space.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/mapper/mapper.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/search/searcher.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "common/text.hpp"
#include "common/files.hpp"
#include "common/signals.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using namespace mapwright::rtlpool;

namespace mapwright::flows {

namespace {

/// The searchers' view of a space (MapSpace or SearchSpace): its parameters and domains.
template <class Space>
search::Problem problem_of(const Space& space) {
  search::Problem p;
  for (const auto& pi : space.params()) p.params.push_back({pi.name, pi.cardinality, pi.ordinal});
  return p;
}

struct LayerRun {
  Layer layer;
  int count = 1;
  search::SearchResult result;
  Mapping best;
  Metrics metrics;
  nlohmann::json searcher;
  nlohmann::json exact;    ///< The exact mapper's bound, gap and effort (null otherwise).
  nlohmann::json optimum;  ///< Sampling searchers: the exact mapper's answer to compare with.
  nlohmann::json reward;   ///< Where the samples' costs came from (see LayerSearch::reward).
};

/// Identity of a mapping for the evaluation cache: dataflow, tiles, order, fold order, PE use
/// and double buffering.
using MappingKey = std::array<long long, 16>;
MappingKey mapping_key(const Mapping& m) {
  MappingKey k{};
  k[0] = static_cast<int>(m.dataflow);
  for (int d = 0; d < kNumDims; ++d) k[1 + d] = m.tile[d];
  k[9] = order_to_index(m.order);
  k[10] = static_cast<int>(m.fold_order);
  k[11] = m.pe_rows;
  k[12] = m.pe_cols;
  k[13] = m.db_input;
  k[14] = m.db_weight;
  k[15] = m.db_accum;
  return k;
}

/// The exact mapper as a search: the answer, its proven bound and gap, and the K best
/// distinct mappings it evaluated (handed to `observe` in rank order, as samples 0..K-1).
LayerSearch exact_layer(const Layer& layer, const Arch& arch, uint64_t seed,
                        const Objective& objective,
                        const std::function<void(const SampleSeen&)>& observe,
                        const ExactOptions& exact) {
  mapper::Options mo;
  mo.objective = objective;
  mo.time_limit_s = exact.time_limit_s;
  mo.target_gap = exact.gap;
  mo.threads = exact.threads;
  mo.keep = std::max(1, exact.top_k);
  const mapper::Result r = mapper::solve(layer, arch, mo);
  LayerSearch ls;
  ls.result.found = r.found;
  ls.result.samples = r.evaluations;
  ls.result.valid = r.evaluations;
  if (r.found) {
    ls.result.best_cost = r.best_cost;
    ls.result.best_sample = 0;
    ls.result.best_so_far = {r.best_cost};
    ls.best = r.best;
    ls.metrics = r.metrics;
  }
  ls.searcher = {{"kind", "exact"},
                 {"seed", seed},
                 {"time_limit_s", exact.time_limit_s},
                 {"target_gap", exact.gap},
                 {"threads", exact.threads},
                 {"objective", objective.name}};
  ls.exact = {{"lower_bound", r.lower_bound},
              {"gap", r.found ? nlohmann::json(r.gap) : nlohmann::json()},
              {"optimal", r.optimal},
              {"stop", mapper::stop_reason_name(r.stop)},
              {"nodes", r.nodes},
              {"evaluations", r.evaluations},
              {"pruned_bound", r.pruned_bound},
              {"pruned_capacity", r.pruned_capacity},
              {"pruned_dominance", r.pruned_dominance},
              {"seconds", r.seconds}};
  if (observe) {
    for (size_t i = 0; i < r.top.size(); ++i) {
      const search::Point pt;
      const auto& [m, met] = r.top[i];
      search::Outcome oc;
      oc.valid = true;
      oc.cost = objective.cost(met);
      observe(SampleSeen{static_cast<int64_t>(i), &pt, &m, &met, &oc, nullptr});
    }
  }
  return ls;
}

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

/// A pool of RTL workers for `arch_arg`, after a probe job proved that the architecture has an
/// RTL model, compiled in or from the model cache (built now when absent); else a SpecError
/// naming --arch: a usage error, not a result.
std::unique_ptr<RtlWorkerPool> rtl_pool_for(const std::string& arch_arg, const std::string& exe,
                                            int jobs) {
  const int n = jobs > 0 ? jobs : default_jobs();
  auto pool = std::make_unique<RtlWorkerPool>(exe.empty() ? worker_executable() : exe, n);
  ModelCacheOptions cache;
  cache.progress = &std::cerr;
  pool->enable_model_cache(cache);
  if (const std::string why = pool->check_arch(arch_arg); !why.empty())
    throw SpecError("--arch", "arch", arch_arg, why + "; search it with --reward surrogate");
  return pool;
}

/// True when a layer's reward record says its best cost was measured on the RTL.
bool best_from_rtl(const nlohmann::json& reward) {
  return reward.is_object() && reward.value("best_from_rtl", false);
}

}  // namespace

search::SearchOptions load_options_or_default(const std::string& file) {
  // load_search_options' std::invalid_argument already reads "<file>: key '<k>' = '<v>': why".
  const std::string f = file.empty() ? configs_dir() + "/search/default.yaml" : file;
  return search::load_search_options(f);
}

const char* encoding_name(Encoding e) {
  return e == Encoding::Raw ? "raw" : "compact";
}

namespace {

/// The space a sampling searcher searches, in the chosen encoding. Compact: the
/// feasibility-respecting SearchSpace (every decoded point fits; overflowing points are repaired
/// and counted). Raw: the full MapSpace (invalid points are failures).
class LayerSpace {
 public:
  LayerSpace(const Layer& layer, const Arch& arch, Encoding encoding)
      : compact_(encoding == Encoding::Compact) {
    if (compact_)
      cspace_ = std::make_unique<SearchSpace>(layer, arch);
    else
      raw_ = std::make_unique<MapSpace>(layer, arch);
  }
  /// The searchers' view: parameters and domains.
  search::Problem problem() const { return compact_ ? problem_of(*cspace_) : problem_of(*raw_); }
  /// The mapping of point `p`; `*repaired` (when given) tells whether the decode repaired it.
  Mapping decode(const search::Point& p, bool* repaired) const {
    const ParamVector v(p.begin(), p.end());
    if (compact_) return cspace_->decode(v, repaired);
    if (repaired) *repaired = false;
    return raw_->decode(v);
  }
  /// log10 of the number of points.
  double log10_size() const { return compact_ ? cspace_->log10_size() : raw_->log10_size(); }

 private:
  bool compact_;                         ///< Compact (cspace_) or raw (raw_).
  std::unique_ptr<MapSpace> raw_;        ///< Raw encoding.
  std::unique_ptr<SearchSpace> cspace_;  ///< Compact encoding.
};

/// What a sampling search of one layer scores with: the layer, its space, the objective, the
/// reward's source and, for the RTL reward, the worker pool and the architecture it runs.
struct ScoringSetup {
  const Layer& layer;                                     ///< The layer searched.
  const Arch& arch;                                       ///< Its architecture.
  const LayerSpace& space;                                ///< The space the searcher searches.
  const Objective& objective;                             ///< Cost of a sample's metrics.
  uint64_t seed = 0;                                      ///< Search seed (RTL operand seeds).
  const RewardOptions& reward;                            ///< Surrogate or RTL, warm-up, limits.
  std::string arch_arg;                                   ///< RTL: arch name or file for workers.
  RtlWorkerPool* pool = nullptr;                          ///< RTL reward: the workers (else null).
  const std::function<void(const SampleSeen&)>& observe;  ///< Sees every fresh sample.
};

/// Scores a sampling searcher's batches. Two points that decode to one mapping (the compact
/// encoding's repair can map several points onto one) are evaluated once; the second is a
/// repeat, which run_search does not charge to the budget. Fresh mappings are scored on the
/// surrogate; with the RTL reward, those past the warm-up that the surrogate accepts run on the
/// RTL (a batch's runs in parallel in the workers). Every fresh sample is reported to `observe`
/// in sample order.
class BatchScorer {
 public:
  explicit BatchScorer(const ScoringSetup& setup) : s_(setup) {}

  /// The outcomes of one batch, in the batch's order.
  std::vector<search::Outcome> evaluate(const std::vector<search::Point>& pts) {
    Batch b(pts.size());
    score_on_surrogate(pts, b);
    const auto t0 = std::chrono::steady_clock::now();
    await_rtl(b);
    if (s_.pool)
      rtl_wall_seconds_ +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    record(pts, b);
    return std::move(b.outs);
  }

  /// Distinct samples whose decode was repaired.
  int64_t repaired() const { return repaired_; }

  /// The metrics of the best mapping `m`: the RTL's when it was RTL-scored (`*from_rtl` true),
  /// else the surrogate's.
  Metrics best_metrics(const Mapping& m, bool* from_rtl) {
    const auto it = rtl_metrics_.find(mapping_key(m));
    *from_rtl = it != rtl_metrics_.end();
    return *from_rtl ? it->second : surrogate_.evaluate(s_.layer, s_.arch, m);
  }

  /// The RTL reward's record (see LayerSearch::reward) after the search; hands over the log of
  /// the RTL runs, so it is called once.
  nlohmann::json rtl_reward_record(bool best_from_rtl) {
    const RewardOptions& reward = s_.reward;
    nlohmann::json w = {{"source", "rtl"}};
    w["arch"] = s_.arch_arg;
    w["surrogate_warmup"] = reward.surrogate_warmup;
    w["jobs"] = reward.jobs;
    w["rtl_samples"] = rtl_samples_;
    w["rtl_failures"] = rtl_failed_;
    w["rtl_sim_seconds"] = rtl_sim_seconds_;
    w["rtl_wall_seconds"] = rtl_wall_seconds_;
    w["watchdog_cycles"] = reward.watchdog_cycles;
    w["operand_seed"] = kRtlOperandSeedRule;
    w["best_from_rtl"] = best_from_rtl;
    w["runs"] = std::move(rtl_log_);
    return w;
  }

 private:
  /// The state of one batch, item by item.
  struct Batch {
    explicit Batch(size_t n)
        : outs(n),
          maps(n),
          sur(n),
          rtl_met(n),
          sample_of(n, -1),
          same_as(n, SIZE_MAX),
          on_rtl(n, 0),
          run_of(n) {}
    std::vector<search::Outcome> outs;      ///< What the searcher is told.
    std::vector<Mapping> maps;              ///< Decoded mappings.
    std::vector<Metrics> sur, rtl_met;      ///< Surrogate and RTL metrics.
    std::vector<int64_t> sample_of;         ///< Fresh mappings: their sample index.
    std::vector<size_t> same_as;            ///< Repeats inside the batch: the first item.
    std::vector<char> on_rtl;               ///< Scored on the RTL.
    std::vector<nlohmann::json> run_of;     ///< RTL-scored items: the run's record.
    std::map<MappingKey, size_t> in_batch;  ///< First item of each mapping in the batch.
    std::map<size_t, size_t> item_of_job;   ///< RTL jobs still running: their item.
  };

  /// First pass: decode, answer repeats, score on the surrogate, queue the RTL runs.
  void score_on_surrogate(const std::vector<search::Point>& pts, Batch& b) {
    for (size_t i = 0; i < pts.size(); ++i) {
      bool rep = false;
      b.maps[i] = s_.space.decode(pts[i], &rep);
      const MappingKey key = mapping_key(b.maps[i]);
      if (const auto it = by_mapping_.find(key); it != by_mapping_.end()) {
        b.outs[i] = it->second;
        b.outs[i].repeat = true;
        continue;
      }
      if (const auto [it, first] = b.in_batch.emplace(key, i); !first) {
        b.same_as[i] = it->second;
        continue;
      }
      repaired_ += rep;
      b.sample_of[i] = sample_++;
      b.sur[i] = surrogate_.evaluate(s_.layer, s_.arch, b.maps[i]);
      b.outs[i] = surrogate_outcome(b.sur[i], s_.objective);
      // Cheapest check first: only mappings the surrogate accepts go to the RTL.
      if (s_.pool && b.sur[i].valid && b.sample_of[i] >= s_.reward.surrogate_warmup)
        submit_rtl(b, i);
    }
  }

  void submit_rtl(Batch& b, size_t i) {
    RtlJob j;
    j.arch = s_.arch_arg;
    j.layer = s_.layer;
    j.mapping = b.maps[i];
    j.seed = rtl_operand_seed(s_.seed, b.sample_of[i]);
    j.watchdog_cycles = s_.reward.watchdog_cycles;
    j.limits = s_.reward.limits;
    b.item_of_job[s_.pool->submit(std::move(j))] = i;
    b.on_rtl[i] = 1;
  }

  /// Second pass: waits for the whole batch's RTL runs (a job without a result once the pool
  /// is idle is a failure).
  void await_rtl(Batch& b) {
    while (!b.item_of_job.empty()) {
      auto got = s_.pool->poll(-1);
      if (got.empty() && s_.pool->running() == 0 && s_.pool->queued() == 0) {
        for (const auto& [id, i] : b.item_of_job) {
          RtlJobResult lost;
          lost.failure = "worker: no result for job " + std::to_string(id);
          got.emplace_back(id, lost);
        }
      }
      for (auto& [id, r] : got) {
        const auto it = b.item_of_job.find(id);
        if (it == b.item_of_job.end()) continue;
        const size_t i = it->second;
        b.item_of_job.erase(it);
        take_rtl_result(b, i, r);
      }
    }
  }

  /// Item `i`'s RTL result: its outcome, its metrics and the run's record.
  void take_rtl_result(Batch& b, size_t i, const RtlJobResult& r) {
    b.outs[i] = rtl_outcome(r, s_.objective);
    b.rtl_met[i] = r.metrics;
    ++rtl_samples_;
    rtl_failed_ += !b.outs[i].valid;
    rtl_sim_seconds_ += r.sim_seconds;
    nlohmann::json e{{"sample", b.sample_of[i]},
                     {"seed", rtl_operand_seed(s_.seed, b.sample_of[i])},
                     {"surrogate_cost", b.sur[i].valid ? s_.objective.cost(b.sur[i]) : 0.0},
                     {"sim_seconds", r.sim_seconds}};
    if (b.outs[i].valid) {
      e["cost"] = b.outs[i].cost;
      e["cycles"] = r.metrics.cycles;
      e["energy_pj"] = r.metrics.energy_pj;
      rtl_metrics_[mapping_key(b.maps[i])] = r.metrics;
    } else {
      e["failure"] = b.outs[i].reason;
    }
    b.run_of[i] = std::move(e);
  }

  /// Third pass: records and reports in sample order; repeats inside the batch copy the first.
  void record(const std::vector<search::Point>& pts, Batch& b) {
    for (size_t i = 0; i < pts.size(); ++i) {
      if (b.sample_of[i] >= 0) {
        by_mapping_[mapping_key(b.maps[i])] = b.outs[i];
        if (b.on_rtl[i]) rtl_log_.push_back(std::move(b.run_of[i]));
        if (s_.observe)
          s_.observe(SampleSeen{b.sample_of[i], &pts[i], &b.maps[i], &b.sur[i], &b.outs[i],
                                b.on_rtl[i] && b.outs[i].valid ? &b.rtl_met[i] : nullptr});
      } else if (b.same_as[i] != SIZE_MAX) {
        b.outs[i] = b.outs[b.same_as[i]];
        b.outs[i].repeat = true;
      }
    }
  }

  const ScoringSetup& s_;       ///< What is scored, and how.
  model::Surrogate surrogate_;  ///< The analytical model.
  int64_t sample_ = 0;          ///< Next sample index (distinct mappings so far).
  int64_t repaired_ = 0;        ///< Distinct samples whose decode was repaired.
  /// Outcomes by decoded mapping (repeats are answered from here).
  std::map<MappingKey, search::Outcome> by_mapping_;
  /// RTL reward: the RTL metrics of every RTL-scored mapping, and the record of each run.
  std::map<MappingKey, Metrics> rtl_metrics_;
  nlohmann::json rtl_log_ = nlohmann::json::array();
  int64_t rtl_samples_ = 0, rtl_failed_ = 0;           ///< RTL-scored samples, failures.
  double rtl_sim_seconds_ = 0, rtl_wall_seconds_ = 0;  ///< Simulated, and waited for.
};

}  // namespace

LayerSearch search_layer(const Layer& layer, const Arch& arch, const std::string& kind,
                         const search::SearchOptions& options, uint64_t seed, int64_t budget,
                         const Objective& objective,
                         const std::function<bool(const search::SearchProgress&)>& keep_going,
                         const std::function<void(const SampleSeen&)>& observe,
                         const ExactOptions& exact, Encoding encoding,
                         const RewardOptions& reward) {
  const bool rtl = reward.source == RewardOptions::Rtl;
  if (rtl) require_rtl_dram_port(arch, "--arch");
  if (kind == "exact") {
    if (rtl)
      throw SpecError("--reward", "reward", "rtl",
                      "the exact mapper optimizes the surrogate; use --reward surrogate");
    LayerSearch ls = exact_layer(layer, arch, seed, objective, observe, exact);
    ls.reward = {{"source", "surrogate"}};
    return ls;
  }
  if (reward.surrogate_warmup < 0)
    throw SpecError("--surrogate-warmup", "surrogate-warmup",
                    std::to_string(reward.surrogate_warmup), "must be >= 0");
  // RTL reward: workers of the user's architecture, after a probe proved it has a model.
  const std::string arch_arg = reward.arch.empty() ? arch.name : reward.arch;
  std::unique_ptr<RtlWorkerPool> pool;
  if (rtl) pool = rtl_pool_for(arch_arg, reward.worker_exe, reward.jobs);
  const LayerSpace space(layer, arch, encoding);
  auto searcher = search::make_searcher(kind, space.problem(), options, seed);
  const ScoringSetup setup{layer,  arch,     space,      objective, seed,
                           reward, arch_arg, pool.get(), observe};
  BatchScorer scorer(setup);
  LayerSearch ls;
  ls.result = search::run_search(
      *searcher, [&scorer](const std::vector<search::Point>& pts) { return scorer.evaluate(pts); },
      budget, keep_going);
  ls.searcher = searcher->describe();
  ls.searcher["seed"] = seed;
  ls.searcher["encoding"] = encoding_name(encoding);
  ls.searcher["space_log10"] = space.log10_size();
  // Distinct samples whose decode was repaired (read next to the result's invalid and
  // duplicates; always 0 for the raw encoding, where an overflow is an invalid sample).
  ls.searcher["repaired"] = scorer.repaired();
  bool best_from_rtl = false;
  if (ls.result.found) {
    ls.best = space.decode(ls.result.best_point, nullptr);
    ls.metrics = scorer.best_metrics(ls.best, &best_from_rtl);
  }
  ls.reward =
      rtl ? scorer.rtl_reward_record(best_from_rtl) : nlohmann::json{{"source", "surrogate"}};
  return ls;
}

namespace {

/// Everything cmd_search works with once its flags are checked and its inputs loaded.
struct SearchJob {
  Objective objective;          ///< Parsed --objective.
  Arch arch;                    ///< Loaded --arch.
  bool exact = false;           ///< --searcher exact.
  bool rtl_reward = false;      ///< --reward rtl.
  RewardOptions reward;         ///< The samples' scorer.
  std::string options_file;     ///< Search options file (the default when not given).
  search::SearchOptions sopts;  ///< Its options.
  std::vector<LayerRun> runs;   ///< One per unique layer, in network order.
  std::string target;           ///< The layer's or the network's name.
  fs::path dir;                 ///< Output folder (mappings/ and curves/ exist).
};

/// Refuses bad --reward, --surrogate-warmup and --jobs values, and the RTL reward with the
/// exact mapper.
void check_reward_flags(const SearchCliOptions& o, bool exact) {
  if (o.reward != "surrogate" && o.reward != "rtl")
    throw SpecError("--reward", "reward", o.reward, "must be surrogate or rtl");
  const bool rtl_reward = o.reward == "rtl";
  if (o.surrogate_warmup < 0)
    throw SpecError("--surrogate-warmup", "surrogate-warmup", std::to_string(o.surrogate_warmup),
                    "must be a number of samples >= 0");
  if (o.jobs < 0 || o.jobs > 1024)
    throw SpecError("--jobs", "jobs", std::to_string(o.jobs),
                    "must be between 0 (number of cores) and 1024");
  if (exact && rtl_reward)
    throw SpecError("--reward", "reward", o.reward,
                    "the exact mapper optimizes the surrogate; use --reward surrogate");
}

/// The reward of --reward rtl (after refusing an architecture without a compiled model, before
/// any work), else the surrogate's.
RewardOptions reward_of(const SearchCliOptions& o) {
  RewardOptions reward;
  if (o.reward != "rtl") return reward;
  reward.source = RewardOptions::Rtl;
  check_sim_limits(o.sim_limits);
  reward.limits = o.sim_limits;
  reward.surrogate_warmup = o.surrogate_warmup;
  reward.jobs = o.jobs;
  reward.worker_exe = o.worker_exe;
  reward.arch = o.arch;
  // Refuse an architecture without a compiled model before any work (each layer's search
  // probes its own pool again; a probe costs one worker start).
  rtl_pool_for(o.arch, o.worker_exe, 1);
  return reward;
}

/// Checks the flags and loads the inputs, in this order (the first problem is the one
/// reported): target and budget, searcher, exact options, objective, architecture, reward,
/// search options, the layer or network, the output folder (created with mappings/ and
/// curves/, so that a folder that cannot be written fails before any search).
SearchJob prepare_search(const SearchCliOptions& o) {
  if (o.layer.empty() == o.network.empty())
    throw SpecError("--layer/--network", "layer", o.layer + o.network,
                    "give exactly one of --layer or --network");
  if (o.budget <= 0)
    throw SpecError("--budget", "budget", std::to_string(o.budget), "must be a positive integer");
  require_searcher_kind(o.searcher, "--searcher");
  check_exact_options(o.exact);
  SearchJob job;
  job.objective = parse_objective(o.objective);
  job.arch = load_arch(o.arch);
  job.exact = o.searcher == "exact";
  check_reward_flags(o, job.exact);
  job.rtl_reward = o.reward == "rtl";
  job.reward = reward_of(o);
  job.options_file =
      o.options_file.empty() ? configs_dir() + "/search/default.yaml" : o.options_file;
  job.sopts = load_options_or_default(job.options_file);
  if (!o.layer.empty()) {
    job.runs.push_back({parse_layer_arg(o.layer, "--layer", make_onnx_options({}, o.strict)),
                        1,
                        {},
                        {},
                        {},
                        {},
                        {},
                        {},
                        {}});
    job.target = job.runs[0].layer.name;
  } else {
    const Network net =
        parse_network_arg(o.network, "--network", make_onnx_options(o.input_shapes, o.strict));
    std::cerr << import_note(net);
    job.target = net.name;
    for (const auto& [l, n] : net.unique_layers())
      job.runs.push_back({l, n, {}, {}, {}, {}, {}, {}, {}});
  }
  job.dir = o.out_dir.empty() ? fs::path("runs") / ("search-" + safe_name(job.target) + "-" +
                                                    o.searcher + "-s" + std::to_string(o.seed))
                              : fs::path(o.out_dir);
  make_output_dir(job.dir / "mappings");
  make_output_dir(job.dir / "curves");
  return job;
}

/// File stem of layer `li`'s mapping and curve.
std::string layer_stem(size_t li, const LayerRun& r) {
  return std::to_string(li) + "_" + safe_name(r.layer.name);
}

/// The progress line of layer `li` of `n` on a terminal; false once Ctrl-C was pressed.
bool show_progress(bool tty, size_t li, size_t n, const std::string& name,
                   const search::SearchProgress& p) {
  if (tty) {
    std::cerr << "\r[" << (li + 1) << "/" << n << "] " << std::left << std::setw(22)
              << fit_name(name, 22) << std::right << " " << std::setw(6) << p.samples << "/"
              << p.budget << " samples, best "
              << (p.found ? std::to_string(p.best_cost) : std::string("-")) << "   " << std::flush;
  }
  return !InterruptSignals::count();
}

/// Searches layer `li` with the job's searcher (and, for a sampling searcher, with the exact
/// mapper for the optimum to compare with) and keeps the results in job.runs[li].
void search_one_layer(SearchJob& job, const SearchCliOptions& o, size_t li, bool tty) {
  LayerRun& r = job.runs[li];
  const uint64_t seed = layer_seed(o.seed, li);
  const size_t n = job.runs.size();
  const std::string& name = r.layer.name;
  auto progress = [tty, li, n, &name](const search::SearchProgress& p) {
    return show_progress(tty, li, n, name, p);
  };
  if (tty && job.exact)
    std::cerr << "\r[" << (li + 1) << "/" << n << "] " << r.layer.name.substr(0, 40)
              << ": exact search (at most " << o.exact.time_limit_s << " s)   " << std::flush;
  LayerSearch ls =
      search_layer(r.layer, job.arch, o.searcher, job.sopts, seed, o.budget, job.objective,
                   progress, {}, o.exact, Encoding::Compact, job.reward);
  r.exact = std::move(ls.exact);
  r.reward = std::move(ls.reward);
  if (!job.exact) {
    // Every sampling search is measured against the layer's optimum (exact mapper).
    const LayerSearch opt = search_layer(r.layer, job.arch, "exact", job.sopts, seed, 1,
                                         job.objective, {}, {}, o.exact);
    r.optimum = opt.exact;
    if (opt.result.found) r.optimum["cost"] = opt.result.best_cost;
  }
  r.result = std::move(ls.result);
  r.searcher = std::move(ls.searcher);
  r.best = ls.best;
  r.metrics = ls.metrics;
}

/// Writes mappings/<stem>.yaml of layer `li` (when a mapping was found), headed by how it was
/// found.
void write_layer_mapping(const SearchJob& job, const SearchCliOptions& o, size_t li) {
  const LayerRun& r = job.runs[li];
  if (!r.result.found) return;
  std::ostringstream y;
  y << "# " << one_line(r.layer.name) << ": " << r.layer.describe() << "\n# searcher " << o.searcher
    << ", seed " << layer_seed(o.seed, li) << ", objective " << job.objective.name
    << (job.exact ? ", proven gap " + (r.exact["gap"].is_null()
                                           ? std::string("n/a")
                                           : std::to_string(r.exact["gap"].get<double>()))
                  : ", budget " + std::to_string(o.budget))
    << (job.rtl_reward ? ", reward rtl after " + std::to_string(o.surrogate_warmup) +
                             " surrogate samples, best cost from the " +
                             (best_from_rtl(r.reward) ? "RTL" : "surrogate")
                       : std::string())
    << "\n"
    << mapping_to_yaml(r.best);
  write_atomic(job.dir / "mappings" / (layer_stem(li, r) + ".yaml"), y.str());
}

/// Writes curves/<stem>.csv of layer `li`: the best cost after each sample.
void write_layer_curve(const SearchJob& job, size_t li) {
  const LayerRun& r = job.runs[li];
  std::ostringstream curve;
  curve << "sample,best_cost\n";
  for (size_t i = 0; i < r.result.best_so_far.size(); ++i) {
    const double c = r.result.best_so_far[i];
    curve << (i + 1) << "," << (std::isfinite(c) ? std::to_string(c) : std::string("")) << "\n";
  }
  write_atomic(job.dir / "curves" / (layer_stem(li, r) + ".csv"), curve.str());
}

/// How far the layer loop got.
struct LayerLoop {
  size_t done_layers = 0;    ///< Layers searched (a prefix of job.runs).
  bool interrupted = false;  ///< Ctrl-C stopped the loop.
};

/// Searches every layer in order, writing each one's mapping and curve as it finishes, until
/// done or interrupted (Ctrl-C finishes the layer in flight).
LayerLoop search_each_layer(SearchJob& job, const SearchCliOptions& o) {
  const bool tty = o.progress && isatty(STDERR_FILENO);
  std::optional<InterruptSignals> signals(std::in_place);
  LayerLoop s;
  for (size_t li = 0; li < job.runs.size() && !InterruptSignals::count(); ++li) {
    search_one_layer(job, o, li, tty);
    ++s.done_layers;
    write_layer_mapping(job, o, li);
    write_layer_curve(job, li);
  }
  if (tty) std::cerr << "\r" << std::string(80, ' ') << "\r";
  s.interrupted = InterruptSignals::count() > 0;
  signals.reset();
  return s;
}

/// Totals over the network (each unique layer weighted by its count).
struct SearchTotals {
  double cycles = 0;      ///< Network latency, cycles.
  double energy = 0;      ///< Network energy, pJ.
  double macs = 0;        ///< MACs of the layers with a mapping.
  bool all_found = true;  ///< Every searched layer has a mapping.
};

/// Layer `li`'s entry of results.json.
nlohmann::json layer_json(const SearchJob& job, size_t li) {
  const LayerRun& r = job.runs[li];
  nlohmann::json j;
  j["name"] = r.layer.name;
  j["shape"] = r.layer.describe();
  j["count"] = r.count;
  j["searcher"] = r.searcher;
  j["result"] = r.result.to_json();
  if (!r.exact.is_null()) j["exact"] = r.exact;
  if (!r.reward.is_null()) j["reward"] = r.reward;
  const bool rtl_best = best_from_rtl(r.reward);
  if (!r.optimum.is_null()) {
    j["optimum"] = r.optimum;
    // The optimum is the surrogate's: a cost measured on the RTL is not comparable with it.
    if (r.result.found && r.optimum.contains("cost") && !rtl_best)
      j["gap_to_optimum"] = r.result.best_cost / r.optimum["cost"].get<double>() - 1;
  }
  j["curve_csv"] = (job.dir / "curves" / (layer_stem(li, r) + ".csv")).string();
  if (r.result.found)
    j["best"] = {{"mapping", mapping_to_yaml(r.best)},
                 {"metrics", r.metrics.to_json()},
                 {"cost", r.result.best_cost},
                 {"cost_source", rtl_best ? "rtl" : "surrogate"}};
  return j;
}

SearchTotals totals_of(const SearchJob& job, size_t done_layers) {
  SearchTotals t;
  for (size_t li = 0; li < done_layers; ++li) {
    const LayerRun& r = job.runs[li];
    if (r.result.found) {
      t.cycles += r.count * static_cast<double>(r.metrics.cycles);
      t.energy += r.count * r.metrics.energy_pj;
      t.macs += r.count * static_cast<double>(r.layer.macs());
    } else {
      t.all_found = false;
    }
  }
  return t;
}

/// The search's results.json record.
nlohmann::json search_record(const SearchJob& job, const SearchCliOptions& o, const LayerLoop& s,
                             const SearchTotals& t) {
  nlohmann::json layers = nlohmann::json::array();
  for (size_t li = 0; li < s.done_layers; ++li) layers.push_back(layer_json(job, li));
  nlohmann::json res;
  res["command"] = "search";
  res["target"] = job.target;
  res["arch"] = job.arch.name;
  res["searcher"] = o.searcher;
  res["seed"] = o.seed;
  res["budget_per_layer"] = o.budget;
  res["objective"] = job.objective.name;
  res["reward"] = o.reward;
  if (job.rtl_reward) res["surrogate_warmup"] = o.surrogate_warmup;
  res["options_file"] = job.options_file;
  long long samples = 0;
  for (size_t li = 0; li < s.done_layers; ++li) samples += job.runs[li].result.samples;
  res["samples"] = samples;
  if (job.exact) res["exact_options"] = job.runs.empty() ? nlohmann::json() : job.runs[0].searcher;
  res["interrupted"] = s.interrupted;
  res["layers"] = layers;
  const Arch& arch = job.arch;
  res["totals"] = {
      {"cycles", t.cycles},
      {"energy_pj", t.energy},
      {"edp", t.cycles * t.energy},
      {"utilization", t.cycles > 0 ? t.macs / (t.cycles * arch.rows * arch.cols) : 0.0},
      {"layers_searched", s.done_layers},
      {"layers_total", job.runs.size()}};
  if (job.runs.size() == 1 && job.runs[0].result.found) {
    res["best"] = layers[0]["best"];
    res["curve"] = layers[0]["curve_csv"];
    // The proof beside the answer: the exact mapper's bound and gap, or a sampling search's
    // distance to the optimum.
    for (const char* k : {"exact", "optimum", "gap_to_optimum"})
      if (layers[0].contains(k)) res[k] = layers[0][k];
  }
  res["run_dir"] = job.dir.string();
  return res;
}

/// The summary's column headings.
void print_layer_header(const SearchJob& job, size_t width, std::ostream& out) {
  out << std::left << std::setw(static_cast<int>(width)) << "layer" << std::right << std::setw(6)
      << "count" << std::setw(14) << "cycles" << std::setw(14) << "energy_uJ" << std::setw(8)
      << "util%";
  if (job.exact)
    out << std::setw(10) << "gap%" << std::setw(9) << "time_s" << std::setw(12) << "nodes"
        << std::setw(12) << "evals";
  else
    out << std::setw(9) << "valid%" << std::setw(7) << "dup" << std::setw(12) << "vs_opt%";
  out << "\n";
}

/// One layer's summary line: its metrics, then the exact mapper's gap, time and effort, or a
/// sampling search's valid share, duplicates and distance to the optimum.
void print_layer_line(const SearchJob& job, const LayerRun& r, size_t width, std::ostream& out) {
  out << std::left << std::setw(static_cast<int>(width)) << fit_name(r.layer.name, width - 1)
      << std::right << std::setw(6) << r.count;
  if (r.result.found)
    out << std::setw(14) << r.metrics.cycles << std::setw(14) << std::fixed << std::setprecision(2)
        << r.metrics.energy_pj * 1e-6 << std::setw(8) << std::setprecision(1)
        << 100 * r.metrics.utilization << std::defaultfloat;
  else
    out << std::setw(36) << "no valid mapping found";
  if (job.exact) {
    const auto& e = r.exact;
    std::ostringstream g;
    if (e["gap"].is_null())
      g << "-";
    else
      g << std::fixed << std::setprecision(3) << 100 * e["gap"].get<double>();
    out << std::setw(10) << g.str() << std::setw(9) << std::fixed << std::setprecision(2)
        << e["seconds"].get<double>() << std::defaultfloat << std::setw(12)
        << e["nodes"].get<long long>() << std::setw(12) << e["evaluations"].get<long long>()
        << "\n";
  } else {
    std::ostringstream g;
    if (r.result.found && r.optimum.contains("cost") && !best_from_rtl(r.reward))
      g << "+" << std::fixed << std::setprecision(2)
        << 100 * (r.result.best_cost / r.optimum["cost"].get<double>() - 1);
    else
      g << "-";
    out << std::setw(9) << std::fixed << std::setprecision(1)
        << 100.0 * r.result.valid / std::max<int64_t>(1, r.result.samples) << std::defaultfloat
        << std::setw(7) << r.result.duplicates << std::setw(12) << g.str() << "\n";
  }
}

/// The RTL reward's line of each searched layer: samples simulated and failed, seconds.
void print_rtl_reward_lines(const SearchJob& job, size_t done_layers, std::ostream& out) {
  for (size_t li = 0; li < done_layers; ++li) {
    const nlohmann::json& w = job.runs[li].reward;
    if (!w.is_object() || !w.contains("rtl_samples")) continue;
    out << "rtl reward " << fit_name(job.runs[li].layer.name, 23) << ": "
        << w["rtl_samples"].get<long long>() << " samples simulated ("
        << w["rtl_failures"].get<long long>() << " failed), " << std::fixed << std::setprecision(1)
        << w["rtl_sim_seconds"].get<double>() << " s simulated, "
        << w["rtl_wall_seconds"].get<double>() << " s waited" << std::defaultfloat
        << "; best cost from the " << (w["best_from_rtl"].get<bool>() ? "RTL" : "surrogate")
        << "\n";
  }
}

/// The human-readable summary: settings, one line per layer, totals, where it was written.
void print_search_summary(const SearchJob& job, const SearchCliOptions& o, const LayerLoop& s,
                          const SearchTotals& t, std::ostream& out) {
  const Arch& arch = job.arch;
  out << "search " << job.target << " on " << arch.name << " (" << arch.rows << "x" << arch.cols
      << ") with " << o.searcher << ", " << budget_phrase(o.searcher, o.budget, o.exact)
      << ", objective " << job.objective.name << ", seed " << o.seed
      << (job.rtl_reward
              ? ", reward rtl after " + std::to_string(o.surrogate_warmup) + " surrogate samples"
              : std::string())
      << "\n";
  size_t longest = 0;
  for (const auto& r : job.runs) longest = std::max(longest, r.layer.name.size());
  const size_t width = name_column_width(longest);
  print_layer_header(job, width, out);
  for (size_t li = 0; li < s.done_layers; ++li) print_layer_line(job, job.runs[li], width, out);
  if (job.rtl_reward) print_rtl_reward_lines(job, s.done_layers, out);
  out << "total: " << static_cast<long long>(t.cycles) << " cycles, " << std::fixed
      << std::setprecision(2) << t.energy * 1e-6 << " uJ, EDP " << std::scientific
      << std::setprecision(4) << t.cycles * t.energy << " pJ*cycles" << std::defaultfloat << "\n";
  if (job.runs.size() == 1 && job.runs[0].result.found)
    out << "best mapping:\n" << mapping_to_yaml(job.runs[0].best);
  out << "written to " << job.dir.string() << " (results.json, mappings/, curves/)\n";
  if (s.interrupted)
    out << "interrupted: " << s.done_layers << " of " << job.runs.size() << " layers finished\n";
}

}  // namespace

int cmd_search(const SearchCliOptions& o, std::ostream& out) {
  SearchJob job = prepare_search(o);
  const LayerLoop s = search_each_layer(job, o);
  const SearchTotals t = totals_of(job, s.done_layers);
  const nlohmann::json res = search_record(job, o, s, t);
  write_atomic(job.dir / "results.json", res.dump(2) + "\n");
  if (o.json)
    out << res.dump(2) << "\n";
  else
    print_search_summary(job, o, s, t, out);
  if (s.interrupted) return 130;
  return t.all_found ? 0 : 3;
}

}  // namespace mapwright::flows
