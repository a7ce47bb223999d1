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

#include "mapwright/core/error.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/mapspace.hpp"
#include "mapwright/core/search_space.hpp"
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
  mo.objective.latency = objective.latency;
  mo.objective.energy = objective.energy;
  mo.objective.name = objective.name;
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
  return oc;
}

/// The search outcome of an RTL run: the objective of its metrics, or a typed failure "rtl: ...".
search::Outcome rtl_outcome(const RtlJobResult& r, const Objective& objective) {
  search::Outcome oc;
  if (!r.failure.empty()) {
    oc.reason = "rtl: " + r.failure;
  } else if (!r.functional_ok) {
    oc.reason = "rtl: functional mismatch: " + std::to_string(r.mismatches) +
                " output bytes differ from the C++ reference";
  } else {
    oc.cost = objective.cost(r.metrics);
    oc.valid = std::isfinite(oc.cost) && oc.cost > 0;
    if (!oc.valid) {
      oc.reason = "rtl: objective " + fmt_g(oc.cost) + " is not a positive number";
      oc.cost = 0;
    }
  }
  return oc;
}

/// A pool of RTL workers for `arch_arg`, after a probe job proved that the architecture has a
/// compiled model (else a SpecError naming --arch: a usage error, not a result).
std::unique_ptr<RtlWorkerPool> rtl_pool_for(const std::string& arch_arg, const std::string& exe,
                                            int jobs) {
  const int n =
      jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto pool = std::make_unique<RtlWorkerPool>(exe.empty() ? worker_executable() : exe, n);
  RtlJob probe;
  probe.arch = arch_arg;
  probe.probe = true;
  pool->submit(probe);
  std::vector<std::pair<size_t, RtlJobResult>> got;
  while (got.empty()) got = pool->poll(-1);
  if (!got[0].second.failure.empty())
    throw SpecError("--arch", "arch", arch_arg,
                    got[0].second.failure + "; search it with --reward surrogate");
  return pool;
}

/// True when a layer's reward record says its best cost was measured on the RTL.
bool best_from_rtl(const nlohmann::json& reward) {
  return reward.is_object() && reward.value("best_from_rtl", false);
}

}  // namespace

uint64_t rtl_operand_seed(uint64_t seed, int64_t sample) {
  return seed * 7919ULL + static_cast<uint64_t>(sample) + 1;
}

double Objective::cost(const Metrics& m) const {
  return std::pow(static_cast<double>(m.cycles), latency) * std::pow(m.energy_pj, energy);
}

Objective parse_objective(const std::string& text, const std::string& where) {
  Objective o;
  o.name = text;
  if (text == "edp") return o;
  if (text == "latency") {
    o.energy = 0;
    return o;
  }
  if (text == "energy") {
    o.latency = 0;
    return o;
  }
  if (text.rfind("mix:", 0) == 0) {
    o.latency = o.energy = 0;
    std::string rest = text.substr(4);
    size_t pos = 0;
    while (pos < rest.size()) {
      const size_t comma = rest.find(',', pos);
      const std::string item =
          rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      const size_t eq = item.find('=');
      if (eq == std::string::npos)
        throw SpecError(where, "objective", item, "expected NAME=WEIGHT");
      const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
      char* end = nullptr;
      errno = 0;
      const double w = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || errno || !(w >= 0) || w > 16)
        throw SpecError(where, k, v, "weight must be a number between 0 and 16");
      if (k == "latency")
        o.latency = w;
      else if (k == "energy")
        o.energy = w;
      else
        throw SpecError(where, k, v, "unknown objective term (known: latency, energy)");
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    if (o.latency == 0 && o.energy == 0)
      throw SpecError(where, "objective", text, "at least one weight must be positive");
    return o;
  }
  throw SpecError(where, "objective", text,
                  "unknown objective (known: edp, latency, energy, mix:latency=W,energy=W)");
}

std::vector<std::string> all_searcher_kinds() {
  std::vector<std::string> kinds{"exact"};
  for (const auto& k : search::searcher_kinds()) kinds.push_back(k);
  return kinds;
}

