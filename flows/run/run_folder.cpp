// What a run settles before its session: the folder (default name, lock, resume: the stored
// run's settings win and explicit flags that differ are refused), the checks of the options,
// the inputs loaded from the settings (architecture, objective, search options, layers), the
// RTL worker pool, and the record of a new run.
#include "run/run_app.hpp"

#include <algorithm>
#include <iostream>

#include "common/text.hpp"
#include "mapwright/core/concurrency.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// Refuses a --resume whose explicit options differ from the stored run.
void check_resume(const RunOptions& o, const RunRecord& r, const fs::path& file) {
  for (const SettingChange& c : changed_flags(r.settings, o.settings, o.given))
    throw SpecError("--" + c.flag, c.flag, c.given,
                    "differs from the run being resumed (" + file.string() + " has " + c.stored +
                        "); drop the flag or choose another --out");
}

/// The stored record of the run in `dir` (results.json exists), checked.
RunRecord read_stored_run(const fs::path& results_file) {
  json stored;
  try {
    stored = json::parse(read_text(results_file));
  } catch (const json::exception& e) {
    throw SpecError(results_file.string(), "(json)", "", e.what());
  }
  if (!stored.is_object() || !stored.contains("command") || stored["command"] != "run")
    throw SpecError(
        results_file.string(), "command",
        stored.is_object() && stored.contains("command") ? stored["command"].dump() : "",
        "not a `mapwright run` folder");
  check_run_record(stored, results_file.string());
  return run_record_from_json(stored, results_file.string());
}

/// A folder without results.json: refuses --resume of a folder that is not a run's, or of one
/// that stopped before its first save without the options to start it again. `fresh_folder`:
/// the folder did not exist, or was empty, before this process took its lock.
void check_new_run_folder(const RunOptions& o, const fs::path& dir, bool fresh_folder) {
  // A folder that did not exist (or was empty) before this process took its lock starts a new
  // run, --resume or not (scripts/run-defaults.sh on a fresh clone).
  if (fresh_folder || !o.resume) return;
  const bool foreign = std::any_of(fs::directory_iterator(dir), fs::directory_iterator(),
                                   [](const fs::directory_entry& e) {
                                     // What a run killed before its first results.json leaves;
                                     // anything else is not a run folder.
                                     const std::string n = e.path().filename().string();
                                     return n != ".lock" && n != "mappings" && n != "curves" &&
                                            n.rfind("results.sqlite", 0) != 0;
                                   });
  if (foreign) throw SpecError("--out", "out", dir.string(), "has no results.json to resume");
  if (!o.given.count("network") && !o.given.count("layer"))
    // Stopped before its first save: nothing records what it was.
    throw SpecError("--out", "out", dir.string(),
                    "has no results.json (the run stopped before its first save); start it "
                    "again with its options and --resume");
}

}  // namespace

std::string layer_file_stem(size_t li, const std::string& name) {
  return std::to_string(li) + "_" + safe_name(name);
}

fs::path default_run_dir(const RunSettings& s) {
  const std::string target =
      s.layer.empty()
          ? parse_network_arg(s.network, "--network", make_onnx_options(s.input_shapes, s.strict))
                .name
          : parse_layer_arg(s.layer).name;
  return fs::path("runs") / ("run-" + safe_name(target) + "-" + safe_name(load_arch(s.arch).name) +
                             "-" + s.searcher + "-s" + std::to_string(s.seed));
}

RunFolder open_run_folder(RunOptions& o) {
  RunFolder f;
  f.dir = o.out_dir;
  std::error_code ec;
  const bool fresh_folder = !fs::exists(f.dir, ec) || fs::is_empty(f.dir, ec);
  f.lock = std::make_unique<FolderLock>(f.dir, "--out");  // one process per folder
  const fs::path results_file = f.dir / "results.json";
  if (!fs::exists(results_file)) {
    check_new_run_folder(o, f.dir, fresh_folder);
    return f;
  }
  if (!o.resume)
    throw SpecError("--out", "out", f.dir.string(),
                    "already holds a run (results.json); add --resume to continue it, "
                    "`mapwright report " +
                        f.dir.string() + "` to re-render it, or choose another --out");
  f.stored = read_stored_run(results_file);
  check_resume(o, *f.stored, results_file);
  // The stored run decides (a --layer run resumes as one); the exact mapper's threads say how
  // this process runs it, so they stay as given.
  const int threads = o.settings.exact.threads;
  o.settings = f.stored->settings;
  o.settings.exact.threads = threads;
  return f;
}

