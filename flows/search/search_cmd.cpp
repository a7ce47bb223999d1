// `mapwright search`: checks the flags, loads the arch, the search options and the layer or the
// network, searches every unique layer in order with the layer-search engine (with the RTL
// reward, on one worker pool for all layers), and writes each layer's best mapping and
// best-so-far curve as it finishes, then results.json and the summary.
#include "mapwright/flows/search_flow.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "common/files.hpp"
#include "common/signals.hpp"
#include "common/text.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/flows/layer_search.hpp"
#include <stdexcept>
#include "mapwright/flows/seeds.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using namespace mapwright::rtlpool;

namespace mapwright::flows {
namespace {

/// One unique layer of the search: what was searched and what came out.
struct LayerRun {
  Layer layer;                  ///< The layer.
  int count = 1;                ///< How often the network has it.
  search::SearchResult result;  ///< Curve, best point, counts.
  Mapping best;                 ///< Best mapping (when found).
  Metrics metrics;              ///< Its metrics (the RTL's when its cost was).
  nlohmann::json searcher;      ///< The searcher's record (LayerSearch::searcher).
  nlohmann::json exact;         ///< The exact mapper's bound, gap and effort (null otherwise).
  nlohmann::json optimum;       ///< Sampling searchers: the exact mapper's answer to compare with.
  nlohmann::json reward;        ///< Where the samples' costs came from (see LayerSearch::reward).
};

/// True when a layer's reward record says its best cost was measured on the RTL.
bool best_from_rtl(const nlohmann::json& reward) {
  return reward.is_object() && reward.value("best_from_rtl", false);
}

/// Everything cmd_search works with once its flags are checked and its inputs loaded.
struct SearchJob {
  Objective objective;      ///< Parsed --objective.
  Arch arch;                ///< Loaded --arch.
  bool exact = false;       ///< --searcher exact.
  bool rtl_reward = false;  ///< --reward rtl.
  RtlRewardOptions reward;  ///< --reward rtl: warm-up, limits, the workers' arch.
  /// --reward rtl: the workers of every layer's search (null for the surrogate).
  std::unique_ptr<RtlWorkerPool> pool;
  std::string options_file;     ///< Search options file (the default when not given).
  search::SearchOptions sopts;  ///< Its options.
  std::vector<LayerRun> runs;   ///< One per unique layer, in network order.
  std::string target;           ///< The layer's or the network's name.
  fs::path dir;                 ///< Output folder (mappings/ and curves/ exist).
};

/// Refuses bad --reward, --surrogate-warmup, --surrogate-prior and --jobs values, the RTL reward
/// with the exact mapper, and a prior without the RTL reward.
void check_reward_flags(const SearchCliOptions& o, bool exact) {
  if (o.reward != "surrogate" && o.reward != "rtl")
    throw SpecError("--reward", "reward", o.reward, "must be surrogate or rtl");
  const bool rtl_reward = o.reward == "rtl";
  if (o.surrogate_warmup < 0)
    throw SpecError("--surrogate-warmup", "surrogate-warmup", std::to_string(o.surrogate_warmup),
                    "must be a number of samples >= 0");
  if (o.surrogate_prior < 0 || o.surrogate_prior > 1000000)
    throw SpecError("--surrogate-prior", "surrogate-prior", std::to_string(o.surrogate_prior),
                    "must be a number of points between 0 and 1000000");
  if (o.surrogate_prior > 0 && !rtl_reward)
    throw SpecError("--surrogate-prior", "surrogate-prior", std::to_string(o.surrogate_prior),
                    "a prior scored by the surrogate is for --reward rtl (with the surrogate "
                    "reward its points would be free samples)");
  if (o.surrogate_prior > 0 && exact)
    throw SpecError("--surrogate-prior", "surrogate-prior", std::to_string(o.surrogate_prior),
                    "the exact mapper takes no prior");
  if (o.jobs < 0 || o.jobs > 1024)
    throw SpecError("--jobs", "jobs", std::to_string(o.jobs),
                    "must be between 0 (number of cores) and 1024");
  if (exact && rtl_reward)
    throw SpecError("--reward", "reward", o.reward,
                    "the exact mapper optimizes the surrogate; use --reward surrogate");
  try {
    encoding_from_name(o.encoding);
  } catch (const std::invalid_argument&) {
    throw SpecError("--encoding", "encoding", o.encoding, "must be compact, raw or gamma");
  }
  if (exact && o.encoding != "compact")
    throw SpecError("--encoding", "encoding", o.encoding,
                    "the exact mapper searches the compact space; --encoding is for the sampling "
                    "searchers");
}

/// With --reward rtl, the RTL reward's settings and its worker pool, started before any work
/// (its probe refuses an architecture without an RTL model); nothing for the surrogate.
void start_reward(const SearchCliOptions& o, SearchJob& job) {
  if (o.reward != "rtl") return;
  check_sim_limits(o.sim_limits);
  job.reward.limits = o.sim_limits;
  job.reward.surrogate_warmup = o.surrogate_warmup;
  job.reward.jobs = o.jobs;
  job.reward.arch = o.arch;
  job.pool = rtl_reward_pool(o.arch, o.worker_exe, o.jobs);
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
  start_reward(o, job);
  job.options_file =
      o.options_file.empty() ? configs_dir() + "/search/default.yaml" : o.options_file;
  job.sopts = load_options_or_default(job.options_file);
  std::vector<std::pair<Layer, int>> layers;
  if (!o.layer.empty()) {
    layers.push_back({parse_layer_arg(o.layer, "--layer", make_onnx_options({}, o.strict)), 1});
    job.target = layers[0].first.name;
  } else {
    const Network net =
        parse_network_arg(o.network, "--network", make_onnx_options(o.input_shapes, o.strict));
    std::cerr << import_note(net);
    job.target = net.name;
    layers = net.unique_layers();
  }
  job.runs.resize(layers.size());
  for (size_t li = 0; li < layers.size(); ++li)
    std::tie(job.runs[li].layer, job.runs[li].count) = layers[li];
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
  const LayerSearchRequest rq{r.layer,          job.arch, o.searcher,
                              job.sopts,        seed,     o.budget,
                              job.objective,    o.exact,  encoding_from_name(o.encoding),
                              o.surrogate_prior};
  LayerSearch ls =
      search_layer(rq, *reward_evaluator(rq, job.reward, job.pool.get()), {progress, {}});
  r.exact = std::move(ls.exact);
  r.reward = std::move(ls.reward);
  if (!job.exact) {
    // Every sampling search is measured against the layer's optimum (exact mapper).
    const LayerSearch opt =
        search_layer({r.layer, job.arch, "exact", job.sopts, seed, 1, job.objective, o.exact});
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
  if (o.surrogate_prior > 0) res["surrogate_prior"] = o.surrogate_prior;
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
      << (o.surrogate_prior > 0
              ? ", prior of " + std::to_string(o.surrogate_prior) + " surrogate-scored points"
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