void check_exact_options(const ExactOptions& e) {
  if (!std::isfinite(e.time_limit_s) || e.time_limit_s <= 0 || e.time_limit_s > 1e7)
    throw SpecError("--time-limit", "time-limit", fmt_g(e.time_limit_s),
                    "must be a number of seconds > 0 (and at most 1e7)");
  if (!std::isfinite(e.gap) || e.gap < 0 || e.gap >= 1)
    throw SpecError("--gap", "gap", fmt_g(e.gap),
                    "must be a relative gap in [0, 1), e.g. 0.001 for 0.1 %");
  if (e.threads < 0 || e.threads > 1024)
    throw SpecError("--threads", "threads", std::to_string(e.threads),
                    "must be between 0 (all cores) and 1024");
}

void require_searcher_kind(const std::string& kind, const std::string& where) {
  const auto kinds = all_searcher_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return;
  std::string known;
  for (const auto& k : kinds) known += (known.empty() ? "" : ", ") + k;
  throw SpecError(where, "searcher", kind, "unknown searcher (known: " + known + ")");
}

search::SearchOptions load_options_or_default(const std::string& file) {
  // load_search_options' std::invalid_argument already reads "<file>: key '<k>' = '<v>': why".
  const std::string f = file.empty() ? configs_dir() + "/search/default.yaml" : file;
  return search::load_search_options(f);
}

const char* encoding_name(Encoding e) {
  return e == Encoding::Raw ? "raw" : "compact";
}