void check_run_options(const RunOptions& o) {
  const RunSettings& s = o.settings;
  if (s.budget <= 0)
    throw SpecError("--budget", "budget", std::to_string(s.budget), "must be a positive integer");
  if (s.top_k < 1 || s.top_k > 64)
    throw SpecError("--top-k", "top-k", std::to_string(s.top_k), "must be between 1 and 64");
  if (o.jobs < 0) throw SpecError("--jobs", "jobs", std::to_string(o.jobs), "must be >= 0");
  rtlpool::check_sim_limits(o.sim_limits);
  require_searcher_kind(s.searcher, "--searcher");
  if (s.reward != "surrogate" && s.reward != "rtl")
    throw SpecError("--reward", "reward", s.reward, "must be surrogate or rtl");
  if (s.reward == "rtl" && s.searcher == "exact")
    throw SpecError("--reward", "reward", s.reward,
                    "the exact mapper optimizes the surrogate; choose a sampling --searcher "
                    "(e.g. marl) for RTL reward");
  if (s.reward == "rtl" && s.no_rtl)
    throw SpecError("--reward", "reward", s.reward, "needs the RTL; drop --no-rtl");
  if (s.surrogate_warmup < 0)
    throw SpecError("--surrogate-warmup", "surrogate-warmup", std::to_string(s.surrogate_warmup),
                    "must be >= 0");
  check_exact_options(s.exact);
}

RunInputs load_run_inputs(const RunSettings& s, std::ostream* notes) {
  RunInputs in;
  in.objective = parse_objective(s.objective);
  in.arch = load_arch(s.arch);
  if (s.rtl()) require_rtl_dram_port(in.arch, "--arch");
  in.search_options = load_options_or_default(s.options_file);
  if (!s.layer.empty()) {
    in.layers.push_back({parse_layer_arg(s.layer, "--layer", make_onnx_options({}, s.strict)), 1});
    in.target = in.layers[0].first.name;
    return in;
  }
  const Network net =
      parse_network_arg(s.network, "--network", make_onnx_options(s.input_shapes, s.strict));
  if (notes) *notes << import_note(net);
  in.target = net.name;
  in.layers = net.unique_layers();
  in.import_skipped = net.skipped;
  in.import_warnings = net.warnings;
  return in;
}

int run_jobs(const RunOptions& o) {
  return o.jobs > 0 ? o.jobs : default_jobs();
}

std::unique_ptr<rtlpool::RtlWorkerPool> start_rtl_pool(const RunOptions& o, const Arch& arch,
                                                       int jobs) {
  auto pool = std::make_unique<rtlpool::RtlWorkerPool>(
      o.worker_exe.empty() ? rtlpool::worker_executable() : o.worker_exe, jobs);
  rtlpool::ModelCacheOptions cache;
  cache.progress = &std::cerr;
  pool->enable_model_cache(cache);
  if (const std::string why = pool->check_arch(o.settings.arch); !why.empty())
    throw SpecError("--arch", "arch", arch.name, why + "; run it surrogate-only with --no-rtl");
  return pool;
}

RunRecord new_run_record(const RunSettings& s, const fs::path& dir, const Arch& arch,
                         const std::string& target,
                         const std::vector<std::pair<Layer, int>>& layers) {
  RunRecord r;
  r.run_id = safe_name(dir.filename().string()) + "-" + now_iso();
  r.created = now_iso();
  r.mapwright = "0.1.0";
  r.target = target;
  r.settings = s;
  r.arch = arch_info_of(arch);
  r.options_file = s.options_file.empty() ? configs_dir() + "/search/default.yaml" : s.options_file;
  for (size_t li = 0; li < layers.size(); ++li) {
    LayerRecord L;
    L.index = li;
    L.layer = layers[li].first;
    L.count = layers[li].second;
    L.seed = layer_seed(s.seed, li);
    r.layers.push_back(std::move(L));
  }
  return r;
}

}  // namespace mapwright::flows
