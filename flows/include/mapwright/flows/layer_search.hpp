#pragma once
/// \file layer_search.hpp
/// The layer-search engine that `search`, `run`, `study` and `tune` share: one layer, one
/// searcher (the exact mapper or an ask/tell searcher over the layer's map space), one budget.
/// A sampling searcher's fresh samples are scored by a BatchEvaluator: the analytical surrogate,
/// or the RTL reward, which simulates them in the caller's RTL worker pool.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/metrics.hpp"
#include "mapwright/core/objective.hpp"
#include "mapwright/flows/encoding.hpp"
#include "mapwright/flows/objective.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/search/options.hpp"
#include "mapwright/search/searcher.hpp"

namespace mapwright::flows {

/// One search of one layer. The request holds references: what they refer to outlives the
/// search (and every evaluator made for it).
struct LayerSearchRequest {
  const core::Layer& layer;               ///< The layer searched.
  const core::Arch& arch;                 ///< Its architecture.
  std::string searcher;                   ///< "exact" or a kind of search::searcher_kinds().
  const search::SearchOptions& options;   ///< The sampling searchers' hyper-parameters.
  uint64_t seed = 0;                      ///< The searcher's seed (recorded).
  int64_t budget = 0;                     ///< Samples (the sampling searchers).
  const core::Objective& objective;       ///< What a sample's cost is.
  ExactOptions exact = {};                ///< The exact mapper's settings.
  Encoding encoding = Encoding::Compact;  ///< The sampling searchers' space.
  /// A prior of this many uniformly drawn points (search::prior_points, seeded by `seed`),
  /// scored by the surrogate and given to the sampling searcher before the search
  /// (search::Searcher::prime): observations, not samples; they cost no budget. Meant for an
  /// expensive reward (the RTL) with a free surrogate; recorded as the searcher's "prior".
  int64_t surrogate_prior = 0;
};

/// The result of one layer search.
struct LayerSearch {
  search::SearchResult result;  ///< Curve, best point, counts.
  core::Mapping best;           ///< Decoded best mapping (when found).
  core::Metrics metrics;        ///< Its metrics (when found): the RTL's when its cost was.
  /// searcher->describe() plus "seed"; for the sampling searchers also "encoding",
  /// "space_log10" (log10 of the number of points) and "repaired" (distinct samples whose
  /// decode was repaired; read it next to the result's "invalid" and "duplicates").
  nlohmann::json searcher;
  /// For the exact mapper: proven lower bound, gap, optimal, nodes, evaluations, pruning
  /// counts, seconds and stop reason (null for the sampling searchers).
  nlohmann::json exact;
  /// Where the samples' costs came from (BatchEvaluator::reward_record): {"source":
  /// "surrogate"}, or the RTL reward's record, whose "best_from_rtl" tells whether `metrics`
  /// are the RTL's.
  nlohmann::json reward;
};

/// What `observe` receives for one sample.
struct SampleSeen {
  int64_t sample = 0;                        ///< 0-based sample index.
  const search::Point* point = nullptr;      ///< The searcher's point.
  const core::Mapping* mapping = nullptr;    ///< Its decoded mapping.
  const core::Metrics* metrics = nullptr;    ///< Surrogate metrics (valid or a typed failure).
  const search::Outcome* outcome = nullptr;  ///< What the searcher was told.
  const core::Metrics* rtl = nullptr;        ///< RTL metrics when the sample was RTL-scored.
};

/// What the caller hears during a search. `keep_going` is polled after every batch (false
/// stops after the batch in flight). `observe`, when set, sees every evaluated point in sample
/// order with its decoded mapping, surrogate metrics and outcome (the exact mapper reports its
/// top-K distinct mappings, the best first, as samples 0..K-1).
struct SearchHooks {
  search::ProgressFn keep_going;                   ///< Polled after every batch.
  std::function<void(const SampleSeen&)> observe;  ///< Sees every fresh sample.
};

/// One fresh sample: a mapping no earlier sample of the search decoded to.
struct FreshSample {
  int64_t sample = 0;                      ///< Its 0-based sample index.
  const core::Mapping* mapping = nullptr;  ///< Its decoded mapping.
};
/// What an evaluator says about one fresh sample.
struct Scored {
  search::Outcome outcome;           ///< What the searcher is told.
  core::Metrics surrogate;           ///< Its surrogate metrics (valid or a typed failure).
  std::optional<core::Metrics> rtl;  ///< Its RTL metrics, when it was simulated and is valid.
};

/// The seam between the engine and whatever scores samples: it scores the fresh samples of one
/// layer search, a batch at a time. The engine decodes the searcher's points, answers repeats
/// from its own cache and reports every sample to `observe`; an evaluator sees each distinct
/// mapping once, in sample order.
class BatchEvaluator {
 public:
  virtual ~BatchEvaluator() = default;
  /// One Scored per sample, in the batch's order (the samples run in parallel where the
  /// evaluator can).
  virtual std::vector<Scored> evaluate(const std::vector<FreshSample>& batch) = 0;
  /// LayerSearch::reward once the search is over (`best_from_rtl`: the best sample's cost came
  /// from its RTL metrics). Called once.
  virtual nlohmann::json reward_record(bool best_from_rtl) = 0;
};

/// The RTL reward of a sampling search: the first `surrogate_warmup` distinct samples are
/// scored by the surrogate (they count toward the budget); every later distinct sample that
/// passes the surrogate's checks is simulated on the Verilated RTL in the caller's worker pool
/// (all fresh samples of a batch in parallel) and its cost is the objective of the RTL metrics.
/// An RTL failure (mismatch, watchdog, worker crash, a SimLimits bound) is an invalid outcome
/// "rtl: ...". The operands of sample i are seeded with rtl_operand_seed(search seed, i).
struct RtlRewardOptions {
  int64_t surrogate_warmup = 0;   ///< Distinct samples scored by the surrogate first (>= 0).
  int jobs = 0;                   ///< The pool's size as the caller asked for it (recorded).
  long long watchdog_cycles = 0;  ///< Watchdog bound per run (0 = automatic).
  rtlpool::SimLimits limits;      ///< Per-simulation limits (a run over one is invalid).
  std::string arch;               ///< Arch name or YAML path for the workers ("" = arch.name).
};

/// A pool of `jobs` RTL workers (0 = core::default_jobs()) running `worker_exe` ("" =
/// rtlpool::worker_executable()) for the RTL reward, after a probe job proved that `arch` (a
/// name or YAML path) has an RTL model, compiled in or from the model cache (built now when
/// absent); else a core::SpecError naming --arch: a usage error, not a result. One pool serves
/// every layer search of a flow that runs them one at a time.
std::unique_ptr<rtlpool::RtlWorkerPool> rtl_reward_pool(const std::string& arch,
                                                        const std::string& worker_exe, int jobs);

/// The evaluator of `request`'s samples: the RTL reward on `pool` (see RtlRewardOptions) when
/// `pool` is given, else the surrogate. The RTL reward refuses (core::SpecError), in this order,
/// an architecture whose DRAM port the RTL lacks (naming --arch), the exact mapper (naming
/// --reward) and a negative warm-up (naming --surrogate-warmup). `pool` must have no jobs of
/// anyone else queued or running while the evaluator evaluates.
std::unique_ptr<BatchEvaluator> reward_evaluator(const LayerSearchRequest& request,
                                                 const RtlRewardOptions& reward,
                                                 rtlpool::RtlWorkerPool* pool);

/// Searches one layer. The exact mapper optimizes the surrogate itself (`evaluator` is not
/// asked); a sampling searcher searches the request's encoding of the layer's space and its
/// fresh samples are scored by `evaluator`.
LayerSearch search_layer(const LayerSearchRequest& request, BatchEvaluator& evaluator,
                         const SearchHooks& hooks = {});
/// Searches one layer on the surrogate.
LayerSearch search_layer(const LayerSearchRequest& request, const SearchHooks& hooks = {});

/// The searchers' view of `layer`'s map space on `arch` in `encoding`, as search_layer hands it
/// to a sampling searcher: the parameters, their domains and their buffer groups
/// (search::ParamSpec::group, the labels of marl's per-buffer agents).
search::Problem search_problem(const core::Layer& layer, const core::Arch& arch, Encoding encoding);

/// Loads search options ("" = configs/search/default.yaml); a bad file throws
/// search::load_search_options' std::invalid_argument, which names the file, key and value.
search::SearchOptions load_options_or_default(const std::string& file);

}  // namespace mapwright::flows