LayerSearch search_layer(const Layer& layer, const Arch& arch, const std::string& kind,
                         const search::SearchOptions& options, uint64_t seed, int64_t budget,
                         const Objective& objective,
                         const std::function<bool(const search::SearchProgress&)>& keep_going,
                         const std::function<void(const SampleSeen&)>& observe,
                         const ExactOptions& exact, Encoding encoding,
                         const RewardOptions& reward) {
  const bool rtl = reward.source == RewardOptions::Rtl;
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
  // Compact: the feasibility-respecting SearchSpace (every decoded point fits; overflowing
  // points are repaired and counted). Raw: the full MapSpace (invalid points are failures).
  const bool compact = encoding == Encoding::Compact;
  std::unique_ptr<MapSpace> raw;
  std::unique_ptr<SearchSpace> cspace;
  if (compact)
    cspace = std::make_unique<SearchSpace>(layer, arch);
  else
    raw = std::make_unique<MapSpace>(layer, arch);
  int64_t repaired = 0;
  auto decode = [&](const search::Point& p, bool* rep) {
    const ParamVector v(p.begin(), p.end());
    if (compact) return cspace->decode(v, rep);
    if (rep) *rep = false;
    return raw->decode(v);
  };
  model::Surrogate surrogate;
  auto searcher =
      search::make_searcher(kind, compact ? problem_of(*cspace) : problem_of(*raw), options, seed);
  int64_t sample = 0;
  // Outcomes by decoded mapping: two points that decode to one mapping (the compact encoding's
  // repair can map several points onto one) are evaluated once; the second is a repeat, which
  // run_search does not charge to the budget.
  std::map<MappingKey, search::Outcome> by_mapping;
  // RTL reward: the RTL metrics of every RTL-scored mapping, and the record of each run.
  std::map<MappingKey, Metrics> rtl_metrics;
  nlohmann::json rtl_log = nlohmann::json::array();
  int64_t rtl_samples = 0, rtl_failed = 0;
  double rtl_sim_seconds = 0, rtl_wall_seconds = 0;
  auto evaluate = [&](const std::vector<search::Point>& pts) {
    // First pass: decode, answer repeats, score on the surrogate, queue the RTL runs.
    const size_t n = pts.size();
    std::vector<search::Outcome> outs(n);
    std::vector<Mapping> maps(n);
    std::vector<Metrics> sur(n), rtl_met(n);
    std::vector<int64_t> sample_of(n, -1);     // Fresh mappings: their sample index.
    std::vector<size_t> same_as(n, SIZE_MAX);  // Repeats inside the batch: the first item.
    std::vector<char> on_rtl(n, 0);
    std::vector<nlohmann::json> run_of(n);  // RTL-scored items: the run's record.
    std::map<MappingKey, size_t> in_batch;
    std::map<size_t, size_t> item_of_job;
    for (size_t i = 0; i < n; ++i) {
      bool rep = false;
      maps[i] = decode(pts[i], &rep);
      const MappingKey key = mapping_key(maps[i]);
      if (const auto it = by_mapping.find(key); it != by_mapping.end()) {
        outs[i] = it->second;
        outs[i].repeat = true;
        continue;
      }
      if (const auto [it, first] = in_batch.emplace(key, i); !first) {
        same_as[i] = it->second;
        continue;
      }
      repaired += rep;
      sample_of[i] = sample++;
      sur[i] = surrogate.evaluate(layer, arch, maps[i]);
      outs[i] = surrogate_outcome(sur[i], objective);
      // Cheapest check first: only mappings the surrogate accepts go to the RTL.
      if (pool && sur[i].valid && sample_of[i] >= reward.surrogate_warmup) {
        RtlJob j;
        j.arch = arch_arg;
        j.layer = layer;
        j.mapping = maps[i];
        j.seed = rtl_operand_seed(seed, sample_of[i]);
        j.watchdog_cycles = reward.watchdog_cycles;
        j.limits = reward.limits;
        item_of_job[pool->submit(std::move(j))] = i;
        on_rtl[i] = 1;
      }
    }
    // Second: wait for the whole batch's RTL runs (they run in parallel in the workers).
    const auto t0 = std::chrono::steady_clock::now();
    while (!item_of_job.empty()) {
      auto got = pool->poll(-1);
      if (got.empty() && pool->running() == 0 && pool->queued() == 0) {
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
        outs[i] = rtl_outcome(r, objective);
        rtl_met[i] = r.metrics;
        ++rtl_samples;
        rtl_failed += !outs[i].valid;
        rtl_sim_seconds += r.sim_seconds;
        nlohmann::json e{{"sample", sample_of[i]},
                         {"seed", rtl_operand_seed(seed, sample_of[i])},
                         {"surrogate_cost", sur[i].valid ? objective.cost(sur[i]) : 0.0},
                         {"sim_seconds", r.sim_seconds}};
        if (outs[i].valid) {
          e["cost"] = outs[i].cost;
          e["cycles"] = r.metrics.cycles;
          e["energy_pj"] = r.metrics.energy_pj;
          rtl_metrics[mapping_key(maps[i])] = r.metrics;
        } else {
          e["failure"] = outs[i].reason;
        }
        run_of[i] = std::move(e);
      }
    }
    if (pool)
      rtl_wall_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Third: record and report in sample order.
    for (size_t i = 0; i < n; ++i) {
      if (sample_of[i] >= 0) {
        by_mapping[mapping_key(maps[i])] = outs[i];
        if (on_rtl[i]) rtl_log.push_back(std::move(run_of[i]));
        if (observe)
          observe(SampleSeen{sample_of[i], &pts[i], &maps[i], &sur[i], &outs[i],
                             on_rtl[i] && outs[i].valid ? &rtl_met[i] : nullptr});
      } else if (same_as[i] != SIZE_MAX) {
        outs[i] = outs[same_as[i]];
        outs[i].repeat = true;
      }
    }
    return outs;
  };
  LayerSearch ls;
  ls.result = search::run_search(*searcher, evaluate, budget, keep_going);
  ls.searcher = searcher->describe();
  ls.searcher["seed"] = seed;
  ls.searcher["encoding"] = encoding_name(encoding);
  ls.searcher["space_log10"] = compact ? cspace->log10_size() : raw->log10_size();
  // Distinct samples whose decode was repaired (read next to the result's invalid and
  // duplicates; always 0 for the raw encoding, where an overflow is an invalid sample).
  ls.searcher["repaired"] = repaired;
  bool best_from_rtl = false;
  if (ls.result.found) {
    ls.best = decode(ls.result.best_point, nullptr);
    const auto it = rtl_metrics.find(mapping_key(ls.best));
    best_from_rtl = it != rtl_metrics.end();
    ls.metrics = best_from_rtl ? it->second : surrogate.evaluate(layer, arch, ls.best);
  }
  ls.reward = {{"source", rtl ? "rtl" : "surrogate"}};
  if (rtl) {
    ls.reward["arch"] = arch_arg;
    ls.reward["surrogate_warmup"] = reward.surrogate_warmup;
    ls.reward["jobs"] = reward.jobs;
    ls.reward["rtl_samples"] = rtl_samples;
    ls.reward["rtl_failures"] = rtl_failed;
    ls.reward["rtl_sim_seconds"] = rtl_sim_seconds;
    ls.reward["rtl_wall_seconds"] = rtl_wall_seconds;
    ls.reward["watchdog_cycles"] = reward.watchdog_cycles;
    ls.reward["operand_seed"] = "search seed * 7919 + sample + 1";
    ls.reward["best_from_rtl"] = best_from_rtl;
    ls.reward["runs"] = std::move(rtl_log);
  }
  return ls;
}

