// The setup and the on-disk state of a study: the suite resolved into architecture, objective,
// search options and uniquely named layers; the fingerprint (suite file, options,
// architecture) that a resumed study must match; the optimum of every layer, proven by the
// exact mapper in the first session and read back from study-state.json in later ones; and the
// planned searcher runs, those already in trials.jsonl marked finished.
#include "study/study_state.hpp"

#include <chrono>
#include <iostream>
#include <limits>
#include <map>

#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/flows/layer_search.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

StudySetup make_study_setup(const StudyOptions& o, StudySuite suite) {
  StudySetup s;
  s.options = o;
  s.suite = std::move(suite);
  if (!o.options_file.empty()) s.suite.options_file = o.options_file;
  s.arch = load_arch(s.suite.arch);
  s.objective = parse_objective(s.suite.objective, o.suite);
  s.search = load_options_or_default(s.suite.options_file);
  // Every layer needs its own name: the summaries are keyed by it. An inline layer is named
  // after its spec (file-name safe: no commas for the CSVs); a name given twice gets #index.
  std::map<std::string, int> seen;
  for (size_t li = 0; li < s.suite.layers.size(); ++li) {
    Layer l = parse_layer_arg(s.suite.layers[li], o.suite);
    if (l.name == "inline") l.name = safe_name(s.suite.layers[li]);
    if (seen[l.name]++ > 0) l.name += "#" + std::to_string(li);
    s.layers.push_back(l);
  }
  s.boot.resamples = s.suite.bootstrap_resamples;
  s.boot.confidence = s.suite.bootstrap_confidence;
  s.boot.seed = s.suite.bootstrap_seed;
  s.dir = o.out_dir.empty() ? fs::path("runs") / ("study-" + safe_name(s.suite.name))
                            : fs::path(o.out_dir);
  return s;
}

StudyState::StudyState(const StudySetup& setup) : setup_(setup) {
  // What makes the study: the suite file, the options and the architecture. A resumed study
  // must have the same.
  print_ = fingerprint(read_text(setup_.options.suite) + "\n--\n" +
                       search::to_json(setup_.search).dump() + "\n--\n" + setup_.arch.name);
  const fs::path& dir = setup_.dir;
  const fs::path state_file = dir / "study-state.json";
  if (fs::exists(state_file)) {
    if (!setup_.options.resume)
      throw SpecError("--out", "out", dir.string(),
                      "already holds a study (study-state.json); add --resume to continue it "
                      "or choose another --out");
    try {
      state_ = nlohmann::json::parse(read_text(state_file));
    } catch (const nlohmann::json::exception& e) {
      throw SpecError(state_file.string(), "(json)", "", e.what());
    }
    if (!state_.is_object() || state_.value("fingerprint", "") != print_)
      throw SpecError(state_file.string(), "fingerprint",
                      state_.is_object() ? state_.value("fingerprint", "") : "",
                      "the suite, its options or its architecture changed since this study "
                      "started (now " +
                          print_ + "); start it in another --out");
  } else if (fs::exists(dir / "trials.jsonl")) {
    throw SpecError("--out", "out", dir.string(),
                    "has trials.jsonl but no study-state.json: not a study folder this "
                    "version can resume; choose another --out");
  }
}

StudyState::~StudyState() = default;

void StudyState::find_optima() {
  const std::vector<Layer>& layers = setup_.layers;
  optimum_.assign(layers.size(), StudyOptimum{});
  const fs::path state_file = setup_.dir / "study-state.json";
  if (!state_.is_null()) {
    const auto& so = state_.at("optimum");
    if (!so.is_array() || so.size() != layers.size())
      throw SpecError(state_file.string(), "optimum", "", "must list one record per layer");
    for (size_t li = 0; li < layers.size(); ++li) {
      optimum_[li].found = so[li].at("found").get<bool>();
      optimum_[li].cost = so[li].at("cost").get<double>();
      optimum_[li].record = so[li].at("record");
    }
    exact_seconds_ = state_.at("exact_seconds").get<double>();
    return;
  }
  const auto t_exact = std::chrono::steady_clock::now();
  ExactOptions ex;
  ex.time_limit_s = setup_.suite.reference_time_limit_s;
  ex.gap = setup_.suite.reference_gap;
  ex.threads = setup_.options.jobs;
  for (size_t li = 0; li < layers.size(); ++li) {
    LayerSearch ls =
        search_layer({layers[li], setup_.arch, "exact", setup_.search, 0, 1, setup_.objective, ex});
    optimum_[li].found = ls.result.found;
    optimum_[li].cost = ls.result.found ? ls.result.best_cost : 0;
    optimum_[li].record = ls.exact;
    if (ls.result.found) optimum_[li].record["cost"] = ls.result.best_cost;
  }
  exact_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_exact).count();
  nlohmann::json state = {{"format", 1},
                          {"fingerprint", print_},
                          {"suite_file", setup_.options.suite},
                          {"exact_seconds", exact_seconds_},
                          {"optimum", nlohmann::json::array()}};
  for (const auto& op : optimum_)
    state["optimum"].push_back({{"found", op.found}, {"cost", op.cost}, {"record", op.record}});
  write_atomic(state_file, state.dump(2) + "\n");
}

void StudyState::plan_jobs() {
  const StudySuite& suite = setup_.suite;
  for (size_t li = 0; li < setup_.layers.size(); ++li) {
    for (const auto& k :
         suite.reference_multiplier > 0 ? suite.reference_searchers : std::vector<std::string>{}) {
      Job r;
      r.layer = li;
      r.searcher = k;
      r.seed = suite.reference_seed;
      r.budget = suite.budget * suite.reference_multiplier;
      r.reference = true;
      jobs_.push_back(r);
    }
    for (const auto& k : suite.searchers) {
      for (uint64_t seed : suite.seeds) {
        Job j;
        j.layer = li;
        j.searcher = k;
        j.seed = seed;
        j.budget = suite.budget_of(k);
        jobs_.push_back(j);
      }
    }
  }
  log_ = std::make_unique<TrialLog>(setup_.dir / "trials.jsonl");
  if (log_->dropped_torn_line())
    std::cerr << "study: dropped a trial record cut short by an earlier crash; its run is "
                 "repeated\n";
  std::map<decltype(Trial().key()), const Trial*> have;
  for (const Trial& t : log_->loaded()) have[t.key()] = &t;
  for (Job& j : jobs_) {
    const auto it = have.find(j.key());
    if (it == have.end()) continue;
    static_cast<Trial&>(j) = *it->second;
    j.done = true;
    ++from_log_;
  }
}

}  // namespace mapwright::flows
