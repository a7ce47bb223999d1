// Study suites: strict loading of the searchers x seeds x layers description. Kept apart from
// study.cpp so the fuzz target fuzz/study_suite_fuzz.cpp can compile it without the search
// and model libraries.
#include <algorithm>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "mapwright/flows/encoding.hpp"
#include "mapwright/flows/layer_search.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "mapwright/flows/study.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

void read_bootstrap_settings(const YAML::Node& root, const std::string& path, int& resamples,
                             double& confidence, uint64_t& seed) {
  const YAML::Node bs = root["bootstrap"];
  if (!bs) return;
  constexpr double kMaxSeed = 4.6e18;  // < 2^62, exact in int64.
  check_keys(bs, path, "bootstrap", {"resamples", "confidence", "seed"});
  resamples =
      static_cast<int>(get_int_in(bs, "resamples", path, "bootstrap", resamples, 100, 1000000));
  confidence = get_double_in(bs, "confidence", path, "bootstrap", confidence, 0.5, 0.999);
  seed = static_cast<uint64_t>(get_int_in(bs, "seed", path, "bootstrap", static_cast<int64_t>(seed),
                                          0, static_cast<int64_t>(kMaxSeed)));
}

StudySuite load_study_suite(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "",
             {"kind", "name", "description", "arch", "objective", "options", "searchers", "seeds",
              "budget", "iso_budgets", "targets_pct", "reference", "bootstrap", "budget_caps",
              "reward", "layers", "encoding", "final_quality_of"});
  // Ranges: seeds and reference.seed 0 .. 2^62, budget 1 .. 1e8 samples, iso_budgets
  // 1 .. budget, targets_pct (0, 1000), reference.budget_multiplier 0 .. 1000 (0: no sampled
  // reference runs), reference.time_limit_s 0.001 .. 1e6, reference.gap 0 .. 0.5,
  // bootstrap.resamples 100 .. 1e6, bootstrap.confidence 0.5 .. 0.999, bootstrap.seed 0 .. 2^62.
  constexpr double kMaxSeed = 4.6e18;  // < 2^62, exact in int64.
  StudySuite s;
  // kind: codesign suites are read by codesign_study.cpp (cmd_study sends them there).
  if (const std::string kind = get_string(root, "kind", path, "", "mapping"); kind != "mapping")
    throw SpecError(path, "kind", kind,
                    "must be mapping here (a codesign study runs through `mapwright study`)");
  s.name = get_string(root, "name", path, "", fs::path(path).stem().string());
  get_string(root, "description", path, "", "");  // Free text, but it must be text.
  s.arch = get_string(root, "arch", path, "", s.arch);
  s.objective = get_string(root, "objective", path, "", s.objective);
  parse_objective(s.objective, path);
  s.options_file = get_string(root, "options", path, "", "");
  s.searchers = get_list<std::string>(root, "searchers", path, true);
  for (const auto& k : s.searchers) require_searcher_kind(k, path + ": searchers");
  s.seeds = get_list<uint64_t>(root, "seeds", path, true, 0, kMaxSeed);
  s.budget = get_int_in(root, "budget", path, "", s.budget, 1, 100000000);
  if (s.budget <= 0) throw SpecError(path, "budget", std::to_string(s.budget), "must be positive");
  s.iso_budgets = get_list<int64_t>(root, "iso_budgets", path, false, 1, 100000000);
  if (s.iso_budgets.empty()) s.iso_budgets = {s.budget};
  for (auto b : s.iso_budgets)
    if (b <= 0 || b > s.budget)
      throw SpecError(path, "iso_budgets", std::to_string(b), "must be between 1 and budget");
  s.targets_pct = get_list<double>(root, "targets_pct", path, false, 0, 1000);
  if (s.targets_pct.empty()) s.targets_pct = {5, 10};
  // The headline ratios are samples to within 5 %: that target must be measured.
  if (std::find(s.targets_pct.begin(), s.targets_pct.end(), 5.0) == s.targets_pct.end())
    throw SpecError(path, "targets_pct", std::to_string(s.targets_pct.front()),
                    "must include 5 (the headline ratios use samples to within 5 %)");
  for (double t : s.targets_pct)
    if (!(t > 0 && t < 1000))
      throw SpecError(path, "targets_pct", std::to_string(t), "must be in (0, 1000)");
  if (const YAML::Node ref = root["reference"]) {
    check_keys(ref, path, "reference",
               {"time_limit_s", "gap", "budget_multiplier", "seed", "searchers"});
    s.reference_time_limit_s =
        get_double_in(ref, "time_limit_s", path, "reference", s.reference_time_limit_s, 1e-3, 1e6);
    s.reference_gap = get_double_in(ref, "gap", path, "reference", s.reference_gap, 0, 0.5);
    if (ref["searchers"]) {
      s.reference_searchers = get_list<std::string>(ref, "searchers", path + ": reference", true);
      for (const auto& k : s.reference_searchers)
        require_searcher_kind(k, path + ": reference.searchers");
    }
    s.reference_multiplier = get_int_in(ref, "budget_multiplier", path, "reference", 0, 0, 1000);
    s.reference_seed = static_cast<uint64_t>(
        get_int_in(ref, "seed", path, "reference", 1000, 0, static_cast<int64_t>(kMaxSeed)));
    if (s.reference_multiplier < 0)
      throw SpecError(path, "reference.budget_multiplier", std::to_string(s.reference_multiplier),
                      "must be >= 0");
  }
  if (s.reference_searchers.empty()) s.reference_searchers = s.searchers;
  read_bootstrap_settings(root, path, s.bootstrap_resamples, s.bootstrap_confidence,
                          s.bootstrap_seed);
  if (const YAML::Node caps = root["budget_caps"]) {
    if (!caps.IsMap())
      throw SpecError(path, "budget_caps", "", "must be a map of searcher: samples");
    for (const auto& kv : caps) {
      const std::string k = kv.first.as<std::string>();
      if (std::find(s.searchers.begin(), s.searchers.end(), k) == s.searchers.end())
        throw SpecError(path, "budget_caps." + k, k, "is not one of the suite's searchers");
      s.budget_caps[k] = get_int_in(caps, k, path, "budget_caps", s.budget, 1, s.budget);
    }
  }
  if (const YAML::Node rw = root["reward"]) {
    check_keys(rw, path, "reward", {"source", "surrogate_warmup", "surrogate_prior"});
    const std::string src = get_string(rw, "source", path, "reward", "surrogate");
    if (src != "surrogate" && src != "rtl")
      throw SpecError(path, "reward.source", src, "must be surrogate or rtl");
    s.rtl_reward = src == "rtl";
    s.surrogate_warmup = get_int_in(rw, "surrogate_warmup", path, "reward", 0, 0, s.budget);
    s.surrogate_prior = get_int_in(rw, "surrogate_prior", path, "reward", 0, 0, 1000000);
    if (s.surrogate_prior > 0 && !s.rtl_reward)
      throw SpecError(path, "reward.surrogate_prior", std::to_string(s.surrogate_prior),
                      "is for source: rtl (with the surrogate reward its points would be free "
                      "samples)");
    if (s.rtl_reward)
      for (const auto& k : s.searchers)
        if (k == "exact")
          throw SpecError(path, "searchers", k,
                          "the exact mapper optimizes the surrogate; it cannot take reward: rtl");
  }
  s.encoding = get_string(root, "encoding", path, "", s.encoding);
  try {
    encoding_from_name(s.encoding);
  } catch (const std::invalid_argument&) {
    throw SpecError(path, "encoding", s.encoding, "must be compact, raw or gamma");
  }
  s.final_quality_of = get_string(root, "final_quality_of", path, "", "");
  if (!s.final_quality_of.empty() &&
      std::find(s.searchers.begin(), s.searchers.end(), s.final_quality_of) == s.searchers.end())
    throw SpecError(path, "final_quality_of", s.final_quality_of,
                    "is not one of the suite's searchers");
  if (s.final_quality_of == "exact")
    throw SpecError(path, "final_quality_of", s.final_quality_of,
                    "must be a sampling searcher (the exact mapper's answer is the optimum)");
  s.layers = get_list<std::string>(root, "layers", path, true);
  for (const auto& l : s.layers) parse_layer_arg(l, path + ": layers");
  return s;
}

}  // namespace mapwright::flows