int cmd_search(const SearchCliOptions& o, std::ostream& out) {
  if (o.layer.empty() == o.network.empty())
    throw SpecError("--layer/--network", "layer", o.layer + o.network,
                    "give exactly one of --layer or --network");
  if (o.budget <= 0)
    throw SpecError("--budget", "budget", std::to_string(o.budget), "must be a positive integer");
  require_searcher_kind(o.searcher, "--searcher");
  check_exact_options(o.exact);
  const Objective objective = parse_objective(o.objective);
  const Arch arch = load_arch(o.arch);
  const bool exact = o.searcher == "exact";
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
  RewardOptions reward;
  if (rtl_reward) {
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
  }
  const std::string options_file =
      o.options_file.empty() ? configs_dir() + "/search/default.yaml" : o.options_file;
  const search::SearchOptions sopts = load_options_or_default(options_file);

  std::vector<LayerRun> runs;
  std::string target;
  if (!o.layer.empty()) {
    runs.push_back({parse_layer_arg(o.layer), 1, {}, {}, {}, {}, {}, {}, {}});
    target = runs[0].layer.name;
  } else {
    const Network net = parse_network_arg(o.network);
    target = net.name;
    for (const auto& [l, n] : net.unique_layers())
      runs.push_back({l, n, {}, {}, {}, {}, {}, {}, {}});
  }
  const fs::path dir = o.out_dir.empty()
                           ? fs::path("runs") / ("search-" + safe_name(target) + "-" + o.searcher +
                                                 "-s" + std::to_string(o.seed))
                           : fs::path(o.out_dir);
  // Fails here, before any search, when the folder cannot be written.
  make_output_dir(dir / "mappings");
  make_output_dir(dir / "curves");

  const bool tty = o.progress && isatty(STDERR_FILENO);
  std::optional<InterruptSignals> signals(std::in_place);
  size_t done_layers = 0;
  for (size_t li = 0; li < runs.size() && !InterruptSignals::count(); ++li) {
    LayerRun& r = runs[li];
    // One seed per layer, derived from the run seed and the layer index (recorded).
    const uint64_t layer_seed = o.seed * 1000003ULL + li;
    auto progress = [&](const search::SearchProgress& p) {
      if (tty) {
        std::cerr << "\r[" << (li + 1) << "/" << runs.size() << "] " << std::left << std::setw(22)
                  << r.layer.name.substr(0, 22) << std::right << " " << std::setw(6) << p.samples
                  << "/" << p.budget << " samples, best "
                  << (p.found ? std::to_string(p.best_cost) : std::string("-")) << "   "
                  << std::flush;
      }
      return !InterruptSignals::count();
    };
    if (tty && exact)
      std::cerr << "\r[" << (li + 1) << "/" << runs.size() << "] " << r.layer.name.substr(0, 40)
                << ": exact search (at most " << o.exact.time_limit_s << " s)   " << std::flush;
    LayerSearch ls = search_layer(r.layer, arch, o.searcher, sopts, layer_seed, o.budget, objective,
                                  progress, {}, o.exact, Encoding::Compact, reward);
    r.exact = std::move(ls.exact);
    r.reward = std::move(ls.reward);
    if (!exact) {
      // Every sampling search is measured against the layer's optimum (exact mapper).
      const LayerSearch opt =
          search_layer(r.layer, arch, "exact", sopts, layer_seed, 1, objective, {}, {}, o.exact);
      r.optimum = opt.exact;
      if (opt.result.found) r.optimum["cost"] = opt.result.best_cost;
    }
    r.result = std::move(ls.result);
    r.searcher = std::move(ls.searcher);
    r.best = ls.best;
    r.metrics = ls.metrics;
    ++done_layers;
    const std::string stem = std::to_string(li) + "_" + safe_name(r.layer.name);
    if (r.result.found) {
      std::ostringstream y;
      y << "# " << one_line(r.layer.name) << ": " << r.layer.describe() << "\n# searcher "
        << o.searcher << ", seed " << layer_seed << ", objective " << objective.name
        << (exact ? ", proven gap " + (r.exact["gap"].is_null()
                                           ? std::string("n/a")
                                           : std::to_string(r.exact["gap"].get<double>()))
                  : ", budget " + std::to_string(o.budget))
        << (rtl_reward ? ", reward rtl after " + std::to_string(o.surrogate_warmup) +
                             " surrogate samples, best cost from the " +
                             (best_from_rtl(r.reward) ? "RTL" : "surrogate")
                       : std::string())
        << "\n"
        << mapping_to_yaml(r.best);
      write_atomic(dir / "mappings" / (stem + ".yaml"), y.str());
    }
    std::ostringstream curve;
    curve << "sample,best_cost\n";
    for (size_t i = 0; i < r.result.best_so_far.size(); ++i) {
      const double c = r.result.best_so_far[i];
      curve << (i + 1) << "," << (std::isfinite(c) ? std::to_string(c) : std::string("")) << "\n";
    }
    write_atomic(dir / "curves" / (stem + ".csv"), curve.str());
  }
  if (tty) std::cerr << "\r" << std::string(80, ' ') << "\r";
  const bool interrupted = InterruptSignals::count() > 0;
  signals.reset();

  // Totals over the network (each unique layer weighted by its count).
  double cycles = 0, energy = 0, macs = 0;
  bool all_found = true;
  nlohmann::json layers = nlohmann::json::array();
  for (size_t li = 0; li < done_layers; ++li) {
    const LayerRun& r = runs[li];
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
    j["curve_csv"] =
        (dir / "curves" / (std::to_string(li) + "_" + safe_name(r.layer.name) + ".csv")).string();
    if (r.result.found) {
      j["best"] = {{"mapping", mapping_to_yaml(r.best)},
                   {"metrics", r.metrics.to_json()},
                   {"cost", r.result.best_cost},
                   {"cost_source", rtl_best ? "rtl" : "surrogate"}};
      cycles += r.count * static_cast<double>(r.metrics.cycles);
      energy += r.count * r.metrics.energy_pj;
      macs += r.count * static_cast<double>(r.layer.macs());
    } else {
      all_found = false;
    }
    layers.push_back(j);
  }
  nlohmann::json res;
  res["command"] = "search";
  res["target"] = target;
  res["arch"] = arch.name;
  res["searcher"] = o.searcher;
  res["seed"] = o.seed;
  res["budget_per_layer"] = o.budget;
  res["objective"] = objective.name;
  res["reward"] = o.reward;
  if (rtl_reward) res["surrogate_warmup"] = o.surrogate_warmup;
  res["options_file"] = options_file;
  long long samples = 0;
  for (size_t li = 0; li < done_layers; ++li) samples += runs[li].result.samples;
  res["samples"] = samples;
  if (exact) res["exact_options"] = runs.empty() ? nlohmann::json() : runs[0].searcher;
  res["interrupted"] = interrupted;
  res["layers"] = layers;
  res["totals"] = {{"cycles", cycles},
                   {"energy_pj", energy},
                   {"edp", cycles * energy},
                   {"utilization", cycles > 0 ? macs / (cycles * arch.rows * arch.cols) : 0.0},
                   {"layers_searched", done_layers},
                   {"layers_total", runs.size()}};
  if (runs.size() == 1 && runs[0].result.found) {
    res["best"] = layers[0]["best"];
    res["curve"] = layers[0]["curve_csv"];
    // The proof beside the answer: the exact mapper's bound and gap, or a sampling search's
    // distance to the optimum.
    for (const char* k : {"exact", "optimum", "gap_to_optimum"})
      if (layers[0].contains(k)) res[k] = layers[0][k];
  }
  res["run_dir"] = dir.string();
  write_atomic(dir / "results.json", res.dump(2) + "\n");

  if (o.json) {
    out << res.dump(2) << "\n";
  } else {
    out << "search " << target << " on " << arch.name << " (" << arch.rows << "x" << arch.cols
        << ") with " << o.searcher << ", "
        << (exact ? (o.exact.gap == 0 ? std::string("proving each optimum")
                                      : "proven gap <= " + fmt_g(100 * o.exact.gap) + " %") +
                        " within at most " + fmt_g(o.exact.time_limit_s) + " s"
                  : std::to_string(o.budget) + " samples")
        << " per layer, objective " << objective.name << ", seed " << o.seed
        << (rtl_reward
                ? ", reward rtl after " + std::to_string(o.surrogate_warmup) + " surrogate samples"
                : std::string())
        << "\n";
    out << std::left << std::setw(24) << "layer" << std::right << std::setw(6) << "count"
        << std::setw(14) << "cycles" << std::setw(14) << "energy_uJ" << std::setw(8) << "util%";
    if (exact)
      out << std::setw(10) << "gap%" << std::setw(9) << "time_s" << std::setw(12) << "nodes"
          << std::setw(12) << "evals";
    else
      out << std::setw(9) << "valid%" << std::setw(7) << "dup" << std::setw(12) << "vs_opt%";
    out << "\n";
    for (size_t li = 0; li < done_layers; ++li) {
      const LayerRun& r = runs[li];
      out << std::left << std::setw(24) << one_line(r.layer.name.substr(0, 23)) << std::right
          << std::setw(6) << r.count;
      if (r.result.found)
        out << std::setw(14) << r.metrics.cycles << std::setw(14) << std::fixed
            << std::setprecision(2) << r.metrics.energy_pj * 1e-6 << std::setw(8)
            << std::setprecision(1) << 100 * r.metrics.utilization << std::defaultfloat;
      else
        out << std::setw(36) << "no valid mapping found";
      if (exact) {
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
    if (rtl_reward)
      for (size_t li = 0; li < done_layers; ++li) {
        const nlohmann::json& w = runs[li].reward;
        if (!w.is_object() || !w.contains("rtl_samples")) continue;
        out << "rtl reward " << one_line(runs[li].layer.name.substr(0, 23)) << ": "
            << w["rtl_samples"].get<long long>() << " samples simulated ("
            << w["rtl_failures"].get<long long>() << " failed), " << std::fixed
            << std::setprecision(1) << w["rtl_sim_seconds"].get<double>() << " s simulated, "
            << w["rtl_wall_seconds"].get<double>() << " s waited" << std::defaultfloat
            << "; best cost from the " << (w["best_from_rtl"].get<bool>() ? "RTL" : "surrogate")
            << "\n";
      }
    out << "total: " << static_cast<long long>(cycles) << " cycles, " << std::fixed
        << std::setprecision(2) << energy * 1e-6 << " uJ, EDP " << std::scientific
        << std::setprecision(4) << cycles * energy << " pJ*cycles" << std::defaultfloat << "\n";
    if (runs.size() == 1 && runs[0].result.found)
      out << "best mapping:\n" << mapping_to_yaml(runs[0].best);
    out << "written to " << dir.string() << " (results.json, mappings/, curves/)\n";
    if (interrupted)
      out << "interrupted: " << done_layers << " of " << runs.size() << " layers finished\n";
  }
  if (interrupted) return 130;
  return all_found ? 0 : 3;
}

}  // namespace mapwright::flows
