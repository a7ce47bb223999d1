#pragma once
/// \file search_flow.hpp
/// `mapwright search`: search one layer or every unique layer of a network on the surrogate
/// with any searcher, and write the best mappings, metrics and best-so-far curves.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <functional>
#include <nlohmann/json.hpp>

#include "mapwright/core/metrics.hpp"
#include "mapwright/flows/objective.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/search/searcher.hpp"

namespace mapwright::flows {

/// One search of one layer on the surrogate: the map space as an abstract problem, every
/// sample scored by the objective (invalid mappings are typed failures). `describe` receives
/// the searcher's record (hyper-parameters, seed, clusters). `keep_going` is polled after
/// every batch (false stops after the batch in flight). `observe`, when set, sees every
/// evaluated point in sample order with its decoded mapping, surrogate metrics and outcome (the
/// run flow keeps its top-K candidates and its evaluation records from it).
struct LayerSearch {
  search::SearchResult result;  ///< Curve, best point, counts.
  core::Mapping best;           ///< Decoded best mapping (when found).
  core::Metrics metrics;        ///< Its surrogate metrics (when found).
  nlohmann::json searcher;      ///< searcher->describe() plus the seed.
  /// For the exact mapper: proven lower bound, gap, optimal, nodes, evaluations, pruning
  /// counts, seconds and stop reason (null for the sampling searchers).
  nlohmann::json exact;
  /// Where the samples' costs came from: source, warm-up, RTL-scored samples, RTL failures,
  /// simulated seconds, the operand-seed rule, one entry per RTL run, and "best_from_rtl"
  /// (when true, `metrics` are the RTL's).
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
/// Where the sampling searchers' reward comes from. Surrogate: every sample is scored by the
/// analytical model. Rtl: the first `surrogate_warmup` distinct samples are scored by the
/// surrogate (they count toward the budget); every later distinct sample that passes the
/// surrogate's checks is simulated on the Verilated RTL in `jobs` worker processes (all fresh
/// points of a batch in parallel) and its cost is the objective of the RTL metrics. An RTL
/// failure (mismatch, watchdog, worker crash) is an invalid outcome "rtl: ...". The operands of
/// sample i are seeded with rtl_operand_seed(search seed, i) (seeds.hpp).
struct RewardOptions {
  enum Source { Surrogate, Rtl };
  Source source = Surrogate;      ///< Surrogate (the default) or Rtl.
  int64_t surrogate_warmup = 0;   ///< Rtl: distinct samples scored by the surrogate first.
  int jobs = 0;                   ///< Rtl: worker processes (0 = number of cores).
  std::string worker_exe;         ///< Rtl: worker binary ("" = worker_executable()).
  long long watchdog_cycles = 0;  ///< Rtl: watchdog bound per run (0 = automatic).
  rtlpool::SimLimits limits;      ///< Rtl: per-simulation limits (a run over one is invalid).
  std::string arch;               ///< Rtl: arch name or YAML path for the workers ("" = arch.name).
};
/// How the sampling searchers see a layer's mappings.
enum class Encoding {
  Compact,  ///< core::SearchSpace: compact, every decoded point fits (repairs are counted).
  Raw,      ///< core::MapSpace: the 16 raw parameters; overflowing points are invalid.
};
/// "compact" or "raw" (recorded as the searcher record's "encoding").
const char* encoding_name(Encoding e);
/// `reward` chooses the samples' scorer (see RewardOptions; Rtl probes the architecture first
/// and throws a core::SpecError naming --arch when it has no compiled model, or naming --reward
/// for "exact"). `encoding` chooses the space the sampling searchers search (ignored by "exact").
/// The searcher record gets "encoding", "space_log10" (log10 of the number of points) and
/// "repaired": distinct samples whose decode was repaired (read it next to the result's
/// "invalid" and "duplicates").
LayerSearch search_layer(const core::Layer& layer, const core::Arch& arch, const std::string& kind,
                         const search::SearchOptions& options, uint64_t seed, int64_t budget,
                         const core::Objective& objective,
                         const std::function<bool(const search::SearchProgress&)>& keep_going = {},
                         const std::function<void(const SampleSeen&)>& observe = {},
                         const ExactOptions& exact = {}, Encoding encoding = Encoding::Compact,
                         const RewardOptions& reward = {});
/// Loads search options; a bad file becomes a core::SpecError naming it.
search::SearchOptions load_options_or_default(const std::string& file);

struct SearchCliOptions {
  std::string arch = "default";           ///< Named arch or YAML file.
  std::string layer;                      ///< --layer (one of layer/network).
  std::string network;                    ///< --network.
  std::vector<std::string> input_shapes;  ///< ONNX: --input-shape NAME=D0xD1x... texts.
  bool strict = false;            ///< ONNX: an unsupported compute op is an error, not a warning.
  std::string searcher = "marl";  ///< exact, or a kind of search::searcher_kinds().
  int64_t budget = 1000;          ///< Samples per layer (sampling searchers).
  ExactOptions exact;             ///< Time limit, gap and threads of the exact mapper.
  uint64_t seed = 1;              ///< Seed (recorded).
  std::string objective = "edp";  ///< See parse_objective.
  std::string options_file;       ///< Search options YAML (default configs/search/default.yaml).
  std::string out_dir;            ///< Output folder (default runs/search-<searcher>-<seed>).
  bool json = false;              ///< One JSON object on stdout.
  bool progress = true;           ///< Progress on stderr when it is a terminal.
  std::string reward = "surrogate";  ///< --reward: surrogate | rtl.
  int64_t surrogate_warmup = 0;      ///< --surrogate-warmup: surrogate-scored samples before RTL.
  rtlpool::SimLimits sim_limits;     ///< --sim-max-*: per-simulation limits with --reward rtl.
  int jobs = 0;                      ///< --jobs: RTL worker processes (0 = number of cores).
  std::string worker_exe;            ///< RTL worker binary ("" = worker_executable()).
};
int cmd_search(const SearchCliOptions& o, std::ostream& out);

}  // namespace mapwright::flows
