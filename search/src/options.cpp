// Loading, validating and recording searcher options. The YAML schema mirrors the structs in
// options.hpp one to one: a top-level map with optional sections random, ga, sa, ppo, ppo_box,
// marl (marl has sub-maps learner and clustering) and bo. Every key is checked: unknown keys, wrong
// types and out-of-range values are rejected with a message naming the file, the dotted key and the
// offending value.
#include "mapwright/search/options.hpp"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

namespace mapwright::search {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& key, const std::string& value,
                       const std::string& why) {
  // SpecError builds the one message shape (control characters escaped).
  throw std::invalid_argument(core::SpecError(where, key, value, why).what());
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// Reads one YAML map through the strict YAML layer (support/yaml_util.hpp): unknown keys, null,
/// maps, lists and tags where a scalar belongs, wrong types, non-finite numbers and integers
/// that do not fit are refused as core::SpecError; ranges are checked by validate_options.
class MapReader {
 public:
  MapReader(const YAML::Node& node, std::string where, std::string prefix,
            const std::vector<std::string>& known)
      : node_(node), where_(std::move(where)), prefix_(std::move(prefix)) {
    core::check_keys(node_, where_, prefix_, known);
  }

  /// The sub-map at key, or an undefined node when absent.
  YAML::Node sub(const std::string& key) const { return node_[key]; }

  void get(const std::string& key, int64_t& out) const {
    out = core::get_int(node_, key, where_, prefix_, out);
  }
  void get(const std::string& key, double& out) const {
    out = core::get_double(node_, key, where_, prefix_, out);
  }
  void get(const std::string& key, bool& out) const {
    out = core::get_bool(node_, key, where_, prefix_, out);
  }
  void get(const std::string& key, std::string& out) const {
    out = core::get_string(node_, key, where_, prefix_, out);
  }

 private:
  const YAML::Node& node_;  ///< The map being read.
  std::string where_;       ///< File name for messages.
  std::string prefix_;      ///< Dotted path of this map ("" at the top).
};

void read_learner(const YAML::Node& n, const std::string& where, const std::string& prefix,
                  LearnerOptions& o) {
  MapReader r(n, where, prefix, {"algorithm",      "lr",
                                 "batch",          "epochs",
                                 "clip",           "entropy_coef",
                                 "value_coef",     "max_grad_norm",
                                 "hidden",         "layers",
                                 "ordinal_basis",  "autoregressive",
                                 "advantage",      "invalid_penalty",
                                 "elite",          "imitation_coef",
                                 "repeat_penalty", "value_norm",
                                 "reward",         "inverse_scale",
                                 "invalid_reward"});
  r.get("algorithm", o.algorithm);
  r.get("lr", o.lr);
  r.get("batch", o.batch);
  r.get("epochs", o.epochs);
  r.get("clip", o.clip);
  r.get("entropy_coef", o.entropy_coef);
  r.get("value_coef", o.value_coef);
  r.get("max_grad_norm", o.max_grad_norm);
  r.get("hidden", o.hidden);
  r.get("layers", o.layers);
  r.get("ordinal_basis", o.ordinal_basis);
  r.get("autoregressive", o.autoregressive);
  r.get("advantage", o.advantage);
  r.get("invalid_penalty", o.invalid_penalty);
  r.get("elite", o.elite);
  r.get("imitation_coef", o.imitation_coef);
  r.get("repeat_penalty", o.repeat_penalty);
  r.get("value_norm", o.value_norm);
  r.get("reward", o.reward);
  r.get("inverse_scale", o.inverse_scale);
  r.get("invalid_reward", o.invalid_reward);
}

void read_clustering(const YAML::Node& n, const std::string& where, const std::string& prefix,
                     ClusteringOptions& o) {
  MapReader r(n, where, prefix,
              {"agents", "linkage", "bins", "significance", "merge_threshold", "invalid_penalty"});
  r.get("agents", o.agents);
  r.get("linkage", o.linkage);
  r.get("bins", o.bins);
  r.get("significance", o.significance);
  r.get("merge_threshold", o.merge_threshold);
  r.get("invalid_penalty", o.invalid_penalty);
}

SearchOptions read_top(const YAML::Node& root, const std::string& where) {
  SearchOptions o;
  if (!root || root.IsNull()) return o;  // Empty file: all defaults.
  MapReader top(root, where, "", {"random", "ga", "sa", "ppo", "ppo_box", "marl", "bo"});
  if (auto n = top.sub("random")) {
    MapReader r(n, where, "random", {"batch"});
    r.get("batch", o.random.batch);
  }
  if (auto n = top.sub("ga")) {
    MapReader r(
        n, where, "ga",
        {"population", "mutation_prob", "crossover_prob", "tournament", "elitism", "radius"});
    r.get("population", o.ga.population);
    r.get("mutation_prob", o.ga.mutation_prob);
    r.get("crossover_prob", o.ga.crossover_prob);
    r.get("tournament", o.ga.tournament);
    r.get("elitism", o.ga.elitism);
    r.get("radius", o.ga.radius);
  }
  if (auto n = top.sub("sa")) {
    MapReader r(n, where, "sa",
                {"initial_temperature", "cooling", "min_temperature", "radius", "params_per_move",
                 "restart_after"});
    r.get("initial_temperature", o.sa.initial_temperature);
    r.get("cooling", o.sa.cooling);
    r.get("min_temperature", o.sa.min_temperature);
    r.get("radius", o.sa.radius);
    r.get("params_per_move", o.sa.params_per_move);
    r.get("restart_after", o.sa.restart_after);
  }
  if (auto n = top.sub("ppo")) read_learner(n, where, "ppo", o.ppo);
  if (auto n = top.sub("ppo_box")) {
    MapReader r(
        n, where, "ppo_box",
        {"lr", "batch", "epochs", "minibatches", "clip", "entropy_coef", "value_coef",
         "max_grad_norm", "adam_epsilon", "hidden", "layers", "init_std", "min_std",
         "normalize_advantage", "invalid_penalty", "reward", "inverse_scale", "invalid_reward"});
    auto& b = o.ppo_box;
    r.get("lr", b.lr);
    r.get("batch", b.batch);
    r.get("epochs", b.epochs);
    r.get("minibatches", b.minibatches);
    r.get("clip", b.clip);
    r.get("entropy_coef", b.entropy_coef);
    r.get("value_coef", b.value_coef);
    r.get("max_grad_norm", b.max_grad_norm);
    r.get("adam_epsilon", b.adam_epsilon);
    r.get("hidden", b.hidden);
    r.get("layers", b.layers);
    r.get("init_std", b.init_std);
    r.get("min_std", b.min_std);
    r.get("normalize_advantage", b.normalize_advantage);
    r.get("invalid_penalty", b.invalid_penalty);
    r.get("reward", b.reward);
    r.get("inverse_scale", b.inverse_scale);
    r.get("invalid_reward", b.invalid_reward);
  }
  if (auto n = top.sub("marl")) {
    MapReader r(n, where, "marl",
                {"initial_samples", "mode", "learner", "clustering", "credit", "critic_bins",
                 "critic_window", "critic_ridge", "recluster_at", "agents", "sharing", "critic"});
    r.get("initial_samples", o.marl.initial_samples);
    r.get("mode", o.marl.mode);
    r.get("credit", o.marl.credit);
    r.get("recluster_at", o.marl.recluster_at);
    r.get("critic_bins", o.marl.critic_bins);
    r.get("critic_window", o.marl.critic_window);
    r.get("critic_ridge", o.marl.critic_ridge);
    r.get("agents", o.marl.agents);
    r.get("sharing", o.marl.sharing);
    r.get("critic", o.marl.critic);
    if (auto l = r.sub("learner")) read_learner(l, where, "marl.learner", o.marl.learner);
    if (auto c = r.sub("clustering"))
      read_clustering(c, where, "marl.clustering", o.marl.clustering);
  }
  if (auto n = top.sub("bo")) {
    MapReader r(n, where, "bo",
                {"batch", "invalid_penalty", "ordinal_continuous", "solver_epsilon",
                 "relative_noise_magnitude", "pure_random_search_probability"});
    r.get("batch", o.bo.batch);
    r.get("invalid_penalty", o.bo.invalid_penalty);
    r.get("ordinal_continuous", o.bo.ordinal_continuous);
    r.get("solver_epsilon", o.bo.solver_epsilon);
    r.get("relative_noise_magnitude", o.bo.relative_noise_magnitude);
    r.get("pure_random_search_probability", o.bo.pure_random_search_probability);
  }
  return o;
}

template <class T>
std::string text(const T& v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Stated ranges: every integer option has a lower and an upper bound (below), every positive
// or non-negative number is at most kMaxNumber.
constexpr double kMaxNumber = 1e9;

void check_int(const std::string& where, const std::string& key, int64_t v, int64_t lo,
               int64_t hi) {
  if (v < lo) fail(where, key, text(v), "expected an integer >= " + text(lo));
  if (v > hi) fail(where, key, text(v), "expected an integer <= " + text(hi));
}
void check_range(const std::string& where, const std::string& key, double v, double lo, double hi,
                 bool lo_open) {
  const bool bad = !std::isfinite(v) || (lo_open ? v <= lo : v < lo) || v > hi;
  if (bad)
    fail(where, key, text(v),
         std::string("expected a number in ") + (lo_open ? "(" : "[") + text(lo) + ", " + text(hi) +
             "]");
}
void check_positive(const std::string& where, const std::string& key, double v) {
  if (!std::isfinite(v) || v <= 0) fail(where, key, text(v), "expected a number > 0");
  if (v > kMaxNumber) fail(where, key, text(v), "expected a number <= " + text(kMaxNumber));
}
void check_nonneg(const std::string& where, const std::string& key, double v) {
  if (!std::isfinite(v) || v < 0) fail(where, key, text(v), "expected a number >= 0");
  if (v > kMaxNumber) fail(where, key, text(v), "expected a number <= " + text(kMaxNumber));
}
void check_enum(const std::string& where, const std::string& key, const std::string& v,
                const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (a == v) return;
  fail(where, key, v, "expected one of: " + join(allowed));
}

/// The reward form of an RL searcher: "log" or "inverse", a positive scale, a finite reward.
void check_reward_form(const std::string& where, const std::string& p, const std::string& form,
                       double scale, double invalid_reward) {
  check_enum(where, p + ".reward", form, {"log", "inverse"});
  check_positive(where, p + ".inverse_scale", scale);
  if (!std::isfinite(invalid_reward))
    fail(where, p + ".invalid_reward", text(invalid_reward), "expected a finite number");
}

void validate_learner(const LearnerOptions& o, const std::string& where, const std::string& p) {
  check_enum(where, p + ".algorithm", o.algorithm, {"ppo", "reinforce"});
  check_positive(where, p + ".lr", o.lr);
  check_int(where, p + ".batch", o.batch, 2, 1000000);
  check_int(where, p + ".epochs", o.epochs, 1, 1000);
  check_positive(where, p + ".clip", o.clip);
  check_nonneg(where, p + ".entropy_coef", o.entropy_coef);
  check_nonneg(where, p + ".value_coef", o.value_coef);
  check_positive(where, p + ".max_grad_norm", o.max_grad_norm);
  check_int(where, p + ".hidden", o.hidden, 1, 65536);
  check_int(where, p + ".layers", o.layers, 0, 64);
  check_int(where, p + ".ordinal_basis", o.ordinal_basis, 0, 1024);
  check_enum(where, p + ".advantage", o.advantage, {"batch", "critic"});
  check_positive(where, p + ".invalid_penalty", o.invalid_penalty);
  check_int(where, p + ".elite", o.elite, 0, 1000000);
  check_nonneg(where, p + ".imitation_coef", o.imitation_coef);
  check_nonneg(where, p + ".repeat_penalty", o.repeat_penalty);
  check_reward_form(where, p, o.reward, o.inverse_scale, o.invalid_reward);
}

}  // namespace

void validate_options(const SearchOptions& o, const std::string& where) {
  check_int(where, "random.batch", o.random.batch, 1, 1000000);
  check_int(where, "ga.population", o.ga.population, 2, 1000000);
  check_range(where, "ga.mutation_prob", o.ga.mutation_prob, 0, 1, false);
  check_range(where, "ga.crossover_prob", o.ga.crossover_prob, 0, 1, false);
  check_int(where, "ga.tournament", o.ga.tournament, 1, 1000000);
  check_int(where, "ga.elitism", o.ga.elitism, 0, 1000000);
  if (o.ga.elitism >= o.ga.population)
    fail(where, "ga.elitism", text(o.ga.elitism),
         "expected less than ga.population (" + text(o.ga.population) + ")");
  check_range(where, "ga.radius", o.ga.radius, 0, 1, true);
  check_positive(where, "sa.initial_temperature", o.sa.initial_temperature);
  check_range(where, "sa.cooling", o.sa.cooling, 0, 1, true);
  check_positive(where, "sa.min_temperature", o.sa.min_temperature);
  check_range(where, "sa.radius", o.sa.radius, 0, 1, true);
  check_int(where, "sa.params_per_move", o.sa.params_per_move, 1, 1000000);
  check_int(where, "sa.restart_after", o.sa.restart_after, 0, 1000000000);
  validate_learner(o.ppo, where, "ppo");
  validate_learner(o.marl.learner, where, "marl.learner");
  const auto& b = o.ppo_box;
  check_positive(where, "ppo_box.lr", b.lr);
  check_int(where, "ppo_box.batch", b.batch, 2, 1000000);
  check_int(where, "ppo_box.epochs", b.epochs, 1, 1000);
  check_int(where, "ppo_box.minibatches", b.minibatches, 1, 1000000);
  if (b.minibatches > b.batch)
    fail(where, "ppo_box.minibatches", text(b.minibatches),
         "expected at most ppo_box.batch (" + text(b.batch) + ")");
  check_positive(where, "ppo_box.clip", b.clip);
  check_nonneg(where, "ppo_box.entropy_coef", b.entropy_coef);
  check_nonneg(where, "ppo_box.value_coef", b.value_coef);
  check_positive(where, "ppo_box.max_grad_norm", b.max_grad_norm);
  check_positive(where, "ppo_box.adam_epsilon", b.adam_epsilon);
  check_int(where, "ppo_box.hidden", b.hidden, 1, 65536);
  check_int(where, "ppo_box.layers", b.layers, 0, 64);
  check_positive(where, "ppo_box.min_std", b.min_std);
  check_positive(where, "ppo_box.init_std", b.init_std);
  if (b.init_std <= b.min_std)
    fail(where, "ppo_box.init_std", text(b.init_std),
         "expected more than ppo_box.min_std (" + text(b.min_std) + ")");
  check_positive(where, "ppo_box.invalid_penalty", b.invalid_penalty);
  check_reward_form(where, "ppo_box", b.reward, b.inverse_scale, b.invalid_reward);
  check_int(where, "marl.initial_samples", o.marl.initial_samples, kMarlMinInitialSamples,
            10000000);
  check_int(where, "marl.critic_bins", o.marl.critic_bins, 1, 1000000);
  check_int(where, "marl.recluster_at", o.marl.recluster_at, 0, 1000000000);
  check_int(where, "marl.critic_window", o.marl.critic_window, 2, 10000000);
  check_nonneg(where, "marl.critic_ridge", o.marl.critic_ridge);
  check_enum(where, "marl.mode", o.marl.mode, {"correlation", "per-param", "random", "single"});
  check_enum(where, "marl.agents", o.marl.agents, {"clustered", "per-buffer"});
  if (o.marl.agents == "per-buffer" && o.marl.mode != "correlation")
    fail(where, "marl.mode", o.marl.mode,
         "expected correlation (the default) with marl.agents 'per-buffer', which replaces it");
  if (o.marl.agents == "per-buffer" && o.marl.recluster_at > 0)
    fail(where, "marl.recluster_at", text(o.marl.recluster_at),
         "expected 0 with marl.agents 'per-buffer' (the groups do not depend on samples)");
  check_enum(where, "marl.credit", o.marl.credit, {"team", "counterfactual"});
  check_enum(where, "marl.sharing", o.marl.sharing, {"none", "all"});
  check_enum(where, "marl.critic", o.marl.critic, {"additive", "joint"});
  const auto& c = o.marl.clustering;
  check_int(where, "marl.clustering.agents", c.agents, 0, 1000000);
  check_enum(where, "marl.clustering.linkage", c.linkage, {"average", "single", "complete"});
  check_int(where, "marl.clustering.bins", c.bins, 0, 1000000);
  if (c.bins == 1) fail(where, "marl.clustering.bins", "1", "expected 0 (automatic) or >= 2");
  check_positive(where, "marl.clustering.significance", c.significance);
  check_range(where, "marl.clustering.merge_threshold", c.merge_threshold, 0, 1, true);
  check_positive(where, "marl.clustering.invalid_penalty", c.invalid_penalty);
  check_int(where, "bo.batch", o.bo.batch, 1, 1000);
  check_positive(where, "bo.invalid_penalty", o.bo.invalid_penalty);
  check_nonneg(where, "bo.solver_epsilon", o.bo.solver_epsilon);
  // > 0, not dlib's >= 0: an invalid point proposed again is told a new value (the worst valid
  // value moves), and without noise two values at one point make the model infeasible.
  check_positive(where, "bo.relative_noise_magnitude", o.bo.relative_noise_magnitude);
  check_range(where, "bo.pure_random_search_probability", o.bo.pure_random_search_probability, 0, 1,
              false);
}

SearchOptions parse_search_options(const std::string& yaml_text, const std::string& where) {
  SearchOptions o;
  try {
    const YAML::Node root = core::load_yaml_text(yaml_text, where);
    o = read_top(root, where);
  } catch (const core::SpecError& e) {
    // Same "<file>: key '<k>' = '<v>': why" text; options keep their documented error type.
    throw std::invalid_argument(e.what());
  }
  validate_options(o, where);
  return o;
}

SearchOptions load_search_options(const std::string& yaml_file) {
  std::ifstream in(yaml_file);
  if (!in) throw std::invalid_argument(yaml_file + ": cannot open search options file");
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_search_options(buf.str(), yaml_file);
}

nlohmann::json to_json(const LearnerOptions& o) {
  return {{"algorithm", o.algorithm},
          {"lr", o.lr},
          {"batch", o.batch},
          {"epochs", o.epochs},
          {"clip", o.clip},
          {"entropy_coef", o.entropy_coef},
          {"value_coef", o.value_coef},
          {"max_grad_norm", o.max_grad_norm},
          {"hidden", o.hidden},
          {"layers", o.layers},
          {"ordinal_basis", o.ordinal_basis},
          {"autoregressive", o.autoregressive},
          {"advantage", o.advantage},
          {"invalid_penalty", o.invalid_penalty},
          {"elite", o.elite},
          {"imitation_coef", o.imitation_coef},
          {"repeat_penalty", o.repeat_penalty},
          {"value_norm", o.value_norm},
          {"reward", o.reward},
          {"inverse_scale", o.inverse_scale},
          {"invalid_reward", o.invalid_reward}};
}

nlohmann::json to_json(const PpoBoxOptions& o) {
  return {{"lr", o.lr},
          {"batch", o.batch},
          {"epochs", o.epochs},
          {"minibatches", o.minibatches},
          {"clip", o.clip},
          {"entropy_coef", o.entropy_coef},
          {"value_coef", o.value_coef},
          {"max_grad_norm", o.max_grad_norm},
          {"adam_epsilon", o.adam_epsilon},
          {"hidden", o.hidden},
          {"layers", o.layers},
          {"init_std", o.init_std},
          {"min_std", o.min_std},
          {"normalize_advantage", o.normalize_advantage},
          {"invalid_penalty", o.invalid_penalty},
          {"reward", o.reward},
          {"inverse_scale", o.inverse_scale},
          {"invalid_reward", o.invalid_reward}};
}

nlohmann::json to_json(const BoOptions& o) {
  return {{"batch", o.batch},
          {"invalid_penalty", o.invalid_penalty},
          {"ordinal_continuous", o.ordinal_continuous},
          {"solver_epsilon", o.solver_epsilon},
          {"relative_noise_magnitude", o.relative_noise_magnitude},
          {"pure_random_search_probability", o.pure_random_search_probability}};
}

nlohmann::json to_json(const ClusteringOptions& o) {
  return {{"agents", o.agents},
          {"linkage", o.linkage},
          {"bins", o.bins},
          {"significance", o.significance},
          {"merge_threshold", o.merge_threshold},
          {"invalid_penalty", o.invalid_penalty}};
}

nlohmann::json to_json(const SearchOptions& o) {
  return {{"random", {{"batch", o.random.batch}}},
          {"ga",
           {{"population", o.ga.population},
            {"mutation_prob", o.ga.mutation_prob},
            {"crossover_prob", o.ga.crossover_prob},
            {"tournament", o.ga.tournament},
            {"elitism", o.ga.elitism},
            {"radius", o.ga.radius}}},
          {"sa",
           {{"initial_temperature", o.sa.initial_temperature},
            {"cooling", o.sa.cooling},
            {"min_temperature", o.sa.min_temperature},
            {"radius", o.sa.radius},
            {"params_per_move", o.sa.params_per_move},
            {"restart_after", o.sa.restart_after}}},
          {"ppo", to_json(o.ppo)},
          {"ppo_box", to_json(o.ppo_box)},
          {"marl",
           {{"initial_samples", o.marl.initial_samples},
            {"mode", o.marl.mode},
            {"recluster_at", o.marl.recluster_at},
            {"credit", o.marl.credit},
            {"critic_bins", o.marl.critic_bins},
            {"critic_window", o.marl.critic_window},
            {"critic_ridge", o.marl.critic_ridge},
            {"agents", o.marl.agents},
            {"sharing", o.marl.sharing},
            {"critic", o.marl.critic},
            {"learner", to_json(o.marl.learner)},
            {"clustering", to_json(o.marl.clustering)}}},
          {"bo", to_json(o.bo)}};
}

const std::vector<std::string>& searcher_kinds() {
  static const std::vector<std::string> kinds = {"random",  "ga",   "sa", "ppo",
                                                 "ppo-box", "marl", "bo"};
  return kinds;
}

}  // namespace mapwright::search
